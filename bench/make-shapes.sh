#!/bin/sh
# make-shapes.sh [-n] [OUTDIR]: the large landscape sets of the shapes recipe
# (`ar-sched landscape -t shapes`, issue 16) for a policy benchmark, the
# same bytes every time, into OUTDIR (bench/out/landscapes by default):
#   shapes-tune/   1125 landscapes, seeds 2001-2003: to tune on
#   shapes-check/  1236 landscapes, seeds 4001-4004: to report on
#   noisy-tune/    with -n only: 14250 landscapes, seeds 11001-11004
#                  (recipes.sh's shapes_noisy), 381 of them with a noisy
#                  best: to tune the noisy shape on (about 160 MB)
# The recipes are landscapes/shapes/recipes.sh's, the landscapes 15 and
# 12 times as many as the small sets committed in landscapes/shapes/ (whose
# seeds are 201-203 and 301-304), so that no landscape is in two sets.
# (Not bench-shapes.sh: that one is the verdict model of issue 15.)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
noisy=0
if [ "${1:-}" = -n ]; then
	noisy=1
	shift
fi
[ $# -le 1 ] || { echo "usage: sh bench/make-shapes.sh [-n] [outdir]" >&2; exit 64; }
out=${1:-$top/bench/out/landscapes}
bin=${AR_BIN:-$top/build/bin}
[ -x "$bin/ar-sched" ] || { echo "make-shapes: $bin/ar-sched: not built" >&2; exit 66; }
. "$top/landscapes/shapes/recipes.sh"
mkdir -p "$out/shapes-tune" "$out/shapes-check"
shapes_tune "$bin/ar-sched" "$out/shapes-tune" 2001 15 T
shapes_check "$bin/ar-sched" "$out/shapes-check" 4001 12 C
sets="tune check"
if [ $noisy = 1 ]; then
	mkdir -p "$out/noisy-tune"
	shapes_noisy "$bin/ar-sched" "$out/noisy-tune" 11001 150 NT
	sets="tune check noisy"
fi
for set in $sets; do
	dir=$out/shapes-$set
	[ $set = noisy ] && dir=$out/noisy-tune
	n=$(cat "$dir"/*.tsv | awk -F'\t' '$1 != "landscape" { print $1 }' | sort -u | wc -l)
	echo "make-shapes: $dir: $n landscapes"
done
