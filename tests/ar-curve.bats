#!/usr/bin/env bats
# ar-curve: scale curves from a ledger export. Tests the seed's example
# (golden TSV and text, knee 4 and best feasible 4, a valid SVG), which
# rows are taken (signed and verified, -U, A/A and unsigned left out and
# counted), the latest result per k and its feasibility, the fits (none
# with one point, Amdahl from two, USL on a curve that turns down),
# predictions only at unmeasured k, -m and -l, malformed input (exit 65
# with the column or the line named), a missing file (66), usage errors
# (64), and one end-to-end run: ar-bench at k 1 and 2, ar-ledger export
# -V, ar-curve; a group whose rows lie apart, in any order or in two
# files, and 3000 groups shuffled (issue 21: rows summarized as read).

bats_require_minimum_version 1.5.0
load common

FIX="$BATS_TEST_DIRNAME/fixtures/curve"

H="id	signed	verified	method.hash	method.commit	workload	device	shape.k	verdict	pass.guardrails	aa	ratio.median	ratio.ci_lo	ratio.ci_hi	ratio.n"

setup() {
	ar_setup ar-curve
	USAGE="usage: ar-curve [-U] [-f tsv|jsonl] [-m metric] [-l] [-k list] [-i ideas] [--text] [--svg file] [file ...]"
	cd "$T"
}

teardown() {
	ar_teardown
}

# row ID K Y [VERDICT [GUARD [SIGNED [VERIFIED [AA [HASH [LO HI]]]]]]]:
# one row in the columns of $H; the interval is Y +- 0.02 unless given.
row() {
	local lo=${10:-} hi=${11:-}
	[ -n "$lo" ] || lo=$(awk -v y="$3" 'BEGIN { printf "%.4f", y - 0.02 }')
	[ -n "$hi" ] || hi=$(awk -v y="$3" 'BEGIN { printf "%.4f", y + 0.02 }')
	printf '%s\t%s\t%s\t%s\tc0ffee0000\tdecode\tcuda\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t40\n' \
	    "$1" "${6:-yes}" "${7:-yes}" "${9:-abc123}" "$2" "${4:-keep}" \
	    "${5:-true}" "${8:-false}" "$3" "$lo" "$hi"
}

# jl FILTER: a jq filter over the last run's stdout (JSON Lines), compact.
jl() {
	printf '%s\n' "$output" | jq -c "$@"
}

# ---- the seed's example ----

@test "ar-curve: the seed's example, golden TSV" {
	run --separate-stderr -0 ar-curve "$FIX/seed.tsv"
	[ "$stderr" = "" ]
	diff -u "$FIX/seed.out.tsv" <(printf '%s\n' "$output")
	# The same from standard input, and from "-".
	run -0 ar-curve < "$FIX/seed.tsv"
	diff -u "$FIX/seed.out.tsv" <(printf '%s\n' "$output")
	run -0 ar-curve - < "$FIX/seed.tsv"
	diff -u "$FIX/seed.out.tsv" <(printf '%s\n' "$output")
}

@test "ar-curve --text: the seed's example, golden text" {
	run -0 ar-curve --text "$FIX/seed.tsv"
	diff -u "$FIX/seed.out.txt" <(printf '%s\n' "$output")
	[[ "$output" == *"knee 4, best feasible 4 (1.240)"* ]]
}

@test "ar-curve -f jsonl: the seed's example answers knee 4, best feasible 4" {
	run -0 ar-curve -f jsonl "$FIX/seed.tsv"
	[ "${#lines[@]}" -eq 1 ]
	[ "$(jl '[.knee, .best_k, .best_score]')" = "[4,4,1.24]" ]
	[ "$(jl '[.method, .label, .workload, .device, .score]')" = '["abc123","c4nd1d4","decode","cuda","ratio"]' ]
	[ "$(jl '[.points[] | [.k, .score, .feasible, .verdict, .id, .n, .results]]')" = '[[1,0.98,true,"discard","r1",40,1],[2,1.11,true,"keep","r2",40,1],[4,1.24,true,"keep","r4",40,1],[8,1.25,false,"discard","r8",40,1]]' ]
	[ "$(jl '.fit.model')" = '"amdahl"' ]
	[ "$(jl '.fit.kappa')" = 0 ]
	[ "$(jl '.fit | [.k0, .s1]')" = "[1,0.98]" ]
	# Every k of the default -k list was measured: nothing predicted.
	[ "$(jl '.predicted')" = "[]" ]
	[ "$(jl '[.efficiency[].k]')" = "[1,2,4,8]" ]
	[ "$(jl '.efficiency[0].e')" = 1 ]
	# (1.11 / 0.98) / 2
	[ "$(jl '.efficiency[1].e * 10000 | round')" = 5663 ]
}

