#!/usr/bin/env bats
# ar-loop: the thin loop, on int8-matvec's tiny workload with short
# ar-bench limits, the scripted example planner and agent (or fake agents
# of fixtures/agent). A whole campaign to its experiment budget: ideas
# planned, methods submitted, measured, the digest and pictures written in
# loop/, the ledger verified; --once; a step that changes nothing ends the
# loop; the budgets (experiments, GPU-hours, wall hours; flags and
# campaign.conf); the lock (a second loop exits 75, a dead loop's lock is
# broken, another host's is kept); kill -9 of the whole loop at random
# instants, then a restart: no idea lost, no experiment run twice, no
# idea submitted twice, the ledger verifies; the command line. Then
# --backend slurm on a real single-node Slurm (tests/slurm-up): a whole
# campaign as Slurm jobs; the loop killed -9 while a job measures, then
# restarted after its lease expired: the job is adopted, not run again.

bats_require_minimum_version 1.5.0
load common

setup_file() {
	SANDBOX=
	if [ "$(id -u)" -eq 0 ] && command -v bwrap >/dev/null 2>&1 &&
	    bwrap --unshare-all --die-with-parent --ro-bind / / true \
	    >/dev/null 2>&1; then
		SANDBOX=bwrap
	fi
	export SANDBOX
	# One private Slurm for the file (tests/slurm-up), for the
	# --backend slurm tests; they skip, saying why, where it cannot run
	# (not root, no slurm-wlm or munge), and fail when it should have.
	SLURM_DIR=$BATS_FILE_TMPDIR/slurm
	SLURM_SKIP= SLURM_WHY=
	rc=0
	out=$("$BATS_TEST_DIRNAME/slurm-up" "$SLURM_DIR" 2>&1) || rc=$?
	case $rc in
	0) SLURM_CONF=$SLURM_DIR/slurm.conf; export SLURM_CONF ;;
	69) SLURM_SKIP="no Slurm test cluster here: $out" ;;
	*) SLURM_WHY="tests/slurm-up failed ($rc): $out" ;;
	esac
	export SLURM_DIR SLURM_SKIP SLURM_WHY
}

teardown_file() {
	"$BATS_TEST_DIRNAME/slurm-down" "$SLURM_DIR"
}

setup() {
	ar_setup ar-loop
	export AR_TOP=$TOP
	FIX=$BATS_TEST_DIRNAME/fixtures/agent
	USAGE="usage: ar-loop [--once] [--no-sandbox] [-C campaign] [-a agents] [-i ideas] [-l lease] [-q pending] [-s seconds] [-w workload] [-g topology | --gpus n | --cpus] [--backend local|slurm] [--experiments n] [--gpu-hours h] [--wall-hours h] [--steps n] [-- ar-bench-args ...]"
	unset AR_AGENT AR_PLANNER AR_PLANNER_URL AR_PLANNER_API AR_CAMPAIGN \
	    AR_HOLDER AR_PROGRAM AR_BWRAP
	if [ -n "$SANDBOX" ]; then
		NOSB=() BNOSB=()
	else
		NOSB=(--no-sandbox) BNOSB=(--no-sandbox)
	fi
	# The loop's common arguments: the CPU path, tiny, short measurements.
	L=(-C camp --cpus -w tiny -l 4 "${NOSB[@]}")
	B=(-- -P 6 -T 2 -q "${BNOSB[@]}")
	export AR_PLANNER=$TOP/examples/agent/planner
	export AR_AGENT=$TOP/examples/agent/agent
	cd "$T"
	ar-init -k "$T/keys" -p "$TOP/problems/int8-matvec" camp > /dev/null
	# The loop under test measures the methods on any machine. At the
	# default 0.10 a loaded machine's A/A noise (0.03 to 0.07 idle here,
	# more under load) quarantines the node, every step measures one more
	# A/A and nothing else, and a campaign ends at its budget with no
	# method measured and no curve (an empty loop/curves.jsonl).
	echo 'sched.noise_max = 10' >> camp/campaign.conf
}

