#!/usr/bin/env bats
# problems/specdec: the speculative-decoding problem through the real
# ar-bench, on its "tiny" workload (16 requests over about a second):
# the baseline against itself, each example method of examples/specdec
# and its verdict (the honest ones, candidate-parallel drafting included,
# valid and exact; skipverify invalid by
# the gate bad == 0; starve discarded by the p95 TTFT guardrail), a
# policy that reaches for the clock refused at build, gen's errors, and
# an engine built with a deliberately non-batch-invariant kernel caught
# by the score. Verdicts between honest methods depend on timing and are
# not asserted; only that they are measured.

bats_require_minimum_version 1.5.0
load common

setup_file() {
	ar_bench_setup_file
}

setup() {
	ar_bench_setup
	SP=$TOP/problems/specdec
	SE=$TOP/examples/specdec
	[ -f "$SP/problem.json" ] && [ -d "$SE" ] ||
	    skip "problems/specdec or examples/specdec is missing"
	command -v cc >/dev/null && command -v make >/dev/null ||
	    skip "specdec needs cc and make"
}

teardown() {
	ar_bench_teardown
}

# sdbench ARGS: a short session on tiny (2 pairs, no warm-up); the
# result in r.json.
sdbench() {
	mkcamp -p "$SP"
	run --separate-stderr ar-bench -C camp "${NOSB[@]}" -q -w tiny \
	    -p 2 -P 2 -W 0 "$@"
	printf '%s\n' "$output" > r.json
	echo "# ar-bench $*: exit $status"
	echo "# stderr: $stderr"
	echo "# $(jq -c '{verdict, why}' r.json 2>/dev/null)"
}

# judge: the judge programs, built by hand in ./J (setup), and the tiny
# workload's variables.
judge() {
	cp -R "$SP" J
	chmod -R u+w J
	(cd J && make -s -f judge.mk)
	export MODEL=tiny NREQ=16 RATE=16 BURST=2 PROMPT_MED=16 PROMPT_MAX=64 \
	    OUT_MED=16 OUT_MAX=48 DOM_LO=1 DOM_HI=8 KV_BLOCKS=32 MAX_ROWS=128
}

# stages SEED ENGINE: prepare, run and score by hand; METRIC lines in
# score.out.
stages() {
	rm -rf IN REF OUT
	mkdir IN REF OUT
	(cd J && AR_SEED=$1 AR_IN=../IN AR_REF=../REF ./gen)
	AR_CPUS=1 AR_IN=IN AR_OUT=OUT "$2"
	(cd J && AR_WALL_S=1 AR_IN=../IN AR_REF=../REF AR_OUT=../OUT ./score) \
	    > score.out
}

metric() {
	sed -n "s/^METRIC $1=//p" score.out
}

# engine NAME POLICY [CFLAGS...]: the sealed engine linked with the
# policy's source, as build.mk links it, without check-object.sh.
engine() {
	local name=$1 policy=$2
	shift 2
	cc -std=c11 -O2 -ffp-contract=off "$@" -I"$SP" -o "$name" \
	    "$SP/engine.c" "$SP/cage.c" "$SP/model.c" "$policy" -lm
}

@test "specdec: the baseline against itself is exact, keeps its guardrail and counts every request" {
	sdbench --aa
	[ "$status" -eq 0 ]
	[[ "$(j .verdict)" =~ ^(equivalent|inconclusive|discard|keep)$ ]]
	jq -e '.work.pass and .work.expected == 16 and .gates[0].pass and
	    .gates[0].worst == 0 and .guardrails[0].pass and
	    .metrics.goodput_tok_s.median > 0 and
	    .metrics.accept_rate.median == 0 and
	    .metrics.tok_per_verify.median == 1' r.json
}

