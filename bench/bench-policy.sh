#!/bin/sh
# bench-policy.sh [-r repeats] [-s seed]: every policy of ar-sched
# simulate over two sets of landscapes (run by hand, not by CI), side by
# side, and whether ours meets the targets: the best feasible (method, k)
# found in at least 95% of the campaigns, at most 30% of the grid's
# GPU-hours.
#   tuning   landscapes/*.tsv and 1800 landscapes made with the seeds
#            1001-1003, 3001-3003 and 9001-9003: the policy's constants
#            were chosen looking at these.
#   heldout  landscapes/heldout/*.tsv and 1800 landscapes made with the
#            seeds 5001-5003, 7001-7003 and 11001-11003: never tuned on.
#            (5001 and 7001 were run with earlier constants, which were
#            not chosen on them either; 11001 was added with the last
#            change and never run before it.)
# The large sets are made here by `ar-sched landscape` (the recipes of
# landscapes/regen.sh, five times the landscapes) into bench/out/, the
# same bytes every time. A set of 120 landscapes alone moves by several
# points from one draw of landscapes to the next, which is why both sets
# are mostly large ones.
# Found: the pick is feasible and its true score is within the minimum
# effect (1%) of the true best's; exact: it is a true best.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
reps=1
seed=1
while getopts r:s: c; do
	case $c in
	r) reps=$OPTARG ;;
	s) seed=$OPTARG ;;
	*) echo "usage: sh bench/bench-policy.sh [-r repeats] [-s seed]" >&2; exit 64 ;;
	esac
done
bin=${AR_BIN:-$top/build/bin}
[ -x "$bin/ar-sched" ] || { echo "bench-policy: $bin/ar-sched: not built" >&2; exit 66; }
out=$top/bench/out
mkdir -p "$out/landscapes"
machine "$bin/ar-sched"

# make NAME SEED: the three recipes of regen.sh with five times the
# landscapes, seeds SEED, SEED+1, SEED+2, into bench/out/landscapes/.
make_set() {
	few=flat=3,scaler=0.5,contend=2,infeasible=1,noisy=1,dud=2
	d=$out/landscapes
	s=$2
	"$bin/ar-sched" landscape -n 300 -m 12 -s "$s" -x "$1mixed" > "$d/$1-mixed.tsv"
	"$bin/ar-sched" landscape -n 200 -m 12 -s $((s + 1)) -x "$1few" --mix "$few" > "$d/$1-few-scalers.tsv"
	"$bin/ar-sched" landscape -n 100 -m 24 -s $((s + 2)) -x "$1wide" > "$d/$1-wide.tsv"
}
make_set t1 1001
make_set t3 3001
make_set t9 9001
make_set h5 5001
make_set h7 7001
make_set h11 11001

ok=0
for set in tuning heldout; do
	if [ $set = tuning ]; then
		files="$(ls "$top"/landscapes/*.tsv) $(ls "$out"/landscapes/t[139]-*.tsv)"
	else
		files="$(ls "$top"/landscapes/heldout/*.tsv) $(ls "$out"/landscapes/h5-*.tsv "$out"/landscapes/h7-*.tsv "$out"/landscapes/h11-*.tsv)"
	fi
	n=$(cat $files | awk -F'\t' 'NR > 1 && $1 != "landscape" { print $1 }' | sort -u | wc -l)
	echo "# $set: $n landscapes x $reps repeat(s), seed $seed: ar-sched simulate -S -r $reps -s $seed $(echo $files | sed "s|$top/||g")"
	"$bin/ar-sched" simulate -S -r "$reps" -s "$seed" $files > "$out/policy-$set.tsv"
	column -t < "$out/policy-$set.tsv" 2>/dev/null || cat "$out/policy-$set.tsv"
	awk -F'\t' -v set=$set 'NR > 1 && $1 == "ours" {
		f = ($4 >= 0.95); g = ($7 <= 0.30)
		printf "# %s: ours found %.1f%% (target >= 95%%: %s), mean %.2f%% of the grid'"'"'s GPU-hours per campaign (target <= 30%%: %s); %.1f%% of all grid GPU-hours\n",
		    set, 100 * $4, f ? "met" : "MISSED", 100 * $7, g ? "met" : "MISSED", 100 * $9
		exit !(f && g) }' "$out/policy-$set.tsv" || ok=1
done
exit $ok
