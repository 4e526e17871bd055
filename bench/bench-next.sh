#!/bin/sh
# bench-next.sh [-n rows] [-p pending] [-b batch]: issue 16's figures
# for one ar-sched next on a real campaign, run by hand (not by CI).
# Makes a campaign of the tests' problem with ROWS signed results
# (default 1,000,000; ar-sign-test signs them, the test-only path to
# many signed rows, and ar-ledger append stores them BATCH at a time,
# default 100,000, in segments of up to 16,384 rows; -b 1000 leaves the
# segments of 1,000 rows that ar-ledger's compaction makes of results
# stored one by one, as ar-bench stores them, so that the ledger has a
# thousand segments per million rows) and
# PENDING queued assignments (default 100,000, stored by one ar-queue
# put, timed), 64 nodes of 8 GPUs, A/As that clear every node, and the
# 997 methods of the rows plus 1,000 new ones submitted. Then times the
# real command, ar-sched next -C, and prints each figure against its
# target:
#   put                     >= 5000 records/s (one batch)
#   next, from scratch      <= 1 s   (no summary, the ledger as
#                           ar-ledger append left it: each segment
#                           sealed, and folded by the ar-sched fold it
#                           runs, which keeps the first segments' folds
#                           merged, run/sched-fold/prefix, up to date
#                           every 32 segments; then the folds removed,
#                           as in a
#                           ledger copied or restored without run/;
#                           then the seals removed too: every row
#                           verified; then with the folds the decisions
#                           kept, run/sched-fold, best of 3)
#   next, on a copy         <= 1 s   (cp -a with run/: the folds taken
#                           once the segments hash as folded; then a
#                           copy ar-ledger verify sealed again)
#   next, summary current   <= 100 ms
#   next, 1,000 new results <= 100 ms (appended as a segment; the first
#                           decision after them, three rounds, the
#                           slowest; then the next, best of 3)
#   next, 500 loose results <= 100 ms (appended 16 at a time, as
#                           ar-bench -a leaves them; the first decision,
#                           which checks and seals them; then the next,
#                           which read them again (the list of those it
#                           folded, run/sched-loose, removed before
#                           each, as for results stored within two
#                           seconds); then, two seconds on, from the
#                           list)
#   next, 999 loose results <= 100 ms (499 more: the most a ledger holds
#                           loose, one short of its compaction; the
#                           first, which checks the 499 and takes the
#                           500 from the list; then the same three)
# and the same from a verified export given with -l, from scratch; and,
# with GNU time (/usr/bin/time), the peak memory of the decision without
# folds.
# TMPDIR says where the campaign goes (its filesystem matters; the
# campaign takes about 2 GB per million rows); KEEP=1 keeps it. Exit
# status: 0 every target met, 1 one missed, 2 a step failed.
set -eu
rows=1000000 pend=100000
while getopts b:n:p: c; do
	case $c in
	b) SR_BATCH=$OPTARG ;;
	n) rows=$OPTARG ;;
	p) pend=$OPTARG ;;
	*) echo "usage: sh bench/bench-next.sh [-n rows] [-p pending] [-b batch]" >&2; exit 64 ;;
	esac
done
case ${SR_BATCH:-1} in
''|*[!0-9]*|0*) echo "bench-next: -b $SR_BATCH: not a count of rows" >&2; exit 64 ;;
esac
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
bin=${AR_BIN:-$top/build/bin}
tbin=$top/build/tests
for p in "$bin/ar-sched" "$bin/ar-ledger" "$bin/ar-queue" "$bin/ar-init" "$tbin/ar-sign-test"; do
	[ -x "$p" ] || { echo "bench-next: $p: not built (run make)" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-next.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
die() {
	echo "bench-next: $*" >&2
	exit 2
}
now() {
	date +%s.%N
}
since() {
	awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'
}
machine "$bin/ar-sched"
echo "# campaign in $work ($(stat -f -c %T "$work")): $rows results, $pend pending, appended ${SR_BATCH:-100000} at a time"
C=$work/camp
"$bin/ar-init" -p "$top/tests/fixtures/problem" "$C" > /dev/null || die "ar-init failed"

# The results: one signer per core, appended in chunks (segments).
t0=$(now)
signed_results "$C" "$rows" "$work"
# An A/A of each node, so that none is quarantined.
node_aas "$C" "$work"
echo "# generated, signed and appended in $(since "$t0") s: $(ls "$C/ledger/seg" | grep -c tsv) segments"

# The inventory, the methods (the rows' own and 1,000 new) and the
# pending assignments (methods of the rows, any k).
topo64 "$work/topo.tsv"
"$bin/ar-ledger" export -C "$C" -f tsv 2> /dev/null |
    awk -F '\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "method.commit") c = i; next } $c != "" { print $c }' |
    sort -u > "$work/commits"
awk 'BEGIN { print "id\tmethod\tlabel" } { print "m" NR "\t" $1 "\tm" NR }
	END { for (i = 0; i < 1000; i++) printf "new%d\t%040x\tnew%d\n", i, i + 1, i }' "$work/commits" > "$work/subs.tsv"
awk -v n="$pend" 'BEGIN { srand(3) } { c[NR] = $1 } END {
	print "method\tworkload\tk\tpurpose"
	for (i = 0; i < n; i++) print c[1 + int(rand() * NR)] "\tdecode-512\t" 2 ^ int(rand() * 4) "\tscale" }' "$work/commits" > "$work/pending.tsv"