@test "ar-curve --svg: the seed's example and a second method, valid XML" {
	command -v xmllint >/dev/null 2>&1 ||
	    skip "xmllint (libxml2-utils) is not installed"
	{
		cat "$FIX/seed.tsv"
		row d1 1 0.88 discard true yes yes false def456
		row d2 2 0.92
		row d4 4 1.12 keep true yes yes false def456
		row d8 8 1.13 keep true yes yes false def456
	} > both.tsv
	sed -i '/^d2/s/abc123/def456/' both.tsv
	run --separate-stderr -0 ar-curve --svg "$T/c.svg" both.tsv
	diff -u "$FIX/seed.out.tsv" <(printf '%s\n' "$output" | grep -v def456)
	xmllint --noout "$T/c.svg"
	# No temporary file is left beside it.
	[ -z "$(ls -A "$T" | grep '^\.tmp-')" ]
	# The baseline dashed, one cross for the infeasible point, the knee
	# circled for each method, both in the legend.
	grep -q 'stroke-dasharray' "$T/c.svg"
	[ "$(grep -c '>infeasible<' "$T/c.svg")" -eq 1 ]
	[ "$(grep -c '>knee<' "$T/c.svg")" -eq 2 ]
	grep -q '>c4nd1d4<' "$T/c.svg"
	grep -q '>decode: knee 4, best 4<' "$T/c.svg"
	grep -q '>c0ffee0<' "$T/c.svg"
	grep -q '>decode: knee 4, best 8<' "$T/c.svg"
}

@test "ar-curve --svg: at most 8 groups drawn, the legend says how many more" {
	command -v xmllint >/dev/null 2>&1 ||
	    skip "xmllint (libxml2-utils) is not installed"
	{
		echo "$H"
		for m in 1 2 3 4 5 6 7 8 9 10; do
			row "a$m" 1 1.0 keep true yes yes false "m$m"
			row "b$m" 2 1.5 keep true yes yes false "m$m"
		done
	} > ten.tsv
	run -0 ar-curve --svg "$T/ten.svg" -f jsonl ten.tsv
	[ "${#lines[@]}" -eq 10 ]
	xmllint --noout "$T/ten.svg"
	grep -q '>and 2 more<' "$T/ten.svg"
	[ "$(grep -c '<polyline' "$T/ten.svg")" -eq 8 ]
}

# ---- which rows are taken ----

@test "ar-curve: unverified rows are left out unless -U, and counted" {
	{
		echo "$H"
		row r1 1 1.0
		row r2 2 1.5
		row r4 4 1.8 keep true yes no
	} > in.tsv
	run --separate-stderr -0 ar-curve -f jsonl in.tsv
	[ "$stderr" = "ar-curve: left out 0 unsigned rows, 1 not verified (export with ar-ledger export -V, or -U), 0 A/A; 0 rows without a score" ]
	[ "$(jl '[.points[].k]')" = "[1,2]" ]
	run --separate-stderr -0 ar-curve -U -f jsonl in.tsv
	[ "$stderr" = "" ]
	[ "$(jl '[.points[].k]')" = "[1,2,4]" ]
}

@test "ar-curve: an export without a verified column needs -U" {
	cut -f1-2,4- "$FIX/seed.tsv" > nov.tsv
	run --separate-stderr -0 ar-curve nov.tsv
	[ "$output" = "$(head -1 "$FIX/seed.out.tsv")" ]
	[ "$stderr" = "ar-curve: left out 0 unsigned rows, 4 not verified (export with ar-ledger export -V, or -U), 0 A/A; 0 rows without a score" ]
	run --separate-stderr -0 ar-curve -U nov.tsv
	diff -u "$FIX/seed.out.tsv" <(printf '%s\n' "$output")
}

@test "ar-curve: A/A and unsigned rows are left out, also with -U" {
	{
		cat "$FIX/seed.tsv"
		row u1 1 3.0 keep true no no
		row u16 16 3.0 keep true no no
		row a1 1 1.0 keep true yes yes true
		row a2 32 1.0 keep true yes yes true
		# A result without a score gives no point.
		printf 's1\tyes\tyes\tabc123\tc4nd1d4te0000\tdecode\tcuda\t64\tkeep\ttrue\tfalse\t\t\t\t\n'
	} > mixed.tsv
	run --separate-stderr -0 ar-curve mixed.tsv
	diff -u "$FIX/seed.out.tsv" <(printf '%s\n' "$output")
	[ "$stderr" = "ar-curve: left out 2 unsigned rows, 0 not verified, 2 A/A; 1 row without a score" ]
	run --separate-stderr -0 ar-curve -U mixed.tsv
	diff -u "$FIX/seed.out.tsv" <(printf '%s\n' "$output")
}

@test "ar-curve: cpu and cuda, and two workloads, are never one curve" {
	{
		cat "$FIX/seed.tsv"
		sed -n 's/\tcuda\t/\tcpu\t/p' "$FIX/seed.tsv"
		sed -n 's/\tdecode\t/\tprefill\t/p' "$FIX/seed.tsv"
	} > dev.tsv
	run -0 ar-curve -f jsonl dev.tsv
	[ "$(jl -s 'map([.workload, .device, (.points | length)])')" = '[["decode","cpu",4],["decode","cuda",4],["prefill","cuda",4]]' ]
}

@test "ar-curve: one point per k, the latest with a score; feasible as the latest says" {
	{
		echo "$H"
		row r1a 1 1.0
		row r1b 1 1.1
		row r2a 2 1.5
		row r2b 2 1.0 crash true
		row r4a 4 1.9 keep false
		row r4b 4 1.8
	} > latest.tsv
	# r2b crashed and has no score.
	sed -i '/^r2b/s/\t[0-9.]*\t[0-9.]*\t[0-9.]*\t40$/\t\t\t\t/' latest.tsv
	run --separate-stderr -0 ar-curve -f jsonl latest.tsv
	[ "$(jl '[.points[] | [.k, .score, .feasible, .id, .results, .verdict]]')" = '[[1,1.1,true,"r1b",2,"keep"],[2,1.5,false,"r2a",2,"keep"],[4,1.8,true,"r4b",2,"keep"]]' ]
	[ "$(jl '[.knee, .best_k]')" = "[4,4]" ]
}