teardown() {
	ar_unlock
}

# rows: results of the campaign in the ledger.
rows() { ar-ledger export -C camp -f tsv | tail -n +2 | wc -l; }
# gpuh: the GPU-hours of the ledger's results, as the loop counts them.
gpuh() {
	ar-ledger export -C camp -f jsonl |
	    jq -s 'map(.shape.k * ((.finished | fromdate) - (.started | fromdate))) | add // 0 | . / 3600'
}
# busy N: steps until the results took some time (timestamps are whole
# seconds, and a tiny measurement may start and finish within one).
busy() {
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ "$(gpuh)" = 0 ] || return 0
		ar-loop "${L[@]}" --once "${B[@]}" 2> /dev/null
	done
	[ "$(gpuh)" != 0 ]
}
# experiments: the ledger's experiment ids, one a line.
experiments() {
	ar-ledger export -C camp -f tsv | jq -Rr 'split("\t")' | jq -rs '
	    .[0] as $h | ($h | index("experiment")) as $e | .[1:][] | .[$e]'
}

@test "ar-loop: a whole campaign: planned, implemented, measured, digested, to the experiment budget" {
	run --separate-stderr -0 ar-loop "${L[@]}" -a 2 --experiments 6 "${B[@]}"
	[ "$output" = "" ]
	[[ $stderr == *"ar-loop: step 1: plan: "* ]]
	[[ $stderr == *"ar-loop: step 1: agents: 2 at work"* ]]
	[[ $stderr == *"budget spent: experiments 6 of 6"* ]]
	[[ $stderr == *"judge.mk: added, outside the mutable files"* ]] ||
	    [ "$(ar-queue ls -s new camp/ideas | tail -n +2 | wc -l)" -gt 0 ]
	[ "$(rows)" -eq 6 ]
	ar-ledger verify -C camp
	# Methods were measured, not only the node's A/A (setup); their
	# curves are what loop/curves.jsonl holds.
	ar-ledger export -C camp -f jsonl > rows.jsonl
	[ "$(jq -s 'map(select(.aa)) | length' rows.jsonl)" -ge 1 ]
	[ "$(jq -s 'map(select(.aa | not)) | length' rows.jsonl)" -ge 1 ]
	for f in digest.md curves.jsonl curves.svg progress.svg digest.html state wall; do
		[ -s "camp/loop/$f" ]
	done
	grep -q '^# Campaign digest' camp/loop/digest.md
	[ ! -e camp/loop/lock ]
	# Every submitted method is a commit on its idea's branch.
	for c in $(ar-queue ls -f jsonl camp/submitted | jq -r .record.method); do
		git -C camp/methods rev-parse --verify "$c^{commit}"
	done
	# Run again: the budget is spent, nothing is done.
	run --separate-stderr -0 ar-loop "${L[@]}" --experiments 6 "${B[@]}"
	[[ $stderr == *"budget spent: experiments 6 of 6"* ]]
	[ "$(rows)" -eq 6 ]
}

@test "ar-loop: --once runs one step; a step that changes nothing ends the loop" {
	run --separate-stderr -0 ar-loop "${L[@]}" --once "${B[@]}"
	[[ $stderr == *"step 1: "* ]]
	[[ $stderr != *"step 2: "* ]]
	grep -qx 'step 1' camp/loop/state
	grep -qx 'phase done' camp/loop/state
	[ "$(rows)" -ge 1 ]
	# Another --once is step 2.
	run --separate-stderr -0 ar-loop "${L[@]}" --once "${B[@]}"
	grep -qx 'step 2' camp/loop/state
	# No planner, no agent, nothing pending: the step changes nothing.
	rm -rf camp/submitted
	ar-queue init camp/submitted
	AR_PLANNER= AR_AGENT= run --separate-stderr -0 ar-loop "${L[@]}" -s 0 "${B[@]}"
	[[ $stderr == *"nothing changed in step "*": nothing left to do"* ]]
}

