#!/usr/bin/env bats
# examples.bats: every EXAMPLES section of man/ is a test. Users copy the
# examples; each page's run here, in order, in one bash, the way a user
# would type them (tests/examples-run), and what they print is compared
# with what the page shows.
#
# In a page, an example is a line "$ command" of a literal display (.Bd
# -literal or .Dl), with the lines after it that bash needs to parse it
# whole (a continuation, an open quote or pipe, a here-document); the
# lines after that, up to the next "$ " or the end of the display, are
# its output. A command must exit 0, unless the next one is "echo $?",
# which then shows its status; the shell has pipefail, so that a program
# failing into jq fails (SIGPIPE from a reader such as head does not).
# Where the page shows output, the command must print exactly that
# (stdout, line-buffered as on a terminal, and stderr together), except
# that an id, an RFC 3339 time or a hash of 40 or 64 hex digits stands
# for any of its kind (the same one wherever it repeats, distinct ones
# for distinct ones); later commands and outputs that name such a token
# get the one the run printed in its place.
#
# A display whose examples cannot run here, or not as they are, says so
# in an mdoc comment on the line just before its .Bd (or .Dl); inside a
# display, just before a "$ " line, syntax-only, any-output and folded
# mark that command only. The reason in parentheses is required but for
# folded, script, file and crontab:
#
#	.\" example: syntax-only (needs a GPU)
#		checked with bash -n only, for a GPU, Slurm, an agent CLI
#		(claude), the network, a daemon, or more measurement than the
#		time this file may take
#	.\" example: any-output (measured: the figures vary)
#		run, status checked, output not compared
#	.\" example: folded
#		the page folds long lines: output compared without whitespace
#	.\" example: script
#		the display, without "$ ", is one command (a shell script)
#	.\" example: file sum/gen
#		the display is the content of that file, saved (executable
#		where it starts with #!) in the shell's current directory
#	.\" example: crontab
#		crontab lines: the command of each checked with bash -n
#	.\" example: skip (a list of files)
#		not shell at all
#
# A display with no "$ " line and no mark fails the test, so that no
# example goes unchecked unnoticed.
#
# Where the examples run: a scratch directory W (the working directory)
# with examples/, problems/, build/tests/ar-sign-test and ~/src/autoreduce
# reachable as in the pages; camp, a campaign of problems/int8-matvec with
# signed results in its ledger and an idea in its queue; results.tsv,
# seed.tsv, topo.tsv and methods.tsv of tests/fixtures/examples; the small
# problem /tmp/demo/sortprob of ar-init(1); for ar-ledger(1), a campaign
# /srv/campaign like camp; ./run-one of ar-queue(1). /tmp/demo and /srv
# of the pages are W/tmp/demo and W/srv; HOME is W/home/ann (/home/ann
# in output). The pages whose examples measure in ar-bench's sandbox
# are skipped where it cannot make one (not root, or no bwrap).

load common

# Only a hang takes this long (a page's examples take seconds to a
# minute, even on a loaded machine): then the test fails, not the run.
BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-900}

