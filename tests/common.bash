# common.bash: the helpers that the test files share, each written once.
# Every file reads it with `load common` (tests/stress/*.bats with `load
# ../common`). First what any file may use; then, command by command, the
# setup and the helpers that a command's tests (tests/CMD.bats) and its
# stress tests (tests/stress/CMD-stress.bats) share.
#
# Waiting: a test never sleeps and hopes. It polls for the condition it
# needs (poll), with a bound far above what a loaded machine takes, so
# that only a hang reaches it. Neither a sleep nor a time bound is left
# but where wall-clock time itself is under test (a lease that must
# expire, a writer that waits AR_LOCK_WAIT seconds), or where a wrong
# outcome is given the time to show.

# The tests directory, whichever file loaded this one, and the fixtures.
AR_TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FIXTURES=$AR_TESTS/fixtures

# ---- for every file ----

# ar_setup PROG: the tree's programs (build/bin), scripts and test
# helpers (build/tests) on PATH, unless PROG is installed, so that an
# installed copy is what gets tested; TOP, the source tree; VERSION, the
# version in config.mk; T, the test's own scratch directory. The paths
# are canonical: tests compare them with /proc's.
ar_setup() {
	TOP=$(cd "$AR_TESTS/.." && pwd -P)
	if ! command -v "$1" >/dev/null 2>&1; then
		PATH="$TOP/build/bin:$TOP/scripts:$TOP/build/tests:$PATH"
	fi
	VERSION=$(sed -n 's/^VERSION = //p' "$TOP/config.mk")
	T=$BATS_TEST_TMPDIR
	# The scripts' messages exactly, without the time they carry when
	# stderr is not a terminal (ar-loop.bats tests that).
	export AR_LOG_TIME=0
}

# ar_unlock: sealed problems and campaigns are read-only; bats must be
# able to remove the scratch directory all the same.
ar_unlock() {
	chmod -R u+w "$BATS_TEST_TMPDIR" 2>/dev/null || true
}

# ar_teardown: kills what the test started in the background and left
# running (a failed test's: bats would wait for it, and it would load the
# tests after it), with the process group of each that leads one, and the
# long sleep of a slow agent or planner, named by its length ($slow);
# then ar_unlock.
ar_teardown() {
	local p
	for p in $(pgrep -P "$BASHPID" 2>/dev/null); do
		[ "$p" != "${BATS_killer_pid:-}" ] || continue
		if [ "$(ps -o pgid= -p "$p" 2>/dev/null | tr -d ' ')" = "$p" ]; then
			kill -KILL -- "-$p" 2>/dev/null || true
		fi
		kill -KILL "$p" 2>/dev/null || true
	done
	if [ -n "${slow:-}" ]; then
		pkill -KILL -fx "sleep $slow" 2>/dev/null || true
	fi
	ar_unlock
}

# not CMD...: succeeds when CMD fails. A bare `! CMD` never fails a
# test: set -e does not stop at a negated command.
not() {
	! "$@"
}

# same GOT WANT: fails, showing both, unless GOT is exactly WANT.
same() {
	if [ "$1" != "$2" ]; then
		printf 'expected:\n%s\n--- got:\n%s\n---\n' "$2" "$1" >&2
		return 1
	fi
}

# poll CMD...: runs CMD (its stderr thrown away) every 0.05 s until it
# succeeds, for POLL_S seconds at most (default 60: only a hang takes so
# long, even on a loaded machine); fails when CMD never did.
poll() {
	local end=$((EPOCHSECONDS + ${POLL_S:-60}))
	until "$@" 2>/dev/null; do
		if [ "$EPOCHSECONDS" -ge "$end" ]; then
			echo "poll: $* did not succeed in ${POLL_S:-60} s" >&2
			return 1
		fi
		sleep 0.05
	done
}

# reader_gone CMD...: runs CMD with its stdout a pipe whose reader has
# exited already, so that its first write fails with EPIPE (and SIGPIPE)
# every time, not only when a race goes that way (`CMD | head -1`).
reader_gone() {
	local fd pid rc=0
	exec {fd}> >(exec true)
	pid=$!
	poll exited "$pid"
	"$@" >&"$fd" || rc=$?
	exec {fd}>&-
	return "$rc"
}

