#!/usr/bin/env bats
# ar-campaign: what the scripts ask of a campaign. get (trimmed, a
# duplicate key an error, -d), path, problem (as ar-bench reads it, a
# problem ar-bench refuses refused with its message), mutable (paths and
# git's raw diff), hash (the content hash ar-bench records), the locks
# (busy, a dead holder's broken, a command run under one), host; and one
# table of globs and paths run through ar-bench's, ar-agent's and
# ar-campaign's paths, which must give the same answers.

bats_require_minimum_version 1.5.0
load common

setup() {
	ar_setup ar-campaign
	export AR_TOP=$TOP
	TOY=$BATS_TEST_DIRNAME/fixtures/bench/toy
	unset AR_CAMPAIGN AR_AGENT AR_HOLDER AR_PROGRAM
	cd "$T"
}

teardown() {
	ar_unlock
}

# mkcamp [JQ]: campaign "camp" from the toy problem, its problem.json
# passed through JQ.
mkcamp() {
	rm -rf prob
	cp -R "$TOY" prob
	jq "${1:-.}" "$TOY/problem.json" > prob/problem.json
	ar-init -k "$T/keys" -p prob camp > /dev/null
}

@test "ar-campaign get: a value trimmed; unset: exit 1 or -d; a key given twice: 65" {
	mkcamp
	# The problem's scales, as ar-init writes them.
	run --separate-stderr -0 ar-campaign get -C camp scales
	[ "$output" = "1 2" ]
	run --separate-stderr -1 ar-campaign get -C camp nosuch
	[ "$output" = "" ] && [ "$stderr" = "" ]
	run --separate-stderr -0 ar-campaign get -C camp -d 7 nosuch
	[ "$output" = 7 ]
	chmod u+w camp/campaign.conf
	printf 'x.y   =  a b  \n' >> camp/campaign.conf
	AR_CAMPAIGN=camp run --separate-stderr -0 ar-campaign get x.y
	[ "$output" = "a b" ]
	printf 'x.y = c\n' >> camp/campaign.conf
	run --separate-stderr -65 ar-campaign get -C camp x.y
	[ "$output" = "" ]
	[[ $stderr == "ar-campaign: camp/campaign.conf: line "*"x.y"* ]]
}

@test "ar-campaign: not a campaign: 66; usage errors: 64; -h and --version" {
	mkdir empty
	run --separate-stderr -66 ar-campaign get -C empty scales
	[ "$stderr" = "ar-campaign: empty: not a campaign (no campaign.conf)" ]
	run --separate-stderr -64 ar-campaign frob
	[ "$stderr" = "ar-campaign: frob: unknown subcommand (get, path, problem, mutable, hash, fingerprint, lock, unlock or host)" ]
	run --separate-stderr -64 ar-campaign get
	[ "${stderr_lines[0]}" = "usage: ar-campaign get [-C campaign] [-d default] key" ]
	run --separate-stderr -64 ar-campaign host -d x
	run --separate-stderr -64 ar-campaign lock -C camp -w -1 loop
	run -0 ar-campaign -h
	[ "${lines[0]}" = "usage: ar-campaign get [-C campaign] [-d default] key" ]
	[ "${lines[8]}" = "       ar-campaign host [-s]" ]
	run -0 ar-campaign --version
	[ "$output" = "ar-campaign $VERSION" ]
}

@test "ar-campaign path: the campaign's parts; an unknown one: 64" {
	mkcamp
	run -0 ar-campaign path -C camp manifest
	[ "$output" = camp/problem/problem.json ]
	run -0 ar-campaign path -C camp queue
	[ "$output" = camp/queue ]
	run --separate-stderr -64 ar-campaign path -C camp frob
	[[ $stderr == "ar-campaign: frob: not a part of a campaign (conf, problem, manifest, "* ]]
}

@test "ar-campaign problem: defaults filled in as ar-bench reads them; a problem ar-bench refuses: 65 with its message" {
	mkcamp 'del(.description)'
	run --separate-stderr -0 ar-campaign problem -C camp
	[ "$(jq -c . <<< "$output")" = '{"name":"toy","description":"","baseline":"baseline","metric":{"name":"t","direction":"lower","unit":"s"},"mutable":["run.sh","lib/*"],"scales":[1,2],"workloads":["small","tiny"]}' ]
	ar_unlock
	rm -rf camp keys
	# ar-init seals no such problem; one edited after sealing.
	mkcamp
	chmod u+w camp/problem camp/problem/problem.json
	jq 'del(.baseline)' "$TOY/problem.json" > camp/problem/problem.json
	run --separate-stderr -65 ar-campaign problem -C camp
	[ "$stderr" = "ar-campaign: camp/problem/problem.json: baseline: missing" ]
}