@test "specdec: fixed4 speculates, exactly: valid, drafts accepted, more than a token per verification" {
	sdbench -m "$SE/fixed4"
	[ "$status" -eq 0 ]
	[[ "$(j .verdict)" =~ ^(keep|equivalent|inconclusive|discard)$ ]]
	jq -e '.work.pass and .gates[0].pass and .guardrails[0].pass and
	    .metrics.accept_rate.median > 0.2 and
	    .metrics.accept_rate.median < 1 and
	    .metrics.tok_per_verify.median > 1.5 and
	    .metrics.draft_rows.median > 0' r.json
}

@test "specdec: acceptance, vermax and candidates are valid and exact" {
	for m in acceptance vermax candidates; do
		rm -rf camp
		sdbench -m "$SE/$m"
		[ "$status" -eq 0 ]
		[[ "$(j .verdict)" =~ ^(keep|equivalent|inconclusive|discard)$ ]]
		jq -e '.work.pass and .gates[0].pass and .guardrails[0].pass and
		    .metrics.tok_per_verify.median > 1' r.json
	done
}

@test "specdec: skipverify is invalid: the gate bad == 0 finds the unverified tokens" {
	sdbench -m "$SE/skipverify"
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = invalid ]
	[[ "$(j .why)" =~ ^gate\ bad\ ==\ 0\ failed:\ [1-9][0-9]*\ \(pair\ 0\)$ ]]
	[ "$(j '.gates[0].pass')" = false ]
}

@test "specdec: starve is discarded by the guardrail on the interactive p95 TTFT" {
	sdbench -m "$SE/starve"
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = discard ]
	[[ "$(j .why)" =~ ^guardrail\ p95_ttft_int_ms\ \<=\ 250\ failed:\ [0-9.]+\ against\ 250\ \(pair\ 0\)$ ]]
	jq -e '.gates[0].pass and .work.pass' r.json
}

@test "specdec: a policy that reads the clock is refused at build" {
	mkdir clock
	cat > clock/policy.c <<'EOC'
#define _POSIX_C_SOURCE 200809L
#include <time.h>
#include "sd.h"
void
policy_step(const struct sd_view *v, struct sd_act *act)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	for (int i = 0; i < v->n; i++)
		act[i].op = t.tv_nsec & 1 ? SD_DECODE : SD_PREFILL;
}
EOC
	sdbench -m clock
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = crash ]
	[[ "$(j .failure.stderr)" == *"build: policy.o: calls clock_gettime: a policy may call only memory and math functions"* ]]
}

@test "specdec: gen refuses a bad workload with one line naming the variable" {
	judge
	mkdir IN REF
	cd J
	MODEL=huge run --separate-stderr -1 env AR_SEED=1 AR_IN=../IN AR_REF=../REF ./gen
	[ "$stderr" = 'gen: MODEL: "huge" is not a model size (cpu, tiny, gpu, 1b)' ]
	DOM_HI=0 DOM_LO=3 run --separate-stderr -1 env AR_SEED=1 AR_IN=../IN AR_REF=../REF ./gen
	[ "$stderr" = 'gen: DOM_HI: "0" is not an integer from 3 to 15' ]
	KV_BLOCKS=2 run --separate-stderr -1 env AR_SEED=1 AR_IN=../IN AR_REF=../REF ./gen
	[ "$stderr" = 'gen: KV_BLOCKS: 2 blocks cannot hold one request of 128 tokens' ]
	run --separate-stderr -1 env AR_SEED=x AR_IN=../IN AR_REF=../REF ./gen
	[ "$stderr" = 'gen: AR_SEED: "x" is not a decimal 64-bit number' ]
	# The gpu size's reference of many requests is the GPU's to make:
	# refused at once on the CPU, nothing written.
	MODEL=gpu NREQ=512 run --separate-stderr -1 env AR_SEED=1 AR_IN=../IN AR_REF=../REF ./gen
	[[ "$stderr" =~ ^gen:\ MODEL\ gpu:\ the\ reference\ of\ 512\ requests\ \([0-9]+\ rows\ of\ 0\.29\ GFLOP\)\ would\ take\ one\ CPU\ about\ [0-9]+\ minutes\;\ it\ is\ made\ on\ a\ GPU\ \(ar-bench\ -G\)$ ]]
	[ -z "$(ls -A ../IN)" ] && [ -z "$(ls -A ../REF)" ]
	# So is the 1b size's, even for tiny's 16 requests (2 GFLOP a row),
	# before 4 GB of weights are made.
	MODEL=1b run --separate-stderr -1 env AR_SEED=1 AR_IN=../IN AR_REF=../REF ./gen
	[[ "$stderr" =~ ^gen:\ MODEL\ 1b:\ the\ reference\ of\ 16\ requests\ \([0-9]+\ rows\ of\ 2\ GFLOP\)\ would\ take\ one\ CPU\ about\ [0-9]+\ minutes\;\ it\ is\ made\ on\ a\ GPU\ \(ar-bench\ -G\)$ ]]
	[ -z "$(ls -A ../IN)" ] && [ -z "$(ls -A ../REF)" ]
}