# wait_count N RE FILE: polls until FILE has N lines matching RE.
wait_count() {
	poll sh -c '[ "$(grep -c "$1" "$2")" -ge "$0" ]' "$@"
}

# exited PID: the process PID has ended (a child of the test that was not
# waited for yet is a zombie). For poll: `poll exited "$pid"`.
exited() {
	local s
	s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 0
	[ -z "$s" ] || [ "${s%% *}" = Z ]
}

# running PATTERN: a process whose whole command line is PATTERN runs;
# gone PATTERN: none does (pgrep -fx).
running() {
	pgrep -fx "$1" > /dev/null
}
gone() {
	! pgrep -fx "$1" > /dev/null
}

# replace FILE: replaces FILE with standard input, whole, through a
# temporary and a rename: a program that reads FILE meanwhile (a fake
# squeue, say) sees the old content or the new, never a part.
replace() {
	cat > "$1.tmp.$$"
	mv -f "$1.tmp.$$" "$1"
}

# dead_pid: sets dead, the id of a process of this host that has exited.
dead_pid() {
	sh -c 'exit 0' &
	dead=$!
	wait "$dead"
}

# unprivileged CMD...: runs CMD without the power to ignore file
# permissions: as is when not root; as root, through setpriv with
# CAP_DAC_OVERRIDE and friends dropped.
unprivileged() {
	if [ "$(id -u)" -ne 0 ]; then
		"$@"
	else
		setpriv --bounding-set=-dac_override,-dac_read_search,-fowner "$@"
	fi
}

# private_mounts WHAT: sets UNSHARE, the command that runs a command in a
# mount namespace of its own (unshare -m as root, unshare -rm in a user
# namespace); skips, "no private mount namespace WHAT", where neither works.
private_mounts() {
	if unshare -m true 2>/dev/null; then
		UNSHARE="unshare -m"
	elif unshare -rm true 2>/dev/null; then
		UNSHARE="unshare -rm"
	else
		skip "no private mount namespace $1"
	fi
}

# bwrap_works: bwrap is here and can make the sandbox ar-bench makes.
# bench_sandbox: prints bwrap where ar-bench sandboxes its runs (as root,
# with a bwrap that works), else nothing.
bwrap_works() {
	command -v bwrap >/dev/null 2>&1 &&
	    bwrap --unshare-all --die-with-parent --ro-bind / / true >/dev/null 2>&1
}
bench_sandbox() {
	if [ "$(id -u)" -eq 0 ] && bwrap_works; then
		echo bwrap
	fi
}

# mkcamp [-p PROBLEM] [DIR]: the campaign DIR (default camp) of PROBLEM
# (default $PROBLEM, which the file's setup sets), its secret key in
# $KEYDIR (default $T/keys; set and empty: inside the campaign, as ar-init
# makes it without -k). Sets CAMP, DIR's real path, and KEY, the path of
# its secret key.
mkcamp() {
	local p=${PROBLEM:-} d k=()
	if [ "${1:-}" = -p ]; then
		p=$2
		shift 2
	fi
	d=${1:-camp}
	[ -z "${KEYDIR-$T/keys}" ] || k=(-k "${KEYDIR-$T/keys}")
	ar-init "${k[@]}" -p "$p" "$d" > /dev/null
	CAMP=$(cd "$d" && pwd -P)
	KEY=$(sed -n 's/^key = //p' "$d/campaign.conf")
}

# snapshot DIR...: every path, type, mode, size and content hash below.
snapshot() {
	find "$@" -printf '%y %m %s %p\n' | LC_ALL=C sort
	find "$@" -type f -exec sha256sum {} + | LC_ALL=C sort -k2
}

# j FILTER...: a field of the result in r.json, raw (jq -r).
j() {
	jq -r "$@" r.json
}

# ---- a real single-node Slurm (tests/slurm-up) ----