@test "ar-campaign mutable: one line a path, exit 1 when one may not change; -r reads git's raw diff" {
	mkcamp '.mutable = ["run.sh", "src/*.c", "kernels/"]'
	run --separate-stderr -0 ar-campaign mutable -C camp run.sh src/a.c kernels/x/y.c .gitignore
	[ "$output" = "$(printf 'mutable\trun.sh\nmutable\tsrc/a.c\nmutable\tkernels/x/y.c\nignored\t.gitignore')" ]
	run --separate-stderr -1 ar-campaign mutable -C camp src/sub/a.c 'a	b'
	[ "$output" = "$(printf 'sealed\tsrc/sub/a.c\nsealed\ta\\tb')" ]
	git init -q repo
	cd repo
	echo a > run.sh && echo b > notes.txt && git add . && git -c user.name=t -c user.email=t@t commit -qm 0
	echo c >> run.sh && rm notes.txt && ln -s run.sh src.c && mkdir src && echo d > src/a.c
	git add -A
	git diff --cached --raw --no-renames -z HEAD > ../raw
	cd ..
	run --separate-stderr -1 ar-campaign mutable -C camp -r < raw
	[ "$output" = "$(printf 'sealed\tdeleted\tnotes.txt\nmutable\tmodified\trun.sh\nsealed\tadded\tsrc.c\nmutable\tadded\tsrc/a.c')" ]
	printf ':100644 100644 x' > bad
	run --separate-stderr -65 ar-campaign mutable -C camp -r < bad
	[ "$stderr" = "ar-campaign: <stdin>: not the output of git diff --raw -z" ]
	run --separate-stderr -64 ar-campaign mutable -C camp -r run.sh
	run --separate-stderr -64 ar-campaign mutable -C camp
}

@test "ar-campaign mutable: a link where a mutable file goes is notfile" {
	mkcamp '.mutable = ["src/*.c"]'
	git init -q repo
	cd repo
	mkdir src && ln -s /etc/hostname src/x.c && git add -A
	git diff --cached --raw --no-renames -z 4b825dc642cb6eb9a060e54bf8d69288fbee4904 > ../raw
	cd ..
	run --separate-stderr -1 ar-campaign mutable -C camp -r < raw
	[ "$output" = "$(printf 'notfile\tadded\tsrc/x.c')" ]
}

@test "ar-campaign hash: the commit and the content hash ar-bench records for it" {
	mkcamp
	m=camp/methods
	c=$(printf 'x\n' | git -C "$m" hash-object -w --stdin)
	tree=$(printf '100644 blob %s\trun.sh\n' "$c" | git -C "$m" mktree)
	commit=$(git -C "$m" -c user.name=t -c user.email=t@t commit-tree -m m "$tree")
	want=$(git -C "$m" ls-tree -r --full-tree "$commit" | b2sum -l 256 | cut -d' ' -f1)
	run --separate-stderr -0 ar-campaign hash -C camp "${commit:0:10}"
	[ "$output" = "$commit	$want" ]
	run --separate-stderr -66 ar-campaign hash -C camp nosuch
	[ "$stderr" = "ar-campaign: nosuch: not a commit in camp/methods" ]
	run --separate-stderr -66 ar-campaign hash -C camp -- --all
	[ "$stderr" = "ar-campaign: --all: not a commit in camp/methods" ]
}

@test "ar-campaign fingerprint: BLAKE2b-256 of the public key's 32 bytes" {
	mkcamp
	hex=$(sed -n 's/^ed25519-public //p' camp/keys/bench.pub)
	# The hex as bytes with printf's escapes: no xxd on a bare machine.
	want=$(printf "$(printf '%s' "$hex" | sed 's/../\\x&/g')" | b2sum -l 256 | cut -d' ' -f1)
	run --separate-stderr -0 ar-campaign fingerprint -C camp
	[ "$output" = "$want" ]
	run --separate-stderr -64 ar-campaign fingerprint -C camp extra
}

@test "ar-campaign lock: taken for the caller, busy: 75 naming the holder, unlock by the holder only" {
	mkcamp
	sleep 1000 &
	holder=$!
	run --separate-stderr -0 ar-campaign lock -C camp -p "$holder" loop
	read -r h p s tok < camp/loop/lock
	[ "$h" = "$(hostname)" ] && [ "$p" = "$holder" ]
	[ "$s" = "$(awk '{ sub(/.*\) /, ""); print $20 }' "/proc/$holder/stat")" ]
	[ "${#tok}" -eq 16 ]
	run --separate-stderr -75 ar-campaign lock -C camp loop
	[ "$stderr" = "ar-campaign: camp/loop/lock: held by pid $holder on $(hostname)" ]
	run --separate-stderr -1 ar-campaign unlock -C camp loop
	[ -e camp/loop/lock ]
	run --separate-stderr -0 ar-campaign unlock -C camp -p "$holder" loop
	[ ! -e camp/loop/lock ]
	kill "$holder"
}

