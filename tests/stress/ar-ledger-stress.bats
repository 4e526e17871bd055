#!/usr/bin/env bats
# ar-ledger-stress: the ledger's writers at once and killed, a stress test
# of `make check-stress`: six batch appends past one stale lock, 20
# rounds; readers during appends and compactions; kill -9 at random
# instants of append and compact; 8 appenders and 2 compactors at once;
# 16 appends of loose results racing on the loose seal. Nothing
# acknowledged is lost, nothing is stored twice, verify passes, and no
# seal says what is not true. The rest of ar-ledger's tests are in
# tests/ar-ledger.bats.

bats_require_minimum_version 1.5.0
load ../common

setup() {
	ar_ledger_setup
}

teardown() {
	ar_teardown
}

# Six writers find the same stale lock at once. Only the one whose rename
# takes the lock it judged dead may remove it; were a live lock removed,
# two writers would hold it, could take the same segment number, and one
# segment would replace the other: acknowledged rows lost.
@test "ar-ledger: 6 batch appends at once past a stale lock, 20 rounds, each result stored once" {
	local round a rc
	local -a pids
	gen 2040 "$T/pool.jsonl" 13
	split -l 17 -d -a 3 "$T/pool.jsonl" "$T/b."
	: > "$T/fail"
	for round in $(seq 0 19); do
		dead_pid
		lock_by "$dead"
		pids=()
		for a in 0 1 2 3 4 5; do
			ar-ledger append -C "$C" "$T/b.$(printf %03d $((round * 6 + a)))" 2>> "$T/err" &
			pids+=($!)
		done
		for a in 0 1 2 3 4 5; do
			rc=0
			wait "${pids[a]}" || rc=$?
			[ "$rc" -eq 0 ] || echo "round $round, writer $a: exit $rc" >> "$T/fail"
		done
	done
	run -0 cat "$T/fail"
	[ "$output" = "" ]
	ledger_clean
	run -0 ls -A "$L/results"
	[ "$output" = "" ]
	# Segments 1 to 120, each the whole of one batch, sealed by its
	# append, and no fold run failed.
	run -0 ls "$L/seg"
	[ "$output" = "$(for i in $(seq 1 120); do printf '%08d.idx\n%08d.seal\n%08d.tsv\n' "$i" "$i" "$i"; done)" ]
	run -1 grep 'ar-sched fold' "$T/err"
	[ "$(ls "$C/run/sched-fold" | grep -c '^[0-9]\{8\}$')" -eq 120 ]
	# And the folds' prefix, which the appends' folds write once 32
	# folds follow it (the last rounds' folds had 36 or more).
	[ -s "$C/run/sched-fold/prefix" ]
	run -0 awk 'FNR == 1 && NR > 1 { print s; s = "" } { s = s $0 "," } END { print s }' "$L"/seg/*.idx
	printf '%s\n' "$output" | LC_ALL=C sort > "$T/segs"
	jq -r .id "$T/pool.jsonl" | awk '{ print int((NR - 1) / 17) "\t" $0 }' |
	    LC_ALL=C sort -t '	' -k1,1n -k2,2 |
	    awk -F '\t' '$1 != k { if (NR > 1) print s; s = ""; k = $1 } { s = s $2 "," } END { print s }' |
	    LC_ALL=C sort > "$T/batches"
	run -0 diff "$T/batches" "$T/segs"
	run -0 awk 'FNR == 1 && NR > 1 && n != 18 { print FILENAME, n } FNR == 1 { n = 0 } { n++ } END { if (n != 18) print "last", n }' "$L"/seg/*.tsv
	[ "$output" = "" ]
	check_ledger "$T/pool.jsonl" "$T/pool.jsonl"
	[ "$(wc -l < "$T/have.ids")" -eq 2040 ]
}

# ---- crash safety and concurrency ----

@test "ar-ledger: readers during appends and compactions see every stored row once" {
	gen 240 "$T/pool.jsonl" 9
	split -l 12 -d -a 3 "$T/pool.jsonl" "$T/part."
	: > "$T/acked.ids"
	: > "$T/fail"
	(
		for f in "$T"/part.*; do
			if ar-ledger append -C "$C" "$f" 2>> "$T/err"; then
				jq -r .id "$f" >> "$T/acked.ids"
			else
				echo "append $f: exit $?" >> "$T/fail"
			fi
		done
	) &
	for c in 0 1; do
		(
			for i in $(seq 1 12); do
				ar-ledger compact -C "$C" 2>> "$T/err" ||
				    echo "compact: exit $?" >> "$T/fail"
			done
		) &
	done
	(
		# Each export must hold, once, every row acknowledged before it.
		for i in $(seq 1 12); do
			LC_ALL=C sort "$T/acked.ids" > "$T/snap.$i"
			if ! ar-ledger export -C "$C" -f jsonl > "$T/out.$i" 2>> "$T/err"; then
				echo "export $i: exit $?" >> "$T/fail"
			fi
			jq -r .id "$T/out.$i" | LC_ALL=C sort > "$T/have.$i"
			[ -z "$(uniq -d "$T/have.$i")" ] || echo "export $i: a row twice" >> "$T/fail"
			[ -z "$(comm -23 "$T/snap.$i" "$T/have.$i")" ] ||
			    echo "export $i: a stored row missing" >> "$T/fail"
			ar-ledger verify -C "$C" > "$T/verify.$i" 2>> "$T/err" ||
			    { echo "verify $i: exit $?" >> "$T/fail"; cat "$T/verify.$i" >> "$T/fail"; }
		done
	) &
	wait
	run -0 cat "$T/fail"
	[ "$output" = "" ]
	check_ledger "$T/pool.jsonl" "$T/pool.jsonl"
}

# One round of the kill loop: writes the round's results, starts the
# writer of this kind and returns its pid in $pid. Kind 0: one result
# (a loose file); 1: a batch of 17-24 (a segment); 2: a compact of three
# loose results stored first.
start_round() {
	local cnt
	case $1 in
	0) cnt=1 ;;
	1) cnt=$((17 + RANDOM % 8)) ;;
	2) cnt=3 ;;
	esac
	printf '%s\n' "${pool[@]:pos:cnt}" > "$T/in.jsonl"
	pos=$((pos + cnt))
	cat "$T/in.jsonl" >> "$T/offered.jsonl"
	if [ "$1" -eq 2 ]; then
		if ! ar-ledger append -C "$C" "$T/in.jsonl" 2>> "$T/err"; then
			echo "loose append before a compact failed"
			cat "$T/err"
			return 1
		fi
		cat "$T/in.jsonl" >> "$T/acked.jsonl"
		ar-ledger compact -C "$C" 2>> "$T/err" &
	else
		ar-ledger append -C "$C" "$T/in.jsonl" 2>> "$T/err" &
	fi
	pid=$!
}

@test "ar-ledger: kill -9 at random instants of append and compact loses nothing" {
	local seed=${AR_TEST_SEED:-$$} r pos=0 pid rc d kind t0 killed=0 done_=0 locks=0
	local -a span
	RANDOM=$seed
	echo "# seed $seed (AR_TEST_SEED repeats it)"
	gen 2400 "$T/pool.jsonl" 11
	mapfile -t pool < "$T/pool.jsonl"
	mkfifo "$T/fifo"
	exec 9<> "$T/fifo"
	: > "$T/acked.jsonl"
	: > "$T/offered.jsonl"
	# How long each kind runs here (a sanitizer build is slower), the
	# fastest of three: kills fall from before main to after the exit.
	span=(99999999 99999999 99999999)
	for r in 1 2 3; do
		for kind in 0 1 2; do
			start_round $kind
			t0=$(now_us)
			wait "$pid"
			t0=$(( $(now_us) - t0 ))
			[ "$t0" -ge "${span[kind]}" ] || span[kind]=$t0
			[ $kind -eq 2 ] || cat "$T/in.jsonl" >> "$T/acked.jsonl"
		done
	done
	echo "# runs (us): ${span[*]}"
	for r in $(seq 0 239); do
		kind=$((r % 3))
		start_round $kind
		printf -v d '%d.%06d' 0 $(( (RANDOM * 32768 + RANDOM) % span[kind] ))
		read -r -t "$d" -u 9 || true
		kill -9 "$pid" || true
		rc=0
		wait "$pid" || rc=$?
		# The span follows the run time, so that about half the rounds
		# are killed and half finish.
		case $rc in
		0) done_=$((done_ + 1))
		   [ $kind -eq 2 ] || cat "$T/in.jsonl" >> "$T/acked.jsonl"
		   span[kind]=$(( span[kind] * 7 / 8 + 100 )) ;;
		137) killed=$((killed + 1))
		   [ ! -e "$L/lock" ] || locks=$((locks + 1))
		   span[kind]=$(( span[kind] * 9 / 8 + 100 )) ;;
		*) echo "round $r (kind $kind): exit $rc"; cat "$T/err"; false ;;
		esac
	done 2> /dev/null
	echo "# spans at the end (us): ${span[*]}"
	exec 9>&-
	echo "# $killed killed, $done_ finished, $locks locks left behind"
	[ "$killed" -gt 20 ]
	[ "$done_" -gt 20 ]
	# A lock left by a killed process is broken by the next writer.
	run -0 --separate-stderr ar-ledger compact -C "$C"
	[ ! -e "$L/lock" ]
	# So are the temporary files of killed writers (ledger/.tmp-*-lock,
	# results/.tmp-*.json, seg/.tmp-*): only one killed in its first
	# instant, still of mode 0, waits an hour.
	run -0 find "$L" -name '.tmp-*' ! -perm 0000
	[ "$output" = "" ]
	check_ledger "$T/acked.jsonl" "$T/offered.jsonl"
	# Nothing half-stored: offering everything again clashes with nothing.
	run -0 --separate-stderr ar-ledger append -C "$C" "$T/offered.jsonl"
	check_ledger "$T/offered.jsonl" "$T/offered.jsonl"
	[ "$(wc -l < "$T/have.ids")" -eq "$(wc -l < "$T/offered.jsonl")" ]
	run -0 ar-ledger compact -C "$C"
	run -0 ls "$L/results"
	[ "$output" = "" ]
}

@test "ar-ledger: 8 appenders and 2 compactors at once lose and duplicate nothing" {
	gen 216 "$T/pool.jsonl" 5
	# Appenders 0-3 store 12 single results each; 4-7 two batches of 21.
	awk -v d="$T" '
	    NR <= 48 { a = int((NR - 1) / 12); n = (NR - 1) % 12
		       print > (d "/a" a "." n); next }
	    { k = NR - 49; a = 4 + int(k / 42); n = int((k % 42) / 21)
	      print > (d "/a" a "." n) }' "$T/pool.jsonl"
	: > "$T/fail"
	for a in 0 1 2 3 4 5 6 7; do
		(
			for f in "$T/a$a".*; do
				ar-ledger append -C "$C" "$f" 2>> "$T/err.$a" ||
				    echo "append $f: exit $?" >> "$T/fail"
			done
		) &
	done
	for c in 0 1; do
		(
			for i in 1 2 3 4 5 6; do
				ar-ledger compact -C "$C" 2>> "$T/cerr.$c" ||
				    echo "compact $c: exit $?" >> "$T/fail"
			done
		) &
	done
	wait
	run -0 cat "$T/fail"
	[ "$output" = "" ]
	run -0 --separate-stderr ar-ledger compact -C "$C"
	check_ledger "$T/pool.jsonl" "$T/pool.jsonl"
	[ "$(wc -l < "$T/have.ids")" -eq 216 ]
	run -0 ls -A "$L/results"
	[ "$output" = "" ]
}

# Appends of loose results each add theirs to ledger/loose.seal, read,
# checked and written again whole, without the ledger's lock: at once,
# one may drop another's lines, never make one that is not true.
@test "ar-ledger: 16 appends of loose results at once leave a loose seal that says only what is true" {
	command -v b2sum >/dev/null || skip "b2sum (coreutils) is needed"
	local a rc
	local -a pids
	gen 192 "$T/pool.jsonl" 17
	split -l 3 -d -a 3 "$T/pool.jsonl" "$T/b."
	: > "$T/fail"
	pids=()
	for a in $(seq 0 15); do
		(
			for n in 0 1 2 3; do
				ar-ledger append -C "$C" "$T/b.$(printf %03d $((a * 4 + n)))" 2>> "$T/err" ||
				    echo "appender $a: exit $?" >> "$T/fail"
			done
		) &
		pids+=($!)
	done
	for a in $(seq 0 15); do
		wait "${pids[a]}" || echo "appender $a: exit $?" >> "$T/fail"
	done
	run -0 cat "$T/fail"
	[ "$output" = "" ]
	[ "$(ls "$L/results" | wc -l)" -eq 192 ]
	# Every line names a stored result by the hash of its bytes.
	S=$L/loose.seal
	[ "$(sed -n 1p "$S")" = "ar-ledger loose seal 1" ]
	[[ "$(tail -n 1 "$S")" == "sig "* ]]
	sed '1,3d;$d' "$S" > "$T/lines"
	[ -s "$T/lines" ]
	while IFS='	' read -r id h rest; do
		[ "$h" = "$(printf '%s' "$(cat "$L/results/$id.json")" | b2sum -l 256 | cut -d ' ' -f 1)" ] ||
		    echo "$id: $h" >> "$T/wrong"
	done < "$T/lines"
	[ ! -e "$T/wrong" ]
	# Trusting it changes nothing.
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 192 rows: 192 verified, 0 unsigned (imported); 0 problems" ]
	save "$T/trusted"
	run -0 --separate-stderr ar-ledger verify -C "$C" -F
	[ "$output" = "$(cat "$T/trusted")" ]
	# Lines a race dropped are the next check's: then all 192 are there.
	run -0 --separate-stderr ar-ledger export -C "$C" -V -f jsonl
	[ "$(sed '1,3d;$d' "$S" | wc -l)" -eq 192 ]
}
