#!/bin/sh
# make-shapes.sh [OUTDIR]: the large landscape sets of the shapes recipe
# (`ar-sched landscape -t shapes`, issue 16) for a policy benchmark, the
# same bytes every time, into OUTDIR (bench/out/landscapes by default):
#   shapes-tune/   1125 landscapes, seeds 2001-2003: to tune on
#   shapes-check/  1236 landscapes, seeds 4001-4004: to report on
# The recipes are landscapes/shapes/recipes.sh's, the landscapes 15 and
# 12 times as many as the small sets committed in landscapes/shapes/ (whose
# seeds are 201-203 and 301-304), so that no landscape is in two sets.
# (Not bench-shapes.sh: that one is the verdict model of issue 15.)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -le 1 ] || { echo "usage: sh bench/make-shapes.sh [outdir]" >&2; exit 64; }
out=${1:-$top/bench/out/landscapes}
bin=${AR_BIN:-$top/build/bin}
[ -x "$bin/ar-sched" ] || { echo "make-shapes: $bin/ar-sched: not built" >&2; exit 66; }
. "$top/landscapes/shapes/recipes.sh"
mkdir -p "$out/shapes-tune" "$out/shapes-check"
shapes_tune "$bin/ar-sched" "$out/shapes-tune" 2001 15 T
shapes_check "$bin/ar-sched" "$out/shapes-check" 4001 12 C
for set in tune check; do
	n=$(cat "$out/shapes-$set"/*.tsv | awk -F'\t' '$1 != "landscape" { print $1 }' | sort -u | wc -l)
	echo "make-shapes: $out/shapes-$set: $n landscapes"
done
