#!/bin/sh
# bench-append.sh [-l loose] [-r rounds] [BUILD...]: what one ar-ledger
# append of loose results costs beside LOOSE (default 640) results
# already loose, and the 17 x ROUNDS more it stores, by hand (CI does not run it). An append of 16 or fewer
# stores each result as a file and, since it checked them, adds them to
# ledger/loose.seal, which it reads, checks and writes again whole: that
# part grows with the results already loose. For each BUILD (default:
# build; give two to compare, as build /tmp/old/build) in turn, ROUNDS
# (default 20) appends of 1 result and of 16, on one campaign each: the
# median and the most, in milliseconds. TMPDIR says where the campaigns
# go. Exit status: 0, or 2 when a step failed.
set -eu
loose=640 rounds=20
while getopts l:r: c; do
	case $c in
	l) loose=$OPTARG ;;
	r) rounds=$OPTARG ;;
	*) echo "usage: sh bench/bench-append.sh [-l loose] [-r rounds] [build ...]" >&2; exit 64 ;;
	esac
done
shift $((OPTIND - 1))
case $loose$rounds in *[!0-9]*) echo "bench-append: -l and -r take counts" >&2; exit 64 ;; esac
[ $((loose + 17 * rounds)) -lt 1000 ] || { echo "bench-append: -l $loose -r $rounds: $((loose + 17 * rounds)) loose would reach the compaction (1,000)" >&2; exit 64; }
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
[ $# -gt 0 ] || set -- build
tbin=$top/build/tests
[ -x "$tbin/ar-sign-test" ] || { echo "bench-append: $tbin/ar-sign-test: not built (run make)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-append.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
die() {
	echo "bench-append: $*" >&2
	exit 2
}
first=1
for build in "$@"; do
	case $build in /*) ;; *) build=$top/$build ;; esac
	b=$build/bin
	[ -x "$b/ar-ledger" ] || die "$b/ar-ledger: not built"
	[ $first = 0 ] || machine "$b/ar-ledger"
	first=0
	C=$work/camp
	rm -rf "$C" "$work"/p.* "$work"/one.* "$work"/six.*
	"$b/ar-init" -p "$top/tests/fixtures/problem" "$C" > /dev/null || die "ar-init failed"
	"$tbin/ar-sign-test" -C "$C" -g $((loose + rounds * 17)) -s 5 > "$work/all.jsonl"
	# The results already loose, stored 16 at a time.
	head -n "$loose" "$work/all.jsonl" | split -l 16 - "$work/p."
	for f in "$work"/p.*; do
		"$b/ar-ledger" append -C "$C" "$f" 2> /dev/null || die "append failed"
	done
	tail -n $((rounds * 17)) "$work/all.jsonl" | head -n "$rounds" | split -l 1 -a 4 - "$work/one."
	tail -n $((rounds * 16)) "$work/all.jsonl" | split -l 16 -a 4 - "$work/six."
	# Each append timed alone; alternating sizes, so drift hits both.
	for f in "$work"/one.*; do
		g=$work/six.${f##*.}
		for x in "$f" "$g"; do
			t0=$(date +%s%N)
			"$b/ar-ledger" append -C "$C" "$x" 2> /dev/null || die "append failed"
			t1=$(date +%s%N)
			echo "$(basename "$x" | cut -c1-3) $(( (t1 - t0) / 1000 ))"
		done
	done | sort -k1,1 -k2,2n | awk -v build="$build" -v loose="$loose" '
	    { v[$1, ++n[$1]] = $2 }
	    END {
		for (k = 1; k <= 2; k++) {
			s = k == 1 ? "one" : "six"
			m = n[s]
			printf "%-44s %8.1f ms median, %8.1f most (%d appends of %d, %d to %d loose)\n",
			    build, v[s, int((m + 1) / 2)] / 1000, v[s, m] / 1000, m, k == 1 ? 1 : 16, loose, loose + 17 * m
		}
	    }'
done
