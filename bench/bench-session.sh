#!/bin/sh
# bench-session.sh [-r reps] [-p pairs] [-P problem] [-M method]: the wall
# time of one whole ar-bench session on int8-matvec's tiny workload, by
# hand (CI does not run it): setup, build of both roles, pairs of runs
# and scores, the result. The method is examples/int8-matvec/fast, the
# pairs fixed (-p N -P N, no warm-up), in the sandbox where bwrap works.
# Prints each session's seconds and their median, best of reps.
#
#   -r reps     sessions (default 5)
#   -p pairs    pairs per session (default 8)
#   -P problem  the problem directory (default problems/int8-matvec)
#   -M method   the method directory (default examples/int8-matvec/fast)
#
# AR_BIN names the programs' directory (default build/bin): compare two
# builds by running it twice, each with its own problem and method where
# they differ.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
args="$*"
usage="usage: sh bench/bench-session.sh [-r reps] [-p pairs] [-P problem] [-M method]"
reps=5
pairs=8
prob=$top/problems/int8-matvec
meth=$top/examples/int8-matvec/fast
while getopts r:p:P:M: c; do
	case $c in
	r) reps=$OPTARG ;;
	p) pairs=$OPTARG ;;
	P) prob=$OPTARG ;;
	M) meth=$OPTARG ;;
	*) echo "$usage" >&2; exit 64 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { echo "$usage" >&2; exit 64; }
case $reps$pairs in
*[!0-9]*|'') echo "$usage" >&2; exit 64 ;;
esac
bin=${AR_BIN:-$top/build/bin}
case $bin in /*) ;; *) bin=$top/$bin ;; esac
for p in "$bin/ar-bench" "$bin/ar-init"; do
	[ -x "$p" ] || { echo "bench-session: $p: not built (run make)" >&2
	    exit 66; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-session.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' HUP INT TERM PIPE
"$bin/ar-init" -p "$prob" "$work/camp" > /dev/null
machine "$bin/ar-bench"
echo "# command: sh bench/bench-session.sh${args:+ $args} (AR_BIN=$bin)"
echo "# each: ar-bench -C CAMPAIGN -m $meth -w tiny -p $pairs -P $pairs -W 0 -q"
times=
i=0
while [ "$i" -lt "$reps" ]; do
	t0=$(date +%s.%N)
	"$bin/ar-bench" -C "$work/camp" -m "$meth" -w tiny -p "$pairs" \
	    -P "$pairs" -W 0 -q > "$work/r.json" 2> "$work/err" ||
	    { cat "$work/err" >&2; exit 1; }
	t1=$(date +%s.%N)
	t=$(awk -v a="$t0" -v z="$t1" 'BEGIN { printf "%.3f", z - a }')
	echo "session $((i + 1)): $t s, verdict $(jq -r .verdict "$work/r.json"), sandbox $(jq -r .sandbox "$work/r.json")"
	times="$times $t"
	i=$((i + 1))
done
echo "$times" | tr ' ' '\n' | sed '/^$/d' | sort -n |
    awk '{ v[NR] = $1 } END { printf "median %.3f s, best %.3f s over %d sessions\n",
        NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[1], NR }'
