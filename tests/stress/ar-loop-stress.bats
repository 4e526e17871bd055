#!/usr/bin/env bats
# ar-loop-stress: the loop killed and on a real Slurm, the stress tests of
# `make check-stress`. Kill -9 of the whole loop (or of the loop alone,
# its agents and ar-run orphaned) at random instants, then a restart: no
# idea lost, no experiment run twice, no idea submitted twice, the ledger
# verifies. Then --backend slurm on a real single-node Slurm
# (tests/slurm-up; skipped, saying why, where it cannot run): a whole
# campaign as Slurm jobs; the loop killed -9 while a job measures, then
# restarted after its lease expired: the job is adopted, not run again.
# The rest of ar-loop's tests are in tests/ar-loop.bats.

bats_require_minimum_version 1.5.0
load ../common

setup_file() {
	ar_bench_setup_file
	slurm_start
}

teardown_file() {
	slurm_stop
}

setup() {
	ar_loop_setup
}

teardown() {
	ar_teardown
}

# group_gone PGID: no process of the group is left (for poll).
group_gone() {
	! pgrep -g "$1" > /dev/null
}

# job_file: ar-run wrote the job file of an experiment (for poll).
job_file() {
	[ -n "$(ls camp/run/jobs 2>/dev/null | grep -v -e '^@' -e '\.rc$')" ]
}

# job_is LINE: this test's Slurm jobs are LINE (for poll).
job_is() {
	[ "$(slurm_jobs)" = "$1" ]
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
		poll group_gone "$g"
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

# none_left DIR SLOW: no process whose command line names DIR (the loop's
# agents, their sandboxes, ar-run, ar-bench) and no agent's "sleep SLOW"
# runs (for poll).
none_left() {
	! pgrep -f -- "$1" > /dev/null && ! pgrep -fx "sleep $2" > /dev/null
}

@test "ar-loop: SIGTERM at random instants (starting agents, sandboxes, measurements): nothing of the loop's is left running, no lock, no idea held" {
	# Agents at work for a day: only the signal stops them.
	slow=$((200000 + RANDOM))
	export AR_AGENT=$FIXTURES/agent/slow SLOW=$slow
	for i in $(seq 1 12); do
		ar-loop "${L[@]}" -a 3 "${B[@]}" 2>> loop.err &
		pid=$!
		sleep "$(awk -v s="$RANDOM" 'BEGIN { srand(s); printf "%.2f", 0.05 + rand() * 3 }')"
		kill -TERM "$pid"
		rc=0
		wait "$pid" || rc=$?
		[ "$rc" -eq 143 ]
		poll none_left "$PWD/camp" "$slow"
		[ ! -e camp/loop/lock ]
		[ "$(ar-queue ls -s cur camp/ideas | tail -n +2 | wc -l)" -eq 0 ]
	done
}

# ---- --backend slurm, on a real single-node cluster (tests/slurm-up) ----

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
	# Its job file (not an array's map, nor the .rc of an ended job).
	poll job_file
	e=$(ls camp/run/jobs | grep -v -e '^@' -e '\.rc$')
	[ -n "$e" ]
	poll job_is "ar-$e|RUNNING|$HOST"
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
