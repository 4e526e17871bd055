#!/bin/sh
# bench-shapes.sh [-t trials]: the verdict rule of today (lib/stats.c)
# and the peers' rules on the interference shapes of issue 15, in the
# model of bench/verdict-sim.c (-S): none, periodic (aligned with the
# AB/BA blocks), carryover (10% onto the next run; the method is not
# faster) and fading (a 3% gain for the first 64 pairs only). By hand;
# CI does not run it. Prints one table per shape; SHAPES picks some.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
trials=1000
while getopts t: c; do
	case $c in
	t) trials=$OPTARG ;;
	*) echo "usage: sh bench/bench-shapes.sh [-t trials]" >&2; exit 64 ;;
	esac
done
case $trials in *[!0-9]*|'') echo "bench-shapes: -t: a number" >&2; exit 64 ;; esac
make -s -C "$top" bench
echo "# command: sh bench/bench-shapes.sh -t $trials"
for shape in ${SHAPES:-none periodic carryover fading}; do
	"$top/build/bench/verdict-sim" -t "$trials" -S "$shape"
	echo
done
