#!/bin/sh
# bench/bench-ledger.sh [N]: a benchmark of ar-ledger, run by hand (not
# by CI), with sh or bash. Makes a scratch campaign, generates N signed
# results (default 1000000) with ar-sign-test in parallel, and stores
# them as a campaign's loop leaves them: segments of AR_LEDGER_COMPACT
# (1000) results, which the ledger's own compaction makes, then LOOSE
# results (default 999, the most it leaves loose) appended 16 at a time,
# as loose files; nothing is compacted by hand. It then times, each REPS
# times, and checks what each gave:
#   verify -F        (the first verify: every signature, on every core;
#                    the campaign key's holder checks each by signing it
#                    again) >= 35000 rows/s
#   verify -F        without the secret key (every signature verified):
#                    reported only
#   verify           (again, the ledger unchanged: the seals hold)
#                    <= 1 s
#   export -f tsv    <= 5 s
#   export -f jsonl  reported only
# and prints a table with PASS/FAIL against the targets, and the CPU
# seconds each step took (user + system, all threads), which a loaded
# machine does not change much.
# Environment: REPS (repetitions, default 3), CHUNK (results per append,
# default 1000), LOOSE (default 999), BUILD (the build directory, default
# build), AR_THREADS (passed to ar-ledger), KEEP=1 (keep the scratch
# directory and say where). Exit status: 0 all targets
# met, 1 a target missed, 2 a step failed. The scratch directory under
# /tmp is removed at the end, unless KEEP=1.
set -eu

N=${1:-1000000}
REPS=${REPS:-3}
CHUNK=${CHUNK:-1000}
LOOSE=${LOOSE:-999}
VERIFY_TARGET=35000
SECOND_MAX_S=1
TSV_MAX_S=5

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
if [ "${KEEP:-0}" = 1 ]; then
	trap 'echo "bench-ledger: kept $tmp" >&2' EXIT
else
	trap 'rm -rf "$tmp"' EXIT
fi
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
loose=$(( N < LOOSE ? N : LOOSE ))
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
if [ "$loose" -gt 0 ]; then
	ar-sign-test -C "$C" -g "$loose" -s 9999 > "$tmp/loose.jsonl" ||
	    die "ar-sign-test failed"
fi
for p in $pids; do
	wait "$p" || die "ar-sign-test failed"
done
gen_s=$(elapsed "$t0")
echo "bench-ledger: generated $N results in ${gen_s}s" >&2

# Appends: one appender per core at once, each of chunks of CHUNK
# results (each a segment, as a compaction of that many loose results
# makes); then the last few as loose files, 16 per append, which stay
# loose while fewer than AR_LEDGER_COMPACT.
t0=$(now)
pids=
for g in "$tmp"/gen.*; do
	[ -e "$g" ] || continue
	split -l "$CHUNK" -d -a 6 "$g" "$g.part."
	rm -f "$g"
	(
		for f in "$g".part.*; do
			ar-ledger append -C "$C" "$f" 2> "$f.err" ||
			    { cat "$f.err" >&2; exit 1; }
			rm -f "$f" "$f.err"
		done
	) &
	pids="$pids $!"
done
for p in $pids; do
	wait "$p" || die "an append failed"
done
if [ "$loose" -gt 0 ]; then
	split -l 16 -d -a 6 "$tmp/loose.jsonl" "$tmp/loose.part."
	for f in "$tmp"/loose.part.*; do
		ar-ledger append -C "$C" "$f" 2> "$tmp/err" ||
		    { cat "$tmp/err" >&2; die "append of the loose results failed"; }
	done
fi
append_s=$(elapsed "$t0")
nseg=$(ls "$C/ledger/seg" | grep -c '\.tsv$' || true)
nloose=$(ls "$C/ledger/results" | grep -c '\.json$' || true)
size=$(du -sh "$C/ledger" | cut -f1)
echo "bench-ledger: appended in ${append_s}s: $nseg segments, $nloose loose, $size" >&2

# time_it NAME OUT CMD...: runs CMD REPS times with stdout to OUT and
# stderr to $tmp/err.NAME; records the times (s) in $tmp/times.NAME and
# the CPU seconds of each run in $tmp/cpu.NAME.
time_it() {
	local name=$1 out=$2 r t0
	shift 2
	: > "$tmp/times.$name"
	: > "$tmp/cpu.$name"
	for r in $(seq 1 "$REPS"); do
		t0=$(now)
		/usr/bin/time -f '%U %S' -o "$tmp/t" "$@" > "$out" \
		    2> "$tmp/err.$name" ||
		    { cat "$tmp/err.$name" >&2; die "$name failed (run $r)"; }
		elapsed "$t0" >> "$tmp/times.$name"
		echo >> "$tmp/times.$name"
		awk '{ printf "%.2f\n", $1 + $2 }' "$tmp/t" >> "$tmp/cpu.$name"
	done
}
command -v /usr/bin/time > /dev/null || die "GNU time (/usr/bin/time) is needed"

