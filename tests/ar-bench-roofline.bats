#!/usr/bin/env bats
# ar-bench --roofline: the built-in roofline problem on the cpu device
# (what CI has): the profile, its checks and its file; the k-rank path for
# k = 2 held to the same tests as k = 1 (k = 4 and 8, 8 ranks on a small
# machine, are a stress test: tests/stress/ar-bench-stress.bats); a rank
# that dies; a kill of ar-bench; the A/A; no GPU; and what exec results
# gain from a profile (roofline fractions, the impossible result, a
# tampered profile). tests/gpu-check runs the same on a GPU.

bats_require_minimum_version 1.5.0
load common

setup() {
	roofline_setup
}

# A test that failed with a long roofline in the background leaves none
# running (its ranks die with it).
teardown() {
	ar_teardown
}

# answers PID: how many answers rank PID has written: a rank answers each
# command with one line, one write(2) (ar_rank_main flushes each), and
# writes nothing else; the kernel counts its writes (/proc/PID/io).
answers() {
	sed -n 's/^syscw: //p' "/proc/$1/io" 2>/dev/null
}

# sampling N: N ranks run, and each is inside the samples of its first op
# (copy), which -P 100000 makes last for minutes: it has answered at
# least 8 commands: open, prepare, then two whole samples (flush, run,
# post). The ranks get "flush" only once every rank has answered
# "prepare", so the run as a whole is past its setup too.
sampling() {
	local p n=0 a
	for p in $(ranks); do
		a=$(answers "$p")
		[ "${a:-0}" -ge 8 ] || return 1
		n=$((n + 1))
	done
	[ "$n" -eq "$1" ]
}

# wait_ranks N: until N ranks run, inside their samples. (Prepare alone
# takes seconds on a loaded machine: a rank killed then dies outside any
# sample, and the why has no "sample N".)
wait_ranks() {
	poll sampling "$1"
}

# no_ranks: no rank of this tree's ar-bench is left (for poll).
no_ranks() {
	[ -z "$(ranks)" ]
}

@test "ar-bench --roofline: a profile of the cpu device, checked, signed and stored" {
	roof
	[ "$status" -eq 0 ]
	same_tests 1
}

@test "ar-bench --roofline: the k-rank path for k = 2 passes the tests of k = 1" {
	roof -k 2
	[ "$status" -eq 0 ]
	same_tests 2
}

@test "ar-bench --roofline: a rank that dies makes the whole run a crash, and no rank is left" {
	roof
	cp "camp/machine/$HOST.cpu.k4.json" before.json 2>/dev/null || true
	ar-bench --roofline -C camp -q -k 4 -P 100000 -W 0 > r.json 2> err &
	pid=$!
	wait_ranks 4
	victim=$(ranks | sed -n 3p)
	kill -KILL "$victim"
	wait "$pid"
	[ "$(j .verdict)" = crash ]
	# Killed inside the samples of copy, the first op: the why names the
	# op, the sample and the rank (ar-bench(1)).
	[[ "$(j .why)" =~ ^copy:\ sample\ [0-9]+:\ rank\ [0-3]\ \(pid\ $victim\)\ was\ killed\ by\ SIGKILL$ ]]
	[ -z "$(ranks)" ]
	# A crashed run writes no profile.
	[ ! -e "camp/machine/$HOST.cpu.k4.json" ]
	[ -z "$(ls -A "$TMPDIR")" ]
}

@test "ar-bench --roofline: kill -9 of ar-bench takes its ranks with it; the old profile stays" {
	roof -k 2
	cp "camp/machine/$HOST.cpu.k2.json" before.json
	ar-bench --roofline -C camp -q -k 2 -P 100000 -W 0 > /dev/null 2>&1 &
	pid=$!
	wait_ranks 2
	kill -KILL "$pid"
	wait "$pid" || true
	poll no_ranks
	cmp before.json "camp/machine/$HOST.cpu.k2.json"
}

@test "ar-bench --roofline: SIGTERM stops the ranks and leaves no scratch" {
	ar-bench --roofline -C camp -q -k 2 -P 100000 -W 0 > r.json 2> err &
	pid=$!
	wait_ranks 2
	kill -TERM "$pid"
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 75 ]
	[ "$(cat err)" = "ar-bench: interrupted by signal 15; no result" ]
	[ ! -s r.json ]
	[ -z "$(ranks)" ]
	[ -z "$(ls -A "$TMPDIR")" ]
	[ ! -e camp/machine ]
}

@test "ar-bench --roofline --aa: the noise floor of a ~10 ms copy; no profile written" {
	run --separate-stderr -0 ar-bench --roofline --aa -C camp -q -P 8 -W 1
	printf '%s\n' "$output" > r.json
	[ "$(j .kind)" = roofline-aa ]
	[ "$(j .verdict)" = ok ]
	[ "$(j .pairs)" = 8 ]
	[ "$(j .op)" = copy ]
	[ "$(j '.noise_floor | [.rsd, .rsd_events, .sample_rsd] | all(. >= 0)')" = true ]
	[ "$(j '.workload_ms > 3 and .workload_ms < 30')" = true ]
	[ ! -e camp/machine ]
}