# slurm_start [--required]: in setup_file, a private Slurm cluster for the
# file, every file, port and pid of it under BATS_FILE_TMPDIR; slurm_stop
# in teardown_file stops it. Where it cannot run here (not root, no
# slurm-wlm or munge: slurm-up exits 69), slurm_ready skips, saying why,
# or fails with --required; where it should have come up and did not,
# slurm_ready fails, saying why.
slurm_start() {
	local out rc=0
	SLURM_DIR=$BATS_FILE_TMPDIR/slurm
	SLURM_SKIP= SLURM_WHY=
	out=$("$AR_TESTS/slurm-up" "$SLURM_DIR" 2>&1) || rc=$?
	case $rc in
	0)
		SLURM_CONF=$SLURM_DIR/slurm.conf
		export SLURM_CONF ;;
	69)
		if [ "${1:-}" = --required ]; then
			SLURM_WHY="tests/slurm-up failed: $out (these tests need a real slurmctld and slurmd: install slurm-wlm and munge, and run as root)"
		else
			SLURM_SKIP="no Slurm test cluster here: $out"
		fi ;;
	*)
		SLURM_WHY="tests/slurm-up failed ($rc): $out" ;;
	esac
	export SLURM_DIR SLURM_SKIP SLURM_WHY
}

slurm_stop() {
	"$AR_TESTS/slurm-down" "$SLURM_DIR"
}

# slurm_ready: first in a test that needs the cluster (see slurm_start).
# ar-run polls Slurm every 0.2 s; HOST is this node's short name; jobs are
# told apart by the directory they were submitted from, TP.
slurm_ready() {
	[ -z "$SLURM_SKIP" ] || skip "$SLURM_SKIP"
	if [ -n "$SLURM_WHY" ]; then
		echo "$SLURM_WHY" >&2
		return 1
	fi
	export AR_RUN_POLL=0.2
	HOST=$(hostname -s)
	TP=$(pwd -P)
}

# ---- ar-init ----

# ar_init_setup: the fixture problem P (the default of mkcamp, which keeps
# the secret key inside the campaign, as ar-init does without -k), the
# usage lines, the header of ar-init -c, umask 022, and a scratch
# directory of its own (bats keeps files in BATS_TEST_TMPDIR).
ar_init_setup() {
	ar_setup ar-init
	P=$FIXTURES/problem
	PROBLEM=$P KEYDIR=
	USAGE1="usage: ar-init [-k keydir] [-n name] -p problem dir"
	USAGE2="       ar-init -c dir"
	HDR=$(printf 'state\tpath\tdetail')
	umask 022
	mkdir -p "$BATS_TEST_TMPDIR/w"
	cd "$BATS_TEST_TMPDIR/w"
}

# conf DIR KEY: a value of DIR/campaign.conf.
conf() {
	sed -n "s/^$2 = //p" "$1/campaign.conf"
}

# tmpdirs: the hidden siblings ar-init builds in, left in the scratch.
tmpdirs() {
	find . -maxdepth 1 -name '.*.tmp-*' | wc -l
}

# ---- ar-queue ----

# An id made by put: UTC time to the microsecond, then 64 random bits.
# The ORDER in a spool name (PRIO-ORDER-ID) has the same form.
ORD='[0-9]{8}T[0-9]{6}\.[0-9]{6}Z-[0-9a-f]{16}'
ID_RE="^$ORD\$"

# ar_queue_setup: the spool S (./spool), made by ar-queue init.
ar_queue_setup() {
	ar_setup ar-queue
	FIX=$FIXTURES/queue
	cd "$BATS_TEST_TMPDIR"
	S=spool
	ar-queue init "$S"
}

# names STATE: the records (not dot files) of a state directory, one a
# line, with the ORDER cut out of each name: PRIO-ID, or
# PRIO-ID@EXPIRY@HOLDER for a lease. A name without a valid ORDER is
# printed whole, so it never matches what a test expects.
names() {
	ls "$S/$1" | sed -E "s/^([0-9]{7})-$ORD-/\\1-/"
}

# count STATE: how many records the state directory holds.
count() {
	ls "$S/$1" | wc -l
}

need_jq() {
	command -v jq >/dev/null 2>&1 || skip "jq is not installed"
}

