#!/usr/bin/env bats
# ar-agent: one worker. With the fake agents of fixtures/agent (small
# shell scripts): a good agent's method committed on the idea's branch
# over the baseline's root commit on main, and submitted with the right
# commit, idea, label, category, hint and workload; the prompt it gets;
# agents racing to make main; an agent that writes a file outside the
# mutable globs, one that makes a symlink, one that changes nothing and
# one that gives up: each idea failed with the reason, nothing submitted;
# a lease renewed while a slow agent works; an idea submitted already; the
# sandbox (key, ledger and keys hidden, the campaign read-only); bwrap
# missing (69 unless --no-sandbox); backpressure (75 with --once); the
# scripted example agent; the command line.

bats_require_minimum_version 1.5.0
load common

setup_file() {
	SANDBOX=
	if command -v bwrap >/dev/null 2>&1 &&
	    bwrap --ro-bind / / --dev /dev --proc /proc --unshare-pid \
	    --die-with-parent true >/dev/null 2>&1; then
		SANDBOX=bwrap
	fi
	export SANDBOX
}

setup() {
	ar_setup ar-agent
	export AR_TOP=$TOP
	FIX=$BATS_TEST_DIRNAME/fixtures/agent
	USAGE="usage: ar-agent [--once] [--no-sandbox] [-C campaign] [-H holder] [-l lease] [-q pending] [-Q seconds] [-t seconds] [-w workload]"
	unset AR_AGENT AR_CAMPAIGN AR_HOLDER AR_PROGRAM AR_BWRAP AR_AGENT_BIND
	if [ -n "$SANDBOX" ]; then
		NOSB=()
	else
		NOSB=(--no-sandbox)
	fi
	cd "$T"
	mkcamp -p "$TOP/problems/int8-matvec"
}

teardown() {
	ar_teardown
}

# idea TITLE [JSON]: puts an idea; prints its id.
idea() {
	jq -cn --arg t "$1" --argjson x "${2:-{\}}" \
	    '{title: $t, category: "unroll", hypothesis: "h", hint: "scale", priority: 5, sources: ["s"]} + $x' |
	    ar-queue put -f jsonl camp/ideas
}

subs() { ar-queue ls -f jsonl camp/submitted | jq -c .record; }
state() { ar-queue ls -f jsonl camp/ideas | jq -r --arg id "$1" 'select(.record.id == $id) | .state'; }
why() { ar-queue ls -f jsonl camp/ideas | jq -r --arg id "$1" 'select(.record.id == $id) | .why'; }

@test "ar-agent: a good agent's method: committed over the baseline on main, submitted with the right commit" {
	id=$(idea "four rows at a time")
	AR_AGENT=$FIX/good run --separate-stderr -0 ar-agent "${NOSB[@]}" -C camp --once -H w1
	mid=$output
	[[ $mid == m-* ]]
	[ "$(state "$id")" = done ]
	run -0 subs
	[ "${#lines[@]}" -eq 1 ]
	s=${lines[0]}
	commit=$(printf '%s' "$s" | jq -r .method)
	[ "$(printf '%s' "$s" | jq -r .id)" = "m-${commit:0:12}" ]
	[ "$(printf '%s' "$s" | jq -r .id)" = "$mid" ]
	[ "$(printf '%s' "$s" | jq -r .idea)" = "$id" ]
	[ "$(printf '%s' "$s" | jq -r .label)" = "four rows at a time" ]
	[ "$(printf '%s' "$s" | jq -r .category)" = unroll ]
	[ "$(printf '%s' "$s" | jq -r .hint)" = scale ]
	[ "$(printf '%s' "$s" | jq -r .workload)" = decode-64m ]
	# The commit is the idea's branch, one commit over main, which is the
	# baseline as it is in the sealed problem.
	[ "$(git -C camp/methods rev-parse "idea/$id")" = "$commit" ]
	[ "$(git -C camp/methods rev-parse "$commit^")" = "$(git -C camp/methods rev-parse main)" ]
	[ -z "$(git -C camp/methods rev-list --parents -n 1 main | cut -s -d' ' -f2)" ]
	git -C camp/methods diff --quiet main "$commit" -- Makefile
	git -C camp/methods show "main:matvec.c" | cmp - camp/problem/baseline/matvec.c
	git -C camp/methods show "$commit:matvec.c" | tail -n 1 | grep -qF '/* four rows at a time */'
	[ "$(git -C camp/methods diff --name-only main "$commit")" = matvec.c ]
	# The worktree is gone, the agent's output kept.
	[ ! -e "camp/work/$id" ]
	grep -q 'good agent: edited matvec.c' "camp/log/agent-$id.log"
	# ar-bench takes the commit as a method.
	git -C camp/methods rev-parse --verify "$commit^{commit}"
}

