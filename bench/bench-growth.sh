#!/bin/sh
# bench-growth.sh [size ...]: how the loop's commands grow with a
# campaign (issue 21, "long campaigns stay cheap"), run by hand (not by
# CI). For each size N (default 10000 100000 1000000) it makes a campaign
# of the tests' problem with N signed results (ar-sign-test, the test-only
# path to many signed rows, as bench-next.sh makes them; appended in
# segments of 100,000), N/5 ideas in ideas/, N/10 experiments waiting in
# queue/, N/500 methods submitted (-m), 64 nodes of 8 GPUs and an A/A of
# each. Then it times each command on the loop's path, with its peak
# memory (/usr/bin/time -f '%e %M'):
#   ar-ledger verify           first (every row checked), then sealed
#   ar-ledger export -V -f tsv
#   ar-curve -f jsonl          over that export
#   ar-digest                  the export, the curves and both spools
#   ar-sched next              from scratch (no summary), then current
#   ar-queue claim             reading new/ (no hint), then with the hint
#   ar-queue put               one record
# and prints one table of seconds (best of REPS runs, default 3; a first
# run is one run) and peak KiB (the largest), then one of the growth
# exponents between consecutive sizes, log(t2/t1) / log(n2/n1), for time
# and memory, against n log n's (log(n2 ln n2 / (n1 ln n1)) / log(n2/n1)).
# Times of a few milliseconds are mostly a process's start, so their
# exponents are noise: where both times are under 50 ms the verdict reads
# (start) and is not judged. Sizes must grow; 1,000,000 takes about
# 2 GB of disk in TMPDIR and long minutes on 2 cores. KEEP=1 keeps the
# campaigns. Exit status: 0 every time grew at most as n log n, 1 one
# grew faster, 2 a step failed, 64 bad arguments.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
bin=${AR_BIN:-$top/build/bin}
tbin=$top/build/tests
REPS=${REPS:-3}
[ $# -gt 0 ] || set -- 10000 100000 1000000
prev=0
for n in "$@"; do
	case $n in
	'' | *[!0-9]*) echo "bench-growth: $n: expected a number of results" >&2; exit 64 ;;
	esac
	if [ "$n" -lt 1000 ] || [ "$n" -le "$prev" ]; then
		echo "bench-growth: $n: sizes must be at least 1000 and grow" >&2
		exit 64
	fi
	prev=$n
done
case $REPS in
'' | *[!0-9]* | 0) echo "bench-growth: REPS=$REPS: expected a count" >&2; exit 64 ;;
esac
for p in "$bin/ar-ledger" "$bin/ar-curve" "$bin/ar-digest" "$bin/ar-sched" \
    "$bin/ar-queue" "$bin/ar-init" "$tbin/ar-sign-test" /usr/bin/time; do
	[ -x "$p" ] || { echo "bench-growth: $p: not found (run make)" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-growth.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

die() {
	echo "bench-growth: $*" >&2
	exit 2
}
now() {
	date +%s.%N
}
since() {
	awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'
}

# measure N WHAT CMD...: runs CMD REPS times (once if $once is set), its
# output in $work/out; before each run, eval "$pre". Appends a row of the
# best wall seconds (the clock's, to the microsecond: /usr/bin/time's %e
# has hundredths) and the largest peak KiB (%M) to $work/times.tsv.
measure() {
	mn=$1 what=$2
	shift 2
	best='' peak=0 r=0
	reps=$REPS
	[ -z "${once:-}" ] || reps=1
	while [ "$r" -lt "$reps" ]; do
		r=$((r + 1))
		eval "${pre:-:}"
		t0=$(now)
		/usr/bin/time -f '%e %M' -o "$work/time" "$@" > "$work/out" 2> "$work/err" ||
		    { cat "$work/err" >&2; die "$what (N=$mn) failed"; }
		s=$(since "$t0")
		best=$(awk -v a="$best" -v b="$s" 'BEGIN { print (a == "" || b < a) ? b : a }')
		peak=$(awk -v a="$peak" '{ m = $2 } END { print (m > a) ? m : a }' "$work/time")
	done
	printf '%s\t%s\t%s\t%s\n' "$what" "$mn" "$best" "$peak" >> "$work/times.tsv"
}

# campaign N: the campaign $work/cN, its inventory, methods and queues.
campaign() {
	n=$1
	C=$work/c$n
	"$bin/ar-init" -p "$top/tests/fixtures/problem" "$C" > /dev/null || die "ar-init failed"
	# The results, as bench-next.sh makes them (bench/lib.sh).
	signed_results "$C" "$n" "$work"
	node_aas "$C" "$work"
	topo64 "$work/topo.tsv"
	"$bin/ar-ledger" export -C "$C" -f tsv 2> /dev/null |
	    awk -F '\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "method.commit") c = i; next } $c != "" { print $c }' |
	    sort -u > "$work/commits"
	# N/500 methods submitted: the rows' own first, then new ones.
	awk -v m=$((n / 500)) 'BEGIN { print "id\tmethod\tlabel" }
		NR <= m { print "m" NR "\t" $1 "\tm" NR }
		END { for (i = NR; i < m; i++) printf "new%d\t%040x\tnew%d\n", i, i + 1, i }' \
	    "$work/commits" > "$work/subs.tsv"
	# N/5 ideas, of a few priorities.
	awk -v n=$((n / 5)) 'BEGIN { print "title\tpriority"
		for (i = 0; i < n; i++) printf "idea %d\t%d\n", i, i % 3 }' > "$work/ideas.tsv"
	"$bin/ar-queue" put "$C/ideas" "$work/ideas.tsv" > /dev/null || die "put of the ideas failed"
	# N/10 experiments waiting: methods of the rows, any k.
	awk -v n=$((n / 10)) 'BEGIN { srand(3) } { c[NR] = $1 } END {
		print "method\tworkload\tk\tpurpose"
		for (i = 0; i < n; i++) print c[1 + int(rand() * NR)] "\tdecode-512\t" 2 ^ int(rand() * 4) "\tscale" }' \
	    "$work/commits" > "$work/pending.tsv"
	"$bin/ar-queue" put "$C/queue" "$work/pending.tsv" > /dev/null || die "put of the experiments failed"
	printf 'method\tworkload\tk\tpurpose\n%s\tdecode-512\t1\tscale\n' "$(head -n 1 "$work/commits")" > "$work/one.tsv"
}