setup() {
	ar_setup ar-ledger
	export AR_TOP=$TOP
	unset AR_CAMPAIGN AR_HOLDER AR_AGENT AR_PLANNER AR_PLANNER_URL \
	    AR_PLANNER_KEY AR_PLANNER_MODEL AR_PROGRAM AR_BWRAP AR_AGENT_BIND \
	    NO_COLOR
	FIX=$FIXTURES/examples
	W=$T/w
	mkdir -p "$W/build" "$W/tmp/demo" "$W/home/ann/src" "$W/srv"
	ln -s "$TOP/examples" "$TOP/problems" "$W/"
	ln -s "$(dirname "$(command -v ar-sign-test)")" "$W/build/tests"
	ln -s "$TOP" "$W/home/ann/src/autoreduce"
	cp -R "$FIX/sortprob" "$W/tmp/demo/"
	cp "$FIX"/*.tsv "$FIX/run-one" "$W/"
	cd "$W"
	export GIT_AUTHOR_NAME=ann GIT_AUTHOR_EMAIL=ann@example.org \
	    GIT_COMMITTER_NAME=ann GIT_COMMITTER_EMAIL=ann@example.org
}

teardown() {
	ar_teardown
}

# camp [DIR]: the campaign DIR (default camp), its results in its
# ledger, an idea for the scripted agent in its queue.
camp() {
	local d=${1:-camp}
	ar-init -p "$TOP/problems/int8-matvec" "$d" > /dev/null
	ar-sign-test -C "$d" -g 40 > "$T/r.jsonl"
	ar-ledger append -C "$d" "$T/r.jsonl" 2> /dev/null
	echo '{"title":"fast","idea":"build with -O3","variant":"fast"}' |
	    ar-queue put "$d/ideas" > /dev/null
}

# sandboxed: the examples of ar-bench and ar-agent, and of what runs
# them, measure in a sandbox, as ar-bench makes it only as root with a
# bwrap that works (tests/common.bash); skips elsewhere, saying why.
sandboxed() {
	[ -n "$(bench_sandbox)" ] ||
	    skip "the examples run in a sandbox: that needs root and a bwrap that works"
}

# examples PAGE: runs the examples of man/PAGE.
examples() {
	run "$AR_TESTS/examples-run" "$TOP/man/$1" "$W"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "examples: every page with EXAMPLES has its test here" {
	local f
	for f in "$TOP"/man/*.[157]; do
		grep -q '^\.Sh EXAMPLES' "$f" || continue
		f=${f##*/}
		grep -q "^@test \"examples: ${f%.*}(${f##*.})\"" "$BATS_TEST_FILENAME" ||
		    { echo "no test for $f"; return 1; }
	done
}

# The runner itself, on the pages of tests/fixtures/examples/pages/.
@test "examples: a page whose examples hold passes" {
	run "$AR_TESTS/examples-run" "$FIX/pages/good.1" "$W"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"good.1: 14 examples: 11 run, 2 syntax only" ]]
}

@test "examples: a page whose examples are wrong fails, saying where and why" {
	local p=$FIX/pages/broken.1
	run "$AR_TESTS/examples-run" "$p" "$W"
	echo "$output"
	[ "$status" -eq 1 ]
	grep -qx "$p:9: the output differs from the page: echo one" <<< "$output"
	grep -qx "$p:11: exit 2: ls /nonexistent/dir" <<< "$output"
	# Distinct ids of the page are distinct ids of the run.
	grep -q "^$p:12: the output differs from the page" <<< "$output"
	grep -qx "$p:17: syntax: if true; then echo; done" <<< "$output"
}

@test "examples: a display without a command or a mark fails" {
	local p=$FIX/pages/unmarked.1
	run "$AR_TESTS/examples-run" "$p" "$W"
	[ "$status" -eq 1 ]
	same "$output" "examples-run: $p:9: a block without \$ commands and without a mark
examples-run: $p:11: unknown mark: gpu-only
examples-run: $p:16: the command never ends"
}

@test "examples: ar-agent(1)" {
	sandboxed
	camp
	examples ar-agent.1
}

@test "examples: ar-bench(1)" {
	sandboxed
	examples ar-bench.1
}

@test "examples: ar-campaign(1)" {
	camp
	examples ar-campaign.1
}

@test "examples: ar-curve(1)" {
	camp
	examples ar-curve.1
}

@test "examples: ar-digest(1)" {
	camp
	examples ar-digest.1
}

@test "examples: ar-init(1)" {
	rm -r "$W/tmp/demo/sortprob"
	examples ar-init.1
}

@test "examples: ar-ledger(1)" {
	camp "$W/srv/campaign"
	examples ar-ledger.1
}

@test "examples: ar-loop(1)" {
	sandboxed
	ar-init -p "$TOP/problems/int8-matvec" camp > /dev/null
	examples ar-loop.1
}

@test "examples: ar-plan(1)" {
	camp
	examples ar-plan.1
}

@test "examples: ar-problem(5)" {
	sandboxed
	examples ar-problem.5
}

@test "examples: ar-queue(1)" {
	examples ar-queue.1
}

@test "examples: ar-run(1)" {
	camp
	examples ar-run.1
}

@test "examples: ar-sched(1)" {
	camp
	examples ar-sched.1
}

@test "examples: autoreduce(7)" {
	examples autoreduce.7
}
