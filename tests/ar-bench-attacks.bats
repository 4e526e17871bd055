#!/usr/bin/env bats
# ar-bench-attacks: methods written to cheat, one test per class of
# attack on the seal (ar-bench(1) THREAT MODEL), each run in the sandbox
# on the toy problem of fixtures/bench; tests/attack.c is what a cheating
# method runs (copied into it as lib/attack). Every attack must be
# refused and every cheat must miss its verdict; each test also checks
# that the method is still measured (an honest control inside the same
# session). The classes: processes outside the run (pid 1 included),
# descriptors of ar-bench's caller, kernel state kept across runs and
# sessions, files kept from one run to the next, a new namespace or a
# mount, the pair's order through the inputs, the CPUs of the bundle,
# work after the main process exited, and bytes that once broke the
# result.

bats_require_minimum_version 1.5.0
load common

setup_file() {
	ar_bench_setup_file
}

setup() {
	ar_bench_setup
}

teardown() {
	ar_bench_teardown
}

# attacker BODY: a method in ./m whose run.sh runs BODY (with @TAG@
# replaced by the test's tag), then the baseline's work; lib/attack is
# tests/attack.c built.
attacker() {
	rm -rf m
	mkdir -p m/lib
	cp "$(command -v attack)" m/lib/attack
	{
		printf '%s\n' "$1" | sed "s/@TAG@/$TAG/g"
		cat <<'EOF'
i=0
while [ "$i" -lt "$N" ]; do
	i=$((i + 1))
done
echo "$i" > "$AR_OUT/n"
cp "$AR_IN/seed" "$AR_OUT/seed"
EOF
	} > m/run.sh
}

# attack_log: what the last run's attacks printed (ar-bench -K kept it).
attack_log() {
	cat "$(kept)/method/out/attack.log"
}

# measured: the session gave the method an ordinary verdict.
measured() {
	[ "$status" -eq 0 ]
	[ "$(j .sandbox)" = bwrap ]
	case $(j .verdict) in
	keep | discard | equivalent | inconclusive) ;;
	*) echo "verdict $(j .verdict): $(j .why)"; return 1 ;;
	esac
}

@test "attack, processes: pid 1 and every process outside the run are out of reach" {
	need_sandbox
	mkcamp
	attacker '"$AR_METHOD/lib/attack" procs > "$AR_OUT/attack.log"'
	bench -K -m m -p 2 -P 2 -W 0
	measured
	attack_log
	# It tried pid 1 and every way in; none got through.
	grep -q '^refused ptrace 1: ' <(attack_log)
	grep -q '^refused open /proc/1/mem: ' <(attack_log)
	grep -q '^refused read /proc/1/environ: ' <(attack_log)
	[ "$(attack_log | grep -c '^ok ')" -eq 0 ]
}

@test "attack, descriptors: what ar-bench's caller holds open never reaches a stage" {
	need_sandbox
	mkcamp
	attacker '"$AR_METHOD/lib/attack" fds > "$AR_OUT/attack.log"
echo forged >&7 2>/dev/null; echo forged >&9 2>/dev/null; :'
	: > leak
	run --separate-stderr ar-bench -C camp -K -m m -p 2 -P 2 -W 0 7>>leak 9>>leak
	printf '%s\n' "$output" > r.json
	measured
	[ "$(attack_log)" = "" ]
	[ ! -s leak ]
}

@test "attack, kernel state: nothing kept in keyrings or IPC reaches a later run or session" {
	need_sandbox
	mkcamp
	attacker '"$AR_METHOD/lib/attack" find @TAG@ > "$AR_OUT/attack.log"
"$AR_METHOD/lib/attack" keep @TAG@ answer-$AR_SEED >> "$AR_OUT/attack.log"'
	bench -K -m m -p 2 -P 2 -W 0
	measured
	first=$(attack_log)
	echo "$first"
	[[ $first == *"refused add_key $TAG to the session keyring"* ]]
	[[ $first == *"refused shmget $TAG"* ]]
	[ "$(grep -c '^ok ' <<< "$first")" -eq 0 ]
	# A second session finds nothing either.
	bench -K -m m -p 2 -P 2 -W 0
	measured
	[ "$(attack_log | grep -c '^ok ')" -eq 0 ]
	# And the host's keyrings hold nothing of it.
	run grep -c "$TAG" /proc/keys
	[ "$output" = 0 ]
}

