#!/bin/sh
# bench-sched.sh [-N nodes] [-G gpus] [-p pending] [-d hours] [-s seed]:
# the packer and its queue on a simulated cluster (run by hand, not by
# CI): ar-sched cluster, 64 nodes of 8 GPUs and 100,000 requests pending
# by default, with the starvation guard (nodes kept for the oldest
# requests that fit nowhere, backfill elsewhere) and without it.
# Prints the machine, each run's figures, and whether the issue's targets
# hold: at least 95% of the GPUs busy while work is pending, at most 10 ms
# per decision (p99 and max) with that many pending. Then the time of one
# ar-sched next on the same inventory with 2,000 methods submitted and a
# verified ledger export of 100,000 rows.
set -eu
status=0
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
	END { exit !ok }' "$work/all.tsv" || status=1

# ar-sched next at scale: a campaign of the tests' problem, 2,000
# methods (three quarters probed at k=1 already) and 98,000 rows of
# others, A/A rows that clear every node, 64 nodes of 8 NVSwitched GPUs.
[ -x "$bin/ar-init" ] || { echo "bench-sched: $bin/ar-init: not built" >&2; exit 66; }
"$bin/ar-init" -k "$work/keys" -p "$top/tests/fixtures/problem" "$work/camp" > /dev/null
awk -v subs="$work/subs.tsv" -v led="$work/ledger.tsv" -v topo="$work/topo.tsv" 'BEGIN {
	srand(2); OFS = "\t"
	print "id", "method", "label", "workload", "hint", "pfrac" > subs
	print "experiment", "signed", "verified", "method.commit", "method.dir",
	    "workload", "device", "shape.k", "shape.node", "verdict", "aa",
	    "ratio.median", "ratio.ci_lo", "ratio.ci_hi", "pass.guardrails",
	    "noise_floor.rsd", "started", "finished" > led
	print "node", "gpu", "model", "memory_mib", "nvlink" > topo
	for (n = 0; n < 64; n++) {
		node = sprintf("n%02d", n)
		for (g = 0; g < 8; g++) {
			l = ""
			for (h = 0; h < 8; h++)
				if (h != g) l = l (l == "" ? "" : ",") h
			print node, g, "H100", 81559, l > topo
		}
		print "a" n, "yes", "yes", "", "baseline", "decode-512", "cuda", 1,
		    node, "equivalent", "true", 1, 0.99, 1.01, "true", 0.02,
		    "2026-11-26T09:00:00Z", "2026-11-26T09:10:00Z" > led
	}
	for (m = 0; m < 2000; m++) {
		c = sprintf("%040x", m)
		print "m" m, c, "l" m, "", m % 3 ? "" : "scale", m % 5 ? "" : 0.9 > subs
		if (m % 4 == 0) continue
		y = 0.95 + 0.1 * rand()
		print "e" m, "yes", "yes", c, "", "decode-512", "cuda", 1, "n00",
		    "keep", "false", y, y * 0.98, y * 1.02, "true", "",
		    "2026-11-26T01:00:00Z", "2026-11-26T01:10:00Z" > led
	}
	for (r = 0; r < 98000; r++) {
		k = 2 ^ int(rand() * 4); y = 0.9 + 0.3 * rand()
		print "o" r, "yes", "yes", sprintf("%040x", 100000 + r % 5000), "",
		    "decode-512", "cuda", k, "n00", "keep", "false", y, y * 0.98,
		    y * 1.02, "true", "", "2026-11-26T02:00:00Z",
		    "2026-11-26T02:10:00Z" > led
	}
}'
s=$(best "$bin/ar-sched" next -C "$work/camp" -g "$work/topo.tsv" -l "$work/ledger.tsv" -m "$work/subs.tsv")
n=$("$bin/ar-sched" next -C "$work/camp" -g "$work/topo.tsv" -l "$work/ledger.tsv" -m "$work/subs.tsv" 2> /dev/null | tail -n +2 | wc -l)
echo "# ar-sched next, 2000 methods, $(($(wc -l < "$work/ledger.tsv") - 1)) ledger rows, 64 x 8 GPUs: $n assignments in $s s (best of 3)"
exit $status
