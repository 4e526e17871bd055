#!/usr/bin/env bats
# ar-run: the dispatcher. Local backend with a fake ar-bench
# (fixtures/run/fake-bench, which logs what it was given and when):
# assignments from stdin and from queue/, GPUs from --gpus, -g and the
# record, CPU affinity on --cpus, the output lines, crash, exit codes,
# timeout, SIGTERM, status; kill -9 of ar-run mid-run and mid-result then
# a restart, with every experiment ending exactly once; bad input; the
# real ar-bench on int8-matvec's tiny workload; squeue's array task ids
# with a fake Slurm. Concurrent ar-run processes, kills at random
# instants and everything on a real Slurm cluster are stress tests
# (tests/stress/ar-run-stress.bats).

bats_require_minimum_version 1.5.0
load common

setup() {
	ar_run_setup
}

teardown() {
	ar_run_teardown
}

# ---- command line ----

@test "-h prints the synopsis; --version the version" {
	run -0 ar-run -h
	[ "${lines[0]}" = "usage: ar-run local [-qv] [-C campaign] [-g topology | --gpus n | --cpus] [-H holder] [-i assignments] [-j max-parallel] [-l lease-seconds] [-r requeue-limit] [-t time-limit] [--drain | --once] [-- ar-bench-args ...]" ]
	[ "${lines[3]}" = "       ar-run status [-C campaign]" ]
	run -0 ar-run --version
	[ "$output" = "ar-run $VERSION" ]
	run -0 ar-run local -h
	[[ "${lines[0]}" == "usage: ar-run local "* ]]
}

@test "bad command lines exit 64 with one line" {
	mkcamp
	run -64 --separate-stderr ar-run
	run -64 --separate-stderr ar-run frobnicate
	[ "$stderr" = "ar-run: frobnicate: unknown subcommand (local, slurm, job or status)" ]
	run -64 --separate-stderr ar-run local -C camp -Z
	[[ "${stderr_lines[0]}" == *"invalid option -- 'Z'" ]]
	run -64 --separate-stderr ar-run local -C camp -j 0
	[ "$stderr" = "ar-run: -j 0: expected an integer from 1 to 100000" ]
	run -64 --separate-stderr ar-run local -C camp --gpus 2 --cpus
	[ "$stderr" = "ar-run: -g, --gpus and --cpus: one at most" ]
	run -64 --separate-stderr ar-run local -C camp --drain --once
	[ "$stderr" = "ar-run: --drain and --once: one at most" ]
	run -64 --separate-stderr ar-run local -C camp stray
	run -64 --separate-stderr ar-run local -C camp -H 'a b'
	[[ "$stderr" == "ar-run: holder 'a b': expected"* ]]
	run -64 --separate-stderr ar-run slurm -C camp --gpus 2
	run -64 --separate-stderr ar-run status -C camp --drain
}

@test "a missing campaign or queue exits 66 with one line" {
	run -66 --separate-stderr ar-run local -C nowhere --gpus 1 --drain
	[ "$stderr" = "ar-run: nowhere: No such file or directory" ]
	mkdir notcamp
	run -66 --separate-stderr ar-run local -C notcamp --gpus 1 --drain
	[ "$stderr" = "ar-run: notcamp: not a campaign (no campaign.conf)" ]
	mkcamp
	rm -r camp/queue
	run -66 --separate-stderr ar-run local -C camp --gpus 1 --drain
	[ "$stderr" = "ar-run: camp/queue: not a spool (ar-queue init makes one)" ]
	run -66 --separate-stderr ar-run status -C nowhere
}

@test "an ar-bench that is not there exits 69 with one line" {
	mkcamp
	AR_BENCH=$T/nothing run -69 --separate-stderr ar-run local -C camp --gpus 1 --drain
	[ "$stderr" = "ar-run: $T/nothing: not found or not executable (AR_BENCH names the benchmark)" ]
}

@test "ar-run slurm without sbatch exits 69 with one line" {
	mkcamp
	SBATCH=$T/nothing run -69 --separate-stderr ar-run slurm -C camp --drain
	[ "$stderr" = "ar-run: $T/nothing: not found (install Slurm, or SBATCH names it)" ]
}