@test "ar-agent: the prompt: program.md's worker section, the idea, the mutable files, the digest" {
	idea "tile the columns" '{"variant": "fast"}' > /dev/null
	mkdir -p camp/loop
	echo "# digest" > camp/loop/digest.md
	PROMPT_OUT=$T/prompt AR_AGENT=$FIX/good run -0 ar-agent --no-sandbox -C camp --once -w tiny
	grep -q '^## Worker' prompt
	not grep -q '^## Planner' prompt
	grep -q 'What gets a method rejected' prompt
	grep -q '"title": "tile the columns"' prompt
	grep -q '"variant": "fast"' prompt
	grep -q "Mutable files, the only ones you may change: matvec.c, Makefile" prompt
	grep -q "Digest of the campaign so far: $CAMP/loop/digest.md" prompt
	[ "$(subs | jq -r .workload)" = tiny ]
}

@test "ar-agent: agents racing on a fresh campaign: one root commit on main, every method over it" {
	for i in 1 2 3 4; do idea "idea $i" > /dev/null; done
	for i in 1 2 3 4; do
		AR_AGENT=$FIX/good ar-agent "${NOSB[@]}" -C camp --once -H "w$i" > /dev/null 2>> "$T/race.err" &
	done
	wait
	cat "$T/race.err" >&2
	[ "$(subs | wc -l)" = 4 ]
	main=$(git -C camp/methods rev-parse main)
	for c in $(subs | jq -r .method); do
		[ "$(git -C camp/methods rev-parse "$c^")" = "$main" ]
	done
	[ "$(git -C camp/methods rev-list --max-parents=0 --all | sort -u | wc -l)" = 1 ]
	[ "$(ar-queue ls -s done camp/ideas | tail -n +2 | wc -l)" = 4 ]
}

@test "ar-agent: the agent gets no descriptor of its caller's but the prompt and the log" {
	id=$(idea "what it holds")
	# A pipe and a file held open by the caller (a loop's lock, a test
	# harness's pipe) stay out of the sandbox.
	exec 7> "$T/held"
	AR_AGENT=$FIX/fds ar-agent "${NOSB[@]}" -C camp --once 8>&1 | cat > /dev/null
	exec 7>&-
	log=camp/log/agent-$id.log
	grep '^fd ' "$log"
	run -1 grep -E '^fd [0-9]+ .*(held|pipe:)' "$log"
	[ "$(grep -c '^fd 0 ' "$log")" -eq 1 ]
	[ "$(state "$id")" = done ]
}

@test "ar-agent: a new file outside the mutable globs is left out of the method, named in the log" {
	id=$(idea "a faster judge")
	AR_AGENT=$FIX/forbidden run --separate-stderr -0 ar-agent "${NOSB[@]}" -C camp --once
	[[ $stderr == *"idea $id: 1 new file outside the mutable files left out (build outputs; see "* ]]
	[ "$(state "$id")" = done ]
	commit=$(subs | jq -r .method)
	[ "$(git -C camp/methods diff --name-only main "$commit")" = matvec.c ]
	grep -qx '  judge.mk' "camp/log/agent-$id.log"
	[ ! -e "camp/work/$id" ]
}

