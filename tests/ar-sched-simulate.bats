#!/usr/bin/env bats
# ar-sched simulate and ar-sched landscape: whole campaigns against
# landscape files. Tests a tiny landscape whose best (method, k) wins only
# at scale (flat1 misses it, ours finds it) and one whose best scaler
# breaks its guardrail at k=4 (the best feasible is at k=2); exact
# outputs, deterministic under a seed and different under another, the
# same whatever the order of the rows; the summary, by family and JSON
# Lines; the strict and relative rules of found; per-method costs; the
# five columns a file needs and a k it does not offer; ours' cap; the
# generator (deterministic, its rows read back by simulate); every
# malformed landscape (65, naming file and line), a missing file (66)
# and usage errors (64); -h.

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
	[ "$output" = "landscape	policy	repeat	found	found_rel	exact	pick_method	pick_k	pick_score	best_method	best_k	best_score	gpu_hours	grid_frac	measurements	best_family
scalewin	flat1	0	no	no	no	a	1	1.0300	b	8	1.3769	0.750	0.0667	3	
scalewin	grid	0	yes	yes	yes	b	8	1.3769	b	8	1.3769	11.250	1.0000	12	
scalewin	sha	0	yes	yes	yes	b	8	1.3769	b	8	1.3769	4.750	0.4222	7	
scalewin	ours	0	yes	yes	yes	b	8	1.3769	b	8	1.3769	2.156	0.1917	9	
guarded	flat1	0	no	no	no	e	1	1.0400	d	2	1.0676	0.750	0.0667	3	
guarded	grid	0	yes	yes	yes	d	2	1.0676	d	2	1.0676	11.250	1.0000	12	
guarded	sha	0	no	no	no	e	1	1.0400	d	2	1.0676	4.750	0.4222	7	
guarded	ours	0	yes	yes	yes	d	2	1.0676	d	2	1.0676	2.000	0.1778	10	" ]
}

