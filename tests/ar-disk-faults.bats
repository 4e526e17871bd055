#!/usr/bin/env bats
# ar-disk-faults: ar-init, ar-queue and ar-ledger on a full disk and on a
# read-only filesystem (small tmpfs mounts): a clear error, the documented
# exit code, and no lost or half-written data. Needs root to mount; skips,
# saying so, where mounting is not allowed.

bats_require_minimum_version 1.5.0
load common

setup() {
	ar_setup ar-ledger
	mnt="$BATS_TEST_TMPDIR/mnt"
	mkdir -p "$mnt" "$BATS_TEST_TMPDIR/prob"
	printf 'echo run\n' > "$BATS_TEST_TMPDIR/prob/run.sh"
	cp "$FIXTURES/problem/problem.json" "$BATS_TEST_TMPDIR/prob/"
	mount -t tmpfs -o size=256k tmpfs "$mnt" 2>/dev/null ||
		skip "cannot mount a tmpfs here (needs root): full-disk cases not run"
}

teardown() {
	umount "$mnt" 2>/dev/null || true
}

# Fills the filesystem at $1 to the last block.
fill() {
	dd if=/dev/zero of="$1/filler" bs=4k 2>/dev/null || true
}

@test "ar-queue put on a full disk: exit 74, every printed id stored whole, nothing half-written" {
	ar-queue init "$mnt/sp"
	awk 'BEGIN { print "title\tnote"; for (i = 0; i < 400; i++) printf "idea %d\t%0300d\n", i, i }' > "$BATS_TEST_TMPDIR/in.tsv"
	dd if=/dev/zero of="$mnt/filler" bs=4k count=40 2>/dev/null
	run --separate-stderr ar-queue put "$mnt/sp" "$BATS_TEST_TMPDIR/in.tsv"
	[ "$status" -eq 74 ]
	[[ "$stderr" == "ar-queue: $mnt/sp: cannot store "*": No space left on device" ]]
	[ "${#lines[@]}" -gt 0 ]
	[ "${#lines[@]}" -lt 400 ]
	# Every id printed is a complete record; nothing else is in new/.
	[ "$(ls "$mnt/sp/new" | wc -l)" -eq "${#lines[@]}" ]
	for id in "${lines[@]}"; do
		jq -e --arg id "$id" '.id == $id and (.note | length) == 300' "$mnt"/sp/new/1000000-*-"$id" >/dev/null
	done
	[ "$(ls -A "$mnt/sp/tmp" | wc -l)" -eq 0 ]
}

@test "ar-queue on a read-only filesystem: put refused with 73, claim leaves the record" {
	ar-queue init "$mnt/sp"
	printf 'title\nx\n' | ar-queue put "$mnt/sp" >/dev/null
	mount -o remount,ro "$mnt"
	run --separate-stderr ar-queue put "$mnt/sp" <<<$'title\ny'
	[ "$status" -eq 73 ]
	[[ "$stderr" == "ar-queue: $mnt/sp: cannot store "*": Read-only file system" ]]
	run --separate-stderr ar-queue claim "$mnt/sp"
	[ "$status" -eq 73 ]
	[ "$stderr" = "ar-queue: $mnt/sp: claim: Read-only file system" ]
	[ "$(ls "$mnt/sp/new" | wc -l)" -eq 1 ]
}

@test "ar-ledger append on a full disk: exit 74, the ledger still verifies, nothing half-written" {
	ar-init -p "$BATS_TEST_TMPDIR/prob" "$mnt/c" >/dev/null
	ar-sign-test -C "$mnt/c" -g 3 > "$BATS_TEST_TMPDIR/first.jsonl"
	ar-ledger append -C "$mnt/c" "$BATS_TEST_TMPDIR/first.jsonl" 2>/dev/null
	ar-sign-test -C "$mnt/c" -g 200 -s 5 > "$BATS_TEST_TMPDIR/many.jsonl"
	ar-sign-test -C "$mnt/c" -g 1 -s 6 > "$BATS_TEST_TMPDIR/one.jsonl"
	fill "$mnt"
	run --separate-stderr ar-ledger append -C "$mnt/c" "$BATS_TEST_TMPDIR/many.jsonl"
	[ "$status" -eq 74 ]
	[[ "$stderr" == *"No space left on device" ]]
	run --separate-stderr ar-ledger append -C "$mnt/c" "$BATS_TEST_TMPDIR/one.jsonl"
	[ "$status" -eq 74 ]
	[[ "$stderr" == "ar-ledger: $mnt/c/ledger/results: cannot store "*": No space left on device" ]]
	rm -f "$mnt/filler"
	run --separate-stderr ar-ledger verify -C "$mnt/c"
	[ "$status" -eq 0 ]
	[ "$output" = "where	id	problem" ]
	[ "$stderr" = "ar-ledger: 3 rows: 3 verified, 0 unsigned (imported); 0 problems" ]
	[ -z "$(ls -A "$mnt/c/ledger/seg")" ]
	[ ! -e "$mnt/c/ledger/lock" ]
}

