#!/usr/bin/env bats
# ar-bench: the sealed benchmark, on the toy problem of fixtures/bench (a
# shell loop; one run costs about 20 ms; see fixtures/bench/README). Tests
# every verdict (keep, discard, equivalent, inconclusive; invalid for each
# of its causes; crash; timeout), the checks on every run (work, gates,
# guardrails, CPU time, links in the output), a baseline or judge stage
# that fails, the seal, --aa, dev and holdout seeds, the ledger (appended
# results verify, edited ones do not), methods given as directories and as
# commits, progress lines, -k, -G, the sandbox (what a method can see, read
# and write; /tmp; leftovers; AR_BWRAP), interrupts, bad manifests named
# field by field, and the command line. Then the int8-matvec example
# methods on its "tiny" workload. Eight sessions at once into one ledger
# is a stress test (tests/stress/ar-bench-stress.bats).
#
# Tests that use the sandbox skip without root and a working bwrap; the
# others run in the sandbox where it works and with --no-sandbox elsewhere.

bats_require_minimum_version 1.5.0
load common

setup_file() {
	ar_bench_setup_file
}

setup() {
	ar_bench_setup
	USAGE="usage: ar-bench [-aKqv] [-C campaign] [-m method] [-w workload] [-k cpus] [-G gpu-ids] [-S dev|holdout|both] [-T seconds] [-p min-pairs] [-P max-pairs] [-e min-effect] [-W warmup] [-t run-timeout] [-x experiment] [-i idea] [--sched-pairs min,max] [--stop-at ratio [--stop-prior lo,hi]] [--aa] [--no-sandbox] [--device auto|cuda|cpu]
       ar-bench --roofline [--aa] [-q] [-C campaign] [-k cpus] [-G gpu-ids] [-P samples] [-W warmup] [--device auto|cuda|cpu]
       ar-bench --check [-qv] [-C campaign] [-m method] [-w workload] [-k cpus] [-G gpu-ids] [-t run-timeout] [--no-sandbox] [--device auto|cuda|cpu]"
}

teardown() {
	ar_bench_teardown
}

# variant JQ: a copy of the toy problem, problem.json passed through JQ,
# in ./prob (ar-init seals whatever it is given).
variant() {
	rm -rf prob
	cp -R "$TOY" prob
	jq "$1" "$TOY/problem.json" > prob/problem.json
}

# no_scratch: ar-bench left nothing in TMPDIR.
no_scratch() {
	run -0 ls -A "$TMPDIR"
	[ "$output" = "" ]
}

# treehash DIR: a directory method's hash as ar-result(5) defines it:
# BLAKE2b-256 of "MODE HASH<TAB>PATH" lines, one per file, sorted by path.
treehash() {
	(cd "$1" && find . -type f -printf '%P\n' | LC_ALL=C sort |
	    while IFS= read -r f; do
		mode=100644
		[ -x "$f" ] && mode=100755
		printf '%s %s\t%s\n' "$mode" \
		    "$(b2sum -l 256 "$f" | cut -d ' ' -f 1)" "$f"
	    done) | b2sum -l 256 | cut -d ' ' -f 1
}

# method NAME [SED]: a copy of a fixture method in ./NAME, its
# placeholders replaced by SED.
method() {
	mkdir -p "$1"
	cp -R "$M/$1/." "$1/"
	if [ -n "${2:-}" ]; then
		sed -i "$2" "$1/run.sh"
	fi
}

# alive: the processes whose command line names TAG; tagged: there is
# one; untagged: there is none (for poll).
alive() {
	pgrep -af "$TAG" || true
}
tagged() {
	[ -n "$(alive)" ]
}
untagged() {
	[ -z "$(alive)" ]
}

# ---- the command line ----

@test "ar-bench -h and --help print the usage on stdout and exit 0" {
	run --separate-stderr -0 ar-bench -h
	[ "$output" = "$USAGE" ]
	[ "$stderr" = "" ]
	run --separate-stderr -0 ar-bench --help
	[ "$output" = "$USAGE" ]
	[ "$stderr" = "" ]
}

@test "ar-bench --version prints the name and the version of config.mk" {
	run --separate-stderr -0 ar-bench --version
	[ "$output" = "ar-bench $VERSION" ]
	[ "$stderr" = "" ]
}

