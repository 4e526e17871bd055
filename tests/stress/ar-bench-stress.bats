#!/usr/bin/env bats
# ar-bench-stress: ar-bench under load, the stress tests of `make
# check-stress`: 8 sessions at once appending to one ledger, on the toy
# problem of fixtures/bench, each result stored and verified; the
# roofline's k-rank path for k = 4 and 8 (8 rank processes on the cpu
# device), held to the tests of k = 1. The rest of ar-bench's tests are in
# tests/ar-bench.bats and tests/ar-bench-roofline.bats.

bats_require_minimum_version 1.5.0
load ../common

setup_file() {
	ar_bench_setup_file
}

setup() {
	ar_bench_setup
}

teardown() {
	ar_bench_teardown
}

@test "ar-bench -a: 8 sessions at once into one ledger store 8 results, all verified" {
	mkcamp
	for i in 1 2 3 4 5 6 7 8; do
		ar-bench -C camp "${NOSB[@]}" -q -a -W 0 -p 2 -P 2 -x "exp-$i" \
		    -m "$M/skip" > "r$i.json" 2> "e$i.txt" &
	done
	wait
	for i in 1 2 3 4 5 6 7 8; do
		[ ! -s "e$i.txt" ]
		[ "$(jq -r .experiment "r$i.json")" = "exp-$i" ]
		cmp "r$i.json" "camp/ledger/results/$(jq -r .id "r$i.json").json"
	done
	run -0 ls camp/ledger/results
	[ "${#lines[@]}" -eq 8 ]
	run --separate-stderr -0 ar-ledger verify -C camp
	[ "$stderr" = "ar-ledger: 8 rows: 8 verified, 0 unsigned (imported); 0 problems" ]
	# Every session removed its scratch directory.
	run -0 ls "$TMPDIR"
	[ -z "$output" ]
}

@test "ar-bench --roofline: the k-rank path for k = 4, 8 passes the tests of k = 1" {
	roofline_setup
	for k in 4 8; do
		roof -k "$k"
		[ "$status" -eq 0 ]
		same_tests "$k"
	done
}
