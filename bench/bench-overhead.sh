#!/bin/sh
# bench-overhead.sh [-n pairs] [-r reps]: ar-bench's own cost per run, by
# hand (CI does not run it). A trivial problem (no setup, build or
# prepare; run stage /bin/true; score stage "echo METRIC t=$AR_WALL_S") is
# measured with "ar-bench --aa -W 0 -p N -P N", reps sessions with the
# bubblewrap sandbox and reps without (--no-sandbox). Each run of a pair
# costs stats.seconds / (2 N): one timed run of the run stage in its
# runner, one score stage in the judge's runner, and ar-bench's own work
# between them (requests over pipes, killing leftovers, emptying /tmp,
# reading the METRIC lines, one verdict look at the end). The bare run and
# the bare score are timed alone (hyperfine -N where present, else a shell
# loop) and taken off. It also times bwrap's start alone: why ar-bench
# starts each sandbox once per session and not once per run.
#
#   -n pairs  pairs per session (default 500)
#   -r reps   sessions per mode; the table gives their median (default 5)
#
# AR_BIN names the programs' directory (default build/bin). The report
# goes to stdout.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
args="$*"
usage="usage: sh bench/bench-overhead.sh [-n pairs] [-r reps]"
pairs=500
reps=5
while getopts n:r: c; do
	case $c in
	n) pairs=$OPTARG ;;
	r) reps=$OPTARG ;;
	*) echo "$usage" >&2; exit 64 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { echo "$usage" >&2; exit 64; }
case $pairs$reps in
*[!0-9]*) echo "$usage" >&2; exit 64 ;;
esac
if [ "$pairs" -lt 1 ] || [ "$reps" -lt 1 ]; then
	echo "$usage" >&2
	exit 64
fi

