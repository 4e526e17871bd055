#!/usr/bin/env bats
# ar-init: creating a campaign directory from a problem (the layout, the
# modes, campaign.conf, the keys, the SEAL), refusing what it must refuse
# (usage errors, an existing campaign, links and special files in the
# problem, a missing problem), checking the seal with -c (every kind of
# tampering named), and the crash safety of the build-then-rename: racing
# runs. Kill -9 at random instants is a stress test
# (tests/stress/ar-init-stress.bats).
#
# Tests that show a known bug carry a "# BUG:" comment and fail until it
# is fixed.

bats_require_minimum_version 1.5.0
load common

setup() {
	ar_init_setup
}

teardown() {
	# The sealed problem is read-only; let bats remove the scratch.
	ar_teardown
}

# writable PATH...: opens part of the sealed copy for tampering; the test
# then puts the modes back, so that only the change under test shows.
# (root writes through read-only modes anyway; other users need this.)
writable() {
	chmod u+w "$@"
}

# ---- usage ----

@test "ar-init -h and --help print the usage on stdout and exit 0" {
	run --separate-stderr -0 ar-init -h
	[ "$output" = "$USAGE1
$USAGE2" ]
	[ "$stderr" = "" ]
	run --separate-stderr -0 ar-init --help
	[ "$output" = "$USAGE1
$USAGE2" ]
}

@test "ar-init --version prints the name and the version of config.mk" {
	run --separate-stderr -0 ar-init --version
	[ "$output" = "ar-init $VERSION" ]
	[ "$stderr" = "" ]
}

@test "ar-init usage errors exit 64 with the usage on stderr" {
	run --separate-stderr -64 ar-init
	[ "$output" = "" ]
	[ "$stderr" = "$USAGE1
$USAGE2" ]
	run --separate-stderr -64 ar-init camp
	[ "$stderr" = "$USAGE1
$USAGE2" ]
	run --separate-stderr -64 ar-init -p "$P"
	[ "$stderr" = "$USAGE1
$USAGE2" ]
	run --separate-stderr -64 ar-init -p "$P" a b
	[ "$stderr" = "$USAGE1
$USAGE2" ]
	run --separate-stderr -64 ar-init -c a b
	[ "$stderr" = "$USAGE1
$USAGE2" ]
	run --separate-stderr -64 ar-init -c a -p "$P"
	[ "$stderr" = "$USAGE1
$USAGE2" ]
	run --separate-stderr -64 ar-init -c a -k keys
	[ "$stderr" = "$USAGE1
$USAGE2" ]
	run --separate-stderr -64 ar-init -x -p "$P" camp
	[ "$stderr" = "ar-init: invalid option -- 'x'
$USAGE1
$USAGE2" ]
	run --separate-stderr -64 ar-init -c
	[ "$stderr" = "ar-init: option requires an argument -- 'c'
$USAGE1
$USAGE2" ]
	run --separate-stderr -64 ar-init --check
	[ "$stderr" = "ar-init: option '--check' requires an argument
$USAGE1
$USAGE2" ]
	# Nothing was created by any of them.
	run -0 ls -A
	[ "$output" = "" ]
}

@test "ar-init -n refuses an empty name or one with a newline (64)" {
	run --separate-stderr -64 ar-init -n '' -p "$P" camp
	[ "$stderr" = "ar-init: : not a usable problem name" ]
	run --separate-stderr -64 ar-init -n 'two
lines' -p "$P" camp
	[ "$stderr" = "ar-init: two
lines: not a usable problem name" ]
	run -0 ls -A
	[ "$output" = "" ]
}

# ---- the campaign on disk ----

@test "ar-init prints the campaign id, the one campaign.conf and SEAL hold" {
	run --separate-stderr -0 ar-init -p "$P" camp
	[ "$stderr" = "" ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" =~ ^[0-9]{8}T[0-9]{6}\.[0-9]{6}Z-[0-9a-f]{16}$ ]]
	[ "$(conf camp campaign)" = "$output" ]
	[ "$(sed -n 2p camp/SEAL)" = "$(printf 'campaign\t%s' "$output")" ]
}

# Runs ar-init with its stdout closed.
init_closed() {
	ar-init "$@" >&-
}

@test "ar-init with stdout closed or its reader gone: the campaign is made, exit 0, and said" {
	run --separate-stderr -0 init_closed -p "$P" camp
	same "$stderr" "ar-init: camp: campaign made; its id is in its campaign.conf, not printed: <stdout>: write failed: Bad file descriptor"
	run -0 ar-init -c camp
	# Not killed by SIGPIPE either.
	run --separate-stderr -0 reader_gone ar-init -p "$P" camp2
	same "$stderr" "ar-init: camp2: campaign made; its id is in its campaign.conf, not printed: <stdout>: write failed: Broken pipe"
	run -0 ar-init -c camp2
}

@test "ar-init lays out every directory and file with its mode" {
	run -0 ar-init -p "$P" camp
	run -0 find camp -mindepth 1 -path camp/methods/.git -prune -o \
	    -printf '%y %m %P\n'
	expect="d 755 ideas
d 755 ideas/cur
d 755 ideas/done
d 755 ideas/failed
d 755 ideas/new
d 755 ideas/tmp
d 755 ideas/why
d 755 keys
d 755 ledger
d 755 ledger/results
d 755 ledger/seg
d 755 log
d 755 methods
d 555 problem
d 555 problem/data
d 755 queue
d 755 queue/cur
d 755 queue/done
d 755 queue/failed
d 755 queue/new
d 755 queue/tmp
d 755 queue/why
f 400 keys/bench.key
f 444 keys/bench.pub
f 444 problem/data/prompts.tsv
f 444 problem/data/reference outputs.tsv
f 444 problem/problem.json
f 555 problem/run.sh
f 555 problem/score.sh
f 444 SEAL
f 644 campaign.conf"
	[ "$(printf '%s\n' "$output" | LC_ALL=C sort -k3)" = \
	    "$(printf '%s\n' "$expect" | LC_ALL=C sort -k3)" ]
	# The copies are byte for byte the problem's files.
	run -0 diff -r "$P" camp/problem
	# Nothing else was left beside the campaign.
	run -0 ls -A
	[ "$output" = "camp" ]
}

@test "ar-init writes campaign.conf: id, problem, created, build, key, the problem's scales, defaults" {
	before=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	run -0 ar-init -p "$P" camp
	id=$output
	after=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	created=$(conf camp created)
	[[ "$created" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$ ]]
	[[ ! "$created" < "$before" ]]
	[[ ! "$created" > "$after" ]]
	run -0 cat camp/campaign.conf
	[ "$output" = "# autoreduce campaign: see ar-campaign(5). The problem and SEAL
# are sealed; the settings below may be edited.
campaign = $id
problem = problem
created = $created
build = autoreduce-$VERSION
key = keys/bench.key
scales = 1 2 4 8
budget.experiments = 0
budget.gpu_hours = 0
budget.wall_hours = 0
policy = ours" ]
}

@test "ar-init writes a matching Ed25519 key pair: bench.pub and bench.key" {
	run -0 ar-init -p "$P" camp
	run -0 cat camp/keys/bench.pub
	[[ "$output" =~ ^ed25519-public\ ([0-9a-f]{64})$ ]]
	pk=${BASH_REMATCH[1]}
	run -0 cat camp/keys/bench.key
	[[ "$output" =~ ^ed25519-secret\ ([0-9a-f]{128})$ ]]
	# A libsodium secret key is the seed followed by the public key.
	[ "${BASH_REMATCH[1]:64}" = "$pk" ]
	# Two campaigns never share a key.
	run -0 ar-init -p "$P" other
	[ "$(cat other/keys/bench.pub)" != "$(cat camp/keys/bench.pub)" ]
}

@test "ar-init writes SEAL: every problem file and directory, hashed, signed" {
	command -v b2sum >/dev/null || skip "b2sum (coreutils) is needed"
	run -0 ar-init -p "$P" camp
	id=$output
	run -0 cat camp/SEAL
	[ "${#lines[@]}" -eq 13 ]
	[ "${lines[0]}" = "autoreduce-seal 1" ]
	[ "${lines[1]}" = "$(printf 'campaign\t%s' "$id")" ]
	[ "${lines[2]}" = "$(printf 'problem\tproblem')" ]
	[ "${lines[3]}" = "$(printf 'build\tautoreduce-%s' "$VERSION")" ]
	[[ "${lines[4]}" =~ ^created$'\t'[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$ ]]
	# problem/ itself is ".": its mode is sealed too.
	[ "${lines[5]}" = "$(printf 'dir\t0555\t-\t-\t.')" ]
	[ "${lines[6]}" = "$(printf 'dir\t0555\t-\t-\tdata')" ]
	n=7
	for f in "data/prompts.tsv" "data/reference outputs.tsv" problem.json \
	    run.sh score.sh; do
		mode=0444
		[ -x "$P/$f" ] && mode=0555
		size=$(stat -c %s "$P/$f")
		hash=$(b2sum -l 256 "$P/$f" | cut -d ' ' -f 1)
		[ "${lines[$n]}" = "$(printf 'file\t%s\t%s\t%s\t%s' "$mode" \
		    "$size" "$hash" "$f")" ]
		n=$((n + 1))
	done
	[[ "${lines[12]}" =~ ^sig$'\t'[0-9a-f]{128}$ ]]
}

@test "ar-init -n names the problem in campaign.conf and SEAL" {
	run -0 ar-init -n "toy decode v2" -p "$P" camp
	[ "$(conf camp problem)" = "toy decode v2" ]
	[ "$(sed -n 3p camp/SEAL)" = "$(printf 'problem\ttoy decode v2')" ]
	run --separate-stderr -0 ar-init -c camp
	[ "$output" = "$HDR" ]
}

@test "ar-init names the problem after its directory, trailing slash or not" {
	cp -R "$P" toy-decode
	run -0 ar-init -p toy-decode/ camp
	[ "$(conf camp problem)" = "toy-decode" ]
}

@test "ar-init -k puts the secret key in KEYDIR/<id>.key, mode 0400, only there" {
	run --separate-stderr -0 ar-init -k secrets -p "$P" camp
	id=$output
	keydir=$(cd secrets && pwd -P)
	[ "$(conf camp key)" = "$keydir/$id.key" ]
	run -0 find secrets -printf '%y %m %P\n'
	[ "$output" = "d 700 
f 400 $id.key" ]
	[ ! -e camp/keys/bench.key ]
	run -0 find camp -name '*.key'
	[ "$output" = "" ]
	run -0 ls camp/keys
	[ "$output" = "bench.pub" ]
	# The key outside signs for the public key inside.
	[[ "$(cat "secrets/$id.key")" =~ ^ed25519-secret\ [0-9a-f]{64}([0-9a-f]{64})$ ]]
	[ "$(cat camp/keys/bench.pub)" = "ed25519-public ${BASH_REMATCH[1]}" ]
	# A second campaign adds its own key beside the first.
	run -0 ar-init -k "$keydir" -p "$P" camp2
	[ "$(conf camp2 key)" = "$keydir/$output.key" ]
	run -0 ls secrets
	[ "${#lines[@]}" -eq 2 ]
}

@test "ar-init -k refuses a keydir that is a file (66), leaving nothing" {
	echo not-a-dir > secrets
	run --separate-stderr -66 ar-init -k secrets -p "$P" camp
	[ "$output" = "" ]
	[ "$stderr" = "ar-init: secrets: Not a directory" ]
	run -0 ls -A
	[ "$output" = "secrets" ]
}

@test "ar-init makes methods/ an empty git repository" {
	command -v git >/dev/null || skip "git is needed"
	mkcamp camp
	run -0 git -C camp/methods rev-parse --is-inside-work-tree --git-dir
	[ "$output" = "true
.git" ]
	run -0 git -C camp/methods status --porcelain
	[ "$output" = "" ]
}

@test "ar-init builds the queues as spools ar-queue accepts" {
	mkcamp camp
	run --separate-stderr -0 ar-queue ls camp/ideas
	[ "$output" = "$(printf 'state\tid\tpriority\tholder\texpires\twhy')" ]
	run --separate-stderr -0 ar-queue ls camp/queue
	[ "$output" = "$(printf 'state\tid\tpriority\tholder\texpires\twhy')" ]
}

# Under umask 077 too: a worker or sandbox under another uid must be able
# to read the problem and verify results.
@test "ar-init gives the problem files and bench.pub fixed modes whatever the umask" {
	umask 077
	run -0 ar-init -p "$P" camp
	run -0 stat -c '%a %n' camp/problem/problem.json camp/problem/run.sh \
	    camp/keys/bench.pub camp/SEAL
	[ "$output" = "444 camp/problem/problem.json
555 camp/problem/run.sh
444 camp/keys/bench.pub
444 camp/SEAL" ]
}

# ---- --check ----

@test "ar-init -c on an intact campaign prints the header only, exit 0" {
	mkcamp camp
	run --separate-stderr -0 ar-init -c camp
	[ "$output" = "$HDR" ]
	[ "$stderr" = "" ]
	run --separate-stderr -0 ar-init --check camp
	[ "$output" = "$HDR" ]
	run --separate-stderr -0 ar-init --check=camp
	[ "$output" = "$HDR" ]
}

@test "ar-init -c: an edited sealed file is changed content (1)" {
	mkcamp camp
	writable camp/problem/run.sh
	echo 'echo METRIC tok_s=1e9' >> camp/problem/run.sh
	chmod 0555 camp/problem/run.sh
	run --separate-stderr -1 ar-init -c camp
	[ "$output" = "$HDR
$(printf 'changed\trun.sh\tcontent')" ]
	[ "$stderr" = "ar-init: camp: seal broken: 1 file changed, added or removed" ]
}

@test "ar-init -c: an edit keeping the size is still changed content (1)" {
	mkcamp camp
	writable camp/problem/problem.json
	# Rewritten in place: sed -i would need the read-only directory.
	sed 's/"higher"/"lowerr"/' "$P/problem.json" > edited.json
	cat edited.json > camp/problem/problem.json
	chmod 0444 camp/problem/problem.json
	[ "$(stat -c %s camp/problem/problem.json)" = "$(stat -c %s "$P/problem.json")" ]
	run --separate-stderr -1 ar-init -c camp
	[ "$output" = "$HDR
$(printf 'changed\tproblem.json\tcontent')" ]
}

@test "ar-init -c: a file added is reported added (1)" {
	mkcamp camp
	writable camp/problem
	echo 'METRIC tok_s=1e9' > camp/problem/cached-score.txt
	chmod 0555 camp/problem
	run --separate-stderr -1 ar-init -c camp
	[ "$output" = "$HDR
$(printf 'added\tcached-score.txt\t')" ]
	[ "$stderr" = "ar-init: camp: seal broken: 1 file changed, added or removed" ]
}

@test "ar-init -c: a file deleted is reported removed, spaces and all (1)" {
	mkcamp camp
	writable camp/problem/data
	rm "camp/problem/data/reference outputs.tsv"
	chmod 0555 camp/problem/data
	run --separate-stderr -1 ar-init -c camp
	[ "$output" = "$HDR
$(printf 'removed\tdata/reference outputs.tsv\t')" ]
}

@test "ar-init -c: a chmod is reported with both modes (1)" {
	mkcamp camp
	chmod 0755 camp/problem/data/prompts.tsv
	run --separate-stderr -1 ar-init -c camp
	[ "$output" = "$HDR
$(printf 'changed\tdata/prompts.tsv\tmode 0444 -> 0755')" ]
	chmod 0444 camp/problem/data/prompts.tsv
	chmod 0755 camp/problem/data
	run --separate-stderr -1 ar-init -c camp
	[ "$output" = "$HDR
$(printf 'changed\tdata\tmode 0555 -> 0755')" ]
}

@test "ar-init -c: an empty directory added is reported (1)" {
	mkcamp camp
	writable camp/problem/data
	mkdir camp/problem/data/cache
	chmod 0555 camp/problem/data
	run --separate-stderr -1 ar-init -c camp
	[ "$output" = "$HDR
$(printf 'added\tdata/cache\tdirectory')" ]
}

@test "ar-init -c: a file replaced by a symlink is a changed type (1)" {
	mkcamp camp
	writable camp/problem
	rm camp/problem/score.sh
	ln -s /bin/true camp/problem/score.sh
	chmod 0555 camp/problem
	run --separate-stderr -1 ar-init -c camp
	[ "$output" = "$HDR
$(printf 'changed\tscore.sh\ttype')" ]
}

@test "ar-init -c: a symlink added is reported as one (1)" {
	mkcamp camp
	writable camp/problem
	ln -s run.sh camp/problem/run-fast.sh
	chmod 0555 camp/problem
	run --separate-stderr -1 ar-init -c camp
	[ "$output" = "$HDR
$(printf 'added\trun-fast.sh\tsymbolic link')" ]
}

@test "ar-init -c: several changes are each named, in path order (1)" {
	mkcamp camp
	chmod -R u+w camp/problem
	echo '# faster' >> camp/problem/score.sh
	rm camp/problem/data/prompts.tsv
	echo x > camp/problem/data/extra
	chmod 0555 camp/problem camp/problem/data
	chmod 0444 camp/problem/data/*
	chmod 0555 camp/problem/run.sh camp/problem/score.sh
	chmod 0444 camp/problem/problem.json
	run --separate-stderr -1 ar-init -c camp
	[ "$output" = "$HDR
$(printf 'added\tdata/extra\t')
$(printf 'removed\tdata/prompts.tsv\t')
$(printf 'changed\tscore.sh\tcontent')" ]
	[ "$stderr" = "ar-init: camp: seal broken: 3 files changed, added or removed" ]
}

@test "ar-init -c: file names with tab, newline, backslash are escaped" {
	mkdir odd
	cp "$P/problem.json" odd/
	printf a > "odd/tab	name"
	printf b > "odd/nl
name"
	printf c > 'odd/back\slash'
	run -0 ar-init -p odd camp
	run --separate-stderr -0 ar-init -c camp
	[ "$output" = "$HDR" ]
	chmod 0644 camp/problem/*
	chmod 0444 camp/problem/problem.json
	run --separate-stderr -1 ar-init -c camp
	[ "$output" = "$HDR
$(printf 'changed\tback\\\\slash\tmode 0444 -> 0644')
$(printf 'changed\tnl\\nname\tmode 0444 -> 0644')
$(printf 'changed\ttab\\tname\tmode 0444 -> 0644')" ]
}

@test "ar-init -c: SEAL edited to match a tampered file has a bad signature (1)" {
	command -v b2sum >/dev/null || skip "b2sum (coreutils) is needed"
	mkcamp camp
	writable camp/problem/run.sh
	echo 'echo METRIC tok_s=1e9' >> camp/problem/run.sh
	chmod 0555 camp/problem/run.sh
	# The forger updates the size and hash, but cannot re-sign.
	size=$(stat -c %s camp/problem/run.sh)
	hash=$(b2sum -l 256 camp/problem/run.sh | cut -d ' ' -f 1)
	writable camp/SEAL
	awk -F '\t' -v OFS='\t' -v s="$size" -v h="$hash" \
	    '$1 == "file" && $5 == "run.sh" { $3 = s; $4 = h } { print }' \
	    camp/SEAL > seal.new
	cat seal.new > camp/SEAL
	chmod 0444 camp/SEAL
	run --separate-stderr -1 ar-init -c camp
	[ "$output" = "" ]
	[ "$stderr" = "ar-init: camp/SEAL: bad signature: the SEAL was altered or signed by another key" ]
}

@test "ar-init -c: SEAL with a line removed or its signature cut has no good signature (1)" {
	mkcamp camp
	writable camp/SEAL
	sed -i '/\tscore.sh$/d' camp/SEAL
	run --separate-stderr -1 ar-init -c camp
	[ "$output" = "" ]
	[ "$stderr" = "ar-init: camp/SEAL: bad signature: the SEAL was altered or signed by another key" ]
	sed -i '/^sig\t/d' camp/SEAL
	run --separate-stderr -1 ar-init -c camp
	[ "$output" = "" ]
	[ "$stderr" = "ar-init: camp/SEAL: no signature" ]
}

@test "ar-init -c: text after SEAL's signature is malformed (65)" {
	mkcamp camp
	writable camp/SEAL
	printf 'file\t0555\t9\t%064d\tbackdoor.sh\n' 0 >> camp/SEAL
	run --separate-stderr -65 ar-init -c camp
	[ "$output" = "" ]
	[ "$stderr" = "ar-init: camp/SEAL: text after the signature" ]
}

@test "ar-init -c: bench.pub replaced by another campaign's key fails (1)" {
	mkcamp camp
	mkcamp other
	writable camp/keys camp/keys/bench.pub
	cat other/keys/bench.pub > camp/keys/bench.pub
	run --separate-stderr -1 ar-init -c camp
	[ "$output" = "" ]
	[ "$stderr" = "ar-init: camp/SEAL: bad signature: the SEAL was altered or signed by another key" ]
}

@test "ar-init -c: SEAL deleted is missing input (66)" {
	mkcamp camp
	rm -f camp/SEAL
	run --separate-stderr -66 ar-init -c camp
	# No report at all: the header comes only with a readable SEAL.
	[ "$output" = "" ]
	[ "$stderr" = "ar-init: camp/SEAL: No such file or directory" ]
}

@test "ar-init -c on what is not a campaign exits 66" {
	mkdir empty
	run --separate-stderr -66 ar-init -c empty
	[ "$output" = "" ]
	[ "$stderr" = "ar-init: empty: not a campaign (no campaign.conf)" ]
	run --separate-stderr -66 ar-init -c nowhere
	[ "$output" = "" ]
	[ "$stderr" = "ar-init: nowhere: No such file or directory" ]
	mkcamp camp
	rm -f camp/keys/bench.pub
	run --separate-stderr -66 ar-init -c camp
	[ "$output" = "" ]
	[ "$stderr" = "ar-init: camp/keys/bench.pub: No such file or directory" ]
}

# ---- refusals ----

@test "ar-init refuses an existing campaign (73) and leaves it byte for byte" {
	mkcamp camp
	before=$(snapshot camp)
	run --separate-stderr -73 ar-init -p "$P" camp
	[ "$output" = "" ]
	[ "$stderr" = "ar-init: camp: exists already; refusing to overwrite it" ]
	[ "$(snapshot camp)" = "$before" ]
	run --separate-stderr -73 ar-init -k secrets -n other -p "$P" camp
	[ "$(snapshot camp)" = "$before" ]
	run -0 ls -A
	[ "$output" = "camp" ]
}

@test "ar-init refuses a non-empty directory, a file, a symlink at DIR (73)" {
	mkdir notes
	echo 'keep me' > notes/todo
	run --separate-stderr -73 ar-init -p "$P" notes
	[ "$stderr" = "ar-init: notes: exists already; refusing to overwrite it" ]
	[ "$(cat notes/todo)" = "keep me" ]
	echo data > file
	run --separate-stderr -73 ar-init -p "$P" file
	[ "$(cat file)" = "data" ]
	mkdir target
	ln -s target link
	run --separate-stderr -73 ar-init -p "$P" link
	ln -s nowhere dangling
	run --separate-stderr -73 ar-init -p "$P" dangling
	run -0 ls -A target
	[ "$output" = "" ]
	[ "$(tmpdirs)" -eq 0 ]
}

@test "ar-init accepts an existing empty directory" {
	mkdir camp
	run --separate-stderr -0 ar-init -p "$P" camp
	[ "$(conf camp campaign)" = "$output" ]
	run --separate-stderr -0 ar-init -c camp
	[ "$output" = "$HDR" ]
	run -0 ls -A
	[ "$output" = "camp" ]
}

@test "ar-init refuses a symlink in the problem (65): nothing made, no tmp left" {
	cp -R "$P" prob
	ln -s run.sh prob/run-fast.sh
	run --separate-stderr -65 ar-init -p prob camp
	[ "$output" = "" ]
	[ "$stderr" = "ar-init: prob/run-fast.sh: a symbolic link cannot be sealed; put the file itself in the problem" ]
	run -0 ls -A
	[ "$output" = "prob" ]
}

@test "ar-init refuses a symlink to a directory deep in the problem (65)" {
	cp -R "$P" prob
	ln -s /etc prob/data/etc
	run --separate-stderr -65 ar-init -k secrets -p prob camp
	[ "$stderr" = "ar-init: prob/data/etc: a symbolic link cannot be sealed; put the file itself in the problem" ]
	run -0 ls -A
	[ "$output" = "prob" ]
}

@test "ar-init refuses a fifo in the problem (65): nothing made, no tmp left" {
	cp -R "$P" prob
	mkfifo prob/data/stream
	run --separate-stderr -65 ar-init -p prob camp
	[ "$output" = "" ]
	[ "$stderr" = "ar-init: prob/data/stream: a special file cannot be sealed; put the file itself in the problem" ]
	run -0 ls -A
	[ "$output" = "prob" ]
}

@test "ar-init refuses a missing problem (66)" {
	run --separate-stderr -66 ar-init -p nowhere camp
	[ "$output" = "" ]
	[ "$stderr" = "ar-init: nowhere: No such file or directory" ]
	run -0 ls -A
	[ "$output" = "" ]
}

@test "ar-init refuses a problem that is a file, not a directory (66)" {
	cp "$P/problem.json" problem.json
	run --separate-stderr -66 ar-init -p problem.json camp
	[ "$output" = "" ]
	[ "$stderr" = "ar-init: problem.json: not a directory" ]
	run -0 ls -A
	[ "$output" = "problem.json" ]
}

@test "ar-init refuses a problem without problem.json (66), making nothing" {
	mkdir empty
	run --separate-stderr -66 ar-init -p empty camp
	[ "$output" = "" ]
	[ "$stderr" = "ar-init: empty/problem.json: missing; a problem is described by its problem.json (ar-problem(5))" ]
	run -0 ls -A
	[ "$output" = "empty" ]
}

# ar-init reads problem.json with ar-bench's checker: what ar-bench would
# refuse is refused before anything is sealed, with ar-bench's message
# (the same lines as tests/ar-bench.bats's bad manifests).
@test "ar-init refuses a problem.json ar-bench would refuse (65), with its message" {
	cp -R "$P" prob
	for c in '.notes = "x"|problem.json: notes: unknown key' \
	    '.stages.run.timeout = 5|problem.json: stages.run.timeout: unknown key' \
	    '.scales = [1, 0]|problem.json: scales: must hold whole numbers from 1 to 4096' \
	    'del(.workloads)|problem.json: workloads: missing' \
	    '.kind = "python"|problem.json: kind: must be "exec" (the kind ar-bench runs through stages), not "python"'; do
		jq "${c%%|*}" "$P/problem.json" > prob/problem.json
		run --separate-stderr -65 ar-init -p prob camp
		[ "$output" = "" ]
		[ "$stderr" = "ar-init: ${c#*|}" ]
	done
	printf '{"name": "a", "name": "b"}' > prob/problem.json
	run --separate-stderr -65 ar-init -p prob camp
	[[ "$stderr" == "ar-init: problem.json: invalid JSON "*"duplicate object key"* ]]
	run -0 ls -A
	[ "$output" = "prob" ]
}

@test "ar-init takes the campaign's scales from the problem's" {
	cp -R "$P" prob
	jq '.scales = [1, 2, 4]' "$P/problem.json" > prob/problem.json
	run -0 ar-init -p prob camp
	[ "$(conf camp scales)" = "1 2 4" ]
	jq '.scales = [3]' "$P/problem.json" > prob/problem.json
	run -0 ar-init -p prob camp3
	[ "$(conf camp3 scales)" = "3" ]
}

# "." names the directory itself: the hidden sibling goes in its parent.
@test "ar-init accepts an existing empty directory given as ." {
	mkdir camp
	cd camp
	run --separate-stderr -0 ar-init -p "$P" .
	cd ..
	[ "$(conf camp campaign)" = "$output" ]
	run --separate-stderr -0 ar-init -c camp
	[ "$output" = "$HDR" ]
}

@test "ar-init with a DIR whose parent is missing exits 66, creating nothing" {
	run --separate-stderr -66 ar-init -p "$P" missing/camp
	[ "$output" = "" ]
	[ "$stderr" = "ar-init: missing/camp: its parent directory: No such file or directory" ]
	run -0 ls -A
	[ "$output" = "" ]
}

# A DIR inside the problem would copy itself into itself: refused at once.
@test "ar-init refuses a DIR inside the problem, at once (64)" {
	cp -R "$P" prob
	cd prob
	run --separate-stderr -64 ar-init -p . camp
	[ "$output" = "" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "${#stderr}" -lt 300 ]
	run -0 ls -A
	[ "$output" = "data
problem.json
run.sh
score.sh" ]
}

# ---- crash safety ----

@test "ar-init: two runs racing for one DIR, exactly one wins, the other 73" {
	# Both runs usually pass the early existence check, so the loser loses
	# at rename(2) (ENOTEMPTY, as strace shows). In even rounds DIR exists
	# already, empty, so the winner's rename replaces it. (Not "i" for the
	# loop: bats 1.8's run leaks a global i.)
	mkdir secrets
	for r in 1 2 3 4 5 6 7 8; do
		if [ $((r % 2)) -eq 0 ]; then
			mkdir "camp$r"
		fi
		ar-init -k secrets -p "$P" "camp$r" >"a$r.out" 2>"a$r.err" &
		a=$!
		ar-init -k secrets -p "$P" "camp$r" >"b$r.out" 2>"b$r.err" &
		b=$!
		ra=0 rb=0
		wait "$a" || ra=$?
		wait "$b" || rb=$?
		if [ "$ra" -eq 0 ]; then
			win=a lose=b rw=$ra rl=$rb
		else
			win=b lose=a rw=$rb rl=$ra
		fi
		echo "round $r: $win $rw, $lose $rl"
		[ "$rw" -eq 0 ]
		[ "$rl" -eq 73 ]
		[ "$(cat "$lose$r.out")" = "" ]
		[ "$(cat "$lose$r.err")" = "ar-init: camp$r: exists already; refusing to overwrite it" ]
		[ "$(cat "$win$r.err")" = "" ]
		id=$(cat "$win$r.out")
		[ "$id" = "$(conf "camp$r" campaign)" ]
		[ "$(conf "camp$r" key)" = "$(cd secrets && pwd -P)/$id.key" ]
		run --separate-stderr -0 ar-init -c "camp$r"
		[ "$output" = "$HDR" ]
		[ -f "secrets/$id.key" ]
	done
	# The losers took their secret keys and tmp directories away.
	run -0 ls secrets
	[ "${#lines[@]}" -eq 8 ]
	[ "$(tmpdirs)" -eq 0 ]
}

@test "ar-init -c: a chmod of problem/ itself is named" {
	mkcamp camp
	chmod 0755 camp/problem
	run --separate-stderr -1 ar-init -c camp
	[ "$output" = "$HDR
$(printf 'changed\t.\tmode 0555 -> 0755')" ]
}

@test "ar-init -c: a SEAL and bench.pub copied from another campaign are refused (1)" {
	mkcamp camp
	mkcamp other
	writable camp/SEAL camp/keys camp/keys/bench.pub
	cat other/SEAL > camp/SEAL
	cat other/keys/bench.pub > camp/keys/bench.pub
	run --separate-stderr -1 ar-init -c camp
	[ "$output" = "" ]
	[[ "$stderr" == "ar-init: camp/SEAL: belongs to campaign "*", not "* ]]
}

@test "ar-init removes the hidden siblings that killed runs left an hour ago or more" {
	mkdir -p .camp.tmp-old/problem .camp.tmp-new .other.tmp-old
	chmod 0555 .camp.tmp-old/problem
	touch -d '2 hours ago' .camp.tmp-old .other.tmp-old
	run --separate-stderr -0 ar-init -p "$P" camp
	[ ! -e .camp.tmp-old ]
	# A recent one may be another run at work; another DIR's is not ours.
	[ -d .camp.tmp-new ]
	[ -d .other.tmp-old ]
	run --separate-stderr -0 ar-init -c camp
}