# make_records N: writes N records straight into new/ the way put names
# and writes them (priority 0, ids r00001..., oldest first), far faster
# than N fsync'd puts.
make_records() {
	awk -v d="$S/new" -v n="$1" 'BEGIN {
		for (i = 1; i <= n; i++) {
			f = sprintf("%s/1000000-20000101T000000.%06dZ-%016x-r%05d", d, i, i, i)
			printf "{\"n\":%d,\"id\":\"r%05d\",\"priority\":0}\n", i, i > f
			close(f)
		}
	}'
}

# ---- ar-ledger ----

# ar_ledger_setup: the campaign C (its ledger L, its id CAMP_ID) of a
# problem with a problem.json only (ar-init seals no problem ar-bench
# would refuse), its key inside it.
ar_ledger_setup() {
	ar_setup ar-ledger
	mkdir -p "$T/prob"
	cp "$FIXTURES/problem/problem.json" "$T/prob/"
	C=$T/camp
	ar-init -p "$T/prob" "$C" > /dev/null
	L=$C/ledger
	CAMP_ID=$(sed -n 's/^campaign = //p' "$C/campaign.conf")
}

# gen N FILE [SEED]: N realistic results signed by this campaign.
gen() {
	ar-sign-test -C "$C" -g "$1" -s "${3:-1}" > "$2"
}

# save FILE: writes the last run's stdout to FILE.
save() {
	printf '%s\n' "$output" > "$1"
}

# lock_by PID: writes a lock as a writer of this host with PID would.
lock_by() {
	printf '%s %s %s\n' "$(uname -n)" "$1" "$(date +%s)" > "$L/lock"
}

