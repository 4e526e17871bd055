#!/usr/bin/env bats
# ar-loop: the thin loop, on int8-matvec's tiny workload with short
# ar-bench limits, the scripted example planner and agent (or fake agents
# of fixtures/agent). A whole campaign to its experiment budget: ideas
# planned, methods submitted, measured, the digest and pictures written in
# loop/, the ledger verified; --once; a step that changes nothing ends the
# loop; the budgets (experiments, GPU-hours, wall hours; flags and
# campaign.conf); the lock (a second loop exits 75, a dead loop's lock is
# broken, another host's is kept); SIGTERM; the command line. Kill -9 of
# the whole loop at random instants, and --backend slurm on a real Slurm,
# are stress tests (tests/stress/ar-loop-stress.bats).

bats_require_minimum_version 1.5.0
load common

setup_file() {
	ar_bench_setup_file
}

setup() {
	ar_loop_setup
	USAGE="usage: ar-loop [--once] [--no-sandbox] [-C campaign] [-a agents] [-i ideas] [-l lease] [-q pending] [-Q seconds] [-s seconds] [-t seconds] [-w workload] [-g topology | --gpus n | --cpus] [--backend local|slurm] [--experiments n] [--gpu-hours h] [--wall-hours h] [--steps n] [--notify command] [-- ar-bench-args ...]"
}

teardown() {
	ar_teardown
}

# no_claimed_ideas: no idea is claimed (cur/) (for poll).
no_claimed_ideas() {
	[ "$(ar-queue ls -s cur camp/ideas | tail -n +2 | wc -l)" -eq 0 ]
}

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