bin=${AR_BIN:-$top/build/bin}
case $bin in /*) ;; *) bin=$top/$bin ;; esac
for p in "$bin/ar-bench" "$bin/ar-init"; do
	[ -x "$p" ] || { echo "bench-overhead: $p: not built (run make)" >&2
	    exit 66; }
done
command -v jq >/dev/null 2>&1 ||
    { echo "bench-overhead: jq: not found" >&2; exit 66; }

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-overhead.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' HUP INT TERM PIPE
# A private copy of ar-bench: a rebuild of build/bin during the run (make
# in another shell) must not mix versions or fail sessions half-way.
cp "$bin/ar-bench" "$work/ar-bench"
bench=$work/ar-bench

now() {
	date +%s.%N
}

# The trivial problem: nothing to build or prepare, a run that does
# nothing, a score that only echoes the runner's clock.
mkdir -p "$work/prob/baseline"
echo "nothing to change" >"$work/prob/baseline/README"
cat >"$work/prob/problem.json" <<'EOF'
{
  "name": "trivial",
  "description": "ar-bench's own cost: the run does nothing, the score echoes the run's wall time.",
  "kind": "exec",
  "metric": {"name": "t", "unit": "s", "direction": "lower"},
  "workloads": [{"name": "none", "env": {}, "dev_seeds": [1]}],
  "scales": [1],
  "baseline": "baseline",
  "mutable": ["README"],
  "stages": {
    "run":   {"cmd": "/bin/true", "timeout_s": 10},
    "score": {"cmd": "echo METRIC t=$AR_WALL_S", "timeout_s": 10}
  }
}
EOF
"$bin/ar-init" -p "$work/prob" "$work/camp" >/dev/null

# bare NAME CMD: the mean seconds of one CMD (a shell command line), with
# hyperfine -N (no shell of its own) where present, else a shell loop of
# 1000 (which adds the loop's fork). Prints "seconds method".
bare() {
	if command -v hyperfine >/dev/null 2>&1; then
		hyperfine -N -w 50 -m 1000 -M 1000 --style none \
		    --export-json "$work/$1.json" "$2" >/dev/null 2>&1
		jq -r '.results[0] | "\(.median) \(.mean) \(.stddev)"' \
		    "$work/$1.json"
	else
		t0=$(now)
		i=0
		while [ "$i" -lt 1000 ]; do
			sh -c "$2" >/dev/null
			i=$((i + 1))
		done
		t1=$(now)
		awk -v a="$t0" -v b="$t1" \
		    'BEGIN { m = (b - a) / 1000; print m, m, 0 }'
	fi
}

model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
echo "# bench-overhead: ar-bench's own cost per run on a trivial problem"
echo "# machine: $(uname -n), $(uname -m), $(nproc) CPUs (${model:-unknown model}), $(uname -sr), load average $(cut -d ' ' -f 1-3 /proc/loadavg)"
echo "# ar-bench: $("$bench" --version), $bin/ar-bench, sha256 $(sha256sum <"$bench" | cut -c 1-16), tree $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown); $(bwrap --version 2>/dev/null || echo 'no bwrap'); $(hyperfine --version 2>/dev/null || echo 'no hyperfine: shell loops')"
echo "# command: sh bench/bench-overhead.sh${args:+ $args}"
echo "# each session: ar-bench -C CAMPAIGN --aa -W 0 -p $pairs -P $pairs -q [--no-sandbox]; $reps sessions per mode"
echo "# a run as measured: no prepare; one run of \"/bin/true\" (sh -c 'exec /bin/true', pinned to 1 CPU) in its runner; one score \"echo METRIC t=\$AR_WALL_S\" in the judge's runner; ar-bench's requests, leftover kills, /tmp cleanup and bookkeeping between them"
echo

# Sessions: per-run cost, the runner's own measure of the run stage, and
# the session's fixed cost (seal check, copies, sandboxes started: the
# process's wall time less stats.seconds).
for mode in bwrap none; do
	flag=
	[ "$mode" = none ] && flag=--no-sandbox
	if [ "$mode" = bwrap ] && ! command -v bwrap >/dev/null 2>&1; then
		echo "# bwrap: not found; the sandboxed sessions are skipped"
		continue
	fi
	r=1
	while [ "$r" -le "$reps" ]; do
		t0=$(now)
		# $flag is empty or one word.
		TMPDIR=$work "$bench" -C "$work/camp" --aa -W 0 \
		    -p "$pairs" -P "$pairs" -q $flag >"$work/$mode.$r.json"
		t1=$(now)
		jq -r --arg t0 "$t0" --arg t1 "$t1" '
		    def med: sort | length as $n | if $n % 2 == 1
			then .[($n - 1) / 2] else (.[$n / 2 - 1] + .[$n / 2]) / 2
			end;
		    [.stats.seconds / (2 * .stats.pairs),
		     (.raw.baseline.wall_s + .raw.method.wall_s | med),
		     (.raw.baseline.wall_s + .raw.method.wall_s | add /
			length),
		     ($t1 | tonumber) - ($t0 | tonumber) - .stats.seconds,
		     .stats.pairs, .sandbox] | @tsv' "$work/$mode.$r.json"
		r=$((r + 1))
	done >"$work/$mode.tsv"
done

bare true '/bin/true' >"$work/b"
read -r true_med true_mean _ <"$work/b"
bare sh-true "sh -c 'exec /bin/true'" >"$work/b"
read -r run_med run_mean run_sd <"$work/b"
bare sh-echo "sh -c 'exec echo METRIC t=0.000123'" >"$work/b"
read -r score_med score_mean score_sd <"$work/b"

echo "# bare processes, timed alone (hyperfine -N, 1000 runs; ms)"
printf 'process\tmedian_ms\tmean_ms\tstddev_ms\n'
awk -v a="$true_med" -v b="$true_mean" \
    'BEGIN { printf "/bin/true\t%.3f\t%.3f\t-\n", a * 1e3, b * 1e3 }'
awk -v a="$run_med" -v b="$run_mean" -v c="$run_sd" \
    'BEGIN { printf "sh -c '\''exec /bin/true'\'' (the bare run)\t%.3f\t%.3f\t%.3f\n", a * 1e3, b * 1e3, c * 1e3 }'
awk -v a="$score_med" -v b="$score_mean" -v c="$score_sd" \
    'BEGIN { printf "sh -c '\''exec echo METRIC t=...'\'' (the bare score)\t%.3f\t%.3f\t%.3f\n", a * 1e3, b * 1e3, c * 1e3 }'
echo

echo "# ar-bench, per run: the median of $reps sessions of $pairs pairs (ms; session_fixed in s)"
echo "# per_run = stats.seconds / (2 pairs); run_wall = the runner's wall of the run stage (median of raw wall_s; result's baseline.wall_s.median is the same measure);"
echo "# over_bare_run = per_run - bare run (the target, <= 5 ms); machinery = per_run - bare run - bare score"
printf 'sandbox\tsessions\tpairs\tper_run_ms\tper_run_min_ms\tper_run_max_ms\trun_wall_ms\tover_bare_run_ms\tmachinery_ms\tsession_fixed_s\ttarget\n'
for mode in bwrap none; do
	[ -s "$work/$mode.tsv" ] || continue
	sort -n -k 1 "$work/$mode.tsv" | awk -F '\t' -v run="$run_mean" \
	    -v score="$score_mean" '
	    { per[NR] = $1; wall[NR] = $2; fixed[NR] = $4; pairs = $5; sb = $6 }
	    function med(v, n,   i, j, t, c) {
		for (i = 1; i <= n; i++) c[i] = v[i]
		for (i = 2; i <= n; i++)
		    for (j = i; j > 1 && c[j - 1] > c[j]; j--) {
			t = c[j]; c[j] = c[j - 1]; c[j - 1] = t }
		return n % 2 ? c[(n + 1) / 2] : (c[n / 2] + c[n / 2 + 1]) / 2
	    }
	    END {
		p = med(per, NR)
		printf "%s\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%s\n",
		    sb, NR, pairs, p * 1e3, per[1] * 1e3, per[NR] * 1e3,
		    med(wall, NR) * 1e3, (p - run) * 1e3,
		    (p - run - score) * 1e3, med(fixed, NR),
		    (p - run) * 1e3 <= 5 ? "met (<= 5 ms)" : "NOT met (> 5 ms)"
	    }'
done
echo

# bwrap's start, alone: what a sandbox per run would cost each run.
if command -v bwrap >/dev/null 2>&1; then
	bare bwrap 'bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all --die-with-parent /bin/true' >"$work/b"
	read -r bw_med bw_mean bw_sd <"$work/b"
	echo "# bwrap's start alone (hyperfine -N): ar-bench starts 4 run-time sandboxes per session (judge, score, baseline, method) and one per build, not one per run"
	printf 'process\tmedian_ms\tmean_ms\tstddev_ms\n'
	awk -v a="$bw_med" -v b="$bw_mean" -v c="$bw_sd" 'BEGIN { printf "bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all --die-with-parent /bin/true\t%.3f\t%.3f\t%.3f\n", a * 1e3, b * 1e3, c * 1e3 }'
	awk -v a="$true_med" -v b="$true_mean" \
	    'BEGIN { printf "/bin/true\t%.3f\t%.3f\t-\n", a * 1e3, b * 1e3 }'
	awk -v a="$bw_med" -v t="$true_med" 'BEGIN { printf "# bwrap adds %.1f ms per start (medians)\n", (a - t) * 1e3 }'
fi