# ledger_clean: nothing left beside results/ and seg/: no lock, no
# temporary file; only lock.break, the guard that breakers of stale locks
# take, and loose.seal, which an append of loose results or the export -V
# of the ar-sched fold that a batch append runs may write, may stay.
ledger_clean() {
	run -0 ls -A "$L"
	[ "$(printf '%s\n' "$output" | grep -vx -e lock.break -e loose.seal)" = "results
seg" ]
}

# check_ledger ACKED OFFERED: verify passes; every acknowledged result is
# there exactly once; nothing is there that was not offered. Leaves the
# ids stored in $T/have.ids.
check_ledger() {
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem" ]
	run -0 --separate-stderr ar-ledger export -C "$C" -f jsonl
	save "$T/all.jsonl"
	jq -r .id "$T/all.jsonl" | LC_ALL=C sort > "$T/have.ids"
	run -0 uniq -d "$T/have.ids"
	[ "$output" = "" ]
	jq -r .id "$1" | LC_ALL=C sort > "$T/acked.ids"
	jq -r .id "$2" | LC_ALL=C sort > "$T/offered.ids"
	run -0 comm -23 "$T/acked.ids" "$T/have.ids"
	[ "$output" = "" ]
	run -0 comm -13 "$T/offered.ids" "$T/have.ids"
	[ "$output" = "" ]
	# Each row is exactly what was offered.
	run -0 comm -13 <(LC_ALL=C sort "$2") <(LC_ALL=C sort "$T/all.jsonl")
	[ "$output" = "" ]
}

# now_us: the wall clock in microseconds, without a fork.
now_us() {
	local t=${EPOCHREALTIME/./}
	echo "${t#0}"
}

# ---- ar-bench ----

# ar_bench_setup_file: SANDBOX, once for the file: bwrap where ar-bench
# can make its sandbox here.
ar_bench_setup_file() {
	SANDBOX=$(bench_sandbox)
	export SANDBOX
}

# ar_bench_setup: the toy problem of fixtures/bench (TOY, the default of
# mkcamp) and its methods (M); NOSB, the sandbox flag ar-bench needs here,
# and SBNAME, the sandbox results name; TAG, a name no other test or run
# uses (for pgrep, and for files that must not appear); ar-bench's
# scratch sessions in $T/tmp, where the tests see what is left; the work
# in $T/w.
ar_bench_setup() {
	ar_setup ar-bench
	FIX=$FIXTURES/bench
	TOY=$FIX/toy
	M=$FIX/toy-methods
	PROBLEM=$TOY
	if [ -n "$SANDBOX" ]; then
		NOSB=() SBNAME=bwrap
	else
		NOSB=(--no-sandbox) SBNAME=none
	fi
	TAG=arbt-$$-$RANDOM$RANDOM
	umask 022
	mkdir -p "$T/w" "$T/tmp"
	export TMPDIR=$T/tmp
	unset AR_CAMPAIGN AR_BWRAP NO_COLOR
	cd "$T/w"
}

need_sandbox() {
	[ -n "$SANDBOX" ] ||
	    skip "the sandbox needs root and a bwrap (bubblewrap) that works"
}

# bench ARGS: ar-bench on the campaign, in the sandbox where there is one;
# the result in r.json.
bench() {
	run --separate-stderr ar-bench -C camp "${NOSB[@]}" "$@"
	printf '%s\n' "$output" > r.json
	echo "# ar-bench $*: exit $status"
	echo "# stderr: $stderr"
}

# kept: the scratch directory that -K kept, as stderr says.
kept() {
	sed -n 's/^ar-bench: scratch directory kept: //p' <<< "$stderr"
}

# ar_bench_teardown: whatever a failed test left running or wrote where it
# must not.
ar_bench_teardown() {
	pkill -KILL -f "$TAG" 2>/dev/null || true
	rm -f "/usr/$TAG" /tmp/ar-bench-test-left /dev/shm/ar-bench-test-left
	ar_teardown
}

# ---- ar-bench --roofline ----

# roofline_setup: the toy problem's campaign camp in $T/w (its key signs
# the profiles in camp/machine/); ar-bench's scratch in $T/tmp, where the
# tests see what is left; no GPU named; HOST, the node's name in profile
# file names.
roofline_setup() {
	ar_setup ar-bench
	TOY=$FIXTURES/bench/toy
	M=$FIXTURES/bench/toy-methods
	mkdir -p "$T/w" "$T/tmp"
	export TMPDIR=$T/tmp
	unset AR_CAMPAIGN NO_COLOR CUDA_VISIBLE_DEVICES
	HOST=$(hostname)
	cd "$T/w"
	mkcamp -p "$TOY"
}

# ranks: the rank processes of this tree's ar-bench (they are ar-bench
# --rank, by their executable), one pid a line.
ranks() {
	local exe p
	exe=$(readlink -f "$(command -v ar-bench)")
	for p in $(pgrep -f -- '--rank$'); do
		[ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$exe" ] && echo "$p"
	done
	true
}

# roof ARGS: a short roofline; the record in r.json.
roof() {
	run --separate-stderr ar-bench --roofline -C camp -q -P 3 -W 1 "$@"
	printf '%s\n' "$output" > r.json
}

# same_tests K: what every profile of K ranks must hold.
same_tests() {
	local k=$1
	[ "$(j .verdict)" = ok ]
	[ "$(j .why)" = "" ]
	[ "$(j .kind)" = roofline ]
	[ "$(j .device)" = cpu ]
	[ "$(j .k)" = "$k" ]
	[ "$(j '.devices | length')" = "$k" ]
	[ "$(j -c '[.devices[].rank]')" = "$(jq -nc "[range($k)]")" ]
	for op in copy memcpy gemm_bf16 gemm_bf16_ref; do
		[ "$(j ".measures.$op.samples")" = 3 ]
		[ "$(j ".measures.$op.warmup")" = 1 ]
		[ "$(j ".measures.$op.max_err <= 0.0001")" = true ]
		[ "$(j ".measures.$op.checked > 0")" = true ]
		[ "$(j "[.measures.$op | .bundle_s.median, .event_s.median, .cpu_s.median] | all(. > 0)")" = true ]
	done
	# Every byte of every copy was checked, on every rank, every sample.
	[ "$(j .measures.copy.checked)" = $((16777216 * 4 * k)) ]
	[ "$(j '.measures.copy.gb_s.median > 0 and .measures.gemm_bf16.tflop_s.median > 0')" = true ]
	[ "$(j .measures.gemm_fp8.skipped)" = "no FP8 GEMM on the cpu device" ]
	[ "$(j '.roofline.mem_gb_s == ([.measures.copy.gb_s.median, .measures.memcpy.gb_s.median] | max)')" = true ]
	[ "$(j '.figures.copy_vs_memcpy > 0')" = true ]
	if [ "$k" -eq 1 ]; then
		[ "$(j .measures.allreduce.skipped)" = "one rank: nothing to all-reduce across" ]
		[ "$(j '.roofline | has("allreduce_busbw_gb_s")')" = false ]
	else
		# The sum of every rank's input, checked element by element.
		[ "$(j .measures.allreduce.checked)" = $((4194304 / 4 * 4 * k)) ]
		[ "$(j .measures.allreduce.max_err)" = 0 ]
		[ "$(j '.roofline.allreduce_busbw_gb_s > 0')" = true ]
	fi
	[ "$(j .sig | wc -c)" -gt 64 ]
	# The profile on disk is what was printed.
	[ "$(cat "camp/machine/$HOST.cpu.k$k.json")" = "$(cat r.json)" ]
	[ -z "$(ranks)" ]
	[ -z "$(ls -A "$TMPDIR")" ]
}

# ---- ar-run ----

# ar_run_setup: the fake ar-bench of fixtures/run (it logs what it was
# given and when to camp/fake.log, and signs with ar-sign-test); the
# default problem of mkcamp, int8-matvec; HDR, the header of assignments
# as ar-sched next prints them; OUTHDR, ar-run's.
ar_run_setup() {
	ar_setup ar-run
	# The fake bench signs its results with ar-sign-test.
	if ! command -v ar-sign-test >/dev/null 2>&1; then
		PATH="$PATH:$TOP/build/tests"
	fi
	FIX=$FIXTURES/run
	PROBLEM=$TOP/problems/int8-matvec
	export AR_BENCH=$FIX/fake-bench
	cd "$T"
	unset AR_CAMPAIGN AR_HOLDER NO_COLOR FAKE_SLEEP FAKE_POST FAKE_LOG
	export AR_RUN_POLL=0.05
	HDR="experiment	method	workload	k	gpus	node	purpose	idea	label	value	why"
	OUTHDR="experiment	method	k	gpus	node	status	verdict	result	seconds"
}

# ar_run_teardown: whatever a failed test left running: ar-run processes
# of this test (by their -C, or their directory) and their fake benches.
ar_run_teardown() {
	local p
	for p in $(pgrep -f "ar-run (local|slurm) .*-C $T" 2>/dev/null); do
		kill -KILL "$p" 2>/dev/null || true
	done
	for p in $(pgrep -f "ar-run (local|slurm) " 2>/dev/null); do
		[ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$T" ] &&
		    kill -KILL "$p" 2>/dev/null || true
	done
	for p in $(pgrep -f "fake-bench .*-C $T" 2>/dev/null); do
		kill -KILL "$p" 2>/dev/null || true
	done
	ar_teardown
}

# assign N [K-LIST] [METHOD]: N assignments e001.. of METHOD (default ok),
# k cycling through K-LIST (default 1), as ar-sched next prints them.
assign() {
	local n=$1 ks=(${2:-1}) m=${3:-ok} i
	echo "$HDR"
	for ((i = 1; i <= n; i++)); do
		printf 'e%03d\t%s\ttiny\t%s\t\t\tprobe\t\tl%d\t1\twhy %d\n' \
		    "$i" "$m" "${ks[$(((i - 1) % ${#ks[@]}))]}" "$i" "$i"
	done
}

# assignment EXP METHOD K [GPUS]: one assignment line; one: the same with
# the header.
assignment() {
	printf '%s\t%s\ttiny\t%s\t%s\t\tprobe\t\t\t1\twhy\n' "$1" "$2" "$3" "${4:-}"
}
one() {
	echo "$HDR"
	assignment "$@"
}

# empty DIR...: the directories hold nothing (a temporary dot file that a
# kill -9 left mid-write is not state).
empty() {
	local left
	left=$(find "$@" -mindepth 1 ! -name '.tmp-*')
	[ -z "$left" ] || { echo "left: $left" >&2; return 1; }
}

# col NAME: a column of TSV on stdin by its header name.
col() {
	awk -F '\t' -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) n = i; next } { print $n }'
}

# ledger_count EXP: rows of the ledger naming EXP.
ledger_count() {
	ar-ledger export -C camp -f jsonl | jq -r .experiment | grep -cx "$1" || true
}

# jobfiles N: polls until run/jobs holds N experiments' job files.
jobfiles() {
	poll sh -c '[ "$(ls camp/run/jobs | grep -v -e "^@" -e "\.rc\$" | wc -l)" -ge "$0" ]' "$1"
}

# no_overlap LOG [FIELD]: no slot (GPU, or CPU with cpus) named by two
# runs whose [start, end] intervals overlap; prints the offending pair
# otherwise.
no_overlap() {
	awk -v field="${2:-gpus}" '
	function slots(line,   i, f) {
		for (i = 1; i <= NF; i++)
			if (index($i, field "=") == 1)
				return substr($i, length(field) + 2)
	}
	function tm(   i) { for (i = 1; i <= NF; i++) if ($i ~ /^t=/) return substr($i, 3) + 0 }
	$1 == "start" { s[$2] = tm(); g[$2] = slots() }
	$1 == "end" { e[$2] = tm() }
	END {
		for (x in s) {
			if (!(x in e)) { print "no end: " x; bad = 1; continue }
			n = split(g[x], a, ",")
			for (i = 1; i <= n; i++) { cnt[a[i]]++; iv[a[i], cnt[a[i]]] = x }
		}
		for (gp in cnt)
			for (i = 1; i <= cnt[gp]; i++)
				for (j = i + 1; j <= cnt[gp]; j++) {
					x = iv[gp, i]; y = iv[gp, j]
					if (s[x] < e[y] && s[y] < e[x]) {
						print "slot " gp ": " x " and " y " overlap"
						bad = 1
					}
				}
		exit bad
	}' "$1"
}

# ---- ar-loop ----

# ar_loop_setup: after ar_bench_setup_file (SANDBOX) in setup_file, the
# campaign camp of int8-matvec, with the scripted example planner and
# agent; L, the loop's common arguments (the CPU
# path, tiny, 4 s leases); B, ar-bench's (short measurements); NOSB and
# BNOSB, the sandbox flags of ar-loop and of ar-bench here.
#
# sched.noise_max = 10: the loop under test measures the methods on any
# machine. At the default 0.10 a loaded machine's A/A noise (0.03 to 0.07
# idle here, more under load) quarantines the node, every step measures
# one more A/A and nothing else, and a campaign ends at its budget with
# no method measured and no curve (an empty loop/curves.jsonl).
ar_loop_setup() {
	ar_setup ar-loop
	export AR_TOP=$TOP
	FIX=$FIXTURES/agent
	unset AR_AGENT AR_PLANNER AR_PLANNER_URL AR_PLANNER_API AR_CAMPAIGN \
	    AR_HOLDER AR_PROGRAM AR_BWRAP
	if [ -n "$SANDBOX" ]; then
		NOSB=() BNOSB=()
	else
		NOSB=(--no-sandbox) BNOSB=(--no-sandbox)
	fi
	L=(-C camp --cpus -w tiny -l 4 "${NOSB[@]}")
	B=(-- -P 6 -T 2 -q "${BNOSB[@]}")
	export AR_PLANNER=$TOP/examples/agent/planner
	export AR_AGENT=$TOP/examples/agent/agent
	PROBLEM=$TOP/problems/int8-matvec
	# What an agent killed -9 leaves in its TMPDIR stays in the test's.
	mkdir -p "$T/tmp"
	export TMPDIR=$T/tmp
	cd "$T"
	mkcamp
	echo 'sched.noise_max = 10' >> camp/campaign.conf
}

# rows: results of the campaign in the ledger.
rows() {
	ar-ledger export -C camp -f tsv | tail -n +2 | wc -l
}

# experiments: the ledger's experiment ids, one a line.
experiments() {
	ar-ledger export -C camp -f tsv | jq -Rr 'split("\t")' | jq -rs '
	    .[0] as $h | ($h | index("experiment")) as $e | .[1:][] | .[$e]'
}
