#!/bin/sh
# bench-queue.sh [BUILD]: measures ar-queue on this machine, by hand (CI
# does not run it). Put throughput (one process, then P processes), and
# claims per second of P concurrent claimers on N records, two ways:
#   (a) P processes of "ar-queue claim -n 100000": each claim inside is its
#       own rename(2) with its own lease; this is how ar-run claims;
#   (b) P shell loops of one "ar-queue claim" per process;
#   (c) P shell loops of one claim per process taking M records in all
#       from N + M, so that at least N records wait at every claim.
# The first put checks the names it stores (PRIO-ORDER-ID); each claim run
# checks that every record was claimed exactly once, and (c) that the M
# claimed are the M first in claim order.
# BUILD is the build directory (default: build). N (10000), P (32), M
# (2000) and TMPDIR (where the spools go; its filesystem matters) can be
# set. The one-process put is held against issue 16's target, at least
# 5,000 records/s in one batch: run it with TMPDIR on tmpfs and on a disk;
# (c) against issue 21's, at least 1,000 claims/s with 10,000 waiting.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
q=$build/bin/ar-queue
if [ ! -x "$q" ]; then
	echo "bench-queue: $q: not found (run make)" >&2
	exit 66
fi
N=${N:-10000}
P=${P:-32}
M=${M:-2000}
# Each of the P loops of (c) makes the same number of claims.
per=$((M / P))
[ "$per" -gt 0 ] || { echo "bench-queue: M=$M: less than one claim per loop (P=$P)" >&2; exit 64; }
M=$((per * P))
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-queue.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

now() {
	date +%s.%N
}

# Seconds between two "now" readings.
elapsed() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'
}

row() {
	awk -v m="$1" -v s="$2" -v n="$3" -v u="$4" \
	    'BEGIN { printf "%-46s %8.3f %10.0f %s\n", m, s, n / s, u }'
}

fail() {
	echo "bench-queue: $*" >&2
	exit 1
}

count() {
	ls "$1" | wc -l | tr -d ' '
}

