#!/usr/bin/env bats
# ar-plan: the planner step. Over HTTP against http-stub on loopback:
# good Anthropic and OpenAI replies (ideas stored with their sources, what
# was sent: model, key header, prompt), a malformed body, JSON without
# ideas, an idea without sources (named), an empty body (all exit 65 after
# -r tries), HTTP 500 and a hang cut by -t (exit 69 after -r tries), a
# refused connection. The AR_PLANNER command path: the prompt it gets
# (program.md's planner section, the problem, the ideas so far, the
# digest), a reply in prose, a failing command, duplicates left out, six
# planners at once under ideas.lock. The
# scripted example planner. The command line.

bats_require_minimum_version 1.5.0
load common

setup() {
	ar_setup ar-plan
	export AR_TOP=$TOP
	USAGE="usage: ar-plan [-C campaign] [-d digest] [-n ideas] [-r tries] [-t seconds] [-P program.md]"
	unset AR_PLANNER AR_PLANNER_URL AR_PLANNER_API AR_PLANNER_MODEL \
	    AR_PLANNER_KEY AR_CAMPAIGN AR_PROGRAM ANTHROPIC_API_KEY OPENAI_API_KEY
	cd "$T"
	mkcamp -p "$TOP/problems/int8-matvec"
	STUB=
}

teardown() {
	if [ -n "$STUB" ]; then
		kill "$STUB" 2>/dev/null || true
		wait "$STUB" 2>/dev/null || true
	fi
	ar_teardown
}

# stub MODE: http-stub answering MODE; sets STUB (pid), URL, LOG.
stub() {
	rm -f "$T/port" "$T/port.log"
	http-stub "$1" "$T/port" 3>&- &
	STUB=$!
	poll test -s "$T/port"
	URL=http://127.0.0.1:$(cat "$T/port")/v1/messages
	LOG=$T/port.log
}

# tries: how many requests the stub got.
tries() { grep -c '^POST ' "$LOG"; }

ideas() { ar-queue ls -f jsonl camp/ideas | jq -c .record; }

@test "ar-plan: a good Anthropic reply: ideas stored with their sources; model, key and prompt sent" {
	stub ok-anthropic
	AR_PLANNER_URL=$URL AR_PLANNER_MODEL=claude-test AR_PLANNER_KEY=sk-test-123 \
	    run --separate-stderr -0 ar-plan -C camp -n 2
	[ "${#lines[@]}" -eq 2 ]
	[[ $stderr == *"2 ideas stored"* ]]
	run -0 ideas
	[ "${#lines[@]}" -eq 2 ]
	[ "$(ideas | jq -rs '.[0].title')" = "four rows at a time" ]
	[ "$(ideas | jq -rs '.[0].sources[0]')" = "https://arxiv.org/abs/2208.07339" ]
	[ "$(ideas | jq -rs '.[1].hint')" = "scale" ]
	[ "$(ideas | jq -rs '.[1].sources | length')" = 2 ]
	[ "$(ideas | jq -rs '.[0].priority')" = 20 ]
	[ "$(ideas | jq -rs '.[0].planner')" = anthropic ]
	[ "$(tries)" = 1 ]
	grep -qi '^x-api-key: sk-test-123' "$LOG"
	grep -qi '^anthropic-version: ' "$LOG"
	# The request: the model and one user message holding the prompt.
	body=$(awk '/^\r?$/ { on = 1; next } /^--$/ { on = 0 } on' "$LOG")
	[ "$(printf '%s' "$body" | jq -r .model)" = claude-test ]
	printf '%s' "$body" | jq -r '.messages[0].content' | grep -q '^## Planner'
	printf '%s' "$body" | jq -r '.messages[0].content' | grep -q 'Problem: int8-matvec'
	printf '%s' "$body" | jq -r '.messages[0].content' | grep -q 'propose up to 2 new ideas'
	# The key is never on a command line (ps would show it).
	not grep -q 'sk-test' "$TOP/scripts/ar-plan"
}

@test "ar-plan: a good OpenAI reply (choices[0].message.content, bare JSON)" {
	stub ok-openai
	AR_PLANNER_URL=${URL%/messages}/chat/completions AR_PLANNER_KEY=sk-o \
	    run --separate-stderr -0 ar-plan -C camp
	[ "${#lines[@]}" -eq 2 ]
	[ "$(ideas | jq -rs '.[1].title')" = "rows across threads" ]
	[ "$(ideas | jq -rs '.[0].planner')" = openai ]
	grep -qi '^authorization: Bearer sk-o' "$LOG"
	# AR_PLANNER_API picks the shape whatever the URL.
	AR_PLANNER_URL=$URL AR_PLANNER_API=openai run --separate-stderr -0 ar-plan -C camp
	[ "$output" = "" ]
}