t0=$(now)
"$bin/ar-queue" put "$C/queue" "$work/pending.tsv" > "$work/put.ids" || die "put failed"
put_s=$(since "$t0")
[ "$(wc -l < "$work/put.ids")" -eq "$pend" ] || die "put stored too few"

# next PLACE: one timed ar-sched next; its seconds in $s. With
# NOLIST=1, the list of loose results folded is removed first.
NOLIST=0
next_() {
	[ "$NOLIST" = 0 ] || rm -f "$C/run/sched-loose"
	t0=$(now)
	"$bin/ar-sched" next -C "$C" -g "$work/topo.tsv" -m "$work/subs.tsv" "$@" > "$work/out" 2> "$work/err" ||
	    { cat "$work/err" >&2; die "ar-sched next failed"; }
	s=$(since "$t0")
}
# best3: the best of three, in $s.
best3() {
	next_ "$@"; b=$s
	next_ "$@"; b=$(awk -v a="$b" -v c="$s" 'BEGIN { print (c < a ? c : a) }')
	next_ "$@"; s=$(awk -v a="$b" -v c="$s" 'BEGIN { print (c < a ? c : a) }')
}
# The first decision, on the ledger as the appends left it: no summary,
# each segment sealed and folded.
[ -e "$C/run/sched-summary" ] && die "a summary before the first decision"
next_
appended=$s
n=$(($(wc -l < "$work/out") - 1))
# From scratch without the folds (a ledger copied or restored without
# run/, or one written before the folds)...
rm -rf "$C/run/sched-summary" "$C/run/sched-queue" "$C/run/sched-fold"
next_
sealed=$s
# Its peak memory, where GNU time is installed (the export is folded as
# it is read, not held whole).
peak=
if [ -x /usr/bin/time ]; then
	rm -rf "$C/run/sched-summary" "$C/run/sched-queue" "$C/run/sched-fold"
	/usr/bin/time -f %M -o "$work/peak" "$bin/ar-sched" next -C "$C" -g "$work/topo.tsv" -m "$work/subs.tsv" > /dev/null 2>&1 &&
	    peak=$(tail -n 1 "$work/peak")
