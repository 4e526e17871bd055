#!/usr/bin/env bats
# scripts/demo (make demo, the README's first command): a whole campaign
# on the CPU, short here (workload tiny, 3 experiments), exits 0 and
# prints each of its parts; its table of results shows every kind of
# interval a result may have (two ends, one end, none) without failing.

bats_require_minimum_version 1.5.0
load common

setup() {
	ar_setup ar-loop
	BIN=$(dirname "$(command -v ar-ledger)")
	cd "$T"
}

teardown() {
	ar_unlock
	ar_teardown
}

@test "demo: a whole campaign, short, exits 0 and prints each part" {
	cd "$TOP"
	AR_DEMO_WORKLOAD=tiny AR_DEMO_EXPERIMENTS=3 AR_BIN=$BIN \
	    run --separate-stderr -0 scripts/demo "$T/d"
	for part in "ar-init: a campaign from problems/int8-matvec" \
	    "ar-loop: the whole campaign, until 3 experiments are measured" \
	    "the verified results, in the order measured" \
	    "ar-ledger verify: every signature" "done in "; do
		grep -q "^== $part" <<< "$stderr"
	done
	[ "$(head -n 1 <<< "$(sed -n '/^k	verdict	method	ratio	95% CI	why$/,$p' <<< "$output")")" = "k	verdict	method	ratio	95% CI	why" ]
	# The curves are named by their ideas' titles, not commits.
	titles=$(jq -r .title "$TOP/examples/agent/ideas.jsonl")
	n=0
	while IFS= read -r line; do
		name=${line% (*}
		grep -qxF "$name" <<< "$titles"
		n=$((n + 1))
	done < <(grep ' ratio vs k: ' <<< "$output")
	# A curve for each method measured; on a loaded machine the node's
	# A/A can fail, and then the 3 experiments are all A/As (no method
	# is measured on a node that is not quiet), so none.
	methods=$(sed -n '/^k	verdict	method	ratio	95% CI	why$/,/^where	id	problem$/p' <<< "$output" |
	    awk -F '\t' 'NR > 1 && $3 != "A/A" && $3 != "method" && NF >= 4' | wc -l)
	[ "$n" -ge 1 ] || [ "$methods" -eq 0 ]
	[ -s "$T/d/campaign/loop/digest.md" ]
	[ -s "$T/d/campaign/loop/curves.svg" ]
}

# A keep whose interval is only "above" has no ci_hi (ar-result(5)); a
# --stop-at result none. The demo's table failed on the first (jq:
# null * 1000) and so did make demo.
@test "demo: the results table, intervals of two ends, one end and none" {
	{
		echo '{"shape":{"k":1},"verdict":"inconclusive","aa":true,"ratio":{"median":1.0065,"ci_lo":0.7782,"ci_hi":1.2891},"why":"undecided"}'
		echo '{"shape":{"k":1},"verdict":"keep","method":{"commit":"deacb03babfa"},"ratio":{"median":5.8014,"ci_lo":3.7373,"ci_hi":null},"why":"480.14% better (CI above 273.74%)"}'
		echo '{"shape":{"k":2},"verdict":"discard","method":{"commit":"c541faf4aca4"},"ratio":{"median":0.5,"ci_lo":null,"ci_hi":0.61},"why":"slower"}'
		echo '{"shape":{"k":2},"verdict":"inconclusive","method":{"commit":"e662d28f1319"},"ratio":{"median":1.4586,"ci_lo":null,"ci_hi":null},"why":"stopped by --stop-at"}'
		echo '{"shape":{"k":1},"verdict":"invalid","method":{"commit":"abe3648a7b28"},"why":"gate bad == 0 failed"}'
	} > rows.jsonl
	run --separate-stderr -0 "$TOP/scripts/demo" --results-table < rows.jsonl
	[ "$output" = "k	verdict	method	ratio	95% CI	why
1	inconclusive	A/A	1.007	0.778-1.289	undecided
1	keep	deacb03	5.801	>= 3.737	480.14% better (CI above 273.74%)
2	discard	c541faf	0.5	<= 0.61	slower
2	inconclusive	e662d28	1.459		stopped by --stop-at
1	invalid	abe3648			gate bad == 0 failed" ]
}