@test "malformed assignments exit 65 with one line, and nothing is stored" {
	mkcamp
	{ assign 2; assignment e9 ok four; } > bad.tsv
	run -65 --separate-stderr ar-run local -C camp --gpus 2 --drain -i - < bad.tsv
	[ "$stderr" = "ar-run: <stdin>: line 4: k: expected an integer from 1 to 1024" ]
	empty camp/queue/new
	printf 'experiment\tmethod\nx\tok\n' > nok.tsv
	run -65 --separate-stderr ar-run local -C camp --gpus 2 --drain -i nok.tsv
	[ "$stderr" = "ar-run: nok.tsv: no column k" ]
	# A pipe whose producer failed: not even a header. Said, exit 65;
	# a header alone is no assignments.
	run -65 --separate-stderr ar-run local -C camp --gpus 2 --drain -i - < /dev/null
	[ "$stderr" = "ar-run: <stdin>: empty: no header (did the command before it fail?)" ]
	assign 2 | head -n 1 > hdr.tsv
	run -0 --separate-stderr ar-run local -C camp --gpus 2 --drain -i hdr.tsv
	one ../x ok 1 > badid.tsv
	run -65 --separate-stderr ar-run local -C camp --gpus 2 --drain -i badid.tsv
	[[ "$stderr" == "ar-run: badid.tsv: line 2: experiment: expected"* ]]
	{ assign 1; assign 1 | tail -n 1; } > twice.tsv
	run -65 --separate-stderr ar-run local -C camp --gpus 2 --drain -i twice.tsv
	[ "$stderr" = "ar-run: twice.tsv: line 3: experiment e001 given twice; nothing stored" ]
	one e1 ok 2 0,0 > badg.tsv
	run -65 --separate-stderr ar-run local -C camp --gpus 2 --drain -i badg.tsv
	[ "$stderr" = "ar-run: badg.tsv: line 2: gpus: expected 2 distinct indices, comma-separated" ]
	one e1 "" 1 > nom.tsv
	run -65 --separate-stderr ar-run local -C camp --gpus 2 --drain -i nom.tsv
	[ "$stderr" = "ar-run: nom.tsv: line 2: method: missing" ]
	{ echo "$HDR	min_pairs	max_pairs	stop_at"; printf 'e1\tok\ttiny\t1\t\t\tprobe\t\t\t1\tw\t9\t8\t\n'; } > size.tsv
	run -65 --separate-stderr ar-run local -C camp --gpus 2 --drain -i size.tsv
	[ "$stderr" = "ar-run: size.tsv: line 2: min_pairs, max_pairs: expected whole numbers, 1 <= min_pairs <= max_pairs <= 1000000" ]
	{ echo "$HDR	min_pairs	max_pairs	stop_at"; printf 'e1\tok\ttiny\t1\t\t\tprobe\t\t\t1\tw\t\t\t-1\n'; } > stop.tsv
	run -65 --separate-stderr ar-run local -C camp --gpus 2 --drain -i stop.tsv
	[ "$stderr" = "ar-run: stop.tsv: line 2: stop_at: expected a number from 1e-06 to 1e+06" ]
	empty camp/queue/new
	[ -z "$(cat camp/fake.log 2>/dev/null)" ]
}

# ---- the local backend ----

