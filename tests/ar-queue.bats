#!/usr/bin/env bats
# ar-queue.bats: tests ar-queue(1), the crash-safe spool. The command line
# (-h, --version, usage errors), init, put from TSV and JSON Lines, the
# spool names PRIO-ORDER-ID and the claim order they give (priority, then
# age, whatever the ids), claim, renew, done, fail, release, reap and ls
# with their exact output, the default holder, leases lost to another
# holder or to reap, malformed input refused with one message naming the
# input and line and nothing stored, the largest record put accepts,
# unreadable records set aside by claim and reported by ls, and full and
# read-only disks. Exactly-once claims under 32 concurrent claimers, and
# put and claim killed at random instants, are stress tests
# (tests/stress/ar-queue-stress.bats). A test that cannot pass because of
# a known bug in ar-queue is skipped with "BUG:" and the reason.

bats_require_minimum_version 1.5.0
load common

setup() {
	ar_queue_setup
}

# A test that failed midway may leave directories read-only.
teardown() {
	ar_teardown
}

# The path of the record PRIO-ID (as names prints it, without a lease) in
# a state directory, whatever its ORDER.
path_of() {
	local f
	for f in "$S/$1/${2%%-*}"-*; do
		if [[ ${f##*/} =~ ^[0-9]{7}-$ORD-([^@]*) ]] &&
		    [ "${BASH_REMATCH[1]}" = "${2#*-}" ]; then
			echo "$f"
			return 0
		fi
	done
	echo "$S/$1/$2: no such record" >&2
	echo "$S/$1/$2"
	return 1
}

# A record name made by hand, for files written straight into a state
# directory: priority $1, id $2, and an ORDER made of the number $3 (the
# smaller, the older; all older than any record put).
craft() {
	printf '%07d-20000101T000000.%06dZ-%016x-%s' $((1000000 - $1)) "$3" "$3" "$2"
}

# Fails unless every directory of the spool is empty, dot files included.
nothing_stored() {
	local d
	for d in tmp new cur done failed why; do
		if [ -n "$(ls -A "$S/$d")" ]; then
			echo "$S/$d is not empty:" >&2
			ls -A "$S/$d" >&2
			return 1
		fi
	done
}

# RFC 3339 UTC of an epoch second, as ar-queue prints a lease's expiry.
rfc3339() {
	date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ
}

# Runs put on the file "in" and expects exit status $1, the one line $2 on
# stderr, nothing on stdout, and nothing stored: not even a tmp/ file.
reject() {
	run --separate-stderr -"$1" ar-queue put "$S" in
	same "$output" ""
	same "$stderr" "$2"
	nothing_stored
}

# --- the command line -------------------------------------------------------

@test "ar-queue -h: prints the usage on stdout and exits 0" {
	run -0 --separate-stderr ar-queue -h
	same "$output" "$(cat "$FIX/usage.txt")"
	same "$stderr" ""
	run -0 ar-queue --help
	same "$output" "$(cat "$FIX/usage.txt")"
	run -0 ar-queue claim -h
	same "$output" "$(cat "$FIX/usage.txt")"
}

@test "ar-queue --version: prints the program and version" {
	version=$(sed -n 's/^VERSION = //p' "$BATS_TEST_DIRNAME/../config.mk")
	run -0 --separate-stderr ar-queue --version
	same "$output" "ar-queue $version"
	same "$stderr" ""
}

@test "ar-queue with no arguments: usage on stderr, exit 64" {
	run -64 --separate-stderr ar-queue
	same "$output" ""
	same "$stderr" "$(cat "$FIX/usage.txt")"
}

@test "ar-queue: unknown subcommand, missing spool or extra operands: usage, exit 64" {
	# An unknown subcommand is named, as ar-campaign and ar-run name theirs.
	for sub in frobnicate --frob; do
		run -64 --separate-stderr ar-queue "$sub" "$S"
		same "$output" ""
		same "$stderr" "ar-queue: $sub: unknown subcommand (put, claim, renew, done, fail, release, reap, ls or init)
$(cat "$FIX/usage.txt")"
	done
	for args in "claim" "put" "ls" "reap" "init" "done $S" "claim $S extra" \
	    "reap $S extra" "ls $S extra" "put $S in extra"; do
		# shellcheck disable=SC2086
		run -64 --separate-stderr ar-queue $args
		same "$output" ""
		same "$stderr" "$(cat "$FIX/usage.txt")"
	done
}

@test "ar-queue: an unknown option or a missing value: getopt's message under the program's name, the usage, exit 64" {
	run -64 --separate-stderr ar-queue claim -x "$S"
	same "$output" ""
	same "$stderr" "$(printf '%s\n' "ar-queue: invalid option -- 'x'" "$(cat "$FIX/usage.txt")")"
	run -64 --separate-stderr ar-queue claim "$S" -n
	same "$output" ""
	same "$stderr" "$(printf '%s\n' "ar-queue: option requires an argument -- 'n'" "$(cat "$FIX/usage.txt")")"
}

@test "ar-queue: -h and --version count only as the first argument or right after the subcommand" {
	run -0 --separate-stderr ar-queue put -h
	same "$output" "$(cat "$FIX/usage.txt")"
	same "$stderr" ""
	version=$(sed -n 's/^VERSION = //p' "$BATS_TEST_DIRNAME/../config.mk")
	run -0 ar-queue claim --version
	same "$output" "ar-queue $version"
	# Further on, "-h" is the value of an option, or an unknown option.
	run -0 ar-queue put "$S" "$FIX/fixed.jsonl"
	run -0 ar-queue claim -H w1 "$S"
	run -0 --separate-stderr ar-queue fail -H w1 -r -h "$S" idea-a
	same "$output" ""
	same "$stderr" ""
	same "$(cat "$(path_of why 0999995-idea-a)")" "-h"
	run -64 --separate-stderr ar-queue claim -H w1 -h "$S"
	same "$output" ""
	same "$stderr" "$(printf '%s\n' "ar-queue: invalid option -- 'h'" "$(cat "$FIX/usage.txt")")"
	run -64 --separate-stderr ar-queue claim -H --help "$S"
	same "$stderr" "ar-queue: holder '--help': expected 1 to 100 of [A-Za-z0-9._-]"
	same "$(names cur)" ""
}

@test "ar-queue: bad option values exit 64 with one message naming them" {
	run -64 --separate-stderr ar-queue claim -n 0 "$S"
	same "$stderr" "ar-queue: -n 0: expected an integer from 1 to 1000000"
	run -64 --separate-stderr ar-queue claim -n 1x "$S"
	same "$stderr" "ar-queue: -n 1x: expected an integer from 1 to 1000000"
	run -64 --separate-stderr ar-queue claim -l 0 "$S"
	same "$stderr" "ar-queue: -l 0: expected an integer from 1 to 31536000"
	run -64 --separate-stderr ar-queue put -p 1000000 "$S" in
	same "$stderr" "ar-queue: -p 1000000: expected an integer from -999999 to 999999"
	run -64 --separate-stderr ar-queue ls -f json "$S"
	same "$stderr" "ar-queue: -f json: expected tsv or jsonl"
	run -64 --separate-stderr ar-queue ls -s bogus "$S"
	same "$stderr" "ar-queue: -s bogus: expected new, cur, done or failed"
	run -64 --separate-stderr ar-queue claim -H 'w 1' "$S"
	same "$stderr" "ar-queue: holder 'w 1': expected 1 to 100 of [A-Za-z0-9._-]"
	run -64 --separate-stderr ar-queue claim -H 'w@1' "$S"
	same "$stderr" "ar-queue: holder 'w@1': expected 1 to 100 of [A-Za-z0-9._-]"
	same "$output" ""
}

@test "ar-queue: a directory that is not a spool, or none at all: exit 66" {
	mkdir plain
	for cmd in "put" "claim" "ls" "reap" "done -H w1" "fail -H w1" \
	    "release -H w1" "renew -H w1"; do
		case $cmd in
		put|claim|ls|reap) args="plain" ;;
		*) args="plain idea-a" ;;
		esac
		# shellcheck disable=SC2086
		run -66 --separate-stderr ar-queue $cmd $args </dev/null
		same "$output" ""
		same "$stderr" "ar-queue: plain: not a spool (ar-queue init makes one)"
	done
	run -66 --separate-stderr ar-queue ls missing
	same "$stderr" "ar-queue: missing: not a spool (ar-queue init makes one)"
	[ ! -e missing ]
}

# --- init -------------------------------------------------------------------

@test "init: makes tmp new cur done failed why; a second init keeps the records" {
	run -0 --separate-stderr ar-queue init deep/er/q
	same "$output" ""
	same "$stderr" ""
	same "$(ls deep/er/q)" "$(printf '%s\n' cur done failed new tmp why)"
	echo '{"id":"keep"}' >in
	run -0 ar-queue put deep/er/q in
	run -0 ar-queue init deep/er/q
	S=deep/er/q
	same "$(names new)" "1000000-keep"
}

@test "init: a path that is a file: exit 66, nothing made" {
	: >afile
	run -66 --separate-stderr ar-queue init afile
	same "$stderr" "ar-queue: afile: Not a directory"
	[ -f afile ]
}

# --- put --------------------------------------------------------------------

@test "put: TSV on stdin, one fsync'd file per row in new/, ids printed in input order" {
	need_jq
	t0=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	run -0 --separate-stderr ar-queue put "$S" <"$FIX/ideas.tsv"
	t1=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	same "$stderr" ""
	[ "${#lines[@]}" -eq 3 ]
	for id in "${lines[@]}"; do
		[[ $id =~ $ID_RE ]]
	done
	a=${lines[0]} b=${lines[1]} c=${lines[2]}
	# Names are PRIO-ORDER-ID. Higher priority sorts first: PRIO is
	# 1000000 - priority. ORDER is a fresh id made as each record is
	# stored, so it grows in input order and is not the record's id.
	[[ $(ls "$S/new" | tr '\n' ' ') =~ ^0999995-($ORD)-$a\ 1000000-($ORD)-$b\ 1000001-($ORD)-$c\ $ ]]
	oa=${BASH_REMATCH[1]} ob=${BASH_REMATCH[2]} oc=${BASH_REMATCH[3]}
	[[ $oa < $ob && $ob < $oc ]]
	[[ $oa != "$a" && $ob != "$b" && $oc != "$c" ]]
	same "$(names new)" "$(printf '%s\n' "0999995-$a" "1000000-$b" "1000001-$c")"
	q=$(jq -r .queued "$(path_of new "0999995-$a")")
	[[ $q =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$ ]]
	[[ ! $q < $t0 ]]
	[[ ! $q > $t1 ]]
	# TSV escapes are undone; the priority becomes a number; empty fields
	# are left out.
	same "$(cat "$(path_of new "0999995-$a")")" \
	    "{\"title\":\"top-k sampling\",\"priority\":5,\"note\":\"tab\\there\",\"id\":\"$a\",\"queued\":\"$q\"}"
	same "$(cat "$(path_of new "1000000-$b")")" \
	    "{\"title\":\"fp8 gemm\",\"priority\":0,\"id\":\"$b\",\"queued\":\"$q\"}"
	same "$(cat "$(path_of new "1000001-$c")")" \
	    "{\"title\":\"spec decode\",\"priority\":-1,\"note\":\"two\\nlines\",\"id\":\"$c\",\"queued\":\"$q\"}"
	same "$(ls -A "$S/tmp")" ""
}

@test "put: JSON Lines from a file keeps types and nesting, adds id, priority and queued" {
	need_jq
	run -0 --separate-stderr ar-queue put "$S" "$FIX/ideas.jsonl"
	same "$stderr" ""
	[ "${#lines[@]}" -eq 2 ]
	a=${lines[0]} b=${lines[1]}
	[[ $a =~ $ID_RE ]]
	[[ $b =~ $ID_RE ]]
	[[ $a < $b ]]
	same "$(names new)" "$(printf '%s\n' "0999995-$a" "1000000-$b")"
	q=$(jq -r .queued "$(path_of new "1000000-$b")")
	same "$(cat "$(path_of new "0999995-$a")")" \
	    "{\"title\":\"top-k sampling\",\"priority\":5,\"params\":{\"k\":8,\"warm\":true},\"tags\":[\"a\",\"b\"],\"id\":\"$a\",\"queued\":\"$q\"}"
	same "$(cat "$(path_of new "1000000-$b")")" \
	    "{\"title\":\"fp8 gemm\",\"score\":1.5,\"note\":null,\"priority\":0,\"id\":\"$b\",\"queued\":\"$q\"}"
}

@test "put: -f forces the format; -p sets the default priority; a priority field wins" {
	printf 'title\tpriority\nplain\t\nurgent\t7\n' >in.tsv
	run -0 ar-queue put -f tsv -p 3 "$S" in.tsv
	same "$(names new)" "$(printf '%s\n' "0999993-${lines[1]}" "0999997-${lines[0]}")"
	printf '{"priority":"-4"}\n' >in.jsonl
	run -0 ar-queue put -f jsonl -p 3 "$S" in.jsonl
	same "$(names new | grep -e "${lines[0]}")" "1000004-${lines[0]}"
	# Forced TSV reads a JSON line as a one-column header and no rows.
	run -0 --separate-stderr ar-queue put -f tsv "$S" in.jsonl
	same "$output" ""
	same "$stderr" ""
	[ "$(count new)" -eq 3 ]
}

@test "put: a header and no rows, empty input or only blank lines store nothing and exit 0" {
	printf 'title\tnote\n' >in
	run -0 --separate-stderr ar-queue put "$S" in
	same "$output" ""
	same "$stderr" ""
	for input in '' '\n' '\n\n\n' ' \t\n  \n'; do
		# shellcheck disable=SC2059
		printf "$input" >in
		run -0 --separate-stderr ar-queue put "$S" in
		same "$output" ""
		same "$stderr" ""
	done
	nothing_stored
}

@test "put -f jsonl: empty lines are skipped, the first one too" {
	printf '\n\n' >in
	run --separate-stderr ar-queue put -f jsonl "$S" in
	[ "$status" -eq 0 ]
	same "$output" ""
	same "$stderr" ""
	printf '\n{"n":1}\n\n{"n":2}\n' >in
	run -0 --separate-stderr ar-queue put -f jsonl "$S" in
	same "$stderr" ""
	[ "${#lines[@]}" -eq 2 ]
	[ "$(count new)" -eq 2 ]
}

@test "put -f tsv: empty input has no header: exit 65" {
	: >in
	run -65 --separate-stderr ar-queue put -f tsv "$S" in
	same "$output" ""
	same "$stderr" "ar-queue: in: empty input: no header line; nothing stored"
	nothing_stored
}

@test "put: user-given ids name the records" {
	run -0 --separate-stderr ar-queue put "$S" "$FIX/fixed.jsonl"
	same "$output" "$(printf '%s\n' idea-a idea-b idea-c idea-d)"
	same "$(names new)" "$(printf '%s\n' 0999995-idea-a 1000000-idea-b 1000000-idea-d 1000001-idea-c)"
	same "$(cat "$(path_of new 1000000-idea-b)")" \
	    '{"id":"idea-b","title":"fp8 gemm","score":1.5,"queued":"2026-01-01T00:00:01Z","priority":0}'
}

@test "put: an id that exists in any state is refused (73) and nothing of the input is stored" {
	run -0 ar-queue put "$S" "$FIX/fixed.jsonl"
	run -0 ar-queue claim -H w1 "$S"
	run -0 ar-queue done -H w1 "$S" idea-a
	run -0 ar-queue claim -H w1 "$S"
	run -0 ar-queue fail -H w1 "$S" idea-b
	run -0 ar-queue claim -H w1 "$S"
	before=$(ls -R "$S")
	for id in idea-a idea-b idea-d idea-c; do
		printf '{"id":"fresh"}\n{"id":"%s","priority":9}\n' "$id" >in
		run -73 --separate-stderr ar-queue put "$S" in
		same "$output" ""
		same "$stderr" "ar-queue: in: line 2: id $id exists already in $S; nothing stored"
		same "$(ls -R "$S")" "$before"
	done
	same "$(ls -A "$S/tmp")" ""
}

@test "put: the same id twice in one input is refused (65) with nothing stored" {
	printf '{"id":"twice","n":1}\n{"id":"twice","n":2}\n' >in
	reject 65 "ar-queue: in: id twice given twice; nothing stored"
	# At other priorities, the two records would have other file names:
	# still refused.
	printf '{"id":"twice","priority":1}\n{"id":"twice","priority":2}\n' >in
	reject 65 "ar-queue: in: id twice given twice; nothing stored"
}

# Two puts at once of one user-given id may both store it: put checks the
# id against the spool, and only generated ids are unique by making. No
# test races them: see CAVEATS in ar-queue(1).

@test "put: an invalid id is refused (65) naming the input and line, nothing stored" {
	for id in '"a b"' '".hidden"' '"-dash"' '""' '5' '"a@b"' '"a/b"' "\"$(printf 'x%.0s' $(seq 101))\""; do
		printf '{"id":"ok"}\n{"id":%s}\n' "$id" >in
		reject 65 "ar-queue: in: line 2: id: expected 1 to 100 of [A-Za-z0-9._-], not starting with '.' or '-'; nothing stored"
	done
	# 100 characters are allowed.
	printf '{"id":"%s"}\n' "$(printf 'x%.0s' $(seq 100))" >in
	run -0 ar-queue put "$S" in
	# From TSV on stdin: the line is the input's, header included.
	printf 'title\tid\na\tok-1\nb\t.x\n' >in
	run -65 --separate-stderr ar-queue put "$S" <in
	same "$output" ""
	same "$stderr" "ar-queue: <stdin>: line 3: id: expected 1 to 100 of [A-Za-z0-9._-], not starting with '.' or '-'; nothing stored"
	[ "$(count new)" -eq 1 ]
}

# --- put: malformed input stores nothing ------------------------------------

@test "put: a row with too few or too many fields: exit 65, nothing stored" {
	printf 'a\tb\n1\t2\n3\n' >in
	reject 65 "ar-queue: in: line 3: 1 field, header has 2; nothing stored"
	printf 'a\tb\n1\t2\t3\n' >in
	reject 65 "ar-queue: in: line 2: 3 fields, header has 2; nothing stored"
}

@test "put: an unknown TSV escape or a trailing backslash: exit 65, nothing stored" {
	printf 'a\tb\nx\t\\q\n' >in
	reject 65 'ar-queue: in: line 2: field 2: unknown escape (only \t \n \r \\ are allowed); nothing stored'
	printf 'a\nx\\\n' >in
	reject 65 'ar-queue: in: line 2: field 1: unknown escape (only \t \n \r \\ are allowed); nothing stored'
}

@test "put: invalid UTF-8 in TSV or JSON: exit 65, nothing stored" {
	printf 'a\nok\n\xc3\x28\n' >in
	reject 65 "ar-queue: in: line 3: invalid UTF-8 at byte 1; nothing stored"
	printf '{"a":"ok"}\n{"a":"\xff"}\n' >in
	reject 65 "ar-queue: in: line 2: invalid UTF-8 at byte 7; nothing stored"
}

@test "put: CRLF line endings in TSV or JSON: exit 65, nothing stored" {
	printf 'a\r\n1\r\n' >in
	reject 65 'ar-queue: in: line 1: carriage return in line (CRLF line endings? escape a CR in a field as \r); nothing stored'
	printf '{"a":1}\r\n' >in
	reject 65 "ar-queue: in: line 1: carriage return (CRLF line endings?); nothing stored"
}

@test "put: a 10 MB line in TSV or JSON: exit 65, nothing stored" {
	{ printf 'a\nsmall\n'; head -c 10485760 /dev/zero | tr '\0' x; printf '\nsmall\n'; } >in
	reject 65 "ar-queue: in: line 3: longer than 1048576 bytes; nothing stored"
	{ printf '{"a":"'; head -c 10485760 /dev/zero | tr '\0' x; printf '"}\n'; } >in
	reject 65 "ar-queue: in: line 1: longer than 1048576 bytes; nothing stored"
}

@test "put: a NUL byte in TSV or JSON: exit 65, nothing stored" {
	printf 'a\nx\0y\n' >in
	reject 65 "ar-queue: in: line 2: NUL byte in line; nothing stored"
	printf '{"a":"x\0y"}\n' >in
	reject 65 "ar-queue: in: line 1: NUL byte in JSON text; nothing stored"
}

@test "put: a priority that is NaN, infinite, fractional or out of range: exit 65, nothing stored" {
	for p in NaN nan inf -inf Infinity 1.5 1e3 0x10 +5 ' 5' '5 ' x 1000000 -1000000; do
		printf 'title\tpriority\nok\t1\nbad\t%s\n' "$p" >in
		reject 65 "ar-queue: in: line 3: priority: expected an integer from -999999 to 999999; nothing stored"
	done
	for p in 1.5 '"inf"' '"NaN"' true null '"1.0"' 1000000 '[1]'; do
		printf '{"priority":%s}\n' "$p" >in
		reject 65 "ar-queue: in: line 1: priority: expected an integer from -999999 to 999999; nothing stored"
	done
	# The extremes are accepted.
	printf '{"priority":999999}\n{"priority":"-999999"}\n' >in
	run -0 ar-queue put "$S" in
	same "$(names new)" "$(printf '%s\n' "0000001-${lines[0]}" "1999999-${lines[1]}")"
}

@test "put: a bad priority on stdin is reported as <stdin> with its line" {
	printf '{"n":1}\n\n{"priority":"x"}\n' >in
	run -65 --separate-stderr ar-queue put "$S" <in
	same "$output" ""
	same "$stderr" "ar-queue: <stdin>: line 3: priority: expected an integer from -999999 to 999999; nothing stored"
	printf 'n\tpriority\n1\t1e2\n' >in
	run -65 --separate-stderr ar-queue put "$S" <in
	same "$stderr" "ar-queue: <stdin>: line 2: priority: expected an integer from -999999 to 999999; nothing stored"
	nothing_stored
}

@test "put: NaN, Infinity or an overflowing number in JSON: exit 65, nothing stored" {
	printf '{"a":NaN}\n' >in
	reject 65 "ar-queue: in: line 1: invalid JSON at column 8: invalid token near 'NaN'; nothing stored"
	printf '{"a":-Infinity}\n' >in
	run -65 ar-queue put "$S" in
	nothing_stored
	printf '{"a":1e999}\n' >in
	reject 65 "ar-queue: in: line 1: invalid JSON at column 10: real number overflow near '1e999'; nothing stored"
}

@test "put: duplicate JSON keys: exit 65, nothing stored" {
	printf '{"a":1}\n{"a":1,"b":2,"a":3}\n' >in
	reject 65 "ar-queue: in: line 2: invalid JSON at column 16: duplicate object key near '\"a\"'; nothing stored"
}

@test "put: a JSON array or scalar where an object belongs: exit 65, nothing stored" {
	# Under AddressSanitizer too: a leak reported at exit would turn 65
	# into 1.
	printf '[{"a":1}]\n' >in
	run -65 --separate-stderr ar-queue put -f jsonl "$S" in
	same "$stderr" "ar-queue: in: line 1: not a JSON object; nothing stored"
	nothing_stored
	printf '{"a":1}\n[{"a":1}]\n' >in
	reject 65 "ar-queue: in: line 2: not a JSON object; nothing stored"
	printf '{"a":1}\n"text"\n' >in
	reject 65 "ar-queue: in: line 2: invalid JSON at column 6: '[' or '{' expected near '\"text\"'; nothing stored"
}

@test "put: a JSON array as the whole input is refused, not read as an empty TSV" {
	printf '[{"title":"a"},{"title":"b"}]\n' >in
	reject 65 "ar-queue: in: line 1: a JSON array; JSON Lines want one object per line; nothing stored"
	printf '[\n{"title":"a"},\n{"title":"b"}\n]\n' >in
	reject 65 "ar-queue: in: line 1: a JSON array; JSON Lines want one object per line; nothing stored"
	printf ' [{"title":"a"}]\n' >in
	reject 65 "ar-queue: in: line 1: a JSON array; JSON Lines want one object per line; nothing stored"
}

@test "put: a JSON array after blank lines is reported at its own line" {
	printf '\n\n[{"title":"a"}]\n' >in
	reject 65 "ar-queue: in: line 3: a JSON array; JSON Lines want one object per line; nothing stored"
}

@test "put: a truncated last JSON line: exit 65, nothing stored" {
	printf '{"a":1}\n{"b":' >in
	reject 65 "ar-queue: in: line 2: invalid JSON at column 5: unexpected token near end of file; nothing stored"
}

@test "put: blank lines in JSON Lines are skipped; blank space before TSV is refused" {
	printf '\n\n{"n":1}\n\n{"n":2}\n\n' >in
	run -0 --separate-stderr ar-queue put "$S" in
	same "$stderr" ""
	[ "${#lines[@]}" -eq 2 ]
	[ "$(count new)" -eq 2 ]
	rm "$S"/new/*
	printf ' title\nx\n' >in
	reject 65 "ar-queue: in: line 1: starts with blank space: neither a TSV header nor JSON; nothing stored"
	printf '\ntitle\nx\n' >in
	reject 65 "ar-queue: in: line 1: starts with blank space: neither a TSV header nor JSON; nothing stored"
	printf '\n{"n":1}\r\n' >in
	reject 65 "ar-queue: in: line 2: carriage return (CRLF line endings?); nothing stored"
}

@test "put: an empty or duplicate header column: exit 65, nothing stored" {
	printf 'a\t\tb\n1\t2\t3\n' >in
	reject 65 "ar-queue: in: header: column 2 has no name; nothing stored"
	printf 'a\tb\t\n1\t2\t3\n' >in
	reject 65 "ar-queue: in: header: column 3 has no name; nothing stored"
	printf 'a\tb\ta\n1\t2\t3\n' >in
	reject 65 "ar-queue: in: header: duplicate column 'a'; nothing stored"
	# An empty first line, forced to TSV (found by tests/fuzz: it crashed).
	printf '\n1\t2\n' >in
	run -65 --separate-stderr ar-queue put -f tsv "$S" in
	same "$stderr" "ar-queue: in: header: column 1 has no name; nothing stored"
	nothing_stored
}

@test "put: one bad record after many good ones stores none of them" {
	{ printf 'n\n'; seq 1 500; printf 'bad\\x\n'; } >in
	reject 65 'ar-queue: in: line 502: field 1: unknown escape (only \t \n \r \\ are allowed); nothing stored'
}

@test "put: a missing input file: exit 66, nothing stored" {
	run -66 --separate-stderr ar-queue put "$S" no-such-file
	same "$output" ""
	same "$stderr" "ar-queue: no-such-file: No such file or directory"
	nothing_stored
}

@test "put: a directory as the input is refused (66), not read as malformed or empty" {
	mkdir indir
	run -66 --separate-stderr ar-queue put "$S" indir
	same "$output" ""
	same "$stderr" "ar-queue: indir: is a directory"
	run -66 --separate-stderr ar-queue put "$S" <indir
	same "$output" ""
	same "$stderr" "ar-queue: <stdin>: is a directory"
	nothing_stored
}

@test "put: a read-only spool (chmod): exit 73, nothing stored" {
	if [ "$(id -u)" -eq 0 ] && ! setpriv --bounding-set=-dac_override true 2>/dev/null; then
		skip "root ignores permissions"
	fi
	printf 'a\n1\n2\n' >in
	chmod a-w "$S/tmp" "$S/new"
	run -73 --separate-stderr unprivileged ar-queue put "$S" in
	chmod u+w "$S/tmp" "$S/new"
	same "$output" ""
	[[ $stderr =~ ^ar-queue:\ spool:\ cannot\ store\ [^\ ]+:\ Permission\ denied$ ]]
	nothing_stored
}

# Runs the shell script $1 in a private mount namespace where mnt is a
# tmpfs of size $2; skips where no such namespace can be made.
in_small_fs() {
	private_mounts "to mount a small tmpfs in"
	mkdir -p mnt
	rc=0
	$UNSHARE sh -c "mount -t tmpfs -o size=$2 tmpfs mnt || exit 99
$1" || rc=$?
	[ "$rc" -ne 99 ] || skip "cannot mount a tmpfs"
	[ "$rc" -eq 0 ]
}

@test "put: a read-only filesystem: exit 73 (cannot create) as ar.h says, nothing stored" {
	printf 'a\n1\n' >in
	in_small_fs '
		ar-queue init mnt/s && mount -o remount,ro mnt || exit 99
		ar-queue put mnt/s in >out 2>err
		echo $? >rc
		ls -A mnt/s/new mnt/s/tmp >left' 64k
	same "$(cat out)" ""
	[[ $(cat err) =~ ^ar-queue:\ mnt/s:\ cannot\ store\ [^\ ]+:\ Read-only\ file\ system$ ]]
	same "$(cat left)" "$(printf 'mnt/s/new:\n\nmnt/s/tmp:')"
	same "$(cat rc)" 73
}

@test "put: a full disk: exit 74, nothing stored, no tmp/ file left" {
	printf 'a\n1\n' >in
	in_small_fs '
		ar-queue init mnt/s || exit 99
		head -c 1048576 /dev/zero >mnt/fill 2>/dev/null
		ar-queue put mnt/s in >out 2>err
		echo $? >rc
		ls -A mnt/s/new mnt/s/tmp >left' 64k
	same "$(cat rc)" 74
	same "$(cat out)" ""
	[[ $(cat err) =~ ^ar-queue:\ mnt/s:\ cannot\ store\ [^\ ]+:\ No\ space\ left\ on\ device$ ]]
	same "$(cat left)" "$(printf 'mnt/s/new:\n\nmnt/s/tmp:')"
}

@test "put: a disk filling up mid-input: exit 74; exactly the ids printed are stored" {
	seq 1 60 | awk 'BEGIN { print "n" } { print }' >in
	in_small_fs '
		ar-queue init mnt/s || exit 99
		ar-queue put mnt/s in >out 2>err
		echo $? >rc
		ls mnt/s/new >new
		ls -A mnt/s/tmp >tmp' 64k
	same "$(cat rc)" 74
	[ "$(wc -l <out)" -gt 0 ]
	[ "$(wc -l <out)" -lt 60 ]
	same "$(sed -E "s/^1000000-$ORD-//" new)" "$(cat out)"
	same "$(cat tmp)" ""
	[ "$(wc -l <err)" -eq 1 ]
}

# Runs "$@" with its stdout on /dev/full.
to_full() {
	"$@" >/dev/full
}

@test "ls: a full stdout is an error (74), not a silent truncation" {
	run -0 ar-queue put "$S" "$FIX/fixed.jsonl"
	run -74 --separate-stderr to_full ar-queue ls "$S"
	same "$stderr" "ar-queue: <stdout>: write failed: No space left on device"
}

# --- put: stdout closed, retries -------------------------------------------

# Runs ar-queue with its stdout closed.
closed() {
	ar-queue "$@" >&-
}

@test "put: a closed stdout or a reader gone stores every record, exits 0 and says what was printed" {
	awk 'BEGIN { print "title"; for (i = 1; i <= 20; i++) print "idea " i }' > in.tsv
	run --separate-stderr -0 closed put "$S" in.tsv
	same "$stderr" "ar-queue: spool: all 20 records stored (0 by an earlier try); <stdout>: Bad file descriptor: their ids not all printed"
	[ "$(count new)" -eq 20 ]
	# Not killed by SIGPIPE after a part (ar-queue put ... | head -1).
	run --separate-stderr -0 reader_gone ar-queue put "$S" in.tsv
	same "$stderr" "ar-queue: spool: all 20 records stored (0 by an earlier try); <stdout>: Broken pipe: their ids not all printed"
	[ "$(count new)" -eq 40 ]
}

@test "put -k: ids from the key and the line; a retry stores only what is missing, nothing twice" {
	awk 'BEGIN { print "title"; for (i = 1; i <= 5; i++) print "idea " i }' > in.tsv
	run -0 --separate-stderr ar-queue put -k batch7 "$S" in.tsv
	same "$output" "$(printf 'batch7-%06d\n' 1 2 3 4 5)"
	# A try that stored a part, then died: the rest comes with the retry.
	rm "$S"/new/*-batch7-000004 "$S"/new/*-batch7-000005
	run -0 ar-queue claim -H w "$S"
	run -0 ar-queue done -H w "$S" batch7-000001
	run -0 --separate-stderr ar-queue put -k batch7 "$S" in.tsv
	same "$output" "$(printf 'batch7-%06d\n' 1 2 3 4 5)"
	same "$(names new)" "$(printf '1000000-batch7-%06d\n' 2 3 4 5)"
	same "$(names done)" "1000000-batch7-000001"
	run -0 ar-queue put -k batch7 "$S" in.tsv
	same "$(ls "$S/new" "$S/cur" "$S/done" | grep -c batch7)" 5
	# The key's records are the same as a put without it would store.
	same "$(jq -r .title "$S"/new/*-batch7-000005)" "idea 5"
	# An explicit id already there is also a record of an earlier try.
	printf '{"id":"mine","title":"x"}\n' > one.jsonl
	run -0 ar-queue put -k k2 "$S" one.jsonl
	run -0 ar-queue put -k k2 "$S" one.jsonl
	same "$output" "mine"
	run -73 --separate-stderr ar-queue put "$S" one.jsonl
	run -64 --separate-stderr ar-queue put -k 'bad key' "$S" one.jsonl
	same "$stderr" "ar-queue: -k bad key: expected 1 to 93 of [A-Za-z0-9._-]"
}

@test "claim: a closed stdout gives the record back to new/ and exits 74" {
	run -0 ar-queue put "$S" "$FIX/fixed.jsonl"
	before=$(names new)
	run --separate-stderr -74 closed claim -n 2 -H w1 "$S"
	same "$stderr" "ar-queue: <stdout>: write failed: Bad file descriptor; the 2 records claimed given back"
	same "$(names new)" "$before"
	same "$(names cur)" ""
	run --separate-stderr -74 reader_gone ar-queue claim -H w1 "$S"
	same "$stderr" "ar-queue: <stdout>: write failed: Broken pipe; the 1 record claimed given back"
	same "$(names new)" "$before"
}

# --- put: batches ------------------------------------------------------------

# Checks that every file in new/ is one whole JSON record whose id is its
# name's, that tmp/ holds only dot files, and that every id in file $1 is
# stored exactly once.
whole_records() {
	local f id
	[ -z "$(ls "$S/tmp")" ]
	for f in "$S"/new/*; do
		[ -e "$f" ] || continue
		id=${f##*/}
		id=${id#*-*-*-}
		[ "$(jq -r .id "$f")" = "$id" ] || { echo "$f: not a whole record of $id" >&2; return 1; }
	done
	names new | sed 's/^[0-9]*-//' | sort > stored.ids
	[ -z "$(uniq -d stored.ids)" ]
	[ -z "$(sort "$1" | comm -23 - stored.ids)" ]
}

@test "put: a batch of 3000 records: each id printed once, in input order, each stored whole" {
	need_jq
	awk 'BEGIN { print "id\tn"; for (i = 1; i <= 3000; i++) printf "b%04d\t%d\n", i, i }' > in
	run -0 --separate-stderr ar-queue put "$S" in
	same "$stderr" ""
	same "$output" "$(seq -f b%04g 1 3000)"
	[ "$(count new)" -eq 3000 ]
	printf '%s\n' "${lines[@]}" > printed
	whole_records printed
	same "$(jq -r .n "$(path_of new 1000000-b2999)")" 2999
}

@test "put: killed with kill -9 midway through a batch: only whole records, every id printed stored" {
	need_jq
	awk 'BEGIN { print "n\tpayload"; for (i = 1; i <= 4000; i++) printf "%d\tpayload %d\n", i, i }' > in
	for r in 1 2 3 4 5 6; do
		: > "put.$r"
		ar-queue put "$S" in >> "put.$r" 2>> errors &
		p=$!
		printf -v d '0.%03d' $((RANDOM % 150))
		sleep "$d"
		kill -9 "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	same "$(cat errors)" ""
	same "$(cat put.* | grep -Ecv "$ID_RE")" 0
	cat put.* > printed
	# Leftovers of a killed batch are dot files in tmp/; ls shows none.
	find "$S/tmp" -type f -name '.*' -delete
	whole_records printed
	run -0 ar-queue ls "$S"
	[ "${#lines[@]}" -eq $(($(count new) + 1)) ]
}

@test "put: 8 concurrent putters of 500 records each: all 4000 stored once, each printed by its putter" {
	need_jq
	for p in 1 2 3 4 5 6 7 8; do
		awk -v p="$p" 'BEGIN { print "id\tn"; for (i = 1; i <= 500; i++) printf "p%d-%03d\t%d\n", p, i, i }' > "in.$p"
	done
	for p in 1 2 3 4 5 6 7 8; do
		ar-queue put "$S" "in.$p" > "out.$p" 2> "err.$p" &
	done
	wait
	same "$(cat err.*)" ""
	for p in 1 2 3 4 5 6 7 8; do
		same "$(cat "out.$p")" "$(tail -n +2 "in.$p" | cut -f 1)"
	done
	cat out.* > printed
	[ "$(count new)" -eq 4000 ]
	whole_records printed
}

@test "put: a malformed record deep in a batch: exit 65, one line naming the input, line and reason, nothing stored" {
	awk 'BEGIN { print "id\tn"; for (i = 1; i <= 2000; i++) printf "ok%04d\t%d\n", i, i; print "bad\tx\ty"; print "last\t1" }' > in
	reject 65 "ar-queue: in: line 2002: 3 fields, header has 2; nothing stored"
	printf '{"id":"j1"}\n{"id":"j2"}\n{"id":\n' > in
	reject 65 "ar-queue: in: line 3: invalid JSON at column 6: unexpected token near end of file; nothing stored"
}

@test "put: an id already queued, deep in a batch, stores nothing of the batch (73)" {
	printf 'id\tn\na1\t1\n' | ar-queue put "$S" > /dev/null
	awk 'BEGIN { print "id\tn"; for (i = 1; i <= 1000; i++) printf "z%04d\t%d\n", i, i; print "a1\t2" }' > in
	run --separate-stderr -73 ar-queue put "$S" in
	same "$output" ""
	same "$stderr" "ar-queue: in: line 1002: id a1 exists already in $S; nothing stored"
	same "$(names new)" "1000000-a1"
	same "$(ls -A "$S/tmp")" ""
}

# --- claim ------------------------------------------------------------------

@test "claim: prints {state, lease: {holder, expires}, record}; new/NAME becomes cur/NAME@EXPIRY@HOLDER" {
	run -0 ar-queue put "$S" "$FIX/ideas.jsonl"
	a=${lines[0]}
	b=${lines[1]}
	new=$(ls "$S/new" | head -n 1)
	t0=$(date +%s)
	run -0 --separate-stderr ar-queue claim -H w1 -l 300 "$S"
	t1=$(date +%s)
	same "$stderr" ""
	[ "${#lines[@]}" -eq 1 ]
	name=$(ls "$S/cur")
	[[ $name =~ ^0999995-$ORD-$a@([0-9]+)@w1$ ]]
	exp=${BASH_REMATCH[1]}
	[ "$exp" -ge $((t0 + 300)) ]
	[ "$exp" -le $((t1 + 300)) ]
	same "$(names new)" "1000000-$b"
	# The lease is the name in new/, then @EXPIRY@HOLDER.
	same "$name" "$new@$exp@w1"
	same "$output" "{\"state\":\"cur\",\"lease\":{\"holder\":\"w1\",\"expires\":\"$(rfc3339 "$exp")\"},\"record\":$(cat "$S/cur/$name")}"
}

@test "claim -f tsv -n: the fixed columns, then the records' fields by name" {
	run -0 ar-queue put "$S" "$FIX/fixed.jsonl"
	run -0 --separate-stderr ar-queue claim -f tsv -n 2 -H w1 -l 600 "$S"
	same "$stderr" ""
	# Each claim's expiry is its own time + 600: they may differ by 1 s.
	[[ $(names cur | tr '\n' ' ') =~ ^0999995-idea-a@([0-9]+)@w1\ 1000000-idea-b@([0-9]+)@w1\ $ ]]
	ea=$(rfc3339 "${BASH_REMATCH[1]}")
	eb=$(rfc3339 "${BASH_REMATCH[2]}")
	same "$output" "$(printf '%s\n' \
	    "state	id	priority	holder	expires	why	params.k	params.warm	queued	score	tags	title" \
	    "cur	idea-a	5	w1	$ea		8	true	2026-01-01T00:00:00Z		a,b	top-k sampling" \
	    "cur	idea-b	0	w1	$eb				2026-01-01T00:00:01Z	1.5		fp8 gemm")"
}

@test "claim: an empty spool: exit 1 and no output at all" {
	run -1 --separate-stderr ar-queue claim -H w1 "$S"
	same "$output" ""
	same "$stderr" ""
	run -1 --separate-stderr ar-queue claim -n 100 -f tsv -H w1 "$S"
	same "$output" ""
	same "$stderr" ""
}

@test "claim -n: claims as many as there are, up to n, and exits 0" {
	run -0 ar-queue put "$S" "$FIX/fixed.jsonl"
	run -0 ar-queue claim -n 3 -H w1 "$S"
	[ "${#lines[@]}" -eq 3 ]
	run -0 ar-queue claim -n 3 -H w2 "$S"
	[ "${#lines[@]}" -eq 1 ]
	run -1 ar-queue claim -n 3 -H w3 "$S"
	[ "$(count cur)" -eq 4 ]
}

@test "claim: higher priority first, then the oldest; the same with -n" {
	need_jq
	printf '%s\n' '{"n":1,"priority":1}' '{"n":2,"priority":5}' '{"n":3,"priority":5}' \
	    '{"n":4,"priority":-2}' '{"n":5}' '{"n":6,"priority":5}' >in1
	printf '%s\n' '{"n":7,"priority":5}' '{"n":8}' >in2
	run -0 ar-queue put "$S" in1
	run -0 ar-queue put "$S" in2
	cp -R "$S" copy
	order=
	for i in $(seq 1 8); do
		run -0 ar-queue claim -H w1 "$S"
		order="$order $(jq -r .record.n <<<"$output")"
	done
	same "$order" " 2 3 6 7 1 5 8 4"
	run -1 ar-queue claim -H w1 "$S"
	run -0 ar-queue claim -n 100 -H w2 copy
	same "$(printf '%s\n' "${lines[@]}" | jq -r .record.n | tr '\n' ' ')" "2 3 6 7 1 5 8 4 "
}

@test "claim: user-given ids keep the oldest-first order within a priority" {
	need_jq
	# Names are PRIO-ORDER-ID, so the put order decides, not the ids'
	# text: "zeta" put before "alpha" is claimed first, and a generated
	# id put between them comes between them.
	printf '{"id":"zeta"}\n' >in
	run -0 ar-queue put "$S" in
	printf '{"n":2}\n' >in
	run -0 ar-queue put "$S" in
	gen=$output
	printf '{"id":"alpha"}\n{"id":"Alpha","priority":1}\n' >in
	run -0 ar-queue put "$S" in
	order=
	for i in 1 2 3 4; do
		run -0 ar-queue claim -H w1 "$S"
		order="$order $(jq -r .record.id <<<"$output")"
	done
	same "$order" " Alpha zeta $gen alpha"
}

@test "claim: the hint of next names keeps the order after a put, a release, and a reap after a file moved in by hand" {
	need_jq
	make_records 300
	run -0 ar-queue claim -H w1 "$S"
	same "$(jq -r .record.id <<<"$output")" r00001
	# The claim wrote the hint: header, token, time, the names its
	# reading of new/ found (all 300: fewer than 512), end.
	[ "$(wc -l <"$S/next")" -eq 304 ]
	same "$(head -n 1 "$S/next")" "ar-spool-next 1"
	same "$(sed -n 4p "$S/next")" "$(craft 0 r00001 1)"
	same "$(tail -n 1 "$S/next")" end
	# Its time, the claimers' cursor, starts past any index.
	same "$(stat -c %Y "$S/next")" 513
	# A record put since, of higher priority, comes first.
	printf '{"id":"urgent","priority":5}\n' >in
	run -0 ar-queue put "$S" in
	run -0 ar-queue claim -H w1 "$S"
	same "$(jq -r .record.id <<<"$output")" urgent
	run -0 ar-queue claim -H w1 "$S"
	same "$(jq -r .record.id <<<"$output")" r00002
	# A record released comes back first in line.
	run -0 ar-queue release -H w1 "$S" r00001
	run -0 ar-queue claim -H w2 "$S"
	same "$(jq -r .record.id <<<"$output")" r00001
	# A file moved into new/ by hand is seen once reap has run.
	run -0 ar-queue claim -H w2 "$S"
	same "$(jq -r .record.id <<<"$output")" r00003
	printf '{"id":"byhand"}\n' >"$S/new/$(craft 9 byhand 999)"
	run -0 ar-queue reap "$S"
	run -0 ar-queue claim -H w2 "$S"
	same "$(jq -r .record.id <<<"$output")" byhand
	# The rest come in order, each once, hint or not.
	for want in $(seq -f 'r%05g' 4 300); do
		run -0 ar-queue claim -f tsv -H w3 "$S"
		same "$(cut -f 2 <<<"${lines[1]}")" "$want"
	done
	run -1 ar-queue claim -H w3 "$S"
	[ "$(count cur)" -eq 302 ]
	# An empty new/ leaves no hint, so a file moved in later is claimed.
	[ ! -e "$S/next" ]
}

@test "claim: a hint that is torn, from another token, or names files outside new/ is not followed" {
	need_jq
	make_records 3
	run -0 ar-queue put "$S" "$FIX/fixed.jsonl"
	tok=$(cat "$S/arrivals")
	cp "$S/new/$(craft 0 r00001 1)" "$S/done/$(craft 0 r00001 1)"
	now=$(date +%s.%N)
	# Torn: no end line.
	printf 'ar-spool-next 1\n%s\n%s\n%s\n' "$tok" "$now" "$(craft 0 r00003 3)" >"$S/next"
	run -0 ar-queue claim -H w1 "$S"
	same "$(jq -r .record.id <<<"$output")" idea-a
	# Another token: written before a record arrived.
	printf 'ar-spool-next 1\nsome-other-token\n%s\n%s\nend\n' "$now" "$(craft 0 r00003 3)" >"$S/next"
	run -0 ar-queue claim -H w1 "$S"
	same "$(jq -r .record.id <<<"$output")" r00001
	# Names that are not record names of new/ are skipped; the claim
	# then reads new/.
	tok=$(cat "$S/arrivals")
	printf 'ar-spool-next 1\n%s\n%s\n../done/%s\n/etc/passwd\nend\n' "$tok" "$(date +%s.%N)" "$(craft 0 r00001 1)" >"$S/next"
	run -0 ar-queue claim -H w1 "$S"
	same "$(jq -r .record.id <<<"$output")" r00002
	same "$(ls "$S/done")" "$(craft 0 r00001 1)"
	# Not a hint at all.
	head -c 5000 /dev/urandom >"$S/next"
	run -0 ar-queue claim -H w1 "$S"
	same "$(jq -r .record.id <<<"$output")" r00003
	same "$(names cur | sed 's/@.*//')" "$(printf '%s\n' 0999995-idea-a 1000000-r00001 1000000-r00002 1000000-r00003)"
}

@test "claim: the holder is -H, else \$AR_HOLDER, else the short host name" {
	host=$(uname -n)
	host=${host%%.*}
	[[ $host =~ ^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$ ]] ||
	    skip "the host name '$host' is not a valid holder"
	run -0 ar-queue put "$S" "$FIX/fixed.jsonl"
	run -0 env -u AR_HOLDER ar-queue claim "$S"
	run -0 env AR_HOLDER= ar-queue claim "$S"
	run -0 env AR_HOLDER=envw ar-queue claim "$S"
	run -0 env AR_HOLDER=envw ar-queue claim -H w9 "$S"
	same "$(names cur | sed 's/@[0-9]*@/@EXPIRY@/')" "$(printf '%s\n' \
	    "0999995-idea-a@EXPIRY@$host" "1000000-idea-b@EXPIRY@$host" \
	    "1000000-idea-d@EXPIRY@envw" "1000001-idea-c@EXPIRY@w9")"
	# The same defaults find the leases again.
	run -0 env -u AR_HOLDER ar-queue done "$S" idea-a
	run -75 env AR_HOLDER=envw ar-queue done "$S" idea-b
	run -0 env AR_HOLDER=envw ar-queue done "$S" idea-d
	run -0 env AR_HOLDER=envw ar-queue done -H w9 "$S" idea-c
	same "$(names cur | sed 's/@[0-9]*@/@EXPIRY@/')" "1000000-idea-b@EXPIRY@$host"
}

@test "claim: a record file that is not JSON is set aside in failed/ and the next is claimed" {
	run -0 ar-queue put "$S" "$FIX/fixed.jsonl"
	bad=$(craft 999999 corrupt 1)
	echo 'not json' >"$S/new/$bad"
	run -0 --separate-stderr ar-queue claim -H w1 "$S"
	same "$(names failed)" "0000001-corrupt"
	same "$(cat "$S/why/$bad")" "unreadable record"
	[[ ${stderr_lines[0]} == "ar-queue: spool/cur/$bad@"*"@w1: invalid JSON at column 3: '[' or '{' expected near 'not'" ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ $output == *'"id":"idea-a"'* ]]
	[[ $(names cur) == 0999995-idea-a@*@w1 ]]
}

@test "claim -n: unreadable records do not count; n readable ones are claimed" {
	run -0 ar-queue put "$S" "$FIX/fixed.jsonl"
	echo 'not json' >"$S/new/$(craft 999999 bad-1 1)"
	printf '{"a":' >"$S/new/$(craft 7 bad-2 2)"
	# Larger than any record put stores.
	head -c 2000000 /dev/zero >"$S/new/$(craft 6 bad-3 3)"
	run -0 --separate-stderr ar-queue claim -f tsv -n 2 -H w1 "$S"
	[ "${#lines[@]}" -eq 3 ]
	same "$(printf '%s\n' "${lines[@]:1}" | cut -f 2)" "$(printf '%s\n' idea-a idea-b)"
	[ "${#stderr_lines[@]}" -eq 3 ]
	[[ ${stderr_lines[2]} == "ar-queue: spool/cur/$(craft 6 bad-3 3)@"*"@w1: File too large" ]]
	same "$(names failed)" "$(printf '%s\n' 0000001-bad-1 0999993-bad-2 0999994-bad-3)"
	same "$(cat "$S"/why/*)" "$(printf 'unreadable record\n%.0s' 1 2 3)"
	# When every record claim takes is unreadable, claim exits 1 as if
	# new/ were empty.
	run -0 ar-queue claim -n 2 -H w1 "$S"
	echo 'not json' >"$S/new/$(craft 1 bad-4 4)"
	run -1 --separate-stderr ar-queue claim -H w1 "$S"
	same "$output" ""
	[ "${#stderr_lines[@]}" -eq 1 ]
	same "$(names failed | tail -n 1)" "0999999-bad-4"
	same "$(names new)" ""
}

@test "claim: a stray file in new/ is skipped, not claimed or retried forever" {
	touch "$S/new/README" "$S/new/notes~"
	run -1 --separate-stderr timeout 3 ar-queue claim -H w1 "$S"
	same "$output" ""
	same "$stderr" ""
	run -1 timeout 3 ar-queue claim -n 10 -H w1 "$S"
	run -0 ar-queue put "$S" "$FIX/fixed.jsonl"
	run -0 timeout 3 ar-queue claim -n 10 -H w1 "$S"
	[ "${#lines[@]}" -eq 4 ]
	run -0 ar-queue put "$S" "$FIX/ideas.jsonl"
	run -0 timeout 3 ar-queue claim -H w1 "$S"
	run -0 timeout 3 ar-queue claim -H w1 "$S"
	run -1 timeout 3 ar-queue claim -H w1 "$S"
	same "$(ls "$S/new")" "$(printf '%s\n' README 'notes~')"
	same "$(ls "$S/failed")" ""
	# ls does not list them either.
	run -0 --separate-stderr ar-queue ls -s new "$S"
	same "$output" "state	id	priority	holder	expires	why"
	same "$stderr" ""
}

# The record {"id":"big","x":"aaa...","queued":...}, with x as long as it
# takes for the file that put stores to be $1 bytes; with $2 = stored, the
# file put stores ("priority" added, then a newline).
big_record() {
	local base='{"id":"big","x":"","queued":"2026-01-01T00:00:00Z","priority":0}'
	printf '{"id":"big","x":"'
	head -c $(($1 - ${#base} - 1)) /dev/zero | tr '\0' a
	if [ "${2-}" = stored ]; then
		printf '","queued":"2026-01-01T00:00:00Z","priority":0}\n'
	else
		printf '","queued":"2026-01-01T00:00:00Z"}\n'
	fi
}

@test "put: the largest record it accepts (1 MiB stored) can be claimed and listed" {
	big_record 1048576 >in
	run -0 --separate-stderr ar-queue put "$S" in
	same "$output" big
	same "$stderr" ""
	big_record 1048576 stored >stored
	[ "$(wc -c <stored)" -eq 1048576 ]
	cmp stored "$(path_of new 1000000-big)"
	run -0 --separate-stderr ar-queue ls "$S"
	same "$stderr" ""
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[1]} == "new	big	0				2026-01-01T00:00:00Z	aaa"* ]]
	run -0 --separate-stderr ar-queue claim -H w1 "$S"
	same "$stderr" ""
	[[ $output =~ ^\{\"state\":\"cur\",\"lease\":\{\"holder\":\"w1\",\"expires\":\"[0-9TZ:-]{20}\"\},\"record\":(.*)\}$ ]]
	same "${BASH_REMATCH[1]}" "$(cat stored)"
}

@test "put: a record that would be more than 1 MiB once stored is refused (65), nothing stored" {
	big_record 1048577 >in
	reject 65 "ar-queue: in: line 1: the record would be 1048577 bytes, more than 1048576; nothing stored"
	# Under the line limit in TSV, but each control byte becomes \u00XX
	# in JSON: 200,000 bytes grow to 1,200,000.
	{ printf 'x\nsmall\n'; head -c 200000 /dev/zero | tr '\0' '\1'; printf '\n'; } >in
	reject 65 "ar-queue: in: line 3: the record would be 1200102 bytes, more than 1048576; nothing stored"
}

# --- ls ---------------------------------------------------------------------

# Puts fixed.jsonl and leaves idea-c in new/, idea-a claimed by w1 with
# the expiry 2000000000, idea-b done and idea-d failed for "oom at k=8".
four_states() {
	run -0 ar-queue put "$S" "$FIX/fixed.jsonl"
	run -0 ar-queue claim -H w1 "$S"
	run -0 ar-queue claim -H w2 "$S"
	run -0 ar-queue done -H w2 "$S" idea-b
	run -0 ar-queue claim -H w3 "$S"
	run -0 ar-queue fail -H w3 -r "oom at	k=8" "$S" idea-d
	lease=$(ls "$S/cur")
	mv "$S/cur/$lease" "$S/cur/${lease%%@*}@2000000000@w1"
}

@test "ls: one row per record in state order, fixed columns, then the fields by name" {
	four_states
	run -0 --separate-stderr ar-queue ls "$S"
	same "$stderr" ""
	same "$output" "$(printf '%s\n' \
	    "state	id	priority	holder	expires	why	note	params.k	params.warm	queued	score	tags	title" \
	    "new	idea-c	-1				two\\nlines\\twith tab			2026-01-01T00:00:02Z			spec decode" \
	    "cur	idea-a	5	w1	2033-05-18T03:33:20Z			8	true	2026-01-01T00:00:00Z		a,b	top-k sampling" \
	    "done	idea-b	0							2026-01-01T00:00:01Z	1.5		fp8 gemm" \
	    "failed	idea-d	0			oom at\\tk=8				2026-01-01T00:00:03Z			moe routing")"
}

@test "ls -s: only the records of one state; the columns follow them" {
	four_states
	run -0 ar-queue ls -s failed "$S"
	same "$output" "$(printf '%s\n' \
	    "state	id	priority	holder	expires	why	queued	title" \
	    "failed	idea-d	0			oom at\\tk=8	2026-01-01T00:00:03Z	moe routing")"
	run -0 ar-queue ls -s cur "$S"
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[1]} == "cur	idea-a	5	w1	2033-05-18T03:33:20Z	"* ]]
	run -0 ar-queue ls -s new "$S"
	[[ ${lines[1]} == "new	idea-c	"* ]]
	run -0 ar-queue ls -s done "$S"
	[[ ${lines[1]} == "done	idea-b	"* ]]
	[ "${#lines[@]}" -eq 2 ]
}

@test "ls -f jsonl: state, lease, why and the record" {
	four_states
	run -0 ar-queue ls -f jsonl "$S"
	same "$output" "$(printf '%s\n' \
	    '{"state":"new","record":{"id":"idea-c","title":"spec decode","priority":-1,"note":"two\nlines\twith tab","queued":"2026-01-01T00:00:02Z"}}' \
	    '{"state":"cur","lease":{"holder":"w1","expires":"2033-05-18T03:33:20Z"},"record":{"id":"idea-a","title":"top-k sampling","priority":5,"queued":"2026-01-01T00:00:00Z","params":{"k":8,"warm":true},"tags":["a","b"]}}' \
	    '{"state":"done","record":{"id":"idea-b","title":"fp8 gemm","score":1.5,"queued":"2026-01-01T00:00:01Z","priority":0}}' \
	    '{"state":"failed","why":"oom at\tk=8","record":{"id":"idea-d","title":"moe routing","queued":"2026-01-01T00:00:03Z","priority":0}}')"
}

@test "ls: an empty spool prints the header only" {
	run -0 --separate-stderr ar-queue ls "$S"
	same "$output" "state	id	priority	holder	expires	why"
	same "$stderr" ""
	run -0 ar-queue ls -f jsonl "$S"
	same "$output" ""
}

@test "ls, claim -f tsv: a record field named like a fixed column is shown as record.NAME" {
	# Otherwise the header would name "state" twice, which TSV readers
	# (ar-queue put among them) refuse. The record's own id and priority
	# are the id and priority columns.
	printf 'title\tstate\twhy\tholder\texpires\nx\tdraft\tbecause\tme\tnever\n' >in
	run -0 ar-queue put "$S" in
	id=$output
	run -0 --separate-stderr ar-queue ls "$S"
	same "$stderr" ""
	q=$(sed 's/.*"queued":"\([^"]*\)".*/\1/' "$(path_of new "1000000-$id")")
	same "$output" "$(printf '%s\n' \
	    "state	id	priority	holder	expires	why	queued	record.expires	record.holder	record.state	record.why	title" \
	    "new	$id	0				$q	never	me	draft	because	x")"
	ar-queue ls "$S" >listing
	ar-queue init copy
	run -0 ar-queue put copy listing
	run -0 --separate-stderr ar-queue claim -f tsv -H w1 "$S"
	same "$stderr" ""
	exp=$(rfc3339 "$(ls "$S/cur" | sed 's/.*@\([0-9]*\)@w1$/\1/')")
	same "$output" "$(printf '%s\n' \
	    "state	id	priority	holder	expires	why	queued	record.expires	record.holder	record.state	record.why	title" \
	    "cur	$id	0	w1	$exp		$q	never	me	draft	because	x")"
	run -0 ar-queue ls -f jsonl "$S"
	same "$output" "{\"state\":\"cur\",\"lease\":{\"holder\":\"w1\",\"expires\":\"$exp\"},\"record\":{\"title\":\"x\",\"state\":\"draft\",\"why\":\"because\",\"holder\":\"me\",\"expires\":\"never\",\"priority\":0,\"id\":\"$id\",\"queued\":\"$q\"}}"
}

@test "ls: a record whose file cannot be read (not malformed) exits 66; claim -n sets it aside and claims n others" {
	run -0 ar-queue put "$S" "$FIX/fixed.jsonl"
	bad=$(craft 999999 locked 1)
	echo '{"id":"locked"}' >"$S/new/$bad"
	chmod 0 "$S/new/$bad"
	run -66 --separate-stderr unprivileged ar-queue ls -s new "$S"
	same "$stderr" "ar-queue: spool/new/$bad: Permission denied"
	[[ "${lines[1]}" == "new	locked	999999			unreadable record"* ]]
	run -0 --separate-stderr unprivileged ar-queue claim -f tsv -n 3 -H w1 "$S"
	same "$(printf '%s\n' "${lines[@]:1}" | cut -f 2)" "$(printf '%s\n' idea-a idea-b idea-d)"
	[[ "$stderr" == "ar-queue: spool/cur/$bad@"*"@w1: Permission denied" ]]
	same "$(names failed)" "0000001-locked"
	same "$(names cur | sed 's/@.*//')" "$(printf '%s\n' 0999995-idea-a 1000000-idea-b 1000000-idea-d)"
}

@test "ls: a record that cannot be read is listed from its name, reported, and ls exits 65" {
	run -0 ar-queue put "$S" "$FIX/fixed.jsonl"
	bad=$(craft 0 corrupt 1)
	echo 'not json' >"$S/new/$bad"
	run -65 --separate-stderr ar-queue ls "$S"
	same "$stderr" "ar-queue: spool/new/$bad: invalid JSON at column 3: '[' or '{' expected near 'not'"
	# Listed in claim order: its ORDER is older than those of the
	# records put.
	same "$output" "$(printf '%s\n' \
	    "state	id	priority	holder	expires	why	note	params.k	params.warm	queued	score	tags	title" \
	    "new	idea-a	5					8	true	2026-01-01T00:00:00Z		a,b	top-k sampling" \
	    "new	corrupt	0			unreadable record							" \
	    "new	idea-b	0							2026-01-01T00:00:01Z	1.5		fp8 gemm" \
	    "new	idea-d	0							2026-01-01T00:00:03Z			moe routing" \
	    "new	idea-c	-1				two\\nlines\\twith tab			2026-01-01T00:00:02Z			spec decode")"
	run -65 --separate-stderr ar-queue ls -f jsonl -s new "$S"
	same "${lines[1]}" '{"state":"new","why":"unreadable record","record":{"id":"corrupt"}}'
	[ "${#lines[@]}" -eq 5 ]
	same "$stderr" "ar-queue: spool/new/$bad: invalid JSON at column 3: '[' or '{' expected near 'not'"
	# Another state lists without it, and exits 0.
	run -0 --separate-stderr ar-queue ls -s cur "$S"
	same "$stderr" ""
	# Claimed, it is set aside in failed/; ls still lists and names it
	# there, but a record already set aside is no new fault: exit 0.
	run -0 ar-queue claim -n 2 -H w1 "$S"
	run -0 --separate-stderr ar-queue ls -s failed "$S"
	same "$output" "$(printf '%s\n' \
	    "state	id	priority	holder	expires	why" \
	    "failed	corrupt	0			unreadable record")"
	same "$stderr" "ar-queue: spool/failed/$bad: invalid JSON at column 3: '[' or '{' expected near 'not'"
	# In cur/, the lease in its name is shown.
	mv "$S/failed/$bad" "$S/cur/$bad@2000000000@w2"
	run -65 --separate-stderr ar-queue ls -s cur "$S"
	same "${lines[2]}" "cur	corrupt	0	w2	2033-05-18T03:33:20Z	unreadable record						"
	[ "${#lines[@]}" -eq 4 ]
}

# --- done, fail, release, renew ---------------------------------------------

@test "done: moves the claimed record to done/; a second done loses (75)" {
	run -0 ar-queue put "$S" "$FIX/fixed.jsonl"
	run -0 ar-queue claim -H w1 "$S"
	run -0 --separate-stderr ar-queue done -H w1 "$S" idea-a
	same "$output" ""
	same "$stderr" ""
	same "$(names done)" "0999995-idea-a"
	same "$(names cur)" ""
	run -75 --separate-stderr ar-queue done -H w1 "$S" idea-a
	same "$output" ""
	same "$stderr" "ar-queue: spool: idea-a: no lease held by w1 (expired and reaped, or never claimed)"
	same "$(names done)" "0999995-idea-a"
}

@test "done: by another holder: exit 75 and the record untouched" {
	run -0 ar-queue put "$S" "$FIX/fixed.jsonl"
	run -0 ar-queue claim -H w1 "$S"
	name=$(ls "$S/cur")
	cp "$S/cur/$name" before
	for cmd in done fail release renew; do
		run -75 --separate-stderr ar-queue "$cmd" -H w2 "$S" idea-a
		same "$output" ""
		same "$stderr" "ar-queue: spool: idea-a: no lease held by w2 (expired and reaped, or never claimed)"
		same "$(ls "$S/cur")" "$name"
		cmp before "$S/cur/$name"
	done
	same "$(names done)$(names failed)$(ls "$S/why")" ""
}

@test "done: a record never claimed, or unknown: exit 75, nothing moved" {
	run -0 ar-queue put "$S" "$FIX/fixed.jsonl"
	run -75 --separate-stderr ar-queue done -H w1 "$S" idea-a nosuch
	same "$stderr" "$(printf '%s\n' \
	    "ar-queue: spool: idea-a: no lease held by w1 (expired and reaped, or never claimed)" \
	    "ar-queue: spool: nosuch: no lease held by w1 (expired and reaped, or never claimed)")"
	[ "$(count new)" -eq 4 ]
}

@test "done: several ids; the ones held are done even when one is lost" {
	run -0 ar-queue put "$S" "$FIX/fixed.jsonl"
	run -0 ar-queue claim -n 2 -H w1 "$S"
	run -75 --separate-stderr ar-queue done -H w1 "$S" idea-a idea-c idea-b
	same "$stderr" "ar-queue: spool: idea-c: no lease held by w1 (expired and reaped, or never claimed)"
	same "$(names done)" "$(printf '%s\n' 0999995-idea-a 1000000-idea-b)"
}

@test "fail -r: moves the record to failed/ and keeps the reason in why/" {
	run -0 ar-queue put "$S" "$FIX/fixed.jsonl"
	run -0 ar-queue claim -H w1 "$S"
	run -0 --separate-stderr ar-queue fail -H w1 -r 'out of memory
at k=8' "$S" idea-a
	same "$output" ""
	same "$stderr" ""
	same "$(names failed)" "0999995-idea-a"
	same "$(cat "$(path_of why 0999995-idea-a)")" "out of memory
at k=8"
	run -0 ar-queue ls -s failed "$S"
	[[ ${lines[1]} == "failed	idea-a	5			out of memory\\nat k=8	"* ]]
	# Without -r the reason is empty.
	run -0 ar-queue claim -H w1 "$S"
	run -0 ar-queue fail -H w1 "$S" idea-b
	run -0 ar-queue ls -s failed "$S"
	[[ ${lines[2]} == "failed	idea-b	0				"* ]]
}

@test "release: puts the record back in new/ under its old name, first in line again" {
	run -0 ar-queue put "$S" "$FIX/fixed.jsonl"
	first=$(ls "$S/new" | head -n 1)
	run -0 ar-queue claim -H w1 "$S"
	run -0 --separate-stderr ar-queue release -H w1 "$S" idea-a
	same "$output" ""
	same "$stderr" ""
	same "$(names cur)" ""
	same "$(ls "$S/new" | head -n 1)" "$first"
	same "$(names new | head -n 1)" "0999995-idea-a"
	run -0 ar-queue claim -H w2 "$S"
	[[ $output == *'"holder":"w2"'*'"id":"idea-a"'* ]]
	run -75 ar-queue done -H w1 "$S" idea-a
}

@test "renew: moves the expiry to now + -l; the holder can still finish" {
	run -0 ar-queue put "$S" "$FIX/fixed.jsonl"
	run -0 ar-queue claim -H w1 -l 5 "$S"
	t0=$(date +%s)
	run -0 --separate-stderr ar-queue renew -H w1 -l 7200 "$S" idea-a
	t1=$(date +%s)
	same "$output" ""
	same "$stderr" ""
	[[ $(names cur) =~ ^0999995-idea-a@([0-9]+)@w1$ ]]
	[ "${BASH_REMATCH[1]}" -ge $((t0 + 7200)) ]
	[ "${BASH_REMATCH[1]}" -le $((t1 + 7200)) ]
	run -0 ar-queue reap "$S"
	same "$output" 0
	run -0 ar-queue done -H w1 "$S" idea-a
}

# --- reap -------------------------------------------------------------------

@test "reap: an expired lease goes back to new/; the old holder then loses (75)" {
	run -0 ar-queue put "$S" "$FIX/fixed.jsonl"
	run -0 ar-queue claim -n 2 -H w1 "$S"
	# idea-a's lease expired long ago; idea-b's has ten minutes to go.
	lease=$(ls "$S/cur" | head -n 1)
	mv "$S/cur/$lease" "$S/cur/${lease%%@*}@1000@w1"
	run -0 --separate-stderr ar-queue reap "$S"
	same "$output" 1
	same "$stderr" ""
	same "$(names new | head -n 1)" "0999995-idea-a"
	[[ $(names cur) == 1000000-idea-b@*@w1 ]]
	for cmd in done fail release renew; do
		run -75 ar-queue "$cmd" -H w1 "$S" idea-a
	done
	run -0 ar-queue claim -H w2 "$S"
	run -75 ar-queue done -H w1 "$S" idea-a
	run -0 ar-queue done -H w2 "$S" idea-a
	run -0 ar-queue done -H w1 "$S" idea-b
	run -0 ar-queue reap "$S"
	same "$output" 0
}

@test "reap: a real one-second lease expires" {
	run -0 ar-queue put "$S" "$FIX/fixed.jsonl"
	run -0 ar-queue claim -H w1 -l 1 "$S"
	sleep 2
	run -0 ar-queue reap "$S"
	same "$output" 1
	run -75 --separate-stderr ar-queue done -H w1 "$S" idea-a
	same "$stderr" "ar-queue: spool: idea-a: no lease held by w1 (expired and reaped, or never claimed)"
	[ "$(count new)" -eq 4 ]
}

@test "reap: removes tmp/ files older than a day, keeps newer ones" {
	touch -d '2 days ago' "$S/tmp/.tmp-old"
	touch "$S/tmp/.tmp-fresh"
	run -0 ar-queue reap "$S"
	same "$output" 0
	same "$(ls -A "$S/tmp")" ".tmp-fresh"
}

# A batch of 64 records or more also leaves batch/NAME, every record's
# name, inode and bytes in one file, for readers of many records
# (ar-sched next); reap removes it once its records have all left new/
# and cur/.
@test "put: a batch of 64 or more leaves a manifest of its records; reap removes it once they are gone" {
	awk 'BEGIN { print "title"; for (i = 0; i < 63; i++) print "t" i }' > small.tsv
	run -0 ar-queue put "$S" small.tsv
	[ ! -e "$S/batch" ]
	awk 'BEGIN { print "title"; for (i = 0; i < 64; i++) print "u" i }' > big.tsv
	run -0 ar-queue put "$S" big.tsv
	m=$(ls "$S/batch")
	[ "$(ls "$S/batch" | wc -l)" -eq 1 ]
	# Its first line, then each record: name, inode, length, bytes.
	same "$(head -1 "$S/batch/$m")" "ar-spool batch 1"
	f=$(grep -l '"title":"u5"' "$S"/new/*)
	n=${f##*/}
	same "$(grep -A1 "^$n " "$S/batch/$m")" "$n $(stat -c %i "$f") $(stat -c %s "$f")
$(cat "$f")"
	[ "$m" = "$(ls "$S/new" | grep -- "$(sed -n 2p "$S/batch/$m" | cut -d ' ' -f 1)")" ]
	[[ "$(tail -1 "$S/batch/$m")" =~ ^sum\ [0-9a-f]{64}$ ]]
	# Kept while one record of it lives, in new/ or claimed in cur/.
	for r in $(grep -l '"title":"u' "$S"/new/* | tail -n +2); do rm "$r"; done
	run -0 ar-queue reap "$S"
	[ -e "$S/batch/$m" ]
	run -0 ar-queue claim -n 100 "$S"
	[ "$(grep -l '"title":"u' "$S"/cur/* | wc -l)" -eq 1 ]
	run -0 ar-queue reap "$S"
	[ -e "$S/batch/$m" ]
	rm "$S"/cur/*
	run -0 ar-queue reap "$S"
	[ ! -e "$S/batch/$m" ]
}