@test "ar-bench usage errors exit 64, saying why, before touching the campaign" {
	# No campaign at all: each is refused before it is opened.
	run --separate-stderr -64 ar-bench -C nowhere
	[ "$output" = "" ]
	[ "$stderr" = "ar-bench: no method: give -m commit-or-directory, or --aa to measure the baseline against itself" ]
	run --separate-stderr -64 ar-bench -C nowhere --aa extra
	[ "$stderr" = "$USAGE" ]
	run --separate-stderr -64 ar-bench -C nowhere --aa -Z
	[ "$stderr" = "ar-bench: invalid option -- 'Z'
$USAGE" ]
	run --separate-stderr -64 ar-bench -C nowhere --aa -m
	[ "$stderr" = "ar-bench: option requires an argument -- 'm'
$USAGE" ]
	run --separate-stderr -64 ar-bench -C nowhere --aa --frob
	[ "$stderr" = "ar-bench: unrecognized option '--frob'
$USAGE" ]
	run --separate-stderr -64 ar-bench -C nowhere --aa -m "$M/fast"
	[ "$stderr" = "ar-bench: --aa measures the baseline against itself; it takes no -m" ]
	run --separate-stderr -64 ar-bench -C nowhere --aa -S dev2
	[ "$stderr" = "ar-bench: -S dev2: seeds are dev, holdout or both" ]
	run --separate-stderr -64 ar-bench -C nowhere --aa -k 0
	[ "$stderr" = "ar-bench: -k 0: expected an integer from 1 to 1024" ]
	run --separate-stderr -64 ar-bench -C nowhere --aa -k 1.5
	[ "$stderr" = "ar-bench: -k 1.5: expected an integer from 1 to 1024" ]
	run --separate-stderr -64 ar-bench -C nowhere --aa -p x
	[ "$stderr" = "ar-bench: -p x: expected an integer from 1 to 1000000" ]
	run --separate-stderr -64 ar-bench -C nowhere --aa -p 2.7
	[ "$stderr" = "ar-bench: -p 2.7: expected an integer from 1 to 1000000" ]
	run --separate-stderr -64 ar-bench -C nowhere --aa -P 0
	[ "$stderr" = "ar-bench: -P 0: expected an integer from 1 to 1000000" ]
	run --separate-stderr -64 ar-bench -C nowhere --aa -e 1
	[ "$stderr" = "ar-bench: -e 1: expected a number from 0 to 0.99" ]
	run --separate-stderr -64 ar-bench -C nowhere --aa -T 0
	[ "$stderr" = "ar-bench: -T 0: expected a number from 0.001 to 1e+09" ]
	run --separate-stderr -64 ar-bench -C nowhere --aa -W -1
	[ "$stderr" = "ar-bench: -W -1: expected an integer from 0 to 1000000" ]
	run --separate-stderr -64 ar-bench -C nowhere --aa -t 0
	[ "$stderr" = "ar-bench: -t 0: expected a number from 0.001 to 1e+09" ]
	run --separate-stderr -64 ar-bench -C nowhere --aa -x 'bad/id'
	[ "$stderr" = "ar-bench: -x bad/id: not an id ([A-Za-z0-9._-], at most 100)" ]
	run --separate-stderr -64 ar-bench -C nowhere --aa -i 'an idea'
	[ "$stderr" = "ar-bench: -i an idea: not an id ([A-Za-z0-9._-], at most 100)" ]
	run --separate-stderr -64 ar-bench -C nowhere --aa --stop-at 0
	[ "$stderr" = "ar-bench: --stop-at 0: expected a number from 1e-06 to 1e+06" ]
	run --separate-stderr -64 ar-bench -C nowhere --aa --stop-at nan
	[ "$stderr" = "ar-bench: --stop-at nan: expected a number from 1e-06 to 1e+06" ]
	run --separate-stderr -64 ar-bench -C nowhere --roofline --stop-at 2
	[ "$stderr" = "ar-bench: --roofline: --stop-at is for exec problems" ]
	for bad in 1 1, ,1 0,1 1,1 1.1,1 1,nan 1,1e7 a,b; do
		run --separate-stderr -64 ar-bench -C nowhere --aa --stop-at 1 --stop-prior "$bad"
		[ "$stderr" = "ar-bench: --stop-prior $bad: expected lo,hi, ratios with 1e-06 <= lo < hi <= 1e+06" ] ||
		    [ "$stderr" = "ar-bench: --stop-prior $bad: expected lo,hi" ]
	done
	run --separate-stderr -64 ar-bench -C nowhere --aa --stop-prior 0.9,1.1
	[ "$stderr" = "ar-bench: --stop-prior: only with --stop-at, whose question it helps answer" ]
	run --separate-stderr -64 ar-bench -C nowhere --roofline --stop-prior 0.9,1.1
	[ "$stderr" = "ar-bench: --roofline: --stop-prior is for exec problems" ]
	for bad in 8 8, ,8 0,8 9,8 8,1000001 a,b 8,9,10; do
		run --separate-stderr -64 ar-bench -C nowhere --aa --sched-pairs "$bad"
		[[ "$stderr" == "ar-bench: --sched-pairs $bad: expected min,max"* ]]
	done
	run --separate-stderr -64 ar-bench -C nowhere --roofline --sched-pairs 8,16
	[ "$stderr" = "ar-bench: --roofline: --sched-pairs is for exec problems" ]
	no_scratch
}

@test "ar-bench: -P below -p exits 64, naming where each came from" {
	mkcamp
	run --separate-stderr -64 ar-bench -C camp --aa -p 8 -P 4
	[ "$output" = "" ]
	[ "$stderr" = "ar-bench: max pairs 4 (-P) is below min pairs 8 (-p)" ]
	# The default min pairs, 16, gives way to a smaller -P.
	bench -m "$M/fast" -P 2 -W 0
	[ "$status" -eq 0 ]
	[ "$(j .stats.pairs)" = 2 ]
	rm -rf camp
	variant '.limits = {"min_pairs": 8}'
	mkcamp -p prob
	run --separate-stderr -64 ar-bench -C camp --aa -P 4
	[ "$stderr" = "ar-bench: max pairs 4 (-P) is below min pairs 8 (problem.json)" ]
	no_scratch
}

@test "ar-bench -w with an unknown workload exits 64 listing the workloads" {
	mkcamp
	run --separate-stderr -64 ar-bench -C camp --aa -w huge
	[ "$output" = "" ]
	[ "$stderr" = "ar-bench: -w huge: no such workload in problem.json (there are: small, tiny)" ]
	no_scratch
}

@test "ar-bench -k more CPUs than there are exits 64" {
	mkcamp
	n=$(nproc)
	run --separate-stderr -64 ar-bench -C camp --aa -k 999
	[ "$output" = "" ]
	[ "$stderr" = "ar-bench: -k 999: only $n CPUs are available here" ]
	run --separate-stderr -64 ar-bench -C camp --aa -k $((n + 1))
	[ "$stderr" = "ar-bench: -k $((n + 1)): only $n CPUs are available here" ]
	no_scratch
}

@test "ar-bench: a missing campaign or secret key exits 66" {
	run --separate-stderr -66 ar-bench -C nowhere --aa
	[ "$output" = "" ]
	[ "$stderr" = "ar-bench: nowhere: No such file or directory" ]
	mkcamp
	mv "$KEY" "$T/moved.key"
	run --separate-stderr -66 ar-bench -C camp --aa
	[ "$output" = "" ]
	[ "$stderr" = "ar-bench: $KEY: No such file or directory" ]
	no_scratch
}

@test "ar-bench: an unknown -m exits 66, and is never taken for a git option" {
	mkcamp
	run --separate-stderr -66 ar-bench -C camp -m nope
	[ "$output" = "" ]
	[ "$stderr" = "ar-bench: nope: no such method directory, nor a commit in camp/methods" ]
	run --separate-stderr -66 ar-bench -C camp -m 0123456789abcdef0123456789abcdef01234567
	[ "$stderr" = "ar-bench: 0123456789abcdef0123456789abcdef01234567: no such method directory, nor a commit in camp/methods" ]
	run --separate-stderr -66 ar-bench -C camp -m --output=pwned
	[ "$stderr" = "ar-bench: --output=pwned: no such method directory, nor a commit in camp/methods" ]
	[ ! -e pwned ] && [ ! -e camp/methods/pwned ]
	no_scratch
}

# ---- verdicts ----

@test "ar-bench: a method that does an eighth of the work is a keep" {
	mkcamp
	bench -m "$M/fast" -p 8 -P 96 -W 0
	[ "$status" -eq 0 ]
	[ "$stderr" = "" ]
	[ "$(j .verdict)" = keep ]
	[[ "$(j .why)" =~ ^[0-9.]+%\ better\ \(CI\ ([0-9.]+%\ to\ [0-9.]+%|above\ [0-9.]+%)\)\ over\ [0-9]+\ pairs:\ faster\ at\ the\ keep\ boundary,\ and\ the\ estimate\ clears\ the\ minimum\ effect\ of\ 1%$ ]]
	jq -e '.ratio.ci_lo > 1 and .ratio.median >= 1.01 and
	    .ratio.median >= .ratio.ci_lo and
	    (.ratio.ci_hi == null or .ratio.ci_hi >= .ratio.median) and
	    .ratio.n == .stats.pairs and .ratio.conf > 0.99 and
	    .ratio.conf < 1' r.json
	jq -e '.metrics.t.median < .baseline.t.median and
	    .metrics.work.median == 20000 and .baseline.work.median == 20000' r.json
	jq -e '.stats.pairs >= 8 and .stats.pairs <= 96 and .stats.warmup == 0
	    and .stats.min_effect == 0.01 and .stats.alpha == 0.007 and
	    .stats.beta == 0.1 and .stats.block_pairs == 2 and
	    .stats.pairs_used < .stats.pairs and .stats.blocks >= 4' r.json
	[ "$(j .method.dir)" = "$(cd "$M/fast" && pwd -P)" ]
	[ "$(j .method.hash)" = "$(treehash "$M/fast")" ]
	[ "$(j .sandbox)" = "$SBNAME" ]
	[ "$(j '.failure // "none"')" = none ]
	[ "$(j .seeds)" = dev ]
	[ "$(j .aa)" = false ]
	[ "$(j .workload)" = small ]
	[ "$(j .problem)" = toy ]
	[ "$(j .metric)" = t ]
	[ "$(j .unit)" = s ]
	[ "$(j .direction)" = lower ]
	[ "$(j .device)" = cpu ]
	[ "$(j .campaign)" = "$(sed -n 's/^campaign = //p' camp/campaign.conf)" ]
	[ "$(j .build)" = "autoreduce-$VERSION" ]
	[ "$(j -c .gates)" = '[{"check":"command sh \"$AR_PROBLEM/check.sh\"","pass":true,"runs":1},{"check":"ok == 1","pass":true,"runs":'"$(j .stats.pairs)"',"worst":1}]' ]
	[ "$(j -c .work)" = '{"expected":20000,"metric":"work","pass":true,"runs":'"$(j .stats.pairs)"'}' ]
	# Every pair is in raw, and the order is balanced: of each two
	# pairs, one runs the baseline first and the other the method.
	order=$(j .raw.order)
	[ "${#order}" -eq "$(j .stats.pairs)" ]
	[[ "$order" =~ ^[bm]+$ ]]
	for ((p = 0; p + 1 < ${#order}; p += 2)); do
		[ "${order:p:1}" != "${order:p+1:1}" ]
	done
	jq -e '(.raw.method.t | length) == .stats.pairs and
	    (.raw.baseline.wall_s | length) == .stats.pairs' r.json
	no_scratch
}

@test "ar-bench: a method that does three times the work is a discard" {
	mkcamp
	bench -m "$M/slow" -p 8 -P 16 -W 1
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = discard ]
	# After a warm-up pair too, the counted pairs are balanced.
	order=$(j .raw.order)
	[ "${#order}" -eq "$(j .stats.pairs)" ]
	for ((p = 0; p + 1 < ${#order}; p += 2)); do
		[ "${order:p:1}" != "${order:p+1:1}" ]
	done
	[[ "$(j .why)" =~ ^no\ gain\ of\ 1%\ is\ plausible:\ ratio\ 0\.[0-9]+,\ CI\ up\ to\ 0\.[0-9]+\ over\ [0-9]+\ pairs$ ]]
	jq -e '.ratio.ci_hi < 1.01 and
	    .metrics.t.median > .baseline.t.median' r.json
	no_scratch
}

@test "ar-bench --aa: the baseline against itself is equivalent within 90%" {
	mkcamp
	bench --aa -e 0.9 -p 24 -P 48 -W 0
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = equivalent ]
	[[ "$(j .why)" =~ ^the\ same\ within\ 90%:\ ratio\ [0-9.]+,\ CI\ [0-9.]+\ to\ [0-9.]+\ over\ [0-9]+\ pairs$ ]]
	[ "$(j .aa)" = true ]
	[ "$(j -c '.method | keys')" = '["dir","hash"]' ]
	[ "$(j .method.dir)" = baseline ]
	[ "$(j .method.hash)" = "$(treehash "$TOY/baseline")" ]
	jq -e '.ratio.ci_lo >= 1 / 1.9 and .ratio.ci_hi <= 1.9 and
	    .stats.min_effect == 0.9' r.json
	# The noise floor: the pairs' spread and the interval's half width.
	jq -e '.noise_floor.rsd == .stats.rsd and .noise_floor.rsd >= 0 and
	    (.noise_floor.ci_half_width - (.ratio.ci_hi - .ratio.ci_lo) / 2 |
	    fabs) < 1e-12' r.json
	no_scratch
}

@test "ar-bench: too few pairs for a verdict is inconclusive (-P 2)" {
	mkcamp
	bench -m "$M/fast" -p 2 -P 2
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = inconclusive ]
	[[ "$(j .why)" =~ ^undecided\ after\ 2\ pairs\ in\ [0-9]+\ s:\ ratio\ [0-9.]+,\ too\ few\ pairs\ for\ an\ interval$ ]]
	# The one warm-up pair is run and checked, and not counted.
	jq -e '.stats.pairs == 2 and .stats.runs_pairs == 3 and
	    .stats.warmup == 1 and .ratio.n == 2 and .ratio.ci_lo == null and
	    .ratio.ci_hi == null and .ratio.median > 1.5 and
	    .gates[1].runs == 3 and .work.runs == 3' r.json
	no_scratch
}

@test "ar-bench --stop-at: the session ends once the ratio is clearly on one side, undecided" {
	mkcamp
	# The baseline against itself: 0.1% is not decided in a few pairs,
	# but that the ratio lies below 2, or above 0.5, is. An A/A is
	# decided (a false keep or discard) at a look with a chance of at
	# most alpha / looks, so each is tried up to three times.
	aa_stop() {
		for try in 1 2 3; do
			bench --aa -p 8 -P 200 -W 0 -e 0.001 --stop-at "$1"
			[ "$status" -eq 0 ]
			[ "$(j .verdict)" != inconclusive ] || break
		done
		[ "$(j .verdict)" = inconclusive ]
		jq -e '.stats.pairs < 200 and .ratio.n == .stats.pairs' r.json
	}
	aa_stop 2
	[[ "$(j .why)" =~ ^stopped\ by\ --stop-at\ 2\ after\ [0-9]+\ pairs:\ ratio\ [0-9.]+,\ its\ 95%\ interval\ [0-9.]+\ to\ [0-9.]+\ clearly\ below\ it\;\ the\ minimum\ effect\ of\ 0.1%\ is\ undecided$ ]]
	[ "$(j .stats.stop_at)" = 2 ]
	aa_stop 0.5
	[[ "$(j .why)" =~ clearly\ above\ it ]]
	# A verdict that is decided first is the verdict: the slow method
	# is a discard, whatever the ratio it was asked about. On a loaded
	# machine the question may be answered at a look before the verdict
	# is (inconclusive, stopped by --stop-at): tried up to three times.
	for try in 1 2 3; do
		bench -m "$M/slow" -p 16 -P 32 -W 0 --stop-at 0.1
		[ "$(j .verdict)" != discard ] || break
		[[ "$(j .why)" == "stopped by --stop-at 0.1 "* ]]
	done
	[ "$(j .verdict)" = discard ]
	# Without --stop-at, the result has no stop_at.
	bench --aa -p 8 -P 8 -W 0
	[ "$(j '.stats | has("stop_at")')" = false ]
	no_scratch
}

@test "ar-bench --stop-prior: the pair's earlier interval answers the question with the session's first look" {
	mkcamp
	# The baseline against itself, asked whether it clears 1.02: the
	# earlier measurements (0.99 to 1.005) already say it does not, so
	# the session ends at its first look, 8 pairs, whatever they show.
	bench --aa -p 8 -P 400 -W 0 -e 0.001 --stop-at 1.02 --stop-prior 0.99,1.005
	[ "$status" -eq 0 ]
	jq -e '.stats.pairs == 8 and .verdict == "inconclusive" and .stats.stop_prior == [0.99, 1.005] and .stats.stop_at == 1.02' r.json
	# Its why gives the session's own interval, as any stopped
	# session's does (a reader pooling results weighs that one).
	[[ "$(j .why)" =~ ^stopped\ by\ --stop-at\ 1.02\ after\ 8\ pairs:\ ratio\ [0-9.]+,\ its\ 95%\ interval\ [0-9.]+\ to\ [0-9.]+\;\ with\ the\ earlier\ measurements\'\ 0.9900\ to\ 1.0050,\ clearly\ below\ it\;\ the\ minimum\ effect\ of\ 0.1%\ is\ undecided$ ]]
	# Without it the result has no stop_prior.
	bench --aa -p 8 -P 8 -W 0 --stop-at 1.02
	[ "$(j '.stats | has("stop_prior")')" = false ]
	no_scratch
}

@test "ar-bench --stop-at: a verdict decided first does not end the session, the scheduler's question does" {
	mkcamp
	# Within 50%, the baseline against itself is decided in a few
	# pairs. On a loaded machine a burst of noise can leave it
	# undecided at 24 (CI saw it once): up to three tries.
	for try in 1 2 3; do
		bench --aa -e 0.5 -p 8 -P 24 -W 0
		[ "$status" -eq 0 ]
		! jq -e '.stats.pairs < 24 and .verdict != "inconclusive"' r.json >/dev/null || break
	done
	jq -e '.stats.pairs < 24 and .verdict != "inconclusive"' r.json
	# Whether its ratio lies above or below 1 is not: with --stop-at 1
	# the session runs to the most pairs, and the verdict is taken
	# there. A false answer (5% a look) ends it early, so up to three
	# tries.
	for try in 1 2 3; do
		bench --aa -e 0.5 -p 8 -P 24 -W 0 --stop-at 1
		[ "$status" -eq 0 ]
		[ "$(j .stats.pairs)" != 24 ] || break
	done
	jq -e '.stats.pairs == 24 and .ratio.n == 24 and .stats.stop_at == 1' r.json
	[[ "$(j .why)" != stopped* ]]
	no_scratch
}

@test "ar-bench --sched-pairs: the scheduler's pair limits replace the manifest's and give way to -p and -P" {
	variant '.limits.min_pairs = 30 | .limits.max_pairs = 40'
	mkcamp -p prob
	bench --aa -W 0 -e 0.001 --sched-pairs 4,6
	jq -e '.stats.pairs >= 4 and .stats.pairs <= 6' r.json
	# -P below the scheduler's min: its min gives way.
	bench --aa -W 0 -e 0.001 --sched-pairs 8,12 -P 3
	jq -e '.stats.pairs == 3' r.json
	# -p above the scheduler's max: its max gives way.
	bench --aa -W 0 -e 0.001 --sched-pairs 4,6 -p 9
	jq -e '.stats.pairs == 9' r.json
	# -p and -P both given: the scheduler's limits are not used.
	bench --aa -W 0 -e 0.001 --sched-pairs 4,6 -p 2 -P 2
	jq -e '.stats.pairs == 2' r.json
	no_scratch
}

@test "ar-bench -T: the time limit ends the session, inconclusive" {
	mkcamp
	bench -m "$M/fast" -T 0.001 -W 0
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = inconclusive ]
	[[ "$(j .why)" =~ ^undecided\ after\ 1\ pair\ in\ [0-9]+\ s:\ ratio\ [0-9.]+,\ too\ few\ pairs\ for\ an\ interval$ ]]
	jq -e '.stats.pairs == 1 and .stats.time_limit_s == 0.001' r.json
	# The ratio the one pair saw, with no interval.
	jq -e '.ratio.n == 1 and .ratio.median > 1.5 and .ratio.ci_lo == null
	    and .ratio.ci_hi == null' r.json
	# The defaults, 16 and 2048 pairs: the keep boundary is z 3.38, an
	# interval at 1 - 2 Q(3.38).
	jq -e '.ratio.conf > 0.9992 and .ratio.conf < 0.9993' r.json
	no_scratch
}

@test "ar-bench: lost work is invalid, and the result says how much was done" {
	mkcamp
	bench -m "$M/skip"
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = invalid ]
	[ "$(j .why)" = "lost work: work = 10000, the workload asked for 20000 (pair 0)" ]
	[ "$(j -c .work)" = '{"done":10000,"expected":20000,"metric":"work","pass":false,"runs":1}' ]
	[ "$(j -c .pass)" = '{"gates":true,"guardrails":true,"work":false}' ]
	[ "$(j '.failure // "none"')" = none ]
	no_scratch
}

@test "ar-bench: a failed metric gate is invalid (gate ok == 1)" {
	mkcamp
	bench -m "$M/wrong"
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = invalid ]
	[ "$(j .why)" = "gate ok == 1 failed: 0 (pair 0)" ]
	[ "$(j -c '.gates[1]')" = '{"check":"ok == 1","pass":false,"runs":1,"worst":0}' ]
	[ "$(j .gates[0].pass)" = true ]
	no_scratch
}

@test "ar-bench: a failed gate command is invalid, its stderr in .failure" {
	mkcamp
	bench -m "$M/cheat"
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = invalid ]
	[ "$(j .why)" = 'gate command sh "$AR_PROBLEM/check.sh" failed: exited with status 1' ]
	[ "$(j -c .failure)" = '{"exit":1,"role":"method","stage":"gate","stderr":"check: run.sh cheats"}' ]
	[ "$(j -c '.gates[0]')" = '{"check":"command sh \"$AR_PROBLEM/check.sh\"","pass":false,"runs":1}' ]
	# Checked before any pair.
	jq -e '.stats.pairs == 0 and .stats.runs_pairs == 0' r.json
	no_scratch
}

@test "ar-bench: a score that exits non-zero makes the run invalid" {
	mkcamp
	bench -m "$M/noout"
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = invalid ]
	[ "$(j .why)" = "score exited with status 2 on the method's run (pair 0)" ]
	[ "$(j .failure.stage)" = score ]
	[ "$(j .failure.role)" = method ]
	[ "$(j .failure.pair)" = 0 ]
	[ "$(j .failure.exit)" = 2 ]
	[[ "$(j .failure.stderr)" =~ ^score:\ .*/n:\ the\ run\ wrote\ no\ count$ ]]
	no_scratch
}

@test "ar-bench: files changed outside the mutable paths are invalid, nothing run" {
	mkcamp
	bench -m "$M/outside"
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = invalid ]
	[ "$(j .why)" = "the method changes files outside the mutable paths: extra.txt, notes.txt" ]
	jq -e '.stats.pairs == 0 and .stats.runs_pairs == 0 and
	    .gates[0].runs == 0' r.json
	# More than five are counted, not listed.
	mkdir many
	for f in a b c d e f g; do
		echo "$f" > "many/$f.txt"
	done
	bench -m many
	[ "$status" -eq 0 ]
	[ "$(j .why)" = "the method changes files outside the mutable paths: a.txt, b.txt, c.txt, d.txt, e.txt and 2 more" ]
	# A mode is a change too: notes.txt made executable.
	mkdir modes
	cp "$TOY/baseline/notes.txt" modes/
	chmod +x modes/notes.txt
	bench -m modes
	[ "$(j .why)" = "the method changes files outside the mutable paths: notes.txt" ]
	no_scratch
}

# A method, which an agent writes, gets a verdict when its files do not
# fit over the baseline (a directory where the baseline has a file); it
# never stops the benchmark with a path of a removed scratch directory.
@test "ar-bench: a method with a directory where the baseline has a mutable file gets a verdict" {
	mkcamp
	mkdir -p m/run.sh
	echo 'echo hi' > m/run.sh/x
	bench -m m -p 2 -P 2
	[ "$status" -eq 0 ]
	[[ "$(j .verdict)" =~ ^(invalid|crash)$ ]]
	no_scratch
}

@test "ar-bench: a whole copy of the baseline is a method; its unchanged files are fine" {
	mkcamp
	mkdir whole
	cp -R "$TOY/baseline/." whole/
	cp -R "$M/fast/." whole/
	bench -m whole -p 8 -P 96 -W 0
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = keep ]
	[ "$(j .method.hash)" = "$(treehash whole)" ]
}

@test "ar-bench: a guardrail that fails is a discard" {
	mkcamp
	bench -m "$M/bloat"
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = discard ]
	[[ "$(j .why)" =~ ^guardrail\ out_kb\ \<=\ 256\ failed:\ [0-9]+\ against\ 256\ \(pair\ 0\)$ ]]
	jq -e '.guardrails[0].check == "out_kb <= 256" and
	    .guardrails[0].pass == false and .guardrails[0].worst > 256 and
	    .pass == {"gates": true, "guardrails": false, "work": true}' r.json
	no_scratch
}

