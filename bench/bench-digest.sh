#!/bin/sh
# bench-digest.sh [-r rows]: ar-digest's speed over a synthetic verified
# ledger export (run by hand, not by CI): 5000 methods at k = 1, 2, 4, 8,
# every verdict, 1% A/A rows. Prints the machine, then the seconds of the
# Markdown and JSON outputs and of Markdown with --svg and --html (best of
# 3). The export is made by awk: signing a million results would time
# ar-sign-test, not ar-digest.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
rows=1000000
while getopts r: c; do
	case $c in
	r) rows=$OPTARG ;;
	*) echo "usage: sh bench/bench-digest.sh [-r rows]" >&2; exit 64 ;;
	esac
done
bin=${AR_BIN:-$top/build/bin}
[ -x "$bin/ar-digest" ] || { echo "bench-digest: $bin/ar-digest: not built" >&2; exit 66; }
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-digest.XXXXXX")
trap 'rm -rf "$work"' EXIT
awk -v n="$rows" 'BEGIN {
	srand(1); OFS = "\t"
	split("keep discard equivalent inconclusive crash timeout invalid", v, " ")
	print "id", "signed", "verified", "verdict", "why", "method.hash",
	    "method.commit", "workload", "device", "shape.k", "metric", "aa",
	    "ratio.median", "ratio.ci_lo", "ratio.ci_hi", "noise_floor.rsd",
	    "failure.stage", "failure.signal", "failure.exit", "idea", "started"
	for (i = 0; i < n; i++) {
		m = i % 5000; k = 2 ^ (int(i / 5000) % 4); vd = v[1 + int(rand() * 7)]
		aa = rand() < 0.01 ? "true" : "false"
		r = 0.8 + 0.5 * rand()
		bad = vd == "crash" || vd == "timeout" || vd == "invalid"
		printf "20261126T%06d.%06dZ-%016x\tyes\tyes\t%s\twhy %d\th%07d\tc%07d\tw\tcuda\t%d\ttok_s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\tidea-%d\t2026-11-26T01:00:00Z\n",
		    int(i / 1000000), i % 1000000, i, vd, i, m, m, k, aa,
		    bad ? "" : sprintf("%.4f", r), bad ? "" : sprintf("%.4f", r * 0.97),
		    bad ? "" : sprintf("%.4f", r * 1.03), aa == "true" ? "0.02" : "",
		    vd == "crash" ? "run" : "", vd == "crash" ? "SIGSEGV" : "", "", m
	}
}' > "$work/export.tsv"
echo "# bench-digest: ar-digest over $(($(wc -l < "$work/export.tsv") - 1)) rows"
machine "$bin/ar-digest"
printf 'output\tseconds\n'
printf 'markdown\t%s\n' "$(best "$bin/ar-digest" -l "$work/export.tsv")"
printf 'json\t%s\n' "$(best "$bin/ar-digest" -f json -l "$work/export.tsv")"
printf 'markdown --svg --html\t%s\n' "$(best "$bin/ar-digest" -l "$work/export.tsv" --svg "$work/s.svg" --html "$work/p.html")"
