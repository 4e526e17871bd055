#!/bin/bash
# bench-lost-term.sh [-n trials] [-l loaders]: how often a TERM sent to
# a child just started is lost (run by hand, not by CI). A bash script
# that traps TERM starts a subshell that execs sleep, as ar-agent starts
# its agent, and TERMs it at once; a TERM that lands between the fork
# and the subshell's reset of the traps goes to the trap it inherited,
# and the sleep runs on. Counted once with one kill (as the scripts did
# before common.sh's stop_children), then with stop_children. loaders:
# busy loops beside it (default 3: a loaded 2-core machine).
# About 4 minutes at the default 1,000 trials.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
n=1000 loaders=3
while getopts n:l: c; do
	case $c in
	n) n=$OPTARG ;;
	l) loaders=$OPTARG ;;
	*) echo "usage: bench-lost-term.sh [-n trials] [-l loaders]" >&2; exit 64 ;;
	esac
done
prog=bench-lost-term ar_here=$top/scripts
. "$top/scripts/common.sh"
trap 'sig=TERM' TERM

busy=()
for _ in $(seq 1 "$loaders"); do
	sh -c 'while :; do :; done' &
	busy+=($!)
done
trap 'kill "${busy[@]}" 2>/dev/null || :' EXIT

# trial once|again: lost is one more when the child outlived its stop.
trial() {
	local p
	( : "/proc/$BASHPID/fd/"*; exec sleep 1000 ) &
	p=$!
	if [ "$1" = once ]; then
		kill -TERM "$p"
		# A TERM that is not lost ends the child well within a second.
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			our_child_runs "$p" || break
			sleep 0.1
		done
	else
		stop_children 5 "$p"
	fi
	if our_child_runs "$p"; then
		kill -KILL "$p"
		lost=$((lost + 1))
	fi
	wait "$p" 2>/dev/null || :
}

for how in once again; do
	lost=0
	for _ in $(seq 1 "$n"); do
		trial "$how"
	done
	printf '%s\t%d of %d children left running\n' "$how" "$lost" "$n"
done
