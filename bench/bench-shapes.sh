#!/bin/sh
# bench-shapes.sh [-t trials]: the model figures of issue 15, by hand (CI
# does not run it). bench/verdict-sim.c's rule of lib/stats.c, the rule of
# 8975a38 and the peers' rules, on the same samples: the tuning shapes and
# the check shapes (never tuned on) at CV 10%, no interference at CV 3% and
# 30%, and 8975a38 on its own 2-pair design (-B 2). SHAPES picks some of
# verdict-sim's -S values instead (e.g. SHAPES="periodic carry-decay").
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
sim=$top/build/bench/verdict-sim
echo "# command: sh bench/bench-shapes.sh -t $trials"
if [ -n "${SHAPES:-}" ]; then
	for shape in $SHAPES; do
		"$sim" -t "$trials" -S "$shape" -c 0.10
		echo
	done
	exit 0
fi
"$sim" -t "$trials" -S tune -c 0.10
echo
"$sim" -t "$trials" -S check -c 0.10
echo
"$sim" -t "$trials" -S none -c 0.03,0.30
echo
"$sim" -t "$trials" -S all -c 0.10 -B 2