@test "ar-loop: steps whose every experiment fails stop the loop after 3 (exit 1), not for ever" {
	# ar-bench refuses an argument on every run: nothing lands.
	run --separate-stderr -1 ar-loop "${L[@]}" -a 1 --experiments 6 -- --frob "${BNOSB[@]}"
	[[ $stderr == *"ar-loop: step 3: every experiment of the last 3 steps failed; why: ar-queue ls -s failed "*"camp/queue" ]]
	[[ $stderr != *"step 4: "* ]]
	[ "$(rows)" -eq 0 ]
	ar-queue ls -s failed camp/queue | grep -q 'ar-bench exited 64'
	[ ! -e camp/loop/lock ]
}

@test "ar-loop: budgets: wall hours, GPU-hours, campaign.conf's budget.experiments, --steps" {
	# Longer measurements: busy needs results with non-zero GPU-hours.
	B=(-- -p 30 -P 30 -T 5 -q "${BNOSB[@]}")
	# 0.0002 h is 0.72 s: spent after the first step.
	run --separate-stderr -0 ar-loop "${L[@]}" --wall-hours 0.0002 "${B[@]}"
	[[ $stderr == *"budget spent: wall hours "* ]]
	[[ $stderr != *"step 2: "* ]]
	[ "$(cat camp/loop/wall)" -ge 1 ]
	# Spent already, across runs: the next loop does no step.
	run --separate-stderr -0 ar-loop "${L[@]}" --wall-hours 0.0002 "${B[@]}"
	[[ $stderr != *"step "* ]]
	busy
	n=$(rows)
	run --separate-stderr -0 ar-loop "${L[@]}" --gpu-hours 0.0000001 "${B[@]}"
	[[ $stderr == *"budget spent: GPU-hours "* ]]
	[ "$(rows)" -eq "$n" ]
	sed -i 's/^budget.experiments = .*/budget.experiments = '"$((n + 1))"'/' camp/campaign.conf
	run --separate-stderr -0 ar-loop "${L[@]}" "${B[@]}"
	[[ $stderr == *"budget spent: experiments $((n + 1)) of $((n + 1))"* ]]
	[ "$(rows)" -eq "$((n + 1))" ]
	run --separate-stderr -0 ar-loop "${L[@]}" --experiments 100 --steps 1 "${B[@]}"
	[[ $stderr == *"1 steps done"* ]]
}

@test "ar-loop: GPU-hours are shape.k times (finished - started) of this campaign's results" {
	# Longer measurements, so that their whole-second times differ even
	# on a fast or a loaded machine.
	B=(-- -p 30 -P 30 -T 5 -q "${BNOSB[@]}")
	run -0 ar-loop "${L[@]}" --experiments 3 "${B[@]}"
	busy
	n=$(rows)
	want=$(gpuh)
	run --separate-stderr -0 ar-loop "${L[@]}" --gpu-hours "$want" "${B[@]}"
	[[ $stderr == *"budget spent: GPU-hours "* ]]
	[ "$(rows)" -eq "$n" ]
}

@test "ar-loop: the lock: a second loop exits 75; a dead loop's lock is broken; another host's is kept" {
	AR_AGENT=$FIX/slow SLOW=3 ar-loop "${L[@]}" --once "${B[@]}" 2> first.err &
	pid=$!
	for _ in $(seq 50); do [ -e camp/loop/lock ] && break; sleep 0.1; done
	run --separate-stderr -75 ar-loop "${L[@]}" --once "${B[@]}"
	[[ $stderr == *"another ar-loop holds the campaign (pid $pid on $(hostname))"* ]]
	wait "$pid"
	[ ! -e camp/loop/lock ]
	# A lock left by a loop that died (kill -9): broken.
	sh -c 'exit 0' &
	dead=$!
	wait "$dead"
	echo "$dead $(hostname) 1 x" > camp/loop/lock
	run --separate-stderr -0 ar-loop "${L[@]}" --once "${B[@]}"
	[[ $stderr == *"broke the lock of ar-loop $dead, which died"* ]]
	[ ! -e camp/loop/lock ]
	# A lock of a loop on another host: kept (its pid means nothing here).
	echo "$dead other-host.example 1 x" > camp/loop/lock
	run --separate-stderr -75 ar-loop "${L[@]}" --once "${B[@]}"
	[[ $stderr == *"(pid $dead on other-host.example)"* ]]
	[ -e camp/loop/lock ]
}

