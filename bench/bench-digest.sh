#!/bin/sh
# bench-digest.sh [-r rows] [-i ideas] [-k dir]: ar-digest's speed over a
# synthetic verified ledger export (run by hand, not by CI): 5000 methods
# at k = 1, 2, 4, 8, every verdict, 1% A/A rows. With -i, an ideas spool
# of that many ideas too (a quarter in each of new, cur, done, failed;
# 20 categories, a source per 4 ideas, 50 holders), every result naming
# one of them, so that staleness, titles and failure reasons are joined
# (issue 21: sh bench/bench-digest.sh -r 100000 -i 20000). Prints the
# machine, then per output the seconds (best of 3) and the peak resident
# memory in KiB (/usr/bin/time -f %M, one run). The inputs are made by
# awk: signing the results would time ar-sign-test, not ar-digest. -k
# keeps them in dir (for comparing outputs across builds).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
rows=1000000
ideas=0
keep=
while getopts r:i:k: c; do
	case $c in
	r) rows=$OPTARG ;;
	i) ideas=$OPTARG ;;
	k) keep=$OPTARG ;;
	*) echo "usage: sh bench/bench-digest.sh [-r rows] [-i ideas] [-k dir]" >&2; exit 64 ;;
	esac
done
bin=${AR_BIN:-$top/build/bin}
[ -x "$bin/ar-digest" ] || { echo "bench-digest: $bin/ar-digest: not built" >&2; exit 66; }
if [ -n "$keep" ]; then
	work=$keep
	mkdir -p "$work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/bench-digest.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi
# Times: ideas are put from 2026-11-20T00:00:00Z, one a second; results
# start from 2026-11-21T00:00:00Z, four a second, and take a minute.
awk -v n="$rows" -v ni="$ideas" '
function ts(day, s) {
	day += int(s / 86400); s %= 86400
	return sprintf("2026-11-%02dT%02d:%02d:%02dZ", day, int(s / 3600),
	    int(s % 3600 / 60), s % 60)
}
BEGIN {
	srand(1); OFS = "\t"
	split("keep discard equivalent inconclusive crash timeout invalid", v, " ")
	print "id", "signed", "verified", "verdict", "why", "method.hash",
	    "method.commit", "workload", "device", "shape.k", "metric", "aa",
	    "ratio.median", "ratio.ci_lo", "ratio.ci_hi", "noise_floor.rsd",
	    "failure.stage", "failure.signal", "failure.exit", "idea", "started",
	    "finished"
	for (i = 0; i < n; i++) {
		m = i % 5000; k = 2 ^ (int(i / 5000) % 4); vd = v[1 + int(rand() * 7)]
		aa = rand() < 0.01 ? "true" : "false"
		r = 0.8 + 0.5 * rand()
		bad = vd == "crash" || vd == "timeout" || vd == "invalid"
		idea = ni > 0 ? sprintf("i-%d", int(rand() * ni)) : sprintf("idea-%d", m)
		printf "20261126T%06d.%06dZ-%016x\tyes\tyes\t%s\twhy %d\th%07d\tc%07d\tw\tcuda\t%d\ttok_s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
		    int(i / 1000000), i % 1000000, i, vd, i, m, m, k, aa,
		    bad ? "" : sprintf("%.4f", r), bad ? "" : sprintf("%.4f", r * 0.97),
		    bad ? "" : sprintf("%.4f", r * 1.03), aa == "true" ? "0.02" : "",
		    vd == "crash" ? "run" : "", vd == "crash" ? "SIGSEGV" : "", "",
		    idea, ts(21, int(i / 4)), ts(21, int(i / 4) + 60)
	}
}' > "$work/export.tsv"
if [ "$ideas" -gt 0 ]; then
	for d in tmp new cur done failed why; do mkdir -p "$work/ideas/$d"; done
	awk -v ni="$ideas" -v d="$work/ideas" '
	function order(s) {
		return sprintf("202611%02dT%02d%02d%02d.000000Z-%016x",
		    20 + int(s / 86400), int(s % 86400 / 3600),
		    int(s % 3600 / 60), s % 60, s)
	}
	BEGIN {
		split("new cur done failed", sub_, " ")
		for (j = 0; j < ni; j++) {
			st = sub_[1 + j % 4]
			name = sprintf("%07d-%s-i-%d", 1000000 - j % 7, order(j), j)
			if (st == "cur")
				name = name sprintf("@1795693800@agent%d", j % 50)
			f = d "/" st "/" name
			printf "{\"title\": \"idea %d: unroll by %d\", \"category\": \"cat%d\", \"sources\": [\"arXiv:%d\", \"blog %d\"]}\n",
			    j, j % 16, j % 20, int(j / 4), j % 3 > f
			close(f)
			if (st == "failed") {
				f = d "/why/" sprintf("%07d-%s-i-%d", 1000000 - j % 7, order(j), j)
				printf "agent: idea %d did not build\nsecond line\n", j > f
				close(f)
			}
		}
	}'
	set -- -i "$work/ideas"
else
	set --
fi
echo "# bench-digest: ar-digest over $(($(wc -l < "$work/export.tsv") - 1)) rows, $ideas ideas"
machine "$bin/ar-digest"
# peak ARGS...: the peak resident memory of one run, in KiB.
peak() {
	/usr/bin/time -f %M -o "$work/time" "$@" > /dev/null 2>&1
	tail -n 1 "$work/time"
}
printf 'output\tseconds\tpeak_kib\n'
printf 'markdown\t%s\t%s\n' "$(best "$bin/ar-digest" -l "$work/export.tsv" "$@")" \
    "$(peak "$bin/ar-digest" -l "$work/export.tsv" "$@")"
printf 'json\t%s\t%s\n' "$(best "$bin/ar-digest" -f json -l "$work/export.tsv" "$@")" \
    "$(peak "$bin/ar-digest" -f json -l "$work/export.tsv" "$@")"
printf 'markdown --svg --html\t%s\t%s\n' "$(best "$bin/ar-digest" -l "$work/export.tsv" "$@" --svg "$work/s.svg" --html "$work/p.html")" \
    "$(peak "$bin/ar-digest" -l "$work/export.tsv" "$@" --svg "$work/s.svg" --html "$work/p.html")"