@test "attack, run state: no file a run writes is there for the next run" {
	need_sandbox
	mkcamp
	# A run that finds what an earlier run left crashes: the verdict
	# says whether anything survived.
	attacker 'dirs="/ar/log $AR_OUT /tmp /dev/shm /ar/method $HOME"
for d in $dirs; do
	if [ -e "$d/mark-@TAG@" ]; then
		echo "found the mark of an earlier run in $d" >&2
		exit 3
	fi
done
for d in $dirs; do
	(: > "$d/mark-@TAG@") 2>/dev/null || :
done'
	bench -m m -p 3 -P 3 -W 1
	measured
}

@test "attack, side channels: the two roles of a pair never read the same input files" {
	need_sandbox
	# One file read by both runs of a pair is a channel between them:
	# its page cache (a run that evicts it with posix_fadvise slows the
	# other) and its access time (which run read it first). Each role
	# reads a copy of its own: here the baseline and the method note the
	# inode and device of their input, and they differ.
	rm -rf prob
	cp -R "$TOY" prob
	echo 'stat -c "%d:%i" "$AR_IN/seed" > "$AR_OUT/inode"' >> prob/baseline/run.sh
	mkcamp -p prob
	attacker 'stat -c "%d:%i" "$AR_IN/seed" > "$AR_OUT/inode"'
	bench -K -m m -p 2 -P 2 -W 0
	measured
	base=$(cat "$(kept)/baseline/out/inode")
	meth=$(cat "$(kept)/method/out/inode")
	[ -n "$base" ] && [ -n "$meth" ]
	[ "$base" != "$meth" ]
	# And the method's copy had not been read before it ran.
	attacker 'set -- $(stat -c "%.9X %.9Y" "$AR_IN/seed")
if awk -v a="$1" -v m="$2" "BEGIN { exit !(a > m) }"; then
	echo "the inputs were read before this run: atime $1, mtime $2" >&2
	exit 3
fi'
	bench -m m -p 4 -P 4 -W 0
	measured
}

@test "attack, namespaces: no new user or mount namespace, no mount" {
	need_sandbox
	mkcamp
	attacker '"$AR_METHOD/lib/attack" escape > "$AR_OUT/attack.log"'
	bench -K -m m -p 2 -P 2 -W 0
	measured
	attack_log
	[ "$(attack_log | grep -c '^refused ')" -eq 4 ]
}

@test "attack, CPUs: a run given 1 CPU cannot widen its affinity" {
	need_sandbox
	[ "$(nproc)" -ge 2 ] || skip "one CPU: nothing to widen to"
	mkcamp
	attacker '"$AR_METHOD/lib/attack" cpus > "$AR_OUT/attack.log"'
	bench -K -m m -k 1 -p 2 -P 2 -W 0
	measured
	attack_log
	grep -q '^refused widen the CPUs from 1 to 1: ' <(attack_log)
}

@test "attack, after the window: work a child does after the main process exits is timed" {
	need_sandbox
	mkcamp
	# Three times the baseline's work, done by a child after the main
	# process has exited: timed, it is a discard, never a fast keep.
	rm -rf m
	mkdir m
	cat > m/run.sh <<'EOF'
(
	i=0
	while [ "$i" -lt $((3 * N)) ]; do
		i=$((i + 1))
	done
	echo "$N" > "$AR_OUT/n"
	cp "$AR_IN/seed" "$AR_OUT/seed"
) > /dev/null 2>&1 &
exit 0
EOF
	bench -m m -p 8 -P 16 -W 1
	[ "$status" -eq 0 ]
	echo "$(j .verdict): $(j .why)"
	[ "$(j .verdict)" = discard ]
}