# ---- fits ----

@test "ar-curve: one point has no fit and says so" {
	{ echo "$H"; row r1 2 1.3; } > one.tsv
	run -0 ar-curve -f jsonl one.tsv
	[ "$(jl .fit)" = '{"model":"none","why":"1 point: a fit needs two scales or more"}' ]
	[ "$(jl .predicted)" = "[]" ]
	[ "$(jl '[.knee, .best_k]')" = "[2,2]" ]
	run -0 ar-curve one.tsv
	[ "${lines[1]}" = "abc123	c0ffee0	decode	cuda	ratio	2	measured	1.3	1.28	1.32	40	yes	1	none					2	2" ]
	run -0 ar-curve --text one.tsv
	[ "${lines[0]}" = "c0ffee0 (abc123) decode cuda, ratio vs k: 1 point: a fit needs two scales or more" ]
}

@test "ar-curve: two points fit Amdahl's law" {
	{ echo "$H"; row r1 1 1.0; row r2 2 1.6; } > two.tsv
	run -0 ar-curve -f jsonl -k 4 two.tsv
	[ "$(jl '.fit | [.model, .why, .kappa, .kappa_se]')" = '["amdahl","Amdahl, anchored at k=1: 2 points",0,0]' ]
	# 1.6 = 2 / (1 + sigma): sigma = 0.25; at 4, 4 / 1.75.
	[ "$(jl '.fit.sigma * 1000 | round')" = 250 ]
	[ "$(jl '.predicted[0] | [.k, (.score * 1000 | round), (.ci_lo < .score), (.ci_hi > .score)]')" = "[4,2286,true,true]" ]
}

@test "ar-curve: a curve that turns down, with tight intervals, fits the USL" {
	run -0 ar-curve -f jsonl -k 32 "$FIX/usl.tsv"
	[ "$(jl '.fit.model')" = '"usl"' ]
	[ "$(jl '.fit.why')" = '"USL, anchored at k=1: 5 points, kappa 0.02 +- 9.9e-05"' ]
	# Made from sigma 0.05, kappa 0.02.
	[ "$(jl '.fit.sigma * 1000 | round')" = 50 ]
	[ "$(jl '.fit.kappa * 1000 | round')" = 20 ]
	[ "$(jl '.fit.kappa > 2 * .fit.kappa_se')" = true ]
	# The peak is at 8; past it the prediction keeps falling.
	[ "$(jl '[.knee, .best_k]')" = "[8,8]" ]
	[ "$(jl '.predicted[0] | [.k, (.score * 100 | round)]')" = "[32,143]" ]
	# The seed's four points, flat at the top, do not show kappa.
	run -0 ar-curve -f jsonl "$FIX/seed.tsv"
	[ "$(jl '.fit.why')" = "\"Amdahl, anchored at k=1: 4 points; USL's kappa is not above its noise\"" ]
}

@test "ar-curve -k: predictions only at k not measured" {
	run -0 ar-curve -f jsonl -k 1,3,4,16 "$FIX/seed.tsv"
	[ "$(jl '[.predicted[].k]')" = "[3,16]" ]
	[ "$(jl '[.predicted[] | .ci_lo < .score and .score < .ci_hi] | all')" = true ]
	run -0 ar-curve -k 1,3,4,16 "$FIX/seed.tsv"
	[ "${#lines[@]}" -eq 7 ]
	[ "$(printf '%s\n' "$output" | awk -F '\t' '$7 == "predicted" { print $6 }' | paste -sd,)" = "3,16" ]
	# A prediction has no n, feasible or efficiency.
	[ "$(printf '%s\n' "$output" | awk -F '\t' '$7 == "predicted" { print $11 "|" $12 "|" $13 }' | sort -u)" = "||" ]
	run -0 ar-curve --text -k 16 "$FIX/seed.tsv"
	[[ "${lines[5]}" == "  k=16 "*"  predicted" ]]
	# Without a fit, nothing is predicted.
	{ echo "$H"; row r1 1 1.0; } > one.tsv
	run -0 ar-curve -k 2,4 one.tsv
	[ "${#lines[@]}" -eq 2 ]
}