@test "ar-campaign lock: a dead holder's lock is broken and said so; another host's is kept; a stale sched lock is broken" {
	mkcamp
	sh -c 'exit 0' &
	dead=$!
	wait "$dead"
	mkdir -p camp/loop camp/run
	echo "$(hostname) $dead 12345 x" > camp/loop/lock
	sleep 1000 &
	holder=$!
	run --separate-stderr -0 ar-campaign lock -C camp -p "$holder" loop
	[ "$stderr" = "ar-campaign: camp/loop/lock: broke the lock of pid $dead on $(hostname), which died" ]
	[ "$(cut -d' ' -f2 camp/loop/lock)" = "$holder" ]
	# The pid of a live process that started at another time: reused.
	echo "$(hostname) $holder 1 x" > camp/loop/lock
	run --separate-stderr -0 ar-campaign lock -C camp -p "$holder" loop
	kill "$holder"
	echo "other.example $dead 1 x" > camp/loop/lock
	run --separate-stderr -75 ar-campaign lock -C camp loop
	[ "$stderr" = "ar-campaign: camp/loop/lock: held by pid $dead on other.example" ]
	echo "other.example $dead 1 x" > camp/run/sched.lock
	touch -d '2 minutes ago' camp/run/sched.lock
	run --separate-stderr -0 ar-campaign lock -C camp sched
}

@test "ar-campaign lock NAME CMD: the command runs holding the lock, its status is the exit status; the lock goes after" {
	mkcamp
	run --separate-stderr -3 ar-campaign lock -C camp worktrees -- sh -c 'cat camp/work/worktrees.lock; exit 3'
	[[ $output == "$(hostname) "* ]]
	[ ! -e camp/work/worktrees.lock ]
	run --separate-stderr -127 ar-campaign lock -C camp worktrees /no/such/program
	[ ! -e camp/work/worktrees.lock ]
	# Many at once: one at a time.
	for i in $(seq 8); do
		ar-campaign lock -C camp -w 60 worktrees sh -c '
			[ ! -e busy ] || { echo twice >> bad; }
			: > busy; sleep 0.05; rm busy' &
	done
	wait
	[ ! -e bad ]
	[ ! -e camp/work/worktrees.lock ]
}

@test "ar-campaign host: the full name, and -s up to the first dot" {
	run -0 ar-campaign host
	[ "$output" = "$(hostname)" ]
	run -0 ar-campaign host -s
	[ "$output" = "$(hostname -s)" ]
}

# ---- one rule for the mutable paths ----

# The globs, and each path with whether a method may add it: the same
# answers from ar-bench (a method directory with that file added),
# ar-agent (an agent that adds it: kept in the method, or left out of it)
# and ar-campaign mutable.
GLOBS='["run.sh", "src/*.c", "kernels/", "lib", "*.h"]'
TABLE='src/a.c yes
src/sub/x.c no
kernels/a.c yes
kernels2/a.c no
lib/x/y.c yes
src/.hidden.c no
top.h yes
sub/top.h no
notes2.txt no
.gitignore yes'

@test "the mutable rule: ar-bench, ar-agent and ar-campaign give the same answer for every path of the table" {
	mkcamp ".mutable = $GLOBS"
	cat > agent <<-'EOF'
	#!/bin/sh
	cat > /dev/null
	p=$(jq -r .path "$AR_IDEA_FILE")
	mkdir -p "$(dirname "$p")"
	echo "/* added */" > "$p"
	EOF
	chmod +x agent
	while read -r path want; do
		# ar-campaign.
		rc=0
		ar-campaign mutable -C camp "$path" > /dev/null || rc=$?
		camp_says=$([ "$rc" -eq 0 ] && echo yes || echo no)
		# ar-bench: the baseline with the file added.
		rm -rf meth
		cp -R prob/baseline meth
		mkdir -p "meth/$(dirname "$path")"
		echo "/* added */" > "meth/$path"
		ar-bench -C camp -m meth -w tiny -p 2 -P 2 -W 0 -q --no-sandbox > r.json 2> /dev/null || :
		if [[ "$(jq -r .why r.json)" == "the method changes files outside the mutable paths: "* ]]; then
			bench_says=no
		else
			bench_says=yes
		fi
		# ar-agent: an agent that adds the file.
		id=$(jq -cn --arg p "$path" '{title: $p, path: $p}' | ar-queue put -f jsonl camp/ideas)
		rc=0
		AR_AGENT=$T/agent ar-agent --no-sandbox -C camp --once -H w > /dev/null 2> agent.err || rc=$?
		agent_says=$([ "$rc" -eq 0 ] && echo yes || echo no)
		echo "$path: want $want, ar-campaign $camp_says, ar-bench $bench_says, ar-agent $agent_says"
		[ "$camp_says" = "$want" ]
		[ "$bench_says" = "$want" ]
		[ "$agent_says" = "$want" ]
		# ar-agent leaves a new file outside the globs out of the
		# method (a build output, say); alone, it is no change.
		[ "$rc" -eq 0 ] || { grep -q "1 new file outside the mutable files left out" agent.err &&
		    grep -q "the agent changed nothing; idea failed" agent.err; }
	done <<< "$TABLE"
}