machine "$bin/ar-queue"
echo "# campaigns in $work ($(stat -f -c %T "$work")), best of $REPS runs"
: > "$work/times.tsv"
for n in "$@"; do
	t0=$(now)
	campaign "$n"
	echo "# N=$n: made in $(since "$t0") s: $(ls "$C/ledger/seg" | grep -c tsv) segments," \
	    "$(ls "$C/ideas/new" | wc -l) ideas, $(ls "$C/queue/new" | wc -l) experiments," \
	    "$(($(wc -l < "$work/subs.tsv") - 1)) methods" >&2
	# Set and cleared around each call: whether an assignment before a
	# function call outlives it is not fixed by POSIX.
	once=1
	measure "$n" "ledger verify (first)" "$bin/ar-ledger" verify -C "$C"
	once=
	measure "$n" "ledger verify (sealed)" "$bin/ar-ledger" verify -C "$C"
	measure "$n" "ledger export -V -f tsv" "$bin/ar-ledger" export -C "$C" -V -f tsv
	mv "$work/out" "$work/export.tsv"
	measure "$n" "curve -f jsonl" "$bin/ar-curve" -f jsonl "$work/export.tsv"
	mv "$work/out" "$work/curves.jsonl"
	measure "$n" "digest (ledger, curves, spools)" "$bin/ar-digest" -C "$C" \
	    -l "$work/export.tsv" -c "$work/curves.jsonl" -i "$C/ideas" -q "$C/queue"
	pre='rm -f "$C/run/sched-summary" "$C/run/sched-queue"'
	measure "$n" "sched next (from scratch)" \
	    "$bin/ar-sched" next -C "$C" -g "$work/topo.tsv" -m "$work/subs.tsv"
	pre=
	measure "$n" "sched next (summary current)" \
	    "$bin/ar-sched" next -C "$C" -g "$work/topo.tsv" -m "$work/subs.tsv"
	pre='rm -f "$C/queue/next"'
	measure "$n" "queue claim (reads new/)" "$bin/ar-queue" claim -H bench "$C/queue"
	pre=
	measure "$n" "queue claim (hint)" "$bin/ar-queue" claim -H bench "$C/queue"
	measure "$n" "queue put (1 record)" "$bin/ar-queue" put "$C/queue" "$work/one.tsv"
	[ "${KEEP:-0}" = 1 ] || rm -rf "$C"
done

echo
awk -F '\t' '{ printf "%-34s %9s %10s %10s\n", $1, $2, $3, $4 }' \
    - "$work/times.tsv" <<EOF
command	N	seconds	peak KiB
EOF
[ $# -gt 1 ] || exit 0
echo
# The exponents, between each size and the next.
awk -F '\t' '
	{ if (!($1 in seen)) { seen[$1] = 1; order[++nc] = $1 }
	  k = ++cnt[$1]; n[$1, k] = $2; t[$1, k] = $3; m[$1, k] = $4 }
	END {
		printf "%-34s %-16s %7s %7s %9s  %s\n", "command", "N1 -> N2", "time^", "mem^", "n log n^", "<= n log n"
		bad = 0
		for (c = 1; c <= nc; c++) {
			x = order[c]
			for (k = 1; k < cnt[x]; k++) {
				n1 = n[x, k]; n2 = n[x, k + 1]; r = log(n2 / n1)
				et = log(t[x, k + 1] / t[x, k]) / r
				em = log(m[x, k + 1] / m[x, k]) / r
				nl = log(n2 * log(n2) / (n1 * log(n1))) / r
				ok = et <= nl
				# Under 50 ms both: a process start, not judged.
				start = t[x, k] < 0.05 && t[x, k + 1] < 0.05
				if (!ok && !start)
					bad = 1
				printf "%-34s %-16s %7.2f %7.2f %9.2f  %s\n", x, n1 " -> " n2, et, em, nl, ok ? "yes" : start ? "(start)" : "NO"
			}
		}
		exit bad
	}' "$work/times.tsv"