# The checks are part of the benchmark: a fast wrong answer is no answer.
verified="ar-ledger: $N rows: $N verified, 0 unsigned (imported); 0 problems"
time_it verify "$tmp/bad" ar-ledger verify -C "$C" -F
[ "$(cat "$tmp/bad")" = "where	id	problem" ] || die "verify -F found bad rows"
[ "$(cat "$tmp/err.verify")" = "$verified" ] ||
    die "verify -F said: $(cat "$tmp/err.verify")"
# Without the secret key every signature is verified; with it (above),
# the holder checks by signing again. Both must give the same answer.
mv "$C/keys/bench.key" "$tmp/bench.key"
time_it nokey "$tmp/bad" ar-ledger verify -C "$C" -F
mv "$tmp/bench.key" "$C/keys/bench.key"
[ "$(cat "$tmp/bad")" = "where	id	problem" ] || die "verify -F without the key found bad rows"
[ "$(cat "$tmp/err.nokey")" = "$verified" ] ||
    die "verify -F without the key said: $(cat "$tmp/err.nokey")"
time_it second "$tmp/bad" ar-ledger verify -C "$C"
[ "$(cat "$tmp/bad")" = "where	id	problem" ] || die "verify found bad rows"
[ "$(cat "$tmp/err.second")" = "$verified" ] ||
    die "verify said: $(cat "$tmp/err.second")"
time_it tsv /dev/null ar-ledger export -C "$C" -f tsv
rows=$(ar-ledger export -C "$C" -f tsv | wc -l)
[ "$rows" -eq $(( N + 1 )) ] || die "export -f tsv gave $rows lines, not $(( N + 1 ))"
time_it jsonl /dev/null ar-ledger export -C "$C" -f jsonl
rows=$(ar-ledger export -C "$C" -f jsonl | wc -l)
[ "$rows" -eq "$N" ] || die "export -f jsonl gave $rows lines, not $N"

# row NAME LABEL MIN_RATE MAX_S: one line of the table, judged by the
# median run against a rate (rows/s) or a time (s), "-" for none; sets
# $fail on a miss.
fail=0
row() {
	awk -v n="$N" -v label="$2" -v rmin="$3" -v smax="$4" -v cpuf="$tmp/cpu.$1" '
	    NF { t[++k] = $1 }
	    END {
		while ((getline c < cpuf) > 0)
			cpu[++m] = c
		# Sort the times: best and median.
		for (i = 1; i <= k; i++)
			for (j = i + 1; j <= k; j++)
				if (t[j] < t[i]) { x = t[i]; t[i] = t[j]; t[j] = x }
		for (i = 1; i <= m; i++)
			for (j = i + 1; j <= m; j++)
				if (cpu[j] < cpu[i]) { x = cpu[i]; cpu[i] = cpu[j]; cpu[j] = x }
		med = k % 2 ? t[(k + 1) / 2] : (t[k / 2] + t[k / 2 + 1]) / 2
		cmed = m % 2 ? cpu[(m + 1) / 2] : (cpu[m / 2] + cpu[m / 2 + 1]) / 2
		rate = med > 0 ? n / med : 0
		if (rmin != "-") {
			target = ">=" rmin "/s"
			verdict = rate >= rmin ? "PASS" : "FAIL"
		} else if (smax != "-") {
			target = "<=" smax "s"
			verdict = med <= smax ? "PASS" : "FAIL"
		} else {
			target = "-"
			verdict = "info"
		}
		printf "%-16s %4d %9.3f %9.3f %10.0f %9.2f %12.1f %10s  %s\n", label,
		    k, t[1], med, rate, cmed, cmed * 1e6 / n, target, verdict
		exit verdict == "FAIL"
	    }' "$tmp/times.$1" || fail=1
}

echo
echo "ar-ledger benchmark: $N rows, $ncpu cores (nproc), ${cpu:-unknown cpu}"
echo "load average before: $(cut -d ' ' -f 1-3 /proc/loadavg)"
echo "AR_THREADS=${AR_THREADS:-default}, $nseg segments, $nloose loose results, ledger $size"
echo "setup: generate ${gen_s}s, append ${append_s}s (no compact by hand)"
echo
printf "%-16s %4s %9s %9s %10s %9s %12s %10s  %s\n" step reps best_s median_s \
    rows/s cpu_s cpu_us/row target result
row verify "verify -F" "$VERIFY_TARGET" -
row nokey "-F, no key" - -
row second "verify (again)" - "$SECOND_MAX_S"
row tsv "export -f tsv" - "$TSV_MAX_S"
row jsonl "export -f jsonl" - -
echo
if [ "$fail" -eq 0 ]; then
	echo "PASS: every target met"
else
	echo "FAIL: a target was missed"
fi
exit "$fail"
