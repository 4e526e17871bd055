#!/bin/sh
# bench-loop.sh [-n rows] [-C campaign]: issue 17's figure for a loop step's own
# bookkeeping on a grown campaign, run by hand (not by CI). Makes a
# campaign of the tests' problem with ROWS signed results (default
# 100,000; ar-sign-test signs them, ar-ledger append stores them in
# segments of 100,000 rows at most) and an A/A of this host, so that
# nothing is left to measure, then times `ar-loop --once` (no planner,
# no agents, the cpu inventory): what it does is its bookkeeping alone:
# the budget, ar-sched next, the curves and the digest. Four steps: the
# first on a ledger never exported (every row checked, segments sealed);
# the second with 500 new results, loose as ar-bench leaves them; the
# third with 1,500 more (a compaction merges them into a segment); the
# fourth with nothing new. Targets for the last three: <= 2 s at
# 100,000 rows, <= 10 s at 1,000,000. Then the step's view of the ledger
# is compared with a whole export. TMPDIR says where the campaign goes;
# KEEP=1 keeps it; -C runs the steps on a campaign kept so (its rows
# counted, its first step as it is), to spare the half hour it takes to
# make 1,000,000 results. Exit status: 0 the target met, 1 missed, 2 a step
# failed or its view differs.
set -eu
rows=100000
reuse=
while getopts C:n: c; do
	case $c in
	C) reuse=$OPTARG ;;
	n) rows=$OPTARG ;;
	*) echo "usage: sh bench/bench-loop.sh [-n rows] [-C campaign]" >&2; exit 64 ;;
	esac
done
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
bin=${AR_BIN:-$top/build/bin}
tbin=$top/build/tests
PATH=$bin:$top/scripts:$PATH
export PATH
for p in "$bin/ar-ledger" "$bin/ar-init" "$tbin/ar-sign-test" "$top/scripts/ar-loop"; do
	[ -x "$p" ] || { echo "bench-loop: $p: not built (run make)" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-loop.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
die() {
	echo "bench-loop: $*" >&2
	exit 2
}
now() {
	date +%s.%N
}
since() {
	awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'
}
machine "$bin/ar-ledger"
if [ -n "$reuse" ]; then
	C=$(cd "$reuse" && pwd)
	rows=$(ar-ledger export -C "$C" -f tsv | tail -n +2 | wc -l)
	echo "# $rows results of $C: $(ls "$C/ledger/seg" | grep -c tsv) segments"
else
	C=$work/camp
	ar-init -p "$top/tests/fixtures/problem" "$C" > /dev/null || die "ar-init failed"
	t0=$(now)
	signed_results "$C" "$rows" "$work"
	host=$(ar-campaign host)
	printf '{"experiment":"aa-here","aa":true,"method":{"dir":"baseline","hash":"%064d"},"workload":"decode-512","shape":{"k":1,"node":"%s"},"verdict":"equivalent","noise_floor":{"rsd":0.01},"started":"2026-11-26T09:00:00Z","finished":"2026-11-26T09:10:00Z"}\n' 0 "$host" |
	    "$tbin/ar-sign-test" -C "$C" > "$work/aa.jsonl"
	ar-ledger append -C "$C" "$work/aa.jsonl" 2> /dev/null || die "append of the A/A failed"
	echo "# $rows results, signed and appended in $(since "$t0") s: $(ls "$C/ledger/seg" | grep -c tsv) segments"
fi

# more N SEED: N new signed results, appended as ar-bench appends them.
more() {
	"$tbin/ar-sign-test" -C "$C" -g "$1" -s "$2" > "$work/more.jsonl"
	split -l 1 -a 5 "$work/more.jsonl" "$work/more."
	for f in "$work"/more.[a-z]*; do
		ar-ledger append -C "$C" "$f" 2> /dev/null || die "append of $f failed"
	done
	rm -f "$work"/more.*
}

status=0
for i in 1 2 3 4; do
	case $i in 2) more 500 $((rows + 1)) ;; 3) more 1500 $((rows + 2)) ;; esac
	t0=$(now)
	AR_PLANNER= AR_AGENT= ar-loop -C "$C" --cpus -w decode-512 --once \
	    --experiments $((rows + 1000)) > "$work/out" 2> "$work/err" ||
	    { cat "$work/err" >&2; die "ar-loop --once failed"; }
	s=$(since "$t0")
	queued=$(grep -c 'experiments\? queued' "$work/err" || :)
	case $i in
	1) what="first step (${reuse:+the campaign as kept}${reuse:-ledger never exported})" ;;
	2) what="step 2 (500 new results, loose)" ;;
	3) what="step 3 (1,500 more: a compaction)" ;;
	*) what="step 4 (nothing new)" ;;
	esac
	t=2
	[ "$rows" -le 100000 ] || t=10
	awk -v w="$what" -v s="$s" -v t="$t" 'BEGIN {
		ok = s <= t
		printf "%-52s %8.3f s (target <= %d: %s)\n", w, s, t, ok ? "met" : "MISSED"
		exit !ok }' || { [ "$i" -eq 1 ] || status=1; }
done
grep -h 'sched:' "$work/err" | tail -n 1
# The step's view is the ledger's whole export, row for row.
ar-ledger export -C "$C" -V -f tsv > "$work/whole.tsv" 2> /dev/null || die "export failed"
if cmp -s "$work/whole.tsv" "$C/loop/ledger.tsv"; then
	echo "# the loop's view of the ledger is its whole export, byte for byte"
else
	echo "bench-loop: $C/loop/ledger.tsv differs from the ledger's export" >&2
	status=2
fi
exit $status
