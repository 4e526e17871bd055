#!/usr/bin/env bats
# ar-queue-stress.bats: ar-queue(1) under load, a stress test of `make
# check-stress`: 32 processes claiming from 10,000 records and 16 shell
# loops of one claim a process (once while records are put), each record
# taken exactly once; put and claim killed with SIGKILL at random
# instants, 200 rounds, and no record lost, duplicated or corrupted. The rest of ar-queue's tests are in
# tests/ar-queue.bats.

bats_require_minimum_version 1.5.0
load ../common

setup() {
	ar_queue_setup
}

teardown() {
	ar_teardown
}

# Checks that the claim outputs $@ (-f tsv) name the n records r00001...
# each exactly once, that each is in cur/ under the holder that printed it,
# and that new/ is empty.
exactly_once() {
	local n=$1
	shift
	cat "$@" | grep -v '^state	' | cut -f 2,4 | sort >claimed
	[ "$(wc -l <claimed)" -eq "$n" ]
	same "$(cut -f 1 claimed | uniq -d)" ""
	same "$(cut -f 1 claimed)" "$(seq -f 'r%05g' 1 "$n")"
	[ "$(count cur)" -eq "$n" ]
	[ "$(count new)" -eq 0 ]
	same "$(names cur | sed 's/^1000000-\([^@]*\)@[0-9]*@\(.*\)/\1	\2/' | sort)" "$(cat claimed)"
}

@test "claim: 32 processes claiming -n 100000 from 10,000 records take each exactly once" {
	make_records 10000
	pids=
	for w in $(seq 1 32); do
		ar-queue claim -f tsv -n 100000 -H "w$w" "$S" >"c$w.out" 2>"c$w.err" &
		pids="$pids $!"
	done
	for p in $pids; do
		rc=0
		wait "$p" || rc=$?
		[ "$rc" -le 1 ]
	done
	same "$(cat c*.err)" ""
	exactly_once 10000 c*.out
}

@test "claim: 16 shell loops of one claim per process over 300 records take each exactly once" {
	make_records 300
	for w in $(seq 1 16); do
		(
			while :; do
				ar-queue claim -f tsv -H "l$w" "$S" >>"l$w.out" 2>>"l$w.err" ||
				    { echo $? >"l$w.rc"; break; }
			done
		) &
	done
	wait
	same "$(cat l*.rc | sort -u)" 1
	same "$(cat l*.err)" ""
	exactly_once 300 l*.out
}

@test "claim: 16 shell loops of one claim per process over 2,000 records, while 200 more are put, take each exactly once" {
	make_records 2000
	seq -f 'p%03g' 1 200 | awk 'BEGIN { print "id\tpriority" } { print $1 "\t5" }' >high
	(
		for k in $(seq 0 9); do
			{ head -n 1 high; sed -n "$((k * 20 + 2)),$((k * 20 + 21))p" high; } >"high.$k"
			ar-queue put "$S" "high.$k" >/dev/null 2>>put.err
		done
		: >put.done
	) &
	for w in $(seq 1 16); do
		(
			while :; do
				rc=0
				ar-queue claim -f tsv -H "l$w" "$S" >>"l$w.out" 2>>"l$w.err" || rc=$?
				if [ "$rc" -ne 0 ]; then
					[ "$rc" -eq 1 ] || echo "$rc" >>"l$w.rc"
					[ -e put.done ] && break
				fi
			done
		) &
	done
	wait
	same "$(cat put.err l*.err)" ""
	[ -z "$(cat l*.rc 2>/dev/null)" ]
	# What a loop left when the last put ended after its last claim.
	rc=0
	ar-queue claim -f tsv -n 100000 -H final "$S" >final.out || rc=$?
	[ "$rc" -le 1 ]
	cat l*.out final.out | grep -v '^state	' | cut -f 2 | sort >claimed
	same "$(uniq -d claimed)" ""
	same "$(cat claimed)" "$({ seq -f 'p%03g' 1 200; seq -f 'r%05g' 1 2000; } | sort)"
	[ "$(count cur)" -eq 2200 ]
	[ "$(count new)" -eq 0 ]
}

# --- crash safety -----------------------------------------------------------

