#!/bin/sh
# bench-policy.sh [-r repeats] [-s seed]: every policy of ar-sched
# simulate over the shipped landscapes (run by hand, not by CI): the
# tuning set landscapes/*.tsv, then the held-out set landscapes/heldout/
# (other seeds, not looked at while tuning), side by side, and whether
# ours meets the targets: the best feasible (method, k) found in at
# least 95% of the campaigns, at most 30% of the grid's GPU-hours.
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
mkdir -p "$top/bench/out"
machine "$bin/ar-sched"
ok=0
for set in tuning heldout; do
	if [ $set = tuning ]; then files=$(ls "$top"/landscapes/*.tsv)
	else files=$(ls "$top"/landscapes/heldout/*.tsv); fi
	n=$(cat $files | awk -F'\t' 'NR > 1 && $1 != "landscape" { print $1 }' | sort -u | wc -l)
	echo "# $set: $n landscapes x $reps repeat(s), seed $seed: ar-sched simulate -S -r $reps -s $seed $(echo "$files" | sed "s|$top/||g" | tr '\n' ' ')"
	"$bin/ar-sched" simulate -S -r "$reps" -s "$seed" $files > "$top/bench/out/policy-$set.tsv"
	column -t < "$top/bench/out/policy-$set.tsv" 2>/dev/null || cat "$top/bench/out/policy-$set.tsv"
	awk -F'\t' -v set=$set 'NR > 1 && $1 == "ours" {
		f = ($4 >= 0.95); g = ($7 <= 0.30)
		printf "# %s: ours found %.1f%% (target >= 95%%: %s), mean %.1f%% of the grid'"'"'s GPU-hours per campaign (target <= 30%%: %s); %.1f%% of all grid GPU-hours\n",
		    set, 100 * $4, f ? "met" : "MISSED", 100 * $7, g ? "met" : "MISSED", 100 * $9
		exit !(f && g) }' "$top/bench/out/policy-$set.tsv" || ok=1
done
exit $ok
