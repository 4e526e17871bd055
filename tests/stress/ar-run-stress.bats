#!/usr/bin/env bats
# ar-run-stress: ar-run under load and on a real Slurm, the stress tests
# of `make check-stress`. Local backend with the fake ar-bench of
# fixtures/run: 48 assignments of mixed k run by 4 concurrent ar-run
# processes with no GPU ever held twice at once; 2 concurrent ar-run
# killed -9 at random instants, 6 times, with every experiment ending
# exactly once. Then a real single-node Slurm (tests/slurm-up; these
# tests fail, saying why, where it cannot start): submit, run, collect; a
# job killed or cancelled mid-run; a job past its time limit; ar-run
# killed -9 mid-flight; the same for job arrays. The rest of ar-run's
# tests are in tests/ar-run.bats.

bats_require_minimum_version 1.5.0
load ../common

setup_file() {
	slurm_start --required
}

teardown_file() {
	slurm_stop
}

setup() {
	ar_run_setup
}

teardown() {
	ar_run_teardown
}

# ---- the local backend, under load ----

@test "48 assignments of mixed k, 4 concurrent ar-run: no GPU held twice at once" {
	mkcamp
	assign 48 "1 2 1 4 8 2 1 1" > a.tsv
	ar-queue put camp/queue < a.tsv > /dev/null
	for w in 1 2 3 4; do
		FAKE_SLEEP=0.1 ar-run local -C camp --gpus 8 -H w$w --drain > out$w 2> err$w &
		pids="$pids $!"
	done
	for p in $pids; do wait $p; done
	cat out1 out2 out3 out4 | grep -v '^experiment' > all
	[ "$(wc -l < all)" -eq 48 ]
	[ "$(cut -f 1 all | sort -u | wc -l)" -eq 48 ]
	[ "$(col status < <(echo "$OUTHDR"; cat all) | sort -u)" = done ]
	[ "$(grep -c '^start' camp/fake.log)" -eq 48 ]
	[ "$(grep -c '^end' camp/fake.log)" -eq 48 ]
	no_overlap camp/fake.log
	# Several workers took part (any one may take all 8 GPUs at a time).
	n=0
	for w in 1 2 3 4; do [ "$(wc -l < out$w)" -ge 2 ] && n=$((n + 1)); done
	[ "$n" -ge 2 ]
	[ "$(ar-ledger export -C camp -f jsonl | jq -r .experiment | sort | uniq -d)" = "" ]
	[ "$(ar-ledger export -C camp -f jsonl | wc -l)" -eq 48 ]
	empty camp/run/gpus camp/run/pid camp/queue/new camp/queue/cur
}

@test "kill -9 of 2 concurrent ar-run at random instants, 6 times: nothing lost or run twice" {
	mkcamp
	assign 24 "1 2 4 1" > a.tsv
	ar-queue put camp/queue < a.tsv > /dev/null
	for round in 1 2 3 4 5 6; do
		FAKE_SLEEP=0.3 ar-run local -C camp --gpus 8 -H a --drain >> outa 2>> err &
		a=$!
		FAKE_SLEEP=0.3 ar-run local -C camp --gpus 8 -H b --drain >> outb 2>> err &
		b=$!
		sleep "0.$((RANDOM % 6 + 1))"
		kill -KILL $a $b 2>/dev/null || true
		wait $a $b || true
	done
	run -0 --separate-stderr ar-run local -C camp --gpus 8 --drain
	[ "$(ar-queue ls -s done camp/queue | tail -n +2 | wc -l)" -eq 24 ]
	for i in $(seq -w 1 24); do
		c=$(ledger_count e0$i)
		[ "$c" -eq 1 ] || { echo "e0$i: $c results"; false; }
	done
	empty camp/run/gpus camp/run/pid camp/queue/new camp/queue/cur
	! pgrep -f "fake-bench .*-C $CAMP" > /dev/null
}

# ---- the Slurm backend, on a real single-node cluster (tests/slurm-up) ----

# jobs_named EXP: how many jobs Slurm knows named ar-EXP, of this test
# (submitted from its directory).
jobs_named() {
	squeue -h -t all -n "ar-$1" -o '%i|%Z' | grep -c "|$T\$" || true
}

