#!/bin/sh
# bench-curve.sh [-g groups]: ar-curve's speed over a synthetic verified
# ledger export (run by hand, not by CI). Each group is one method at
# k = 1, 2, 4, 8 drawn from an Amdahl curve with 2% noise and 95%
# intervals, 30% of the k = 8 points failing a guardrail; so every group
# is fitted (Amdahl, and USL tried: 4 points) and predicted. Prints the
# machine, then the seconds of the TSV and JSON Lines outputs (best of 3).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
groups=100000
while getopts g: c; do
	case $c in
	g) groups=$OPTARG ;;
	*) echo "usage: sh bench/bench-curve.sh [-g groups]" >&2; exit 64 ;;
	esac
done
bin=${AR_BIN:-$top/build/bin}
[ -x "$bin/ar-curve" ] || { echo "bench-curve: $bin/ar-curve: not built" >&2; exit 66; }
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-curve.XXXXXX")
trap 'rm -rf "$work"' EXIT
awk -v g="$groups" 'BEGIN {
	srand(1); OFS = "\t"
	print "id", "signed", "verified", "method.hash", "method.commit",
	    "workload", "device", "shape.k", "verdict", "pass.guardrails", "aa",
	    "ratio.median", "ratio.ci_lo", "ratio.ci_hi", "ratio.n"
	for (m = 0; m < g; m++) {
		s = 0.3 + rand(); b = 0.8 + 0.4 * rand()
		for (i = 0; i < 4; i++) {
			k = 2 ^ i
			y = b * k / (1 + s * (k - 1)) * (0.98 + 0.04 * rand())
			printf "r%07d%d\tyes\tyes\th%07d\tc%07d\tw\tcuda\t%d\tkeep\t%s\tfalse\t%.4f\t%.4f\t%.4f\t40\n",
			    m, i, m, m, k, (k == 8 && rand() < 0.3) ? "false" : "true",
			    y, y * 0.98, y * 1.02
		}
	}
}' > "$work/export.tsv"
echo "# bench-curve: ar-curve over $groups groups of 4 points ($(($(wc -l < "$work/export.tsv") - 1)) rows)"
machine "$bin/ar-curve"
printf 'output\tseconds\tgroups_per_s\n'
for f in tsv jsonl; do
	s=$(best sh -c '"$1" -f "$2" < "$3"' sh "$bin/ar-curve" "$f" "$work/export.tsv")
	printf '%s\t%s\t%s\n' "$f" "$s" "$(awk -v g="$groups" -v s="$s" 'BEGIN { printf "%.0f", g / s }')"
done