@test "ar-agent: a tracked file outside the mutable globs changed: the idea failed naming it" {
	cp -R "$TOP/problems/int8-matvec" prob
	jq '.mutable = ["matvec.c"]' "$TOP/problems/int8-matvec/problem.json" > prob/problem.json
	mkcamp -p prob camp2
	id=$(jq -cn '{title: "t", hypothesis: "h", sources: ["s"]}' | ar-queue put -f jsonl camp2/ideas)
	AR_AGENT=$FIX/tracked run --separate-stderr -1 ar-agent "${NOSB[@]}" -C camp2 --once
	[ "$(ar-queue ls -f jsonl camp2/ideas | jq -r .why)" = "Makefile: modified, outside the mutable files (matvec.c)" ]
	[ "$(ar-queue ls -f jsonl camp2/submitted | wc -l)" = 0 ]
}

@test "ar-agent: an agent that builds in place: build outputs are no change; the baseline's .gitignore is honoured" {
	# A problem whose baseline ignores *.tmp.
	cp -R "$TOP/problems/int8-matvec" prob
	printf '*.tmp\n' > prob/baseline/.gitignore
	mkcamp -p prob camp2
	id=$(jq -cn '{title: "t", hypothesis: "h", sources: ["s"]}' | ar-queue put -f jsonl camp2/ideas)
	AR_AGENT=$FIX/builds run --separate-stderr -0 ar-agent "${NOSB[@]}" -C camp2 --once
	[[ $stderr == *"2 new files outside the mutable files left out"* ]]
	commit=$(ar-queue ls -f jsonl camp2/submitted | jq -r .record.method)
	[ "$(git -C camp2/methods diff --name-only main "$commit")" = matvec.c ]
	# Named in the log: the object and the build log; not the ignored file.
	grep -qx '  matvec.o' "camp2/log/agent-$id.log"
	grep -qx '  build.log' "camp2/log/agent-$id.log"
	not grep -q scratch.tmp "camp2/log/agent-$id.log"
}

@test "ar-agent: the agent commits its steps on its own branch in the worktree; the method is its last state" {
	id=$(idea "two steps")
	AR_AGENT=$FIX/commits run --separate-stderr -0 ar-agent "${NOSB[@]}" -C camp --once
	grep -qx "commits: 3 commits on idea/$id" "camp/log/agent-$id.log"
	commit=$(subs | jq -r .method)
	git -C camp/methods show "$commit:matvec.c" | tail -n 2 > tail.txt
	printf '/* step 1 */\n/* step 2 */\n' | cmp - tail.txt
	# One commit over main on the campaign's branch; the agent's own
	# repository went with its worktree.
	[ "$(git -C camp/methods rev-list --count "main..idea/$id")" = 1 ]
	[ ! -e "camp/work/$id" ]
}

@test "ar-agent: an agent command under /tmp runs in the sandbox, which hides /tmp" {
	[ -n "$SANDBOX" ] || skip "bubblewrap cannot make a sandbox here"
	d=$(mktemp -d /tmp/ar-agent-test.XXXXXX)
	cp "$FIX/good" "$d/agent"
	id=$(idea "from tmp")
	AR_AGENT="$d/agent" run --separate-stderr -0 ar-agent -C camp --once
	rm -rf "$d"
	[ "$(state "$id")" = done ]
	[ "$(subs | wc -l)" = 1 ]
}

@test "ar-agent: an agent named by a relative path (examples/agent/agent), with variables before it and arguments after" {
	mkdir -p my/agents
	cp "$FIX/good" my/agents/agent
	id=$(idea "relative")
	AR_AGENT='X=1 my/agents/agent --flag "two words"' run --separate-stderr -0 ar-agent "${NOSB[@]}" -C camp --once
	[ "$(state "$id")" = done ] || { echo "$stderr"; false; }
	[ "$(subs | wc -l)" = 1 ]
}