@test "ar-loop: SIGTERM: the loop stops at once, passes it on to its agents, leaves no lock" {
	AR_AGENT=$FIX/slow SLOW=41 ar-loop "${L[@]}" "${B[@]}" 2> err &
	pid=$!
	for _ in $(seq 100); do
		[ "$(ar-queue ls -s cur camp/ideas 2>/dev/null | tail -n +2 | wc -l)" -gt 0 ] && break
		sleep 0.1
	done
	sleep 0.5
	SECONDS=0
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 143 ]
	[ "$SECONDS" -lt 10 ]
	[ ! -e camp/loop/lock ]
	for _ in $(seq 50); do
		[ "$(ar-queue ls -s cur camp/ideas | tail -n +2 | wc -l)" -eq 0 ] && break
		sleep 0.1
	done
	[ "$(ar-queue ls -s cur camp/ideas | tail -n +2 | wc -l)" -eq 0 ]
	! pgrep -fx "sleep 41" > /dev/null
}

@test "ar-loop: kill -9 of the whole loop at random instants, then a restart: nothing lost, nothing run twice" {
	groups=()
	for i in 1 2 3 4 5; do
		setsid ar-loop "${L[@]}" -a 2 --experiments 9 "${B[@]}" 2>> loop.err &
		pid=$!
		groups+=("$pid")
		sleep "$(awk -v s="$RANDOM" 'BEGIN { srand(s); printf "%.2f", 0.3 + rand() * 2.5 }')"
		if [ $((i % 2)) -eq 1 ]; then
			# The whole loop, as when its machine dies.
			kill -KILL -- "-$pid" 2>/dev/null || true
		else
			# The loop alone: its agents and ar-run go on, orphaned,
			# beside the next loop.
			kill -KILL "$pid" 2>/dev/null || true
		fi
		wait "$pid" 2>/dev/null || true
	done
	# The leases of what the killed agents held expire.
	sleep 5
	run --separate-stderr -0 ar-loop "${L[@]}" -a 2 --experiments 9 "${B[@]}"
	printf '%s\n' "$stderr" >> loop.err
	# The orphans finish; then one more loop tidies up after them.
	for g in "${groups[@]}"; do
		for _ in $(seq 100); do
			pgrep -g "$g" > /dev/null || break
			sleep 0.2
		done
		! pgrep -g "$g" > /dev/null
	done
	sleep 5
	ar-loop "${L[@]}" -a 2 --experiments 9 "${B[@]}" 2>> loop.err
	# The ledger verifies; no experiment appears twice.
	ar-ledger verify -C camp
	[ "$(experiments | sort | uniq -d | wc -l)" -eq 0 ]
	# No idea lost: every planned idea is done or failed or waits in new/;
	# none is stuck under a lease of a dead agent.
	[ "$(ar-queue ls -s cur camp/ideas | tail -n +2 | wc -l)" -eq 0 ] || {
		sleep 5
		ar-loop "${L[@]}" -a 2 --experiments 9 "${B[@]}" 2>> loop.err
		[ "$(ar-queue ls -s cur camp/ideas | tail -n +2 | wc -l)" -eq 0 ]
	}
	# No idea submitted twice, and each submitted idea is done.
	[ "$(ar-queue ls -f jsonl camp/submitted | jq -r .record.idea | sort | uniq -d | wc -l)" -eq 0 ]
	for i in $(ar-queue ls -f jsonl camp/submitted | jq -r .record.idea); do
		[ "$(ar-queue ls -f jsonl camp/ideas | jq -r --arg i "$i" 'select(.record.id == $i) | .state')" = done ]
	done
	# Every title of the planner's was stored once.
	[ "$(ar-queue ls -f jsonl camp/ideas | jq -r .record.title | sort | uniq -d | wc -l)" -eq 0 ]
	# The queue holds nothing claimed by the dead.
	[ "$(ar-queue ls -s cur camp/queue | tail -n +2 | wc -l)" -eq 0 ]
	[ "$(rows)" -le 9 ]
}

