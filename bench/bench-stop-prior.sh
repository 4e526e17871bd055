#!/bin/sh
# bench-stop-prior.sh [-r repeats]: what --stop-prior saves (run by hand,
# not by CI). ours on three sets, each run twice by ar-sched simulate:
# as ar-sched next, ar-run and ar-bench measure now (a re-measurement's
# question asked of all the pair's runs: ar-bench given the earlier
# interval with --stop-prior), and with -O (asked of its own pairs only,
# as ar-bench did before --stop-prior, and does for a runner that does
# not pass the interval on). Prints found (strict) and the mean share of
# the grid's GPU-hours per campaign of each, and the difference. The
# sets are bench-policy.sh's fresh sets of the change before
# --stop-prior, made the same way with the same seeds: the second
# recipe (seeds 71, 72), its flat 1-10% noise (73, 74) and the shapes
# check recipes (17001-17004).
# About 2 minutes on 2 cores (one core: the simulations run in turn).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
reps=1
while getopts r: c; do
	case $c in
	r) reps=$OPTARG ;;
	*) echo "usage: sh bench/bench-stop-prior.sh [-r repeats]" >&2; exit 64 ;;
	esac
done
bin=${AR_BIN:-$top/build/bin}
[ -x "$bin/ar-sched" ] || { echo "bench-stop-prior: $bin/ar-sched: not built" >&2; exit 66; }
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-stop-prior.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
machine "$bin/ar-sched"
. "$top/landscapes/shapes/recipes.sh"
indep() { awk -f "$top/bench/indep-landscapes.awk" "$@"; }
mkdir -p "$work/indep" "$work/flat" "$work/shapes"
indep -v seed=71 -v n=500 -v prefix=IA71x > "$work/indep/a71.tsv"
indep -v seed=72 -v n=500 -v prefix=IA72x > "$work/indep/a72.tsv"
indep -v seed=73 -v n=500 -v prefix=IF73x -v nflat=1 > "$work/flat/f73.tsv"
indep -v seed=74 -v n=500 -v prefix=IF74x -v nflat=1 > "$work/flat/f74.tsv"
shapes_check "$bin/ar-sched" "$work/shapes" 17001 12 X

# one SET MODE-FLAGS: "found share" of ours over the set's files.
one() {
	set=$1
	shift
	"$bin/ar-sched" simulate -S -p ours -r "$reps" "$@" "$work/$set"/*.tsv |
	    awk -F'\t' '$1 == "ours" { printf "%.4f %.4f\n", $4, $8 }'
}
printf '%-8s %-22s %-22s %s\n' set "with --stop-prior" "without (-O)" "what it saves"
for set in indep flat shapes; do
	a=$(one "$set")
	b=$(one "$set" -O)
	echo "$set $a $b" | awk '{ printf "%-8s %5.1f%% at %5.2f%%       %5.1f%% at %5.2f%%       %.2f points of the grid, found %+.1f points\n",
	    $1, 100 * $2, 100 * $3, 100 * $4, 100 * $5, 100 * ($5 - $3), 100 * ($2 - $4) }'
done
