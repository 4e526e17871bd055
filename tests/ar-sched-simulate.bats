#!/usr/bin/env bats
# ar-sched simulate and ar-sched landscape: whole campaigns against
# landscape files. Tests a tiny landscape whose best (method, k) wins only
# at scale (flat1 misses it, ours finds it) and one whose best scaler
# breaks its guardrail at k=4 (the best feasible is at k=2); exact
# outputs, deterministic under a seed and different under another; the
# summary and JSON Lines; the generator (deterministic, its rows read back
# by simulate); every malformed landscape (65, naming file and line), a
# missing file (66) and usage errors (64); -h.

bats_require_minimum_version 1.5.0
load common

FIX="$BATS_TEST_DIRNAME/fixtures/landscape"

H="landscape	method	k	score	noise	guard	guard_max	cost_h	pfrac	hint"

setup() {
	ar_setup ar-sched
	cd "$T"
}

# meth METHOD SCORE: four rows of landscape x, one per k, SCORE at
# every k, 1% noise, no guardrail, k GPU-hours.
meth() {
	local k
	for k in 1 2 4 8; do
		printf 'x\t%s\t%s\t%s\t0.01\t\t\t%s\t\t\n' "$1" "$k" "$2" "$k"
	done
}

@test "simulate: the scale-dependent winner: flat1 misses it, ours finds it" {
	run -0 ar-sched simulate "$FIX/tiny.tsv"
	[ "$output" = "landscape	policy	repeat	found	exact	pick_method	pick_k	pick_score	best_method	best_k	best_score	gpu_hours	grid_frac	measurements
scalewin	flat1	0	no	no	a	1	1.0300	b	8	1.3769	0.750	0.0667	3
scalewin	grid	0	yes	yes	b	8	1.3769	b	8	1.3769	11.250	1.0000	12
scalewin	sha	0	yes	yes	b	8	1.3769	b	8	1.3769	4.750	0.4222	7
scalewin	ours	0	yes	yes	b	8	1.3769	b	8	1.3769	1.484	0.1319	5
guarded	flat1	0	no	no	e	1	1.0400	d	2	1.0676	0.750	0.0667	3
guarded	grid	0	yes	yes	d	2	1.0676	d	2	1.0676	11.250	1.0000	12
guarded	sha	0	no	no	e	1	1.0400	d	2	1.0676	4.750	0.4222	7
guarded	ours	0	yes	yes	d	2	1.0676	d	2	1.0676	2.000	0.1778	9" ]
}

@test "simulate -S: one summary row per policy, in the order of -p" {
	run -0 ar-sched simulate -S -p ours,flat1 "$FIX/tiny.tsv"
	[ "$output" = "policy	runs	found	found_rate	exact_rate	gpu_hours	grid_frac	grid_frac_max	hours_frac	measurements
ours	2	2	1.0000	1.0000	1.742	0.1549	0.1778	0.1549	7.0
flat1	2	0	0.0000	0.0000	0.750	0.0667	0.0667	0.0667	3.0" ]
}

@test "simulate: deterministic under a seed; another seed draws other noise" {
	run -0 ar-sched simulate -r 3 -s 5 "$FIX/tiny.tsv"
	a=$output
	run -0 ar-sched simulate -r 3 -s 5 "$FIX/tiny.tsv"
	[ "$output" = "$a" ]
	[ "$(printf '%s\n' "$output" | wc -l)" -eq 25 ]
	run -0 ar-sched simulate -v -p ours -s 5 "$FIX/tiny.tsv"
	b=$output
	run -0 ar-sched simulate -v -p ours -s 6 "$FIX/tiny.tsv"
	[ "$output" != "$b" ]
}

@test "simulate -v: every measurement on stderr, with its purpose, why and size" {
	run --separate-stderr -0 ar-sched simulate -v -p ours "$FIX/tiny.tsv"
	[ "$(printf '%s\n' "$stderr" | grep -c '^scalewin	ours	0	')" -eq 5 ]
	# The k=8 probe clearly beats the incumbent after a quarter of a
	# measurement.
	printf '%s\n' "$stderr" | grep -q '^scalewin	ours	0	b	8	scale	.*	0\.25$'
	# The first probe has no incumbent to stop against: a whole one.
	printf '%s\n' "$stderr" | grep -q '^scalewin	ours	0	a	1	probe	.*	1\.00$'
	# c's probe stops at ar-bench's look of 22 pairs of 32, clearly
	# below 85% of the best so far.
	printf '%s\n' "$stderr" | grep -q '^scalewin	ours	0	c	1	probe	.*	0\.69$'
	# grid makes standard measurements only.
	run --separate-stderr -0 ar-sched simulate -v -p grid "$FIX/tiny.tsv"
	[ "$(printf '%s\n' "$stderr" | grep -vc '	1\.00$')" -eq 0 ]
}

@test "simulate -P: a standard measurement's pairs; no measurement below 8 pairs" {
	# With 8 pairs to a standard measurement, a quarter would be 2
	# pairs: every probe is the 8 pairs of one whole measurement.
	run --separate-stderr -0 ar-sched simulate -v -p ours -P 8 "$FIX/tiny.tsv"
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 14 ]
	[ "$(printf '%s\n' "$stderr" | grep -c '	1\.00$')" -eq 14 ]
	# With 64, the k=8 probe still stops at its first look, a quarter.
	run --separate-stderr -0 ar-sched simulate -v -p ours -P 64 "$FIX/tiny.tsv"
	printf '%s\n' "$stderr" | grep -q '^scalewin	ours	0	b	8	scale	.*	0\.25$'
	[ "$output" != "$(ar-sched simulate -p ours "$FIX/tiny.tsv")" ]
	run -64 ar-sched simulate -P 7 "$FIX/tiny.tsv"
	[ "$output" = "ar-sched: -P 7: not a count from 8 to 100000" ]
	run -64 ar-sched simulate -P 100001 "$FIX/tiny.tsv"
	[ "$output" = "ar-sched: -P 100001: not a count from 8 to 100000" ]
}

@test "simulate -f jsonl: one object per campaign" {
	run -0 ar-sched simulate -f jsonl -p ours -s 7 "$FIX/tiny.tsv"
	[ "${lines[0]}" = '{"landscape":"scalewin","policy":"ours","repeat":0,"found":true,"exact":true,"pick_method":"b","pick_k":8,"pick_score":1.3769,"best_method":"b","best_k":8,"best_score":1.3769,"gpu_hours":1.40625,"grid_frac":0.125,"measurements":5}' ]
	[ "${#lines[@]}" -eq 2 ]
	run -0 ar-sched simulate -S -f jsonl -p grid "$FIX/tiny.tsv"
	[ "$output" = '{"policy":"grid","runs":2,"found":2,"found_rate":1.0,"exact_rate":1.0,"gpu_hours":11.25,"grid_frac":1.0,"grid_frac_max":1.0,"hours_frac":1.0,"measurements":12.0}' ]
}

@test "simulate: a landscape on stdin; no guardrail columns filled is feasible" {
	{ echo "$H"; meth a 1.05; meth b 0.9; } > l.tsv
	run -0 ar-sched simulate -p grid - < l.tsv
	# a ties with itself at every k: any of its k is exact.
	[ "${lines[1]}" = "x	grid	0	yes	yes	a	2	1.0500	a	1	1.0500	30.000	1.0000	8" ]
}

@test "landscape: deterministic; simulate reads what it writes" {
	run -0 ar-sched landscape -n 3 -m 4 -s 9 -x g
	[ "${lines[0]}" = "landscape	method	k	score	noise	guard	guard_max	cost_h	pfrac	hint	base_pfrac	family" ]
	[ "${#lines[@]}" -eq 49 ]
	printf '%s\n' "$output" > g.tsv
	run -0 ar-sched landscape -n 3 -m 4 -s 9 -x g
	[ "$output" = "$(cat g.tsv)" ]
	run -0 ar-sched landscape -n 3 -m 4 -s 10 -x g
	[ "$output" != "$(cat g.tsv)" ]
	run -0 ar-sched simulate -S g.tsv
	[ "${#lines[@]}" -eq 5 ]
	run -0 ar-sched landscape -n 2 -m 3 --mix scaler=1
	[ "$(printf '%s\n' "$output" | awk -F'\t' 'NR > 1 { print $12 }' | sort -u)" = scaler ]
}

@test "landscape: usage errors" {
	run -64 ar-sched landscape -n 0
	[ "$output" = "ar-sched: -n 0: not a count from 1 to 100000" ]
	run -64 ar-sched landscape --mix bogus=1
	[ "$output" = "ar-sched: --mix bogus=1: not family=weight with a family of flat, scaler, contend, infeasible, noisy, dud" ]
	run -64 ar-sched landscape --mix flat=0
	[ "$output" = "ar-sched: --mix flat=0: every weight is 0" ]
	run -64 ar-sched landscape -x 'a b'
	[ "$output" = "ar-sched: -x a b: not a short name of letters, digits, '.', '_', '-'" ]
	run -64 ar-sched landscape extra
	[ "${lines[0]}" = "usage: ar-sched landscape [-n landscapes] [-m methods] [-s seed] [-x prefix] [--mix family=weight[,...]]" ]
}

@test "simulate: usage errors" {
	run -64 ar-sched simulate
	[ "$output" = "usage: ar-sched simulate [-Sv] [-p policy[,policy...]] [-P pairs] [-s seed] [-r repeats] [-f tsv|jsonl] landscape-file ..." ]
	run -64 ar-sched simulate -p best "$FIX/tiny.tsv"
	[ "$output" = "ar-sched: -p best: the policies are ours, flat1, grid and sha" ]
	run -64 ar-sched simulate -r 0 "$FIX/tiny.tsv"
	[ "$output" = "ar-sched: -r 0: not a count from 1 to 100000" ]
	run -64 ar-sched simulate -s -1 "$FIX/tiny.tsv"
	[ "$output" = "ar-sched: -s -1: not a whole number from 0" ]
	run -64 ar-sched simulate -f csv "$FIX/tiny.tsv"
	[ "$output" = "ar-sched: -f csv: the formats are tsv and jsonl" ]
	run -64 ar-sched simulate -q "$FIX/tiny.tsv"
}

@test "simulate: a missing file is 66" {
	run -66 ar-sched simulate nope.tsv
	[ "$output" = "ar-sched: nope.tsv: No such file or directory" ]
}

@test "simulate: malformed landscapes are 65, naming the file and line" {
	bad() {
		{ echo "$H"; meth a 1.05; printf '%s\n' "$1"; } > b.tsv
		run -65 ar-sched simulate b.tsv
		[ "$output" = "ar-sched: b.tsv: line 6: $2" ] || {
			echo "got: $output"; return 1; }
	}
	bad "x	b	3	1	0.01			1		" 'k: "3" is not 1, 2, 4 or 8'
	bad "x	b	1	nan	0.01			1		" 'score: "nan" is not a finite number'
	bad "x	b	1	inf	0.01			1		" 'score: "inf" is not a finite number'
	bad "x	b	1	0	0.01			1		" 'score: 0 is not positive'
	bad "x	b	1		0.01			1		" 'score: empty'
	bad "x	b	1	1	-0.1			1		" 'noise: -0.1 is not between 0 and 1'
	bad "x	b	1	1	0.01	0.5		1		" 'guard and guard_max: give both or neither'
	bad "x	b	1	1	0.01			0		" 'cost_h: 0 is not positive'
	bad "x	b	1	1	0.01			2		" 'cost_h: 2 differs from the landscape'"'"'s other methods at k=1'
	bad "x	b	1	1	0.01			1	1.5	" 'pfrac: 1.5 is not between 0 and 1'
	bad "x	b	1	1	0.01			1		maybe" 'hint: "maybe" is not scale, single or empty'
	bad "x	a	1	1	0.01			1		" 'x a at k=1 is there twice'
	bad "x	b c	1	1	0.01			1		" "method: \"b c\" is not a name of letters, digits, '.', '_', '-'"
	bad "	b	1	1	0.01			1		" "landscape: \"\" is not a name of letters, digits, '.', '_', '-'"
	bad "x	b	1	1	0.01			1		" 'x b has no row at k=2'
	bad "x	b	1	1	0.01" '5 fields, header has 10'
}

@test "simulate: a missing column, an empty file, a file of no landscape" {
	printf 'landscape\tmethod\tk\n' > c.tsv
	run -65 ar-sched simulate c.tsv
	[ "$output" = "ar-sched: c.tsv: no column score" ]
	: > e.tsv
	run -65 ar-sched simulate e.tsv
	[ "$output" = "ar-sched: e.tsv: empty input: no header line" ]
	echo "$H" > h.tsv
	run -65 ar-sched simulate h.tsv
	[ "$output" = "ar-sched: h.tsv: no landscape in it" ]
	{ echo "$H"; meth a 1.05; } > l.tsv
	run -65 ar-sched simulate l.tsv l.tsv
	[ "$output" = "ar-sched: l.tsv: line 2: landscape x is already in l.tsv" ]
}

@test "simulate -h, landscape -h" {
	run -0 ar-sched simulate -h
	[ "$output" = "usage: ar-sched simulate [-Sv] [-p policy[,policy...]] [-P pairs] [-s seed] [-r repeats] [-f tsv|jsonl] landscape-file ..." ]
	run -0 ar-sched landscape -h
	[ "$output" = "usage: ar-sched landscape [-n landscapes] [-m methods] [-s seed] [-x prefix] [--mix family=weight[,...]]" ]
}

@test "simulate: ours on a dead tie ends, found, no pair measured more than 4 times" {
	{ echo "$H"; meth a 1.05; meth b 1.05; } > l.tsv
	for s in 1 2 3; do
		run --separate-stderr -0 ar-sched simulate -v -p ours -s $s l.tsv
		[ "$(printf '%s\n' "$output" | cut -f4 | sed -n 2p)" = yes ]
		# A tie is never resolved; the cap of 4 measurements a pair
		# is what ends it.
		[ "$(printf '%s\n' "$stderr" | cut -f4,5 | sort | uniq -c |
		    awk '$1 > 4' | wc -l)" -eq 0 ]
	done
}