@test "slurm: submits, runs and collects; GPUs from the job's IDX; crash recorded" {
	slurm_ready
	mkcamp
	{ assign 6 "1 2 4 8"; assignment s1 crash 1; } > a.tsv
	# A record whose spool id is not its experiment, as ar-queue put
	# makes it.
	one q1 ok 2 | ar-queue put camp/queue > /dev/null
	run -0 --separate-stderr ar-run slurm -C camp --no-array --drain -i a.tsv
	echo "$output"
	[ "${lines[0]}" = "$OUTHDR" ]
	[ "${#lines[@]}" -eq 9 ]
	[ "$(awk -F '\t' '$1 == "q1" { print $6 }' <<< "$output")" = done ]
	[ "$(awk -F '\t' '$1 == "s1" { print $6 }' <<< "$output")" = crash ]
	[ "$(awk -F '\t' '$1 != "s1" && NR > 1 { print $6 }' <<< "$output" | sort -u)" = done ]
	[ "$(col node <<< "$output" | sort -u)" = "$(hostname -s)" ]
	# Each job's ar-bench got its k GPUs, as Slurm gave them, in -G and
	# CUDA_VISIBLE_DEVICES; jobs side by side never shared one.
	while read -r ev e k m g G rest; do
		[ "${g#gpus=}" = "${G#G=}" ]
		[ "k=$(tr ',' '\n' <<< "${g#gpus=}" | wc -l)" = "$k" ]
	done < <(grep '^start' camp/fake.log)
	no_overlap camp/fake.log
	[ "$(ar-queue ls -s failed camp/queue | col why)" = "crash: job $(squeue -h -t all -n ar-s1 -o %i): FAILED: ar-bench killed by signal 11 (Segmentation fault)" ]
	for i in 1 2 3 4 5 6; do
		[ "$(ledger_count e00$i)" -eq 1 ]
		[ "$(jobs_named e00$i)" -eq 1 ]
	done
	empty camp/queue/new camp/queue/cur camp/run/pid camp/run/jobs
}

@test "slurm: a job's ar-bench killed mid-run is a crash; a cancelled job is requeued, then failed past -r" {
	slurm_ready
	mkcamp
	{ echo "$HDR"; assignment k1 hang 1; assignment c1 hang 1; } > a.tsv
	ar-run slurm -C camp --no-array -r 1 --drain -i a.tsv > out 2> err &
	pid=$!
	wait_count 2 '^start' camp/fake.log
	# k1: its bench process dies by SIGKILL inside the job.
	pkill -KILL -f "fake-bench .*-x k1( |\$)"
	# c1: cancelled twice; the second time is past -r 1.
	scancel "$(cat camp/run/jobs/c1)"
	wait_count 2 '^start c1' camp/fake.log
	[ "$(cat camp/run/tries/c1)" = 1 ]
	scancel "$(cat camp/run/jobs/c1)"
	st=0
	wait $pid || st=$?
	cat out err
	# A record failed: exit 1.
	[ "$st" -eq 1 ]
	[ "$(awk -F '\t' '$1 == "k1" { print $6 }' out)" = crash ]
	[ "$(awk -F '\t' '$1 == "c1" { print $6 }' out)" = failed ]
	ar-queue ls -s failed camp/queue > f.tsv
	[[ "$(awk -F '\t' '$2 == "k1" { print $6 }' f.tsv)" == "crash: job "*": FAILED: ar-bench killed by signal 9 (Killed)" ]]
	[[ "$(awk -F '\t' '$2 == "c1" { print $6 }' f.tsv)" == "failed: job "*": CANCELLED, 2 times" ]]
	[ "$(jobs_named c1)" -eq 2 ]
	[ "$(jobs_named k1)" -eq 1 ]
}

@test "slurm: ar-run killed -9 mid-flight, then restarted, adopts the jobs; none lost or submitted twice" {
	slurm_ready
	mkcamp
	assign 6 "1 2 4" > a.tsv
	FAKE_SLEEP=1 ar-run slurm -C camp --no-array --drain -i a.tsv > out1 2> err1 &
	pid=$!
	poll sh -c '[ "$(ls camp/run/jobs | wc -l)" -ge 6 ]'
	kill -KILL $pid
	wait $pid || true
	FAKE_SLEEP=1 run -0 --separate-stderr ar-run slurm -C camp --drain
	echo "$output"
	echo "$stderr"
	[ "$(grep -c 'adopted job' <<< "$stderr")" -ge 1 ]
	for i in 1 2 3 4 5 6; do
		[ "$(ledger_count e00$i)" -eq 1 ]
		[ "$(jobs_named e00$i)" -eq 1 ]
	done
	[ "$(ar-queue ls -s done camp/queue | tail -n +2 | wc -l)" -eq 6 ]
	empty camp/queue/new camp/queue/cur camp/run/pid camp/run/jobs
}

# sbatch_die: ./sbatch-die, an sbatch that submits, then kills its caller
# before it can record the job id.
sbatch_die() {
	cat > sbatch-die <<'SH'
#!/bin/sh
sbatch "$@"
kill -KILL $PPID
SH
	chmod +x sbatch-die
}

@test "slurm: ar-run killed between sbatch and writing the job id finds the job by name" {
	slurm_ready
	mkcamp
	sbatch_die
	one n1 ok 2 > a.tsv
	SBATCH=$T/sbatch-die run ar-run slurm -C camp --drain -i a.tsv
	[ "$status" -eq 137 ]
	[ ! -f camp/run/jobs/n1 ]
	[ "$(jobs_named n1)" -eq 1 ]
	run -0 --separate-stderr ar-run slurm -C camp --drain
	[[ "$stderr" == *"n1: adopted job "* ]]
	[ "$(awk -F '\t' '$1 == "n1" { print $6 }' <<< "$output")" = done ]
	[ "$(jobs_named n1)" -eq 1 ]
	[ "$(ledger_count n1)" -eq 1 ]
}

@test "slurm: a record reaped back to new/ while its job runs is adopted, not submitted again" {
	slurm_ready
	mkcamp
	one n1 ok 2 > a.tsv
	FAKE_SLEEP=8 ar-run slurm -C camp --no-array --drain -l 3 -i a.tsv > out1 2> err1 &
	pid=$!
	poll test -f camp/run/jobs/n1
	[ -f camp/run/jobs/n1 ]
	kill -KILL $pid
	wait $pid || true
	# The lease expires; a reap by hand puts the record back in new/.
	sleep 3.5
	ar-queue reap camp/queue
	[ "$(ar-queue ls -s new camp/queue | tail -n +2 | wc -l)" -eq 1 ]
	FAKE_SLEEP=8 run -0 --separate-stderr ar-run slurm -C camp --drain
	echo "$stderr"
	[[ "$stderr" == *"n1: adopted job "* ]]
	[ "$(jobs_named n1)" -eq 1 ]
	[ "$(ledger_count n1)" -eq 1 ]
	[ "$(awk -F '\t' '$1 == "n1" { print $6 }' <<< "$output")" = done ]
}

@test "slurm: TIMEOUT is a timeout, NODE_FAIL a crash, PREEMPTED past -r a failure" {
	slurm_ready
	mkcamp
	# An squeue that reports the states listed in ./override
	# ("JOBID STATE" lines) instead of Slurm's: these states cannot be
	# made to order on a test cluster in seconds.
	cat > squeue-override <<SH
#!/bin/sh
squeue "\$@" | while IFS='|' read -r id st rest; do
	o=\$(awk -v j="\$id" '\$1 == j { print \$2 }' "$T/override" 2>/dev/null)
	printf '%s|%s|%s\n' "\$id" "\${o:-\$st}" "\$rest"
done
SH
	chmod +x squeue-override
	{ echo "$HDR"; assignment t1 hang 1; assignment n1 hang 1; assignment p1 hang 1; } > a.tsv
	SQUEUE=$T/squeue-override ar-run slurm -C camp --no-array -r 0 --drain -i a.tsv > out 2> err &
	pid=$!
	wait_count 3 '^start' camp/fake.log
	# ar-run status shows the three jobs.
	run -0 ar-run status -C camp
	[ "$(col state <<< "$output" | sort -u)" = submitted ]
	[ "$(col job <<< "$output" | sort | tr '\n' ' ')" = "$(cat camp/run/jobs/n1 camp/run/jobs/p1 camp/run/jobs/t1 | sort | tr '\n' ' ')" ]
	jt=$(cat camp/run/jobs/t1) jn=$(cat camp/run/jobs/n1) jp=$(cat camp/run/jobs/p1)
	printf '%s TIMEOUT\n%s NODE_FAIL\n%s PREEMPTED\n' $jt $jn $jp | replace override
	st=0
	wait $pid || st=$?
	scancel $jt $jn $jp
	cat out err
	[ "$st" -eq 1 ]
	ar-queue ls -s failed camp/queue > f.tsv
	why() { awk -F '\t' -v e="$1" '$2 == e { print $6 }' f.tsv; }
	[ "$(awk -F '\t' '$1 == "t1" { print $6 }' out)" = timeout ]
	[ "$(why t1)" = "timeout: job $jt: TIMEOUT" ]
	[ "$(awk -F '\t' '$1 == "n1" { print $6 }' out)" = crash ]
	[ "$(why n1)" = "crash: job $jn: NODE_FAIL before ar-bench ended" ]
	[ "$(awk -F '\t' '$1 == "p1" { print $6 }' out)" = failed ]
	[ "$(why p1)" = "failed: job $jp: PREEMPTED, 1 time" ]
}

@test "slurm: a job past its time limit (-t) is killed by Slurm itself and recorded as a timeout" {
	slurm_ready
	mkcamp
	# Slurm counts limits in whole minutes and checks them every 30 s
	# or so: this test takes 60 to 100 s.
	one t2 hang 1 > a.tsv
	# A timeout is an experiment that went through: exit 0.
	run -0 --separate-stderr ar-run slurm -C camp --no-array -r 0 -t 5 --drain -i a.tsv
	[ "$(awk -F '\t' '$1 == "t2" { print $6 }' <<< "$output")" = timeout ]
	ar-queue ls -s failed camp/queue | grep -q 'timeout: job [0-9]*: TIMEOUT'
	# Slurm ended it: its ar-bench started, and is gone.
	grep -q '^start t2 ' camp/fake.log
	! pgrep -f "fake-bench .*-x t2 " > /dev/null
}

# ---- Slurm job arrays, on the real cluster ----

# arrays_here: the Slurm arrays of this test (their ids), one a line.
arrays_here() {
	squeue -h -t all -o '%i|%j|%Z' | awk -F '|' -v t="$T" '$3 == t && $2 ~ /^ar-@/ { sub(/_.*/, "", $1); print $1 }' | sort -u
}

@test "slurm arrays: same-k assignments go out as one array; each task's result lands once" {
	slurm_ready
	mkcamp
	{ assign 7 "1 2"; assignment l1 ok 4; } > a.tsv
	run -0 --separate-stderr ar-run slurm -C camp --drain -i a.tsv
	echo "$output"
	[ "${#lines[@]}" -eq 9 ]
	[ "$(col status <<< "$output" | sort -u)" = done ]
	[ "$(col node <<< "$output" | sort -u)" = "$(hostname -s)" ]
	# Two arrays (k = 1 and k = 2) and one plain job for the lone k = 4.
	[ "$(arrays_here | wc -l)" -eq 2 ]
	[ "$(squeue -h -t all -o '%i|%j|%Z' | grep -c "|ar-@.*|$T\$")" -eq 7 ]
	[ "$(jobs_named l1)" -eq 1 ]
	while read -r ev e k m g G rest; do
		[ "${g#gpus=}" = "${G#G=}" ]
		[ "k=$(tr ',' '\n' <<< "${g#gpus=}" | wc -l)" = "$k" ]
	done < <(grep '^start' camp/fake.log)
	no_overlap camp/fake.log
	for e in e001 e002 e003 e004 e005 e006 e007 l1; do
		[ "$(ledger_count $e)" -eq 1 ]
		[ "$(grep -c "^start $e " camp/fake.log)" -eq 1 ]
		# Each task wrote its own experiment's log.
		grep -q "\"experiment\":\"$e\"" camp/log/$e.out
	done
	empty camp/queue/new camp/queue/cur camp/run/pid camp/run/jobs
}

@test "slurm arrays: a task killed mid-run is a crash, the others finish; a cancelled task is requeued, then failed past -r" {
	slurm_ready
	mkcamp
	{ echo "$HDR"; assignment k1 hang 1; assignment c1 hang 1; assignment o1 ok 1; assignment o2 ok 1; } > a.tsv
	ar-run slurm -C camp -r 1 --drain -i a.tsv > out 2> err &
	pid=$!
	wait_count 1 '^start k1' camp/fake.log
	wait_count 1 '^start c1' camp/fake.log
	[ "$(arrays_here | wc -l)" -eq 1 ]
	pkill -KILL -f "fake-bench .*-x k1( |\$)"
	j1=$(cut -f1 camp/run/jobs/c1)
	[[ "$j1" == *_1 ]]
	scancel "$j1"
	wait_count 2 '^start c1' camp/fake.log
	[ "$(cat camp/run/tries/c1)" = 1 ]
	scancel "$(cut -f1 camp/run/jobs/c1)"
	st=0
	wait $pid || st=$?
	cat out err
	[ "$st" -eq 1 ]
	[ "$(awk -F '\t' '$1 == "k1" { print $6 }' out)" = crash ]
	[ "$(awk -F '\t' '$1 == "c1" { print $6 }' out)" = failed ]
	[ "$(awk -F '\t' '$1 ~ /^o/ { print $6 }' out | tr '\n' ' ')" = "done done " ]
	ar-queue ls -s failed camp/queue > f.tsv
	[[ "$(awk -F '\t' '$2 == "k1" { print $6 }' f.tsv)" == "crash: job "*"_0: FAILED: ar-bench killed by signal 9 (Killed)" ]]
	[[ "$(awk -F '\t' '$2 == "c1" { print $6 }' f.tsv)" == "failed: job "*": CANCELLED, 2 times" ]]
	for e in o1 o2; do
		[ "$(ledger_count $e)" -eq 1 ]
	done
	empty camp/queue/new camp/queue/cur camp/run/pid camp/run/jobs
}

@test "slurm arrays: ar-run killed -9 mid-array, then restarted, adopts the tasks; none lost or run twice" {
	slurm_ready
	mkcamp
	assign 6 "1 2" > a.tsv
	FAKE_SLEEP=1 ar-run slurm -C camp --drain -i a.tsv > out1 2> err1 &
	pid=$!
	jobfiles 6
	kill -KILL $pid
	wait $pid || true
	FAKE_SLEEP=1 run -0 --separate-stderr ar-run slurm -C camp --drain
	echo "$output"
	echo "$stderr"
	[ "$(grep -c 'adopted job [0-9]*_[0-9]' <<< "$stderr")" -ge 1 ]
	for i in 1 2 3 4 5 6; do
		[ "$(ledger_count e00$i)" -eq 1 ]
		[ "$(grep -c "^start e00$i " camp/fake.log)" -eq 1 ]
	done
	[ "$(arrays_here | wc -l)" -eq 2 ]
	[ "$(ar-queue ls -s done camp/queue | tail -n +2 | wc -l)" -eq 6 ]
	empty camp/queue/new camp/queue/cur camp/run/pid camp/run/jobs
}

@test "slurm arrays: ar-run killed between sbatch and writing the task ids finds the array through its map" {
	slurm_ready
	mkcamp
	sbatch_die
	{ echo "$HDR"; assignment n1 ok 2; assignment n2 ok 2; } > a.tsv
	SBATCH=$T/sbatch-die run ar-run slurm -C camp --drain -i a.tsv
	[ "$status" -eq 137 ]
	[ ! -f camp/run/jobs/n1 ]
	[ "$(ls camp/run/jobs | grep -c '^@')" -eq 1 ]
	run -0 --separate-stderr ar-run slurm -C camp --drain
	echo "$output"
	echo "$stderr"
	[[ "$stderr" == *"n1: adopted job "*"_0"* ]]
	[[ "$stderr" == *"n2: adopted job "*"_1"* ]]
	[ "$(col status <<< "$output" | sort -u)" = done ]
	[ "$(arrays_here | wc -l)" -eq 1 ]
	for e in n1 n2; do
		[ "$(ledger_count $e)" -eq 1 ]
		[ "$(grep -c "^start $e " camp/fake.log)" -eq 1 ]
	done
	empty camp/queue/new camp/queue/cur camp/run/pid camp/run/jobs
}