@test "ar-bench --roofline: no GPU here: -G says why and measures on the cpu device; --device cuda exits 69" {
	roof -G 0
	[ "$status" -eq 0 ]
	[[ "$stderr" =~ ^ar-bench:\ -G\ 0:\ .+\;\ measuring\ on\ the\ cpu\ device$ ]]
	[ "$(j .device)" = cpu ]
	[ "$(j .verdict)" = ok ]
	run --separate-stderr -69 ar-bench --roofline -C camp -q -G 0 --device cuda
	[ "$output" = "" ]
	[[ "$stderr" =~ ^ar-bench:\ cuda:\ .+$ ]]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
}

@test "ar-bench --roofline: usage errors exit 64" {
	run --separate-stderr -64 ar-bench --roofline -C camp -m x
	[ "$stderr" = "ar-bench: --roofline: -m is for exec problems" ]
	run --separate-stderr -64 ar-bench --roofline -C camp --no-sandbox
	[ "$stderr" = "ar-bench: --roofline: --no-sandbox is for exec problems; the roofline runs no method" ]
	run --separate-stderr -64 ar-bench --roofline -C camp -k 2 -G 0
	[ "$stderr" = "ar-bench: --roofline: -k and -G: a bundle is CPUs or GPUs, not both" ]
	run --separate-stderr -64 ar-bench --roofline -C camp --device tpu
	[ "$stderr" = "ar-bench: --device tpu: auto, cuda or cpu" ]
	run --separate-stderr -64 ar-bench --roofline -C camp --device cuda
	[ "$stderr" = "ar-bench: --device cuda: give the GPUs with -G" ]
	run --separate-stderr -64 ar-bench --roofline -C camp -P 0
	run --separate-stderr -64 ar-bench --roofline -C camp -k 100
	[ "$stderr" = "ar-bench: 100 ranks: at most 64" ]
	run -66 ar-bench --roofline -C nowhere
	[ ! -e camp/machine ]
}