@test "ar-bench: guardrails on ar-bench's own wall_s, cpu_s, maxrss_kb" {
	variant '.guardrails += [{"metric": "wall_s", "op": "<=", "ratio_to_baseline": 1.5}, {"metric": "maxrss_kb", "op": "<", "value": 1000000}, {"metric": "cpu_s", "op": ">", "value": 0}]'
	mkcamp -p prob
	bench -m "$M/fast" -p 2 -P 2
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = inconclusive ]
	jq -e '[.guardrails[] | .pass and .runs == 3] | all' r.json
	jq -e '.guardrails[1].worst >= (.raw.method.wall_s | max)' r.json
	# Three times the work is more than 1.5 times the baseline's time.
	bench -m "$M/slow"
	[ "$(j .verdict)" = discard ]
	[[ "$(j .why)" =~ ^guardrail\ wall_s\ \<=\ 1\.5\ \*\ baseline\ failed:\ [0-9.]+\ against\ [0-9.]+\ \(pair\ 0\)$ ]]
	[ "$(j '.guardrails[1].pass')" = false ]
}

@test "ar-bench: a run cannot use more CPU time than its k CPUs: widening its affinity changes nothing" {
	[ "$(nproc)" -ge 2 ] || skip "a run widening its affinity needs 2 CPUs"
	mkcamp
	mkdir greedy
	cat > greedy/run.sh <<'EOF'
# Widens its affinity to every CPU and counts on two at once.
taskset -a -p -c "0-$(($(nproc --all) - 1))" $$ > /dev/null 2>&1
count() {
	i=0
	while [ "$i" -lt $((4 * N)) ]; do
		i=$((i + 1))
	done
}
count &
count
wait
echo "$N" > "$AR_OUT/n"
cp "$AR_IN/seed" "$AR_OUT/seed"
EOF
	# The widening "succeeds" and changes nothing (seccomp): with -k 1
	# both counts share one CPU, so no run uses more CPU time than wall
	# time (were one to, the run would be invalid).
	bench -m greedy -k 1 -p 4 -P 4 -W 0
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" != invalid ]
	jq -e '.metrics.cpu_s.median <= 1.1 * .metrics.wall_s.median + 0.02' r.json
	# With -k 2 the same run is within its CPUs.
	bench -m greedy -k 2 -p 2 -P 2
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" != invalid ]
	no_scratch
}