@test "ar-agent: the self-check (ar-bench --check) in the agent's worktree: pass, fail with why, nothing stored" {
	id=$(idea "checked")
	AR_AGENT=$FIX/selfcheck run --separate-stderr -0 ar-agent "${NOSB[@]}" -C camp --once -w tiny
	log=camp/log/agent-$id.log
	cat "$log"
	# The baseline passes; a wrong kernel fails, saying why; the edit,
	# built in place, passes.
	[ "$(grep -c '^pass: built and ran on workload tiny (one pair, dev seeds): the gates, the guardrails and the work hold; nothing was signed or stored$' "$log")" -eq 2 ]
	grep -qx 'check 1: exit 0' "$log"
	grep -qx 'fail: invalid: gate bad == 0 failed: [0-9]* (pair 0)' "$log"
	grep -qx 'check 2: exit 1' "$log"
	grep -qx 'check 3: exit 0' "$log"
	not grep -q 'ar-bench: ' "$log"
	# Nothing signed, stored or counted.
	[ "$(ar-ledger export -C camp -f tsv | wc -l)" -eq 1 ]
	[ "$(state "$id")" = done ]
}

@test "ar-bench --check: only the options that say what to build; outside a sandbox, its own" {
	run --separate-stderr -64 ar-bench --check -C camp -a
	[ "$stderr" = "ar-bench: --check takes only -C, -m, -w, -k, -G, -t, -q, -v, --device and --no-sandbox" ]
	run --separate-stderr -64 ar-bench --check -C camp -p 5
	run --separate-stderr -64 ar-bench --check -C camp --aa
	cp -R camp/problem/baseline m
	chmod -R u+w m
	echo '/* x */' >> m/matvec.c
	echo junk > m/notes.txt
	run --separate-stderr -0 ar-bench --check -C camp -m m -w tiny "${NOSB[@]}"
	[[ $output == "pass: "* ]]
	(cd m && ar-bench --check -C ../camp -w tiny "${NOSB[@]}") > out
	grep -q '^pass: ' out
	[ "$(ar-ledger export -C camp -f tsv | wc -l)" -eq 1 ]
}

@test "ar-agent: Claude Code through examples/agent/claude-agent (a stand-in claude): edits, self-checks, submits; its config untouched" {
	export PATH=$BATS_TEST_DIRNAME/fixtures/claude:$PATH
	export HOME=$T/home
	mkdir -p "$HOME/.claude"
	echo '{"model": "x"}' > "$HOME/.claude/settings.json"
	before=$(snapshot "$HOME")
	id=$(idea "four rows at a time")
	AR_AGENT=$TOP/examples/agent/claude-agent run --separate-stderr -0 ar-agent "${NOSB[@]}" -C camp --once -w tiny
	[ "$(state "$id")" = done ]
	grep -q '^claude: self-check: pass: built and ran on workload tiny' "camp/log/agent-$id.log"
	commit=$(subs | jq -r .method)
	git -C camp/methods show "$commit:matvec.c" | grep -qx '/\* claude: four rows at a time \*/'
	# Its session state went to a copy in the sandbox's /tmp.
	[ "$(snapshot "$HOME")" = "$before" ]
	# The flags once suggested (acceptEdits) let it run no shell command:
	# the idea fails, saying so.
	id2=$(idea "accept edits only")
	AR_AGENT="claude -p --permission-mode acceptEdits" run --separate-stderr -1 ar-agent "${NOSB[@]}" -C camp --once -w tiny
	[ "$(why "$id2")" = "the agent exited 1: claude: Bash(make) needs permission; none was given in -p mode" ]
}