# Checks that the claim outputs (-f tsv) in directory $2 name every record
# of spool $1 exactly once, and that all of them are in cur/.
check_once() {
	cat "$2"/* | grep -v '^state	' | cut -f 2 | sort >"$2.ids"
	got=$(wc -l <"$2.ids" | tr -d ' ')
	dups=$(uniq -d "$2.ids" | wc -l | tr -d ' ')
	[ "$got" -eq "$N" ] || fail "$2: $got claims printed, not $N"
	[ "$dups" -eq 0 ] || fail "$2: $dups records claimed twice"
	[ "$(count "$1/cur")" -eq "$N" ] || fail "$1/cur: not $N records"
	[ "$(count "$1/new")" -eq 0 ] || fail "$1/new: records left"
	echo "$got claimed, $dups twice"
}

echo "ar-queue benchmark: $N records, $P concurrent workers"
echo "machine: $(uname -m), $(nproc) CPUs, $(uname -sr)"
echo "build: $build ($("$q" --version))"
echo "spools: $work ($(stat -f -c %T "$work") filesystem)"
echo

seq 1 "$N" | awk 'BEGIN { print "n\ttitle" } { print $1 "\tidea " $1 }' \
    >"$work/in.tsv"
# The same records cut into P inputs, each with the header.
awk -v p="$P" -v d="$work" 'NR == 1 { h = $0; next }
	{ f = sprintf("%s/part.%d", d, (NR - 2) % p); if (!(f in seen)) {
	    print h > f; seen[f] = 1 } print > f }' "$work/in.tsv"

# Put: one process storing N records, each fsync'd and linked into new/.
"$q" init "$work/put1"
t0=$(now)
"$q" put "$work/put1" "$work/in.tsv" >"$work/put1.ids"
t1=$(now)
[ "$(wc -l <"$work/put1.ids")" -eq "$N" ] || fail "put printed too few ids"
[ "$(count "$work/put1/new")" -eq "$N" ] || fail "put stored too few records"
put1=$(elapsed "$t0" "$t1")
# Each record is stored as PRIO-ORDER-ID: PRIO 1000000 - priority, ORDER a
# time-ordered id made at put time, ID the id put printed.
ord='[0-9]{8}T[0-9]{6}\.[0-9]{6}Z-[0-9a-f]{16}'
ls "$work/put1/new" | sed -E "s/^1000000-$ord-//" | sort >"$work/put1.names"
sort "$work/put1.ids" | cmp -s - "$work/put1.names" ||
    fail "put1/new: names are not 1000000-ORDER-ID of the ids printed"

# Put: P processes at once, N records in all.
"$q" init "$work/putp"
t0=$(now)
for f in "$work"/part.*; do
	"$q" put "$work/putp" "$f" >"$f.ids" &
done
wait
t1=$(now)
[ "$(cat "$work"/part.*.ids | wc -l)" -eq "$N" ] || fail "puts printed too few ids"
[ "$(count "$work/putp/new")" -eq "$N" ] || fail "puts stored too few records"
putp=$(elapsed "$t0" "$t1")

# (a) P claimers, each claiming until new/ is empty in one process.
cp -R "$work/put1" "$work/a"
mkdir "$work/a.out"
t0=$(now)
i=1
while [ "$i" -le "$P" ]; do
	"$q" claim -f tsv -n 100000 -H "w$i" "$work/a" >"$work/a.out/$i" &
	i=$((i + 1))
done
wait
t1=$(now)
onceA=$(check_once "$work/a" "$work/a.out")
ca=$(elapsed "$t0" "$t1")

# (b) P shell loops, one claim per process, until claim exits 1.
cp -R "$work/put1" "$work/b"
mkdir "$work/b.out" "$work/b.rc"
t0=$(now)
i=1
while [ "$i" -le "$P" ]; do
	(
		while :; do
			"$q" claim -f tsv -H "l$i" "$work/b" >>"$work/b.out/$i" ||
			    { echo $? >"$work/b.rc/$i"; break; }
		done
	) &
	i=$((i + 1))
done
wait
t1=$(now)
[ "$(cat "$work"/b.rc/* | sort -u)" = 1 ] || fail "a claim loop ended with an error"
onceB=$(check_once "$work/b" "$work/b.out")
cb=$(elapsed "$t0" "$t1")

# (c) P shell loops of one claim per process, M claims in all, from N + M
# records: N wait at every claim.
cp -R "$work/put1" "$work/c"
seq 1 "$M" | awk -v n="$N" 'BEGIN { print "n\ttitle" } { print n + $1 "\tidea " n + $1 }' |
    "$q" put "$work/c" >/dev/null
ls "$work/c/new" | sort | head -n "$M" >"$work/c.first"
mkdir "$work/c.out" "$work/c.rc"
t0=$(now)
i=1
while [ "$i" -le "$P" ]; do
	(
		j=0
		while [ "$j" -lt "$per" ]; do
			"$q" claim -f tsv -H "c$i" "$work/c" >>"$work/c.out/$i" ||
			    { echo $? >"$work/c.rc/$i"; break; }
			j=$((j + 1))
		done
	) &
	i=$((i + 1))
done
wait
t1=$(now)
[ -z "$(ls "$work/c.rc")" ] || fail "(c): a claim failed"
cat "$work"/c.out/* | grep -v '^state	' | cut -f 2 | sort >"$work/c.ids"
[ "$(wc -l <"$work/c.ids")" -eq "$M" ] || fail "(c): not $M claims printed"
[ -z "$(uniq -d "$work/c.ids")" ] || fail "(c): a record claimed twice"
ls "$work/c/cur" | sed 's/@.*//' | sort | cmp -s - "$work/c.first" ||
    fail "(c): the records claimed are not the $M first in claim order"
[ "$(count "$work/c/new")" -eq "$N" ] || fail "(c): not $N records left"
cc=$(elapsed "$t0" "$t1")

printf '%-46s %8s %10s\n' method seconds "per second"
row "put, 1 process" "$put1" "$N" puts/s
row "put, $P processes" "$putp" "$N" puts/s
row "(a) claim -n 100000, $P processes" "$ca" "$N" claims/s
row "(b) claim, $P shell loops of 1 per process" "$cb" "$N" claims/s
row "(c) claim, 1 per process, $N waiting" "$cc" "$M" claims/s
echo
echo "exactly once: (a) $onceA; (b) $onceB; (c) $M claimed, 0 twice, the $M first"
awk -v n="$N" -v s="$put1" -v m="$M" -v c="$cc" -v fs="$(stat -f -c %T "$work")" 'BEGIN {
	r = n / s
	printf "put, one batch of %d records on %s: %.0f records/s (target >= 5000: %s)\n", n, fs, r, (r >= 5000 ? "met" : "MISSED")
	q = m / c
	printf "claim, one process per claim, %d waiting: %.0f claims/s (target >= 1000: %s)\n", n, q, (q >= 1000 ? "met" : "MISSED")
	exit (r < 5000 || q < 1000) }'
