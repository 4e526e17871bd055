#!/usr/bin/env bats
# ar-formats: every reader of a TSV or JSON Lines input (ar-formats(5))
# given what no autoreduce program writes: an empty first line (it
# crashed every TSV reader once, exit 139 and no message) and a
# directory. Each command reads these through lib/tsv and lib/io, so
# each must fail the same way: a one-line message naming the input, and
# the documented exit code (65 malformed, 66 unreadable).

bats_require_minimum_version 1.5.0
load common

setup() {
	ar_ledger_setup
	cd "$T"
	ar-queue init q > /dev/null
	ar-ledger export -C "$C" > ledger.tsv
	printf 'node\tgpu\tmodel\tmemory_mib\tnvlink\nn1\t0\tcpu\t\t\n' > topo.tsv
}

teardown() {
	ar_teardown
}

# The commands that read a TSV, each with IN where its input goes, one a
# line: the list of issue 18.
readers() {
	cat <<-EOF
	ar-curve IN
	ar-curve -f jsonl IN
	ar-ledger import -C $C -F autoresearch IN
	ar-ledger import -C $C -F pi IN
	ar-ledger append -C $C IN
	ar-queue put -f tsv q IN
	ar-queue put -f jsonl q IN
	ar-digest -l IN
	ar-digest -l ledger.tsv -c IN
	ar-digest -F autoresearch IN
	ar-digest -F pi IN
	ar-sched simulate IN
	ar-sched gpus -g IN
	ar-sched pack -g IN 1
	ar-sched next -C $C -l IN -g topo.tsv
	ar-sched next -C $C -m IN -g topo.tsv
	ar-run local -C $C -g IN --once
	ar-run local -C $C -i IN -g topo.tsv --once
	EOF
}

# each FILE STATUS MESSAGE: every reader on FILE exits STATUS and says
# "PROG: FILE: MESSAGE", and only that, on stderr; the reader's name and
# what it printed where it did not.
each() {
	local cmd bad=0
	while read -r cmd; do
		run --separate-stderr ${cmd/IN/$1} < /dev/null
		if [ "$status" -ne "$2" ] || [ "$stderr" != "${cmd%% *}: $1: $3" ]; then
			printf '%s: exit %s: %s\n' "$cmd" "$status" "$stderr" >&2
			bad=1
		fi
	done < <(readers)
	[ "$bad" -eq 0 ]
}

@test "ar-formats: an empty first line: every TSV reader says the header has no column name (65)" {
	printf '\nx\n' > empty-first
	local cmd bad=0
	while read -r cmd; do
		case $cmd in *jsonl* | *pi\ IN | *append* | *-c\ IN) continue ;; esac
		run --separate-stderr ${cmd/IN/empty-first} < /dev/null
		# ar-queue put says too that it stored none of it.
		case $status:$stderr in
		"65:${cmd%% *}: empty-first: header: column 1 has no name" | \
		"65:ar-queue: empty-first: header: column 1 has no name; nothing stored") ;;
		*)
			printf '%s: exit %s: %s\n' "$cmd" "$status" "$stderr" >&2
			bad=1
			;;
		esac
	done < <(readers)
	[ "$bad" -eq 0 ]
}

@test "ar-formats: a directory as input: every TSV and JSON Lines reader exits 66, 'is a directory'" {
	mkdir dir
	each dir 66 "is a directory"
	# Nothing was stored on the way.
	run ar-queue ls -f jsonl q
	same "$output" ""
}