# ---- --backend slurm, on a real single-node cluster (tests/slurm-up) ----

# slurm_ready: skips without a cluster to start, fails when one did not
# come up.
slurm_ready() {
	[ -z "$SLURM_SKIP" ] || skip "$SLURM_SKIP"
	if [ -n "$SLURM_WHY" ]; then
		echo "$SLURM_WHY" >&2
		return 1
	fi
	export AR_RUN_POLL=0.2
	HOST=$(hostname -s)
	# Jobs are told apart by the directory they were submitted from.
	TP=$(pwd -P)
}
# slurm_jobs: "NAME|STATE|NODE" of this test's Slurm jobs, sorted.
slurm_jobs() {
	squeue -h -t all -o '%j|%T|%N|%Z' |
	    awk -F '|' -v d="$TP" '$4 == d { print $1 "|" $2 "|" $3 }' | sort
}

@test "ar-loop --backend slurm: a whole campaign as Slurm jobs, to the experiment budget" {
	slurm_ready
	# No inventory: ar-sched asks Slurm (sinfo), ar-run submits jobs.
	S=(-C camp -w tiny -l 4 "${NOSB[@]}" --backend slurm)
	run --separate-stderr -0 ar-loop "${S[@]}" -a 2 --experiments 6 "${B[@]}"
	echo "$stderr"
	[ "$output" = "" ]
	[[ $stderr == *"step 1: agents: 2 at work"* ]]
	[[ $stderr == *"step 1: run: "*" to run (slurm)"* ]]
	[[ $stderr == *"budget spent: experiments 6 of 6"* ]]
	# The budget, exactly; the ledger verifies; no experiment twice; the
	# A/A and methods both measured.
	[ "$(rows)" -eq 6 ]
	ar-ledger verify -C camp
	[ "$(experiments | sort | uniq -d | wc -l)" -eq 0 ]
	ar-ledger export -C camp -f jsonl > rows.jsonl
	[ "$(jq -s 'map(select(.aa)) | length' rows.jsonl)" -ge 1 ]
	[ "$(jq -s 'map(select(.aa | not)) | length' rows.jsonl)" -ge 1 ]
	# The experiments ran as Slurm jobs, which completed on this node:
	# one job (or one task of an array, which ar-run may submit for
	# runs of one k) per experiment, no more. A lone job is named
	# ar-EXP, after an experiment of the ledger, once; an array ar-@MAP.
	slurm_jobs
	[ "$(slurm_jobs | wc -l)" -eq 6 ]
	[ "$(slurm_jobs | cut -d '|' -f 2- | sort -u)" = "COMPLETED|$HOST" ]
	[ "$(slurm_jobs | cut -d '|' -f 1 | grep -v '^ar-@' | sort | uniq -d)" = "" ]
	for j in $(slurm_jobs | cut -d '|' -f 1 | grep -v '^ar-@'); do
		experiments | grep -qx "${j#ar-}"
	done
	# Each experiment's ar-bench wrote its result to the job's log.
	for e in $(experiments); do
		grep -q "\"experiment\":\"$e\"" "camp/log/$e.out"
	done
	# Each measured on the k GPUs that Slurm gave its job (gres IDX, 0-7).
	[ "$(jq -c 'select((.shape.gpu_ids | length) != .shape.k
	    or any(.shape.gpu_ids[]; . < 0 or . > 7)
	    or .shape.node != $h)' --arg h "$HOST" rows.jsonl)" = "" ]
	# ar-run's records: every experiment done, none pending or failed,
	# no job left to track.
	[ "$(ar-queue ls -s done camp/queue | tail -n +2 | wc -l)" -eq 6 ]
	for st in new cur failed; do
		[ "$(ar-queue ls -s $st camp/queue | tail -n +2 | wc -l)" -eq 0 ]
	done
	[ -z "$(ls camp/run/jobs)" ]
	for f in digest.md curves.jsonl curves.svg progress.svg digest.html state wall; do
		[ -s "camp/loop/$f" ]
	done
	grep -q '^# Campaign digest' camp/loop/digest.md
	[ ! -e camp/loop/lock ]
	# Run again: the budget is spent; no job is submitted.
	before=$(slurm_jobs)
	run --separate-stderr -0 ar-loop "${S[@]}" --experiments 6 "${B[@]}"
	[[ $stderr == *"budget spent: experiments 6 of 6"* ]]
	[ "$(rows)" -eq 6 ]
	[ "$(slurm_jobs)" = "$before" ]
}