@test "simulate -S: one summary row per policy, in the order of -p" {
	run -0 ar-sched simulate -S -p ours,flat1 "$FIX/tiny.tsv"
	[ "$output" = "policy	runs	found	found_rate	found_rel_rate	exact_rate	gpu_hours	grid_frac	grid_frac_max	hours_frac	measurements
ours	2	2	1.0000	1.0000	1.0000	2.078	0.1847	0.1917	0.1847	9.5
flat1	2	0	0.0000	0.0000	0.0000	0.750	0.0667	0.0667	0.0667	3.0" ]
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

@test "simulate: the rows' order does not matter: methods go in the natural order of their ids" {
	# m1 to m12, each with a curve and noise of its own; m10 scales.
	{
		echo "$H"
		for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
			for k in 1 2 4 8; do
				awk -v i=$i -v k=$k 'BEGIN { s = 1 + 0.004 * i - (i == 10 ? 0.05 : 0) + (i == 10 ? 0.09 * log(k) / log(2) : 0.002 * log(k));
					printf "x\tm%d\t%d\t%.4f\t%.3f\t\t\t%d\t\t\n", i, k, s, 0.01 + 0.003 * (i % 4), k }'
			done
		done
	} > sorted.tsv
	# The same rows, last to first and interleaved by k.
	{ echo "$H"; tail -n +2 sorted.tsv | sort -t "$(printf '\t')" -k3,3nr -k2,2r; } > mixed.tsv
	[ "$(sed -n 2p mixed.tsv | cut -f 2,3)" = "m9	8" ]
	run -0 ar-sched simulate -r 2 sorted.tsv
	a=$output
	run -0 ar-sched simulate -r 2 mixed.tsv
	[ "$output" = "$a" ]
	run -0 --separate-stderr ar-sched simulate -v -p ours,grid sorted.tsv
	b=$stderr
	run -0 --separate-stderr ar-sched simulate -v -p ours,grid mixed.tsv
	[ "$stderr" = "$b" ]
	# ours probes the new methods at k=1 in the ids' natural order.
	[ "$(printf '%s\n' "$b" | awk -F '\t' '$2 == "ours" && $6 == "probe" { printf "%s ", $4 }')" = "m1 m2 m3 m4 m5 m6 m7 m8 m9 m10 m11 m12 " ]
	printf '%s\n' "$a" | grep -q "	ours	0	yes	yes	yes	m10	8	"
}

@test "simulate -v: every measurement on stderr, with its purpose, why and size" {
	run --separate-stderr -0 ar-sched simulate -v -p ours "$FIX/tiny.tsv"
	# Nine: a's quiet k=4 probe is priced at the quarter it takes.
	[ "$(printf '%s\n' "$stderr" | grep -c '^scalewin	ours	0	')" -eq 9 ]
	# The k=8 probe clearly beats the incumbent after a quarter of a
	# measurement.
	printf '%s\n' "$stderr" | grep -q '^scalewin	ours	0	b	8	scale	.*	0\.25$'
	# The first probe has no incumbent to stop against: a whole one.
	printf '%s\n' "$stderr" | grep -q '^scalewin	ours	0	a	1	probe	.*	1\.00$'
	# c's probe stops at ar-bench's first look, 8 pairs of 32, clearly
	# below the best so far.
	printf '%s\n' "$stderr" | grep -q '^scalewin	ours	0	c	1	probe	.*	0\.25$'
	# grid makes standard measurements only.
	run --separate-stderr -0 ar-sched simulate -v -p grid "$FIX/tiny.tsv"
	[ "$(printf '%s\n' "$stderr" | grep -vc '	1\.00$')" -eq 0 ]
}

@test "simulate -P: a standard measurement's pairs; no measurement below 8 pairs" {
	# With 8 pairs to a standard measurement, a quarter would be 2
	# pairs: every probe is the 8 pairs of one whole measurement.
	run --separate-stderr -0 ar-sched simulate -v -p ours -P 8 "$FIX/tiny.tsv"
	# (a's quiet k=4 probe, a quarter at 32 pairs, would be a whole
	# one here, and is not worth it.)
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 18 ]
	[ "$(printf '%s\n' "$stderr" | grep -c '	1\.00$')" -eq 18 ]
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
	[ "${lines[0]}" = '{"landscape":"scalewin","policy":"ours","repeat":0,"found":true,"found_rel":true,"exact":true,"pick_method":"b","pick_k":8,"pick_score":1.3769,"best_method":"b","best_k":8,"best_score":1.3769,"best_family":"","gpu_hours":2.15625,"grid_frac":0.19166666666666668,"measurements":9}' ]
	[ "${#lines[@]}" -eq 2 ]
	run -0 ar-sched simulate -S -f jsonl -p grid "$FIX/tiny.tsv"
	[ "$output" = '{"policy":"grid","runs":2,"found":2,"found_rate":1.0,"found_rel_rate":1.0,"exact_rate":1.0,"gpu_hours":11.25,"grid_frac":1.0,"grid_frac_max":1.0,"hours_frac":1.0,"measurements":12.0}' ]
}

@test "simulate: a landscape on stdin; no guardrail columns filled is feasible" {
	{ echo "$H"; meth a 1.05; meth b 0.9; } > l.tsv
	run -0 ar-sched simulate -p grid - < l.tsv
	# a ties with itself at every k: any of its k is exact.
	[ "${lines[1]}" = "x	grid	0	yes	yes	yes	a	2	1.0500	a	1	1.0500	30.000	1.0000	8	" ]
}