@test "ar-loop: a whole campaign: planned, implemented, measured, digested, to the experiment budget" {
	run --separate-stderr -0 ar-loop "${L[@]}" -a 2 --experiments 6 "${B[@]}"
	[ "$output" = "" ]
	[[ $stderr == *"ar-loop: step 1: plan: "* ]]
	[[ $stderr == *"ar-loop: step 1: agents: 2 at work"* ]]
	[[ $stderr == *"budget spent: experiments 6 of 6"* ]] || { echo "$stderr" | tail -30; false; }
	[[ $stderr == *"outside the mutable files left out"* ]] ||
	    [ "$(ar-queue ls -s new camp/ideas | tail -n +2 | wc -l)" -gt 0 ]
	[ "$(rows)" -eq 6 ]
	ar-ledger verify -C camp
	# What one experiment takes the devices (two CPUs), for -Q.
	grep -Eqx '[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?' camp/loop/secs-per-experiment
	# Methods were measured, not only the node's A/A (ar_loop_setup);
	# their curves are what loop/curves.jsonl holds.
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
	[[ $stderr == *"budget spent: experiments 6 of 6"* ]] || { echo "$stderr" | tail -30; false; }
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

# Results land loose, one file each (ar-bench -a); a thousand of them
# make every export slow until they are in a segment. The ledger now
# compacts them itself (ar-ledger(1), AR_LEDGER_COMPACT): here it does
# not, as a ledger written before that. A budget of a million
# experiments asks ar-sched next for at most the 100,000 it takes.
@test "ar-loop: a step puts a thousand loose results into a segment" {
	ar-sign-test -C camp -g 1008 -s 5 > many.jsonl
	split -l 16 many.jsonl part.
	for f in part.*; do
		AR_LEDGER_COMPACT=0 ar-ledger append -C camp "$f" 2> /dev/null
	done
	[ "$(find camp/ledger/results -name '*.json' | wc -l)" -eq 1008 ]
	n=$(rows)
	AR_PLANNER= AR_AGENT= run --separate-stderr -0 ar-loop "${L[@]}" --once --experiments 1000000 "${B[@]}"
	[[ $stderr != *"compact"* ]]
	[ "$(find camp/ledger/results -name '*.json' | wc -l)" -lt 16 ]
	[ "$(find camp/ledger/seg -name '*.tsv' | wc -l)" -ge 1 ]
	[ "$(rows)" -ge "$n" ]
}

# same_view: the step's view of the ledger (loop/ledger.tsv) is the
# ledger's whole verified export, byte for byte.
same_view() {
	ar-ledger export -C camp -V -f tsv > whole.tsv
	cmp whole.tsv camp/loop/ledger.tsv
}

# A step reads the ledger through loop/ledger.tsv, kept between steps:
# rows of sealed segments are read once, loose ones each step. With the
# budget spent (--experiments 0 left), a step is its bookkeeping alone.
@test "ar-loop: the ledger's export is kept in loop/ and read in proportion to what is new; a changed segment or a torn cache makes it again" {
	step() {
		AR_PLANNER= AR_AGENT= run --separate-stderr -0 ar-loop "${L[@]}" --once --experiments 1 "${B[@]}"
	}
	ar-sign-test -C camp -g 40 -s 7 > a.jsonl
	AR_LEDGER_COMPACT=0 ar-ledger append -C camp a.jsonl 2> /dev/null
	ar-ledger compact -C camp 2> /dev/null
	ar-sign-test -C camp -g 3 -s 8 > b.jsonl
	AR_LEDGER_COMPACT=0 ar-ledger append -C camp b.jsonl 2> /dev/null
	step
	[[ $stderr == *"budget spent: "* ]]
	same_view
	[ "$(sed -n 1p camp/loop/ledger.stamp)" = "ar-loop ledger cache 1" ]
	[ "$(sed -n 2p camp/loop/ledger.stamp | cut -d' ' -f2,3)" = "1 40" ]
	[ "$(tail -n +3 camp/loop/ledger.stamp | cut -d' ' -f1)" = 00000001.tsv ]
	# A segment read once is not read again: a mark put in its cached
	# row (same length) stays through steps with new loose results and a
	# new segment.
	sed -i '2s/\tyes\tyes\t/\tYES\tyes\t/' camp/loop/ledger.tsv
	ar-sign-test -C camp -g 2 -s 9 > c.jsonl
	AR_LEDGER_COMPACT=0 ar-ledger append -C camp c.jsonl 2> /dev/null
	step
	[ "$(sed -n 2p camp/loop/ledger.tsv | cut -f2)" = YES ]
	ar-ledger compact -C camp 2> /dev/null
	step
	[ "$(sed -n 2p camp/loop/ledger.tsv | cut -f2)" = YES ]
	[ "$(tail -n +3 camp/loop/ledger.stamp | cut -d' ' -f1 | tr '\n' ' ')" = "00000001.tsv 00000002.tsv " ]
	sed -i '2s/\tYES\tyes\t/\tyes\tyes\t/' camp/loop/ledger.tsv
	same_view
	# A folded segment whose stat changed (here only touched): read again.
	sed -i '2s/\tyes\tyes\t/\tYES\tyes\t/' camp/loop/ledger.tsv
	touch -d '2026-01-01 00:00:00' camp/ledger/seg/00000001.tsv
	step
	same_view
	# Rows appended but no stamp written (a kill -9 between the two):
	# cut back to what the stamp holds.
	printf 'torn\trow\n' >> camp/loop/ledger.tsv
	step
	same_view
	# A cache cut short, or a stamp that does not parse: made again.
	truncate -s 100 camp/loop/ledger.tsv
	step
	same_view
	printf 'ar-loop ledger cache 1\nx y\n' > camp/loop/ledger.stamp
	step
	same_view
	# A segment edited in place (its signed rows no longer hold): the
	# step says so and stops, as the whole export does.
	sed -i '2s/exp-0/exp-9/g' camp/ledger/seg/00000002.tsv
	AR_PLANNER= AR_AGENT= run --separate-stderr ar-loop "${L[@]}" --once --experiments 1 "${B[@]}"
	[ "$status" -eq 70 ]
	[[ $stderr == *"step 1: ar-ledger export: ar-ledger: 1 problem found"* ]]
}

# The hook: each event's JSON appended to notes.jsonl, its AR_EVENT
# and AR_CAMPAIGN to events.
@test "ar-loop --notify: each new keep once, with its row; the end once per reason; past keeps not news" {
	hook='cat >> notes.jsonl; echo >> notes.jsonl; echo "$AR_EVENT $AR_CAMPAIGN" >> events'
	ar-sign-test -C camp -g 7 -s 1 > old.jsonl
	ar-ledger append -C camp old.jsonl 2> /dev/null
	[ "$(jq -s 'map(select(.verdict == "keep")) | length' old.jsonl)" -eq 1 ]
	# The first time, the keep already there is noted, not announced.
	AR_PLANNER= AR_AGENT= run --separate-stderr -0 ar-loop "${L[@]}" --once --experiments 100000 --notify "$hook" "${B[@]}"
	[ ! -e events ]
	grep -q "^keep $(jq -r 'select(.verdict == "keep") | .id' old.jsonl)	ok\$" camp/loop/notified
	# Two new keeps: each announced once, with its row and the campaign.
	ar-sign-test -C camp -g 14 -s 2 > new.jsonl
	ar-ledger append -C camp new.jsonl 2> /dev/null
	AR_PLANNER= AR_AGENT= run --separate-stderr -0 ar-loop "${L[@]}" --once --experiments 100000 --notify "$hook" "${B[@]}"
	same "$(cat events)" "keep $T/camp
keep $T/camp"
	same "$(jq -rs 'map(.id) | sort | join(" ")' notes.jsonl)" \
	    "$(jq -rs 'map(select(.verdict == "keep") | .id) | sort | join(" ")' new.jsonl)"
	same "$(jq -rs 'map(.event + " " + .verdict + " " + (.campaign == "'"$(ar-campaign get -C camp campaign)"'" | tostring)) | unique | join(",")' notes.jsonl)" \
	    "keep keep true"
	# Not again.
	AR_PLANNER= AR_AGENT= AR_NOTIFY="$hook" run --separate-stderr -0 ar-loop "${L[@]}" --once --experiments 100000 "${B[@]}"
	[ "$(wc -l < events)" -eq 2 ]
	# The end: once, however often cron starts the spent loop again.
	: > notes.jsonl
	for _ in 1 2; do
		run --separate-stderr -0 ar-loop "${L[@]}" --once --experiments 1 --notify "$hook" "${B[@]}"
		[[ $stderr == *"budget spent: experiments "* ]]
	done
	same "$(tail -n 1 events)" "end $T/camp"
	[ "$(grep -c '^end ' events)" -eq 1 ]
	n=$(rows)
	same "$(jq -c 'del(.gpu_hours)' notes.jsonl | grep .)" \
	    "{\"event\":\"end\",\"campaign\":\"$(ar-campaign get -C camp campaign)\",\"why\":\"budget spent: experiments $n of 1\",\"experiments\":$n,\"digest\":\"$T/camp/loop/digest.md\"}"
}

@test "ar-loop --notify: a failing hook is said and tried again, three times in all; a loop that stops on an error says why" {
	ar-sign-test -C camp -g 7 -s 1 > old.jsonl
	ar-ledger append -C camp old.jsonl 2> /dev/null
	# No notified file yet: mark the keep as news by an empty one.
	mkdir -p camp/loop
	: > camp/loop/notified
	for t in 1 2 3 4; do
		AR_PLANNER= AR_AGENT= run --separate-stderr -0 ar-loop "${L[@]}" --once --experiments 100000 --notify 'echo "no route to host" >&2; exit 3' "${B[@]}"
		if [ "$t" -le 3 ]; then
			[[ $stderr == *"ar-loop: notify: keep "*": the hook exited 3 (try $t of 3): no route to host"* ]]
		else
			[[ $stderr != *"notify"* ]]
		fi
	done
	# A hook that hangs is cut at AR_NOTIFY_TIMEOUT; the loop goes on.
	: > camp/loop/notified
	AR_NOTIFY_TIMEOUT=1 AR_PLANNER= AR_AGENT= run --separate-stderr -0 ar-loop "${L[@]}" --once --experiments 100000 --notify 'exec sleep 600' "${B[@]}"
	[[ $stderr == *"the hook exited 124 (try 1 of 3)"* ]]
	# The ledger cannot be exported: the loop stops, and the hook hears why.
	echo '{"broken": ' > camp/ledger/results/zz.json
	AR_PLANNER= AR_AGENT= run --separate-stderr ar-loop "${L[@]}" --once --experiments 100000 --notify 'cat > stop.json' "${B[@]}"
	[ "$status" -eq 70 ]
	same "$(jq -r .event stop.json)" stop
	[[ "$(jq -r .why stop.json)" == "exit status 70: step "*": ar-ledger export: "* ]]
}

@test "ar-loop from cron: called by its path with cron's PATH, it finds its programs; its lines carry the time" {
	# An installation's bin/: the scripts beside the programs.
	mkdir inst
	cp "$TOP/scripts/ar-loop" "$TOP/scripts/ar-plan" "$TOP/scripts/ar-agent" "$TOP/scripts/common.sh" inst/
	for p in ar-campaign ar-init ar-queue ar-ledger ar-bench ar-curve ar-digest ar-sched ar-run; do
		ln -s "$(command -v "$p")" "inst/$p"
	done
	run --separate-stderr env -i HOME="$HOME" PATH=/usr/bin:/bin "$T/inst/ar-loop" "${L[@]}" --once "${B[@]}"
	[ "$status" -eq 0 ] || { echo "$stderr"; false; }
	[[ $stderr == *"ar-loop: step 1: "* ]]
	# stderr is not a terminal: every line of the loop's own starts
	# with the UTC time.
	grep 'ar-loop: ' <<< "$stderr" > loop.log
	[ -s loop.log ]
	not grep -Ev '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z ar-loop: ' loop.log
	# AR_LOG_TIME=0: none.
	run --separate-stderr env -i HOME="$HOME" PATH=/usr/bin:/bin AR_LOG_TIME=0 "$T/inst/ar-loop" -C nocamp
	same "$stderr" "ar-loop: nocamp: not a campaign (no campaign.conf)"
}

@test "make install: programs, scripts, pages, and the problems and examples the pages name; the installed loop runs from cron's PATH" {
	# The build under test is the one whose programs are on PATH.
	o=$(cd "$(dirname "$(command -v ar-campaign)")/.." && pwd)
	run --separate-stderr make -C "$TOP" O="$o" DESTDIR="$T/d" PREFIX=/usr/local install
	[ "$status" -eq 0 ] || { echo "$stderr"; false; }
	s=$T/d/usr/local/share/autoreduce
	[ -x "$T/d/usr/local/bin/ar-loop" ] && [ -x "$T/d/usr/local/bin/ar-bench" ]
	[ -f "$T/d/usr/local/share/man/man1/ar-loop.1" ]
	[ -x "$s/examples/agent/agent" ] && [ -x "$s/examples/agent/planner" ]
	[ -f "$s/problems/int8-matvec/problem.json" ] && [ -f "$s/problems/specdec/problem.json" ]
	# The installed loop, by its path, with cron's PATH, the installed
	# example planner and agent.
	run --separate-stderr env -i HOME="$HOME" PATH=/usr/bin:/bin AR_LOG_TIME=0 \
	    AR_PLANNER="$s/examples/agent/planner" AR_AGENT="$s/examples/agent/agent" \
	    "$T/d/usr/local/bin/ar-loop" "${L[@]}" --once "${B[@]}"
	[ "$status" -eq 0 ] || { echo "$stderr"; false; }
	[[ $stderr == *"ar-loop: step 1: agents: "* ]]
	run -0 make -C "$TOP" O="$o" DESTDIR="$T/d" PREFIX=/usr/local uninstall
	[ ! -e "$s/examples" ] && [ ! -e "$T/d/usr/local/bin/ar-loop" ]
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
	# The first loop holds the lock while its agents sleep, until the
	# test ends their sleeps (their length names them for pgrep).
	slow=$((100000 + RANDOM))
	AR_AGENT=$FIX/slow SLOW=$slow ar-loop "${L[@]}" --once "${B[@]}" 2> first.err &
	pid=$!
	poll running "sleep $slow"
	[ -e camp/loop/lock ]
	run --separate-stderr -75 ar-loop "${L[@]}" --once "${B[@]}"
	[[ $stderr == *"another ar-loop holds the campaign (pid $pid on $(hostname))"* ]]
	# The loop runs two agents, and the second may start its sleep after
	# the first's is ended: each sleep ends as it starts, until the loop
	# is done.
	while ! exited "$pid"; do
		pkill -fx "sleep $slow" || true
		sleep 0.1
	done
	wait "$pid"
	[ ! -e camp/loop/lock ]
	# A lock left by a loop that died (kill -9): broken.
	dead_pid
	echo "$(hostname) $dead 1 x" > camp/loop/lock
	run --separate-stderr -0 ar-loop "${L[@]}" --once "${B[@]}"
	[[ $stderr == *"broke the lock of pid $dead on $(hostname), which died"* ]]
	[ ! -e camp/loop/lock ]
	# A lock of a loop on another host: kept (its pid means nothing here).
	echo "other-host.example $dead 1 x" > camp/loop/lock
	run --separate-stderr -75 ar-loop "${L[@]}" --once "${B[@]}"
	[[ $stderr == *"(pid $dead on other-host.example)"* ]]
	[ -e camp/loop/lock ]
}

@test "ar-loop: SIGTERM: the loop stops at once, passes it on to its agents, leaves no lock" {
	# An agent at work for a day (its sleep's length names it for pgrep):
	# a loop that waited for it would not end before poll gives up.
	slow=$((100000 + RANDOM))
	AR_AGENT=$FIX/slow SLOW=$slow ar-loop "${L[@]}" "${B[@]}" 2> err &
	pid=$!
	poll running "sleep $slow"
	[ "$(ar-queue ls -s cur camp/ideas | tail -n +2 | wc -l)" -gt 0 ]
	kill -TERM "$pid"
	poll exited "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 143 ]
	[ ! -e camp/loop/lock ]
	poll no_claimed_ideas
	poll gone "sleep $slow"
}

@test "ar-loop, ar-agent, ar-plan: a child that missed the first TERM is sent it again; one that ignores TERM gets KILL after the grace" {
	# A TERM that lands between a child's fork and its exec is taken by
	# the trap it inherited and lost: the first child stands for one
	# (it stops at its second TERM), the second ignores them all.
	cat > stop.sh <<-'EOS'
	prog=test ar_here=$AR_TOP/scripts
	. "$AR_TOP/scripts/common.sh"
	trap 'sig=TERM' TERM
	bash -c 'n=0; trap '\''n=$((n + 1)); echo "$n" >> terms; [ "$n" -lt 2 ] || exit 0'\'' TERM; : > a.up; while :; do sleep 0.05; done' &
	a=$!
	bash -c 'trap "" TERM; : > b.up; while :; do sleep 0.05; done' &
	b=$!
	# Both have set their traps.
	until [ -e a.up ] && [ -e b.up ]; do sleep 0.05; done
	stop_children 1 "$a" "$b"
	# Not in $(...): a subshell's children are not its parent's.
	sa=gone sb=gone
	! our_child_runs "$a" || sa=runs
	! our_child_runs "$b" || sb=runs
	[ -e "/proc/$a" ] || sa=reaped
	[ -e "/proc/$b" ] || sb=reaped
	echo "a $sa b $sb"
	EOS
	# A stop_children that never signals would wait for ever.
	run --separate-stderr timeout -k 5 120 bash stop.sh
	[ "$status" -eq 0 ] || { echo "$stderr"; false; }
	same "$output" "a reaped b reaped"
	# Not lost twice: the first child counted two TERMs, then stopped.
	same "$(tail -n 1 terms)" 2
}

@test "ar-loop: Claude Code (a stand-in claude) as planner and agent: planned, self-checked, measured; the digest names the idea" {
	export PATH=$BATS_TEST_DIRNAME/fixtures/claude:$PATH
	export HOME=$T/home
	mkdir -p "$HOME"
	AR_PLANNER=$TOP/examples/agent/claude-planner AR_AGENT=$TOP/examples/agent/claude-agent \
	    run --separate-stderr -0 ar-loop "${L[@]}" -a 1 --experiments 3 "${B[@]}"
	[[ $stderr == *"step 1: agents: 1 done, 0 failed"* ]] || { echo "$stderr" | tail -30; false; }
	[ "$(ar-queue ls -f jsonl camp/ideas | jq -r '[.record.title, .state] | join(" ")')" = "unroll by four done" ]
	# The node's A/A, then the method; an empty idea list is an answer,
	# asked once a step, never retried.
	[ "$(ar-ledger export -C camp -f jsonl | jq -s 'map(select(.aa | not)) | length')" -ge 1 ]
	[[ $stderr == *"ar-plan: the planner proposed no ideas; nothing stored"* ]]
	[[ $stderr != *"no ideas after"* ]]
	ar-ledger verify -C camp
	# The method's results carry the idea's title in the digest.
	grep -q '| unroll by four |' camp/loop/digest.md
	grep -q '^| unroll by four | done |' camp/loop/digest.md
}

@test "ar-loop: agents work while the benchmark measures (timestamps of the agent and the result)" {
	jq -cn '{title: "overlap", hypothesis: "h", sources: ["s"]}' | ar-queue put -f jsonl camp/ideas > /dev/null
	# The agent finishes only once a measurement has: a loop that ran
	# its agents before measuring would never see one, and fail it.
	AR_PLANNER= AR_AGENT=$FIX/overlap run --separate-stderr -0 ar-loop "${L[@]}" -a 1 -t 120 --once "${B[@]}"
	[[ $stderr == *"step 1: agents: 1 done, 0 failed"* ]] || { echo "$stderr"; false; }
	log=$(ls camp/log/agent-*.log)
	started=$(sed -n 's/^agent started //p' "$log")
	finished=$(sed -n 's/^agent finished //p' "$log")
	# The node's A/A finished within the agent's session (to the second).
	aa=$(ar-ledger export -C camp -f jsonl | jq -r 'select(.aa) | .finished[0:19]')
	[ -n "$aa" ]
	[[ ! "$aa" < "${started:0:19}" ]]
	[[ ! "$aa" > "${finished:0:19}" ]]
}

@test "ar-loop: what an agent submits is measured while the other agents of its step still work" {
	for t in first second; do
		jq -cn --arg t "$t" '{title: $t, hypothesis: "h", sources: ["s"]}' | ar-queue put -f jsonl camp/ideas > /dev/null
	done
	# first submits after the step's first round (the A/A) is measured;
	# second waits for first's measurement. A loop that waited for all
	# its agents before measuring again would never give it one.
	AR_PLANNER= AR_AGENT=$FIX/relay run --separate-stderr -0 ar-loop "${L[@]}" -a 2 -t 300 --once "${B[@]}"
	[[ $stderr == *"step 1: agents: 2 done, 0 failed"* ]] || { echo "$stderr"; false; }
	# One step, and in it a result of a method (not only the A/A).
	grep -qx 'step 1' camp/loop/state
	[ "$(ar-ledger export -C camp -f jsonl | jq -s 'map(select(.aa | not)) | length')" -ge 1 ]
}

@test "ar-loop -t: an agent that hangs is stopped at the limit; its idea failed, saying so" {
	jq -cn '{title: "hang", hypothesis: "h", sources: ["s"]}' | ar-queue put -f jsonl camp/ideas > /dev/null
	AR_PLANNER= AR_AGENT="SLOW=100000 $FIX/slow" run --separate-stderr -0 ar-loop "${L[@]}" -a 1 -t 1 --once "${B[@]}"
	[[ $stderr == *"step 1: agents: 0 done, 1 failed"* ]]
	[ "$(ar-queue ls -f jsonl camp/ideas | jq -r '[.state, .why] | join(" ")')" = "failed the agent ran past 1 s" ]
}

@test "ar-loop: command line" {
	run -0 ar-loop -h
	[ "$output" = "$USAGE" ]
	run -0 ar-loop --version
	[ "$output" = "ar-loop $VERSION" ]
	run -64 ar-loop -x
	run -64 ar-loop -C camp -a many
	run -64 ar-loop -C camp -t 0
	run -64 ar-loop -C camp -t soon
	run -64 ar-loop -C camp --wall-hours soon
	run -64 ar-loop -C camp --cpus --gpus 2
	run -64 ar-loop -C camp --backend k8s
	run -64 ar-loop -C camp extra
	run -64 ar-loop
	run -66 ar-loop -C nowhere
	run -66 ar-loop -C camp -g missing.tsv
}
