#!/bin/sh
# bench/bench-elastic.sh [EXPERIMENTS] [AGENT_SECS]: the elastic loop
# (today's ar-loop: agents in the background, what they submit measured
# at once, backpressure in time) against the serial one of commit
# 8ad904d (plan, run every agent, then schedule and measure), on two
# fresh int8-matvec campaigns run AT THE SAME TIME, so that the machine's
# load is the same for both. The scripted planner and agent, the agent
# thinking AGENT_SECS (default 20) per idea as a real one takes minutes;
# decode-8m on the CPUs, -P 32 -T 10, EXPERIMENTS (default 30) each.
# Prints, per loop: wall seconds, the devices' idle share and the ideas'
# staleness (median and largest count of results an idea's author could
# not see when its method was measured), from ar-digest -f json.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
n=${1:-30}
secs=${2:-20}
bin=${AR_BIN:-$top/build/bin}
out=${BENCH_OUT:-$top/bench/out/elastic}
rm -rf "$out"
mkdir -p "$out/serial-scripts"
PATH=$bin:$top/scripts:$PATH
export PATH
machine "$bin/ar-bench"
echo "# $n experiments each, agents thinking $secs s, both loops at once"

# The serial loop as it was, beside today's helpers (same interface).
git -C "$top" show 8ad904d:scripts/ar-loop > "$out/serial-scripts/ar-loop"
cp "$top/scripts/common.sh" "$top/scripts/ar-plan" "$top/scripts/ar-agent" "$out/serial-scripts/"
chmod +x "$out/serial-scripts/ar-loop"

nosb=
bwrap --ro-bind / / --dev /dev --proc /proc true > /dev/null 2>&1 || nosb=--no-sandbox
for kind in elastic serial; do
	ar-init -k "$out/$kind-keys" -p "$top/problems/int8-matvec" "$out/$kind" > /dev/null
	echo 'sched.noise_max = 10' >> "$out/$kind/campaign.conf"
done

# Enough prepared ideas for the budget: the demo's variants in turn, each
# idea a distinct method (its title in a comment).
i=0
while [ "$i" -lt "$n" ]; do
	for v in fast threaded skiprows wrong; do
		i=$((i + 1))
		jq -cn --arg v "$v" --arg t "$v, take $i" '{title: $t, category: $v,
		    priority: 10, hint: (if $v == "threaded" then "scale" else "single" end),
		    variant: $v, distinct: true, hypothesis: "bench", sources: ["bench/bench-elastic.sh"]}'
	done
done > "$out/ideas.jsonl"
AR_PLANNER=$top/examples/agent/planner AR_AGENT=$top/examples/agent/agent \
AR_EXAMPLE_AGENT_SECS=$secs AR_EXAMPLE_IDEAS=$out/ideas.jsonl
export AR_PLANNER AR_AGENT AR_EXAMPLE_AGENT_SECS AR_EXAMPLE_IDEAS
run_loop() {
	t0=$(date +%s)
	# shellcheck disable=SC2086 # $nosb is one word or none.
	"$1" -C "$out/$2" --cpus -w decode-8m -a 2 --experiments "$n" $nosb \
	    -- -P 32 -T 10 -q $nosb 2> "$out/$2.log" || echo "# $2: ar-loop exited $?"
	echo $(($(date +%s) - t0)) > "$out/$2.secs"
}
run_loop "$top/scripts/ar-loop" elastic &
e=$!
run_loop "$out/serial-scripts/ar-loop" serial &
s=$!
wait "$e" "$s"

printf 'loop\twall_s\tresults\tidle_share\tstaleness_median\tstaleness_max\n'
for kind in elastic serial; do
	c=$out/$kind
	ar-ledger export -C "$c" -V -f tsv > "$out/$kind.tsv" 2> /dev/null
	ar-digest -C "$c" -l "$out/$kind.tsv" -i "$c/ideas" -q "$c/queue" -f json > "$out/$kind.json"
	jq -r --arg k "$kind" --arg w "$(cat "$out/$kind.secs")" \
	    --arg r "$(($(wc -l < "$out/$kind.tsv") - 1))" '
	    ([.staleness[]?.unseen_results] | sort) as $s
	    | [$k, $w, $r, (.devices.idle_share // ""),
	       (if ($s | length) > 0 then $s[($s | length) / 2 | floor] else "" end),
	       (if ($s | length) > 0 then $s[-1] else "" end)] | @tsv' "$out/$kind.json"
done