@test "ar-curve -m NAME -l: an absolute metric where lower is better" {
	{
		printf 'id\tsigned\tverified\tmethod.hash\tmethod.dir\tworkload\tdevice\tshape.k\tverdict\tpass.guardrails\tmetrics.p95_ms.median\tmetrics.p95_ms.ci_lo\tmetrics.p95_ms.ci_hi\tmetrics.p95_ms.n\tratio.median\n'
		printf 'm1\tyes\tyes\tfeed\t/x/methods/draft\tdecode\tcpu\t1\tkeep\ttrue\t10\t9.8\t10.2\t30\t1.0\n'
		printf 'm2\tyes\tyes\tfeed\t/x/methods/draft\tdecode\tcpu\t2\tkeep\ttrue\t6\t5.8\t6.2\t30\t1.6\n'
		printf 'm4\tyes\tyes\tfeed\t/x/methods/draft\tdecode\tcpu\t4\tkeep\ttrue\t5\t4.8\t5.2\t30\t2.0\n'
		printf 'm8\tyes\tyes\tfeed\t/x/methods/draft\tdecode\tcpu\t8\tkeep\ttrue\t4.9\t4.7\t5.1\t30\t2.1\n'
	} > lat.tsv
	run -0 ar-curve -m p95_ms -l -f jsonl lat.tsv
	[ "$(jl '[.label, .score, .knee, .best_k, .best_score]')" = '["draft","p95_ms",4,8,4.9]' ]
	[ "$(jl '[.points[] | [.score, .n]]')" = "[[10,30],[6,30],[5,30],[4.9,30]]" ]
	# Without -l, higher is better: 10 ms at k=1 is the best.
	run -0 ar-curve -m p95_ms -f jsonl lat.tsv
	[ "$(jl '[.knee, .best_k]')" = "[1,1]" ]
	run -0 ar-curve -m p95_ms -l lat.tsv
	[ "$(printf '%s\n' "${lines[1]}" | cut -f2,5,6,8-11,19,20)" = "draft	p95_ms	1	10	9.8	10.2	30	4	8" ]
	# The ratio, by default, from the same file.
	run -0 ar-curve -f jsonl lat.tsv
	[ "$(jl '[.score, .best_k]')" = '["ratio",8]' ]
	# A metric the export does not have.
	run --separate-stderr -65 ar-curve -m tok_s lat.tsv
	[ "$stderr" = "ar-curve: lat.tsv: no column metrics.tok_s.median" ]
}

@test "ar-curve: no feasible point leaves knee and best empty" {
	{ echo "$H"; row r1 1 1.0 crash; row r2 2 1.5 keep false; } > none.tsv
	run -0 ar-curve -f jsonl none.tsv
	[ "$(jl '[.knee, .best_k, .best_score]')" = "[null,null,null]" ]
	run -0 ar-curve none.tsv
	[ "$(printf '%s\n' "${lines[1]}" | cut -f12,19,20)" = "no		" ]
	run -0 ar-curve --text -k 2 none.tsv
	[ "${lines[3]}" = "  no feasible point" ]
}

# ---- bad input ----

@test "ar-curve: a missing column is named" {
	cut -f1-7,9- "$FIX/seed.tsv" | {
		run --separate-stderr -65 ar-curve
		[ "$output" = "" ]
		[ "$stderr" = "ar-curve: <stdin>: no column shape.k" ]
	}
	cut -f1-3,5- "$FIX/seed.tsv" > nohash.tsv
	run --separate-stderr -65 ar-curve nohash.tsv
	[ "$stderr" = "ar-curve: nohash.tsv: no column method.hash" ]
	run --separate-stderr -65 ar-curve < /dev/null
	[ "$stderr" = "ar-curve: <stdin>: empty input: no header line" ]
}

@test "ar-curve: NaN, negative, zero, infinite or garbage scores are refused with the line" {
	for v in nan NaN -1.2 0 inf 1e400 abc 0x1p0 "1.2 "; do
		sed "3s/	1\.11	/	$v	/" "$FIX/seed.tsv" > bad.tsv
		run --separate-stderr -65 ar-curve bad.tsv
		[ "$stderr" = "ar-curve: bad.tsv: line 3: ratio.median: \"$v\" is not a positive number" ]
		[ "$output" = "" ]
	done
	# An end of the interval, too.
	sed '4s/	1\.22	/	-0.5	/' "$FIX/seed.tsv" > bad.tsv
	run --separate-stderr -65 ar-curve bad.tsv
	[ "$stderr" = 'ar-curve: bad.tsv: line 4: ratio.ci_lo: "-0.5" is not a positive number' ]
	# A score outside its interval.
	sed '3s/	1\.09	/	1.12	/' "$FIX/seed.tsv" > bad.tsv
	run --separate-stderr -65 ar-curve bad.tsv
	[ "$stderr" = "ar-curve: bad.tsv: line 3: ratio.median lies outside its interval" ]
	# Left-out rows are not checked.
	{ cat "$FIX/seed.tsv"; row u1 1 nan keep true no no; } > ok.tsv
	run -0 ar-curve ok.tsv
}

@test "ar-curve: shape.k must be a whole number from 1" {
	for k in 0 -1 2.5 x 65537 ""; do
		awk -F '\t' -v OFS='\t' -v k="$k" 'NR == 3 { $8 = k } 1' \
		    "$FIX/seed.tsv" > bad.tsv
		run --separate-stderr -65 ar-curve bad.tsv
		[ "$stderr" = "ar-curve: bad.tsv: line 3: shape.k: \"$k\" is not a whole number from 1 to 65536" ]
	done
}

@test "ar-curve: a missing input file exits 66" {
	run --separate-stderr -66 ar-curve "$FIX/seed.tsv" "$T/nonexistent.tsv"
	[ "$output" = "" ]
	[ "$stderr" = "ar-curve: $T/nonexistent.tsv: No such file or directory" ]
	run --separate-stderr -66 ar-curve --svg "$T/no/such/dir/c.svg" "$FIX/seed.tsv"
}

@test "ar-curve: a full disk on standard output exits 74" {
	[ -c /dev/full ] || skip "no /dev/full"
	run --separate-stderr -74 sh -c 'ar-curve "$1" > /dev/full' sh "$FIX/seed.tsv"
	[ "$stderr" = "ar-curve: <stdout>: write failed: No space left on device" ]
}