@test "ar-bench: a symbolic link in the run's output makes it invalid" {
	mkcamp
	mkdir link
	cp "$TOY/baseline/run.sh" link/
	echo 'ln -s "$AR_IN/seed" "$AR_OUT/seed.link"' >> link/run.sh
	bench -m link
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = invalid ]
	[ "$(j .why)" = "the run left a symbolic link in its output, not a plain file: seed.link (pair 0)" ]
	no_scratch
}

# A special file in the run's output is named by its path in the output.
@test "ar-bench: a fifo in the run's output is invalid, named in the output" {
	mkcamp
	mkdir fifo
	cp "$TOY/baseline/run.sh" fifo/
	echo 'mkdir "$AR_OUT/d" && mkfifo "$AR_OUT/d/pipe"' >> fifo/run.sh
	bench -m fifo
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = invalid ]
	[ "$(j .why)" = "the run left a special file in its output, not a plain file: d/pipe (pair 0)" ]
}

@test "ar-bench: a run killed by a signal is a crash: signal and last stderr lines" {
	mkcamp
	bench -m "$M/crash"
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = crash ]
	[ "$(j .why)" = "run was killed by SIGSEGV (pair 0); stderr ends: crash: about to crash" ]
	[ "$(j -c .failure)" = '{"pair":0,"role":"method","signal":"SIGSEGV","stage":"run","stderr":"crash: line 1\ncrash: line 2\ncrash: about to crash"}' ]
	no_scratch
}

@test "ar-bench: a run that exits non-zero is a crash: status and last 10 lines" {
	mkcamp
	bench -m "$M/exit3"
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = crash ]
	[ "$(j .why)" = "run exited with status 3 (pair 0); stderr ends: exit3: line 15" ]
	[ "$(j .failure.exit)" = 3 ]
	[ "$(j '.failure.signal // "none"')" = none ]
	[ "$(j .failure.stderr)" = "$(seq -f 'exit3: line %g' 6 15)" ]
	no_scratch
}

@test "ar-bench: .failure.stderr is valid UTF-8 without control characters, at most 2000 bytes" {
	mkcamp
	mkdir m
	cat > m/run.sh <<'EOF'
printf 'line one\n' >&2
printf 'caf\303\251 \377\376 bad\n' >&2
printf '\033[31mred\033[0m\tTAB\n\n' >&2
printf 'last \342\202' >&2
exit 1
EOF
	bench -a -m m
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = crash ]
	[ "$(j '.failure.stderr | tojson')" = '"line one\ncafé ?? bad\n?[31mred?[0m\tTAB\n\nlast ??"' ]
	# A line of 3000 bytes before the last: only the last 2000 bytes.
	printf 'head -c 3000 /dev/zero | tr "\\\\000" x >&2\n' > m2
	cat m/run.sh >> m2
	mv m2 m/run.sh
	bench -a -m m
	[ "$(j '.failure.stderr | utf8bytelength')" -eq 2000 ]
	[[ "$(j .failure.stderr)" == xxx*"last ??" ]]
	run --separate-stderr -0 ar-ledger verify -C camp
	[ "$stderr" = "ar-ledger: 2 rows: 2 verified, 0 unsigned (imported); 0 problems" ]
}

@test "ar-bench: a run past its timeout is a timeout, and no process of it is left" {
	mkcamp
	method hang "s/MARKER/$TAG/"
	# -t lowers the problem's run timeout of 2 s (the why says which
	# limit ended the run; the clock would only say the machine's load).
	bench -m hang -t 1
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = timeout ]
	[ "$(j .why)" = "run timed out after 1 s (pair 0)" ]
	[ "$(j -c .failure)" = '{"pair":0,"role":"method","stage":"run","stderr":"","timed_out":true}' ]
	jq -e '.leftovers.method >= 1 and .leftovers.baseline == 0' r.json
	[ "$(alive)" = "" ]
	no_scratch
	# Without a sandbox too: the runner kills what the run started.
	bench --no-sandbox -m hang -t 1
	[ "$(j .verdict)" = timeout ]
	[ "$(j .sandbox)" = none ]
	[ "$(alive)" = "" ]
	no_scratch
}

@test "ar-bench -t never raises the problem's run timeout" {
	variant '.stages.run.timeout_s = 1'
	mkcamp -p prob
	method hang "s/MARKER/$TAG/"
	bench -m hang -t 100
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = timeout ]
	[ "$(j .why)" = "run timed out after 1 s (pair 0)" ]
	[ "$(alive)" = "" ]
}

# A run lasts until its last process is gone, so the method's first run
# waits for its leftovers until the run timeout (2 s), which kills and
# counts them: the verdict is timeout. Nothing else here depends on time:
# the method's run ends only once both leftovers exist (its run.sh), and
# the tiny workload's baseline (some 15 ms) is far inside the timeout
# even on a loaded machine; with the small one it once was not.
@test "ar-bench: processes a run leaves behind are killed and counted" {
	mkcamp
	method leftover "s/MARKER/$TAG/"
	for sb in "" --no-sandbox; do
		bench $sb -m leftover -w tiny -p 2 -P 2 -W 0
		[ "$status" -eq 0 ]
		[ "$(j .verdict)" = timeout ]
		[[ "$(j .why)" == "run timed out after 2 s (pair "[01]")" ]]
		jq -e '.leftovers == {"method": 2, "baseline": 0}' r.json
		[ "$(alive)" = "" ]
		no_scratch
	done
	[ "$(j .sandbox)" = none ]
}

@test "ar-bench: METRIC lines the method prints are never read" {
	mkcamp
	bench -m "$M/ownmetric" -p 8 -P 16 -W 0
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = discard ]
	jq -e '.metrics.t.median > .baseline.t.median and
	    .metrics.t.ci_lo > 0.001 and ([.raw.method.t[] | select(. < 0.001)]
	    | length) == 0' r.json
}

# ---- the baseline and the seal ----

@test "ar-bench: a baseline that fails exits 65 with one line, and no result" {
	variant .
	printf 'echo "baseline: out of disk" >&2\necho "baseline: giving up" >&2\nexit 1\n' \
	    > prob/baseline/run.sh
	mkcamp -p prob
	bench -m "$M/fast"
	[ "$status" -eq 65 ]
	[ "$output" = "" ]
	[ "$stderr" = "ar-bench: baseline: run exited with status 1 (pair 0); stderr ends: baseline: giving up" ]
	no_scratch
}

# With --aa both sides are the baseline: a failure of either is a broken
# problem (65), never a verdict.
@test "ar-bench --aa: a baseline that fails exits 65 whatever the order" {
	variant .
	printf 'echo "baseline: giving up" >&2\nexit 1\n' > prob/baseline/run.sh
	mkcamp -p prob
	for r in 1 2 3 4 5 6 7 8 9 10; do
		bench --aa -p 2 -P 2
		[ "$status" -eq 65 ]
		[ "$output" = "" ]
		[ "$stderr" = "ar-bench: baseline: run exited with status 1 (pair 0); stderr ends: baseline: giving up" ]
	done
}