@test "assignments on stdin run on their GPUs; one line each; all done" {
	mkcamp
	assign 6 "1 2 4" > a.tsv
	run -0 --separate-stderr ar-run local -C camp --gpus 8 --drain -i - < a.tsv
	[ "${lines[0]}" = "$OUTHDR" ]
	[ "${#lines[@]}" -eq 7 ]
	[ "$(col status <<< "$output" | sort -u)" = done ]
	[ "$(col verdict <<< "$output" | sort -u)" = keep ]
	[ "$(col node <<< "$output" | sort -u)" = local ]
	# The result id is the ledger's, for the experiment.
	id=$(awk -F '\t' '$1 == "e003" { print $8 }' <<< "$output")
	[ "$(ar-ledger export -C camp -f jsonl | jq -r "select(.experiment == \"e003\") | .id")" = "$id" ]
	# Each run got -G and CUDA_VISIBLE_DEVICES equal to its bundle, of
	# its k.
	while read -r ev e k m g G rest; do
		[ "${g#gpus=}" = "${G#G=}" ]
		n=$(tr ',' '\n' <<< "${g#gpus=}" | wc -l)
		[ "k=$n" = "$k" ]
		awk -F '\t' -v e="$e" -v g="${g#gpus=}" '$1 == e && $4 == g { f = 1 } END { exit !f }' <<< "$output"
	done < <(grep '^start' camp/fake.log)
	[ "$(ar-queue ls -s done camp/queue | tail -n +2 | wc -l)" -eq 6 ]
	empty camp/run/gpus camp/run/pid
	for i in 1 2 3 4 5 6; do [ "$(ledger_count e00$i)" -eq 1 ]; done
	# Logs of each run in log/.
	[ -s camp/log/e001.out ]
	[ -f camp/log/e001.err ]
}

@test "records that ar-sched put in queue/ run; a record's own GPUs are used" {
	mkcamp
	{ echo "$HDR"; printf 'g1\tok\ttiny\t2\t4,5\t\tscale\tidea-1\t\t2\tw\n'; printf 'g2\tok\ttiny\t1\t7\t\tprobe\t\t\t1\tw\n'; } |
	    ar-queue put camp/queue > /dev/null
	run -0 --separate-stderr ar-run local -C camp --gpus 8 --once
	[ "$(awk -F '\t' '$1 == "g1" { print $4 }' <<< "$output")" = 4,5 ]
	[ "$(awk -F '\t' '$1 == "g2" { print $4 }' <<< "$output")" = 7 ]
	grep -q '^start g1 k=2 method=ok gpus=4,5 ' camp/fake.log
}

@test "an assignment already queued is not queued twice by -i" {
	mkcamp
	assign 2 > a.tsv
	ar-queue put camp/queue < a.tsv > /dev/null
	run -0 --separate-stderr ar-run local -C camp --gpus 2 --drain -i a.tsv
	[ "${#lines[@]}" -eq 3 ]
	[ "$(ar-queue ls camp/queue | tail -n +2 | wc -l)" -eq 2 ]
}

@test "a topology file gives the GPUs; k beyond it fails the record (exit 1)" {
	mkcamp
	printf 'node\tgpu\tmodel\tmemory_mib\tnvlink\n' > topo.tsv
	for g in 0 1 2 3; do printf 'other\t%d\tH100\t81559\t\n' $g >> topo.tsv; done
	{ assign 3 "1 4"; assignment big ok 8; } > a.tsv
	run -1 --separate-stderr ar-run local -C camp -g topo.tsv --drain -i a.tsv
	[ "$(awk -F '\t' '$1 == "big" { print $6 }' <<< "$output")" = failed ]
	[ "$(ar-queue ls -s failed camp/queue | col why)" = "failed: k=8: the inventory has 4 GPUs" ]
	[ "$(col status <<< "$output" | grep -c done)" -eq 3 ]
}

@test "--cpus: each run is pinned to its own CPUs; no CPU is shared at once" {
	mkcamp
	ncpu=$(nproc)
	assign 6 1 > a.tsv
	FAKE_SLEEP=0.3 run -0 --separate-stderr ar-run local -C camp --cpus --drain -i a.tsv
	[ "$(col status <<< "$output" | sort -u)" = done ]
	# No -G and no CUDA_VISIBLE_DEVICES on the CPU path.
	not grep -q 'G=[0-9]' camp/fake.log
	not grep -q 'gpus=[0-9]' camp/fake.log
	grep '^start' camp/fake.log | while read -r ev e k m g G c t; do
		[[ "${c#cpus=}" =~ ^[0-9]+$ ]]
	done
	no_overlap camp/fake.log cpus
	[ "$(grep -c '^start' camp/fake.log)" -eq 6 ]
	# Twice the machine's CPUs does not fit.
	one wide ok $((2 * ncpu)) > w.tsv
	run -1 --separate-stderr ar-run local -C camp --cpus --drain -i w.tsv
	[ "$(col status <<< "$output")" = failed ]
}

@test "crash, exit codes and timeout are recorded in failed/ with why" {
	mkcamp
	{
		one c1 crash 1 | head -n 2
		one c2 exit70 1 | tail -n 1
		one c3 exit66 1 | tail -n 1
		one h1 hang 1 | tail -n 1
		one ok1 ok 1 | tail -n 1
	} > a.tsv
	run -1 --separate-stderr ar-run local -C camp --gpus 8 -t 1 --drain -i a.tsv
	st() { awk -F '\t' -v e="$1" '$1 == e { print $6 }' <<< "$output"; }
	[ "$(st c1)" = crash ]
	[ "$(st c2)" = crash ]
	[ "$(st c3)" = failed ]
	[ "$(st h1)" = timeout ]
	[ "$(st ok1)" = done ]
	ar-queue ls -s failed camp/queue > f.tsv
	why() { awk -F '\t' -v e="$1" '$2 == e { print $6 }' f.tsv; }
	[ "$(why c1)" = "crash: ar-bench killed by signal 11 (Segmentation fault)" ]
	[ "$(why c2)" = "crash: ar-bench exited 70: fake-bench: exiting 70" ]
	[ "$(why c3)" = "failed: ar-bench exited 66: fake-bench: exiting 66" ]
	[ "$(why h1)" = "timeout: killed at the time limit of 1 s" ]
	# The hung run and its sleep are gone; nothing is booked.
	not pgrep -f "fake-bench .*-x h1" > /dev/null
	empty camp/run/gpus camp/run/pid
	[ "$(ar-queue ls -s done camp/queue | tail -n +2 | wc -l)" -eq 1 ]
}

@test "SIGTERM stops the runs, releases the claims and exits 75" {
	mkcamp
	assign 3 1 > a.tsv
	FAKE_SLEEP=30 ar-run local -C camp --gpus 8 -i a.tsv > out 2> err &
	pid=$!
	wait_count 3 '^start' camp/fake.log
	run -0 ar-run status -C camp
	[ "${lines[0]}" = "experiment	backend	gpus	holder	host	pid	child	job	started	expires	state" ]
	[ "$(col state <<< "$output" | sort -u)" = running ]
	[ "$(col pid <<< "$output" | sort -u)" = "$pid" ]
	kill -TERM $pid
	st=0
	wait $pid || st=$?
	[ "$st" -eq 75 ]
	[ "$(cat out)" = "$OUTHDR" ]
	grep -q '^ar-run: interrupted$' err
	[ "$(ls camp/queue/new | wc -l)" -eq 3 ]
	empty camp/queue/cur camp/run/gpus camp/run/pid
	not pgrep -f "fake-bench .*-C $CAMP" > /dev/null
}

@test "kill -9 of ar-run mid-run, then a restart: each experiment ends once" {
	mkcamp
	assign 12 "1 2 4" > a.tsv
	ar-queue put camp/queue < a.tsv > /dev/null
	FAKE_SLEEP=1 ar-run local -C camp --gpus 8 --drain > out1 2> err1 &
	pid=$!
	wait_count 3 '^end' camp/fake.log
	# Killed while a claim is in cur/: stopped first, and let go on
	# until one is (on a loaded machine the runs in flight may all have
	# ended before the next claims).
	while :; do
		kill -STOP $pid
		[ -z "$(ls camp/queue/cur)" ] || break
		kill -CONT $pid
		poll sh -c '[ -n "$(ls camp/queue/cur)" ]'
	done
	kill -KILL $pid
	wait $pid || true
	# Bookings and claims of the dead one remain until the restart.
	[ -n "$(ls camp/queue/cur)" ]
	FAKE_SLEEP=0.2 run -0 --separate-stderr ar-run local -C camp --gpus 8 --drain
	{ tail -n +2 out1; tail -n +2 <<< "$output"; } > all
	# A line is printed once its record is in done/: a kill between the
	# two loses the line, never the experiment; no line comes twice.
	[ "$(wc -l < all)" -ge 11 ]
	[ "$(cut -f 1 all | sort | uniq -d)" = "" ]
	for i in $(seq -w 1 12); do
		c=$(ledger_count e0$i); [ "$c" -eq 1 ] || { echo "e0$i: $c"; cat camp/fake.log err1; false; }
	done
	[ "$(ar-queue ls -s done camp/queue | tail -n +2 | wc -l)" -eq 12 ]
	empty camp/run/gpus camp/run/pid camp/queue/new camp/queue/cur
	no_overlap <(grep -v "^start" camp/fake.log; grep "^start" camp/fake.log) || true
	not pgrep -f "fake-bench .*-C $CAMP" > /dev/null
}

@test "kill -9 after the result was appended: the restart runs nothing again" {
	mkcamp
	one p1 post 2 > a.tsv
	FAKE_POST=30 ar-run local -C camp --gpus 8 --drain -i a.tsv > out1 2> err1 &
	pid=$!
	poll grep -q '^end p1' camp/fake.log
	[ "$(ledger_count p1)" -eq 1 ]
	kill -KILL $pid
	wait $pid || true
	run -0 --separate-stderr ar-run local -C camp --gpus 8 --drain
	[ "${lines[0]}" = "$OUTHDR" ]
	[ "$(cut -f 1,3,4,5,6,7 <<< "${lines[1]}")" = "p1	2	0,1	local	done	keep" ]
	[ "$(grep -c '^start p1' camp/fake.log)" -eq 1 ]
	[ "$(ledger_count p1)" -eq 1 ]
	empty camp/run/gpus camp/run/pid camp/queue/cur
	not pgrep -f "fake-bench .*-C $CAMP" > /dev/null
}

@test "a restart stops an earlier run's ar-bench still alive before it decides" {
	mkcamp
	one z1 ok 1 | ar-queue put camp/queue > /dev/null
	h=$(hostname -s)
	# Claimed by an ar-run that is dead (pid 999999 never started at 1),
	# whose ar-bench (a sleep here) still runs.
	ar-queue claim -H "w.$h.999999.1" -l 600 camp/queue > /dev/null
	setsid sleep 300 &
	child=$!
	poll grep -qx sleep "/proc/$child/comm"
	start=$(cut -d ' ' -f 22 /proc/$child/stat)
	mkdir -p camp/run/pid
	printf 'z1\tw\t%s\t999999\t1\t0\t%d\t%s\t0\t0\n' "$h" $child "$start" > camp/run/pid/z1
	run -0 --separate-stderr ar-run local -C camp --gpus 2 --drain
	[[ "$stderr" == *"z1: taking over from w.$h.999999.1 (its runner died)"* ]]
	[[ "$stderr" == *"process $child of an earlier run is still alive; stopping it"* ]]
	not kill -0 $child 2>/dev/null
	[ "$(awk -F '\t' '$1 == "z1" { print $6 }' <<< "$output")" = done ]
	[ "$(ledger_count z1)" -eq 1 ]
}

@test "a booking of a dead holder is freed; a live one is respected" {
	mkcamp
	mkdir -p camp/run/gpus
	sleep 300 &
	live=$!
	printf 'x1\tother\t%d\t%d\n' $live $(( $(date +%s) + 600 )) > camp/run/gpus/local@0
	printf 'x2\tother\t%d\t%d\n' 999999 $(( $(date +%s) - 1 )) > camp/run/gpus/local@1
	one b1 ok 1 > a.tsv
	run -0 --separate-stderr ar-run local -C camp --gpus 2 --drain -i a.tsv
	[ "$(col gpus <<< "$output")" = 1 ]
	[ -f camp/run/gpus/local@0 ]
	[ ! -f camp/run/gpus/local@1 ]
	kill $live
}

@test "--once claims what fits now, waits for those and exits" {
	mkcamp
	assign 5 8 > a.tsv
	run -0 --separate-stderr ar-run local -C camp --gpus 8 --once -i a.tsv
	[ "${#lines[@]}" -eq 2 ]
	[ "$(ls camp/queue/new | wc -l)" -eq 4 ]
}

@test "the scheduler's size of a measurement reaches ar-bench as --sched-pairs, --stop-at and --stop-prior; a bad one fails the record" {
	mkcamp
	{ echo "$HDR	min_pairs	max_pairs	stop_at	prior_lo	prior_hi"
	  printf 's1\tok\ttiny\t1\t\t\tprobe\t\t\t1\tw\t10\t20\t0.935\t\t\n'
	  printf 's2\tok\ttiny\t2\t\t\tscale\t\t\t1\tw\t\t\t\t\t\n'
	  printf 's3\tok\ttiny\t1\t\t\tprobe\t\t\t1\tw\t20\t10\t\t\t\n'
	  printf 's4\tok\ttiny\t1\t\t\tprobe\t\t\t1\tw\t\t\tnan\t\t\n'
	  printf 's5\tok\ttiny\t1\t\t\tvalidate\t\t\t1\tw\t8\t96\t1.1\t0.9\t1.2\n'
	  printf 's6\tok\ttiny\t1\t\t\tvalidate\t\t\t1\tw\t8\t96\t\t0.9\t1.2\n'; } |
	    ar-queue put camp/queue > /dev/null
	run -1 --separate-stderr ar-run local -C camp --gpus 4 --drain
	grep -q '^start s1 k=1 .* sched=10,20 stop=0.935 prior= ' camp/fake.log
	grep -q '^start s2 k=2 .* sched= stop= prior= ' camp/fake.log
	grep -q '^start s5 k=1 .* sched=8,96 stop=1.1 prior=0.9,1.2 ' camp/fake.log
	not grep -q '^start s[346] ' camp/fake.log
	ar-queue ls -s failed camp/queue | grep -qF 'failed: prior_lo, prior_hi: expected numbers with 1e-06 <= prior_lo < prior_hi <= 1e+06, and a stop_at	s6	'
	[ "$(awk -F '\t' '$1 == "s3" { print $6 }' <<< "$output")" = failed ]
	ar-queue ls -s failed camp/queue | grep -qF 'failed: min_pairs, max_pairs: expected whole numbers, 1 <= min_pairs <= max_pairs <= 1000000	s3	'
	ar-queue ls -s failed camp/queue | grep -qF 'failed: stop_at: expected a number from 1e-06 to 1e+06	s4	'
}

@test "the real ar-bench measures int8-matvec's tiny workload" {
	mkcamp
	unset AR_BENCH
	sb=()
	bwrap_works || sb=(--no-sandbox)
	{ echo "$HDR"; printf 'aa1\t\ttiny\t1\t\t\taa\t\t\t1\tnoise\n';
	  printf 'm1\t%s\ttiny\t1\t\t\tprobe\t\t\t1\tfast\n' "$TOP/examples/int8-matvec/fast"; } > a.tsv
	run -0 --separate-stderr ar-run local -C camp --cpus --drain -i a.tsv -- "${sb[@]}" -p 4 -P 8 -T 5
	echo "$output"
	echo "$stderr"
	[ "$(col status <<< "$output" | sort -u)" = done ]
	ar-ledger verify -C camp
	[ "$(ar-ledger export -C camp -f jsonl | jq -r .experiment | sort | tr '\n' ' ')" = "aa1 m1 " ]
	[ "$(ar-ledger export -C camp -f jsonl | jq -r 'select(.experiment == "aa1") | .aa')" = true ]
	# A sized record: ar-bench stops once the ratio is clearly below
	# 1000, within the pairs it was given.
	{ echo "$HDR	min_pairs	max_pairs	stop_at"
	  printf 'm2\t%s\ttiny\t1\t\t\tscale\t\t\t1\tfast\t8\t12\t1000\n' "$TOP/examples/int8-matvec/fast"; } > b.tsv
	run -0 --separate-stderr ar-run local -C camp --cpus --drain -i b.tsv -- "${sb[@]}" -T 5
	ar-ledger export -C camp -f jsonl | jq -e 'select(.experiment == "m2") |
	    .stats.stop_at == 1000 and .stats.pairs >= 8 and .stats.pairs <= 12'
	# A user's -P, added to every run, caps the scheduler's size.
	{ echo "$HDR	min_pairs	max_pairs	stop_at"
	  printf 'm3\t%s\ttiny\t1\t\t\tscale\t\t\t1\tfast\t8\t12\t1000\n' "$TOP/examples/int8-matvec/fast"; } > c.tsv
	run -0 --separate-stderr ar-run local -C camp --cpus --drain -i c.tsv -- "${sb[@]}" -T 5 -P 4
	ar-ledger export -C camp -f jsonl | jq -e 'select(.experiment == "m3") |
	    .stats.pairs <= 4 and .verdict != null'
}

# ---- Slurm job arrays ----

# fake_slurm: an sbatch that logs its arguments to sbatch.log ("job ID"
# first, the whole entry in one write, so that a test reading the log
# never sees half of one) and answers ids from 100 up, and an squeue that
# prints ./sq, or when there is none every job of its -j list as pending
# (as a job and as an array). Slurm's own answers cannot be made to order
# in seconds. The tests change sq with `replace`, whole: ar-run polls
# squeue all the while, and a job missing from a half-written sq is GONE.
fake_slurm() {
	cat > sbatch <<SH
#!/bin/sh
n=\$(cat "$T/next" 2>/dev/null || echo 100)
echo \$((n + 1)) > "$T/next"
{ echo "job \$n"; for a; do echo "\$a"; done; } > "$T/sbatch.\$n"
cat "$T/sbatch.\$n" >> "$T/sbatch.log"
echo "\$n"
SH
	cat > squeue <<SH
#!/bin/sh
[ -f "$T/sq" ] && { cat "$T/sq"; exit 0; }
while [ \$# -gt 0 ]; do
	[ "\$1" = -j ] && for j in \$(echo "\$2" | tr ',' ' '); do
		printf '%s|PENDING|\n%s_[0-99]|PENDING|\n' "\$j" "\$j"
	done
	shift
done
exit 0
SH
	chmod +x sbatch squeue
	export SBATCH=$T/sbatch SQUEUE=$T/squeue
}

@test "slurm arrays: task ids such as 100_0 and 100_[1-2,3-4%2] from squeue; each task decided alone (fake Slurm)" {
	mkcamp
	fake_slurm
	{ assign 5 1; assignment x1 ok 2; } > a.tsv
	printf '100_0|RUNNING|n1\n100_[1-2,3-4%%2]|PENDING|\n101|PENDING|\n' | replace sq
	ar-run slurm -C camp --drain -i a.tsv > out 2> err &
	pid=$!
	jobfiles 6
	# One array of the five k = 1, a plain job for the lone k = 2.
	[ "$(grep -c '^job' sbatch.log)" -eq 2 ]
	[ "$(sed -n '/^job 100/,/^job 101/p' sbatch.log | grep -c -e '^--array=0-4%100$' -e '^--gpus=1$')" -eq 2 ]
	[ "$(sed -n '/^job 101/,$p' sbatch.log | grep -c -e '^--array' )" -eq 0 ]
	grep -qx -- --gpus=2 sbatch.log
	map=$(ls camp/run/jobs | grep '^@')
	[ "$(cat "camp/run/jobs/$map" | tr '\n' ' ')" = "e001 e002 e003 e004 e005 " ]
	for i in 1 2 3 4 5; do
		[ "$(cat camp/run/jobs/e00$i)" = "100_$((i - 1))	$map" ]
	done
	[ "$(cat camp/run/jobs/x1)" = 101 ]
	run -0 ar-run status -C camp
	[ "$(col job <<< "$output" | sort | tr '\n' ' ')" = "100_0 100_1 100_2 100_3 100_4 101 " ]
	# Tasks 0 and 1 run (as Slurm would start them) and end; the rest
	# stay pending inside a range.
	for t in 0 1; do
		SLURM_ARRAY_TASK_ID=$t CUDA_VISIBLE_DEVICES=$t ar-run job -C camp "$map"
	done
	printf '100_0|COMPLETED|n1\n100_1|COMPLETED|n2\n100_[2-3,4%%2]|PENDING|\n101|RUNNING|n1\n' | replace sq
	poll sh -c '[ "$(grep -c done out)" -ge 2 ]'
	# A while for a pending task to be decided wrongly, were it.
	sleep 0.5
	[ "$(awk -F '\t' '$6 != "" && NR > 1 { print $1, $3, $4, $5, $6 }' out | tr '\n' ' ')" = "e001 1 0 n1 done e002 1 1 n2 done " ]
	empty camp/run/tries
	grep -q '^start e001 k=1 method=ok gpus=0 ' camp/fake.log
	# e003 completes, e004 is cancelled (back to the queue, then out
	# again as a plain job), e005 failed before its ar-bench ran.
	SLURM_ARRAY_TASK_ID=2 CUDA_VISIBLE_DEVICES=2 ar-run job -C camp "$map"
	CUDA_VISIBLE_DEVICES=0,1 ar-run job -C camp x1
	printf '100_2|COMPLETED|n1\n100_3|CANCELLED|\n100_4|FAILED|n1\n101|COMPLETED|n1\n102|PENDING|\n' | replace sq
	poll grep -q '^job 102' sbatch.log
	[ "$(sed -n '/^job 102/,$p' sbatch.log | grep -c -e '^--array' )" -eq 0 ]
	sed -n '/^job 102/,$p' sbatch.log | grep -q "job -C .* 'e004'"
	[ "$(cat camp/run/tries/e004)" = 1 ]
	[ ! -f "camp/run/jobs/$map" ]
	CUDA_VISIBLE_DEVICES=3 ar-run job -C camp e004
	printf '102|COMPLETED|n1\n' | replace sq
	st=0
	wait $pid || st=$?
	cat out err
	[ "$st" -eq 0 ]
	[ "$(awk -F '\t' '$6 == "done" { print $1 }' out | sort | tr '\n' ' ')" = "e001 e002 e003 e004 x1 " ]
	[ "$(ar-queue ls -s failed camp/queue | col why)" = "crash: job 100_4: FAILED before ar-bench ended" ]
	for e in e001 e002 e003 e004 x1; do
		[ "$(ledger_count $e)" -eq 1 ]
		[ "$(grep -c "^start $e " camp/fake.log)" -eq 1 ]
	done
	empty camp/queue/new camp/queue/cur camp/run/pid camp/run/jobs
}

@test "slurm arrays: --array-max caps an array; --no-array submits one job each (fake Slurm)" {
	mkcamp
	fake_slurm
	assign 5 1 > a.tsv
	ar-run slurm -C camp --array-max 2 -j 4 --drain -i a.tsv > out 2> err &
	pid=$!
	jobfiles 4
	# A while for a fifth submission, were -j 4 not kept.
	sleep 0.3
	kill -TERM $pid
	st=0
	wait $pid || st=$?
	[ "$st" -eq 75 ]
	# -j 4: four in flight, as arrays of two, each task at most 4 at once.
	[ "$(grep -c '^job' sbatch.log)" -eq 2 ]
	[ "$(grep -c -x -- '--array=0-1%4' sbatch.log)" -eq 2 ]
	[ "$(ls camp/run/jobs | grep -c '^@')" -eq 2 ]
	rm -rf camp sbatch.log next
	mkcamp
	assign 3 1 > a.tsv
	ar-run slurm -C camp --no-array --drain -i a.tsv > out 2> err &
	pid=$!
	jobfiles 3
	kill -TERM $pid
	wait $pid || true
	[ "$(grep -c '^job' sbatch.log)" -eq 3 ]
	not grep -q -- --array sbatch.log
	[ "$(cat camp/run/jobs/e001 camp/run/jobs/e002 camp/run/jobs/e003 | tr '\n' ' ')" = "100 101 102 " ]
	run -64 --separate-stderr ar-run local -C camp --no-array
	run -64 --separate-stderr ar-run slurm -C camp --array-max 0
	[ "$stderr" = "ar-run: --array-max 0: expected an integer from 1 to 100000" ]
}