@test "attack, stderr bytes: a last line cut inside a UTF-8 character still gives a result" {
	mkcamp
	rm -rf m
	mkdir m
	# 199 bytes, then a 2-byte character: a cut at 200 bytes splits it.
	printf '%s\n' 'printf "%0199d\303\251\n" 0 | tr 0 a >&2' 'exit 1' > m/run.sh
	bench -a -m m -p 2 -P 2 -W 0
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = crash ]
	[[ "$(j .why)" == "run exited with status 1 (pair 0); stderr ends: aaaa"* ]]
	[ "$(j .why | tail -c 2 | od -An -tx1 | tr -d ' ')" = 610a ]
	run --separate-stderr -0 ar-ledger verify -C camp
}

@test "attack, re-keying: a campaign given a new key is caught by the pinned fingerprint" {
	mkcamp
	key=$KEY
	fp=$(ar-campaign fingerprint -C camp)
	[[ $fp =~ ^[0-9a-f]{64}$ ]]
	bench -a -m "$M/fast" -p 2 -P 2 -W 0
	[ "$status" -eq 0 ]
	AR_KEY_FINGERPRINT=$fp run -0 ar-ledger verify -C camp
	# Whoever can write the campaign swaps in a key pair of their own.
	KEYDIR= mkcamp other
	cp other/keys/bench.pub camp/keys/bench.pub
	sed -i "s|^key = .*|key = $(cd other && pwd -P)/keys/bench.key|" camp/campaign.conf
	# ar-bench refuses to sign under a key that is not the pinned one,
	# and ar-ledger verify -k (or the same variable) says it was replaced.
	AR_KEY_FINGERPRINT=$fp bench -a -m "$M/fast" -p 2 -P 2 -W 0
	[ "$status" -eq 1 ]
	[[ $stderr == *"camp/keys/bench.pub: fingerprint "*", not the pinned ${fp:0:16}...: the campaign's key was replaced" ]]
	run --separate-stderr -1 ar-ledger verify -C camp -k "$fp"
	[[ $stderr == *"the campaign's key was replaced" ]]
	AR_KEY_FINGERPRINT=$fp run --separate-stderr -1 ar-ledger export -C camp -V
	run --separate-stderr -64 ar-ledger verify -C camp -k nothex
	[ "$stderr" = "ar-ledger: -k nothex: not a key fingerprint (64 lowercase hex digits, as ar-campaign fingerprint prints)" ]
	# A secret key that is not the public key's other half signs nothing.
	sed -i "s|^key = .*|key = $key|" camp/campaign.conf
	bench -a -m "$M/fast" -p 2 -P 2 -W 0
	[ "$status" -eq 1 ]
	[[ $stderr == *"$key: not the secret half of "*"/keys/bench.pub" ]]
}

@test "attack, seeds: int8-matvec's inputs do not give their seed away" {
	# splitmix64, which gen used, is undone from 8 bytes of w.bin; the
	# keyed stream of ar-stream.h is not.
	cp -R "$TOP/problems/int8-matvec" judge
	chmod -R u+w judge
	make -s -C judge -f judge.mk gen
	mkdir in ref
	for seed in 11 4242 18446744073709551557; do
		AR_SEED=$seed AR_IN=in AR_REF=ref ROWS=64 COLS=64 TOKENS=2 judge/gen
		run -0 attack seed in/w.bin
		[ "$output" != "$seed" ]
		cp in/w.bin "w.$seed"
	done
	# The same seed makes the same inputs; two seeds, different ones.
	AR_SEED=4242 AR_IN=in AR_REF=ref ROWS=64 COLS=64 TOKENS=2 judge/gen
	cmp in/w.bin w.4242
	not cmp -s w.11 w.4242
}

@test "attack, holdout stderr: what a crash prints on holdout pairs reaches the ledger bounded" {
	mkcamp
	rm -rf m
	mkdir m
	printf '%s\n' 'head -c 3000 /dev/zero | tr "\000" x >&2' 'echo >&2' 'echo "last line" >&2' 'exit 1' > m/run.sh
	bench -S dev -m m -p 2 -P 2 -W 0
	[ "$(j .verdict)" = crash ]
	[ "$(j '.failure.stderr | utf8bytelength')" -gt 1000 ]
	bench -S holdout -m m -p 2 -P 2 -W 0
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = crash ]
	[ "$(j '.failure.stderr | utf8bytelength')" -le 200 ]
	[[ "$(j .failure.stderr)" == *"last line" ]]
}