# A judge stage that fails on every run is a broken problem (65) whatever
# the order: the first pair runs the baseline first.
@test "ar-bench: a score stage that fails on every run exits 65 whatever the order" {
	variant '.stages.score.cmd = "echo METRIC t=abc"'
	mkcamp -p prob
	for r in 1 2 3 4 5 6 7 8 9 10; do
		bench -m "$M/fast" -p 2 -P 2
		[ "$status" -eq 65 ]
		[ "$output" = "" ]
		[ "$stderr" = "ar-bench: baseline: the score's output: line 1: METRIC t: 'abc' is not a finite number (pair 0)" ]
	done
}

@test "ar-bench: a setup or prepare stage that fails exits 65, with its last stderr line" {
	variant '.stages.setup = {"cmd": "echo setting up; echo no make here >&2; exit 4"}'
	mkcamp -p prob
	bench --aa
	[ "$status" -eq 65 ]
	[ "$output" = "" ]
	[ "$stderr" = "ar-bench: the problem's setup stage failed: exited with status 4; stderr ends: no make here" ]
	no_scratch
	rm -rf camp
	variant '.stages.prepare.cmd = "echo \"gen: bad seed $AR_SEED\" >&2; exit 3"'
	mkcamp -p prob
	bench -m "$M/fast"
	[ "$status" -eq 65 ]
	[ "$output" = "" ]
	[[ "$stderr" =~ ^ar-bench:\ the\ problem\'s\ prepare\ stage\ failed:\ exited\ with\ status\ 3\;\ stderr\ ends:\ gen:\ bad\ seed\ [0-9]+$ ]]
	no_scratch
}

@test "ar-bench: an edited sealed file exits 1 naming it, before running anything" {
	mkcamp
	chmod u+w camp/problem/score.sh
	echo 'echo METRIC t=0.000001' >> camp/problem/score.sh
	chmod 0555 camp/problem/score.sh
	bench -m "$M/fast"
	[ "$status" -eq 1 ]
	[ "$output" = "" ]
	[ "$stderr" = "ar-bench: SEAL: problem/score.sh: changed: content
ar-bench: camp: refusing to measure: the problem differs from SEAL in 1 file" ]
	no_scratch
	run -0 ls camp/ledger/results
	[ "$output" = "" ]
}

@test "ar-bench: a file added to the sealed problem exits 1 naming it" {
	mkcamp
	chmod u+w camp/problem/baseline
	cp "$M/fast/run.sh" camp/problem/baseline/fast.sh
	chmod 0555 camp/problem/baseline
	bench --aa
	[ "$status" -eq 1 ]
	[ "$output" = "" ]
	[ "$stderr" = "ar-bench: SEAL: problem/baseline/fast.sh: added
ar-bench: camp: refusing to measure: the problem differs from SEAL in 1 file" ]
	no_scratch
}

# ---- seeds ----

@test "ar-bench -S holdout: seeds from the secret key, none of them dev seeds" {
	mkcamp
	for s in dev dev holdout holdout; do
		bench -K -S "$s" -m "$M/fast" -p 2 -P 2 -W 0
		[ "$status" -eq 0 ]
		[ "$(j .seeds)" = "$s" ]
		[ -d "$(kept)" ]
		cp "$(kept)/judge/judge/seeds.log" "$s.$(ls "$TMPDIR" | wc -l)"
	done
	# Decimal 64-bit numbers, one per pair, all different.
	for f in dev.1 holdout.3; do
		[ "$(wc -l < "$f")" -eq 2 ]
		run -0 grep -cxE '[0-9]{1,20}' "$f"
		[ "$output" -eq 2 ]
		[ "$(sort -u "$f" | wc -l)" -eq 2 ]
	done
	# The same seeds every time, but dev and holdout share none.
	cmp dev.1 dev.2
	cmp holdout.3 holdout.4
	run -1 grep -Fxf dev.1 holdout.3
	# Another campaign (another key): other holdout seeds, the same dev.
	rm -rf "${TMPDIR:?}"/*
	mv camp camp1
	mkcamp
	for s in dev holdout; do
		bench -K -S "$s" -m "$M/fast" -p 2 -P 2 -W 0
		cp "$(kept)/judge/judge/seeds.log" "other.$s"
	done
	cmp dev.1 other.dev
	run -1 grep -Fxf holdout.3 other.holdout
}

@test "ar-bench -S both: a dev session, then holdout; the result has .dev and .overfit" {
	mkcamp
	bench -K -S both -m "$M/fast" -p 8 -P 96 -W 0
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = keep ]
	[ "$(j .seeds)" = holdout ]
	[ "$(j .dev.verdict)" = keep ]
	[ "$(j .overfit)" = false ]
	jq -e '.dev.pairs >= 8 and .dev.ratio.ci_lo > 1 and
	    .dev.ratio.n == .dev.pairs and (.flags | index("overfit") | not)' \
	    r.json
	# Every pair of both sessions had its own seed.
	log=$(kept)/judge/judge/seeds.log
	[ "$(wc -l < "$log")" -eq "$(j '.dev.pairs + .stats.pairs')" ]
	[ "$(sort -u "$log" | wc -l)" -eq "$(wc -l < "$log")" ]
	# A dev session that ends without a verdict of the rule is the
	# result: no holdout session.
	bench -S both -m "$M/skip"
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = invalid ]
	[ "$(j .seeds)" = dev ]
	jq -e 'has("dev") or has("overfit") | not' r.json
}

# ---- the ledger ----

@test "ar-bench -a appends the result it prints; ar-ledger verify accepts it" {
	mkcamp
	bench -a -m "$M/skip" -x exp-1 -i idea-7
	[ "$status" -eq 0 ]
	id=$(j .id)
	[ "$(j .experiment)" = exp-1 ]
	[ "$(j .idea)" = idea-7 ]
	run -0 ls camp/ledger/results
	[ "$output" = "$id.json" ]
	cmp r.json "camp/ledger/results/$id.json"
	run --separate-stderr -0 ar-ledger verify -C camp
	[ "$output" = "$(printf 'where\tid\tproblem')" ]
	[ "$stderr" = "ar-ledger: 1 rows: 1 verified, 0 unsigned (imported); 0 problems" ]
}

@test "ar-bench's output piped to ar-ledger append verifies; a hand edit does not" {
	mkcamp
	ar-bench -C camp "${NOSB[@]}" -m "$M/wrong" | ar-ledger append -C camp
	ar-bench -C camp "${NOSB[@]}" -m "$M/crash" > crash.json
	ar-ledger append -C camp crash.json
	run --separate-stderr -0 ar-ledger verify -C camp
	[ "$stderr" = "ar-ledger: 2 rows: 2 verified, 0 unsigned (imported); 0 problems" ]
	# Without -x, the experiment is an id of its own; without -i, no idea.
	jq -e '(.experiment | test("^[0-9]{8}T[0-9]{6}\\.[0-9]{6}Z-[0-9a-f]{16}$"))
	    and (has("idea") | not)' crash.json
	# The crash made a keep by hand.
	id=$(jq -r .id crash.json)
	f=camp/ledger/results/$id.json
	chmod u+w "$f"
	jq -c '.verdict = "keep"' crash.json > "$f"
	run --separate-stderr -1 ar-ledger verify -C camp
	[ "$output" = "$(printf 'where\tid\tproblem\n%s\t%s\tbad signature' \
	    "camp/ledger/results/$id.json" "$id")" ]
	[ "$stderr" = "ar-ledger: 2 rows: 1 verified, 0 unsigned (imported); 1 problem" ]
}

@test "ar-bench -m COMMIT: a method from methods/; ar-ledger verify recomputes its hash" {
	mkcamp
	cp -R "$M/fast/." camp/methods/
	git -C camp/methods add -A
	git -C camp/methods -c user.name=test -c user.email=test@example.org \
	    commit -q -m fast
	commit=$(git -C camp/methods rev-parse HEAD)
	hash=$(git -C camp/methods ls-tree -r --full-tree HEAD | b2sum -l 256 |
	    cut -d ' ' -f 1)
	bench -a -m "$commit" -p 8 -P 96 -W 0
	[ "$status" -eq 0 ]
	[ "$(j -c .method)" = "{\"commit\":\"$commit\",\"hash\":\"$hash\"}" ]
	[ "$(j .verdict)" = keep ]
	# A short id or a branch name gives the same commit.
	bench -m "${commit:0:12}" -T 0.001 -W 0
	[ "$(j .method.commit)" = "$commit" ]
	branch=$(git -C camp/methods symbolic-ref --short HEAD)
	bench -m "$branch" -T 0.001 -W 0
	[ "$(j .method.commit)" = "$commit" ]
	run --separate-stderr -0 ar-ledger verify -C camp
	[ "$stderr" = "ar-ledger: 1 rows: 1 verified, 0 unsigned (imported); 0 problems" ]
	no_scratch
}

# ---- methods given as commits ----

# commit NAME: a commit of camp/methods made of the tree git mktree reads
# on stdin (crafted trees that git add would not make); prints its id.
commit() {
	tree=$(git -C camp/methods mktree)
	git -C camp/methods -c user.name=test -c user.email=test@example.org \
	    commit-tree "$tree" -m "$1"
}

# blob FILE: stores FILE in camp/methods; prints its id.
blob() {
	git -C camp/methods hash-object -w "$1"
}

@test "ar-bench -m COMMIT: .gitattributes cannot change what is run; .gitignore and .gitattributes are no part of a method" {
	mkcamp
	cp -R "$M/fast/." camp/methods/
	# A checkout or git archive would give run.sh CRLF line ends, which
	# sh cannot run; the blob as stored has none.
	printf '*.sh text eol=crlf\n' > camp/methods/.gitattributes
	printf 'build/\n' > camp/methods/.gitignore
	git -C camp/methods add -A
	git -C camp/methods -c user.name=test -c user.email=test@example.org \
	    commit -q -m fast
	bench -m "$(git -C camp/methods rev-parse HEAD)" -p 8 -P 96 -W 0
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = keep ]
	# The same files in a directory: not outside the mutable paths.
	mkdir d
	cp -R "$M/fast/." camp/methods/.gitattributes camp/methods/.gitignore d/
	mkdir d/lib2
	cp camp/methods/.gitignore d/lib2/
	bench -m d -p 2 -P 2 -W 0
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = inconclusive ]
	no_scratch
}

@test "ar-bench -m COMMIT: a submodule in the commit exits 65" {
	mkcamp
	b=$(blob "$M/fast/run.sh")
	c=$(printf '160000 commit %s\tsub\n100644 blob %s\trun.sh\n' \
	    0123456789abcdef0123456789abcdef01234567 "$b" | commit sub)
	bench -m "$c"
	[ "$status" -eq 65 ]
	[ "$output" = "" ]
	[ "$stderr" = "ar-bench: $c: sub is a commit; a method holds files only" ]
	no_scratch
}

# A tree may hold a symbolic link "lib" and a directory "lib" (git mktree
# makes one); extracting it must never write through the link, on the
# host, before any check or sandbox: files are written first, links last,
# and no path may pass through a link.
@test "ar-bench -m COMMIT: a link and a directory of one name write nothing outside" {
	mkcamp
	mkdir target
	b=$(printf 'pwned\n' | git -C camp/methods hash-object -w --stdin)
	l=$(printf '%s' "$T/w/target" | git -C camp/methods hash-object -w --stdin)
	sub=$(printf '100644 blob %s\tx\n' "$b" | git -C camp/methods mktree)
	c=$(printf '120000 blob %s\tlib\n040000 tree %s\tlib\n' "$l" "$sub" |
	    commit evil)
	bench -m "$c" -p 2 -P 2
	run -0 ls -A target
	[ "$output" = "" ]
	no_scratch
}

# ---- progress ----

@test "ar-bench -v prints progress lines on stderr; -q and a pipe print none" {
	mkcamp
	bench -v -m "$M/fast" -p 8 -P 96 -W 0
	[ "$status" -eq 0 ]
	[ "${#stderr_lines[@]}" -ge 1 ]
	for l in "${stderr_lines[@]}"; do
		[[ "$l" =~ ^ar-bench:\ dev\ seeds:\ pair\ [0-9]+(:\ ratio\ [0-9.]+\ \[([0-9.]+|-?inf|0),\ ([0-9.]+|inf)\])?$ ]]
	done
	# The last line is the final one, with the ratio.
	last=${stderr_lines[-1]}
	[[ "$last" =~ ^ar-bench:\ dev\ seeds:\ pair\ $(j .stats.pairs):\ ratio\ [0-9.]+\ \[[0-9.]+,\ ([0-9.]+|inf)\]$ ]]
	bench -q -v -m "$M/fast" -p 8 -P 16 -W 0
	[ "$status" -eq 0 ]
	[ "$stderr" = "" ]
	bench -m "$M/fast" -p 8 -P 16 -W 0
	[ "$stderr" = "" ]
}

# ---- -k ----

@test "ar-bench -k 2: shape.k 2, AR_CPUS=2, and the run pinned to 2 CPUs" {
	[ "$(nproc)" -ge 2 ] || skip "-k 2 needs 2 CPUs"
	mkcamp
	for k in 1 2; do
		bench -K -k "$k" -m "$M/env" -p 2 -P 2 -W 0
		[ "$status" -eq 0 ]
		[ "$(j .shape.k)" = "$k" ]
		[ "$(j '.shape.cpus | length')" = "$k" ]
		[ "$(j -c .shape.gpu_ids)" = "[]" ]
		[ "$(j .shape.node)" = "$(hostname)" ]
		run -0 grep -x "AR_CPUS=$k" "$(kept)/method/out/env"
		[ "$(cat "$(kept)/method/out/nproc")" = "$k" ]
	done
}

# ---- -G ----

@test "ar-bench -G: the GPU ids reach the stages; shape.k is their count" {
	mkcamp
	bench -K -G 2,0 -m "$M/env" -p 2 -P 2 -W 0
	[ "$status" -eq 0 ]
	[ "$(j -c .shape.gpu_ids)" = "[2,0]" ]
	[ "$(j .shape.k)" = 2 ]
	run -0 grep -e GPU -e CUDA -e AR_CPUS "$(kept)/method/out/env"
	[ "$output" = "AR_CPUS=1
AR_GPUS=2
CUDA_VISIBLE_DEVICES=2,0" ]
	# Without -G, neither.
	bench -K -m "$M/env" -p 2 -P 2 -W 0
	run -1 grep -e GPU -e CUDA "$(kept)/method/out/env"
}

@test "ar-bench -G: a list that is not one of GPU ids exits 64" {
	mkcamp
	run --separate-stderr -64 ar-bench -C camp --aa -G 0,0
	[ "$stderr" = "ar-bench: -G 0,0: GPU 0 given twice" ]
	for g in x 1,,2 1024 -1 ,1; do
		run --separate-stderr -64 ar-bench -C camp --aa -G "$g"
		[ "$stderr" = "ar-bench: -G $g: not a list of GPU ids like 0,1,2,3" ]
	done
	run --separate-stderr -64 ar-bench -C camp --aa -G ''
	[ "$stderr" = "ar-bench: -G: no GPU ids" ]
	no_scratch
}

# -G takes exactly a list of ids: the result records what the stages got.
@test "ar-bench -G: a trailing comma or a blank is refused too" {
	mkcamp
	for g in 1, ' 1' '1, 2' +1; do
		run --separate-stderr -64 ar-bench -C camp --aa -G "$g" -p 1 -P 1
		[ "$stderr" = "ar-bench: -G $g: not a list of GPU ids like 0,1,2,3" ]
	done
}

# ---- the sandbox ----

@test "ar-bench: the run sees a clean environment, and fixed paths in the sandbox" {
	need_sandbox
	mkcamp
	export SECRET_TOKEN=hunter2
	bench -K -m "$M/env" -p 2 -P 2 -W 0
	[ "$status" -eq 0 ]
	[ "$(j .sandbox)" = bwrap ]
	[ "$(cat "$(kept)/method/out/env")" = "AR_CPUS=1
AR_IN=/ar/in
AR_METHOD=/ar/method
AR_OUT=/ar/out
AR_PROBLEM=/ar/problem
AR_WORKLOAD=small
HOME=/tmp
LC_ALL=C
N=20000
PATH=/usr/local/bin:/usr/bin:/bin
PWD=/ar/method
TMPDIR=/tmp" ]
	# Only the system directories and /ar of the host; a process
	# namespace of its own; no network but a loopback.
	expect="ar dev proc tmp"
	for d in bin etc lib lib32 lib64 libx32 opt sbin usr; do
		[ -e "/$d" ] && expect="$expect $d"
	done
	[ "$(sort "$(kept)/method/out/root" | xargs)" = "$(echo $expect |
	    tr ' ' '\n' | sort | xargs)" ]
	[ "$(cat "$(kept)/method/out/pids")" -lt 16 ]
	[ "$(cat "$(kept)/method/out/ifaces")" = lo ]
}

@test "ar-bench --no-sandbox: the stages see real paths; HOME and TMPDIR are the role's tmp/" {
	mkcamp
	bench -K --no-sandbox -m "$M/env" -p 2 -P 2 -W 0
	[ "$status" -eq 0 ]
	[ "$(j .sandbox)" = none ]
	k=$(kept)
	run -0 grep -e '^AR_' -e '^HOME=' -e '^TMPDIR=' -e '^PWD=' "$k/method/out/env"
	[ "$output" = "AR_CPUS=1
AR_IN=$k/method/in
AR_METHOD=$k/method/src
AR_OUT=$k/method/out
AR_PROBLEM=$CAMP/problem
AR_WORKLOAD=small
HOME=$k/method/tmp
PWD=$k/method/src
TMPDIR=$k/method/tmp" ]
}

@test "ar-bench: a method cannot read the campaign or its key, nor write outside" {
	need_sandbox
	mkcamp
	printf 'secret = %s\n' "$TAG" >> camp/campaign.conf
	before=$(snapshot camp "$T/keys")
	method evil "s|@CAMP@|$CAMP|g; s|@KEY@|$KEY|g; s|@METHOD@|$T/w/evil|g; s|@TMP@|$T|g; s|@TAG@|$TAG|g"
	bench -K -m evil -p 2 -P 2 -W 0
	[ "$status" -eq 0 ]
	[ "$(j .sandbox)" = bwrap ]
	[ "$(j .verdict)" != crash ]
	[ "$(j .verdict)" != invalid ]
	out=$(kept)/method/out
	# Nothing read, nothing written.
	[ ! -s "$out/stolen" ]
	[ ! -e "$out/log" ]
	[ ! -e "/usr/$TAG" ]
	run -0 find "$T" -name "$TAG*"
	[ "$output" = "" ]
	[ "$(snapshot camp "$T/keys")" = "$before" ]
	run -0 ar-init -c camp
	run -0 diff -r "$M/evil" evil -x run.sh
	run -0 ls camp/ledger/results
	[ "$output" = "" ]
}

@test "ar-bench: the key inside the campaign (no -k) is hidden from a method too" {
	need_sandbox
	ar-init -p "$TOY" camp > /dev/null
	CAMP=$(cd camp && pwd -P)
	method evil "s|@CAMP@|$CAMP|g; s|@KEY@|$CAMP/keys/bench.key|g; s|@METHOD@|$T/w/evil|g; s|@TMP@|$T|g; s|@TAG@|$TAG|g"
	bench -K -m evil -p 2 -P 2 -W 0
	[ "$status" -eq 0 ]
	[ ! -s "$(kept)/method/out/stolen" ]
	[ ! -e "$(kept)/method/out/log" ]
	[ ! -e "/usr/$TAG" ]
	run -0 find "$T" -name "$TAG*"
	[ "$output" = "" ]
}

@test "ar-bench: /tmp and /dev/shm in the sandbox are private and emptied after every run" {
	need_sandbox
	mkcamp
	bench -m "$M/tmpfiles" -p 2 -P 2
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = inconclusive ]
	[ ! -e /tmp/ar-bench-test-left ]
	[ ! -e /dev/shm/ar-bench-test-left ]
}

@test "ar-bench --no-sandbox measures without one and says so" {
	mkcamp
	run --separate-stderr -0 ar-bench -C camp --no-sandbox -m "$M/fast" -p 2 -P 2
	printf '%s\n' "$output" > r.json
	[ "$(j .sandbox)" = none ]
	[ "$(j .verdict)" = inconclusive ]
	no_scratch
}

@test "ar-bench: AR_BWRAP missing or unusable exits 69, naming it" {
	mkcamp
	AR_BWRAP=/nonexistent run --separate-stderr -69 ar-bench -C camp --aa
	[ "$output" = "" ]
	[ "$stderr" = "ar-bench: /nonexistent: not found; ar-bench runs methods in a bubblewrap sandbox (install bubblewrap, or measure without one: --no-sandbox)" ]
	AR_BWRAP=/bin/false run --separate-stderr -69 ar-bench -C camp --aa
	[ "$output" = "" ]
	[ "$stderr" = "ar-bench: /bin/false: cannot start the judge sandbox: no message; --no-sandbox measures without one" ]
	no_scratch
	# --no-sandbox does not need it.
	AR_BWRAP=/nonexistent run --separate-stderr -0 ar-bench -C camp --aa \
	    --no-sandbox -p 2 -P 2
	[ "$(jq -r .sandbox <<< "$output")" = none ]
}

# ---- interrupts ----

@test "ar-bench: SIGTERM, SIGINT, SIGHUP mid-run exit 75 at once, no result, nothing left" {
	# A run that hangs for an hour: ar-bench that waited for it instead
	# of stopping would hang the test, and poll says so long before.
	variant '.stages.run.timeout_s = 3600'
	mkcamp -p prob
	method hang "s/MARKER/$TAG/"
	for how in TERM INT HUP TERM,--no-sandbox; do
		sig=${how%%,*} opt=()
		[ "$sig" = "$how" ] || opt=(--no-sandbox)
		[ ${#opt[@]} -gt 0 ] || opt=("${NOSB[@]}")
		echo "# SIG$sig ${opt[*]}"
		ar-bench -C camp "${opt[@]}" -m hang > out 2> err &
		pid=$!
		# Until the hanging run has started.
		poll tagged
		kill -"$sig" "$pid"
		poll exited "$pid"
		st=0
		wait "$pid" || st=$?
		[ "$st" -eq 75 ]
		[ ! -s out ]
		[ "$(cat err)" = "ar-bench: interrupted by signal $(kill -l "$sig"); no result" ]
		poll untagged
		no_scratch
	done
}

@test "ar-bench: kill -9 mid-run leaves the ledger as it was and no process of the run" {
	variant '.stages.run.timeout_s = 30'
	mkcamp -p prob
	ar-bench -C camp "${NOSB[@]}" -q -a -W 0 -p 2 -P 2 -m "$M/skip" > r1.json
	# A run whose process group holds a looping child: the group must
	# die with ar-bench, sandbox or not.
	mkdir group
	echo "sh -c 'while :; do sleep 1; done' $TAG-group & wait" > group/run.sh
	for opt in sandbox --no-sandbox; do
		[ "$opt" = sandbox ] && opt=${NOSB[0]:-}
		ar-bench -C camp $opt -q -a -m group > out 2> err &
		pid=$!
		poll tagged
		kill -KILL "$pid"
		wait "$pid" || true
		[ ! -s out ]
		# The sandbox dies with ar-bench; without one, the runner's
		# guard kills the run's process group.
		poll untagged
	done
	run -0 ls camp/ledger/results
	[ "$output" = "$(jq -r .id r1.json).json" ]
	run --separate-stderr -0 ar-ledger verify -C camp
	[ "$stderr" = "ar-ledger: 1 rows: 1 verified, 0 unsigned (imported); 0 problems" ]
}

@test "ar-bench: a build stage that fails is a crash, one past its timeout a timeout" {
	variant '.mutable += ["build.sh"] | .stages.build = {"cmd": "sh ./build.sh", "timeout_s": 1}'
	printf 'echo "$AR_CPUS" > cpus.txt\n' > prob/baseline/build.sh
	mkcamp -p prob
	mkdir badbuild slowbuild
	printf 'echo "build: no compiler" >&2\nexit 2\n' > badbuild/build.sh
	printf 'echo "$AR_CPUS" > cpus.txt\nsleep 30\n' > slowbuild/build.sh
	bench -m badbuild
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = crash ]
	[ "$(j .why)" = "build exited with status 2" ]
	[ "$(j -c .failure)" = '{"exit":2,"role":"method","stage":"build","stderr":"build: no compiler"}' ]
	jq -e '.stats.runs_pairs == 0' r.json
	bench -m slowbuild
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = timeout ]
	[ "$(j .why)" = "build timed out after 1 s" ]
	[ "$(j -c .failure)" = '{"role":"method","stage":"build","stderr":"","timed_out":true}' ]
	no_scratch
	# A build that works writes in the method's directory, with AR_CPUS.
	bench -K -k 1 -m "$M/fast" -p 2 -P 2 -W 0
	[ "$(j .verdict)" = inconclusive ]
	[ "$(cat "$(kept)/method/src/cpus.txt")" = 1 ]
	[ "$(cat "$(kept)/baseline/src/cpus.txt")" = 1 ]
}

@test "ar-bench: a method that holds a fifo exits 66, naming it" {
	mkcamp
	mkdir fm
	mkfifo fm/pipe
	bench -m fm
	[ "$status" -eq 66 ]
	[ "$output" = "" ]
	[ "$stderr" = "ar-bench: method: fm/pipe: not a file, directory or symbolic link" ]
	no_scratch
}

@test "ar-bench: a campaign.conf without a key exits 65" {
	mkcamp
	grep -v '^key = ' camp/campaign.conf > conf
	cat conf > camp/campaign.conf
	bench --aa
	[ "$status" -eq 65 ]
	[ "$output" = "" ]
	[ "$stderr" = "ar-bench: camp/campaign.conf: no key" ]
	no_scratch
}

@test "ar-bench: a method's top .git and empty directories are ignored" {
	mkcamp
	mkdir m
	cp -R "$M/fast/." m/
	mkdir -p m/.git/refs m/empty
	echo 'ref: refs/heads/main' > m/.git/HEAD
	bench -m m -p 2 -P 2 -W 0
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = inconclusive ]
	[ "$(j .method.hash)" = "$(treehash "$M/fast")" ]
}

# ---- bad manifests ----

# bad JQ MESSAGE: a problem.json made broken by JQ. ar-init reads it
# with ar-bench's checker (lib/manifest), so it refuses to seal it, with
# ar-bench's message, and no campaign ever holds it.
bad() {
	variant "$1"
	rm -rf camp
	run --separate-stderr ar-init -p prob camp
	echo "# $1: exit $status: $stderr"
	[ "$status" -eq 65 ]
	[ "$output" = "" ]
	[ "$stderr" = "ar-init: $2" ]
	[ ! -e camp ]
}

# bad_bench JQ MESSAGE: what the manifest allows but ar-bench refuses when
# it measures; ar-bench must exit 65 with MESSAGE.
bad_bench() {
	variant "$1"
	rm -rf camp
	mkcamp -p prob
	run --separate-stderr ar-bench -C camp --aa
	echo "# $1: exit $status: $stderr"
	[ "$status" -eq 65 ]
	[ "$output" = "" ]
	[ "$stderr" = "ar-bench: $2" ]
}

@test "ar-bench: an unknown key in problem.json exits 65, naming it" {
	bad '.stages.run.timeout = 5' "problem.json: stages.run.timeout: unknown key"
	bad '.notes = "x"' "problem.json: notes: unknown key"
	no_scratch
}

@test "ar-bench: a bad metric direction exits 65, naming it" {
	bad '.metric.direction = "up"' 'problem.json: metric.direction: must be "higher" or "lower", not "up"'
}

@test "ar-bench: a problem.json without workloads exits 65" {
	bad 'del(.workloads)' "problem.json: workloads: missing"
	bad '.workloads = []' "problem.json: workloads: must not be empty"
}

@test "ar-bench: scales of the wrong type exits 65" {
	bad '.scales = "1 2"' "problem.json: scales: must be an array, not a string"
	bad '.scales = [1, 0]' "problem.json: scales: must hold whole numbers from 1 to 4096"
	bad '.scales = [1.5]' "problem.json: scales: must hold whole numbers from 1 to 4096"
}

@test "ar-bench: problem.json that is not JSON exits 65 (refused at ar-init)" {
	variant .
	printf '{"name": "toy",\n "kind": "exec",,\n}\n' > prob/problem.json
	run --separate-stderr -65 ar-init -p prob camp
	[ "$output" = "" ]
	[[ "$stderr" == "ar-init: problem.json: invalid JSON "* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
	rm -rf camp prob
	variant .
	printf '{"name": "a", "name": "b"}' > prob/problem.json
	run --separate-stderr -65 ar-init -p prob camp
	[[ "$stderr" == "ar-init: problem.json: invalid JSON "*"duplicate object key"* ]]
	no_scratch
}

# A many-line problem.json names the line of a syntax error.
@test "ar-bench: a JSON syntax error in problem.json names its line" {
	variant .
	printf '{"name": "toy",\n "kind": "exec",,\n}\n' > prob/problem.json
	run --separate-stderr -65 ar-init -p prob camp
	[[ "$stderr" == "ar-init: problem.json: "*"line 2"* ]]
}

# The top level is named as the file, not as an empty field.
@test "ar-bench: a problem.json that is not an object says so, without an empty field" {
	bad '[1, 2]' "problem.json: must be an object, not an array"
}

@test "ar-bench: other manifest errors exit 65, each naming its field" {
	bad '.kind = "python"' 'problem.json: kind: must be "exec" (the kind ar-bench runs through stages), not "python"'
	bad 'del(.name)' "problem.json: name: missing"
	bad '.name = 7' "problem.json: name: must be a string, not a number"
	bad 'del(.metric)' "problem.json: metric: missing"
	bad '.metric.name = "t s"' 'problem.json: metric.name: "t s" is not a metric name ([A-Za-z0-9_.], at most 63 bytes)'
	bad '.secondary[0].color = "red"' "problem.json: secondary[0].color: unknown key"
	bad '.gates[1].op = "~"' 'problem.json: gates[1].op: must be one of < <= > >= ==, not "~"'
	bad '.gates[0].op = "=="' 'problem.json: gates[0]: a command gate has only "command"'
	bad '.guardrails[0].ratio_to_baseline = 2' 'problem.json: guardrails[0]: has both "value" and "ratio_to_baseline"'
	bad '.workloads[1].name = "small"' 'problem.json: workloads[1]: name "small" given twice'
	bad '.workloads[0].dev_seeds = []' "problem.json: workloads[0].dev_seeds: must be a non-empty array of whole numbers"
	bad 'del(.workloads[0].work)' "problem.json: workloads[0].work: missing"
	for v in AR_SEED PATH HOME TMPDIR LC_ALL CUDA_VISIBLE_DEVICES; do
		bad ".workloads[0].env.$v = \"1\"" "problem.json: workloads[0].env.$v: not a name a workload may set (empty, '=', AR_, or one ar-bench sets: PATH HOME TMPDIR LC_ALL CUDA_VISIBLE_DEVICES)"
	done
	bad '.workloads[0].env.N = 20000' "problem.json: workloads[0].env.N: must be a string, not a number"
	bad '.baseline = "../x"' "problem.json: baseline: must be a directory inside the problem"
	bad_bench '.baseline = "nope"' "problem.json: baseline: nope: not a directory of the problem"
	bad '.mutable = [""]' "problem.json: mutable: must hold non-empty strings (globs of paths a method may change)"
	bad 'del(.stages.score)' "problem.json: stages.score: missing"
	bad '.stages.run.timeout_s = 0' "problem.json: stages.run.timeout_s: must be greater than 0"
	bad '.stages.test = {"cmd": "true"}' "problem.json: stages.test: unknown key"
	bad '.limits = {"min_pairs": 0}' "problem.json: limits.min_pairs: must be at least 1"
	bad '.limits = {"max_pairs": 0}' "problem.json: limits.max_pairs: must be at least 1"
	bad '.limits = {"min_pairs": 8, "max_pairs": 4}' "problem.json: limits.max_pairs: is below min_pairs"
	bad '.limits = {"min_effect": 1}' "problem.json: limits.min_effect: must be from 0 to below 1"
	no_scratch
}

@test "ar-bench: a problem without problem.json is refused at ar-init (66), naming the file" {
	variant .
	rm prob/problem.json
	run --separate-stderr -66 ar-init -p prob camp
	[ "$output" = "" ]
	[ "$stderr" = "ar-init: prob/problem.json: missing; a problem is described by its problem.json (ar-problem(5))" ]
}

@test "ar-bench: limits in problem.json are the defaults that flags override" {
	variant '.limits = {"min_pairs": 2, "max_pairs": 2, "warmup": 0, "min_effect": 0.05, "time_s": 300}'
	mkcamp -p prob
	bench -m "$M/fast"
	[ "$status" -eq 0 ]
	jq -e '.stats.pairs == 2 and .stats.runs_pairs == 2 and
	    .stats.warmup == 0 and .stats.min_effect == 0.05 and
	    .stats.time_limit_s == 300' r.json
	bench -m "$M/fast" -p 3 -P 3 -W 1 -e 0.02 -T 200
	jq -e '.stats.pairs == 3 and .stats.runs_pairs == 4 and
	    .stats.warmup == 1 and .stats.min_effect == 0.02 and
	    .stats.time_limit_s == 200' r.json
}

@test "ar-bench -w tiny: the workload's env reaches the run, its work is checked" {
	mkcamp
	bench -K -w tiny -m "$M/env" -p 2 -P 2 -W 0
	[ "$status" -eq 0 ]
	[ "$(j .workload)" = tiny ]
	[ "$(j .work.expected)" = 2000 ]
	run -0 grep -x "N=2000" "$(kept)/method/out/env"
	run -0 grep -x "AR_WORKLOAD=tiny" "$(kept)/method/out/env"
}

# ---- the int8-matvec example methods, on the "tiny" workload ----

# int8camp: a campaign of problems/int8-matvec; skips where the problem,
# its examples or a C compiler are missing.
int8camp() {
	P8=$TOP/problems/int8-matvec
	E8=$TOP/examples/int8-matvec
	[ -f "$P8/problem.json" ] && [ -d "$E8" ] ||
	    skip "problems/int8-matvec or examples/int8-matvec is missing"
	command -v cc >/dev/null && command -v make >/dev/null ||
	    skip "int8-matvec needs cc and make"
	mkcamp -p "$P8"
}

# stage_alive: the processes of a stage of this test's sessions: a
# sandbox names the scratch directory on its command line, a stage
# without one has it in its AR_OUT.
stage_alive() {
	pgrep -af "$TMPDIR/ar-bench" || true
	grep -ls "AR_OUT=$TMPDIR/" /proc/[0-9]*/environ 2>/dev/null || true
}

@test "int8-matvec: the baseline against itself (--aa) runs on tiny" {
	int8camp
	bench --aa -w tiny -e 0.5 -p 8 -P 16
	[ "$status" -eq 0 ]
	# Never a keep; a discard ("no gain of 50%") on a busy machine.
	[[ "$(j .verdict)" =~ ^(equivalent|inconclusive|discard)$ ]]
	[ "$(j .method.dir)" = baseline ]
	jq -e '.baseline.gb_s.median > 0 and .metrics.gb_s.median > 0 and
	    .metrics.work.median == 1024 and .work.pass and
	    .gates[0].pass and .gates[0].worst == 0' r.json
	no_scratch
}

@test "int8-matvec: fast is not invalid, and not worse, on tiny" {
	int8camp
	bench -m "$E8/fast" -w tiny -p 8 -P 32
	[ "$status" -eq 0 ]
	[[ "$(j .verdict)" =~ ^(keep|equivalent|inconclusive)$ ]]
	jq -e '.work.pass and .gates[0].pass and .metrics.gb_s.median > 0' r.json
}

@test "int8-matvec: skiprows is invalid, lost work" {
	int8camp
	bench -m "$E8/skiprows" -w tiny
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = invalid ]
	[ "$(j .why)" = "lost work: work = 512, the workload asked for 1024 (pair 0)" ]
	[ "$(j .work.done)" = 512 ]
}

@test "int8-matvec: wrong is invalid, the gate bad == 0 fails" {
	int8camp
	bench -m "$E8/wrong" -w tiny
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = invalid ]
	[[ "$(j .why)" =~ ^gate\ bad\ ==\ 0\ failed:\ [1-9][0-9]*\ \(pair\ 0\)$ ]]
	[ "$(j '.gates[0].pass')" = false ]
}

@test "int8-matvec: crash is a crash by SIGSEGV, its stderr kept" {
	int8camp
	bench -m "$E8/crash" -w tiny
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = crash ]
	[ "$(j .why)" = "run was killed by SIGSEGV (pair 0); stderr ends: crash: about to dereference NULL" ]
	[ "$(j .failure.signal)" = SIGSEGV ]
	[[ "$(j .failure.stderr)" == *"crash: about to dereference NULL"* ]]
}

@test "int8-matvec: hang is a timeout, and no process of it is left" {
	int8camp
	bench -m "$E8/hang" -w tiny -t 1
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = timeout ]
	[ "$(j .why)" = "run timed out after 1 s (pair 0)" ]
	[ "$(j .failure.timed_out)" = true ]
	jq -e '.leftovers.method >= 1' r.json
	[ "$(stage_alive)" = "" ]
	no_scratch
}