@test "kill -9 at random instants of put and claim (200 rounds): nothing lost, duplicated or corrupt" {
	need_jq
	{ printf 'n\tpayload\n'; for i in $(seq 1 20); do printf '%d\tpayload %d: tab\\tand\\\\slash\n' "$i" "$i"; done; } >in20
	mid=0
	for r in $(seq 1 200); do
		# Made here: a kill that comes before the shell opens the
		# redirection would leave none.
		: >"put.$r"
		: >"claim.$r"
		ar-queue put "$S" in20 >>"put.$r" 2>>errors &
		p=$!
		# Odd rounds claim one by one, through the hint; even ones
		# five at a time.
		if [ $((r % 2)) -eq 1 ]; then
			ar-queue claim -H "k$r" "$S" >>"claim.$r" 2>>errors &
		else
			ar-queue claim -n 5 -H "k$r" "$S" >>"claim.$r" 2>>errors &
		fi
		c=$!
		printf -v d '0.%03d' $((RANDOM % 21))
		sleep "$d"
		kill -9 "$p" 2>/dev/null || true
		printf -v d '0.%03d' $((RANDOM % 6))
		sleep "$d"
		kill -9 "$c" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
		wait "$c" 2>/dev/null || true
		n=$(wc -l <"put.$r")
		if [ "$n" -gt 0 ] && [ "$n" -lt 20 ]; then
			mid=$((mid + 1))
		fi
	done
	echo "# $mid of 200 puts were killed between two records" >&3
	# Killed, or with nothing to claim, they say nothing, and no sanitizer
	# finds fault; LeakSanitizer only notes a process killed while it
	# looked for leaks at exit.
	same "$(grep -v '^==[0-9]*==Unable to get registers from thread [0-9]*\.$' errors)" ""
	# Every line a put printed is a whole id.
	cat put.* >printed
	same "$(grep -Ecv "$ID_RE" printed)" 0
	sort printed >printed.sorted
	# Records are never dot files, and tmp/ holds only dot files.
	same "$(ls -A "$S/new" "$S/cur" "$S/done" "$S/failed" | grep '^\.')" ""
	same "$(ls "$S/tmp")" ""
	# No id twice across the states, and every id printed is stored.
	{ names new; names cur | sed 's/@.*//'; } | sed 's/^[0-9]*-//' | sort >stored
	same "$(uniq -d stored)" ""
	same "$(comm -23 printed.sorted stored)" ""
	# Every record file is one JSON object whose id is its name's
	# (PRIO-ORDER-ID).
	find "$S/new" "$S/cur" -type f -exec jq -r \
	    'if type == "object" then [input_filename, .id] | @tsv else error("not an object") end' {} + >parsed
	[ "$(wc -l <parsed)" -eq "$(wc -l <stored)" ]
	awk -F '\t' '{ f = $1; sub(/.*\/[0-9]+-/, "", f); sub(/^[0-9]+T[0-9]+\.[0-9]+Z-[0-9a-f]+-/, "", f); sub(/@.*/, "", f); if (f != $2) { print; bad = 1 } } END { exit bad }' parsed
	# Every claim printed is held in cur/ by that claimer.
	for r in $(seq 1 200); do
		[ -s "claim.$r" ] || continue
		for id in $(jq -r .record.id "claim.$r"); do
			ls "$S"/cur/*-"$id"@*@"k$r" >/dev/null
		done
	done
	# ls lists exactly the stored records, no tmp/ leftovers.
	run -0 ar-queue ls "$S"
	[ "${#lines[@]}" -eq $(($(wc -l <stored) + 1)) ]
	# What is left in new/ can all be claimed, each once.
	left=$(count new)
	if [ "$left" -gt 0 ]; then
		run -0 ar-queue claim -f tsv -n 1000000 -H final "$S"
		[ "${#lines[@]}" -eq $((left + 1)) ]
	fi
	[ "$(count new)" -eq 0 ]
	# Leftovers of killed puts go once they are a day old.
	find "$S/tmp" -type f -exec touch -d '2 days ago' {} +
	run -0 ar-queue reap "$S"
	same "$(ls -A "$S/tmp")" ""
}