fi
# ... and without the seals either: every row's signature checked (the
# export -V of that decision seals them again)...
rm -f "$C"/ledger/seg/*.seal "$C/ledger/loose.seal"
rm -rf "$C/run/sched-summary" "$C/run/sched-queue" "$C/run/method-hashes" "$C/run/sched-fold"
next_
scratch=$s
# ... and from the folds that decision kept (best of 3).
best3_scratch() {
	rm -f "$C/run/sched-summary" "$C/run/sched-queue"; next_; b=$s
	rm -f "$C/run/sched-summary" "$C/run/sched-queue"; next_
	b=$(awk -v a="$b" -v c="$s" 'BEGIN { print (c < a ? c : a) }')
	rm -f "$C/run/sched-summary" "$C/run/sched-queue"; next_
	s=$(awk -v a="$b" -v c="$s" 'BEGIN { print (c < a ? c : a) }')
}
best3_scratch
folded=$s
# A copy of the campaign with its run/ (cp -a: new inodes and times):
# the folds are taken once the segments hash as folded; then a copy that
# ar-ledger verify has sealed again, whose seals name the hashes.
cp -a "$C" "$work/copy"
# Written back first: the decision is timed, not the copy's 2 GB of
# dirty pages (a campaign restored is on disk long before it is used).
sync
C0=$C C=$work/copy
next_
copied=$s
rm -rf "$C"
cp -a "$C0" "$C"
# A second after the copy: a seal made in the second of its ctime is
# not taken without hashing.
sleep 1
"$bin/ar-ledger" verify -C "$C" > /dev/null 2>&1 || die "verify of the copy failed"
next_
resealed=$s
rm -rf "$C"
C=$C0
best3
current=$s
# Three rounds of 1,000 new results, each a segment: the first decision
# after each is timed (its figure is the slowest of the three).
firsts=
for r in 1 2 3; do
	"$tbin/ar-sign-test" -C "$C" -g 1000 -s $((424241 + r)) > "$work/new.jsonl"
	"$bin/ar-ledger" append -C "$C" "$work/new.jsonl" 2> /dev/null || die "append of 1,000 failed"
	next_
	firsts="$firsts $s"
done
after1=$(echo $firsts | awk '{ m = $1; for (i = 2; i <= NF; i++) if ($i > m) m = $i; print m }')
best3
after2=$s
# 500 results as ar-bench -a leaves them between compactions: loose
# files, appended 16 at a time. The first decision checks them and
# seals them (ledger/loose.seal); the next ones take them as checked.
"$tbin/ar-sign-test" -C "$C" -g 500 -s 434343 > "$work/loose.jsonl"
split -l 16 "$work/loose.jsonl" "$work/loose.part."
for f in "$work"/loose.part.*; do
	"$bin/ar-ledger" append -C "$C" "$f" 2> /dev/null || die "append of loose results failed"
done
next_
loose1=$s
NOLIST=1; best3; NOLIST=0
loose2=$s
# Two seconds on, the decision lists them; then each takes them from the
# list.
sleep 3
next_
best3
loose2l=$s
# 499 more: 999 loose, the most before a store compacts them.
"$tbin/ar-sign-test" -C "$C" -g 499 -s 434344 > "$work/loose.jsonl"
rm -f "$work"/loose.part.*
split -l 16 "$work/loose.jsonl" "$work/loose.part."
for f in "$work"/loose.part.*; do
	"$bin/ar-ledger" append -C "$C" "$f" 2> /dev/null || die "append of loose results failed"
done
[ "$(ls "$C/ledger/results" | grep -c 'json$')" -eq 999 ] || die "not 999 loose results"
next_
loose3=$s
NOLIST=1; best3; NOLIST=0
loose4=$s
sleep 3
next_
best3
loose4l=$s
"$bin/ar-ledger" export -C "$C" -V -f tsv > "$work/export.tsv" 2> /dev/null || die "export failed"
rm -f "$C/run/sched-summary" "$C/run/sched-queue"
next_ -l "$work/export.tsv"
lscratch=$s

status=0
row() {
	awk -v what="$1" -v v="$2" -v unit="$3" -v t="$4" -v cmp="$5" 'BEGIN {
		ok = cmp == "ge" ? v >= t : v <= t
		printf "%-52s %12.3f %s (target %s %s: %s)\n", what, v, unit, cmp == "ge" ? ">=" : "<=", t, ok ? "met" : "MISSED"
		exit !ok }' || status=1
}
echo "# ar-sched next -C camp -g topo.tsv -m subs.tsv: $n assignments"
echo "# the first decisions after each of three rounds of 1,000 new results:$firsts s"
row "ar-queue put, $pend records in one batch" "$(awk -v n="$pend" -v s="$put_s" 'BEGIN { print n / s }')" records/s 5000 ge
row "next, first decision, as ar-ledger append left it" "$appended" s 1 le
row "next, from scratch (no summary, sealed and folded)" "$folded" s 1 le
row "next, from scratch (no summary, sealed, no folds)" "$sealed" s 1 le
[ -z "$peak" ] || printf '%-52s %12d KB (no target)\n' "  its peak memory (resident)" "$peak"
row "next, from scratch (no summary, seal or fold)" "$scratch" s 1 le
row "next, first on a copy (cp -a) with its folds" "$copied" s 1 le
row "next, first on a copy sealed again by verify" "$resealed" s 1 le
row "next, summary current (best of 3)" "$current" s 0.1 le
row "next, first after 1,000 new results (most of 3)" "$after1" s 0.1 le
row "next, after 1,000 new results (best of 3)" "$after2" s 0.1 le
row "next, first after 500 loose results" "$loose1" s 0.1 le
row "next, 500 loose results sealed, read (best of 3)" "$loose2" s 0.1 le
row "next, 500 loose results from the list (best of 3)" "$loose2l" s 0.1 le
row "next, first after 499 more (999 loose)" "$loose3" s 0.1 le
row "next, 999 loose results sealed, read (best of 3)" "$loose4" s 0.1 le
row "next, 999 loose results from the list (best of 3)" "$loose4l" s 0.1 le
row "next -l export.tsv, from scratch (no summary)" "$lscratch" s 1 le
exit $status