@test "simulate: only landscape, method, k, score and noise are needed; a k no method has is not offered" {
	# No guardrail, no profile, no hint; cost_h missing is k GPU-hours.
	printf 'landscape\tmethod\tk\tscore\tnoise\n' > m.tsv
	for k in 1 2 4 8; do
		printf 'x\ta\t%s\t1.05\t0.01\nx\tb\t%s\t0.9\t0.01\n' $k $k
	done >> m.tsv
	run -0 ar-sched simulate -p grid m.tsv
	[ "${lines[1]}" = "x	grid	0	yes	yes	yes	a	2	1.0500	a	1	1.0500	30.000	1.0000	8	" ]
	# The same rows with the full header give the same line.
	{ echo "$H"; meth a 1.05; meth b 0.9; } > l.tsv
	run -0 ar-sched simulate -p grid l.tsv
	[ "${lines[1]}" = "x	grid	0	yes	yes	yes	a	2	1.0500	a	1	1.0500	30.000	1.0000	8	" ]
	# Without k=2 and k=8 rows the grid is k=1 and k=4: 2 x (1 + 4).
	grep -v -e '	2	' -e '	8	' m.tsv > m4.tsv
	run -0 ar-sched simulate -p grid,ours m4.tsv
	[ "$(printf '%s\n' "$output" | sed -n 2p | cut -f4,13,15)" = "yes	10.000	4" ]
	[ "$(printf '%s\n' "$output" | awk -F'\t' 'NR == 3 { print $4 }')" = "yes" ]
	# One method with a k=4 row the other lacks is still malformed; k=1
	# is where every method is first seen.
	grep -v -e '	a	4	' m4.tsv > p.tsv
	run -65 ar-sched simulate p.tsv
	[ "$output" = "ar-sched: p.tsv: line 2: x a has no row at k=4" ]
	grep -v -e '	1	' m.tsv > n1.tsv
	run -65 ar-sched simulate n1.tsv
	[ "$output" = "ar-sched: n1.tsv: line 2: x a has no row at k=1" ]
	# A guardrail's value without its limit is refused at the header.
	printf 'landscape\tmethod\tk\tscore\tnoise\tguard\n' > g.tsv
	run -65 ar-sched simulate g.tsv
	[ "$output" = "ar-sched: g.tsv: no column guard_max: give guard and guard_max or neither" ]
}

@test "simulate: a score of 0 is a crash at that k: never feasible, never picked, a short measurement" {
	# a is best at k=8 but dies there; b is flat at 1.0. Every policy
	# must pick a at k=4, the best that runs.
	{ echo "$H"
	  printf 'x\ta\t1\t1.0\t0.01\t\t\t1\t\t\n'
	  printf 'x\ta\t2\t1.1\t0.01\t\t\t2\t\t\n'
	  printf 'x\ta\t4\t1.2\t0.01\t\t\t4\t\t\n'
	  printf 'x\ta\t8\t0\t0.01\t\t\t8\t\t\n'
	  meth b 1.0; } > z.tsv
	run -0 ar-sched simulate z.tsv
	# The true best is a at k=4, and grid and ours find it.
	[ "$(printf '%s\n' "$output" | awk -F'\t' '$2 == "grid" || $2 == "ours" { print $2, $4, $7, $8, $10, $11 }' | tr '\n' ';')" = "grid yes a 4 a 4;ours yes a 4 a 4;" ]
	# The crash is measured with no score: 0 in the trace.
	run -0 sh -c 'ar-sched simulate -v -p grid z.tsv 2>&1 > /dev/null'
	[ "$(printf '%s\n' "$output" | awk -F'\t' '$2 == "grid" && $4 == "a" && $5 == 8 { print $7, $8, $10 }')" = "0.0000 0.0000 1.00" ]
	# Only crashes: nothing is feasible, nothing is found.
	{ echo "$H"; for k in 1 2 4 8; do
		printf 'x\ta\t%s\t0\t0.01\t\t\t%s\t\t\n' $k $k; done; } > d.tsv
	run -0 ar-sched simulate -p grid,ours d.tsv
	[ "$(printf '%s\n' "$output" | awk -F'\t' 'NR > 1 { print $2, $4, $7 }' | tr '\n' ';')" = "grid no ;ours no ;" ]
}