@test "ar-curve --svg onto a FIFO writes into it, and leaves it a FIFO" {
	mkfifo "$T/p"
	# The reader ends at the end of what ar-curve writes: waited for,
	# not killed, so that it has copied all of it.
	timeout 20 cat "$T/p" > "$T/got" &
	reader=$!
	run -0 timeout 10 ar-curve --svg "$T/p" "$FIX/seed.tsv"
	local fifo=no
	[ -p "$T/p" ] && fifo=yes
	wait "$reader"
	[ "$fifo" = yes ]
	grep -q '</svg>' "$T/got"
}

@test "ar-curve: usage errors exit 64; -h and --version" {
	run --separate-stderr -0 ar-curve -h
	[ "$output" = "$USAGE" ]
	run --separate-stderr -0 ar-curve --help
	[ "$output" = "$USAGE" ]
	run --separate-stderr -0 ar-curve --version
	[ "$output" = "ar-curve $VERSION" ]
	run --separate-stderr -64 ar-curve -Z
	[ "${stderr##*$'\n'}" = "$USAGE" ]
	run --separate-stderr -64 ar-curve --svg
	run --separate-stderr -64 ar-curve -f xml "$FIX/seed.tsv"
	[ "$stderr" = "ar-curve: -f xml: the formats are tsv and jsonl" ]
	run --separate-stderr -64 ar-curve -k '' "$FIX/seed.tsv"
	[ "$stderr" = "ar-curve: -k: no k given" ]
	for l in 0 x 1,,2 1,65537 -1 2, ' 2'; do
		run --separate-stderr -64 ar-curve -k "$l" "$FIX/seed.tsv"
		[ "$stderr" = "ar-curve: -k $l: not a list of k like 1,2,4,8" ]
	done
	run --separate-stderr -64 ar-curve -k "$(seq -s, 1 65)" "$FIX/seed.tsv"
	[ "$output" = "" ]
}

# ---- end to end ----