# matvec_method NAME: a method of int8-matvec in ./NAME: the baseline's
# matvec.c, and what the test writes over it.
matvec_method() {
	rm -rf "$1"
	mkdir "$1"
	cp "$TOP/problems/int8-matvec/baseline/matvec.c" "$1/"
}

@test "attack, sealed driver: a method's build cannot replace, wrap or run beside int8-matvec's driver" {
	command -v cc > /dev/null && command -v readelf > /dev/null ||
	    skip "needs cc and binutils"
	mkcamp -p "$TOP/problems/int8-matvec"
	# A main of its own, linked into the kernel's object.
	matvec_method own
	cat > own/Makefile <<'MK'
matvec.o: matvec.c
	printf 'int main(void) { return 0; }\n' > mine.c
	$(CC) -I$(AR_PROBLEM) -c -o k.o matvec.c
	$(CC) -c -o mine.o mine.c
	ld -r -o matvec.o k.o mine.o
matvec: matvec.o
	$(CC) -o matvec mine.c
MK
	bench -m own -w tiny -p 2 -P 2 -W 0
	[ "$status" -eq 0 ]
	[ "$(j .verdict)" = crash ]
	[ "$(j .failure.stage)" = build ]
	[[ "$(j .failure.stderr)" == *"build: matvec.o: defines main: only matvec and matvec_* may be global"* ]]
	# A libc function replaced under the driver.
	matvec_method wrap
	printf '%s\n' '#include <stddef.h>' \
	    'size_t fwrite(const void *p, size_t s, size_t n, void *f) { (void)p; (void)f; return s ? n : 0; }' >> wrap/matvec.c
	cp "$TOP/problems/int8-matvec/baseline/Makefile" wrap/
	bench -m wrap -w tiny -p 2 -P 2 -W 0
	[ "$(j .verdict)" = crash ]
	[[ "$(j .failure.stderr)" == *"defines fwrite: only matvec"* ]]
	# Code run before main.
	matvec_method early
	printf '%s\n' '#include <unistd.h>' \
	    'static void __attribute__((constructor)) early(void) { (void)!write(2, "x", 1); }' >> early/matvec.c
	cp "$TOP/problems/int8-matvec/baseline/Makefile" early/
	bench -m early -w tiny -p 2 -P 2 -W 0
	[ "$(j .verdict)" = crash ]
	[[ "$(j .failure.stderr)" == *"has .init_array: no code may run before or after main"* ]]
	# A linker script in the object's place.
	matvec_method script
	printf 'matvec.o:\n\techo "ENTRY(main)" > matvec.o\n' > script/Makefile
	bench -m script -w tiny -p 2 -P 2 -W 0
	[ "$(j .verdict)" = crash ]
	[[ "$(j .failure.stderr)" == *"build: matvec.o: not an ELF object"* ]]
	# The honest control: its own flags, the sealed driver: measured.
	bench -m "$TOP/examples/int8-matvec/fast" -w tiny -p 2 -P 2 -W 0
	[ "$status" -eq 0 ]
	case $(j .verdict) in
	keep | discard | equivalent | inconclusive) ;;
	*) echo "$(j .verdict): $(j .why)"; false ;;
	esac
}

@test "attack, host paths: nothing in the sandbox names the campaign's path" {
	need_sandbox
	mkcamp
	attacker 'cat /proc/self/mountinfo /proc/1/cmdline /proc/self/environ > "$AR_OUT/attack.log" 2>/dev/null || :'
	bench -K -m m -p 2 -P 2 -W 0
	measured
	[ -s "$(kept)/method/out/attack.log" ]
	run grep -c -F "$CAMP" "$(kept)/method/out/attack.log"
	[ "$output" = 0 ]
}