@test "int8-matvec: ownmetric's own METRIC lines count for nothing" {
	int8camp
	bench -m "$E8/ownmetric" -w tiny -p 8 -P 16
	[ "$status" -eq 0 ]
	[[ "$(j .verdict)" =~ ^(discard|equivalent|inconclusive)$ ]]
	# The score's figures, not its 99999 and 0.001.
	jq -e '.metrics.gb_s.median > 0 and .metrics.gb_s.ci_hi < 1000 and
	    .metrics.work.median == 1024 and .metrics.wall_ms.median > 0.01 and
	    ([.raw.method.gb_s[] | select(. >= 1000)] | length) == 0' r.json
}

@test "int8-matvec: evil steals nothing and writes nothing outside" {
	need_sandbox
	int8camp
	before=$(snapshot camp "$T/keys")
	usr=$(ls -d /usr/evil 2>/dev/null || true)
	bench -K -m "$E8/evil" -w tiny -p 2 -P 2
	[ "$status" -eq 0 ]
	[ "$(j .sandbox)" = bwrap ]
	[[ "$(j .verdict)" =~ ^(discard|equivalent|inconclusive|keep)$ ]]
	[ ! -s "$(kept)/method/out/stolen.txt" ]
	# Each try failed, and said so.
	run -0 grep -c '^evil: ' "$(kept)/method/log/run.err"
	[ "$output" -ge 8 ]
	run -1 grep ': ok$' "$(kept)/method/log/run.err"
	# Nothing new or changed in the campaign or the key's directory.
	[ "$(snapshot camp "$T/keys")" = "$before" ]
	[ "$(ls -d /usr/evil 2>/dev/null || true)" = "$usr" ]
	run -0 ar-init -c camp
}
