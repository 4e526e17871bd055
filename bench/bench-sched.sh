#!/bin/sh
# bench-sched.sh [-N nodes] [-G gpus] [-p pending] [-d hours] [-s seed]:
# the packer and its queue on a simulated cluster (run by hand, not by
# CI): ar-sched cluster, 64 nodes of 8 GPUs and 100,000 requests pending
# by default, with the starvation guard (nodes kept for the oldest
# requests that fit nowhere, backfill elsewhere) and without it.
# Prints the machine, each run's figures, and whether the issue's targets
# hold: at least 95% of the GPUs busy while work is pending, at most 10 ms
# per decision (p99 and max) with that many pending.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
nodes=64 gpus=8 pending=100000 hours=48 seed=1
while getopts N:G:p:d:s: c; do
	case $c in
	N) nodes=$OPTARG ;;
	G) gpus=$OPTARG ;;
	p) pending=$OPTARG ;;
	d) hours=$OPTARG ;;
	s) seed=$OPTARG ;;
	*) echo "usage: sh bench/bench-sched.sh [-N nodes] [-G gpus] [-p pending] [-d hours] [-s seed]" >&2; exit 64 ;;
	esac
done
bin=${AR_BIN:-$top/build/bin}
[ -x "$bin/ar-sched" ] || { echo "bench-sched: $bin/ar-sched: not built" >&2; exit 66; }
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-sched.XXXXXX")
trap 'rm -rf "$work"' EXIT
machine "$bin/ar-sched"
args="-N $nodes -G $gpus -p $pending -d $hours -s $seed"
echo "# ar-sched cluster $args [--no-reserve]: requests 40% 1, 25% 2, 20% 4, 15% 8 GPUs, exponential durations (mean 1 h, 3 min to 6 h)"
"$bin/ar-sched" cluster $args > "$work/easy.tsv"
"$bin/ar-sched" cluster $args --no-reserve | tail -n +2 > "$work/greedy.tsv"
s=$(best "$bin/ar-sched" cluster $args)
cat "$work/easy.tsv" "$work/greedy.tsv" > "$work/all.tsv"
column -t < "$work/all.tsv" 2>/dev/null || cat "$work/all.tsv"
echo "# whole simulation, best of 3: $s s"
awk -F'\t' 'NR == 2 {
	u = ($9 >= 0.95); d = ($11 <= 10 && $12 <= 10)
	printf "# utilization %.2f%% (target >= 95%%: %s); decision time mean %.4f ms, p99 %.4f ms, max %.4f ms over %d decisions with %d pending (target <= 10 ms: %s); %d 8-GPU requests started, none waited more than %.2f h at the head of the queue\n",
	    100 * $9, u ? "met" : "MISSED", $10, $11, $12, $7, $3, d ? "met" : "MISSED", $13, $14
	ok = u && d }
	NR == 3 { printf "# without the guard: utilization %.2f%%, %d 8-GPU requests started, one waited %.2f h at the head of the queue\n", 100 * $9, $13, $14 }
	END { exit !ok }' "$work/all.tsv"