@test "simulate: found is strict (within 0.01 of the best), found_rel the old 1%" {
	# a is 1.985 at every k, b 2.0 at k=8 only: flat1 picks a at k=1,
	# within 1% of the best but 0.015 below it.
	{ echo "$H"; meth a 1.985
	  printf 'x\tb\t1\t1.0\t0.01\t\t\t1\t\t\n'
	  printf 'x\tb\t2\t1.0\t0.01\t\t\t2\t\t\n'
	  printf 'x\tb\t4\t1.0\t0.01\t\t\t4\t\t\n'
	  printf 'x\tb\t8\t2.0\t0.01\t\t\t8\t\t\n'; } > s.tsv
	run -0 ar-sched simulate -p flat1 s.tsv
	[ "$(printf '%s\n' "$output" | sed -n 2p | cut -f4-8)" = "no	yes	no	a	1" ]
	# 0.009 below is found by both.
	sed 's/1\.985/1.991/' s.tsv > t.tsv
	run -0 ar-sched simulate -p flat1 t.tsv
	[ "$(printf '%s\n' "$output" | sed -n 2p | cut -f4-6)" = "yes	yes	no" ]
}

@test "simulate: costs may differ by method; the grid's hours are their sum" {
	{ echo "$H"; meth a 1.05
	  for k in 1 2 4 8; do
		printf 'x\tb\t%s\t0.9\t0.01\t\t\t%s\t\t\n' $k $((k * 3))
	  done; } > c.tsv
	run -0 ar-sched simulate -p grid c.tsv
	# a: 1 + 2 + 4 + 8, b: three times that.
	[ "$(printf '%s\n' "$output" | sed -n 2p | cut -f13,14)" = "60.000	1.0000" ]
}

@test "simulate -F: the summary by the family of the true best, all first" {
	run -0 ar-sched landscape -t shapes -n 12 -m 8 -s 3 -x f
	printf '%s\n' "$output" > f.tsv
	run -0 ar-sched simulate -F -p grid,ours f.tsv
	[ "${lines[0]}" = "policy	family	runs	found	found_rate	found_rel_rate	exact_rate	gpu_hours	grid_frac	grid_frac_max	hours_frac	measurements" ]
	[ "$(printf '%s\n' "$output" | awk -F'\t' '$2 == "all" { print $1, $3 }' | tr '\n' ' ')" = "grid 12 ours 12 " ]
	# The families' runs add up to all's, for each policy.
	[ "$(printf '%s\n' "$output" | awk -F'\t' 'NR > 1 && $2 != "all" { n[$1] += $3 } END { print n["grid"], n["ours"] }')" = "12 12" ]
	# The families are those of the true bests, each once a policy.
	fams=$(ar-sched simulate -p grid f.tsv | awk -F'\t' 'NR > 1 { print $16 }' | sort -u | tr '\n' ' ')
	[ "$(printf '%s\n' "$output" | awk -F'\t' '$1 == "grid" && $2 != "all" { print $2 }' | tr '\n' ' ')" = "$fams" ]
	run -0 ar-sched simulate -F -f jsonl -p ours f.tsv
	[ "$(printf '%s\n' "$output" | head -1 | jq -r '.family + " " + (.runs | tostring)')" = "all 12" ]
}

@test "simulate -O: a re-measurement that asks only its own pairs runs longer" {
	# a and b close: ours measures a again and again. Without -O each
	# re-measurement asks its question of all of a's runs (ar-bench
	# given --stop-prior) and stops sooner than one that asks its own.
	{ echo "$H"; meth a 1.05; meth b 1.03; meth c 0.9; } > o.tsv
	# The mean size of a re-measurement: the totals also count how
	# many the policy chose to make, which differ as the draws do.
	size() {
		for s in 1 2 3; do
			ar-sched simulate "$@" -s $s -v -p ours o.tsv 2>&1 > /dev/null
		done | awk -F'\t' '$6 == "validate" { n += $10; c++ } END { printf "%.2f\n", c ? n / c : 0 }'
	}
	with=$(size)
	own=$(size -O)
	echo "a validate's mean size: $with with the earlier runs, $own on their own"
	awk -v a="$with" -v b="$own" 'BEGIN { exit !(a > 0 && b > a) }'
	# Probes and first looks have no earlier runs: the same either way.
	[ "$(ar-sched simulate -v -p ours o.tsv 2>&1 > /dev/null | head -10)" = "$(ar-sched simulate -O -v -p ours o.tsv 2>&1 > /dev/null | head -10)" ]
}