@test "ar-plan: a body that is not JSON: refused, retried -r times, exit 65" {
	stub malformed
	AR_PLANNER_URL=$URL run --separate-stderr -65 ar-plan -C camp -r 2
	[ "$(printf '%s\n' "$stderr" | grep -c 'planner reply: not JSON')" = 2 ]
	[[ $stderr == *"ar-plan: no ideas after 2 tries"* ]]
	[ "$(tries)" = 2 ]
	[ "$(ideas | wc -l)" = 0 ]
}

@test "ar-plan: JSON without ideas, an idea without sources: named, exit 65" {
	stub noideas
	AR_PLANNER_URL=$URL run --separate-stderr -65 ar-plan -C camp -r 1
	[ "$stderr" = "ar-plan: planner reply: no ideas
ar-plan: no ideas after 1 try" ]
	kill "$STUB"; wait "$STUB" || :
	stub nosources
	AR_PLANNER_URL=$URL run --separate-stderr -65 ar-plan -C camp -r 2
	[[ $stderr == *"ar-plan: planner reply: ideas[2]: no sources"* ]]
	[ "$(tries)" = 2 ]
	# Nothing of a rejected reply is stored, not even its good ideas.
	[ "$(ideas | wc -l)" = 0 ]
}

@test "ar-plan: an empty body: exit 65" {
	stub empty
	AR_PLANNER_URL=$URL run --separate-stderr -65 ar-plan -C camp -r 2
	[[ $stderr == *"ar-plan: planner reply: empty"* ]]
	[ "$(tries)" = 2 ]
}

@test "ar-plan: HTTP 500: retried, exit 69" {
	stub 500
	AR_PLANNER_URL=$URL run --separate-stderr -69 ar-plan -C camp -r 3
	[ "$(printf '%s\n' "$stderr" | grep -c "ar-plan: $URL: HTTP 500: internal")" = 3 ]
	[ "$(tries)" = 3 ]
}

@test "ar-plan: a planner that never answers: cut by -t, retried, exit 69" {
	stub hang
	# The stub never answers: a planner that -t did not cut would hang,
	# and timeout(1) ends it (exit 124), however loaded the machine.
	AR_PLANNER_URL=$URL run --separate-stderr -69 timeout 120 ar-plan -C camp -r 2 -t 2
	[ "$(printf '%s\n' "$stderr" | grep -c "no answer within 2 s")" = 2 ]
	[ "$(tries)" = 2 ]
}

@test "ar-plan: a refused connection: exit 69" {
	AR_PLANNER_URL=http://127.0.0.1:1/v1/messages run --separate-stderr -69 ar-plan -C camp -r 1
	[[ $stderr == *"ar-plan: http://127.0.0.1:1/v1/messages: "* ]]
}

@test "ar-plan: AR_PLANNER: the prompt on stdin, the reply in prose, ideas stored" {
	cat > planner <<'EOF'
#!/bin/sh
cat > "$PROMPT"
cat <<'R'
Having read the digest, here is my plan. {"ideas": [
 {"title": "prefetch the next rows", "hypothesis": "hide DRAM latency",
  "category": "memory", "priority": "7", "sources": ["Intel optimization manual"],
  "variant": "fast"}]}
Thanks.
R
EOF
	chmod +x planner
	echo "# Digest: best so far 1.2x at k = 2" > digest.md
	PROMPT=$T/prompt AR_PLANNER=$T/planner run --separate-stderr -0 ar-plan -C camp -d digest.md -n 5
	[ "${#lines[@]}" -eq 1 ]
	grep -q '^## Planner' prompt
	not grep -q '^## Worker' prompt
	grep -q 'Research before you propose' prompt
	grep -q 'best so far 1.2x at k = 2' prompt
	grep -q 'Mutable files (what a worker may edit): matvec.c, Makefile' prompt
	grep -q 'propose up to 5 new ideas' prompt
	grep -q 'If nothing is worth proposing now, answer {"ideas": \[\]}' prompt
	# The baseline's mutable files, where they are and what they hold.
	grep -q "^The baseline is in $CAMP/problem/baseline (read-only)" prompt
	grep -qx '## matvec.c' prompt
	grep -qx '## Makefile' prompt
	grep -qF "$(head -n 1 "$TOP/problems/int8-matvec/baseline/matvec.c")" prompt
	[ "$(ideas | jq -r .title)" = "prefetch the next rows" ]
	[ "$(ideas | jq -r .priority)" = 7 ]
	[ "$(ideas | jq -r .variant)" = fast ]
	[ "$(ideas | jq -r .planner)" = command ]
	# Asked again: the idea is listed as proposed, and not stored twice.
	PROMPT=$T/prompt AR_PLANNER=$T/planner run --separate-stderr -0 ar-plan -C camp -d digest.md
	[ "$output" = "" ]
	[[ $stderr == *"proposed already"* ]]
	grep -q '^- \[new\] prefetch the next rows (memory)' prompt
	[ "$(ideas | wc -l)" = 1 ]
}

@test "ar-plan: the prompt shows each idea's state, and a failed one's reason" {
	printf '%s\n' '{"title": "unroll by four", "hypothesis": "h", "sources": ["s"], "category": "unroll", "priority": 9}' \
	    '{"title": "use AVX-512", "hypothesis": "h", "sources": ["s"]}' > in.jsonl
	ar-queue put -f jsonl camp/ideas in.jsonl > /dev/null
	id=$(ar-queue claim -H me camp/ideas | jq -r .record.id)
	ar-queue fail -H me -r "agent: exited 2: matvec.c: does not build" camp/ideas "$id"
	cat > planner <<'EOF'
#!/bin/sh
cat > "$PROMPT"
echo '{"ideas": []}'
EOF
	chmod +x planner
	PROMPT=$T/prompt AR_PLANNER=$T/planner run --separate-stderr -0 ar-plan -C camp
	grep -qx -- '- \[new\] use AVX-512' prompt
	grep -qx -- '- \[failed\] unroll by four (unroll): failed: agent: exited 2: matvec.c: does not build' prompt
	grep -q '^States: new (waiting for an agent)' prompt
}

@test "ar-plan: Claude Code through examples/agent/claude-planner (a stand-in claude): an idea, then none" {
	export PATH=$BATS_TEST_DIRNAME/fixtures/claude:$PATH
	AR_PLANNER=$TOP/examples/agent/claude-planner run --separate-stderr -0 ar-plan -C camp -r 1
	[ "${#lines[@]}" -eq 1 ]
	[ "$(ideas | jq -r .title)" = "unroll by four" ]
	[ "$(ideas | jq -r .planner)" = command ]
	# Asked again, it sees its idea proposed and answers with none.
	AR_PLANNER=$TOP/examples/agent/claude-planner run --separate-stderr -0 ar-plan -C camp -r 1
	[ "$output" = "" ]
	[ "$stderr" = "ar-plan: the planner proposed no ideas; nothing stored" ]
	# Without claude: exit 69, said.
	AR_CLAUDE=/nonexistent/claude AR_PLANNER=$TOP/examples/agent/claude-planner run --separate-stderr -69 ar-plan -C camp -r 1
	[[ $stderr == *"claude-planner: /nonexistent/claude: not found"* ]]
}

@test "ar-plan: 6 planners at once with the same reply store each title once; a dead planner's lock is broken" {
	# Each planner answers only when all 6 have asked, so every one has
	# read the titles before any stores: only ideas.lock keeps them apart.
	mkdir asked
	cat > planner <<'EOF'
#!/bin/sh
cat > /dev/null
: > "$ASKED/$$"
while [ "$(ls "$ASKED" | wc -l)" -lt 6 ]; do sleep 0.05; done
cat <<'R'
{"ideas": [
 {"title": "Tile by 64", "hypothesis": "h", "sources": ["s"]},
 {"title": "unroll by 4", "hypothesis": "h", "sources": ["s"]},
 {"title": "tile BY 64", "hypothesis": "h", "sources": ["s"]}]}
R
EOF
	chmod +x planner
	for i in 1 2 3 4 5 6; do
		ASKED=$T/asked AR_PLANNER=$T/planner ar-plan -C camp -t 600 \
		    > "out.$i" 2> "err.$i" &
	done
	wait
	[ "$(ideas | jq -r .title | sort)" = "$(printf '%s\n' "Tile by 64" "unroll by 4")" ]
	[ "$(cat out.* | wc -l)" -eq 2 ]
	[ "$(grep -l 'proposed already; nothing stored' err.* | wc -l)" -eq 5 ]
	[ ! -e camp/ideas.lock ]
	# A planner killed holding the lock: the next one breaks it.
	sleep 1000 &
	dead=$!
	ar-campaign lock -C camp -p "$dead" ideas
	kill "$dead"
	wait "$dead" || :
	AR_PLANNER="echo '{\"ideas\": [{\"title\": \"new one\", \"hypothesis\": \"h\", \"sources\": [\"s\"]}]}'" \
	    run --separate-stderr -0 ar-plan -C camp
	[[ $stderr == *"ideas.lock: broke the lock of pid $dead on "*", which died"* ]]
	[ "$(ideas | wc -l)" -eq 3 ]
	[ ! -e camp/ideas.lock ]
}

@test "ar-plan: AR_PLANNER that fails or says nothing useful" {
	AR_PLANNER="exit 3" run --separate-stderr -69 ar-plan -C camp -r 2
	[[ $stderr == *"ar-plan: AR_PLANNER: exited 3"* ]]
	AR_PLANNER="echo '{\"ideas\": [{\"title\": \"x\", \"sources\": [\"s\"]}]}'" \
	    run --separate-stderr -65 ar-plan -C camp -r 1
	[[ $stderr == *"ar-plan: planner reply: ideas[0]: no hypothesis"* ]]
	AR_PLANNER="echo '{\"ideas\": [{\"hypothesis\": \"x\", \"sources\": [\"s\"]}]}'" \
	    run --separate-stderr -65 ar-plan -C camp -r 1
	[[ $stderr == *"ar-plan: planner reply: ideas[0]: no title"* ]]
	# Nothing worth proposing is an answer, not a malformed reply: asked
	# once, exit 0, nothing stored.
	AR_PLANNER="echo x >> asked; echo '{\"ideas\": []}'" run --separate-stderr -0 ar-plan -C camp -r 3
	[ "$output" = "" ]
	[ "$stderr" = "ar-plan: the planner proposed no ideas; nothing stored" ]
	[ "$(wc -l < asked)" -eq 1 ]
	AR_PLANNER="echo '[1, 2]'" run --separate-stderr -65 ar-plan -C camp -r 1
	[[ $stderr == *"ar-plan: planner reply: not a JSON object"* ]]
	AR_PLANNER="sleep 10" run --separate-stderr -69 ar-plan -C camp -r 1 -t 1
	[[ $stderr == *"no answer within 1 s"* ]]
	[ "$(ideas | wc -l)" = 0 ]
}

@test "ar-plan: SIGTERM stops a planner at once" {
	# A planner that thinks for a day (its sleep's length names it for
	# pgrep): an ar-plan that waited for it would not end before poll
	# gives up.
	slow=$((100000 + RANDOM))
	AR_PLANNER="sleep $slow" ar-plan -C camp -t 200000 2> err &
	pid=$!
	poll running "sleep $slow"
	kill -TERM "$pid"
	poll exited "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 143 ]
	poll gone "sleep $slow"
}

@test "ar-plan: the scripted example planner: prepared ideas with sources and variants, then no repeats" {
	AR_PLANNER=$TOP/examples/agent/planner run --separate-stderr -0 ar-plan -C camp -n 3
	[ "${#lines[@]}" -eq 3 ]
	[[ $stderr == *"scripted, no model"* ]]
	AR_PLANNER=$TOP/examples/agent/planner run --separate-stderr -0 ar-plan -C camp -n 3
	[ "$(ideas | wc -l)" -eq "$(wc -l < "$TOP/examples/agent/ideas.jsonl")" ]
	[ "$(ideas | jq -s 'map(select((.sources | length) > 0 and .variant != null)) | length')" -eq "$(ideas | wc -l)" ]
}

@test "ar-plan: command line" {
	run -0 ar-plan -h
	[ "$output" = "$USAGE" ]
	run -0 ar-plan --version
	[ "$output" = "ar-plan $VERSION" ]
	run -64 ar-plan -x
	run -64 ar-plan -C camp -n two
	run -64 ar-plan
	run -66 ar-plan -C nowhere
	run --separate-stderr -69 ar-plan -C camp
	[[ $stderr == *"no planner"* ]]
	AR_PLANNER=true run -66 ar-plan -C camp -d missing.md
	AR_PLANNER_URL=http://x AR_PLANNER_API=bard run -64 ar-plan -C camp
}