# The engine maps d.bin and e.bin rather than reading them (the 1b
# size's e.bin is 3.9 GB): a missing, empty, cut or odd file is still
# refused with one line, nothing written.
@test "specdec: the engine refuses weights missing, empty, cut short or not a file" {
	judge
	engine engine "$SE/fixed4/policy.c"
	stages 11 ./engine
	[ "$(metric bad)" = 0 ]
	cp IN/e.bin e.good
	rm -rf OUT && mkdir OUT
	mv IN/e.bin e.moved
	AR_CPUS=1 AR_IN=IN AR_OUT=OUT run --separate-stderr -1 ./engine
	[ "$stderr" = 'specdec: IN/e.bin: No such file or directory' ]
	: > IN/e.bin
	AR_CPUS=1 AR_IN=IN AR_OUT=OUT run --separate-stderr -1 ./engine
	[ "$stderr" = "specdec: d.bin or e.bin: not the size of the trace's model" ]
	head -c $(($(stat -c %s e.good) - 4)) e.good > IN/e.bin
	AR_CPUS=1 AR_IN=IN AR_OUT=OUT run --separate-stderr -1 ./engine
	[ "$stderr" = "specdec: d.bin or e.bin: not the size of the trace's model" ]
	rm IN/e.bin && mkdir IN/e.bin
	AR_CPUS=1 AR_IN=IN AR_OUT=OUT run --separate-stderr -1 ./engine
	[ "$stderr" = 'specdec: IN/e.bin: not a regular file' ]
	[ -z "$(ls -A OUT)" ]
	# The same file put back: exact again.
	rmdir IN/e.bin && cp e.good IN/e.bin
	AR_CPUS=1 AR_IN=IN AR_OUT=OUT ./engine
	(cd J && AR_WALL_S=1 AR_IN=../IN AR_REF=../REF AR_OUT=../OUT ./score) \
	    > score.out
	[ "$(metric bad)" = 0 ]
	[ "$(metric work)" = 16 ]
}

