#!/bin/sh
# bench-curve.sh [-g groups] [-f formats] [-k dir]: ar-curve's speed over a synthetic
# verified ledger export (run by hand, not by CI). Each group is one
# method at k = 1, 2, 4, 8 drawn from an Amdahl curve with 2% noise and
# 95% intervals, 30% of the k = 8 points failing a guardrail; so every
# group is fitted (Amdahl, and USL tried: 4 points) and predicted. The
# rows are shuffled, so a group's rows are never adjacent. Prints the
# machine, then per output the seconds (best of 3), the groups a second,
# and of one run the peak resident memory in KiB and the user CPU
# seconds (/usr/bin/time -f "%M %U"): ar-curve runs a thread a core, so
# on a shared machine the CPU seconds are the steadier figure.
# Issue 21's figures: -g 100000 and -g 1000000; -g 10000 besides shows
# the growth. -f names the outputs timed ("tsv jsonl" by default); -k
# keeps the export in dir (for comparing outputs).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
groups=100000
formats="tsv jsonl"
keep=
while getopts f:g:k: c; do
	case $c in
	f) formats=$OPTARG ;;
	g) groups=$OPTARG ;;
	k) keep=$OPTARG ;;
	*) echo "usage: sh bench/bench-curve.sh [-g groups] [-f formats] [-k dir]" >&2; exit 64 ;;
	esac
done
bin=${AR_BIN:-$top/build/bin}
[ -x "$bin/ar-curve" ] || { echo "bench-curve: $bin/ar-curve: not built" >&2; exit 66; }
if [ -n "$keep" ]; then
	work=$keep
	mkdir -p "$work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/bench-curve.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi
# Each row is written after a random sort key, then sorted and cut: the
# export's order is not the groups'. A kept export of as many groups is
# used again.
[ -s "$work/export.tsv" ] && [ "$(($(wc -l < "$work/export.tsv") - 1))" -eq $((4 * groups)) ] ||
awk -v g="$groups" 'BEGIN {
	srand(1); OFS = "\t"
	print "id", "signed", "verified", "method.hash", "method.commit",
	    "workload", "device", "shape.k", "verdict", "pass.guardrails", "aa",
	    "ratio.median", "ratio.ci_lo", "ratio.ci_hi", "ratio.n" > "/dev/stderr"
	for (m = 0; m < g; m++) {
		s = 0.3 + rand(); b = 0.8 + 0.4 * rand()
		for (i = 0; i < 4; i++) {
			k = 2 ^ i
			y = b * k / (1 + s * (k - 1)) * (0.98 + 0.04 * rand())
			printf "%09d\tr%07d%d\tyes\tyes\th%07d\tc%07d\tw\tcuda\t%d\tkeep\t%s\tfalse\t%.4f\t%.4f\t%.4f\t40\n",
			    int(rand() * 1e9), m, i, m, m, k,
			    (k == 8 && rand() < 0.3) ? "false" : "true",
			    y, y * 0.98, y * 1.02
		}
	}
}' 2> "$work/export.tsv" | sort -t "$(printf '\t')" -k 1,1 -S 25% | cut -f 2- >> "$work/export.tsv"
echo "# bench-curve: ar-curve over $groups groups of 4 points ($(($(wc -l < "$work/export.tsv") - 1)) rows)"
machine "$bin/ar-curve"
printf 'output\tseconds\tgroups_per_s\tpeak_kib\tuser_s\n'
for f in $formats; do
	s=$(best sh -c '"$1" -f "$2" < "$3"' sh "$bin/ar-curve" "$f" "$work/export.tsv")
	/usr/bin/time -f '%M %U' -o "$work/time" "$bin/ar-curve" -f "$f" < "$work/export.tsv" > /dev/null 2>&1
	printf '%s\t%s\t%s\t%s\n' "$f" "$s" "$(awk -v g="$groups" -v s="$s" 'BEGIN { printf "%.0f", g / s }')" "$(tail -n 1 "$work/time" | tr ' ' '\t')"
done
