#!/bin/sh
# bench/bench-ledger.sh [N]: a benchmark of ar-ledger, run by hand (not
# by CI), with sh or bash. Makes a scratch campaign, generates N signed
# results (default 1000000) with ar-sign-test in parallel, appends them
# in chunks (each a segment) plus a few loose ones, compacts, then times
# `ar-ledger verify`, `ar-ledger export -f tsv` and `ar-ledger export -f
# jsonl` several times, checks what each gave, and prints a table with
# PASS/FAIL against the targets:
#   verify           >= 20000 rows/s
#   export -f tsv    >= 300000 rows/s
#   export -f jsonl  reported only
# Environment: REPS (repetitions, default 3), CHUNK (results per append,
# default 100000), BUILD (the build directory, default build), AR_THREADS
# (passed to ar-ledger). Exit status: 0 all targets met, 1 a target
# missed, 2 a step failed. The scratch directory under /tmp is removed at
# the end.
set -eu

N=${1:-1000000}
REPS=${REPS:-3}
CHUNK=${CHUNK:-100000}
VERIFY_TARGET=20000
TSV_TARGET=300000

top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
PATH=$build/bin:$build/tests:$PATH
export PATH

die() {
	echo "bench-ledger: $*" >&2
	exit 2
}

case $N in
'' | *[!0-9]*) die "usage: bench-ledger.sh [N]" ;;
esac
[ "$N" -ge 1 ] || die "N must be at least 1"
command -v ar-ledger > /dev/null || die "no ar-ledger in $build/bin: run make"
command -v ar-sign-test > /dev/null || die "no ar-sign-test in $build/tests: run make"