@test "ar-loop --backend slurm: killed -9 while a job measures, restarted after its lease expired: the job is adopted, not run again" {
	slurm_ready
	unset AR_AGENT AR_PLANNER
	# One experiment, the node's first A/A, measuring for about 8 s
	# under a 3 s lease (the least ar-run takes).
	S=(-C camp -w tiny -l 3 "${NOSB[@]}" --backend slurm --experiments 1)
	LB=(-- -p 100000 -P 100000 -T 8 -q "${BNOSB[@]}")
	setsid ar-loop "${S[@]}" "${LB[@]}" 2> loop1.err &
	pid=$!
	for _ in $(seq 100); do
		[ -n "$(ls camp/run/jobs 2>/dev/null | grep -v -e '^@' -e '\.rc$')" ] && break
		sleep 0.1
	done
	# Its job file (not an array's map, nor the .rc of an ended job).
	e=$(ls camp/run/jobs | grep -v -e '^@' -e '\.rc$')
	[ -n "$e" ]
	for _ in $(seq 100); do
		[ "$(slurm_jobs)" = "ar-$e|RUNNING|$HOST" ] && break
		sleep 0.1
	done
	# The whole loop dies, ar-run with it; the job runs on.
	kill -KILL -- "-$pid"
	wait "$pid" || true
	[ "$(slurm_jobs)" = "ar-$e|RUNNING|$HOST" ]
	# Its runner's lease expires.
	sleep 4
	[ "$(rows)" -eq 0 ]
	run --separate-stderr -0 ar-loop "${S[@]}" "${LB[@]}"
	echo "$stderr"
	[[ $stderr == *"$e: adopted job "* ]]
	[[ $stderr == *"budget spent: experiments 1 of 1"* ]]
	# One job, one result.
	[ "$(slurm_jobs)" = "ar-$e|COMPLETED|$HOST" ]
	[ "$(experiments)" = "$e" ]
	ar-ledger verify -C camp
	[ "$(ar-queue ls -s done camp/queue | tail -n +2 | wc -l)" -eq 1 ]
	for st in new cur failed; do
		[ "$(ar-queue ls -s $st camp/queue | tail -n +2 | wc -l)" -eq 0 ]
	done
	[ -z "$(ls camp/run/jobs)" ]
	[ -s camp/loop/digest.md ]
}

@test "ar-loop: command line" {
	run -0 ar-loop -h
	[ "$output" = "$USAGE" ]
	run -0 ar-loop --version
	[ "$output" = "ar-loop $VERSION" ]
	run -64 ar-loop -x
	run -64 ar-loop -C camp -a many
	run -64 ar-loop -C camp --wall-hours soon
	run -64 ar-loop -C camp --cpus --gpus 2
	run -64 ar-loop -C camp --backend k8s
	run -64 ar-loop -C camp extra
	run -64 ar-loop
	run -66 ar-loop -C nowhere
	run -66 ar-loop -C camp -g missing.tsv
}