@test "simulate: ours never spends more than 70% of the grid, even on ties" {
	{ echo "$H"; meth a 1.05; meth b 1.05; meth c 1.05; } > l.tsv
	for s in 1 2 3 4 5; do
		run -0 ar-sched simulate -p ours -s $s l.tsv
		awk -F'\t' 'NR == 2 && $14 > 0.7 { exit 1 }' <<< "$output"
	done
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
	[ "${lines[0]}" = "usage: ar-sched landscape [-t families|shapes] [-n landscapes] [-m methods|lo-hi] [-s seed] [-x prefix] [--mix name=weight[,...]] [--hints share]" ]
}

@test "simulate: usage errors" {
	run -64 ar-sched simulate
	[ "$output" = "usage: ar-sched simulate [-FOSv] [-p policy[,policy...]] [-P pairs] [-s seed] [-r repeats] [-f tsv|jsonl] landscape-file ..." ]
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
	bad "x	b	1	-0.5	0.01			1		" 'score: -0.5 is negative'
	bad "x	b	1		0.01			1		" 'score: empty'
	bad "x	b	1	1	-0.1			1		" 'noise: -0.1 is not between 0 and 1'
	bad "x	b	1	1	0.01	0.5		1		" 'guard and guard_max: give both or neither'
	bad "x	b	1	1	0.01			0		" 'cost_h: 0 is not positive'
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
	[ "$output" = "usage: ar-sched simulate [-FOSv] [-p policy[,policy...]] [-P pairs] [-s seed] [-r repeats] [-f tsv|jsonl] landscape-file ..." ]
	run -0 ar-sched landscape -h
	[ "$output" = "usage: ar-sched landscape [-t families|shapes] [-n landscapes] [-m methods|lo-hi] [-s seed] [-x prefix] [--mix name=weight[,...]] [--hints share]" ]
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

@test "simulate: without noise, a measurement is known exactly: ours looks once or twice, then picks" {
	# Every interval has no width: taken as 2% noise, ours measured
	# the best again and again to its cap.
	{
		echo "$H"
		meth a 1.05 | sed 's/0\.01/0/'
		printf 'x\tb\t%s\t%s\t0\t\t\t%s\t\t\n' 1 0.98 1 2 1.06 2 4 1.15 4 8 1.21 8
		printf 'x\tc\t%s\t%s\t0\t\t\t%s\t\t\n' 1 1.04 1 2 1.12 2 4 1.19 4 8 1.20 8
	} > z.tsv
	run --separate-stderr -0 ar-sched simulate -v -p ours z.tsv
	[ "$(printf '%s\n' "$output" | sed -n 2p | cut -f 4,7,8)" = "yes	b	8" ]
	printf '%s\n' "$output" | sed -n 2p | awk -F '\t' '{ exit !($14 < 0.5) }'
	[ "$(printf '%s\n' "$stderr" | cut -f4,5 | sort | uniq -c |
	    awk '$1 > 2' | wc -l)" -eq 0 ]
}

# ---- ar-sched landscape -t shapes ----

SHAPES="amdahl crash dud flat guard-trap4 guard-trap8 near-tie noisy plateau strong1-fall strong1-flat usl-peak2 usl-peak4 usl-peak8 weak1-best4 weak1-best8"

# shape_check FILE: one line for every method whose rows break what its
# shape claims (ar-sched(1), The shapes recipe), and for every landscape
# of fewer than MLO or more than MHI methods; nothing when all hold.
shape_check() {
	awk -F'\t' -v mlo="${MLO:-8}" -v mhi="${MHI:-80}" '
	function bad(why) { printf "%s %s %s: %s\n", L, M, F, why }
	# Whether a and b are apart by lo to hi of the smaller.
	function apart(a, b, lo, hi,  d) {
		d = (a > b ? a / b : b / a) - 1; return d >= lo && d <= hi }
	function check(  j, am, ok) {
		am = 0
		for (j = 1; j < 4; j++) if (s[j] > s[am]) am = j
		if (F !~ /^(amdahl|noisy|guard-trap|crash)/)
			for (j = 0; j < 4; j++) if (!f[j]) bad("infeasible")
		if (F == "usl-peak2" && am != 1) bad("no peak at 2")
		if (F == "usl-peak4" && am != 2) bad("no peak at 4")
		if (F == "usl-peak8" && am != 3) bad("no peak at 8")
		if (F ~ /^weak1/ && !(s[0] < 1 && s[0] >= 0.9)) bad("k=1")
		if (F == "weak1-best4" && am != 2) bad("best not at 4")
		if (F == "weak1-best8" && am != 3) bad("best not at 8")
		if (F == "plateau") {
			ok = s[1] > s[0] * 1.01 && apart(s[3], s[1], 0, 0.0035) &&
			    apart(s[2], s[1], 0, 0.0035) ||
			    s[2] > s[0] * 1.01 && apart(s[3], s[2], 0, 0.0035)
			if (!ok) bad("no rise then flat")
		}
		if (F ~ /^strong1/ && !(s[0] > 1.015)) bad("no win at 1")
		if (F == "strong1-flat")
			for (j = 1; j < 4; j++) if (!apart(s[j], s[0], 0, 0.006)) bad("not flat")
		if (F == "strong1-fall")
			for (j = 1; j < 4; j++) if (!(s[j] < s[j - 1])) bad("no fall")
		if (F == "guard-trap4" && !(f[0] && f[1] && !f[2] && !f[3] && am == 2))
			bad("no trap at 4")
		if (F == "guard-trap8" && !(f[0] && f[1] && f[2] && !f[3] && am == 3))
			bad("no trap at 8")
		if (F == "crash" && !(f[0] && f[1] && !f[3])) bad("no crash")
		if (F == "flat")
			for (j = 0; j < 4; j++) if (!apart(s[j], 1, 0, 0.0081)) bad("not flat")
		if (F == "dud")
			for (j = 0; j < 4; j++) if (!(s[j] < 0.975)) bad("not a dud")
		if (F == "noisy" && !(nz[0] >= 0.0174)) bad("not noisy")
		# 1 to 10% a run at k=1, a quarter of it a measurement.
		if (!(nz[0] >= 0.0024 && nz[0] <= 0.0251)) bad("noise at 1")
		for (j = 1; j < 4; j++) if (nz[j] < nz[j - 1]) bad("noise falls")
		if (F == "near-tie") {
			n = ++nt[L]; top[L, n] = s[am]; who[L, n] = M
			for (j = 0; j < 4; j++) ts[L, n, j] = s[j]
		}
		if (!(L in nm)) order[++nl] = L
		nm[L]++
	}
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["landscape"] != L || $c["method"] != M {
		if (M != "") check()
		L = $c["landscape"]; M = $c["method"]; F = $c["family"]
	}
	{
		j = $c["k"] == 1 ? 0 : $c["k"] == 2 ? 1 : $c["k"] == 4 ? 2 : 3
		s[j] = $c["score"]; nz[j] = $c["noise"]
		f[j] = $c["guard"] + 0 <= $c["guard_max"] + 0
	}
	END {
		check()
		for (i = 1; i <= nl; i++) {
			L = order[i]
			if (nm[L] < mlo || nm[L] > mhi) printf "%s: %d methods\n", L, nm[L]
			# A near-tie: another near-tie method, or another k of
			# its own, 0.2 to 1.5% from its best.
			for (a = 1; a <= nt[L]; a++) {
				ok = 0
				for (b = 1; b <= nt[L]; b++)
					if (b != a && apart(top[L, a], top[L, b], 0.0015, 0.0155)) ok = 1
				for (j = 0; j < 4; j++)
					if (ts[L, a, j] != top[L, a] && apart(ts[L, a, j], top[L, a], 0.0015, 0.0155)) ok = 1
				if (!ok) printf "%s %s near-tie: no tie\n", L, who[L, a]
			}
		}
	}' "$1"
}

@test "landscape -t shapes: the same seed, the same bytes; another seed, others" {
	run -0 ar-sched landscape -t shapes -n 4 -s 11 -x sh
	[ "${lines[0]}" = "landscape	method	k	score	noise	guard	guard_max	cost_h	pfrac	hint	base_pfrac	family	base_shape" ]
	printf '%s\n' "$output" > a.tsv
	run -0 ar-sched landscape -t shapes -n 4 -s 11 -x sh
	[ "$output" = "$(cat a.tsv)" ]
	run -0 ar-sched landscape -t shapes -n 4 -s 12 -x sh
	[ "$output" != "$(cat a.tsv)" ]
	# A landscape is the same whatever -n says.
	run -0 ar-sched landscape -t shapes -n 2 -s 11 -x sh
	[ "$output" = "$(awk -F'\t' 'NR == 1 || $1 == "sh0000" || $1 == "sh0001"' a.tsv)" ]
	# The families recipe is still the default, the same bytes as -t families.
	[ "$(ar-sched landscape -n 2 -s 3)" = "$(ar-sched landscape -t families -n 2 -s 3)" ]
}

@test "landscape -t shapes: every shape in 20 landscapes of the default mix, 8 to 80 methods each, no hints" {
	ar-sched landscape -t shapes -n 20 -s 1 > l.tsv
	[ "$(awk -F'\t' 'NR > 1 { print $12 }' l.tsv | sort -u | tr '\n' ' ')" = "$SHAPES " ]
	[ "$(awk -F'\t' 'NR > 1 { print $13 }' l.tsv | sort -u | tr '\n' ' ')" = "amdahl logcomm superlinear usl " ]
	[ "$(awk -F'\t' 'NR > 1 { print $1 }' l.tsv | sort -u | wc -l)" -eq 20 ]
	# Method counts are drawn: not all the same.
	[ "$(awk -F'\t' 'NR > 1 && $3 == 1 { n[$1]++ } END { for (l in n) print n[l] }' l.tsv | sort -u | wc -l)" -gt 5 ]
	# No hint, pfrac or base_pfrac.
	[ "$(awk -F'\t' 'NR > 1 && $9 $10 $11 != ""' l.tsv | wc -l)" -eq 0 ]
	run -0 shape_check l.tsv
	[ "$output" = "" ]
}

@test "landscape -t shapes: every method has the shape it claims, under several mixes" {
	ar-sched landscape -t shapes -n 30 -s 2 -m 40-80 --mix near-tie=3,guard-trap4=1,guard-trap8=1,crash=1,plateau=1,dud=1 > t.tsv
	run -0 shape_check t.tsv
	[ "$output" = "" ]
	[ "$(awk -F'\t' 'NR > 1 && $12 == "near-tie"' t.tsv | wc -l)" -gt 1000 ]
	ar-sched landscape -t shapes -n 30 -s 3 -m 8-16 --mix usl-peak2=1,usl-peak4=1,usl-peak8=1,weak1-best4=1,weak1-best8=1,strong1-flat=1,strong1-fall=1,flat=1,noisy=1,amdahl=1 > p.tsv
	MLO=8 MHI=16 run -0 shape_check p.tsv
	[ "$output" = "" ]
	# The check itself sees a broken shape: a usl-peak4 whose peak moved.
	awk -F'\t' -v OFS='\t' '$12 == "usl-peak4" && $3 == 8 && !done { $4 = 9; done = 1 } 1' p.tsv > q.tsv
	run -0 shape_check q.tsv
	[ "$(printf '%s\n' "$output" | grep -c 'usl-peak4: no peak at 4$')" -eq 1 ]
}

@test "landscape -t shapes: costs differ between methods at one k; noise grows with k" {
	ar-sched landscape -t shapes -n 5 -s 4 -m 10 > c.tsv
	[ "$(awk -F'\t' 'NR > 1 && $3 == 1 { n[$1]++ } END { for (l in n) print n[l] }' c.tsv | sort -u)" = 10 ]
	# Every landscape has at least 5 costs at k=8 among its 10 methods.
	[ "$(awk -F'\t' 'NR > 1 && $3 == 8 { print $1, $8 }' c.tsv | sort -u |
	    awk '{ n[$1]++ } END { for (l in n) if (n[l] < 5) print l }')" = "" ]
	# The noise of a method at k=8 is never below its noise at k=1.
	[ "$(awk -F'\t' 'NR > 1 && $3 == 1 { n[$1 $2] = $5 } NR > 1 && $3 == 8 && $5 < n[$1 $2]' c.tsv)" = "" ]
}

@test "landscape -t shapes --hints: the share of landscapes with hints, pfrac and base_pfrac" {
	ar-sched landscape -t shapes -n 40 -s 5 -m 8-12 --hints 0.5 > h.tsv
	n=$(awk -F'\t' 'NR > 1 && $11 != "" { print $1 }' h.tsv | sort -u | wc -l)
	[ "$n" -ge 10 ] && [ "$n" -le 30 ]
	# Hints and pfrac only where base_pfrac is; values in range.
	[ "$(awk -F'\t' 'NR > 1 && $11 == "" && $9 $10 != ""' h.tsv | wc -l)" -eq 0 ]
	[ "$(awk -F'\t' 'NR > 1 && ($10 != "" && $10 != "scale" && $10 != "single" ||
	    $9 != "" && ($9 < 0 || $9 > 1) || $11 != "" && ($11 <= 0 || $11 > 1))' h.tsv | wc -l)" -eq 0 ]
	ar-sched landscape -t shapes -n 10 -s 5 -m 8 --hints 1 > a.tsv
	[ "$(awk -F'\t' 'NR > 1 && $11 == ""' a.tsv | wc -l)" -eq 0 ]
	ar-sched landscape -t shapes -n 10 -s 5 -m 8 --hints 0 > z.tsv
	[ "$(awk -F'\t' 'NR > 1 && $9 $10 $11 != ""' z.tsv | wc -l)" -eq 0 ]
}

@test "landscape -t shapes: usage errors" {
	run -64 ar-sched landscape -t bogus
	[ "$output" = "ar-sched: -t bogus: the recipes are families and shapes" ]
	for m in 0 9-8 1-1001 x 8- -3; do
		run -64 ar-sched landscape -t shapes -m "$m"
		[ "$output" = "ar-sched: -m $m: not a count from 1 to 1000, or a range lo-hi of such counts" ]
	done
	run -64 ar-sched landscape -t shapes --mix scaler=1
	[ "$output" = "ar-sched: --mix scaler=1: not shape=weight with a shape of ar-sched(1)'s -t shapes" ]
	run -64 ar-sched landscape -t shapes --mix dud=0,flat=0
	[ "$output" = "ar-sched: --mix dud=0,flat=0: every weight is 0" ]
	run -64 ar-sched landscape -t shapes --hints 1.5
	[ "$output" = "ar-sched: --hints 1.5: not a share from 0 to 1" ]
	run -64 ar-sched landscape --hints 0.5
	[ "$output" = "ar-sched: --hints 0.5: only with -t shapes (every family landscape has hints)" ]
}