@test "ar-ledger compact on a full disk: fails, old rows intact and exported the same" {
	ar-init -p "$BATS_TEST_TMPDIR/prob" "$mnt/c" >/dev/null
	ar-sign-test -C "$mnt/c" -g 12 > "$BATS_TEST_TMPDIR/r.jsonl"
	ar-ledger append -C "$mnt/c" "$BATS_TEST_TMPDIR/r.jsonl" 2>/dev/null
	ar-ledger export -C "$mnt/c" > "$BATS_TEST_TMPDIR/before.tsv"
	fill "$mnt"
	run --separate-stderr ar-ledger compact -C "$mnt/c"
	[ "$status" -eq 74 ]
	[[ "$stderr" == *"No space left on device" ]]
	rm -f "$mnt/filler"
	ar-ledger export -C "$mnt/c" > "$BATS_TEST_TMPDIR/after.tsv"
	cmp "$BATS_TEST_TMPDIR/before.tsv" "$BATS_TEST_TMPDIR/after.tsv"
	run ar-ledger verify -C "$mnt/c"
	[ "$status" -eq 0 ]
	# Once there is room, the same compaction succeeds.
	ar-ledger compact -C "$mnt/c" 2>/dev/null
	ar-ledger export -C "$mnt/c" > "$BATS_TEST_TMPDIR/compacted.tsv"
	cmp "$BATS_TEST_TMPDIR/before.tsv" "$BATS_TEST_TMPDIR/compacted.tsv"
}

@test "ar-init on a full disk: exit 74, no campaign and no hidden leftovers" {
	fill "$mnt"
	run --separate-stderr ar-init -p "$BATS_TEST_TMPDIR/prob" "$mnt/c"
	[ "$status" -eq 74 ]
	[[ "$stderr" == "ar-init: "*": No space left on device" ]]
	[ ! -e "$mnt/c" ]
	[ "$(ls -A "$mnt")" = "filler" ]
}

@test "ar-init on a read-only filesystem: exit 73, nothing created" {
	mount -o remount,ro "$mnt"
	run --separate-stderr ar-init -p "$BATS_TEST_TMPDIR/prob" "$mnt/c"
	[ "$status" -eq 73 ]
	[[ "$stderr" == "ar-init: $mnt/."*": Read-only file system" ]]
	[ -z "$(ls -A "$mnt")" ]
}

@test "ar-bench -a on a full or read-only ledger: the result still reaches stdout; exit 74 or 73, said" {
	SANDBOX=$(bench_sandbox)
	ar_bench_setup
	mkcamp -p "$TOY" "$mnt/camp"
	fill "$mnt"
	run --separate-stderr ar-bench -C "$mnt/camp" "${NOSB[@]}" -q -a -m "$M/skip"
	[ "$status" -eq 74 ]
	same "$stderr" "ar-bench: $mnt/camp/ledger: cannot append the result: No space left on device; it is on standard output only (ar-ledger append stores it later)"
	printf '%s\n' "$output" > r.json
	# What it printed is the whole signed result: it verifies once stored.
	rm "$mnt/filler"
	run -0 ar-ledger append -C "$mnt/camp" r.json
	run -0 ar-ledger verify -C "$mnt/camp"
	mount -o remount,ro "$mnt"
	run --separate-stderr ar-bench -C "$mnt/camp" "${NOSB[@]}" -q -a -m "$M/skip"
	[ "$status" -eq 73 ]
	same "$stderr" "ar-bench: $mnt/camp/ledger: cannot append the result: Read-only file system; it is on standard output only (ar-ledger append stores it later)"
	jq -e '.sig and .id' <<< "$output"
}
