#!/usr/bin/env bats
# ar-ledger: the result store of a campaign. Tests append (signature,
# campaign, seal and method checks, canonical form, all-or-nothing, blank
# lines and CRLF, loose files versus segments, no-op repeats, id clashes),
# verify (problems named by where and id, and counted: tampering with
# loose files, segment columns and indexes, ids stored twice, files named
# after another id), export (tsv, jsonl, autoresearch; -u, -V leaving bad
# rows out by place), import of karpathy/autoresearch results.tsv and
# pi-autoresearch autoresearch.jsonl (unsigned rows, and one-line errors
# for malformed logs), compact, read-only ledgers (73), and the lock
# (stale, busy for AR_LOCK_WAIT seconds, broken with -B). Concurrent
# writers and kill -9 at random instants are stress tests
# (tests/stress/ar-ledger-stress.bats). A test that shows a defect still
# in the code is skipped with a reason starting "BUG:".

bats_require_minimum_version 1.5.0
load common

FIX="$BATS_TEST_DIRNAME/fixtures/ledger"

# The columns of a result made by ar-sign-test -g, in export order.
GEN_HEADER="id	signed	baseline.tok_s.ci_hi	baseline.tok_s.ci_lo	baseline.tok_s.median	baseline.tok_s.n	baseline.tok_s.rsd	build	campaign	device	experiment	finished	idea	method.commit	method.hash	metric	metrics.p95_ms.ci_hi	metrics.p95_ms.ci_lo	metrics.p95_ms.median	metrics.p95_ms.n	metrics.p95_ms.rsd	metrics.tok_s.ci_hi	metrics.tok_s.ci_lo	metrics.tok_s.median	metrics.tok_s.n	metrics.tok_s.rsd	ratio.ci_hi	ratio.ci_lo	ratio.median	ratio.n	ratio.rsd	sandbox	seal	seeds	shape.gpu_ids	shape.gpu_model	shape.k	shape.node	started	verdict	why	workload"

HASH=abababababababababababababababababababababababababababababababab

setup() {
	ar_ledger_setup
}

# ar-init seals problem/ read-only; let bats remove the scratch tree.
teardown() {
	ar_teardown
}

# sign FILE: signs the JSON lines on stdin for this campaign.
sign() {
	ar-sign-test -C "$C" > "$1"
}

# ids FILE: the ids of a JSON Lines file, one a line.
ids() {
	jq -r .id "$1"
}

# by_id FILE: the lines of FILE sorted by their id (storage order).
by_id() {
	paste <(jq -r .id "$1") "$1" | LC_ALL=C sort -t '	' -k1,1 | cut -f2-
}

# get TSVFILE ID COLUMN: a field of an exported TSV, found by name.
get() {
	awk -F '\t' -v id="$2" -v c="$3" '
	    NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
	    $1 == id { if (c in h) print $h[c]; else print "NO COLUMN " c }' "$1"
}