tmp=$(mktemp -d /tmp/bench-ledger.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# now: seconds since the epoch, to the microsecond (bash's clock, or
# GNU date's when run by another sh).
now() {
	if [ -n "${EPOCHREALTIME:-}" ]; then
		echo "$EPOCHREALTIME"
	else
		date +%s.%N
	fi
}

# elapsed T0: seconds since T0.
elapsed() {
	awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'
}

ncpu=$(nproc)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
echo "bench-ledger: N=$N, $ncpu cores (${cpu:-unknown cpu}), scratch $tmp" >&2

mkdir "$tmp/problem"
# ar-init seals only a problem.json that ar-bench accepts.
cp "$top/tests/fixtures/problem/problem.json" "$tmp/problem/"
C=$tmp/camp
ar-init -p "$tmp/problem" "$C" > /dev/null || die "ar-init failed"

# Generation: one ar-sign-test per core, each with its own seed.
t0=$(now)
loose=$(( N < 16 ? N : 16 ))
rest=$(( N - loose ))
per=$(( (rest + ncpu - 1) / ncpu ))
pids=
for j in $(seq 1 "$ncpu"); do
	k=$(( rest - (j - 1) * per ))
	[ "$k" -gt "$per" ] && k=$per
	[ "$k" -gt 0 ] || continue
	ar-sign-test -C "$C" -g "$k" -s "$j" > "$tmp/gen.$j" &
	pids="$pids $!"
done
ar-sign-test -C "$C" -g "$loose" -s 9999 > "$tmp/loose.jsonl" ||
    die "ar-sign-test failed"
for p in $pids; do
	wait "$p" || die "ar-sign-test failed"
done
gen_s=$(elapsed "$t0")
echo "bench-ledger: generated $N results in ${gen_s}s" >&2

# Appends: chunks of CHUNK results, each becomes segments; then the last
# few as loose files, which compact merges.
t0=$(now)
for g in "$tmp"/gen.*; do
	[ -e "$g" ] || continue
	split -l "$CHUNK" -d -a 4 "$g" "$g.part."
	rm -f "$g"
	for f in "$g".part.*; do
		ar-ledger append -C "$C" "$f" 2> "$tmp/err" ||
		    { cat "$tmp/err" >&2; die "append $f failed"; }
		rm -f "$f"
	done
done
ar-ledger append -C "$C" "$tmp/loose.jsonl" 2> "$tmp/err" ||
    { cat "$tmp/err" >&2; die "append of the loose results failed"; }
append_s=$(elapsed "$t0")
t0=$(now)
ar-ledger compact -C "$C" 2> "$tmp/err" ||
    { cat "$tmp/err" >&2; die "compact failed"; }
compact_s=$(elapsed "$t0")
nseg=$(ls "$C/ledger/seg" | grep -c '\.tsv$' || true)
size=$(du -sh "$C/ledger" | cut -f1)
echo "bench-ledger: appended in ${append_s}s, compacted in ${compact_s}s: $nseg segments, $size" >&2

# time_it NAME OUT CMD...: runs CMD REPS times with stdout to OUT and
# stderr to $tmp/err.NAME; records the times (s) in $tmp/times.NAME.
time_it() {
	local name=$1 out=$2 r t0
	shift 2
	: > "$tmp/times.$name"
	for r in $(seq 1 "$REPS"); do
		t0=$(now)
		"$@" > "$out" 2> "$tmp/err.$name" ||
		    { cat "$tmp/err.$name" >&2; die "$name failed (run $r)"; }
		elapsed "$t0" >> "$tmp/times.$name"
		echo >> "$tmp/times.$name"
	done
}

# The checks are part of the benchmark: a fast wrong answer is no answer.
time_it verify "$tmp/bad" ar-ledger verify -C "$C"
[ "$(cat "$tmp/bad")" = "where	id	problem" ] || die "verify found bad rows"
[ "$(cat "$tmp/err.verify")" = "ar-ledger: $N rows: $N verified, 0 unsigned (imported); 0 problems" ] ||
    die "verify said: $(cat "$tmp/err.verify")"
time_it tsv /dev/null ar-ledger export -C "$C" -f tsv
rows=$(ar-ledger export -C "$C" -f tsv | wc -l)
[ "$rows" -eq $(( N + 1 )) ] || die "export -f tsv gave $rows lines, not $(( N + 1 ))"
time_it jsonl /dev/null ar-ledger export -C "$C" -f jsonl
rows=$(ar-ledger export -C "$C" -f jsonl | wc -l)
[ "$rows" -eq "$N" ] || die "export -f jsonl gave $rows lines, not $N"

# row NAME LABEL TARGET: one line of the table; sets $fail on a miss.
fail=0
row() {
	awk -v n="$N" -v label="$2" -v target="$3" '
	    NF { t[++k] = $1 }
	    END {
		# Sort the times: best and median.
		for (i = 1; i <= k; i++)
			for (j = i + 1; j <= k; j++)
				if (t[j] < t[i]) { x = t[i]; t[i] = t[j]; t[j] = x }
		med = k % 2 ? t[(k + 1) / 2] : (t[k / 2] + t[k / 2 + 1]) / 2
		rate = med > 0 ? n / med : 0
		verdict = target == "-" ? "info" : (rate >= target ? "PASS" : "FAIL")
		printf "%-18s %4d %9.3f %9.3f %14.0f %10s  %s\n", label, k, t[1],
		    med, rate, target, verdict
		exit verdict == "FAIL"
	    }' "$tmp/times.$1" || fail=1
}

echo
echo "ar-ledger benchmark: $N rows, $ncpu cores (nproc), ${cpu:-unknown cpu}"
echo "AR_THREADS=${AR_THREADS:-default}, $nseg segments, ledger $size"
echo "setup: generate ${gen_s}s, append ${append_s}s, compact ${compact_s}s"
echo
printf "%-18s %4s %9s %9s %14s %10s  %s\n" step reps best_s median_s \
    rows/s target result
row verify "verify" "$VERIFY_TARGET"
row tsv "export -f tsv" "$TSV_TARGET"
row jsonl "export -f jsonl" -
echo
if [ "$fail" -eq 0 ]; then
	echo "PASS: every target met"
else
	echo "FAIL: a target was missed"
fi
exit "$fail"