# gen's GPU path (gen.c with SD_CUDA: the requests side by side in
# passes of up to 4096 rows, then a few checked on the CPU), built against
# tests/fixtures/specdec/cuda-shim.c, which does sd-cuda.h's passes with
# model.c: its reference must be the CPU's byte for byte, and a device
# that gets a row wrong must stop the prepare stage with nothing written.
@test "specdec: gen's GPU reference path gives the CPU's reference; a device with other bits stops it" {
	judge
	cp "$TOP/tests/fixtures/specdec/cuda-shim.c" J/
	(cd J && cc -std=c11 -O2 -ffp-contract=off -Wall -Wextra -Werror \
	    -DSD_CUDA -I. -o gen-gpu gen.c model.c cuda-shim.c -lm -pthread)
	mkdir IN REF IN2 REF2
	(cd J && AR_SEED=12 AR_IN=../IN AR_REF=../REF ./gen)
	(cd J && AR_SEED=12 AR_IN=../IN2 AR_REF=../REF2 ./gen-gpu)
	cmp REF/ref.bin REF2/ref.bin
	cmp IN/trace.bin IN2/trace.bin
	cmp IN/e.bin IN2/e.bin
	# Without a visible GPU, the CPU's path.
	rm -rf IN2 REF2 && mkdir IN2 REF2
	(cd J && SHIM_GPUS=0 AR_SEED=12 AR_IN=../IN2 AR_REF=../REF2 ./gen-gpu)
	cmp REF/ref.bin REF2/ref.bin
	# The first row of every pass wrong: in the decode passes it is the
	# first unfinished request's, so request after request gets wrong
	# tokens, among them (for this seed) one of the three checked.
	rm -rf IN2 REF2 && mkdir IN2 REF2
	cd J
	SHIM_FLIP=0 run --separate-stderr env AR_SEED=12 AR_IN=../IN2 \
	    AR_REF=../REF2 ./gen-gpu
	[ "$status" -eq 1 ]
	[[ "$stderr" =~ ^gen:\ the\ GPU\'s\ reference\ differs\ from\ model\.c\'s\ at\ request\ [0-9]+,\ token\ [0-9]+:\ the\ device\ does\ not\ compute\ the\ CPU\'s\ bits$ ]]
	[ ! -e ../REF2/ref.bin ] && [ ! -e ../IN2/trace.bin ]
}

@test "specdec: an engine with a non-batch-invariant kernel is caught; the sealed one is exact on the same inputs" {
	judge
	# Every request at once, so that rows share batches.
	export RATE=1000000 BURST=16
	engine honest "$SE/fixed4/policy.c"
	engine broken "$SE/fixed4/policy.c" -DSD_NONINVARIANT
	bad=0
	for seed in 11 13; do
		stages "$seed" ./honest
		[ "$(metric bad)" = 0 ]
		[ "$(metric work)" = 16 ]
		stages "$seed" ./broken
		[ "$(metric work)" = 16 ]
		bad=$((bad + $(metric bad)))
	done
	echo "# bad outputs of the broken kernel: $bad"
	[ "$bad" -gt 0 ]
}

# The seeds' case study in the whole loop: the scripted planner's
# specdec ideas, the scripted agent applying examples/specdec's
# policies, ar-sched and ar-run measuring them, the digest naming them.
# The policy runs in a process of its own, under a seccomp filter: a
# policy built without check-object.sh (by hand, as an agent could not)
# that opens a file is killed, one that dereferences NULL crashes, and
# the engine says so in one line and writes nothing; an honest one runs
# confined, saying nothing.
@test "specdec: the policy's own process: a system call kills it, a crash ends the run cleanly" {
	judge
	engine engine "$SE/fixed4/policy.c"
	rm -rf IN REF OUT
	mkdir IN REF OUT
	(cd J && AR_SEED=11 AR_IN=../IN AR_REF=../REF ./gen)
	AR_CPUS=1 AR_IN=IN AR_OUT=OUT run --separate-stderr ./engine
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ -s OUT/tokens.bin ] && [ -s OUT/stats.bin ]
	# attack NAME BODY: an engine whose policy_step runs BODY first.
	attack() {
		{
			echo '#include <fcntl.h>'
			echo '#include <unistd.h>'
			echo '#include "sd.h"'
			echo "void policy_step(const struct sd_view *v, struct sd_act *act) { $2 (void)v; (void)act; }"
		} > "$1.c"
		engine "$1" "$1.c"
		rm -rf OUT && mkdir OUT
		AR_CPUS=1 AR_IN=IN AR_OUT=OUT run --separate-stderr "./$1"
	}
	attack opens 'int fd = open("IN/trace.bin", O_RDONLY); if (fd >= 0) close(fd);'
	[ "$status" -eq 1 ]
	[ "$stderr" = "specdec: policy: crashed: killed by signal 31 (SIGSYS: a system call no policy may make)" ]
	[ -z "$(ls -A OUT)" ]
	attack pid 'if (getpid() == 0) act[0].op = 1;'
	[ "$status" -eq 1 ]
	[ "$stderr" = "specdec: policy: crashed: killed by signal 31 (SIGSYS: a system call no policy may make)" ]
	attack null '*(volatile int *)0 = 1;'
	[ "$status" -eq 1 ]
	[ "$stderr" = "specdec: policy: crashed: killed by signal 11" ]
	[ -z "$(ls -A OUT)" ]
	# Writing all over its view and past its actions changes nothing the
	# engine holds: it scribbles, then acts as fixed4 would not (nothing),
	# so the run makes no progress and says so.
	attack scribble 'unsigned char *p = (unsigned char *)(void *)v->req; for (int i = 0; i < 4096 * (int)sizeof *v->req; i++) p[i] = 0xff; for (int i = 0; i < 4096; i++) act[i].op = 99;'
	[ "$status" -eq 1 ]
	[ "$stderr" = "specdec: policy: makes no progress: 10000 steps did nothing while requests waited" ]
}

# A second line behind the cage: were the engine's records rewritten
# before they reach stats.bin, whatever no engine could have measured
# makes every request bad (the gate
# bad == 0 then makes the run invalid), with one line saying what.
# stats.bin: a 64-byte header (magic, nreq, then run_ms, kv_occ, steps,
# rows_t, rows_d, stalls, ignored as doubles), then 40 bytes a request
# (first_ms, finish_ms, then ntok, drafted, accepted, verifies, preempts,
# unverified as int32).
@test "specdec: score counts every request bad when stats.bin holds what no engine could record" {
	judge
	engine engine "$SE/fixed4/policy.c"
	stages 11 ./engine
	[ "$(metric bad)" = 0 ]
	[ "$(metric work)" = 16 ]
	cp OUT/stats.bin stats.good
	# poke OFFSET BYTES: BYTES (printf escapes) over stats.bin at OFFSET,
	# then the score again.
	poke() {
		cp stats.good OUT/stats.bin
		printf "$2" | dd of=OUT/stats.bin bs=1 seek="$1" conv=notrunc 2>/dev/null
		(cd J && AR_WALL_S=1 AR_IN=../IN AR_REF=../REF AR_OUT=../OUT ./score) \
		    > score.out 2> score.err
	}
	last=$((64 + 40 * 15))
	# The last request's first token at 0 ms, before its arrival.
	poke "$last" '\0\0\0\0\0\0\0\0'
	[ "$(metric bad)" = 16 ]
	# Its records are not read: no request counts as whole, no times.
	[ "$(metric work)" = 0 ]
	[ "$(metric p95_ttft_int_ms)" = 1e+09 ]
	[ "$(metric accept_rate)" = 0 ]
	[ "$(metric goodput_tok_s)" = 1e-06 ]
	[ "$(cat score.err)" = "score: ../OUT/stats.bin: request 15: a first token before its arrival: the engine's records were overwritten; every request counts as bad" ]
	# Its first token a NaN.
	poke "$last" '\377\377\377\377\377\377\377\377'
	[ "$(metric bad)" = 16 ]
	[ "$(cat score.err)" = "score: ../OUT/stats.bin: request 15: a time that is not a number: the engine's records were overwritten; every request counts as bad" ]
	# Its accepted drafts at -1.
	poke $((last + 24)) '\377\377\377\377'
	[ "$(metric bad)" = 16 ]
	[ "$(cat score.err)" = "score: ../OUT/stats.bin: request 15: a count out of range: the engine's records were overwritten; every request counts as bad" ]
	# Its accepted drafts at 2^30, more than it drafted.
	poke $((last + 24)) '\0\0\0\100'
	[ "$(metric bad)" = 16 ]
	[ "$(cat score.err)" = "score: ../OUT/stats.bin: request 15: more tokens accepted than drafted: the engine's records were overwritten; every request counts as bad" ]
	# The run's KV occupancy a NaN.
	poke 16 '\377\377\377\377\377\377\377\377'
	[ "$(metric bad)" = 16 ]
	[ "$(cat score.err)" = "score: ../OUT/stats.bin: a total that is negative or not a number: the engine's records were overwritten; every request counts as bad" ]
	# An infinite finish, and an infinite run: not numbers either, and
	# nothing infinite reaches the metrics.
	poke $((last + 8)) '\0\0\0\0\0\0\360\177'
	[ "$(metric bad)" = 16 ]
	[ "$(cat score.err)" = "score: ../OUT/stats.bin: request 15: a time that is not a number: the engine's records were overwritten; every request counts as bad" ]
	! grep -qi 'inf\|nan' score.out
	poke 8 '\0\0\0\0\0\0\360\177'
	[ "$(cat score.err)" = "score: ../OUT/stats.bin: a total that is negative or not a number: the engine's records were overwritten; every request counts as bad" ]
	! grep -qi 'inf\|nan' score.out
	# Untouched: exact again, nothing said.
	poke 0 ''
	[ "$(metric bad)" = 0 ]
	[ "$(metric work)" = 16 ]
	[ ! -s score.err ]
}

# tests/specdec-gpu-invariance, which gpu-check runs on a GPU with
# cuda.cu built -DSD_NONINVARIANT, takes the CPU's path with --cpu.
@test "specdec: specdec-gpu-invariance --cpu: the sealed engine exact, a non-batch-invariant one caught" {
	run --separate-stderr "$TOP/tests/specdec-gpu-invariance" --cpu
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^seed 1[13], honest engine (tiny on cpu): bad 0 of 64, work 64$' <<< "$output")" -eq 2 ]
	[ "$(grep -c '^seed 1[13], broken engine (tiny on cpu): bad [0-9]* of 64, work 64$' <<< "$output")" -eq 2 ]
	[[ "$(tail -n 1 <<< "$output")" =~ ^specdec-gpu-invariance:\ ok:\ the\ sealed\ engine\ exact\;\ the\ non-batch-invariant\ one\ caught\ \([1-9][0-9]*\ bad\ outputs\ over\ 2\ seeds\)$ ]]
	run --separate-stderr "$TOP/tests/specdec-gpu-invariance" --gpus
	[ "$status" -eq 64 ]
	[ "$stderr" = "usage: specdec-gpu-invariance [--cpu]" ]
}

@test "specdec: a campaign through ar-loop: planned, implemented, measured, digested" {
	mkcamp -p "$SP"
	echo 'sched.noise_max = 10' >> camp/campaign.conf
	AR_PLANNER=$TOP/examples/agent/planner AR_AGENT=$TOP/examples/agent/agent \
	    AR_EXAMPLE_IDEAS=$TOP/examples/agent/ideas-specdec.jsonl \
	    run --separate-stderr ar-loop -C camp --cpus -w tiny -a 2 -l 30 "${NOSB[@]}" \
	    --experiments 3 -- -p 3 -P 3 -W 0 -T 20 -q "${NOSB[@]}"
	[ "$status" -eq 0 ] || { echo "$stderr" | tail -30; false; }
	[[ $stderr == *"budget spent: experiments 3 of 3"* ]]
	ar-ledger verify -C camp
	# Methods of the prepared ideas were measured, not only the A/A.
	ar-ledger export -C camp -V -f jsonl > rows.jsonl
	[ "$(jq -s 'map(select(.aa | not)) | length' rows.jsonl)" -ge 1 ]
	[ "$(jq -rs 'map(.problem) | unique | join(",")' rows.jsonl)" = "$(jq -r .name "$SP/problem.json")" ]
	grep -q 'draft four tokens for every request\|draft length from each request' camp/loop/digest.md
}