@test "ar-agent: an agent command that is not there: exit 69 before claiming an idea" {
	id=$(idea "nowhere")
	AR_AGENT="/nonexistent/agent -p" run --separate-stderr -69 ar-agent "${NOSB[@]}" -C camp --once
	[ "$stderr" = "ar-agent: AR_AGENT: /nonexistent/agent: not found or not executable" ]
	[ "$(state "$id")" = new ]
}

@test "ar-agent: a symlink, no change, an agent that gives up: each idea failed with why" {
	a=$(idea a)
	AR_AGENT=$FIX/symlink run -1 ar-agent "${NOSB[@]}" -C camp --once
	[ "$(why "$a")" = "Makefile: not a regular file (mode 120000)" ]
	b=$(idea b)
	AR_AGENT=$FIX/nochange run -1 ar-agent "${NOSB[@]}" -C camp --once
	[ "$(why "$b")" = "the agent changed nothing" ]
	c=$(idea c)
	AR_AGENT=$FIX/giveup run -1 ar-agent "${NOSB[@]}" -C camp --once
	[ "$(why "$c")" = "the agent exited 3: giveup: the idea cannot work here" ]
	d=$(idea d)
	SLOW=10 AR_AGENT=$FIX/slow run -1 ar-agent "${NOSB[@]}" -C camp --once -t 1
	[ "$(why "$d")" = "the agent ran past 1 s" ]
	[ "$(subs | wc -l)" = 0 ]
}

@test "ar-agent: an agent that rewrites the worktree's .git file: git still works on the campaign's repository" {
	id=$(idea gitfile)
	AR_AGENT=$FIX/gitfile run --separate-stderr -1 ar-agent "${NOSB[@]}" -C camp --once
	# Its repository without a commit, in the worktree, is what fails
	# the idea.
	[ "$(state "$id")" = failed ]
	[[ "$(why "$id")" == *"fake/"* ]]
	[ "$(subs | wc -l)" = 0 ]
	[ ! -e "camp/work/$id" ]
	git -C camp/methods worktree list --porcelain | grep -vq "work/$id"
}

@test "ar-agent: a slow agent keeps its lease (renewed), and its method is submitted" {
	id=$(idea slow)
	# The agent works until the test ends its sleep (its length names it
	# for pgrep), whatever the load.
	slow=$((100000 + RANDOM))
	SLOW=$slow AR_AGENT=$FIX/slow ar-agent "${NOSB[@]}" -C camp --once -l 3 -H slowpoke > out 2> err &
	pid=$!
	poll running "sleep $slow"
	[ "$(state "$id")" = cur ]
	# Past the first lease (3 s from the claim, which came before the
	# agent started), still held: reap returns nothing.
	sleep 4
	[ "$(ar-queue reap camp/ideas)" = 0 ]
	[ "$(state "$id")" = cur ]
	pkill -fx "sleep $slow"
	wait "$pid"
	[ "$(state "$id")" = done ]
	[ "$(subs | wc -l)" = 1 ]
}

@test "ar-agent: SIGTERM stops the agent at once and gives the idea back" {
	id=$(idea stopped)
	# An agent at work for a day (its sleep's length names it for pgrep):
	# an ar-agent that waited for it would not end before poll gives up.
	slow=$((100000 + RANDOM))
	SLOW=$slow AR_AGENT=$FIX/slow ar-agent "${NOSB[@]}" -C camp --once 2> err &
	pid=$!
	poll running "sleep $slow"
	[ -d "camp/work/$id" ]
	kill -TERM "$pid"
	poll exited "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 143 ]
	grep -q "stopped by SIGTERM; the idea is given back" err
	[ "$(state "$id")" = new ]
	[ ! -e "camp/work/$id" ]
	poll gone "sleep $slow"
}