nothing_stored() {
	run ls -A "$L/results" "$L/seg"
	[ "$status" -eq 0 ]
	[ "$output" = "$L/results:

$L/seg:" ]
}

usage_text="usage: ar-ledger append [-C campaign] [file ...]
       ar-ledger verify [-C campaign] [-F] [-s] [-k fingerprint]
       ar-ledger export [-C campaign] [-f tsv|jsonl|autoresearch] [-m metric] [-w workload] [-u] [-V] [-k fingerprint] [-A segment] [-c columns] [-K known]
       ar-ledger import [-C campaign] -F autoresearch|pi [-m metric] [-d lower|higher] file
       ar-ledger compact [-C campaign] [-B]"

# ---- command line ----

@test "ar-ledger -h prints the usage on stdout and exits 0" {
	run --separate-stderr ar-ledger -h
	[ "$status" -eq 0 ]
	[ "$output" = "$usage_text" ]
	[ "$stderr" = "" ]
}

@test "ar-ledger --version prints the name and version" {
	run --separate-stderr ar-ledger --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^ar-ledger\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
}

@test "ar-ledger: usage errors exit 64 with the usage on stderr" {
	for args in "verify extra" "export extra" "compact extra" \
	    "import $FIX/results.tsv" "import -F pi" "import -F pi a b"; do
		echo "# args: $args"
		# shellcheck disable=SC2086
		run -64 --separate-stderr ar-ledger $args -C "$C"
		[ "$output" = "" ]
		[ "$stderr" = "$usage_text" ]
	done
	run -64 --separate-stderr ar-ledger
	[ "$stderr" = "$usage_text" ]
	# An unknown subcommand is named, as ar-campaign and ar-run name theirs.
	for sub in frob --frob -C; do
		run -64 --separate-stderr ar-ledger "$sub" -C "$C"
		[ "$stderr" = "ar-ledger: $sub: unknown subcommand (append, verify, export, import or compact)
$usage_text" ]
	done
}

@test "ar-ledger: a bad -f or -F value names itself and exits 64" {
	run -64 --separate-stderr ar-ledger export -C "$C" -f xml
	[ "$stderr" = "ar-ledger: -f xml: expected tsv, jsonl or autoresearch" ]
	run -64 --separate-stderr ar-ledger import -C "$C" -F mlflow "$FIX/results.tsv"
	[ "$stderr" = "ar-ledger: -F mlflow: expected autoresearch or pi" ]
}

# getopt's message names the program. (It once named the subcommand,
# "verify: invalid option -- 'q'", as argv was shifted before getopt.)
@test "ar-ledger: an unknown option is reported under the program's name" {
	run -64 --separate-stderr ar-ledger verify -C "$C" -q
	[ "${stderr_lines[0]}" = "ar-ledger: invalid option -- 'q'" ]
}

# ---- append, verify, export ----

@test "ar-ledger: append stores loose files that verify accepts" {
	gen 3 "$T/r.jsonl"
	run -0 --separate-stderr ar-ledger append -C "$C" "$T/r.jsonl"
	[ "$output" = "" ]
	[ "$stderr" = "ar-ledger: append: 3 stored, 0 already there" ]
	for id in $(ids "$T/r.jsonl"); do
		[ -f "$L/results/$id.json" ]
		[ "$(cat "$L/results/$id.json")" = "$(grep "\"id\":\"$id\"" "$T/r.jsonl")" ]
	done
	run -0 ls "$L/seg"
	[ "$output" = "" ]
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem" ]
	[ "$stderr" = "ar-ledger: 3 rows: 3 verified, 0 unsigned (imported); 0 problems" ]
}

@test "ar-ledger: append reads stdin and AR_CAMPAIGN names the campaign" {
	gen 2 "$T/r.jsonl"
	AR_CAMPAIGN=$C run -0 --separate-stderr ar-ledger append < "$T/r.jsonl"
	[ "$stderr" = "ar-ledger: append: 2 stored, 0 already there" ]
	cd "$C"
	run -0 --separate-stderr ar-ledger verify
	[ "$stderr" = "ar-ledger: 2 rows: 2 verified, 0 unsigned (imported); 0 problems" ]
}

@test "ar-ledger: export tsv has the sorted column header and one row per result" {
	gen 3 "$T/r.jsonl"
	run -0 ar-ledger append -C "$C" "$T/r.jsonl"
	run -0 --separate-stderr ar-ledger export -C "$C"
	[ "$stderr" = "" ]
	[ "${#lines[@]}" -eq 4 ]
	[ "${lines[0]}" = "$GEN_HEADER" ]
	save "$T/x.tsv"
	want_ids=$(ids "$T/r.jsonl" | LC_ALL=C sort)
	[ "$(cut -f1 "$T/x.tsv" | tail -n +2)" = "$want_ids" ]
	i=0
	for id in $(ids "$T/r.jsonl"); do
		line=$(grep "\"id\":\"$id\"" "$T/r.jsonl")
		[ "$(get "$T/x.tsv" "$id" signed)" = yes ]
		[ "$(get "$T/x.tsv" "$id" campaign)" = "$CAMP_ID" ]
		[ "$(get "$T/x.tsv" "$id" method.commit)" = "$(jq -r .method.commit <<< "$line")" ]
		[ "$(get "$T/x.tsv" "$id" method.hash)" = "$(jq -r .method.hash <<< "$line")" ]
		[ "$(get "$T/x.tsv" "$id" experiment)" = "$(printf 'exp-%08d' $i)" ]
		[ "$(get "$T/x.tsv" "$id" metrics.tok_s.n)" = 20 ]
		[ "$(get "$T/x.tsv" "$id" why)" = "generated for a test" ]
		i=$((i + 1))
	done
	# ar-sign-test -g: verdicts and bundle shapes cycle with the index.
	set -- $(ids "$T/r.jsonl")
	[ "$(get "$T/x.tsv" "$1" verdict)" = keep ]
	[ "$(get "$T/x.tsv" "$2" verdict)" = discard ]
	[ "$(get "$T/x.tsv" "$3" verdict)" = equivalent ]
	[ "$(get "$T/x.tsv" "$1" shape.gpu_ids)" = 0 ]
	[ "$(get "$T/x.tsv" "$2" shape.gpu_ids)" = 0,1 ]
	[ "$(get "$T/x.tsv" "$3" shape.gpu_ids)" = 0,1,2,3 ]
	[ "$(get "$T/x.tsv" "$3" shape.k)" = 4 ]
}

# Two results built by hand, so every exported field is known exactly.
hand_results() {
	printf '%s\n' \
	    '{"id":"r-0001","method":{"commit":"0123456789abcdef0123456789abcdef01234567","hash":"'$HASH'"},"metric":"tok_s","metrics":{"tok_s":{"median":1234.5,"ci_lo":1200.25,"ci_hi":1270,"n":20},"memory_gb":{"median":44.3}},"shape":{"k":2,"gpu_ids":[0,1]},"verdict":"keep","why":"tab\there\\back","raw":{"tok_s":[1,2]},"ok":true,"none":null,"tags":["fp8","nvlink"],"phases":[{"name":"warmup"}]}' \
	    '{"id":"r-0002","method":{"commit":"fedcba9876543210fedcba9876543210fedcba98","hash":"'$HASH'"},"metric":"tok_s","metrics":{"tok_s":{"median":0.1}},"verdict":"timeout","description":"two\nlines","tags":[]}' |
	    sign "$1"
}

hand_tsv() {
	local seal
	seal=$(jq -r .seal "$1" | head -1)
	printf '%s\n' \
	    "id	signed	campaign	description	method.commit	method.hash	metric	metrics.memory_gb.median	metrics.tok_s.ci_hi	metrics.tok_s.ci_lo	metrics.tok_s.median	metrics.tok_s.n	none	ok	seal	shape.gpu_ids	shape.k	tags	verdict	why" \
	    "r-0001	yes	$CAMP_ID		0123456789abcdef0123456789abcdef01234567	$HASH	tok_s	44.3	1270	1200.25	1234.5	20		true	$seal	0,1	2	fp8,nvlink	keep	tab\\there\\\\back" \
	    "r-0002	yes	$CAMP_ID	two\\nlines	fedcba9876543210fedcba9876543210fedcba98	$HASH	tok_s				0.1				$seal				timeout	"
}

# Arrays of scalars are joined with ',' (an empty one is an empty field);
# arrays of objects, "raw" and "sig" are left out.
@test "ar-ledger: export tsv flattens by dotted path, escapes, leaves raw and sig out" {
	hand_results "$T/h.jsonl"
	run -0 ar-ledger append -C "$C" "$T/h.jsonl"
	run -0 --separate-stderr ar-ledger export -C "$C" -f tsv
	[ "$output" = "$(hand_tsv "$T/h.jsonl")" ]
	# The same from a segment (the fast path).
	run -0 ar-ledger compact -C "$C"
	run -0 --separate-stderr ar-ledger export -C "$C" -f tsv
	[ "$output" = "$(hand_tsv "$T/h.jsonl")" ]
}

@test "ar-ledger: export jsonl prints the stored canonical JSON, jq-readable" {
	gen 5 "$T/r.jsonl"
	run -0 ar-ledger append -C "$C" "$T/r.jsonl"
	run -0 --separate-stderr ar-ledger export -C "$C" -f jsonl
	[ "$stderr" = "" ]
	[ "$output" = "$(by_id "$T/r.jsonl")" ]
	save "$T/x.jsonl"
	run -0 jq -e -s 'length == 5 and all(.[]; .sig | length == 128)' "$T/x.jsonl"
	for id in $(ids "$T/r.jsonl"); do
		[ "$(grep "\"id\":\"$id\"" "$T/x.jsonl")" = "$(cat "$L/results/$id.json")" ]
	done
}

@test "ar-ledger: export -f autoresearch writes results.tsv columns" {
	H=$HASH
	printf '%s\n' \
	    '{"id":"a1","method":{"commit":"1111111aaaaaaa","hash":"'$H'"},"metric":"val_bpb","metrics":{"val_bpb":{"median":0.9979},"memory_gb":{"median":44.04}},"verdict":"keep","description":"baseline"}' \
	    '{"id":"a2","method":{"commit":"2222222bbbbbbb","hash":"'$H'"},"metric":"val_bpb","metrics":{"val_bpb":{"median":1.0123456789},"memory_gb":{"median":45.96}},"verdict":"discard","why":"worse\tby 1.4%"}' \
	    '{"id":"a3","method":{"commit":"3333333ccccccc","hash":"'$H'"},"metric":"val_bpb","metrics":{"val_bpb":{"median":0.99}},"verdict":"inconclusive","description":"near miss"}' \
	    '{"id":"a4","method":{"commit":"4444444ddddddd","hash":"'$H'"},"metric":"val_bpb","metrics":{"val_bpb":{"median":0.5},"memory_gb":{"median":80}},"verdict":"crash","description":"OOM"}' \
	    '{"id":"a5","method":{"commit":"5555555eeeeeee","hash":"'$H'"},"metric":"val_bpb","metrics":{},"verdict":"timeout","description":"hung"}' \
	    '{"id":"a6","method":{"commit":"6666666fffffff","hash":"'$H'"},"metric":"val_bpb","metrics":{"val_bpb":{"median":0.98}},"verdict":"invalid","description":"failed the output check"}' \
	    '{"id":"a7","method":{"commit":"7777777aaaaaaa","hash":"'$H'"},"metric":"val_bpb","metrics":{"val_bpb":{"median":0.9979}},"verdict":"equivalent","description":"same"}' |
	    sign "$T/a.jsonl"
	run -0 ar-ledger append -C "$C" "$T/a.jsonl"
	run -0 --separate-stderr ar-ledger export -C "$C" -f autoresearch
	[ "$stderr" = "" ]
	[ "$output" = "commit	val_bpb	memory_gb	status	description
1111111	0.997900	44.0	keep	baseline
2222222	1.012346	46.0	discard	worse by 1.4%
3333333	0.990000	0.0	discard	near miss
4444444	0.000000	80.0	crash	OOM
5555555	0.000000	0.0	crash	hung
6666666	0.980000	0.0	invalid	failed the output check
7777777	0.997900	0.0	discard	same" ]
}

# A metric's name may hold a '.': its value is found by name, not by a
# dotted path.
@test "ar-ledger: export -f autoresearch finds a metric whose name has a dot" {
	printf '%s\n' \
	    '{"id":"d1","method":{"commit":"1111111aaaaaaa","hash":"'$HASH'"},"metric":"loss.val","metrics":{"loss.val":{"median":1.25},"loss":{"val":{"median":9}},"memory_gb":{"median":12.5}},"verdict":"keep","description":"dotted"}' \
	    '{"id":"d2","method":{"commit":"2222222bbbbbbb","hash":"'$HASH'"},"metric":"loss.val","metrics":{"loss":{"val":{"median":9}}},"verdict":"discard","description":"nested only"}' |
	    sign "$T/d.jsonl"
	run -0 ar-ledger append -C "$C" "$T/d.jsonl"
	run -0 --separate-stderr ar-ledger export -C "$C" -f autoresearch
	[ "$stderr" = "" ]
	[ "$output" = "commit	loss.val	memory_gb	status	description
1111111	1.250000	12.5	keep	dotted
2222222	0.000000	0.0	discard	nested only" ]
}

@test "ar-ledger: export of an empty ledger prints only the headers" {
	run -0 --separate-stderr ar-ledger export -C "$C"
	[ "$output" = "id	signed" ]
	run -0 --separate-stderr ar-ledger export -C "$C" -V -A 0 -c verdict,shape.k
	[ "$output" = "id	signed	verified	segment" ]
	run -0 --separate-stderr ar-ledger export -C "$C" -f jsonl
	[ "$output" = "" ]
	run -0 --separate-stderr ar-ledger export -C "$C" -f autoresearch
	[ "$output" = "commit	val_bpb	memory_gb	status	description" ]
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem" ]
	[ "$stderr" = "ar-ledger: 0 rows: 0 verified, 0 unsigned (imported); 0 problems" ]
}

@test "ar-ledger: appending the same file twice is a no-op" {
	gen 3 "$T/r.jsonl"
	gen 20 "$T/b.jsonl" 2
	run -0 ar-ledger append -C "$C" "$T/r.jsonl"
	run -0 ar-ledger append -C "$C" "$T/b.jsonl"
	ls -lR --time-style=full-iso "$L" > "$T/before"
	run -0 --separate-stderr ar-ledger append -C "$C" "$T/r.jsonl"
	[ "$stderr" = "ar-ledger: append: 0 stored, 3 already there" ]
	run -0 --separate-stderr ar-ledger append -C "$C" "$T/b.jsonl"
	[ "$stderr" = "ar-ledger: append: 0 stored, 20 already there" ]
	run -0 --separate-stderr ar-ledger append -C "$C" "$T/r.jsonl" "$T/b.jsonl"
	[ "$stderr" = "ar-ledger: append: 0 stored, 23 already there" ]
	ls -lR --time-style=full-iso "$L" > "$T/after"
	run -0 diff "$T/before" "$T/after"
	# A result given twice in one batch is stored once.
	gen 1 "$T/one.jsonl" 3
	run -0 --separate-stderr ar-ledger append -C "$C" "$T/one.jsonl" "$T/one.jsonl"
	[ "$stderr" = "ar-ledger: append: 1 stored, 1 already there" ]
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 24 rows: 24 verified, 0 unsigned (imported); 0 problems" ]
}

@test "ar-ledger: the same id with other content is refused with 73" {
	gen 2 "$T/r.jsonl"
	run -0 ar-ledger append -C "$C" "$T/r.jsonl"
	id=$(head -1 "$T/r.jsonl" | jq -r .id)
	head -1 "$T/r.jsonl" | jq -c '.metrics.tok_s.median = 9999' | sign "$T/other.jsonl"
	[ "$(jq -r .id "$T/other.jsonl")" = "$id" ]
	run -73 --separate-stderr ar-ledger append -C "$C" "$T/other.jsonl"
	[ "$stderr" = "ar-ledger: $L: id $id is stored already with other content; not replaced
ar-ledger: append: 0 stored, 0 already there, some refused" ]
	[ "$(cat "$L/results/$id.json")" = "$(head -1 "$T/r.jsonl")" ]
	# The same clash against a segment, from a batch.
	gen 20 "$T/b.jsonl" 2
	run -0 ar-ledger append -C "$C" "$T/b.jsonl"
	bid=$(sed -n 5p "$T/b.jsonl" | jq -r .id)
	sed -n 5p "$T/b.jsonl" | jq -c '.verdict = "keep"' | sign "$T/other2.jsonl"
	run -73 --separate-stderr ar-ledger append -C "$C" "$T/other2.jsonl"
	[ "${stderr_lines[0]}" = "ar-ledger: $L: id $bid is stored already with other content; not replaced" ]
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 22 rows: 22 verified, 0 unsigned (imported); 0 problems" ]
}

@test "ar-ledger: a batch of more than 16 results becomes one segment" {
	gen 16 "$T/r16.jsonl"
	run -0 ar-ledger append -C "$C" "$T/r16.jsonl"
	[ "$(ls "$L/results" | wc -l)" -eq 16 ]
	gen 40 "$T/r.jsonl" 2
	run -0 --separate-stderr ar-ledger append -C "$C" "$T/r.jsonl"
	[ "$stderr" = "ar-ledger: append: 40 stored, 0 already there" ]
	run -0 ls "$L/seg"
	[ "$output" = "00000001.idx
00000001.seal
00000001.tsv" ]
	[ "$(ls "$L/results" | wc -l)" -eq 16 ]
	[ "$(cat "$L/seg/00000001.idx")" = "$(ids "$T/r.jsonl" | LC_ALL=C sort)" ]
	[ "$(head -1 "$L/seg/00000001.tsv" | cut -f1-3)" = "id	signed	baseline.tok_s.ci_hi" ]
	[ "$(head -1 "$L/seg/00000001.tsv" | awk -F '\t' '{ print $NF }')" = json ]
	[ "$(wc -l < "$L/seg/00000001.tsv")" -eq 41 ]
	# Segments first, then loose results.
	run -0 --separate-stderr ar-ledger export -C "$C" -f jsonl
	[ "$output" = "$(by_id "$T/r.jsonl"; by_id "$T/r16.jsonl")" ]
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 56 rows: 56 verified, 0 unsigned (imported); 0 problems" ]
}

@test "ar-ledger: compact moves loose results into a segment; export is unchanged" {
	gen 20 "$T/b.jsonl" 1
	run -0 ar-ledger append -C "$C" "$T/b.jsonl"
	gen 5 "$T/r1.jsonl" 2
	gen 7 "$T/r2.jsonl" 3
	run -0 ar-ledger append -C "$C" "$T/r1.jsonl"
	run -0 ar-ledger append -C "$C" "$T/r2.jsonl"
	for f in tsv jsonl autoresearch; do
		ar-ledger export -C "$C" -f $f > "$T/before.$f"
	done
	run -0 --separate-stderr ar-ledger compact -C "$C"
	[ "$output" = "" ]
	[ "$stderr" = "ar-ledger: 12 results merged into segments" ]
	run -0 ls -A "$L/results"
	[ "$output" = "" ]
	run -0 ls "$L/seg"
	[ "$output" = "00000001.idx
00000001.seal
00000001.tsv
00000002.idx
00000002.seal
00000002.tsv" ]
	for f in tsv jsonl autoresearch; do
		run -0 --separate-stderr ar-ledger export -C "$C" -f $f
		[ "$output" = "$(cat "$T/before.$f")" ]
	done
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 32 rows: 32 verified, 0 unsigned (imported); 0 problems" ]
	run -0 --separate-stderr ar-ledger compact -C "$C"
	[ "$stderr" = "ar-ledger: 0 results merged into segments" ]
	[ ! -e "$L/lock" ]
	# Compacted results still count as stored.
	run -0 --separate-stderr ar-ledger append -C "$C" "$T/r1.jsonl"
	[ "$stderr" = "ar-ledger: append: 0 stored, 5 already there" ]
}

# Loose results are read in id order, like a segment, so ids of which one
# is a prefix of another ("x", "x-1": "x-1.json" sorts before "x.json")
# keep their place through a compaction.
# Compaction is the ledger's own upkeep: however results arrive, one
# file each (ar-bench -a, ar-ledger append of a few), they are merged into
# a segment once AR_LEDGER_COMPACT (1000 by default) of them are loose.
@test "ar-ledger: append compacts once AR_LEDGER_COMPACT results are loose; export is unchanged" {
	gen 5 "$T/r.jsonl"
	head -n 2 "$T/r.jsonl" > "$T/a.jsonl"
	tail -n 3 "$T/r.jsonl" > "$T/b.jsonl"
	export AR_LEDGER_COMPACT=4
	run -0 ar-ledger append -C "$C" "$T/a.jsonl"
	[ "$(ls "$L/results" | wc -l)" -eq 2 ]
	[ ! -e "$L/seg/00000001.tsv" ]
	run -0 --separate-stderr ar-ledger append -C "$C" "$T/b.jsonl"
	[ "$stderr" = "ar-ledger: append: 3 stored, 0 already there" ]
	# The fourth loose result made a segment of four; the fifth is loose.
	[ "$(ls "$L/results")" = "$(sed -n 5p "$T/r.jsonl" | jq -r .id).json" ]
	run -0 cut -f1 "$L/seg/00000001.idx"
	[ "$output" = "$(head -n 4 "$T/r.jsonl" | jq -r .id | LC_ALL=C sort)" ]
	run -0 ar-ledger export -C "$C" -f jsonl
	[ "$output" = "$(by_id "$T/r.jsonl")" ]
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 5 rows: 5 verified, 0 unsigned (imported); 0 problems" ]
}

@test "ar-ledger: AR_LEDGER_COMPACT=0 never compacts; a bad value exits 64 and stores nothing" {
	gen 3 "$T/r.jsonl"
	AR_LEDGER_COMPACT=0 run -0 ar-ledger append -C "$C" "$T/r.jsonl"
	[ "$(ls "$L/results" | wc -l)" -eq 3 ]
	[ ! -e "$L/seg/00000001.tsv" ]
	gen 1 "$T/s.jsonl" 2
	for v in x -1 "" 1e3 1234567890; do
		AR_LEDGER_COMPACT=$v run -64 --separate-stderr ar-ledger append -C "$C" "$T/s.jsonl"
		[ "$stderr" = "ar-ledger: AR_LEDGER_COMPACT=$v: not a count of loose results (0 to 999999999)" ]
	done
	[ "$(ls "$L/results" | wc -l)" -eq 3 ]
}

# A store never waits for the lock: with a live holder (a compaction, a
# batch), the result stays loose and a later store compacts.
@test "ar-ledger: a store does not wait for a held lock; the next one compacts" {
	gen 3 "$T/r.jsonl"
	export AR_LEDGER_COMPACT=2 AR_LOCK_WAIT=30
	sleep 1000 &
	holder=$!
	lock_by "$holder"
	head -n 2 "$T/r.jsonl" > "$T/a.jsonl"
	tail -n 1 "$T/r.jsonl" > "$T/b.jsonl"
	run -0 ar-ledger append -C "$C" "$T/a.jsonl"
	[ "$(ls "$L/results" | wc -l)" -eq 2 ]
	[ -e "$L/lock" ]
	kill "$holder"
	wait "$holder" || true
	# The lock of a dead holder is broken at once.
	run -0 ar-ledger append -C "$C" "$T/b.jsonl"
	[ "$(ls "$L/results" | wc -l)" -eq 0 ]
	[ "$(wc -l < "$L/seg/00000001.idx")" -eq 3 ]
}

@test "ar-ledger: the lock's next holder removes the temporary files of dead writers, not of live ones" {
	gen 3 "$T/r.jsonl" 1
	run -0 ar-ledger append -C "$C" "$T/r.jsonl"
	# What kill -9 of an append, a compaction or a lock taker leaves: a
	# temporary file no process holds.
	id=20261127T064252.196657Z-1fa803d960670685
	for f in ".tmp-$id-lock" "results/.tmp-$id-x.json" "seg/.tmp-$id-00000001.idx" "seg/.tmp-$id-00000001.tsv"; do
		echo partial > "$L/$f"
		chmod 0444 "$L/$f"
	done
	# A live writer's, which holds its file locked (this shell, here).
	echo writing > "$L/results/.tmp-$id-live.json"
	chmod 0444 "$L/results/.tmp-$id-live.json"
	exec {held}< "$L/results/.tmp-$id-live.json"
	flock -x "$held"
	# One in its first instant (mode 0, before its writer locks it).
	: > "$L/results/.tmp-$id-new.json"
	chmod 0 "$L/results/.tmp-$id-new.json"
	# One that is not a temporary file of a writer.
	echo keep > "$L/results/.keep"
	run -0 ar-ledger compact -C "$C"
	same "$(ls -A "$L" "$L/results" "$L/seg" | grep -c '^\.tmp-')" 2
	[ -e "$L/results/.tmp-$id-live.json" ]
	[ -e "$L/results/.tmp-$id-new.json" ]
	[ -e "$L/results/.keep" ]
	# A mode-0 file an hour old is a dead writer's too.
	touch -d '2 hours ago' "$L/results/.tmp-$id-new.json"
	run -0 ar-ledger compact -C "$C"
	same "$(ls -A "$L/results" | grep '^\.tmp-')" ".tmp-$id-live.json"
	# Its writer gone, the live one goes too.
	exec {held}<&-
	run -0 ar-ledger compact -C "$C"
	same "$(ls -A "$L/results" | grep '^\.tmp-')" ""
	run -0 ar-ledger verify -C "$C"
}

@test "ar-ledger: export is byte-identical before and after compact for any ids" {
	for id in x x-1 x.1 x_1 X x0 x-1-a; do
		echo '{"id":"'$id'","method":{"hash":"'$HASH'"},"metric":"tok_s","metrics":{"tok_s":{"median":1}}}'
	done | sign "$T/r.jsonl"
	run -0 ar-ledger append -C "$C" "$T/r.jsonl"
	run -0 ar-ledger export -C "$C" -f jsonl
	[ "$(jq -r .id <<< "$output")" = "X
x
x-1
x-1-a
x.1
x0
x_1" ]
	for f in tsv jsonl autoresearch; do
		ar-ledger export -C "$C" -f $f > "$T/before.$f"
	done
	run -0 ar-ledger compact -C "$C"
	run -0 ls -A "$L/results"
	[ "$output" = "" ]
	for f in tsv jsonl autoresearch; do
		run -0 --separate-stderr ar-ledger export -C "$C" -f $f
		[ "$output" = "$(cat "$T/before.$f")" ]
	done
}

@test "ar-ledger: export -A N gives the rows after segment N, each with its segment; -A 0 all of them" {
	cd "$T"
	gen 20 a.jsonl 1
	gen 20 b.jsonl 2
	gen 3 c.jsonl 3
	ar-ledger append -C "$C" a.jsonl 2> /dev/null
	ar-ledger append -C "$C" b.jsonl 2> /dev/null
	ar-ledger append -C "$C" c.jsonl 2> /dev/null
	run -0 --separate-stderr ar-ledger export -C "$C" -V -A 1
	[ "$(printf '%s\n' "${lines[0]}" | cut -f 1-4)" = "id	signed	verified	segment" ]
	[ "${#lines[@]}" -eq 24 ]
	# The second segment's rows, then the loose results, in storage order.
	same "$(printf '%s\n' "${lines[@]:1}" | cut -f 4 | uniq -c | awk '{ print $1 ($2 == "" ? "" : " " $2) }')" "20 00000002
3"
	same "$(printf '%s\n' "${lines[@]:1}" | cut -f 1)" "$(jq -r .id b.jsonl | sort; jq -r .id c.jsonl | sort)"
	run -0 --separate-stderr ar-ledger export -C "$C" -A 2 -f jsonl
	same "$(printf '%s\n' "$output" | jq -r .id)" "$(jq -r .id c.jsonl | sort)"
	run -0 --separate-stderr ar-ledger export -C "$C" -V -A 0
	[ "${#lines[@]}" -eq 44 ]
	run -0 --separate-stderr ar-ledger export -C "$C" -V -A 9
	[ "${#lines[@]}" -eq 4 ]
	run -64 --separate-stderr ar-ledger export -C "$C" -A x
	run -64 --separate-stderr ar-ledger verify -C "$C" -A 1
	run -64 --separate-stderr ar-ledger export -C "$C" -A 1 -f autoresearch
}

@test "ar-ledger: export -c gives only the columns named, as the whole export has them" {
	cd "$T"
	gen 20 a.jsonl 1
	gen 3 b.jsonl 2
	ar-ledger append -C "$C" a.jsonl 2> /dev/null
	ar-ledger append -C "$C" b.jsonl 2> /dev/null
	run -0 --separate-stderr ar-ledger export -C "$C" -V -A 0 -c verdict,nosuch,shape.k,ratio.median,verdict
	[ "${lines[0]}" = "id	signed	verified	segment	ratio.median	shape.k	verdict" ]
	[ "${#lines[@]}" -eq 24 ]
	# Each row the whole export's, cut to those columns (segment rows
	# and loose results alike).
	ar-ledger export -C "$C" -V -A 0 2> /dev/null | awk -F '\t' -v OFS='\t' '
	    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
	    { print $c["id"], $c["signed"], $c["verified"], $c["segment"], $c["ratio.median"], $c["shape.k"], $c["verdict"] }' > whole.tsv
	same "$output" "$(cat whole.tsv)"
	[ "$(printf '%s\n' "${lines[@]:1}" | cut -f 7 | grep -c .)" -eq 23 ]
	run -0 --separate-stderr ar-ledger export -C "$C" -c nosuch
	[ "${lines[0]}" = "id	signed" ]
	[ "${#lines[@]}" -eq 24 ]
	run -64 --separate-stderr ar-ledger export -C "$C" -c verdict -f jsonl
	run -64 --separate-stderr ar-ledger export -C "$C" -c verdict -f autoresearch
	run -64 --separate-stderr ar-ledger verify -C "$C" -c verdict
}

# ---- tampering and trust ----

@test "ar-ledger: a result edited after signing is refused and nothing is stored" {
	gen 1 "$T/r.jsonl"
	id=$(ids "$T/r.jsonl")
	jq -c '.metrics.tok_s.median = 2000' "$T/r.jsonl" > "$T/t.jsonl"
	run -1 --separate-stderr ar-ledger append -C "$C" "$T/t.jsonl"
	[ "$output" = "" ]
	[ "$stderr" = "ar-ledger: $T/t.jsonl:1: $id: bad signature
ar-ledger: 1 of 1 results refused; nothing stored" ]
	nothing_stored
}

@test "ar-ledger: one bad result refuses the whole batch" {
	gen 20 "$T/r.jsonl"
	id=$(sed -n 7p "$T/r.jsonl" | jq -r .id)
	sed '7s/"verdict":"timeout"/"verdict":"keep"/' "$T/r.jsonl" > "$T/t.jsonl"
	run -1 cmp -s "$T/r.jsonl" "$T/t.jsonl"
	run -1 --separate-stderr ar-ledger append -C "$C" "$T/t.jsonl"
	[ "$stderr" = "ar-ledger: $T/t.jsonl:7: $id: bad signature
ar-ledger: 1 of 20 results refused; nothing stored" ]
	nothing_stored
	head -3 "$T/r.jsonl" > "$T/ok.jsonl"
	run -1 --separate-stderr ar-ledger append -C "$C" "$T/ok.jsonl" "$T/t.jsonl"
	[ "${stderr_lines[1]}" = "ar-ledger: 1 of 23 results refused; nothing stored" ]
	nothing_stored
}

@test "ar-ledger: a signature moved to another method's result fails" {
	gen 2 "$T/r.jsonl"
	sig=$(head -1 "$T/r.jsonl" | jq -r .sig)
	id2=$(tail -1 "$T/r.jsonl" | jq -r .id)
	tail -1 "$T/r.jsonl" | jq -c --arg s "$sig" '.sig = $s' > "$T/moved.jsonl"
	run -1 --separate-stderr ar-ledger append -C "$C" "$T/moved.jsonl"
	[ "${stderr_lines[0]}" = "ar-ledger: $T/moved.jsonl:1: $id2: bad signature" ]
	# Replaying a result for another method: its hash changed, sig kept.
	id1=$(head -1 "$T/r.jsonl" | jq -r .id)
	head -1 "$T/r.jsonl" | jq -c --arg h "$HASH" '.method.hash = $h' > "$T/replay.jsonl"
	run -1 --separate-stderr ar-ledger append -C "$C" "$T/replay.jsonl"
	[ "${stderr_lines[0]}" = "ar-ledger: $T/replay.jsonl:1: $id1: bad signature" ]
	nothing_stored
}

@test "ar-ledger: a result signed with another campaign's key fails" {
	ar-init -p "$T/prob" "$T/other" > /dev/null
	echo '{"method":{"commit":"abc","hash":"'$HASH'"}}' |
	    ar-sign-test -C "$C" -k "$T/other/keys/bench.key" > "$T/k.jsonl"
	id=$(ids "$T/k.jsonl")
	[ "$(jq -r .campaign "$T/k.jsonl")" = "$CAMP_ID" ]
	run -1 --separate-stderr ar-ledger append -C "$C" "$T/k.jsonl"
	[ "$stderr" = "ar-ledger: $T/k.jsonl:1: $id: bad signature
ar-ledger: 1 of 1 results refused; nothing stored" ]
	# The other campaign's own results are refused here too.
	ar-sign-test -C "$T/other" -g 1 > "$T/o.jsonl"
	run -1 --separate-stderr ar-ledger append -C "$C" "$T/o.jsonl"
	[ "${stderr_lines[0]}" = "ar-ledger: $T/o.jsonl:1: $(ids "$T/o.jsonl"): bad signature" ]
	nothing_stored
}

@test "ar-ledger: a result naming another campaign fails even when the key is right" {
	echo '{"campaign":"20200101T000000.000000Z-0000000000000000","method":{"hash":"'$HASH'"}}' |
	    sign "$T/c.jsonl"
	id=$(ids "$T/c.jsonl")
	run -1 --separate-stderr ar-ledger append -C "$C" "$T/c.jsonl"
	[ "$stderr" = "ar-ledger: $T/c.jsonl:1: $id: campaign '20200101T000000.000000Z-0000000000000000' is not this campaign
ar-ledger: 1 of 1 results refused; nothing stored" ]
	nothing_stored
}

@test "ar-ledger: a result whose seal hash is not this campaign's fails" {
	echo '{"seal":"0000000000000000000000000000000000000000000000000000000000000000","method":{"hash":"'$HASH'"}}' |
	    sign "$T/s.jsonl"
	id=$(ids "$T/s.jsonl")
	run -1 --separate-stderr ar-ledger append -C "$C" "$T/s.jsonl"
	[ "$stderr" = "ar-ledger: $T/s.jsonl:1: $id: seal hash does not match this campaign's SEAL
ar-ledger: 1 of 1 results refused; nothing stored" ]
	nothing_stored
}

@test "ar-ledger: a result without a method hash fails" {
	printf '%s\n' '{"method":{"commit":"abc"}}' '{"method":{"hash":"ABAB"}}' | sign "$T/m.jsonl"
	set -- $(ids "$T/m.jsonl")
	run -1 --separate-stderr ar-ledger append -C "$C" "$T/m.jsonl"
	[ "$stderr" = "ar-ledger: $T/m.jsonl:1: $1: no method hash (method.hash: 64 hex digits)
ar-ledger: $T/m.jsonl:2: $2: no method hash (method.hash: 64 hex digits)
ar-ledger: 2 of 2 results refused; nothing stored" ]
	nothing_stored
}

@test "ar-ledger: append refuses unsigned rows, even with a source" {
	printf '%s\n' '{"id":"u1","source":"autoresearch"}' > "$T/u.jsonl"
	run -1 --separate-stderr ar-ledger append -C "$C" "$T/u.jsonl"
	[ "$stderr" = "ar-ledger: $T/u.jsonl:1: u1: not signed (only ar-ledger import stores unsigned rows)
ar-ledger: 1 of 1 results refused; nothing stored" ]
	nothing_stored
}

@test "ar-ledger: append of malformed JSON exits 65 naming file and line" {
	gen 1 "$T/r.jsonl"
	{ cat "$T/r.jsonl"; echo '{"id":'; } > "$T/bad.jsonl"
	run -65 --separate-stderr ar-ledger append -C "$C" "$T/bad.jsonl"
	[ "$stderr" = "ar-ledger: $T/bad.jsonl:2: invalid JSON at column 6: unexpected token near end of file
ar-ledger: 1 of 2 results refused; nothing stored" ]
	{ cat "$T/r.jsonl"; printf '{"id":"'; head -c 10485760 /dev/zero | tr '\0' x; printf '"}\n'; } > "$T/big.jsonl"
	run -65 --separate-stderr ar-ledger append -C "$C" "$T/big.jsonl"
	[ "$stderr" = "ar-ledger: $T/big.jsonl: line 2: longer than 1048576 bytes; nothing stored" ]
	nothing_stored
}

# Malformed input is 65, not 1. (A NUL byte once exited 1: append judged
# "malformed" by the first word of the reason.)
@test "ar-ledger: append of a line with a NUL byte or CRLF exits 65" {
	gen 1 "$T/r.jsonl"
	sed 's/generated/gene\x00rated/' "$T/r.jsonl" > "$T/nul.jsonl"
	run -65 --separate-stderr ar-ledger append -C "$C" "$T/nul.jsonl"
	[ "${stderr_lines[0]}" = "ar-ledger: $T/nul.jsonl:1: NUL byte in JSON text" ]
	nothing_stored
	{ cat "$T/r.jsonl"; echo '[1,2]'; } > "$T/array.jsonl"
	run -65 --separate-stderr ar-ledger append -C "$C" "$T/array.jsonl"
	[ "$stderr" = "ar-ledger: $T/array.jsonl:2: not a JSON object
ar-ledger: 1 of 2 results refused; nothing stored" ]
	sed 's/$/\r/' "$T/r.jsonl" > "$T/crlf.jsonl"
	run -65 --separate-stderr ar-ledger append -C "$C" "$T/crlf.jsonl"
	[ "$output" = "" ]
	[ "$stderr" = "ar-ledger: $T/crlf.jsonl: line 1: carriage return (CRLF line endings?); nothing stored" ]
	nothing_stored
	# On stdin, and on a later line of a later file: still nothing stored.
	run -65 --separate-stderr ar-ledger append -C "$C" < "$T/crlf.jsonl"
	[ "$stderr" = "ar-ledger: <stdin>: line 1: carriage return (CRLF line endings?); nothing stored" ]
	gen 3 "$T/three.jsonl" 2
	sed '3s/$/\r/' "$T/three.jsonl" > "$T/cr3.jsonl"
	run -65 --separate-stderr ar-ledger append -C "$C" "$T/r.jsonl" "$T/cr3.jsonl"
	[ "$stderr" = "ar-ledger: $T/cr3.jsonl: line 3: carriage return (CRLF line endings?); nothing stored" ]
	nothing_stored
}

# Blank lines, and lines of blank space, are skipped but counted.
@test "ar-ledger: append skips blank lines and counts them in line numbers" {
	gen 3 "$T/r.jsonl"
	{
		sed -n 1p "$T/r.jsonl"
		printf '\n   \n\t\n'
		sed -n 2p "$T/r.jsonl" | sed 's/^/  /'
		printf ' \t \n'
		sed -n 3p "$T/r.jsonl"
		printf '\n'
	} > "$T/blank.jsonl"
	run -0 --separate-stderr ar-ledger append -C "$C" "$T/blank.jsonl"
	[ "$stderr" = "ar-ledger: append: 3 stored, 0 already there" ]
	for id in $(ids "$T/r.jsonl"); do
		[ "$(cat "$L/results/$id.json")" = "$(grep "\"id\":\"$id\"" "$T/r.jsonl")" ]
	done
	printf '\n  \n{"id":\n' > "$T/bad.jsonl"
	run -65 --separate-stderr ar-ledger append -C "$C" "$T/bad.jsonl"
	[ "$stderr" = "ar-ledger: $T/bad.jsonl:3: invalid JSON at column 6: unexpected token near end of file
ar-ledger: 1 of 1 results refused; nothing stored" ]
	run -0 --separate-stderr ar-ledger append -C "$C" <<< $'\n \t\n'
	[ "$stderr" = "ar-ledger: append: 0 stored, 0 already there" ]
}

# Results for the tampering tests: 3 loose and 20 in segment 1; their
# clean exports in $T/clean.*.
stored_mix() {
	gen 3 "$T/loose.jsonl" 1
	gen 20 "$T/seg.jsonl" 2
	run -0 ar-ledger append -C "$C" "$T/loose.jsonl"
	run -0 ar-ledger append -C "$C" "$T/seg.jsonl"
	SEG=$L/seg/00000001.tsv
	chmod u+w "$SEG" "$L/seg/00000001.idx" "$L"/results/*.json
	ar-ledger export -C "$C" -f tsv > "$T/clean.tsv"
	ar-ledger export -C "$C" -f jsonl > "$T/clean.jsonl"
}

# edit_loose: the second loose result of stored_mix edited in place (its
# verdict); its id in $id, its file in $f.
edit_loose() {
	id=$(sed -n 2p "$T/loose.jsonl" | jq -r .id)
	f=$L/results/$id.json
	sed -i 's/"verdict":"discard"/"verdict":"keep"/' "$f"
}

# seg_line ID [SEGMENT]: the line of ID in a segment (default segment 1).
seg_line() {
	grep -n "^$1	" "${2:-$SEG}" | cut -d: -f1
}

# problems_note P: the note of export -V when verify finds P problems.
problems_note() {
	if [ "$1" -eq 1 ]; then
		echo "ar-ledger: 1 problem found; bad rows left out (ar-ledger verify names them)"
	else
		echo "ar-ledger: $1 problems found; bad rows left out (ar-ledger verify names them)"
	fi
}

# export_left_out WHERE ID [PROBLEMS]: after stored_mix and a defect in
# the row ID stored at WHERE, export -V exits 1 with the count of
# problems (default 1), leaves that row out in tsv, jsonl and
# autoresearch, and prints every other row as the clean export did.
# Formats that parse the row may say "WHERE: left out: ..." too.
export_left_out() {
	local f line
	for f in tsv jsonl autoresearch; do
		echo "# -f $f"
		run -1 --separate-stderr ar-ledger export -C "$C" -V -f $f
		[ "${stderr_lines[0]}" = "$(problems_note "${3:-1}")" ]
		for line in "${stderr_lines[@]:1}"; do
			[[ "$line" == "ar-ledger: $1: left out: "* ]]
		done
		save "$T/v.$f"
	done
	# -V adds the column verified after signed: yes for a signed row.
	run -0 awk -F '\t' -v OFS='\t' -v id="$2" '
	    NR == 1 { $2 = $2 OFS "verified"; print; next }
	    $1 != id { $2 = $2 OFS $2; print }' "$T/clean.tsv"
	[ "$(cat "$T/v.tsv")" = "$output" ]
	run -0 grep -v "\"id\":\"$2\"" "$T/clean.jsonl"
	[ "$(cat "$T/v.jsonl")" = "$output" ]
	[ "$(wc -l < "$T/v.autoresearch")" -eq $(( ${#lines[@]} + 1 )) ]
}

@test "ar-ledger verify -k, export -V -k, AR_KEY_FINGERPRINT: a replaced campaign key is refused before any row" {
	stored_mix
	fp=$(ar-campaign fingerprint -C "$C")
	run -0 --separate-stderr ar-ledger verify -C "$C" -k "$fp"
	AR_KEY_FINGERPRINT=$fp run -0 --separate-stderr ar-ledger export -C "$C" -V
	# Another key pair's public half in place of the campaign's.
	ar-init -p "$T/prob" "$T/other" > /dev/null
	cp "$T/other/keys/bench.pub" "$C/keys/bench.pub"
	run -1 --separate-stderr ar-ledger verify -C "$C" -k "$fp"
	[ "$output" = "" ]
	[ "$stderr" = "ar-ledger: $C/keys/bench.pub: fingerprint $(ar-campaign fingerprint -C "$C" | cut -c 1-16)..., not the pinned ${fp:0:16}...: the campaign's key was replaced" ]
	AR_KEY_FINGERPRINT=$fp run -1 --separate-stderr ar-ledger export -C "$C" -V
	[ "$output" = "" ]
	# Export without -V does not verify, so the pin is not asked.
	AR_KEY_FINGERPRINT=$fp run -0 --separate-stderr ar-ledger export -C "$C"
	run -64 --separate-stderr ar-ledger verify -C "$C" -k "${fp^^}"
	[[ $stderr == "ar-ledger: -k ${fp^^}: not a key fingerprint"* ]]
	AR_KEY_FINGERPRINT=x run -64 --separate-stderr ar-ledger verify -C "$C"
	[[ $stderr == "ar-ledger: AR_KEY_FINGERPRINT x: not a key fingerprint"* ]]
	run -64 --separate-stderr ar-ledger compact -C "$C" -k "$fp"
}

@test "ar-ledger: an edited loose file is named by verify and left out by export -V" {
	stored_mix
	edit_loose
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$f	$id	bad signature" ]
	[ "$stderr" = "ar-ledger: 23 rows: 22 verified, 0 unsigned (imported); 1 problem" ]
	export_left_out "$f" "$id"
	# Without -V the row is exported (verify is the check).
	run -0 --separate-stderr ar-ledger export -C "$C" -f jsonl
	[ "${#lines[@]}" -eq 23 ]
	# Compact moves it into a segment, where it is still bad.
	run -0 ar-ledger compact -C "$C"
	S2=$L/seg/00000002.tsv
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$S2:$(seg_line "$id" "$S2")	$id	bad signature" ]
}

@test "ar-ledger: an edited json column of a segment is named by verify" {
	stored_mix
	id=$(sed -n 9p "$T/seg.jsonl" | jq -r .id)
	[ "$(sed -n 9p "$T/seg.jsonl" | jq -r .verdict)" = discard ]
	n=$(seg_line "$id")
	sed -i "${n}s/\"verdict\":\"discard\"/\"verdict\":\"keep\"/" "$SEG"
	[ "$(sed -n "${n}p" "$SEG" | cut -f1)" = "$id" ]
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$SEG:$n	$id	bad signature" ]
	[ "$stderr" = "ar-ledger: 23 rows: 22 verified, 0 unsigned (imported); 1 problem" ]
	export_left_out "$SEG:$n" "$id"
}

@test "ar-ledger: an edited flat column of a segment is named by verify" {
	stored_mix
	id=$(sed -n 2p "$T/seg.jsonl" | jq -r .id)
	n=$(seg_line "$id")
	# The flat verdict column; the json column has it in quotes.
	sed -i "${n}s/	discard	/	keep	/" "$SEG"
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$SEG:$n	$id	stored column 'verdict' does not match the signed JSON" ]
	[ "$stderr" = "ar-ledger: 23 rows: 22 verified, 0 unsigned (imported); 1 problem" ]
	export_left_out "$SEG:$n" "$id"
	# A changed number in a flat column is caught the same way.
	id2=$(sed -n 4p "$T/seg.jsonl" | jq -r .id)
	n2=$(seg_line "$id2")
	old=$(get "$T/clean.tsv" "$id2" metrics.tok_s.median)
	[ -n "$old" ]
	sed -i "${n2}s/	$old	/	9999.5	/" "$SEG"
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$SEG:$n	$id	stored column 'verdict' does not match the signed JSON
$SEG:$n2	$id2	stored column 'metrics.tok_s.median' does not match the signed JSON" ]
	[ "$stderr" = "ar-ledger: 23 rows: 21 verified, 0 unsigned (imported); 2 problems" ]
	# Reals are compared by value: the same number in another spelling
	# is no problem.
	id3=$(sed -n 6p "$T/seg.jsonl" | jq -r .id)
	n3=$(seg_line "$id3")
	old=$(get "$T/clean.tsv" "$id3" metrics.tok_s.median)
	[[ "$old" == *.* ]]
	[[ "$old" != *[eE]* ]]
	sed -i "${n3}s/	$old	/	${old}00	/" "$SEG"
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "${#lines[@]}" -eq 3 ]
	sed -i "${n3}s/	${old}00	/	1${old}	/" "$SEG"
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "${lines[3]}" = "$SEG:$n3	$id3	stored column 'metrics.tok_s.median' does not match the signed JSON" ]
}

@test "ar-ledger: a segment row whose JSON is corrupt is named by its id column and left out" {
	stored_mix
	id=$(sed -n 9p "$T/seg.jsonl" | jq -r .id)
	n=$(seg_line "$id")
	sed -i "${n}s/\"verdict\":\"discard\"/\"verdict\":discard/" "$SEG"
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[1]}" == "$SEG:$n	$id	invalid JSON at column "*": invalid token near 'discard'" ]]
	[ "$stderr" = "ar-ledger: 23 rows: 22 verified, 0 unsigned (imported); 1 problem" ]
	export_left_out "$SEG:$n" "$id"
}

# Without -V export reads what is stored, but a row whose JSON does not
# parse is left out, saying where, so jsonl output stays JSON Lines. (So
# it was while jsonl parsed every row; the fast path of segment rows now
# prints the corrupt text.)
@test "ar-ledger: export -f jsonl leaves out a segment row whose JSON does not parse" {
	stored_mix
	id=$(sed -n 9p "$T/seg.jsonl" | jq -r .id)
	n=$(seg_line "$id")
	sed -i "${n}s/\"verdict\":\"discard\"/\"verdict\":discard/" "$SEG"
	run -0 --separate-stderr ar-ledger export -C "$C" -f jsonl
	[[ "$stderr" == "ar-ledger: $SEG:$n: left out: invalid JSON at column "*": invalid token near 'discard'" ]]
	save "$T/x.jsonl"
	run -0 grep -v "\"id\":\"$id\"" "$T/clean.jsonl"
	[ "$(cat "$T/x.jsonl")" = "$output" ]
}

# A segment line that cannot be split into the header's fields has no
# id to name; its place is enough for export -V.
@test "ar-ledger: a segment line with a field too few is named by place" {
	stored_mix
	id=$(sed -n 5p "$T/seg.jsonl" | jq -r .id)
	n=$(seg_line "$id")
	sed -i "${n}s/^$id	//" "$SEG"
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$SEG:$n	-	42 fields, header has 43
$SEG	-	index (.idx) does not list exactly the segment's ids" ]
	[ "$stderr" = "ar-ledger: 23 rows: 22 verified, 0 unsigned (imported); 2 problems" ]
	export_left_out "$SEG:$n" "$id" 2
}

# Rows are checked in batches of 4096, each while the next is read: the
# problems are said in the order of the ledger all the same.
@test "ar-ledger verify: problems in more than one batch are named in the order of the ledger" {
	gen 4200 "$T/big.jsonl"
	run -0 ar-ledger append -C "$C" "$T/big.jsonl"
	SEG=$L/seg/00000001.tsv
	cp "$L/seg/00000001.seal" "$T/append.seal"
	chmod u+w "$SEG"
	# Line 11 (row 10, in the first batch): a bad signature; line 4200
	# (in the second): a field too few, found while reading.
	sed -i '11s/"why":"generated for a test"/"why":"generated for a tesT"/' "$SEG"
	sed -i '4200s/^[^	]*	//' "$SEG"
	id=$(sed -n 11p "$SEG" | cut -f 1)
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$SEG:11	$id	bad signature
$SEG:4200	-	42 fields, header has 43
$SEG	-	index (.idx) does not list exactly the segment's ids" ]
	[ "$stderr" = "ar-ledger: 4200 rows: 4198 verified, 0 unsigned (imported); 3 problems" ]
	# The seal append made, which the edits broke, is not made again.
	cmp "$L/seg/00000001.seal" "$T/append.seal"
}

# The id column is what export prints and what lookups use: a forged one
# is named (with the id the signed JSON gives) and left out everywhere.
@test "ar-ledger: a segment row with a changed id column is left out by export -V" {
	stored_mix
	id=$(sed -n 5p "$T/seg.jsonl" | jq -r .id)
	n=$(seg_line "$id")
	sed -i "${n}s/^$id	/forged-id	/" "$SEG"
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$SEG	-	index (.idx) does not list exactly the segment's ids
$SEG:$n	$id	stored under id forged-id, but its \"id\" is $id" ]
	[ "$stderr" = "ar-ledger: 23 rows: 22 verified, 0 unsigned (imported); 2 problems" ]
	export_left_out "$SEG:$n" "$id" 2
	run -1 grep -c "forged-id" "$T/v.tsv" "$T/v.jsonl"
}

@test "ar-ledger: a line deleted from a segment index is caught by verify" {
	stored_mix
	sed -i 4d "$L/seg/00000001.idx"
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$SEG	-	index (.idx) does not list exactly the segment's ids" ]
	[ "$stderr" = "ar-ledger: 23 rows: 23 verified, 0 unsigned (imported); 1 problem" ]
	# Not a row's problem: export -V says so and leaves no row out.
	run -1 --separate-stderr ar-ledger export -C "$C" -V -f jsonl
	[ "$stderr" = "$(problems_note 1)" ]
	[ "$output" = "$(cat "$T/clean.jsonl")" ]
}

@test "ar-ledger: a line deleted from a segment is caught by verify" {
	stored_mix
	sed -i 6d "$SEG"
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$SEG	-	index (.idx) does not list exactly the segment's ids" ]
	[ "$stderr" = "ar-ledger: 22 rows: 22 verified, 0 unsigned (imported); 1 problem" ]
}

@test "ar-ledger: a truncated segment is caught by verify" {
	stored_mix
	id=$(tail -1 "$T/seg.jsonl" | jq -r .id)
	head -c -200 "$SEG" > "$T/cut"
	cat "$T/cut" > "$SEG"
	# The cut falls in the json column, the last one.
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[1]}" == "$SEG:21	$id	invalid JSON at column "*": premature end of input" ]]
	[ "$stderr" = "ar-ledger: 23 rows: 22 verified, 0 unsigned (imported); 1 problem" ]
	export_left_out "$SEG:21" "$id"
}

# A segment that cannot be read at all (empty, no header, unreadable) is
# reported as one problem, as a truncated one's rows are: verify and
# export go on with the rest of the ledger instead of dying with 65.
@test "ar-ledger: an empty, headerless or unreadable segment is a problem of its own; the rest is verified and exported" {
	stored_mix
	gen 20 "$T/seg2.jsonl" 3
	run -0 ar-ledger append -C "$C" "$T/seg2.jsonl"
	idx="$L/seg/00000001.idx"
	for c in empty header unreadable; do
		echo "# case: $c"
		cp "$SEG" "$T/seg.keep"
		case $c in
		empty) : > "$SEG"; why="empty segment" ;;
		header) sed -i '1s/^id/ID/' "$SEG"; why="not a segment header; the segment's rows not read" ;;
		unreadable) chmod 0 "$SEG"; why="segment not readable: permission denied" ;;
		esac
		run -1 --separate-stderr unprivileged ar-ledger verify -C "$C"
		same "$output" "where	id	problem
$SEG:1	-	$why
$SEG	-	index (.idx) does not list exactly the segment's ids"
		same "$stderr" "ar-ledger: 24 rows: 23 verified, 0 unsigned (imported); 2 problems"
		# Export leaves the segment out, says so, and gives the rest.
		run -0 --separate-stderr unprivileged ar-ledger export -C "$C" -f jsonl
		same "$stderr" "ar-ledger: $SEG:1: left out: $why"
		same "$(printf '%s\n' "$output" | wc -l)" 23
		chmod 0644 "$SEG"
		cat "$T/seg.keep" > "$SEG"
	done
	run -0 ar-ledger verify -C "$C"
}

# An id stored twice is one problem per id (its place is the ledger), and
# export -V leaves out every row of that id.
@test "ar-ledger: a segment stored twice names each of its ids once" {
	stored_mix
	cp "$L/seg/00000001.tsv" "$L/seg/00000002.tsv"
	cp "$L/seg/00000001.idx" "$L/seg/00000002.idx"
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$(ids "$T/seg.jsonl" | LC_ALL=C sort | sed "s|^|$L	|; s|\$|	the same id is stored twice|")" ]
	[ "$stderr" = "ar-ledger: 43 rows: 43 verified, 0 unsigned (imported); 20 problems" ]
	run -1 --separate-stderr ar-ledger export -C "$C" -V -f jsonl
	[ "$stderr" = "$(problems_note 20)" ]
	[ "$output" = "$(by_id "$T/loose.jsonl")" ]
	run -1 --separate-stderr ar-ledger export -C "$C" -V -f tsv
	[ "${#lines[@]}" -eq 4 ]
}

@test "ar-ledger: an unsigned row without a source is bad" {
	stored_mix
	printf '{"id":"hand-made","verdict":"keep"}\n' > "$L/results/hand-made.json"
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$L/results/hand-made.json	hand-made	no signature and no \"source\" of an import" ]
	[ "$stderr" = "ar-ledger: 24 rows: 23 verified, 0 unsigned (imported); 1 problem" ]
	export_left_out "$L/results/hand-made.json" hand-made
}

# Stored rows are canonical, and their signatures are checked on their
# text: the same content in another form is not what was signed.
@test "ar-ledger: a stored row that is not canonical JSON has a bad signature" {
	stored_mix
	id=$(sed -n 1p "$T/loose.jsonl" | jq -r .id)
	f=$L/results/$id.json
	sed -i 's/^{/{ /' "$f"
	run -0 jq -e . "$f"
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$f	$id	bad signature" ]
	export_left_out "$f" "$id"
	# Its members in another order.
	jq -c 'to_entries | reverse | from_entries' <<< "$(sed -n 1p "$T/loose.jsonl")" > "$f"
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$f	$id	bad signature" ]
	# A segment's json column, with its flat columns still right.
	id2=$(sed -n 3p "$T/seg.jsonl" | jq -r .id)
	n=$(seg_line "$id2")
	sed -i "${n}s/	{\"baseline\":/	{ \"baseline\":/" "$SEG"
	[ "$(sed -n "${n}p" "$SEG" | cut -f1)" = "$id2" ]
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$SEG:$n	$id2	bad signature
$f	$id	bad signature" ]
}

# Input is checked on its canonical form, then stored canonically.
@test "ar-ledger: append accepts signed input that is not canonical and stores it canonically" {
	gen 20 "$T/r.jsonl"
	jq -c 'to_entries | reverse | from_entries' "$T/r.jsonl" > "$T/rev.jsonl"
	run -1 cmp -s "$T/r.jsonl" "$T/rev.jsonl"
	head -3 "$T/rev.jsonl" > "$T/rev3.jsonl"
	run -0 --separate-stderr ar-ledger append -C "$C" "$T/rev3.jsonl"
	[ "$stderr" = "ar-ledger: append: 3 stored, 0 already there" ]
	for id in $(ids "$T/rev3.jsonl"); do
		[ "$(cat "$L/results/$id.json")" = "$(grep "\"id\":\"$id\"" "$T/r.jsonl")" ]
	done
	# A batch (a segment), and the canonical form counts as already there.
	run -0 --separate-stderr ar-ledger append -C "$C" "$T/rev.jsonl"
	[ "$stderr" = "ar-ledger: append: 17 stored, 3 already there" ]
	run -0 --separate-stderr ar-ledger append -C "$C" "$T/r.jsonl"
	[ "$stderr" = "ar-ledger: append: 0 stored, 20 already there" ]
	head -3 "$T/r.jsonl" > "$T/first.jsonl"
	tail -n +4 "$T/r.jsonl" > "$T/rest.jsonl"
	run -0 --separate-stderr ar-ledger export -C "$C" -f jsonl
	[ "$output" = "$(by_id "$T/rest.jsonl"; by_id "$T/first.jsonl")" ]
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 20 rows: 20 verified, 0 unsigned (imported); 0 problems" ]
}

# A loose file that does not parse keeps the id its name gives.
@test "ar-ledger: a corrupt loose file is left in place by compact and named" {
	gen 3 "$T/r.jsonl"
	run -0 ar-ledger append -C "$C" "$T/r.jsonl"
	id=$(head -1 "$T/r.jsonl" | jq -r .id)
	f=$L/results/$id.json
	chmod u+w "$f"
	echo '{"id":' > "$f"
	run -0 --separate-stderr ar-ledger compact -C "$C"
	[ "$stderr" = "ar-ledger: $f: left in place: invalid JSON
ar-ledger: 2 results merged into segments
ar-ledger: compact: ar-sched fold -C $C exited 69: the new segments are left unfolded (it says why)" ]
	run -0 ls "$L/results"
	[ "$output" = "$id.json" ]
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 3 rows: 2 verified, 0 unsigned (imported); 1 problem" ]
	[ "$output" = "where	id	problem
$f	$id	invalid JSON at column 6: unexpected token near end of file" ]
	# Export leaves it out, saying so; -V also exits 1.
	tail -2 "$T/r.jsonl" > "$T/good.jsonl"
	for fmt in tsv jsonl autoresearch; do
		run -0 --separate-stderr ar-ledger export -C "$C" -f $fmt
		[ "$stderr" = "ar-ledger: $f: left out: invalid JSON at column 6: unexpected token near end of file" ]
		save "$T/all.$fmt"
		run -1 --separate-stderr ar-ledger export -C "$C" -V -f $fmt
		[ "$stderr" = "$(problems_note 1)
ar-ledger: $f: left out: invalid JSON at column 6: unexpected token near end of file" ]
		if [ $fmt = tsv ]; then
			# -V adds the column verified after signed.
			[ "$output" = "$(awk -F '\t' -v OFS='\t' '
			    NR == 1 { $2 = $2 OFS "verified"; print; next }
			    { $2 = $2 OFS $2; print }' "$T/all.tsv")" ]
		else
			[ "$output" = "$(cat "$T/all.$fmt")" ]
		fi
	done
	[ "$(cat "$T/all.jsonl")" = "$(by_id "$T/good.jsonl")" ]
	[ "$(wc -l < "$T/all.tsv")" -eq 3 ]
	[ "$(wc -l < "$T/all.autoresearch")" -eq 3 ]
}

# A copy of result A saved as B.json must not pass for B: it would make
# the real result B clash, and compact would leave it in place forever.
@test "ar-ledger: a loose file whose name is not its id is bad" {
	gen 2 "$T/r.jsonl"
	head -1 "$T/r.jsonl" > "$T/a.jsonl"
	tail -1 "$T/r.jsonl" > "$T/b.jsonl"
	a=$(ids "$T/a.jsonl")
	b=$(ids "$T/b.jsonl")
	run -0 ar-ledger append -C "$C" "$T/a.jsonl"
	mv "$L/results/$a.json" "$L/results/$b.json"
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$L/results/$b.json	$a	stored under id $b, but its \"id\" is $a" ]
	[ "$stderr" = "ar-ledger: 1 rows: 0 verified, 0 unsigned (imported); 1 problem" ]
	run -1 --separate-stderr ar-ledger export -C "$C" -V -f jsonl
	[ "$output" = "" ]
	[ "$stderr" = "$(problems_note 1)" ]
	# The ledger does not replace it: the real B clashes until it is gone.
	run -73 --separate-stderr ar-ledger append -C "$C" "$T/b.jsonl"
	[ "${stderr_lines[0]}" = "ar-ledger: $L: id $b is stored already with other content; not replaced" ]
	run -0 --separate-stderr ar-ledger compact -C "$C"
	[ "$stderr" = "ar-ledger: $L/results/$b.json: left in place: id does not match the file name
ar-ledger: 0 results merged into segments" ]
	chmod u+w "$L/results/$b.json"
	rm "$L/results/$b.json"
	run -0 ar-ledger append -C "$C" "$T/r.jsonl"
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 2 rows: 2 verified, 0 unsigned (imported); 0 problems" ]
	# A copy under another name also stores its id twice: export -V
	# leaves out every row of that id.
	cp "$L/results/$a.json" "$L/results/copy-of-a.json"
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$L/results/copy-of-a.json	$a	stored under id copy-of-a, but its \"id\" is $a
$L	$a	the same id is stored twice" ]
	[ "$stderr" = "ar-ledger: 3 rows: 2 verified, 0 unsigned (imported); 2 problems" ]
	run -1 --separate-stderr ar-ledger export -C "$C" -V -f jsonl
	[ "$stderr" = "$(problems_note 2)" ]
	[ "$output" = "$(cat "$T/b.jsonl")" ]
}

# '.' and '\' inside a key are escaped with '\', so {"x.y":1,"x":{"y":2}}
# gives two columns, "x\.y" and "x.y" (TSV writes the first as x\\.y).
# One column for both made the segment's stored columns disagree with the
# signed JSON after a compaction.
@test "ar-ledger: keys with '.' or '\\' get columns of their own, before and after compact" {
	printf '%s\n' '{"method":{"hash":"'$HASH'"},"x.y":1,"x":{"y":2},"a\\b":{"c.d":"v"}}' | sign "$T/d.jsonl"
	id=$(ids "$T/d.jsonl")
	run -0 ar-ledger append -C "$C" "$T/d.jsonl"
	want="id	signed	a\\\\\\\\b.c\\\\.d	campaign	method.hash	seal	x.y	x\\\\.y
$id	yes	v	$CAMP_ID	$HASH	$(jq -r .seal "$T/d.jsonl")	2	1"
	run -0 --separate-stderr ar-ledger export -C "$C"
	[ "$output" = "$want" ]
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 1 rows: 1 verified, 0 unsigned (imported); 0 problems" ]
	run -0 ar-ledger compact -C "$C"
	[ "$(head -1 "$L/seg/00000001.tsv")" = "id	signed	a\\\\\\\\b.c\\\\.d	campaign	method.hash	seal	x.y	x\\\\.y	json" ]
	run -0 --separate-stderr ar-ledger export -C "$C"
	[ "$output" = "$want" ]
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem" ]
	[ "$stderr" = "ar-ledger: 1 rows: 1 verified, 0 unsigned (imported); 0 problems" ]
	# The same from a batch, written as a segment at once.
	{ printf '%s\n' '{"method":{"hash":"'$HASH'"},"x.y":3,"x":{"y":4}}'; gen 16 /dev/stdout 4; } | sign "$T/b.jsonl"
	run -0 ar-ledger append -C "$C" "$T/b.jsonl"
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 18 rows: 18 verified, 0 unsigned (imported); 0 problems" ]
}

# ---- import ----

@test "ar-ledger: import of an autoresearch results.tsv stores unsigned rows" {
	run -0 --separate-stderr ar-ledger import -C "$C" -F autoresearch "$FIX/results.tsv"
	[ "$output" = "" ]
	[ "$stderr" = "ar-ledger: import: 8 stored, 0 already there" ]
	run -0 --separate-stderr ar-ledger export -C "$C"
	[ "$output" = "id	signed	description	direction	method.commit	metric	metrics.memory_gb.median	metrics.val_bpb.median	seq	source	verdict" ]
	[ "$stderr" = "ar-ledger: 8 unsigned (imported) rows left out; -u includes them" ]
	run -0 --separate-stderr ar-ledger export -C "$C" -u
	[ "$stderr" = "" ]
	[ "${#lines[@]}" -eq 9 ]
	save "$T/x.tsv"
	id=imp-autoresearch-000003-5579054f0ef5
	[ "$(get "$T/x.tsv" "$id" signed)" = no ]
	[ "$(get "$T/x.tsv" "$id" source)" = autoresearch ]
	[ "$(get "$T/x.tsv" "$id" method.commit)" = b2c3d4e ]
	[ "$(get "$T/x.tsv" "$id" metrics.val_bpb.median)" = 0.9932 ]
	[ "$(get "$T/x.tsv" "$id" metrics.memory_gb.median)" = 44.2 ]
	[ "$(get "$T/x.tsv" "$id" verdict)" = keep ]
	[ "$(get "$T/x.tsv" "$id" description)" = "increase LR to 0.04" ]
	[ "$(get "$T/x.tsv" "$id" seq)" = 3 ]
	[ "$(cut -f2 "$T/x.tsv" | sort | uniq -c | awk '{ print $1, $2 }')" = "8 no
1 signed" ]
	run -0 --separate-stderr ar-ledger export -C "$C" -f jsonl
	[ "$output" = "" ]
	[ "$stderr" = "ar-ledger: 8 unsigned (imported) rows left out; -u includes them" ]
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem" ]
	[ "$stderr" = "ar-ledger: 8 rows: 0 verified, 8 unsigned (imported); 0 problems" ]
	run -1 --separate-stderr ar-ledger verify -C "$C" -s
	[ "${#lines[@]}" -eq 9 ]
	[ "${lines[2]}" = "$L/results/$id.json	$id	unsigned (imported) row" ]
}

@test "ar-ledger: an imported results.tsv exports back byte for byte" {
	run -0 ar-ledger import -C "$C" -F autoresearch "$FIX/results.tsv"
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f autoresearch
	[ "$output" = "$(cat "$FIX/results.tsv")" ]
	run -0 ar-ledger compact -C "$C"
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f autoresearch
	[ "$output" = "$(cat "$FIX/results.tsv")" ]
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 8 rows: 0 verified, 8 unsigned (imported); 0 problems" ]
}

@test "ar-ledger: import of a pi-autoresearch log stores unsigned rows" {
	run -0 --separate-stderr ar-ledger import -C "$C" -F pi "$FIX/autoresearch.jsonl"
	[ "$stderr" = "ar-ledger: import: 6 stored, 0 already there" ]
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f autoresearch
	[ "$output" = "commit	total_us	memory_gb	status	description
9f8e7d6	6120.000000	0.0	keep	baseline
8e7d6c5	5830.000000	0.0	keep	StringScanner#skip_until instead of scan loop
7d6c5b4	5910.000000	0.0	discard	memoize tag lookup
6c5b4a3	0.000000	0.0	crash	inline filter dispatch (segfault in C ext)
5b4a392	5400.000000	0.0	checks_failed	skip whitespace tokens (breaks 3 tests)
4a39281	5510.000000	0.0	keep	pre-size output buffer" ]
	run -0 --separate-stderr ar-ledger export -C "$C" -u
	save "$T/x.tsv"
	[ "${lines[0]}" = "id	signed	confidence	description	direction	finished	method.commit	metric	metrics.allocs.median	metrics.parse_us.median	metrics.render_us.median	metrics.total_us.median	run	seq	session	source	status	verdict	workload" ]
	id=imp-pi-000003-8684f2b483e1
	[ "$(get "$T/x.tsv" "$id" signed)" = no ]
	[ "$(get "$T/x.tsv" "$id" source)" = pi ]
	[ "$(get "$T/x.tsv" "$id" metric)" = total_us ]
	[ "$(get "$T/x.tsv" "$id" metrics.total_us.median)" = 5830 ]
	[ "$(get "$T/x.tsv" "$id" metrics.allocs.median)" = 58900 ]
	[ "$(get "$T/x.tsv" "$id" confidence)" = 1.8 ]
	[ "$(get "$T/x.tsv" "$id" finished)" = 2025-03-26T00:53:32Z ]
	[ "$(get "$T/x.tsv" "$id" session)" = "liquid parse+render" ]
	[ "$(get "$T/x.tsv" "$id" run)" = 2 ]
	# checks_failed is an invalid run; a timestamp in ms is read as ms.
	id=imp-pi-000006-7c3494e86670
	[ "$(get "$T/x.tsv" "$id" verdict)" = invalid ]
	[ "$(get "$T/x.tsv" "$id" finished)" = 2025-03-26T01:13:53Z ]
	# A crash without a metric has no metric column.
	id=imp-pi-000005-f83bcb8977ea
	[ "$(get "$T/x.tsv" "$id" verdict)" = crash ]
	[ "$(get "$T/x.tsv" "$id" metrics.total_us.median)" = "" ]
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 6 rows: 0 verified, 6 unsigned (imported); 0 problems" ]
	run -1 --separate-stderr ar-ledger verify -C "$C" -s
	[ "$stderr" = "ar-ledger: 6 rows: 0 verified, 6 unsigned (imported); 6 problems" ]
}

@test "ar-ledger import -F pi: a later config line keeps the settings it does not name (no use after free)" {
	printf '%s\n' '{"type":"config","name":"s","metricName":"tok_s","bestDirection":"higher"}' \
	    '{"run":1,"metric":10,"status":"keep"}' '{"type":"config","metricName":"lat_ms"}' \
	    '{"run":2,"metric":7,"status":"keep"}' > "$T/c.jsonl"
	run -0 ar-ledger import -C "$C" -F pi "$T/c.jsonl"
	run -0 ar-ledger export -C "$C" -u -f jsonl
	[ "$(printf '%s\n' "$output" | jq -r '"\(.seq) \(.metric) \(.direction) \(.session)"')" = "2 tok_s higher s
4 lat_ms higher s" ]
}

@test "ar-ledger: export -f autoresearch holds one metric, the first row's" {
	run -0 ar-ledger import -C "$C" -F autoresearch "$FIX/results.tsv"
	run -0 ar-ledger import -C "$C" -F pi "$FIX/autoresearch.jsonl"
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f autoresearch
	[ "$output" = "$(cat "$FIX/results.tsv")" ]
	[ "$stderr" = "ar-ledger: 6 rows of another metric than val_bpb left out: results.tsv holds one metric" ]
}

@test "ar-ledger: signed and imported rows together; -u and -V" {
	gen 3 "$T/r.jsonl"
	run -0 ar-ledger append -C "$C" "$T/r.jsonl"
	run -0 ar-ledger import -C "$C" -F autoresearch "$FIX/results.tsv"
	run -0 --separate-stderr ar-ledger export -C "$C" -f jsonl
	[ "$output" = "$(by_id "$T/r.jsonl")" ]
	[ "$stderr" = "ar-ledger: 8 unsigned (imported) rows left out; -u includes them" ]
	run -0 --separate-stderr ar-ledger export -C "$C" -f jsonl -u -V
	[ "${#lines[@]}" -eq 11 ]
	[ "$stderr" = "" ]
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 11 rows: 3 verified, 8 unsigned (imported); 0 problems" ]
	run -0 ar-ledger compact -C "$C"
	run -0 --separate-stderr ar-ledger export -C "$C" -f tsv
	[ "${#lines[@]}" -eq 4 ]
	[ "$stderr" = "ar-ledger: 8 unsigned (imported) rows left out; -u includes them" ]
	run -0 --separate-stderr ar-ledger export -C "$C" -f tsv -V -u
	[ "${#lines[@]}" -eq 12 ]
	[ "$stderr" = "" ]
	# From segments, jsonl reads the signed column instead of parsing.
	run -0 --separate-stderr ar-ledger export -C "$C" -f jsonl
	[ "$output" = "$(by_id "$T/r.jsonl")" ]
	[ "$stderr" = "ar-ledger: 8 unsigned (imported) rows left out; -u includes them" ]
	run -0 --separate-stderr ar-ledger export -C "$C" -f jsonl -u -V
	[ "${#lines[@]}" -eq 11 ]
	[ "$stderr" = "" ]
	save "$T/all.jsonl"
	run -0 jq -r 'select(has("sig") | not) | .source' "$T/all.jsonl"
	[ "$output" = "$(printf 'autoresearch\n%.0s' 1 2 3 4 5 6 7 8)" ]
}

# Imports are deterministic: a second import, even a second later, is a
# no-op. (It clashed with 73 while rows carried the import time.)
@test "ar-ledger: importing the same file twice stores nothing new" {
	run -0 ar-ledger import -C "$C" -F autoresearch "$FIX/results.tsv"
	run -0 ar-ledger import -C "$C" -F pi "$FIX/autoresearch.jsonl"
	sleep 1.1
	run -0 --separate-stderr ar-ledger import -C "$C" -F autoresearch "$FIX/results.tsv"
	[ "$stderr" = "ar-ledger: import: 0 stored, 8 already there" ]
	run -0 --separate-stderr ar-ledger import -C "$C" -F pi "$FIX/autoresearch.jsonl"
	[ "$stderr" = "ar-ledger: import: 0 stored, 6 already there" ]
}

# import_fails FORMAT FILE MESSAGE: exit 65, exactly MESSAGE on stderr,
# nothing stored.
import_fails() {
	echo "# case: $2"
	run -65 --separate-stderr ar-ledger import -C "$C" -F "$1" "$2"
	[ "$output" = "" ]
	[ "$stderr" = "$3" ]
	nothing_stored
}

@test "ar-ledger: a malformed results.tsv gives one line naming file and line, 65" {
	F=$FIX/results.tsv
	cd "$T"
	# NaN is a log's word for no value: a kept run needs one.
	sed '3s/0.993200/NaN/' "$F" > nan.tsv
	import_fails autoresearch nan.tsv "ar-ledger: nan.tsv: line 3: a kept run without a metric"
	sed '3s/0.993200/inf/' "$F" > inf.tsv
	import_fails autoresearch inf.tsv "ar-ledger: inf.tsv: line 3: val_bpb 'inf' is not a finite number"
	sed '4s/1.005000/1.0o5/' "$F" > alpha.tsv
	import_fails autoresearch alpha.tsv "ar-ledger: alpha.tsv: line 4: val_bpb '1.0o5' is not a finite number"
	sed '5s/0.000000/0x10/' "$F" > hex.tsv
	import_fails autoresearch hex.tsv "ar-ledger: hex.tsv: line 5: val_bpb '0x10' is not a finite number"
	sed '6s/44.9/lots/' "$F" > mem.tsv
	import_fails autoresearch mem.tsv "ar-ledger: mem.tsv: line 6: memory_gb 'lots' is not a finite number"
	sed '3s/	keep	/		/' "$F" > status.tsv
	import_fails autoresearch status.tsv "ar-ledger: status.tsv: line 3: empty status"
	sed '3s/0.993200//' "$F" > keep.tsv
	import_fails autoresearch keep.tsv "ar-ledger: keep.tsv: line 3: a kept run without a metric"
	cut -f1,3,4,5 "$F" > nometric.tsv
	import_fails autoresearch nometric.tsv "ar-ledger: nometric.tsv: header: no metric column (a results.tsv has commit, val_bpb, memory_gb, status, description)"
	cut -f1,2,3,5 "$F" > nostatus.tsv
	import_fails autoresearch nostatus.tsv "ar-ledger: nostatus.tsv: header: no 'status' column (a results.tsv has commit, val_bpb, memory_gb, status, description; decision, verdict or outcome may stand for status)"
	sed '4s/$/	extra/' "$F" > cols.tsv
	import_fails autoresearch cols.tsv "ar-ledger: cols.tsv: line 4: 6 fields, header has 5"
	sed '5s/	[^	]*$//' "$F" > short.tsv
	import_fails autoresearch short.tsv "ar-ledger: short.tsv: line 5: 4 fields, header has 5"
	# A CR that ends a line is a CRLF line end; one inside is refused.
	sed '3s/LR/L\rR/' "$F" > cr3.tsv
	import_fails autoresearch cr3.tsv "ar-ledger: cr3.tsv: line 3: carriage return inside the line"
	sed '3s/	keep	/	\rkeep	/' "$F" > cr3b.tsv
	import_fails autoresearch cr3b.tsv "ar-ledger: cr3b.tsv: line 3: carriage return inside the line"
	sed '3s/LR/L\x00R/' "$F" > nul.tsv
	import_fails autoresearch nul.tsv "ar-ledger: nul.tsv: line 3: NUL byte in line"
	sed '3s/LR/L\xffR/' "$F" > utf8.tsv
	import_fails autoresearch utf8.tsv "ar-ledger: utf8.tsv: line 3: invalid UTF-8 at byte 38"
	{ head -3 "$F"; printf 'abcdef0\t0.99\t44.0\tkeep\t'; head -c 10485760 /dev/zero | tr '\0' x; printf '\n'; tail -n +4 "$F"; } > long.tsv
	import_fails autoresearch long.tsv "ar-ledger: long.tsv: line 4: longer than 1048576 bytes"
	: > empty.tsv
	import_fails autoresearch empty.tsv "ar-ledger: empty.tsv: empty input: no header line"
	sed '1s/description/commit/' "$F" > dupcol.tsv
	import_fails autoresearch dupcol.tsv "ar-ledger: dupcol.tsv: header: duplicate column 'commit'"
	# A log without its header line: its first row is read as one, and
	# a number there says so.
	tail -n +2 "$F" > nohead.tsv
	import_fails autoresearch nohead.tsv "ar-ledger: nohead.tsv: header: no 'status' column (no header line? the first line is a row)"
	printf '3\t0\t0\tkeep\tx\n4\t1\t1\tkeep\ty\n' > nohead0.tsv
	import_fails autoresearch nohead0.tsv "ar-ledger: nohead0.tsv: header: duplicate column '0' (no header line? the first line is a row)"
}

@test "ar-ledger: a malformed pi log gives one line naming file and line, 65" {
	P=$FIX/autoresearch.jsonl
	cd "$T"
	sed '3s/"metric":5830/"metric":NaN/' "$P" > nan.jsonl
	import_fails pi nan.jsonl "ar-ledger: nan.jsonl: line 3: invalid JSON at column 40: invalid token near 'NaN'"
	sed '3s/"metric":5830/"metric":1e999/' "$P" > inf.jsonl
	import_fails pi inf.jsonl "ar-ledger: inf.jsonl: line 3: invalid JSON at column 42: real number overflow near '1e999'"
	sed '3s/"metric":5830/"metric":"5830"/' "$P" > str.jsonl
	import_fails pi str.jsonl "ar-ledger: str.jsonl: line 3: metric is not a number"
	sed '3s/"parse_us":2150/"parse_us":"fast"/' "$P" > ms.jsonl
	import_fails pi ms.jsonl "ar-ledger: ms.jsonl: line 3: metrics.parse_us is not a number"
	sed '4s/"status":"discard"/"status":""/' "$P" > status.jsonl
	import_fails pi status.jsonl "ar-ledger: status.jsonl: line 4: empty status"
	sed '3s/"status":"keep",//' "$P" > nostatus.jsonl
	import_fails pi nostatus.jsonl "ar-ledger: nostatus.jsonl: line 3: run without a status"
	sed '7s/"metric":5510/"metric":null/' "$P" > keepnull.jsonl
	import_fails pi keepnull.jsonl "ar-ledger: keepnull.jsonl: line 7: a kept run without a metric"
	sed '3s/"run":2,/"run":2,"run":3,/' "$P" > dup.jsonl
	import_fails pi dup.jsonl "ar-ledger: dup.jsonl: line 3: invalid JSON at column 14: duplicate object key near '\"run\"'"
	sed '1s/"lower"/"down"/' "$P" > dir.jsonl
	import_fails pi dir.jsonl "ar-ledger: dir.jsonl: line 1: bestDirection 'down': expected lower or higher"
	sed '5s/^{/[/; 5s/}$/]/' "$P" > array.jsonl
	import_fails pi array.jsonl "ar-ledger: array.jsonl: line 5: invalid JSON at column 7: ']' expected near ':'"
	sed '6s/.*/[1,2]/' "$P" > notobj.jsonl
	import_fails pi notobj.jsonl "ar-ledger: notobj.jsonl: line 6: not a JSON object"
	sed '3s/instead/inst\x00ead/' "$P" > nul.jsonl
	import_fails pi nul.jsonl "ar-ledger: nul.jsonl: line 3: NUL byte in JSON text"
	sed '3s/instead/inst\xffead/' "$P" > utf8.jsonl
	import_fails pi utf8.jsonl "ar-ledger: utf8.jsonl: line 3: invalid UTF-8 at byte 163"
	sed '4s/"status"/"st\ratus"/' "$P" > cr4.jsonl
	import_fails pi cr4.jsonl "ar-ledger: cr4.jsonl: line 4: carriage return inside the line; nothing stored"
	sed '4s/$/\r\r/' "$P" > cr4b.jsonl
	import_fails pi cr4b.jsonl "ar-ledger: cr4b.jsonl: line 4: carriage return inside the line; nothing stored"
	{ head -2 "$P"; printf '{"run":9,"status":"keep","metric":1,"description":"'; head -c 10485760 /dev/zero | tr '\0' x; printf '"}\n'; tail -n +3 "$P"; } > long.jsonl
	import_fails pi long.jsonl "ar-ledger: long.jsonl: line 3: longer than 1048576 bytes; nothing stored"
	# A second config line's bad direction is named as it is written
	# (the shipped binary printed freed memory here).
	{ cat "$P"; echo '{"type":"config","name":"two","metricName":"ms","bestDirection":"sideways"}'; } > dir2.jsonl
	import_fails pi dir2.jsonl "ar-ledger: dir2.jsonl: line 8: bestDirection 'sideways': expected lower or higher"
	# A timestamp no time_t or RFC 3339 time holds (1e300 was undefined
	# behaviour; -1e17 stored a garbage time).
	sed '3s/"timestamp":[0-9]*/"timestamp":1e300/' "$P" > t300.jsonl
	import_fails pi t300.jsonl "ar-ledger: t300.jsonl: line 3: timestamp '1e+300': expected seconds or milliseconds since 1970, before year 10000"
	sed '3s/"timestamp":[0-9]*/"timestamp":-1e17/' "$P" > tneg.jsonl
	import_fails pi tneg.jsonl "ar-ledger: tneg.jsonl: line 3: timestamp '-1e+17': expected seconds or milliseconds since 1970, before year 10000"
	sed '3s/"timestamp":[0-9]*/"timestamp":253402300800000/' "$P" > t10k.jsonl
	import_fails pi t10k.jsonl "ar-ledger: t10k.jsonl: line 3: timestamp '253402300800000': expected seconds or milliseconds since 1970, before year 10000"
}

@test "ar-ledger: a pi log's hook lines without a run are skipped and said so" {
	{ cat "$FIX/autoresearch.jsonl"; echo '{"type":"hook","event":"session_end"}'; echo '{"note":"x"}'; } > "$T/h.jsonl"
	run -0 --separate-stderr ar-ledger import -C "$C" -F pi "$T/h.jsonl"
	[ "$stderr" = "ar-ledger: $T/h.jsonl: 2 lines without a run left out
ar-ledger: import: 6 stored, 0 already there" ]
}

@test "ar-ledger: import of a missing file exits 66" {
	run -66 --separate-stderr ar-ledger import -C "$C" -F autoresearch "$T/nope.tsv"
	[ "$stderr" = "ar-ledger: $T/nope.tsv: No such file or directory" ]
	nothing_stored
}

# ---- campaigns and files ----

@test "ar-ledger: a missing campaign exits 66" {
	for cmd in append verify export compact; do
		run -66 --separate-stderr ar-ledger $cmd -C "$T/nowhere"
		[ "$stderr" = "ar-ledger: $T/nowhere: No such file or directory" ]
	done
	run -66 --separate-stderr ar-ledger import -C "$T/nowhere" -F pi "$FIX/autoresearch.jsonl"
}

@test "ar-ledger: a directory that is not a campaign exits 66" {
	mkdir "$T/plain"
	run -66 --separate-stderr ar-ledger verify -C "$T/plain"
	[ "$stderr" = "ar-ledger: $T/plain: not a campaign (no campaign.conf)" ]
	rm -r "$L"
	run -66 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: $L: not a ledger (no results/)" ]
}

@test "ar-ledger: a missing input file exits 66 and stores nothing" {
	gen 2 "$T/r.jsonl"
	run -66 --separate-stderr ar-ledger append -C "$C" "$T/r.jsonl" "$T/nope.jsonl"
	[ "$stderr" = "ar-ledger: $T/nope.jsonl: No such file or directory" ]
	nothing_stored
}

# try_writes: append (loose, then a batch), import, compact, verify and
# export, unprivileged, each with its exit status, stdout and stderr in
# $T/w.N.rc, .out and .err. (Plain shell: it also runs in a namespace.)
try_writes() {
	local n=0 args rc
	while IFS= read -r args; do
		n=$((n + 1))
		rc=0
		# shellcheck disable=SC2086
		unprivileged ar-ledger $args > "$T/w.$n.out" 2> "$T/w.$n.err" || rc=$?
		echo "$rc" > "$T/w.$n.rc"
	done <<-END
	append -C $C $T/r.jsonl
	append -C $C $T/b.jsonl
	import -C $C -F autoresearch $FIX/results.tsv
	compact -C $C
	verify -C $C
	export -C $C -f jsonl
	END
}

# refused_writes ERR: what try_writes found: each write exited 73 naming
# ERR (strerror's text); verify and export read the 3 rows stored before.
refused_writes() {
	local n
	for n in 1 2 3 4; do
		[ "$(cat "$T/w.$n.rc")" = 73 ]
		[ "$(cat "$T/w.$n.out")" = "" ]
	done
	[ "$(cat "$T/w.1.err")" = "ar-ledger: $L/results: cannot store $(head -1 "$T/r.jsonl" | jq -r .id): $1" ]
	[ "$(cat "$T/w.2.err")" = "ar-ledger: $L/lock: $1" ]
	[[ "$(cat "$T/w.3.err")" == "ar-ledger: $L/results: cannot store imp-autoresearch-000002-"*": $1" ]]
	[ "$(cat "$T/w.4.err")" = "ar-ledger: $L/lock: $1" ]
	[ "$(cat "$T/w.5.rc")" = 0 ]
	[ "$(cat "$T/w.5.err")" = "ar-ledger: 3 rows: 3 verified, 0 unsigned (imported); 0 problems" ]
	[ "$(cat "$T/w.6.rc")" = 0 ]
	[ "$(cat "$T/w.6.out")" = "$(by_id "$T/old.jsonl")" ]
	# Only the rows stored before, loose, and the seal their append
	# wrote; no segment, lock or temporary.
	run -0 ls -A "$L/results"
	[ "$output" = "$(ids "$T/old.jsonl" | LC_ALL=C sort | sed 's/$/.json/')" ]
	run -0 ls -A "$L" "$L/seg"
	[ "$output" = "$L:
loose.seal
results
seg

$L/seg:" ]
}

# Three rows stored, then inputs for try_writes.
writes_setup() {
	gen 3 "$T/old.jsonl" 3
	run -0 ar-ledger append -C "$C" "$T/old.jsonl"
	gen 2 "$T/r.jsonl"
	gen 20 "$T/b.jsonl" 2
}

@test "ar-ledger: a read-only ledger (permissions) refuses writes with 73 and stays intact" {
	if [ "$(id -u)" -eq 0 ] && ! setpriv --bounding-set=-dac_override true 2> /dev/null; then
		skip "root ignores permissions"
	fi
	writes_setup
	chmod a-w "$L" "$L/results" "$L/seg"
	try_writes
	chmod u+w "$L" "$L/results" "$L/seg"
	refused_writes "Permission denied"
}

@test "ar-ledger: a ledger on a read-only filesystem refuses writes with 73 and stays intact" {
	local rc=0
	private_mounts "to mount the ledger read-only in"
	writes_setup
	# The ledger, bind-mounted read-only on itself in a private namespace.
	export C L T FIX PATH
	export -f try_writes unprivileged
	$UNSHARE bash -c 'mount --bind "$L" "$L" && mount -o remount,bind,ro "$L" || exit 99
	    try_writes' || rc=$?
	[ "$rc" -ne 99 ] || skip "cannot mount the ledger read-only"
	[ "$rc" -eq 0 ]
	refused_writes "Read-only file system"
}

# ---- the lock ----

@test "ar-ledger: the lock of a dead local process is broken" {
	dead_pid
	gen 5 "$T/r.jsonl"
	run -0 ar-ledger append -C "$C" "$T/r.jsonl"
	lock_by "$dead"
	run -0 --separate-stderr ar-ledger compact -C "$C"
	[ "$stderr" = "ar-ledger: 5 results merged into segments" ]
	ledger_clean
	lock_by "$dead"
	gen 20 "$T/b.jsonl" 2
	run -0 --separate-stderr ar-ledger append -C "$C" "$T/b.jsonl"
	[ "$stderr" = "ar-ledger: append: 20 stored, 0 already there" ]
	ledger_clean
	run -0 ar-ledger verify -C "$C"
}

@test "ar-ledger: compact -B breaks the lock of a live process" {
	gen 5 "$T/r.jsonl"
	run -0 ar-ledger append -C "$C" "$T/r.jsonl"
	lock_by $$
	run -0 --separate-stderr ar-ledger compact -C "$C" -B
	[ "$stderr" = "ar-ledger: 5 results merged into segments" ]
	ledger_clean
	run -0 ar-ledger verify -C "$C"
}

# A live holder (this test's shell) is waited for AR_LOCK_WAIT seconds;
# then the writer gives up with 75, naming the holder, and leaves the
# lock and the ledger as they were.
@test "ar-ledger: a live lock makes batch append and compact wait AR_LOCK_WAIT, then exit 75" {
	gen 5 "$T/r.jsonl"
	run -0 ar-ledger append -C "$C" "$T/r.jsonl"
	gen 20 "$T/b.jsonl" 2
	lock_by $$
	held=$(cat "$L/lock")
	busy="ar-ledger: $L/lock: busy: held by '$held' (remove it if that process is gone)"
	for cmd in "append $T/b.jsonl" compact; do
		echo "# $cmd"
		t0=$(now_us)
		# shellcheck disable=SC2086
		AR_LOCK_WAIT=1 run -75 --separate-stderr ar-ledger $cmd -C "$C"
		t=$(( $(now_us) - t0 ))
		echo "# waited ${t}us"
		[ "$output" = "" ]
		[ "$stderr" = "$busy" ]
		[ "$t" -ge 900000 ]
		[ "$t" -lt 15000000 ]
		[ "$(cat "$L/lock")" = "$held" ]
	done
	# 0: one try, no wait.
	AR_LOCK_WAIT=0 run -75 --separate-stderr ar-ledger compact -C "$C"
	[ "$stderr" = "$busy" ]
	run -0 ls "$L/results"
	[ "${#lines[@]}" -eq 5 ]
	run -0 ls -A "$L/seg"
	[ "$output" = "" ]
	# Small appends take no lock.
	gen 1 "$T/one.jsonl" 3
	run -0 --separate-stderr ar-ledger append -C "$C" "$T/one.jsonl"
	[ "$stderr" = "ar-ledger: append: 1 stored, 0 already there" ]
	# A lock let go while a writer waits is taken.
	AR_LOCK_WAIT=20 ar-ledger append -C "$C" "$T/b.jsonl" 2> "$T/err" &
	pid=$!
	sleep 0.3
	rm "$L/lock"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 0 ]
	[ "$(cat "$T/err")" = "ar-ledger: append: 20 stored, 0 already there" ]
	ledger_clean
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 26 rows: 26 verified, 0 unsigned (imported); 0 problems" ]
}

# With no time to wait, a writer still takes a lock it has just broken:
# a stale one, or a live one with compact -B.
@test "ar-ledger: AR_LOCK_WAIT=0 takes the lock it breaks" {
	dead_pid
	gen 5 "$T/r.jsonl"
	run -0 ar-ledger append -C "$C" "$T/r.jsonl"
	lock_by "$dead"
	AR_LOCK_WAIT=0 run -0 --separate-stderr ar-ledger compact -C "$C"
	[ "$stderr" = "ar-ledger: 5 results merged into segments" ]
	gen 5 "$T/r2.jsonl" 2
	run -0 ar-ledger append -C "$C" "$T/r2.jsonl"
	lock_by $$
	AR_LOCK_WAIT=0 run -0 --separate-stderr ar-ledger compact -C "$C" -B
	[ "$stderr" = "ar-ledger: 5 results merged into segments" ]
	ledger_clean
}

# (It once made no try at all: exit 74 with an empty message.)
@test "ar-ledger: AR_LOCK_WAIT below zero gives up at once like 0" {
	gen 20 "$T/b.jsonl"
	lock_by $$
	for w in -1 -0.5; do
		AR_LOCK_WAIT=$w run -75 --separate-stderr ar-ledger append -C "$C" "$T/b.jsonl"
		[ "$stderr" = "ar-ledger: $L/lock: busy: held by '$(cat "$L/lock")' (remove it if that process is gone)" ]
	done
	run -0 ls -A "$L/seg"
	[ "$output" = "" ]
}

# ---- method hashes ----

# commit_method: commits a method file into the campaign's methods/ and
# sets COMMIT and MHASH, the hash ar-result(5) defines: BLAKE2b-256 of
# `git ls-tree -r --full-tree COMMIT`.
commit_method() {
	printf 'int main(void) { return 0; }\n' > "$C/methods/method.c"
	git -C "$C/methods" add method.c
	git -C "$C/methods" -c user.name=t -c user.email=t@example.org \
	    commit -q -m method
	COMMIT=$(git -C "$C/methods" rev-parse HEAD)
	MHASH=$(git -C "$C/methods" ls-tree -r --full-tree "$COMMIT" |
	    b2sum -l 256 | cut -d ' ' -f 1)
}

# Append checks every row as verify does, but for the method hash, which
# it checks too before a segment's seal: a segment it makes is sealed at
# once (ar-ledger(5), Seals), so that no read checks its rows again.
@test "ar-ledger append: seals the segment it makes as verify -F would; not one with a wrong method hash, nor without the key" {
	command -v b2sum >/dev/null || skip "b2sum (coreutils) is needed"
	commit_method
	gen 17 "$T/a.jsonl" 1
	for i in 1 2 3; do
		printf '{"id":"good%d","method":{"commit":"%s","hash":"%s"}}\n' \
		    $i "$COMMIT" "$MHASH"
	done | ar-sign-test -C "$C" >> "$T/a.jsonl"
	run -0 ar-ledger append -C "$C" "$T/a.jsonl"
	S=$L/seg/00000001.seal
	run -0 sed -n '1p;4p;7p' "$S"
	[ "$output" = "ar-ledger seal 3
segment 1
rows 20 unsigned 0 unchecked 17" ]
	run -0 sed -n 1,7p "$S"
	save "$T/append.seal"
	rm -f "$S"
	run -0 --separate-stderr ar-ledger verify -F -C "$C"
	[ "$stderr" = "ar-ledger: 20 rows: 20 verified, 0 unsigned (imported); 0 problems
ar-ledger: 17 verified rows name a method that is not a commit of methods/: its hash was not recomputed" ]
	[ "$(sed -n 1,7p "$S")" = "$(cat "$T/append.seal")" ]
	# A row whose method.hash is not its commit's: stored, not sealed,
	# and verify names it.
	gen 17 "$T/b.jsonl" 2
	printf '{"id":"bad","method":{"commit":"%s","hash":"%064d"}}\n' \
	    "$COMMIT" 7 | ar-sign-test -C "$C" >> "$T/b.jsonl"
	run -0 ar-ledger append -C "$C" "$T/b.jsonl"
	[ -f "$L/seg/00000002.tsv" ]
	[ ! -e "$L/seg/00000002.seal" ]
	n=$(seg_line bad "$L/seg/00000002.tsv")
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$L/seg/00000002.tsv:$n	bad	method.hash is not the hash of commit ${COMMIT:0:12} in methods/" ]
	# Without the campaign's secret key, no seal.
	gen 17 "$T/c.jsonl" 3
	mv "$C/keys/bench.key" "$T/bench.key"
	run -0 ar-ledger append -C "$C" "$T/c.jsonl"
	[ -f "$L/seg/00000003.tsv" ]
	[ ! -e "$L/seg/00000003.seal" ]
	mv "$T/bench.key" "$C/keys/bench.key"
}

@test "ar-ledger verify: method.hash is recomputed from the commit in methods/" {
	command -v b2sum >/dev/null || skip "b2sum (coreutils) is needed"
	commit_method
	printf '{"id":"good","method":{"commit":"%s","hash":"%s"}}\n' \
	    "$COMMIT" "$MHASH" | ar-sign-test -C "$C" > "$T/good.jsonl"
	printf '{"id":"bad","method":{"commit":"%s","hash":"%064d"}}\n' \
	    "$COMMIT" 7 | ar-sign-test -C "$C" > "$T/bad.jsonl"
	ar-ledger append -C "$C" "$T/good.jsonl" 2> /dev/null
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 1 rows: 1 verified, 0 unsigned (imported); 0 problems" ]
	# Signed, but for content the commit does not have: refused by verify.
	ar-ledger append -C "$C" "$T/bad.jsonl" 2> /dev/null
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$L/results/bad.json	bad	method.hash is not the hash of commit ${COMMIT:0:12} in methods/" ]
	[ "$stderr" = "ar-ledger: 2 rows: 1 verified, 0 unsigned (imported); 1 problem" ]
	run -1 --separate-stderr ar-ledger export -C "$C" -V -f jsonl
	[ "$output" = "$(cat "$L/results/good.json")" ]
}

@test "ar-ledger verify: in a SHA-256 methods/ repository, a 64-digit commit's method.hash is recomputed and cached" {
	command -v b2sum >/dev/null || skip "b2sum (coreutils) is needed"
	rm -rf "$C/methods"
	git init -q --object-format=sha256 "$C/methods"
	commit_method
	[ "${#COMMIT}" -eq 64 ]
	# ar-campaign hash gives the whole id, not its first 40 digits.
	run -0 ar-campaign hash -C "$C" HEAD
	[ "$output" = "$COMMIT	$MHASH" ]
	printf '{"id":"good","method":{"commit":"%s","hash":"%s"}}\n' \
	    "$COMMIT" "$MHASH" | ar-sign-test -C "$C" > "$T/good.jsonl"
	printf '{"id":"bad","method":{"commit":"%s","hash":"%064d"}}\n' \
	    "$COMMIT" 7 | ar-sign-test -C "$C" > "$T/bad.jsonl"
	ar-ledger append -C "$C" "$T/good.jsonl" "$T/bad.jsonl" 2> /dev/null
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$L/results/bad.json	bad	method.hash is not the hash of commit ${COMMIT:0:12} in methods/" ]
	[ "$stderr" = "ar-ledger: 2 rows: 1 verified, 0 unsigned (imported); 1 problem" ]
	run -1 --separate-stderr ar-ledger export -C "$C" -V -f jsonl
	[ "$output" = "$(cat "$L/results/good.json")" ]
	run -0 sed 1d "$C/run/method-hashes"
	[ "$output" = "$COMMIT	$MHASH" ]
}

@test "ar-ledger verify: a method that is not a commit of methods/ is said, once methods/ has commits" {
	gen 2 "$T/r.jsonl"
	ar-ledger append -C "$C" "$T/r.jsonl" 2> /dev/null
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 2 rows: 2 verified, 0 unsigned (imported); 0 problems" ]
	commit_method
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 2 rows: 2 verified, 0 unsigned (imported); 0 problems
ar-ledger: 2 verified rows name a method that is not a commit of methods/: its hash was not recomputed" ]
}

@test "ar-ledger verify: methods/ is reached without a shell, whatever the campaign's path" {
	command -v b2sum >/dev/null || skip "b2sum (coreutils) is needed"
	cd "$T"
	C="$T/it's a camp; \$(touch pwned)"
	L=$C/ledger
	ar-init -p "$T/prob" "$C" > /dev/null
	commit_method
	printf '{"id":"bad","method":{"commit":"%s","hash":"%064d"}}\n' \
	    "$COMMIT" 7 | ar-sign-test -C "$C" > "$T/bad.jsonl"
	ar-ledger append -C "$C" "$T/bad.jsonl" 2> /dev/null
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$L/results/bad.json	bad	method.hash is not the hash of commit ${COMMIT:0:12} in methods/" ]
	[ ! -e "$T/pwned" ]
	[ ! -e "$C/methods/pwned" ]
}

# Seals (ar-ledger(5)): a segment found good row by row is sealed, and
# export -V then takes its rows as checked while the seal matches.
@test "ar-ledger export -V: seals each good segment, and a sealed segment exports as it did" {
	stored_mix
	# Append sealed it; without that seal, as a ledger written
	# without the key, the export checks the rows and seals them.
	rm "$L/seg/00000001.seal"
	run -0 --separate-stderr ar-ledger export -C "$C" -V -f tsv
	save "$T/first.tsv"
	[ -f "$L/seg/00000001.seal" ]
	run -0 sed -n '1p;4p;7p' "$L/seg/00000001.seal"
	[ "$output" = "ar-ledger seal 3
segment 1
rows 20 unsigned 0 unchecked 20" ]
	# The segment file's device, inode, size, mtime and ctime, and when
	# the seal was made.
	[[ "$(sed -n 8p "$L/seg/00000001.seal")" =~ ^stat\ $(stat -c '%d %i %s' "$SEG")\ $(stat -c '%.9Y %.9Z' "$SEG")\ [0-9]+$ ]]
	run -0 --separate-stderr ar-ledger export -C "$C" -V -f tsv
	[ "$output" = "$(cat "$T/first.tsv")" ]
	[ "$stderr" = "" ]
	# verify trusts the seal, verify -F checks every row; they agree.
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 23 rows: 23 verified, 0 unsigned (imported); 0 problems" ]
	run -0 --separate-stderr ar-ledger verify -C "$C" -F
	[ "$stderr" = "ar-ledger: 23 rows: 23 verified, 0 unsigned (imported); 0 problems" ]
}

# verify_finds WHERE ID WHY: verify, and verify -F, name exactly the row
# ID at WHERE, with WHY, and count it.
verify_finds() {
	local full
	for full in "" -F; do
		run -1 --separate-stderr ar-ledger verify -C "$C" $full
		[ "$output" = "where	id	problem
$1	$2	$3" ]
		[ "$stderr" = "ar-ledger: 23 rows: 22 verified, 0 unsigned (imported); 1 problem" ]
	done
}

@test "ar-ledger verify: seals the segments it finds good; the next verify agrees without reading their rows" {
	stored_mix
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 23 rows: 23 verified, 0 unsigned (imported); 0 problems" ]
	[ -f "$L/seg/00000001.seal" ]
	cp "$L/seg/00000001.seal" "$T/seal"
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem" ]
	[ "$stderr" = "ar-ledger: 23 rows: 23 verified, 0 unsigned (imported); 0 problems" ]
	# -F checks every row again and seals the same segment the same way
	# (but for when: the seal's time and so its signature).
	run -0 --separate-stderr ar-ledger verify -C "$C" -F
	[ "$stderr" = "ar-ledger: 23 rows: 23 verified, 0 unsigned (imported); 0 problems" ]
	[ "$(sed -n '1,7p;8s/ [0-9]*$//p' "$T/seal")" = "$(sed -n '1,7p;8s/ [0-9]*$//p' "$L/seg/00000001.seal")" ]
}

@test "ar-ledger verify: a row edited in a sealed segment is found with and without -F" {
	stored_mix
	ar-ledger verify -C "$C" > /dev/null 2>&1
	[ -f "$L/seg/00000001.seal" ]
	id=$(sed -n 5p "$T/seg.jsonl" | jq -r .id)
	n=$(seg_line "$id")
	sed -i "${n}s/\"why\":\"generated for a test\"/\"why\":\"generated for a tesT\"/" "$SEG"
	verify_finds "$SEG:$n" "$id" "bad signature"
}

# While a sealed segment's stat line is the one signed, verify takes the
# seal's hash of it and does not read it; a changed stat (touch) makes it
# hash the file, and the same bytes are still good; bytes changed in
# place with the size and mtime put back are found (the ctime moved).
@test "ar-ledger verify: a sealed segment is not read while its stat is the signed one; an edit in place is found" {
	command -v strace >/dev/null || skip "strace is needed (.ci/run installs it)"
	# (LeakSanitizer cannot run under strace: leaks are left to the
	# other tests when the suite runs under AddressSanitizer.)
	stored_mix
	# A seal made within the second of the segment's last change is not
	# taken without hashing (the same tick of the clock could keep the
	# ctime): wall-clock time is what is under test here.
	sleep 1.1
	ar-ledger verify -C "$C" > /dev/null 2>&1
	[ -f "$L/seg/00000001.seal" ]
	ASAN_OPTIONS=detect_leaks=0 strace -f -e trace=openat -o "$T/trace" ar-ledger verify -C "$C" > /dev/null 2> "$T/err"
	grep -q '23 verified' "$T/err"
	not grep -q 'seg/00000001.tsv"' "$T/trace"
	# Touched: hashed, still good, and sealed again with its new stat.
	old=$(sed -n 8p "$L/seg/00000001.seal")
	touch "$SEG"
	ASAN_OPTIONS=detect_leaks=0 strace -f -e trace=openat -o "$T/trace" ar-ledger verify -C "$C" > /dev/null 2> "$T/err"
	grep -q '23 verified, 0 unsigned (imported); 0 problems' "$T/err"
	grep -q 'seg/00000001.tsv"' "$T/trace"
	[ "$(sed -n 8p "$L/seg/00000001.seal")" != "$old" ]
	[[ "$(sed -n 8p "$L/seg/00000001.seal")" == "stat $(stat -c '%d %i %s' "$SEG") $(stat -c '%.9Y %.9Z' "$SEG") "* ]]
	# One byte of a row, in place, same size; the mtime put back.
	id=$(sed -n 5p "$T/seg.jsonl" | jq -r .id)
	n=$(seg_line "$id")
	off=$(awk -v n="$n" 'NR < n { o += length($0) + 1 } NR == n { print o + index($0, "generated for a test") - 1 + 19; exit }' "$SEG")
	touch -r "$SEG" "$T/mtime"
	printf 'T' | dd of="$SEG" bs=1 seek="$off" conv=notrunc 2> /dev/null
	touch -r "$T/mtime" "$SEG"
	grep -q 'generated for a tesT' "$SEG"
	# The first "why" of the line is its stored column.
	verify_finds "$SEG:$n" "$id" "stored column 'why' does not match the signed JSON"
}

@test "ar-ledger verify: a seal rewritten for an edited segment, without the key, is not trusted" {
	command -v b2sum >/dev/null || skip "b2sum (coreutils) is needed"
	stored_mix
	ar-ledger verify -C "$C" > /dev/null 2>&1
	S=$L/seg/00000001.seal
	id=$(sed -n 5p "$T/seg.jsonl" | jq -r .id)
	n=$(seg_line "$id")
	sed -i "${n}s/\"why\":\"generated for a test\"/\"why\":\"generated for a tesT\"/" "$SEG"
	h=$(b2sum -l 256 < "$SEG" | cut -d ' ' -f 1)
	chmod u+w "$S"
	awk -v s="$(stat -c %s "$SEG")" -v h="$h" '$1 == "tsv" { $2 = s; $3 = h } { print }' "$S" > "$T/seal"
	cp "$T/seal" "$S"
	verify_finds "$SEG:$n" "$id" "bad signature"
}

# The summary is signed with the rest: counts changed by hand void the
# seal, and the rows are read and counted again.
@test "ar-ledger verify: a seal whose counts are edited is not trusted" {
	stored_mix
	ar-ledger verify -C "$C" > /dev/null 2>&1
	S=$L/seg/00000001.seal
	chmod u+w "$S"
	sed -i 's/^rows 20 /rows 19 /' "$S"
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 23 rows: 23 verified, 0 unsigned (imported); 0 problems" ]
	run -0 sed -n 7p "$S"
	[ "$output" = "rows 20 unsigned 0 unchecked 20" ]
}

@test "ar-ledger verify: an id stored in a sealed segment and again in another is found" {
	stored_mix
	ar-ledger verify -C "$C" > /dev/null 2>&1
	[ -f "$L/seg/00000001.seal" ]
	# A copy under another number: its seal does not match (the number
	# is sealed), so its rows are read; the first is not.
	cp "$L/seg/00000001.tsv" "$L/seg/00000002.tsv"
	cp "$L/seg/00000001.idx" "$L/seg/00000002.idx"
	cp "$L/seg/00000001.seal" "$L/seg/00000002.seal"
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$(ids "$T/seg.jsonl" | LC_ALL=C sort | sed "s|^|$L	|; s|\$|	the same id is stored twice|")" ]
	[ "$stderr" = "ar-ledger: 43 rows: 43 verified, 0 unsigned (imported); 20 problems" ]
}

@test "ar-ledger verify -s: the unsigned rows of a sealed segment are named" {
	run -0 ar-ledger import -C "$C" -F autoresearch "$FIX/results.tsv"
	run -0 ar-ledger compact -C "$C"
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 8 rows: 0 verified, 8 unsigned (imported); 0 problems" ]
	run -0 sed -n 7p "$L/seg/00000001.seal"
	[ "$output" = "rows 8 unsigned 8 unchecked 0" ]
	run -1 --separate-stderr ar-ledger verify -C "$C" -s
	[ "${#lines[@]}" -eq 9 ]
	[ "${lines[1]}" = "$L/seg/00000001.tsv:2	$(sed -n 1p "$L/seg/00000001.idx")	unsigned (imported) row" ]
	[ "$stderr" = "ar-ledger: 8 rows: 0 verified, 8 unsigned (imported); 8 problems" ]
}

@test "ar-ledger export -V: a row edited in a sealed segment is still found and left out" {
	stored_mix
	ar-ledger export -C "$C" -V > /dev/null
	[ -f "$L/seg/00000001.seal" ]
	id=$(sed -n 5p "$T/seg.jsonl" | jq -r .id)
	n=$(seg_line "$id")
	sed -i "${n}s/^$id	/forged-id	/" "$SEG"
	export_left_out "$SEG:$n" "$id" 2
	# A bad segment is not sealed again.
	run -0 grep -c "^sig " "$L/seg/00000001.seal"
}

# An adversary who edits a row and writes the seal the edited segment
# would have cannot sign it: the seal fails and the rows are checked.
@test "ar-ledger export -V: a seal rewritten for an edited segment, without the key, is not trusted" {
	command -v b2sum >/dev/null || skip "b2sum (coreutils) is needed"
	stored_mix
	ar-ledger export -C "$C" -V > /dev/null
	S=$L/seg/00000001.seal
	id=$(sed -n 5p "$T/seg.jsonl" | jq -r .id)
	n=$(seg_line "$id")
	sed -i "${n}s/^$id	/forged-id	/" "$SEG"
	h=$(b2sum -l 256 < "$SEG" | cut -d ' ' -f 1)
	chmod u+w "$S"
	awk -v s="$(stat -c %s "$SEG")" -v h="$h" '$1 == "tsv" { $2 = s; $3 = h } { print }' "$S" > "$T/seal"
	cp "$T/seal" "$S"
	export_left_out "$SEG:$n" "$id" 2
}

@test "ar-ledger export -V: without the campaign's secret key, no seal is written and every row is checked" {
	stored_mix
	rm "$L/seg/00000001.seal"
	mv "$C/keys/bench.key" "$T/bench.key"
	run -0 --separate-stderr ar-ledger export -C "$C" -V -f jsonl
	[ "$stderr" = "" ]
	[ "$output" = "$(cat "$T/clean.jsonl")" ]
	[ ! -e "$L/seg/00000001.seal" ]
	mv "$T/bench.key" "$C/keys/bench.key"
}

# The key's holder checks a stored row by signing it again (a third of a
# verification's cost); bytes that differ are verified. The answers are
# those of a run without the key, and a key file whose seed is not the
# public key's is not taken as the holder's.
@test "ar-ledger verify -F: the key's holder and a run without the key find the same rows; a forged key file is not the holder's" {
	stored_mix
	id=$(sed -n 5p "$T/seg.jsonl" | jq -r .id)
	n=$(seg_line "$id")
	sed -i "${n}s/\"why\":\"generated for a test\"/\"why\":\"generated for a tesT\"/" "$SEG"
	run -1 --separate-stderr ar-ledger verify -C "$C" -F
	[ "$output" = "where	id	problem
$SEG:$n	$id	bad signature" ]
	mv "$C/keys/bench.key" "$T/bench.key"
	run -1 --separate-stderr ar-ledger verify -C "$C" -F
	[ "$output" = "where	id	problem
$SEG:$n	$id	bad signature" ]
	# Another seed with the campaign's public half: libsodium signs with
	# that half as written, so signing again would agree with a loose
	# result it signed, though the signature does not hold.
	ar-init -p "$T/prob" "$T/other" > /dev/null
	{ printf 'ed25519-secret %s%s\n' \
	    "$(cut -d' ' -f2 "$T/other/keys/bench.key" | cut -c 1-64)" \
	    "$(cut -d' ' -f2 "$C/keys/bench.pub")"; } > "$C/keys/bench.key"
	lid=$(head -n 1 "$T/loose.jsonl" | jq -r .id)
	jq -c 'del(.sig)' "$L/results/$lid.json" |
	    ar-sign-test -C "$C" -k "$C/keys/bench.key" > "$T/forged.json"
	[ "$(jq -r .sig "$T/forged.json")" != "$(jq -r .sig "$L/results/$lid.json")" ]
	chmod u+w "$L/results/$lid.json"
	tr -d '\n' < "$T/forged.json" > "$L/results/$lid.json"
	rm -f "$L/loose.seal" "$L"/seg/*.seal
	run -1 --separate-stderr ar-ledger verify -C "$C" -F
	[ "$output" = "where	id	problem
$SEG:$n	$id	bad signature
$L/results/$lid.json	$lid	bad signature" ]
	# Not the holder: nothing is sealed.
	[ ! -e "$L/loose.seal" ]
	[ ! -e "$L/seg/00000001.seal" ]
	mv "$T/bench.key" "$C/keys/bench.key"
}

@test "ar-ledger export -V: method hashes are kept in run/method-hashes; verify recomputes them" {
	command -v b2sum >/dev/null || skip "b2sum (coreutils) is needed"
	commit_method
	printf '{"id":"good","method":{"commit":"%s","hash":"%s"}}\n' \
	    "$COMMIT" "$MHASH" | ar-sign-test -C "$C" > "$T/good.jsonl"
	ar-ledger append -C "$C" "$T/good.jsonl" 2> /dev/null
	run -0 --separate-stderr ar-ledger export -C "$C" -V -f jsonl
	[ "$output" = "$(cat "$L/results/good.json")" ]
	run -0 sed 1d "$C/run/method-hashes"
	[ "$output" = "$COMMIT	$MHASH" ]
	# A damaged cache line is skipped; verify does not read the cache.
	printf 'junk\n%s\t%064d\n' "$COMMIT" 7 > "$C/run/method-hashes"
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 1 rows: 1 verified, 0 unsigned (imported); 0 problems" ]
}

@test "ar-ledger export -V: loose results found good are listed in ledger/loose.seal; an edited one is checked again; a seal rewritten without the key is not trusted" {
	command -v b2sum >/dev/null || skip "b2sum (coreutils) is needed"
	stored_mix
	run -0 --separate-stderr ar-ledger export -C "$C" -V -f jsonl
	save "$T/v1"
	S=$L/loose.seal
	# A header, one line per loose result by id with the hash of its
	# JSON (its bytes but the last newline), then the signature.
	[ "$(sed -n 1p "$S")" = "ar-ledger loose seal 1" ]
	[ "$(sed -n 2p "$S")" = "campaign $(jq -r .campaign "$T/loose.jsonl" | head -1)" ]
	run -0 cut -f 1,2 "$S"
	[ "${#lines[@]}" -eq 7 ]
	[ "$(printf '%s\n' "${lines[@]:3:3}")" = "$(ids "$T/loose.jsonl" | LC_ALL=C sort | while read -r i; do
	    printf '%s\t%s\n' "$i" "$(printf '%s' "$(cat "$L/results/$i.json")" | b2sum -l 256 | cut -d ' ' -f 1)"; done)" ]
	[[ "${lines[6]}" == "sig "* ]]
	run -0 cut -f 3 "$S"
	[ "$(printf '%s\n' "${lines[@]:3:3}")" = "yes
yes
yes" ]
	# The next export says the same, and leaves the seal as it was.
	ino=$(stat -c %i "$S")
	run -0 --separate-stderr ar-ledger export -C "$C" -V -f jsonl
	[ "$output" = "$(cat "$T/v1")" ]
	[ "$(stat -c %i "$S")" = "$ino" ]
	# An edited loose result is not what the seal lists: checked again.
	edit_loose
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$f	$id	bad signature" ]
	# The edited bytes' hash written into the seal, without the key:
	# its signature fails, nothing of it is trusted.
	chmod u+w "$S"
	h=$(printf '%s' "$(cat "$f")" | b2sum -l 256 | cut -d ' ' -f 1)
	awk -v id="$id" -v h="$h" 'BEGIN { FS = OFS = "\t" } $1 == id { $2 = h } { print }' "$S" > "$T/seal"
	cp "$T/seal" "$S"
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$f	$id	bad signature" ]
	run -1 --separate-stderr ar-ledger export -C "$C" -V -f jsonl
	[ "${#lines[@]}" -eq 22 ]
	[ "$(grep -c "\"id\":\"$id\"" <<< "$output")" -eq 0 ]
	# Sealed again by the holder of the key: the two good ones.
	run -0 cut -f 1 "$S"
	[ "${#lines[@]}" -eq 6 ]
	[ "$(printf '%s\n' "${lines[@]}" | grep -c "^$id\$")" -eq 0 ]
	# Without the key nothing is sealed; the rows are checked as before.
	rm -f "$S"
	mv "$C/keys/bench.key" "$T/bench.key"
	run -1 --separate-stderr ar-ledger export -C "$C" -V -f jsonl
	[ "${#lines[@]}" -eq 22 ]
	[ ! -e "$S" ]
	mv "$T/bench.key" "$C/keys/bench.key"
}

@test "ar-ledger export -V: a commit methods/ lacks is asked of git once, until methods/ gains an object" {
	command -v b2sum >/dev/null || skip "b2sum (coreutils) is needed"
	commit_method
	gone=$(printf '%040d' 1)
	printf '{"id":"good","method":{"commit":"%s","hash":"%s"}}\n' \
	    "$COMMIT" "$MHASH" | ar-sign-test -C "$C" > "$T/rows.jsonl"
	printf '{"id":"away","method":{"commit":"%s","hash":"%064d"}}\n' \
	    "$gone" 7 | ar-sign-test -C "$C" >> "$T/rows.jsonl"
	ar-ledger append -C "$C" "$T/rows.jsonl" 2> /dev/null
	# git as a log of what it was asked, then the real one.
	mkdir "$T/bin"
	real=$(command -v git)
	printf '#!/bin/sh\necho "$*" >> "%s"\nexec "%s" "$@"\n' "$T/git.log" \
	    "$real" > "$T/bin/git"
	chmod +x "$T/bin/git"
	PATH=$T/bin:$PATH run -0 --separate-stderr ar-ledger export -C "$C" -V -f tsv
	[ "$(grep -c cat-file "$T/git.log")" = 1 ]
	run -0 cat "$C/run/method-hashes"
	[ "${lines[0]%%	*}" = stamp ]
	[ "${lines[1]}" = "$gone	-" ]
	[ "${lines[2]}" = "$COMMIT	$MHASH" ]
	[ "${#lines[@]}" = 3 ]
	# Nothing new in methods/: the cache answers, no git at all.
	: > "$T/git.log"
	PATH=$T/bin:$PATH run -0 --separate-stderr ar-ledger export -C "$C" -V -f tsv
	[ ! -s "$T/git.log" ]
	# A new object (a commit) in methods/: the missing commit is asked
	# again; the hash is not.
	printf 'x\n' > "$C/methods/other.c"
	git -C "$C/methods" add other.c
	git -C "$C/methods" -c user.name=t -c user.email=t@example.org \
	    commit -q -m other
	PATH=$T/bin:$PATH run -0 --separate-stderr ar-ledger export -C "$C" -V -f tsv
	[ "$(grep -c cat-file "$T/git.log")" = 1 ]
	[ "$(grep -vc cat-file "$T/git.log")" = 0 ]
	# A stale stamp keeps the hashes, drops the missing.
	sed -i "1s/.*/stamp	$(printf '%064d' 0)/" "$C/run/method-hashes"
	: > "$T/git.log"
	PATH=$T/bin:$PATH run -0 --separate-stderr ar-ledger export -C "$C" -V -f tsv
	[ "$(grep -c cat-file "$T/git.log")" = 1 ]
	[ "$(grep -vc cat-file "$T/git.log")" = 0 ]
}

# ---- the peers' real logs (tests/fixtures/imports, README there) ----

@test "ar-ledger import: real results.tsv logs export back, each by -m (extra columns, other metrics, own statuses, no commit)" {
	R=$BATS_TEST_DIRNAME/fixtures/imports
	for f in extra-columns roc-auc trading no-commit; do
		run -0 ar-ledger import -C "$C" -F autoresearch "$R/$f.tsv"
	done
	# karpathy's own number formats come back byte for byte.
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f autoresearch -m val_bpb
	[ "$output" = "$(cat "$R/extra-columns.tsv")" ]
	[ "$stderr" = "ar-ledger: 14 rows of another metric than val_bpb left out: results.tsv holds one metric" ]
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f autoresearch -m roc_auc
	[ "$output" = "$(cat "$R/roc-auc.tsv")" ]
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f autoresearch -m score
	[ "$output" = "commit	score	sharpe	max_dd	status	description
exp0	-999.000000	0.000	0.00	BASELINE	clean audited branch, no trades before 1h fallback
exp1	1.079000	1.079	8.74	KEEP	1h fallback + stop_dist fix
exp2	-999.000000	0.715	4.17	REVERT	tighten meta and lead thresholds
exp4	1.136000	1.136	9.15	KEEP	raise meta threshold to 0.45
exp7	1.100000	1.100	5.14	REVERT	confidence-scaled position sizing" ]
	# A crash without a metric is written 0, as karpathy/autoresearch does.
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f autoresearch -m primary_rmse
	[ "$output" = "primary_rmse	raw_baseline	improvement_pct	smoothness	latency_ms	status	description
0.412000	0.5010	17.8	0.91	3.2	keep	baseline EEGNet
0.398100	0.5010	20.5	0.88	3.4	tentative	wider temporal kernel, one seed
0.430200	0.5010	14.1	0.93	2.9	discard	drop the second conv block
0.000000	0.5010			0.0	crash	CUDA OOM at batch 256" ]
	# No row of that metric: karpathy's header, named by -m.
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f autoresearch -m nothing
	[ "$output" = "commit	nothing	memory_gb	status	description" ]
	[ "$stderr" = "ar-ledger: 19 rows of another metric than nothing left out: results.tsv holds one metric" ]
}

@test "ar-ledger import: a real results.tsv keeps its extras, its statuses, and a crash without a metric (never 0)" {
	R=$BATS_TEST_DIRNAME/fixtures/imports
	for f in extra-columns roc-auc trading no-commit; do
		run -0 ar-ledger import -C "$C" -F autoresearch "$R/$f.tsv"
	done
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f jsonl
	save "$T/x.jsonl"
	# The direction by the name: roc_auc and score higher, rmse lower.
	[ "$(jq -r '"\(.metric) \(.direction)"' "$T/x.jsonl" | sort -u)" = "primary_rmse lower
roc_auc higher
score higher
val_bpb lower" ]
	[ "$(jq -c 'select(.metric == "val_bpb" and .seq == 5) | [.verdict, .metrics, .extra.mfu, .extra.tok_per_sec]' "$T/x.jsonl")" = '["crash",{},"0.0","0"]' ]
	[ "$(jq -c 'select(.metric == "val_bpb" and .seq == 2) | [.metrics.val_bpb.median, .metrics.memory_gb.median, .extra.final_loss, .status]' "$T/x.jsonl")" = '[2.33567,5.5,"5.155",null]' ]
	# Statuses of its own: kept as written; KEEP is a keep.
	[ "$(jq -r 'select(.metric == "score") | "\(.verdict) \(.status)"' "$T/x.jsonl")" = "BASELINE null
keep KEEP
REVERT null
keep KEEP
REVERT null" ]
	[ "$(jq -c 'select(.metric == "primary_rmse") | [.seq, .verdict, .method, .metrics.primary_rmse.median, .metrics.memory_gb]' "$T/x.jsonl")" = '[2,"keep",null,0.412,null]
[3,"tentative",null,0.3981,null]
[4,"discard",null,0.4302,null]
[5,"crash",null,null,null]' ]
}

@test "ar-ledger import -m and -d choose a results.tsv's metric and direction; bad choices are one line" {
	R=$BATS_TEST_DIRNAME/fixtures/imports
	run -0 ar-ledger import -C "$C" -F autoresearch -m latency_ms -d higher "$R/no-commit.tsv"
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f jsonl
	[ "$(printf '%s\n' "$output" | jq -c '[.metric, .direction, .metrics.latency_ms.median, (.extra | keys)]' | head -1)" = '["latency_ms","higher",3.2,["improvement_pct","primary_rmse","raw_baseline","smoothness"]]' ]
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f autoresearch
	[ "${lines[0]}" = "primary_rmse	raw_baseline	improvement_pct	smoothness	latency_ms	status	description" ]
	[ "${lines[4]}" = "	0.5010			0.000000	crash	CUDA OOM at batch 256" ]
	rm -rf "$L/results"/* "$L/seg"/*
	run -65 --separate-stderr ar-ledger import -C "$C" -F autoresearch -m rmse "$R/no-commit.tsv"
	[ "$stderr" = "ar-ledger: $R/no-commit.tsv: header: no 'rmse' column (-m)" ]
	run -65 --separate-stderr ar-ledger import -C "$C" -F autoresearch -m status "$R/no-commit.tsv"
	[ "$stderr" = "ar-ledger: $R/no-commit.tsv: header: 'status' is not a metric (-m)" ]
	run -64 --separate-stderr ar-ledger import -C "$C" -F autoresearch -d down "$R/no-commit.tsv"
	[ "$stderr" = "ar-ledger: -d down: expected lower or higher" ]
	run -64 --separate-stderr ar-ledger import -C "$C" -F autoresearch -m "" "$R/no-commit.tsv"
	[ "$stderr" = "ar-ledger: -m: an empty metric name" ]
	run -64 --separate-stderr ar-ledger import -C "$C" -F pi -m x "$R/sessions.jsonl"
	[ "$stderr" = "ar-ledger: -m and -d choose a results.tsv's metric; a pi log's config lines name its own" ]
	run -64 --separate-stderr ar-ledger export -C "$C" -m x
	[ "${stderr_lines[0]}" = "usage: ar-ledger append [-C campaign] [file ...]" ]
	run -64 --separate-stderr ar-ledger export -C "$C" -f autoresearch -d lower
	[ "${stderr_lines[0]}" = "usage: ar-ledger append [-C campaign] [file ...]" ]
	nothing_stored
}

@test "ar-ledger import -F pi: a real log of two sessions keeps each its own workload and its asi; -m exports either" {
	R=$BATS_TEST_DIRNAME/fixtures/imports
	run -0 --separate-stderr ar-ledger import -C "$C" -F pi "$R/sessions.jsonl"
	[ "$stderr" = "ar-ledger: import: 4 stored, 0 already there" ]
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f jsonl
	[ "$(printf '%s\n' "$output" | jq -c '[.run, .workload, .metric, .metrics[.metric].median, .asi.hypothesis]')" = '[1,"session-1","pnpm_install_s",26.6,"baseline measurement"]
[2,"session-1","pnpm_install_s",26.11,"prefer-offline skips registry checks"]
[3,"session-2","pnpm_install_calls",12,"baseline with new metric"]
[4,"session-2","pnpm_install_calls",4,"shared install job avoids 8 redundant installs"]' ]
	[ "$(printf '%s\n' "$output" | jq -c 'select(.run == 2) | .asi')" = '{"hypothesis":"prefer-offline skips registry checks","next_action_hint":"try frozen-lockfile in workflow files","rollback_reason":"negligible improvement"}' ]
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f autoresearch
	[ "$output" = "commit	pnpm_install_s	memory_gb	status	description
e17781c	26.600000	0.0	keep	Baseline: 26.6s pnpm install, 12 workflow install calls
ec7875f	26.110000	0.0	discard	prefer-offline: only 0.5s improvement, within noise" ]
	[ "$stderr" = "ar-ledger: 2 rows of another metric than pnpm_install_s left out: results.tsv holds one metric" ]
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f autoresearch -m pnpm_install_calls
	[ "$output" = "commit	pnpm_install_calls	memory_gb	status	description
166ccb5	12.000000	0.0	keep	Baseline: 12 workflow pnpm install calls
9e3b0c2	4.000000	0.0	keep	Shared install job: 9 installs to 1 shared install" ]
	[ "$stderr" = "ar-ledger: 2 rows of another metric than pnpm_install_calls left out: results.tsv holds one metric" ]
}

@test "ar-ledger import -F pi: a real checks_failed run keeps its measure; a real crash logged 0 has no metric" {
	R=$BATS_TEST_DIRNAME/fixtures/imports
	run -0 ar-ledger import -C "$C" -F pi "$R/checks-failed.jsonl"
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f autoresearch
	[ "$output" = "commit	pebble_writepack_1m_ms	memory_gb	status	description
fef0cba	4291.902000	0.0	checks_failed	Baseline run on scaffold commit; checks failed on a pre-existing lint issue
f5b94e1	4245.856000	0.0	keep	Clean baseline after lint fixup
f5b94e1	4223.641000	0.0	discard	P1.1: MemTableSize 64 to 256 MiB; writepack_100k regressed +32%" ]
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f jsonl
	[ "$(printf '%s\n' "$output" | jq -c 'select(.run == 1) | [.verdict, .status, .metrics.pebble_writepack_1m_ms.median, .asi.bench_pipeline_validated]')" = '["invalid","checks_failed",4291.902,true]' ]
	rm -rf "$L/results"/* "$L/seg"/*
	run -0 ar-ledger import -C "$C" -F pi "$R/crash-zero.jsonl"
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f jsonl
	[ "$(printf '%s\n' "$output" | jq -c '[.run, .verdict, .metrics["combined_µs"].median]')" = '[1,"keep",3818]
[2,"discard",4063]
[5,"crash",null]
[13,"keep",3556]' ]
	[ "$(printf '%s\n' "$output" | jq -c 'select(.run == 5) | .metrics')" = '{}' ]
}

# A results.tsv as the export writes it back: column N of the rows, a
# number, in karpathy/autoresearch's six decimals.
six() {
	awk -F'\t' -v OFS='\t' -v n="$1" 'NR > 1 && $n ~ /^[0-9.]+$/ { $n = sprintf("%.6f", $n) } 1' "$2"
}

@test "ar-ledger import: real forks' results.tsv: an id column first, decision for status, '-' for no value; each exports back" {
	R=$BATS_TEST_DIRNAME/fixtures/imports
	# config_id and exp_id name runs: the metric is the first column of
	# numbers after them; decision is the status column.
	for f in fork-columns decision; do
		run -0 --separate-stderr ar-ledger import -C "$C" -F autoresearch "$R/$f.tsv"
		[ "$stderr" = "ar-ledger: import: 3 stored, 0 already there" ]
	done
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f jsonl
	save "$T/x.jsonl"
	[ "$(jq -c '[.metric, .direction, .verdict, .metrics[.metric].median, .extra.config_id // .extra.exp_id]' "$T/x.jsonl" | sort)" = '["mae","lower","BASELINE",4.4421,"E00"]
["mae","lower","REVERT",4.9697,"T02"]
["mae","lower","REVERT",5.2163,"T01"]
["tg_tok_s","higher","discard",24.12,"558b915"]
["tg_tok_s","higher","discard",26.34,"0cb4c2e"]
["tg_tok_s","higher","keep",29.17,"4f9a41c"]' ]
	# A '-' of an extra is kept as written; of memory_gb or a metric it
	# is no value.
	[ "$(jq -r 'select(.extra.config_id == "558b915") | .extra.ppl' "$T/x.jsonl")" = - ]
	# Back as the logs wrote them: the decision column, the '-', the
	# metric in karpathy's six decimals.
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f autoresearch -m mae
	[ "$output" = "$(six 3 "$R/decision.tsv")" ]
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f autoresearch -m tg_tok_s
	[ "$output" = "$(six 2 "$R/fork-columns.tsv")" ]
	# Importing them again stores nothing new.
	run -0 --separate-stderr ar-ledger import -C "$C" -F autoresearch "$R/decision.tsv"
	[ "$stderr" = "ar-ledger: import: 0 stored, 3 already there" ]
}

@test "ar-ledger import: a real results.tsv with CRLF line ends stores what the same log with LF stores" {
	R=$BATS_TEST_DIRNAME/fixtures/imports
	run -0 --separate-stderr ar-ledger import -C "$C" -F autoresearch "$R/crlf.tsv"
	[ "$stderr" = "ar-ledger: import: 3 stored, 0 already there" ]
	tr -d '\r' < "$R/crlf.tsv" > "$T/lf.tsv"
	run -0 --separate-stderr ar-ledger import -C "$C" -F autoresearch "$T/lf.tsv"
	[ "$stderr" = "ar-ledger: import: 0 stored, 3 already there" ]
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f jsonl
	[ "$(printf '%s\n' "$output" | jq -c '[.metric, .verdict, .description]')" = '["nba_core","baseline","Production models (2026-03-05)"]
["nba_core","keep","Win totals: prev_wins + 39% regression-to-mean shrinkage"]
["nba_core","discard","Game winner: feature selection + threshold opt (hurt accuracy)"]' ]
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f autoresearch
	[ "$output" = "$(six 2 "$T/lf.tsv")" ]
	# A pi log with CRLF line ends, likewise.
	sed 's/$/\r/' "$FIX/autoresearch.jsonl" > "$T/crlf.jsonl"
	run -0 --separate-stderr ar-ledger import -C "$C" -F pi "$T/crlf.jsonl"
	[ "$stderr" = "ar-ledger: import: 6 stored, 0 already there" ]
	run -0 --separate-stderr ar-ledger import -C "$C" -F pi "$FIX/autoresearch.jsonl"
	[ "$stderr" = "ar-ledger: import: 0 stored, 6 already there" ]
}

@test "ar-ledger import: NA and a run's word for its metric (DIVERGED) are no value, kept and written back; in a kept run, or a mistyped number, they stop it" {
	R=$BATS_TEST_DIRNAME/fixtures/imports
	cd "$T"
	run -0 --separate-stderr ar-ledger import -C "$C" -F autoresearch "$R/diverged.tsv"
	[ "$stderr" = "ar-ledger: import: 3 stored, 0 already there" ]
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f jsonl
	[ "$(printf '%s\n' "$output" | jq -c '[.seq, .verdict, .metrics.val_fid.median, .extra.val_fid]')" = '[2,"discard",207.9674,null]
[3,"discard",null,"DIVERGED"]
[4,"keep",201.9103,null]' ]
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f autoresearch
	[ "$output" = "$(six 2 "$R/diverged.tsv")" ]
	# The placeholders of the log world, in any case, in a metric and in
	# memory_gb.
	F=$FIX/results.tsv
	sed '4s/1.005000/NA/; 4s/44.0/N\/A/; 7s/0.991100/nan/; 7s/45.1/-/; 8s/0.989000/?/; 8s/44.9/None/' "$F" > na.tsv
	run -0 --separate-stderr ar-ledger import -C "$C" -F autoresearch na.tsv
	[ "$stderr" = "ar-ledger: import: 8 stored, 0 already there" ]
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f jsonl
	[ "$(printf '%s\n' "$output" | jq -c 'select(.metric == "val_bpb" and (.extra | length) > 0) | [.seq, .metrics, .extra]')" = '[4,{},{"memory_gb":"N/A","val_bpb":"NA"}]
[7,{},{"memory_gb":"-","val_bpb":"nan"}]
[8,{},{"memory_gb":"None","val_bpb":"?"}]' ]
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f autoresearch -m val_bpb
	[ "$(printf '%s\n' "$output" | sed -n '4p;7p;8p')" = "c3d4e5f	NA	N/A	discard	switch to GeLU activation
f6a7b8c	nan	-	discard	value embeddings on every layer
1b2c3d4	?	None	discard	scale attn logits by 1/\\sqrt(d) instead of 1/d" ]
	# In a kept run they are a kept run without a metric; a word in
	# memory_gb, or a mistyped number anywhere, is no number.
	rm -rf "$L/results"/* "$L/seg"/* "$L/loose.seal"
	sed '3s/0.993200/NA/' "$F" > keepna.tsv
	import_fails autoresearch keepna.tsv "ar-ledger: keepna.tsv: line 3: a kept run without a metric"
	sed '3s/0.993200/DIVERGED/' "$F" > keepword.tsv
	import_fails autoresearch keepword.tsv "ar-ledger: keepword.tsv: line 3: val_bpb 'DIVERGED' is not a finite number"
	sed '4s/1.005000/1.0o5/' "$F" > typo.tsv
	import_fails autoresearch typo.tsv "ar-ledger: typo.tsv: line 4: val_bpb '1.0o5' is not a finite number"
	sed '4s/44.0/OOM/' "$F" > memword.tsv
	import_fails autoresearch memword.tsv "ar-ledger: memword.tsv: line 4: memory_gb 'OOM' is not a finite number"
}

@test "ar-ledger import -F pi: a real line with an integer past 64 bits is read, its numbers as doubles, its run an integer" {
	R=$BATS_TEST_DIRNAME/fixtures/imports
	run -0 --separate-stderr ar-ledger import -C "$C" -F pi "$R/bigint.jsonl"
	[ "$stderr" = "ar-ledger: import: 1 stored, 0 already there" ]
	sed '2s/"status":"crash"/"status":"discard"/' "$R/bigint.jsonl" > "$T/d.jsonl"
	run -0 --separate-stderr ar-ledger import -C "$C" -F pi "$T/d.jsonl"
	[ "$stderr" = "ar-ledger: import: 1 stored, 0 already there" ]
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f jsonl
	[ "$(printf '%s\n' "$output" | jq -c '[.run, .verdict, .metrics.qubits.median, .metrics.scratch600_frontier_best_charged_gap_to_2700k.median, .metrics.avg_toffoli.median]' | sort)" = '[434,"crash",null,null,null]
[434,"discard",2713,18446744073709496000,4089274]' ]
	# A line without one is read as before: its integers exact.
	printf '{"run":9007199254740993,"status":"keep","metric":3}\n' > "$T/exact.jsonl"
	run -0 ar-ledger import -C "$C" -F pi "$T/exact.jsonl"
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f jsonl
	# (jq 1.6 rounds integers past 2^53; grep does not.)
	[[ "$output" == *'"metric":"metric"'*'"run":9007199254740993,'* ]]
}

@test "ar-ledger export -f autoresearch: an A/A row is aa, a crash keeps its memory, max RSS stands in for memory_gb" {
	H=$HASH
	printf '%s\n' \
	    '{"id":"b1","method":{"commit":"1111111aaaaaaa","hash":"'$H'"},"metric":"ms","aa":true,"metrics":{"ms":{"median":10.5},"maxrss_kb":{"median":2097152}},"verdict":"inconclusive","description":"noise floor"}' \
	    '{"id":"b2","method":{"commit":"2222222bbbbbbb","hash":"'$H'"},"metric":"ms","aa":false,"metrics":{"ms":{"median":9.5},"memory_gb":{"median":3.25},"maxrss_kb":{"median":2097152}},"verdict":"keep","description":"faster"}' \
	    '{"id":"b3","method":{"commit":"3333333ccccccc","hash":"'$H'"},"metric":"ms","metrics":{"maxrss_kb":{"median":524288}},"verdict":"crash","description":"segfault"}' |
	    sign "$T/b.jsonl"
	run -0 ar-ledger append -C "$C" "$T/b.jsonl"
	run -0 --separate-stderr ar-ledger export -C "$C" -f autoresearch
	[ "$stderr" = "" ]
	[ "$output" = "commit	ms	memory_gb	status	description
1111111	10.500000	2.0	aa	noise floor
2222222	9.500000	3.2	keep	faster
3333333	0.000000	0.5	crash	segfault" ]
}

@test "ar-ledger export -f autoresearch -w: one workload's rows (a pi session) in a results.tsv; -w elsewhere is a usage error" {
	R=$BATS_TEST_DIRNAME/fixtures/imports
	ar-ledger import -C "$C" -F pi "$R/sessions.jsonl" 2> /dev/null
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f autoresearch -w session-2
	[ "$output" = "commit	pnpm_install_calls	memory_gb	status	description
166ccb5	12.000000	0.0	keep	Baseline: 12 workflow pnpm install calls
9e3b0c2	4.000000	0.0	keep	Shared install job: 9 installs to 1 shared install" ]
	[ "$stderr" = "ar-ledger: 2 rows of other workloads than session-2 left out (-w)" ]
	run -0 --separate-stderr ar-ledger export -C "$C" -u -f autoresearch -w session-1
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[1]%%	*}" = e17781c ]
	run -64 --separate-stderr ar-ledger export -C "$C" -w session-1
	[ "${stderr_lines[0]}" = "usage: ar-ledger append [-C campaign] [file ...]" ]
}

@test "ar-ledger export -V: its passes read one view; a result stored while it runs is not written unchecked" {
	gen 2 "$T/two.jsonl" 3
	id1=$(sed -n 1p "$T/two.jsonl" | jq -r .id)
	id2=$(sed -n 2p "$T/two.jsonl" | jq -r .id)
	sed -n 1p "$T/two.jsonl" > "$T/one.json"
	# The second result, forged: its verdict changed, its signature
	# left as it was.
	sed -n 2p "$T/two.jsonl" | jq -c '.verdict = (if .verdict == "keep"
	    then "discard" else "keep" end)' > "$T/forged.json"
	# A loose result the export waits on while it reads it: a FIFO.
	# Opening it for writing returns once the export opened it, after
	# it listed the ledger.
	mkfifo "$L/results/$id1.json"
	timeout 300 ar-ledger export -C "$C" -V -f jsonl > "$T/out" \
	    2> "$T/err" &
	pid=$!
	exec 7> "$L/results/$id1.json"
	cp "$T/forged.json" "$L/results/$id2.json"
	cat "$T/one.json" >&7
	exec 7>&-
	# Read once: a second read would wait on the FIFO (timeout's 124).
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 0 ]
	[ "$(cat "$T/out")" = "$(cat "$T/one.json")" ]
	[ ! -s "$T/err" ]
	# The next export sees the forged result, and leaves it out.
	rm "$L/results/$id1.json"
	cp "$T/one.json" "$L/results/$id1.json"
	run -1 --separate-stderr ar-ledger export -C "$C" -V -f jsonl
	[ "$output" = "$(cat "$T/one.json")" ]
	[ "$stderr" = "$(problems_note 1)" ]
	run -1 --separate-stderr ar-ledger verify -C "$C"
	[ "$output" = "where	id	problem
$L/results/$id2.json	$id2	bad signature" ]
}

@test "ar-ledger append: the loose results it checked and stored are in the loose seal, as export -V would write it" {
	export AR_LEDGER_COMPACT=6
	gen 3 "$T/a.jsonl" 1
	gen 2 "$T/b.jsonl" 2
	S=$L/loose.seal
	run -0 ar-ledger append -C "$C" "$T/a.jsonl"
	run -0 cut -f 1 "$S"
	[ "$(printf '%s\n' "${lines[@]:3:3}")" = "$(ids "$T/a.jsonl" | LC_ALL=C sort)" ]
	# A second append keeps the first's entries; the seal is the one an
	# export -V writes of the five, byte for byte (Ed25519 signs the
	# same bytes the same way).
	run -0 ar-ledger append -C "$C" "$T/b.jsonl"
	cp "$S" "$T/by-append"
	rm "$S"
	run -0 --separate-stderr ar-ledger export -C "$C" -V -f jsonl
	cmp "$T/by-append" "$S"
	# So the next export takes all five from it, and leaves it as it is.
	ino=$(stat -c %i "$S")
	run -0 --separate-stderr ar-ledger export -C "$C" -V -f jsonl
	[ "$(stat -c %i "$S")" = "$ino" ]
	# A result stored again with the same bytes is listed; a compaction
	# moves the loose ones into a segment, and the next append lists
	# only those still loose.
	gen 2 "$T/c.jsonl" 3
	head -n 1 "$T/a.jsonl" >> "$T/c.jsonl"
	run -0 --separate-stderr ar-ledger append -C "$C" "$T/c.jsonl"
	[ "$stderr" = "ar-ledger: append: 2 stored, 1 already there" ]
	[ "$(ls "$L/results" | wc -l)" -eq 1 ]
	run -0 cut -f 1 "$S"
	[ "${#lines[@]}" -eq 5 ]
	[ "${lines[3]}.json" = "$(ls "$L/results")" ]
	# A method.commit of 64 hex digits (a SHA-256 repository) is listed
	# whole, and the seal read back: the export leaves it as it is.
	printf '{"id":"sha256","method":{"commit":"%064x","hash":"%s"}}\n' 7 "$HASH" |
	    ar-sign-test -C "$C" > "$T/d.jsonl"
	run -0 ar-ledger append -C "$C" "$T/d.jsonl"
	[ "$(awk -F '\t' '$1 == "sha256" { print $5 }' "$S")" = "$(printf '%064x' 7)" ]
	ino=$(stat -c %i "$S")
	run -0 --separate-stderr ar-ledger export -C "$C" -V -f jsonl
	[ "$(stat -c %i "$S")" = "$ino" ]
	# Without the key nothing is sealed; the results are stored.
	rm "$S"
	gen 1 "$T/e.jsonl" 4
	mv "$C/keys/bench.key" "$T/bench.key"
	run -0 ar-ledger append -C "$C" "$T/e.jsonl"
	[ ! -e "$S" ]
	mv "$T/bench.key" "$C/keys/bench.key"
	run -0 --separate-stderr ar-ledger verify -C "$C"
	[ "$stderr" = "ar-ledger: 9 rows: 9 verified, 0 unsigned (imported); 0 problems" ]
}

@test "ar-ledger export -A: past the last segment, with no loose result, it reads no segment's index" {
	gen 20 "$T/r.jsonl" 5
	run -0 ar-ledger append -C "$C" "$T/r.jsonl"
	# An index that is listed but cannot be mapped: a directory.
	mv "$L/seg/00000001.idx" "$T/idx"
	mkdir "$L/seg/00000001.idx"
	run -0 --separate-stderr ar-ledger export -C "$C" -V -f tsv -A 1
	[ "$output" = "id	signed	verified	segment" ]
	[ "$stderr" = "" ]
	# A reader of the segment's rows needs it, and says why it cannot.
	run -74 --separate-stderr ar-ledger export -C "$C" -V -f tsv
	[ "$output" = "" ]
	[ "$stderr" = "ar-ledger: $L/seg/00000001.idx: No such device" ]
	# So does one with a loose result, which is looked up in it.
	gen 1 "$T/one.jsonl" 6
	id=$(jq -r .id "$T/one.jsonl")
	cp "$T/one.jsonl" "$L/results/$id.json"
	run -74 --separate-stderr ar-ledger export -C "$C" -V -f tsv -A 1
	[ "$output" = "" ]
	[ "$stderr" = "ar-ledger: $L/seg/00000001.idx: No such device" ]
	# An index missing from the listing is an error at once, as it was.
	rm "$L/results/$id.json"
	rmdir "$L/seg/00000001.idx"
	run -66 --separate-stderr ar-ledger export -C "$C" -V -f tsv -A 1
	[ "$output" = "" ]
	[ "$stderr" = "ar-ledger: $L/seg/00000001.idx: No such file or directory" ]
	# Put back, both exports read the rows as before.
	mv "$T/idx" "$L/seg/00000001.idx"
	run -0 ar-ledger export -C "$C" -V -f tsv -A 1
	[ "$output" = "id	signed	verified	segment" ]
	run -0 ar-ledger export -C "$C" -V -f tsv -c id
	[ "${#lines[@]}" -eq 21 ]
}

# known_list ID...: ar-ledger export -K's lines for the loose results
# ID... as their files are now.
known_list() {
	local id
	for id in "$@"; do
		printf '%s\t%s\n' "$id" "$(stat -c '%i	%s	%.9Y	%.9Z' "$L/results/$id.json")"
	done
}

# export_known ARGS...: ar-ledger export -C $C -V -f tsv -A 1 -c workload
# ARGS under strace, its stdout in $T/out, its stderr in $T/err, the
# files it opened in $T/tr; its exit status in $st.
export_known() {
	st=0
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -f -e trace=open,openat -o "$T/tr" ar-ledger export -C "$C" -V -f tsv -A 1 -c workload "$@" > "$T/out" 2> "$T/err" || st=$?
}

@test "ar-ledger export -K: a loose result listed as its file is now, and in the loose seal, is marked known and not read" {
	stored_mix
	# verify seals the three loose results (ledger/loose.seal).
	run -0 ar-ledger verify -C "$C"
	mapfile -t lid < <(ids "$T/loose.jsonl" | LC_ALL=C sort)
	wl=$(get "$T/clean.tsv" "${lid[1]}" workload)
	[ -n "$wl" ]
	known_list "${lid[0]}" "${lid[2]}" > "$T/k"
	export_known -K "$T/k"
	[ "$st" -eq 0 ]
	[ "$(cat "$T/out")" = "id	signed	verified	segment	workload
${lid[0]}	known	yes		
${lid[1]}	yes	yes		$wl
${lid[2]}	known	yes		" ]
	[ ! -s "$T/err" ]
	not grep -q "${lid[0]}.json" "$T/tr"
	not grep -q "${lid[2]}.json" "$T/tr"
	grep -q "${lid[1]}.json" "$T/tr"
	# From standard input, the same.
	run -0 --separate-stderr ar-ledger export -C "$C" -V -f tsv -A 1 -c workload -K - < "$T/k"
	[ "$output" = "$(cat "$T/out")" ]
	# The seal keeps the known ones: the next export without -K still
	# takes all three as sealed, and gives their rows.
	run -0 --separate-stderr ar-ledger export -C "$C" -V -f tsv -A 1 -c workload
	[ "${#lines[@]}" -eq 4 ]
	[ "${lines[1]}" = "${lid[0]}	yes	yes		$wl" ]
	# A list of ids not loose (in a segment, or none) marks nothing.
	sid=$(ids "$T/seg.jsonl" | head -n 1)
	printf '%s\t1\t2\t3.000000000\t4.000000000\n' "$sid" 20991231T000000.000000Z-0000000000000000 > "$T/k2"
	run -0 ar-ledger export -C "$C" -V -f tsv -K "$T/k2"
	[ "$output" = "$(ar-ledger export -C "$C" -V -f tsv)" ]
}

@test "ar-ledger export -K -A: with every loose result listed, no index up to the cut is read; a later segment's copy wins" {
	stored_mix
	run -0 ar-ledger verify -C "$C"
	mapfile -t lid < <(ids "$T/loose.jsonl" | LC_ALL=C sort)
	known_list "${lid[@]}" > "$T/k"
	export_known -K "$T/k"
	[ "$st" -eq 0 ]
	# (No row read has a workload: -c keeps the columns rows have.)
	[ "$(cat "$T/out")" = "id	signed	verified	segment
${lid[0]}	known	yes	
${lid[1]}	known	yes	
${lid[2]}	known	yes	" ]
	# The list vouches for segment 1: its index is not read.
	not grep -q 'seg/00000001.idx' "$T/tr"
	# One result not listed is looked up in every index.
	known_list "${lid[0]}" "${lid[2]}" > "$T/k1"
	export_known -K "$T/k1"
	[ "$st" -eq 0 ]
	grep -q 'seg/00000001.idx' "$T/tr"
	# Compacted into segment 2 by a compaction that died before it
	# removed a file: the listed result is found in segment 2, whose
	# index is read, and its row is the segment's, not a known one.
	# (Segment 2's ids are looked up in segment 1: an id stored twice.)
	cp -p "$L/results/${lid[1]}.json" "$T/kept.json"
	run -0 ar-ledger compact -C "$C"
	[ -f "$L/seg/00000002.tsv" ]
	cp -p "$T/kept.json" "$L/results/${lid[1]}.json"
	known_list "${lid[1]}" > "$T/k2"
	export_known -K "$T/k2"
	[ "$st" -eq 0 ]
	[ "$(cut -f 1-4 "$T/out")" = "id	signed	verified	segment
${lid[0]}	yes	yes	00000002
${lid[1]}	yes	yes	00000002
${lid[2]}	yes	yes	00000002" ]
	grep -q 'seg/00000002.idx' "$T/tr"
}

@test "ar-ledger export -K: a file changed since it was listed, or not in the loose seal, is read and checked" {
	stored_mix
	run -0 ar-ledger verify -C "$C"
	mapfile -t lid < <(ids "$T/loose.jsonl" | LC_ALL=C sort)
	known_list "${lid[@]}" > "$T/k"
	# Its times only: read again, and still good.
	touch -d '2001-01-01' "$L/results/${lid[0]}.json"
	export_known -K "$T/k"
	[ "$st" -eq 0 ]
	[ "$(sed -n 2p "$T/out" | cut -f 2)" = yes ]
	[ "$(sed -n 3p "$T/out" | cut -f 2)" = known ]
	grep -q "${lid[0]}.json" "$T/tr"
	# Edited in place to the same size, its mtime put back: the ctime
	# tells, and the edit is bad.
	id=${lid[1]}
	f=$L/results/$id.json
	touch -r "$f" "$T/when"
	was=$(stat -c '%i %s' "$f")
	off=$(grep -bo '"build":"autoreduce-0.1.0"' "$f" | cut -d: -f1)
	printf '"build":"autoreduce-0.1.1"' | dd of="$f" bs=1 seek="$off" conv=notrunc 2> /dev/null
	grep -q '"build":"autoreduce-0.1.1"' "$f"
	[ "$(stat -c '%i %s' "$f")" = "$was" ]
	touch -r "$T/when" "$f"
	export_known -K "$T/k"
	[ "$st" -eq 1 ]
	[ "$(cat "$T/err")" = "$(problems_note 1)" ]
	not grep -q "^$id	" "$T/out"
	[ "$(wc -l < "$T/out")" -eq 3 ]
	# Without the loose seal, -V reads every result; without -V, a
	# listed file as it is is known all the same (its reader's call).
	rm "$L/loose.seal"
	known_list "${lid[2]}" > "$T/k"
	export_known -K "$T/k"
	grep -q "${lid[2]}.json" "$T/tr"
	grep -q "^${lid[2]}	yes	yes" "$T/out"
	run -0 ar-ledger export -C "$C" -f tsv -A 1 -c workload -K "$T/k"
	[ "${lines[3]}" = "${lid[2]}	known		" ]
}

@test "ar-ledger export -K: a missing, malformed or doubled list exits with one line naming it" {
	stored_mix
	id=$(ids "$T/loose.jsonl" | head -n 1)
	run -66 --separate-stderr ar-ledger export -C "$C" -V -K "$T/none"
	[ "$output" = "" ]
	[ "$stderr" = "ar-ledger: -K $T/none: No such file or directory" ]
	known_list "$id" > "$T/k"
	bad() {
		run -65 --separate-stderr ar-ledger export -C "$C" -V -K "$T/k2"
		[ "$output" = "" ]
		[ "$stderr" = "ar-ledger: -K $T/k2: $1" ]
	}
	what="expected id, inode, size, mtime and ctime (seconds.nanoseconds), tab-separated"
	{ cat "$T/k"; printf '%s\t1\t2\t3.5\t4.000000000\n' "$id"; } > "$T/k2"
	bad "line 2: $what"
	printf '%s\t1\t2\t3.000000000\n' "$id" > "$T/k2"
	bad "line 1: $what"
	printf '%s\t-1\t2\t3.000000000\t4.000000000\n' "$id" > "$T/k2"
	bad "line 1: $what"
	printf '%s\t1\t2\t3.000000000\t4.000000000\t\n' "$id" > "$T/k2"
	bad "line 1: $what"
	printf '%s\t1\t2\t3.000000000\t4.000000000' "$id" > "$T/k2"
	bad "line 1: no newline at its end"
	printf '../x\t1\t2\t3.000000000\t4.000000000\n' > "$T/k2"
	bad "line 1: not a valid id"
	printf 'no tab\n' > "$T/k2"
	bad "line 1: not an id and a tab"
	printf '%s\t99999999999999999999\t2\t3.000000000\t4.000000000\n' "$id" > "$T/k2"
	bad "line 1: $what"
	cat "$T/k" "$T/k" > "$T/k2"
	bad "$id: listed twice"
	head -c $((64 * 1024 * 1024 + 1)) /dev/zero > "$T/k2"
	bad "over 64 MB"
	run -65 --separate-stderr ar-ledger export -C "$C" -V -K - < "$T/k2"
	[ "$stderr" = "ar-ledger: -K <stdin>: over 64 MB" ]
	rm "$T/k2"
	# An empty list is a list of none.
	: > "$T/k2"
	run -0 ar-ledger export -C "$C" -V -K "$T/k2"
	# For TSV only; not verify's.
	run -64 --separate-stderr ar-ledger export -C "$C" -f jsonl -K "$T/k"
	run -64 --separate-stderr ar-ledger verify -C "$C" -K "$T/k"
}