@test "ar-curve: ar-bench at k 1 and 2, ar-ledger export -V, one curve" {
	BFIX=$BATS_TEST_DIRNAME/fixtures/bench
	export TMPDIR=$T
	mkcamp -p "$BFIX/toy"
	for k in 1 2; do
		run --separate-stderr -0 ar-bench -C camp --no-sandbox -a -W 0 \
		    -p 2 -P 2 -k "$k" -m "$BFIX/toy-methods/fast"
	done
	ar-ledger export -C camp -V -f tsv > ex.tsv
	run --separate-stderr -0 ar-curve -f jsonl ex.tsv
	[ "$stderr" = "" ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$(jl '[.points[].k]')" = "[1,2]" ]
	[ "$(jl '[.device, .label, .score, .fit.model]')" = '["cpu","fast","ratio","amdahl"]' ]
	[ "$(jl '[.points[].results]')" = "[1,1]" ]
	[ "$(jl '.best_k | . == 1 or . == 2')" = true ]
	# Without -V there is no verified column: nothing is taken.
	ar-ledger export -C camp -f tsv > nov.tsv
	run --separate-stderr -0 ar-curve nov.tsv
	[ "${#lines[@]}" -eq 1 ]
	[[ "$stderr" == *"2 not verified"* ]]
	run --separate-stderr -0 ar-curve -U -f jsonl nov.tsv
	[ "$(jl '[.points[].k]')" = "[1,2]" ]
}

# split: two groups' rows interleaved and out of order, a third group on
# another device; a crash as the latest at one k, an older id after a
# newer one at another (issue 21: rows are summarized as they stream).
split() {
	{
		echo "$H"
		printf '%s\n' \
		    "r05	yes	yes	h1	cA1aaaaaaa	w	cuda	2	keep	true	false	1.8	1.7	1.9	10" \
		    "r01	yes	yes	h2	cBbbbbbbbb	w	cuda	1	keep	true	false	1.0	0.9	1.1	5" \
		    "r03	yes	yes	h1	cA0aaaaaaa	w	cuda	1	keep	true	false	1.0	0.95	1.05	20" \
		    "r09	yes	yes	h1	cA2aaaaaaa	w	cuda	2	keep	true	false	1.9	1.85	1.95	30" \
		    "r07	yes	yes	h2	cBbbbbbbbb	w	cuda	2	keep	true	false	1.5	1.4	1.6	6" \
		    "r10	yes	yes	h1	cA3aaaaaaa	w	cuda	2	crash	true	false				" \
		    "r02	yes	yes	h2	cBbbbbbbbb	w	cuda	1	keep	true	false	1.1	1.0	1.2	7" \
		    "r04	yes	yes	h1	cA4aaaaaaa	w	cuda	4	keep	false	false	3.0	2.9	3.1	8" \
		    "r00	yes	yes	h1	cA5aaaaaaa	w	cuda	4	keep	true	false	2.0	1.9	2.1	9" \
		    "r06	yes	yes	h1	cA6aaaaaaa	w	cpu	4	keep	true	false	2.2	2.1	2.3	11"
	} > "$T/s.tsv"
}

@test "ar-curve: a group's rows apart and out of order make one curve, the same in any order" {
	split
	run --separate-stderr -0 ar-curve -k 8 "$T/s.tsv"
	[ "$stderr" = "ar-curve: left out 0 unsigned rows, 0 not verified, 0 A/A; 1 row without a score" ]
	# The label is the first row's (least k, then id): r03's; each k's
	# point the latest scored row's; feasible as the latest row says
	# (r10, a crash, at k 2; r04, infeasible, at k 4).
	[ "$output" = "method	label	workload	device	score	k	source	value	ci_lo	ci_hi	n	feasible	efficiency	model	sigma	sigma_se	kappa	kappa_se	knee	best_k
h1	cA6aaaa	w	cpu	ratio	4	measured	2.2	2.1	2.3	11	yes	1	none					4	4
h1	cA0aaaa	w	cuda	ratio	1	measured	1	0.95	1.05	20	yes	1	amdahl	0.100084	0.00651637	0	0	1	1
h1	cA0aaaa	w	cuda	ratio	2	measured	1.9	1.85	1.95	30	no	0.95	amdahl	0.100084	0.00651637	0	0	1	1
h1	cA0aaaa	w	cuda	ratio	4	measured	3	2.9	3.1	8	no	0.75	amdahl	0.100084	0.00651637	0	0	1	1
h1	cA0aaaa	w	cuda	ratio	8	predicted	4.70426	4.36296	5.04557				amdahl	0.100084	0.00651637	0	0	1	1
h2	cBbbbbb	w	cuda	ratio	1	measured	1.1	1	1.2	7	yes	1	amdahl	0.466667	0.0498875	0	0	2	2
h2	cBbbbbb	w	cuda	ratio	2	measured	1.5	1.4	1.6	6	yes	0.681818	amdahl	0.466667	0.0498875	0	0	2	2
h2	cBbbbbb	w	cuda	ratio	8	predicted	2.0625	1.68221	2.44279				amdahl	0.466667	0.0498875	0	0	2	2" ]
	want=$output
	run --separate-stderr -0 ar-curve -f jsonl -k 8 "$T/s.tsv"
	[ "$(jl '[.method, .device, .label, [.points[] | [.k, .score, .n, .results, .feasible, .verdict, .id]]]')" = '["h1","cpu","cA6aaaa",[[4,2.2,11,1,true,"keep","r06"]]]
["h1","cuda","cA0aaaa",[[1,1,20,1,true,"keep","r03"],[2,1.9,30,3,false,"keep","r09"],[4,3,8,2,false,"keep","r04"]]]
["h2","cuda","cBbbbbb",[[1,1.1,7,2,true,"keep","r02"],[2,1.5,6,1,true,"keep","r07"]]]' ]
	# Reversed, and cut in two files: the same curves.
	{ head -n 1 "$T/s.tsv"; tail -n +2 "$T/s.tsv" | tac; } > "$T/r.tsv"
	run --separate-stderr -0 ar-curve -k 8 "$T/r.tsv"
	[ "$output" = "$want" ]
	head -n 6 "$T/s.tsv" > "$T/a.tsv"
	{ head -n 1 "$T/s.tsv"; tail -n +7 "$T/s.tsv"; } > "$T/b.tsv"
	run --separate-stderr -0 ar-curve -k 8 "$T/b.tsv" "$T/a.tsv"
	[ "$output" = "$want" ]
}

@test "ar-curve: 3000 groups shuffled give the curves of the sorted export" {
	awk -v h="$H" 'BEGIN { OFS = "\t"; print h
		for (m = 0; m < 3000; m++)
			for (k = 1; k <= 4; k *= 2)
				printf "r%05d%d\tyes\tyes\th%d\tc%d\tw%d\tcuda\t%d\tkeep\ttrue\tfalse\t%.3f\t%.3f\t%.3f\t%d\n",
				    m, k, m, m, m % 3, k, k * (1 + m % 7 / 10), k * (1 + m % 7 / 10) - 0.01, k * (1 + m % 7 / 10) + 0.01, m
	}' > "$T/sorted.tsv"
	{ head -n 1 "$T/sorted.tsv"; tail -n +2 "$T/sorted.tsv" | awk 'BEGIN { srand(7) } { print rand() "\t" $0 }' | sort | cut -f 2-; } > "$T/shuffled.tsv"
	run --separate-stderr -0 ar-curve -f jsonl "$T/sorted.tsv"
	want=$output
	[ "$(jl '.method' | wc -l)" -eq 3000 ]
	[ "$(jl '.points | length' | sort -u)" = 3 ]
	run --separate-stderr -0 ar-curve -f jsonl "$T/shuffled.tsv"
	[ "$output" = "$want" ]
	# The TSV, made by a thread a core in chunks of groups, the same.
	run --separate-stderr -0 ar-curve "$T/sorted.tsv"
	want=$output
	[ "${#lines[@]}" -eq $((1 + 3000 * 3 + 3000)) ]
	run --separate-stderr -0 ar-curve "$T/shuffled.tsv"
	[ "$output" = "$want" ]
	# One thread (no reader thread, one formatter) and many: the same.
	AR_THREADS=1 run --separate-stderr -0 ar-curve "$T/shuffled.tsv"
	[ "$output" = "$want" ]
	AR_THREADS=7 run --separate-stderr -0 ar-curve "$T/shuffled.tsv"
	[ "$output" = "$want" ]
}

@test "ar-curve: the latest and the first row of a k hold across the batches rows are read and folded in" {
	# 5000 rows of one group at k 1, their ids out of order, among
	# 5000 rows of 2500 other groups: many batches (1024 rows are
	# handed from the reading thread to the folding one, folded 64 at a
	# time). Id 5000, the latest, comes as rows 3000 and 3070, with
	# another score: the later wins. Id 1 comes as rows 1100 and 1180:
	# the earlier names the label. Each pair lies in one batch and two
	# windows, so a fold out of order in either shows.
	awk 'BEGIN { srand(11)
		for (i = 2; i < 5000; i++)
			printf "%.6f\t%06d\tyes\tyes\tabc123\tc%06d\tdecode\tcuda\t1\tkeep\ttrue\tfalse\t%.4f\t%.4f\t%.4f\t%d\n",
			    rand(), i, i, 1 + i / 10000, 1 + i / 10000, 1 + i / 10000, i
		for (m = 0; m < 2500; m++)
			for (k = 1; k <= 2; k++)
				printf "%.6f\tf%05d%d\tyes\tyes\th%d\tc%d\tw\tcuda\t%d\tkeep\ttrue\tfalse\t%d\t%d\t%d\t40\n",
				    rand(), m, k, m, m, k, k, k, k
	}' | sort | cut -f 2- > "$T/body.tsv"
	{
		printf '%s\n' "$H"
		awk -v h="$H" 'BEGIN {
			r = "\tyes\tyes\tabc123\t%s\tdecode\tcuda\t1\tkeep\ttrue\tfalse\t%s\t%s\t%s\t%s\n"
			at[1100] = sprintf("000001" r, "d000001", 1.0, 1.0, 1.0, 1)
			at[1180] = sprintf("000001" r, "e000001", 1.1, 1.1, 1.1, 2)
			at[3000] = sprintf("005000" r, "c005000", 2.5, 2.5, 2.5, 7)
			at[3070] = sprintf("005000" r, "c005000", 3.5, 3.5, 3.5, 9)
		}
		{
			for (n++; n in at; n++)
				printf "%s", at[n]
			print
		}' "$T/body.tsv"
	} > "$T/one.tsv"
	[ "$(sed -n 1101p "$T/one.tsv" | cut -f 1,5)" = "$(printf '000001\td000001')" ]
	[ "$(sed -n 3071p "$T/one.tsv" | cut -f 1,12)" = "$(printf '005000\t3.5')" ]
	[ "$(wc -l < "$T/one.tsv")" -eq 10003 ]
	run --separate-stderr -0 ar-curve -f jsonl "$T/one.tsv"
	[ "$(jl 'select(.method == "abc123") | [.label, .points[0].id, .points[0].score, .points[0].n, .points[0].results]')" = '["d000001","005000",3.5,9,5002]' ]
	[ "$(jl '.method' | wc -l)" -eq 2501 ]
	methods=$(jl -r '.method')
	# The TSV, made by a thread a core, in the same order as jsonl's:
	# one line for abc123 (one point, no fit), four for each other.
	run --separate-stderr -0 ar-curve "$T/one.tsv"
	[ "${#lines[@]}" -eq $((1 + 1 + 2500 * 4)) ]
	[ "$(printf '%s\n' "${lines[@]:1}" | cut -f 1 | uniq)" = "$methods" ]
	[ "$(printf '%s\n' "${lines[1]}" | cut -f 2,8,11)" = "$(printf 'd000001\t3.5\t9')" ]
}