@test "ar-agent: a sandbox left behind by a bwrap stopped while it started is killed when the run ends" {
	[ -n "$SANDBOX" ] || skip "no bubblewrap sandbox here"
	id=$(idea orphan)
	slow=$((100000 + RANDOM))
	SLOW=$slow AR_AGENT=$FIX/slow ar-agent -C camp --once 2> err &
	pid=$!
	poll running "sleep $slow"
	# What such a sandbox is: a bwrap binding the run's worktree that
	# no process of the run knows of (started here, in a session of its
	# own, so that the run's signals do not reach it).
	wt=$(cd camp && pwd -P)/work/$id
	setsid bwrap --die-with-parent --unshare-pid --ro-bind / / --bind "$wt" "$wt" \
	    sleep $((slow + 1)) > /dev/null 2>&1 < /dev/null &
	poll running "sleep $((slow + 1))"
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 143 ]
	poll gone "sleep $((slow + 1))"
	poll gone "sleep $slow"
}

@test "ar-agent: an idea submitted already (an agent killed before done) is done, not made again" {
	id=$(idea again)
	ar-queue init camp/submitted
	printf '{"id":"m-000000000001","method":"0123","idea":"%s","label":"again"}\n' "$id" |
	    ar-queue put -f jsonl camp/submitted > /dev/null
	AR_AGENT=$FIX/good run --separate-stderr -0 ar-agent "${NOSB[@]}" -C camp --once
	[[ $stderr == *"submitted already as m-000000000001"* ]]
	[ "$(state "$id")" = done ]
	[ "$(subs | wc -l)" = 1 ]
}

@test "ar-agent: the sandbox hides the secret key, the ledger and keys/ but bench.pub; the campaign is read-only" {
	[ -n "$SANDBOX" ] || skip "bwrap cannot make a sandbox here"
	ar-bench -C camp -w tiny -P 4 -T 2 -q --aa -a > /dev/null 2>&1 ||
	    ar-bench -C camp -w tiny -P 4 -T 2 -q --aa -a --no-sandbox > /dev/null
	[ -n "$(ls -A camp/ledger)" ]
	mkdir -p camp/loop
	echo "# digest" > camp/loop/digest.md
	idea spy > /dev/null
	AR_AGENT=$FIX/spy run -0 ar-agent -C camp --once
	c=$(subs | jq -r .method)
	run -0 git -C camp/methods show "$c:matvec.c"
	[[ $output == *"/* key: hidden */"* ]]
	[[ $output == *"/* ledger: hidden */"* ]]
	[[ $output == *"/* keys: hidden */"* ]]
	[[ $output == *"/* campaign: read-only */"* ]]
	[[ $output == *"/* digest: readable */"* ]]
	[[ $output == *"/* tmp: writable */"* ]]
	[ ! -e /tmp/ar-agent-spy ] || [ "$(cat /tmp/ar-agent-spy)" != x ]
}

@test "ar-agent: bwrap missing: exit 69 before claiming; --no-sandbox runs" {
	id=$(idea nobwrap)
	AR_BWRAP=/nonexistent/bwrap AR_AGENT=$FIX/good run --separate-stderr -69 ar-agent -C camp --once
	[[ $stderr == *"/nonexistent/bwrap: not found"* ]]
	[ "$(state "$id")" = new ]
	AR_BWRAP=/nonexistent/bwrap AR_AGENT=$FIX/good run -0 ar-agent --no-sandbox -C camp --once
	[ "$(state "$id")" = done ]
}