@test "ar-bench --rank: a rank answers its protocol and refuses what it does not know" {
	run -0 ar-bench --rank <<'EOF'
prepare copy 8 1
open tpu 0 0 1 -
open cpu 0 0 1 -
prepare copy 4096 2
flush copy
run copy
post copy
run fly
release
close
EOF
	[ "${lines[0]}" = "err prepare: no device open" ]
	[ "${lines[1]}" = "err tpu: no such device" ]
	[[ "${lines[2]}" =~ ^ok\ \{.*\"ordinal\":0.*\}$ ]]
	[ "${lines[3]}" = ok ]
	[ "${lines[4]}" = ok ]
	[[ "${lines[5]}" =~ ^ok\ [0-9.e-]+\ [0-9.e-]+$ ]]
	[[ "${lines[6]}" =~ ^ok\ [0-9.e+-]+\ 0\ 4096\ 1$ ]]
	[ "${lines[7]}" = "err run fly: bad command" ]
	[ "${lines[8]}" = ok ]
	[ "${lines[9]}" = ok ]
	[ "${#lines[@]}" -eq 10 ]
}

# ---- what exec results gain ----

# declared BYTES: the toy problem, its first workload declaring BYTES per
# run, in a fresh campaign "c2" with the same key directory.
declared() {
	rm -rf prob c2
	cp -R "$TOY" prob
	jq ".workloads[0].bytes = $1" "$TOY/problem.json" > prob/problem.json
	mkcamp -p prob c2
}

@test "ar-bench: a workload that declares bytes gains roofline fractions from the profile" {
	declared 1000000
	run --separate-stderr -0 ar-bench --roofline -C c2 -q -P 3 -W 1
	run --separate-stderr -0 ar-bench -C c2 --no-sandbox --aa -p 2 -P 2 -W 0 -q
	printf '%s\n' "$output" > r.json
	[ "$(j .verdict)" != invalid ]
	[ "$(j .roofline.profile)" = "$HOST.cpu.k1.json" ]
	[ "$(j '.roofline.method | .bound == "memory" and .mem_frac > 0 and .mem_frac < 1 and .frac == .mem_frac')" = true ]
	[ "$(j '.roofline.method.bytes_per_s == 1000000 / .roofline.method.wall_s')" = true ]
	[ "$(j '.roofline.baseline.mem_frac > 0')" = true ]
	# -k 2 without a k=2 profile reads k=1's, times 2.
	run --separate-stderr -0 ar-bench -C c2 --no-sandbox --aa -p 2 -P 2 -W 0 -q -k 2
	printf '%s\n' "$output" > r.json
	[ "$(j .roofline.scaled_from_k1)" = 2 ]
}

@test "ar-bench: a result above the machine's measured limit is invalid, and says why" {
	declared 1e15
	run --separate-stderr -0 ar-bench --roofline -C c2 -q -P 3 -W 1
	run --separate-stderr -0 ar-bench -C c2 --no-sandbox -m "$M/fast" -p 2 -P 2 -W 0 -q
	printf '%s\n' "$output" > r.json
	[ "$(j .verdict)" = invalid ]
	[[ "$(j .why)" =~ ^impossible:\ the\ method\ moved\ [0-9.e+]+\ bytes/s,\ [0-9.]+x\ the\ memory\ bandwidth\ measured\ on\ this\ machine\ \($HOST.cpu.k1.json\)\;\ a\ run\ cannot\ beat\ the\ hardware\ by\ that\ much,\ so\ the\ benchmark\ or\ the\ run\ is\ broken$ ]]
}

@test "ar-bench: no profile: a warning and no roofline fields; a tampered one: exit 1, nothing measured" {
	declared 1000000
	run --separate-stderr -0 ar-bench -C c2 --no-sandbox --aa -p 2 -P 2 -W 0
	printf '%s\n' "$output" > r.json
	[ "$(j 'has("roofline")')" = false ]
	[ "$(printf '%s\n' "$stderr" | grep -c '^ar-bench: no machine profile for ')" = 1 ]
	# -q, as the loop runs it on every experiment: not said.
	run --separate-stderr -0 ar-bench -C c2 --no-sandbox --aa -p 2 -P 2 -W 0 -q
	[ "$stderr" = "" ]
	run --separate-stderr -0 ar-bench --roofline -C c2 -q -P 3 -W 1
	f=c2/machine/$HOST.cpu.k1.json
	jq -c '.roofline.mem_gb_s = 1e9' "$f" > t && mv t "$f"
	run --separate-stderr -1 ar-bench -C c2 --no-sandbox --aa -p 2 -P 2 -W 0
	[ "$output" = "" ]
	[[ "$stderr" =~ ^ar-bench:\ .*/machine/$HOST.cpu.k1.json:\ .+\;\ a\ machine\ profile\ must\ be\ signed\ by\ this\ campaign\'s\ key\ \(run\ ar-bench\ --roofline\ again\)$ ]]
	echo '{"roofline": ' > "$f"
	run --separate-stderr -65 ar-bench -C c2 --no-sandbox --aa -p 2 -P 2 -W 0
	[[ "$stderr" =~ ^ar-bench:\ .*/machine/$HOST.cpu.k1.json:\ not\ a\ machine\ profile:\ .+$ ]]
}

# ar-init reads problem.json with ar-bench's checker: such a problem is
# refused before it is sealed, with ar-bench's message.
@test "ar-bench: bytes, flops and dtype in problem.json are checked" {
	for bad in '.workloads[0].bytes = -1' '.workloads[0].bytes = "many"' \
	    '.workloads[0].flops = 0' '.workloads[0].dtype = "fp4" | .workloads[0].flops = 1' \
	    '.workloads[0].dtype = "fp8"'; do
		rm -rf prob c3
		cp -R "$TOY" prob
		jq "$bad" "$TOY/problem.json" > prob/problem.json
		run --separate-stderr -65 ar-init -p prob c3
		echo "$bad: $stderr"
		[[ "$stderr" =~ ^ar-init:\ problem.json:\ workloads\[0\]\.(bytes|flops|dtype):\ .+$ ]]
		[ ! -e c3 ]
	done
}

@test "ar-bench: a method whose GPU kernel faults is a crash with the CUDA error text; the next run is normal" {
	# The cpu stand-in of tests/gpu-check's real fault: a run that prints
	# what the CUDA runtime prints and dies.
	mkdir fault
	cp -R "$M/fast/." fault/
	cat > fault/run.sh <<'EOF'
echo "fault.cu:12: CUDA error: an illegal memory access was encountered" >&2
exit 1
EOF
	run --separate-stderr -0 ar-bench -C camp --no-sandbox -m fault -G 0 -p 2 -P 2 -W 0 -q
	printf '%s\n' "$output" > r.json
	[ "$(j .verdict)" = crash ]
	[ "$(j .why)" = "run exited with status 1 (pair 0); stderr ends: fault.cu:12: CUDA error: an illegal memory access was encountered" ]
	run --separate-stderr -0 ar-bench -C camp --no-sandbox -m "$M/fast" -G 0 -p 2 -P 2 -W 0 -q
	printf '%s\n' "$output" > r.json
	[ "$(j .verdict)" != crash ]
	[ "$(j .device)" = cpu ]
	[ "$(j -c .shape.gpu_ids)" = "[0]" ]
}