@test "ar-curve: a tab inside a name never joins two groups" {
	{
		echo "$H"
		printf 'a\tyes\tyes\tm\\tx\tc0\tw\tcuda\t1\tkeep\ttrue\tfalse\t1.5\t1.4\t1.6\t1\n'
		printf 'b\tyes\tyes\tm\tc1\tx\\tw\tcuda\t1\tkeep\ttrue\tfalse\t1.2\t1.1\t1.3\t1\n'
	} > "$T/tab.tsv"
	run --separate-stderr -0 ar-curve -f jsonl "$T/tab.tsv"
	[ "$(jl '[.method, .workload, .label, .points[0].id]')" = '["m","x\tw","c1","b"]
["m\tx","w","c0","a"]' ]
}

# Issue 18, the pictures: ticks a reader can add up, a y-axis label that
# says which way is better, text from the data escaped.

# mticks V...: one method's metric x at k 1, 2, 4, ... (no interval);
# prints the labels of the y grid and the y-axis label.
mticks() {
	local k=1 v
	printf 'id\tsigned\tverified\tmethod.hash\tworkload\tdevice\tshape.k\tverdict\tmetrics.x.median\n' > "$T/m.tsv"
	for v in "$@"; do
		printf 'r%s\tyes\tyes\tm\tw\tcuda\t%s\tkeep\t%s\n' "$k" "$k" "$v" >> "$T/m.tsv"
		k=$((k * 2))
	done
	ar-curve -m x ${LOWER:+-l} --svg "$T/m.svg" "$T/m.tsv" > /dev/null
	xmllint --noout "$T/m.svg"
	grep 'stroke="#ddd"' "$T/m.svg" | sed 's/.*">\(.*\)<\/text>/\1/' | paste -sd ' '
	grep -o 'rotate(-90 [^>]*>[^<]*' "$T/m.svg" | sed 's/.*>//'
}

@test "ar-curve --svg: y ticks at 1, 2 or 5 times a power of ten, for tiny, huge and single values" {
	command -v xmllint >/dev/null 2>&1 ||
	    skip "xmllint (libxml2-utils) is not installed"
	run -0 mticks 0.9 1.3
	[ "${lines[0]}" = "0.8 0.9 1.0 1.1 1.2 1.3 1.4" ]
	[ "${lines[1]}" = "x (higher is better)" ]
	run -0 mticks 0.127 2.77 5.42
	[ "${lines[0]}" = "0 2 4 6" ]
	run -0 mticks 1.2e-7 3.1e-7
	[ "${lines[0]}" = "1e-07 1.5e-07 2e-07 2.5e-07 3e-07 3.5e-07" ]
	run -0 mticks 2.1e9 8.3e9
	[ "${lines[0]}" = "0 2e+09 4e+09 6e+09 8e+09 1e+10" ]
	run -0 mticks 123456 123789
	[ "${lines[0]}" = "123400 123500 123600 123700 123800 123900" ]
	# A single point: a span around it, still nice.
	run -0 mticks 5
	[ "${lines[0]}" = "4.4 4.6 4.8 5.0 5.2 5.4 5.6" ]
	LOWER=1 run -0 mticks 5 4
	[ "${lines[1]}" = "x (lower is better)" ]
}

@test "ar-curve --svg: the ratio's axis is labelled, higher is better; the baseline tick is 1.0" {
	command -v xmllint >/dev/null 2>&1 ||
	    skip "xmllint (libxml2-utils) is not installed"
	run -0 ar-curve --svg "$T/c.svg" "$FIX/seed.tsv"
	xmllint --noout "$T/c.svg"
	grep -q '>ratio to baseline (higher is better)</text>' "$T/c.svg"
	grep -q 'text-anchor="end">1.0</text>' "$T/c.svg"
	grep -q '>k, GPUs (or CPUs) of the bundle, log scale</text>' "$T/c.svg"
	# Same input, same bytes.
	ar-curve --svg "$T/d.svg" "$FIX/seed.tsv" > /dev/null
	cmp "$T/c.svg" "$T/d.svg"
}

@test "ar-curve --svg: hostile names are escaped, the picture stays XML" {
	command -v xmllint >/dev/null 2>&1 ||
	    skip "xmllint (libxml2-utils) is not installed"
	{
		echo "$H"
		row a1 1 1.0
		row a2 2 1.4
	} | sed 's/c0ffee0000/<scrip/; s/decode/]]><script>alert(1)<\/script>\&/' > "$T/evil.tsv"
	# A control character in a name: a space in the picture.
	printf 'a3\tyes\tyes\tabc123\t<scrip\tx\001y\tcuda\t1\tkeep\ttrue\tfalse\t1.1\t1.0\t1.2\t40\n' >> "$T/evil.tsv"
	run -0 ar-curve --svg "$T/e.svg" "$T/evil.tsv"
	xmllint --noout "$T/e.svg"
	[ "$(grep -ci '<script' "$T/e.svg")" -eq 0 ]
	[ "$(grep -c ']]>' "$T/e.svg")" -eq 0 ]
	grep -q '>&lt;scrip<' "$T/e.svg"
	grep -q '&lt;script&gt;' "$T/e.svg"
}

@test "ar-curve -i: curves named by their ideas' titles (escaped), read from the ideas spool; others keep their label" {
	{
		printf 'id\tsigned\tverified\tmethod.hash\tmethod.commit\tworkload\tdevice\tshape.k\tverdict\tratio.median\tidea\n'
		printf 'r1\tyes\tyes\th1\tc1aaaaaaaa\tw\tcuda\t1\tkeep\t1.2\ti-1\n'
		printf 'r2\tyes\tyes\th1\tc1aaaaaaaa\tw\tcuda\t2\tkeep\t1.9\ti-1\n'
		printf 'r3\tyes\tyes\th2\tc2bbbbbbbb\tw\tcuda\t1\tkeep\t1.1\ti-2\n'
		printf 'r4\tyes\tyes\th3\tc3cccccccc\tw\tcuda\t1\tkeep\t1.0\ti-9\n'
		printf 'r5\tyes\tyes\th4\tc4dddddddd\tw\tcuda\t1\tkeep\t0.9\t\n'
	} > "$T/p.tsv"
	ar-queue init "$T/ideas"
	printf '%s\n' '{"id": "i-1", "title": "four rows <at> a time"}' \
	    '{"id": "i-2", "title": "prefetch\tthe weights"}' '{"id": "i-3", "title": "unused"}' > "$T/i.jsonl"
	ar-queue put -f jsonl "$T/ideas" "$T/i.jsonl" > /dev/null
	ar-queue claim -H me -n 1 "$T/ideas" > /dev/null
	ar-queue done -H me "$T/ideas" i-1
	run --separate-stderr -0 ar-curve -i "$T/ideas" --svg "$T/c.svg" "$T/p.tsv"
	[ "$(tail -n +2 <<< "$output" | cut -f1,2 | sort -u)" = "h1	four rows <at> a time
h2	prefetch\\tthe weights
h3	c3ccccc
h4	c4ddddd" ]
	grep -q '>four rows &lt;at&gt; a time<' "$T/c.svg"
	# Without -i, the commits.
	run --separate-stderr -0 ar-curve "$T/p.tsv"
	[ "$(cut -f2 <<< "$output" | sort -u | tr '\n' ' ')" = "c1aaaaa c2bbbbb c3ccccc c4ddddd label " ]
	# Not a spool: exit 66, one line.
	run --separate-stderr -66 ar-curve -i "$T/nothere" "$T/p.tsv"
	[ "$stderr" = "ar-curve: $T/nothere: not a spool (-i)" ]
}