@test "ar-agent: backpressure in time: -Q, the seconds of measurement ahead (pending times loop/secs-per-experiment)" {
	id=$(idea later)
	for i in 1 2 3; do
		printf '{"experiment":"e%s","method":"x","k":1}\n' "$i"
	done | ar-queue put -f jsonl camp/queue > /dev/null
	# No figure from the loop yet: only -q holds it back.
	AR_AGENT=$FIX/good run -0 ar-agent "${NOSB[@]}" -C camp --once -Q 10
	[ "$(state "$id")" = done ]
	# 3 pending of 100 s each: 300 s ahead.
	id=$(idea "later still")
	mkdir -p camp/loop
	echo 100 > camp/loop/secs-per-experiment
	AR_AGENT=$FIX/good run --separate-stderr -75 ar-agent "${NOSB[@]}" -C camp --once -Q 299
	[[ $stderr == *"3 experiments pending, about 300 s of measurement ahead (more than 299 s): not claiming an idea now"* ]]
	[ "$(state "$id")" = new ]
	AR_AGENT=$FIX/good run -0 ar-agent "${NOSB[@]}" -C camp --once -Q 300
	[ "$(state "$id")" = done ]
	# A figure that is not a number is no figure.
	id=$(idea "third")
	echo 'nan' > camp/loop/secs-per-experiment
	AR_AGENT=$FIX/good run -0 ar-agent "${NOSB[@]}" -C camp --once -Q 1
	[ "$(state "$id")" = done ]
	run -64 --separate-stderr ar-agent -C camp -Q x
	[[ $stderr == *"-Q: expected a whole number, not 'x'"* ]]
}

@test "ar-agent: backpressure: more than -q experiments pending: --once exits 75 and claims nothing" {
	id=$(idea later)
	for i in 1 2 3; do
		printf '{"experiment":"e%s","method":"x","k":1}\n' "$i"
	done | ar-queue put -f jsonl camp/queue > /dev/null
	AR_AGENT=$FIX/good run --separate-stderr -75 ar-agent "${NOSB[@]}" -C camp --once -q 2
	[[ $stderr == *"3 experiments pending (more than 2)"* ]]
	[ "$(state "$id")" = new ]
	# Within the limit, it works.
	AR_AGENT=$FIX/good run -0 ar-agent "${NOSB[@]}" -C camp --once -q 3
	[ "$(state "$id")" = done ]
	# Without --once it waits, then works once the queue drains.
	id2=$(idea "later still")
	AR_AGENT=$FIX/good ar-agent "${NOSB[@]}" -C camp -q 2 2> err &
	pid=$!
	poll grep -q "waiting" err
	[ "$(state "$id2")" = new ]
	for f in camp/queue/new/*; do mv "$f" camp/queue/done/; done
	wait "$pid"
	[ "$(state "$id2")" = done ]
}

@test "ar-agent: no idea to claim: exit 0; the loop mode takes every idea" {
	AR_AGENT=$FIX/good run --separate-stderr -0 ar-agent "${NOSB[@]}" -C camp --once
	[[ $stderr == *"no idea to claim"* ]]
	for i in 1 2 3; do idea "i$i" > /dev/null; done
	AR_AGENT=$FIX/good run --separate-stderr -0 ar-agent "${NOSB[@]}" -C camp
	[ "${#lines[@]}" -eq 3 ]
	[ "$(subs | wc -l)" = 3 ]
}

@test "ar-agent: the scripted example agent applies the idea's variant" {
	idea "four rows at a time" '{"variant": "fast"}' > /dev/null
	AR_AGENT=$TOP/examples/agent/agent run -0 ar-agent "${NOSB[@]}" -C camp --once
	c=$(subs | jq -r .method)
	git -C camp/methods show "$c:matvec.c" | cmp - "$TOP/examples/int8-matvec/fast/matvec.c"
	git -C camp/methods show "$c:Makefile" | cmp - "$TOP/examples/int8-matvec/fast/Makefile"
	grep -q 'scripted, no model' camp/log/agent-*.log
}

@test "ar-agent: command line" {
	run -0 ar-agent -h
	[ "$output" = "$USAGE" ]
	run -0 ar-agent --version
	[ "$output" = "ar-agent $VERSION" ]
	run -64 ar-agent -x
	run -64 ar-agent -C camp -l soon
	run -64 ar-agent
	run -66 ar-agent -C nowhere
	run --separate-stderr -69 ar-agent -C camp --once
	[[ $stderr == *"no agent: set AR_AGENT"* ]]
	AR_AGENT=true run -64 ar-agent -C camp -H 'bad holder'
}
