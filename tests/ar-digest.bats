#!/usr/bin/env bats
# ar-digest: the planner's digest of a ledger export. Golden Markdown,
# JSON, SVG and HTML on a hand-written fixture (methods at k 1, 2 and 4,
# every verdict, A/A rows, one unsigned and one unverified row); the
# budget cut; which rows are taken; the phase rules; bad input (65 with
# the column or line named), missing files (66), usage errors (64), -h
# and --version; the SVG written through a temporary file or into a FIFO. The
# spools (-i, -q: queue health, categories, sources, AR_NOW, bad records)
# and imported logs (-F autoresearch, -F pi), golden too; the joins of
# results, ideas and tallies with colliding ids and titles (issue 21).

bats_require_minimum_version 1.5.0
load common

FIX="$BATS_TEST_DIRNAME/fixtures/digest"

setup() {
	ar_setup ar-digest
	USAGE="usage: ar-digest [-f md|json] [-b budget] [-C campaign] [-l ledger.tsv] [-c curves.jsonl] [-i ideas] [-q queue] [-F autoresearch|pi file] [-m metric] [-d lower|higher] [--svg file] [--html file]"
	cd "$T"
}

# A ledger export from the fixture with line N's field F replaced by V.
edit() {
	awk -F'\t' -v OFS='\t' -v n="$1" -v f="$2" -v v="$3" '
	    NR == 1 { for (i = 1; i <= NF; i++) if ($i == f) c = i }
	    NR == n { $c = v } { print }' "$FIX/export.tsv"
}

@test "ar-digest: golden Markdown, from -l, stdin and -" {
	run --separate-stderr -0 ar-digest -l "$FIX/export.tsv" -c "$FIX/curves.jsonl"
	[ "$stderr" = "" ]
	diff -u "$FIX/out.md" <(printf '%s\n' "$output")
	run -0 ar-digest -c "$FIX/curves.jsonl" < "$FIX/export.tsv"
	diff -u "$FIX/out.md" <(printf '%s\n' "$output")
	run -0 ar-digest -l - -c "$FIX/curves.jsonl" < "$FIX/export.tsv"
	diff -u "$FIX/out.md" <(printf '%s\n' "$output")
}

@test "ar-digest -f json: golden JSON, the same content" {
	run --separate-stderr -0 ar-digest -f json -l "$FIX/export.tsv" -c "$FIX/curves.jsonl"
	diff -u "$FIX/out.json" <(printf '%s\n' "$output")
	printf '%s\n' "$output" | jq -e '.summary.taken == 13 and
	    .summary.flagged_unsigned == 1 and .summary.flagged_unverified == 1 and
	    .best[0].ratio == 1.21 and .leaderboard[0].label == "aaaaaaa" and
	    .curves[0].knee == 4 and .noise_floor.median_rsd == 0.014 and
	    .phase.phase == "combine near-misses"' >/dev/null
}

@test "ar-digest: unsigned and unverified rows are flagged, never used" {
	run -0 ar-digest -f json -l "$FIX/export.tsv"
	# Their ratios (1.5, 1.7) would lead the board if they were used.
	[ "$(printf '%s\n' "$output" | jq -c '[.leaderboard[].ratio] | max')" = 1.21 ]
	[[ "$(ar-digest -l "$FIX/export.tsv")" == *"Flagged rows (unsigned or not verified) are counted, never used."* ]]
}

@test "ar-digest -b: sections cut with (N more left out), within the budget" {
	run -0 ar-digest -b 300 -l "$FIX/export.tsv"
	diff -u "$FIX/out-b300.md" <(printf '%s\n' "$output")
	[[ "$output" == *"## Leaderboard"$'\n\n'*$'\n\n'"(4 more left out)"* ]]
	run -0 ar-digest -b 100000 -l "$FIX/export.tsv"
	[[ "$output" != *"more left out"* ]]
	# Rows fit the budget; only headings and cut lines may pass it.
	run -0 ar-digest -b 600 -l "$FIX/export.tsv"
	[ "$(printf '%s\n' "$output" | grep '^| ' | wc -c)" -le 2400 ]
}

@test "ar-digest --svg and --html: golden, valid XML, through a temporary file" {
	run -0 ar-digest -l "$FIX/export.tsv" --svg "$T/s.svg" --html "$T/p.html"
	diff -u "$FIX/out.svg" "$T/s.svg"
	diff -u "$FIX/out.html" "$T/p.html"
	xmllint --noout "$T/s.svg"
	xmllint --noout "$T/p.html"
	[ -z "$(ls -A "$T" | grep '^\.tmp-')" ]
	not grep -qi '<script' "$T/p.html"
	grep -q '<svg' "$T/p.html"
}

@test "ar-digest --svg onto a FIFO writes into it, and leaves it a FIFO" {
	mkfifo "$T/p"
	cat "$T/p" > "$T/got" &
	reader=$!
	run -0 timeout 10 ar-digest -l "$FIX/export.tsv" --svg "$T/p"
	local fifo=no
	[ -p "$T/p" ] && fifo=yes
	wait "$reader" 2>/dev/null || true
	[ "$fifo" = yes ]
	grep -q '</svg>' "$T/got"
}

@test "ar-digest: phase rules: too few results, then no keep" {
	run -0 ar-digest -f json < <(head -n 5 "$FIX/export.tsv")
	[ "$(printf '%s\n' "$output" | jq -r .phase.reason)" = "fewer than 10 results: too little to exploit" ]
	run -0 ar-digest -f json < <(grep -v '	keep	' "$FIX/export.tsv"; cat "$FIX/export.tsv" | grep '	discard	' | sed 's/-0000000000000006/-0000000000000099/;s/T010500/T020000/' )
	[ "$(printf '%s\n' "$output" | jq -r .phase.phase)" = explore ]
}

@test "ar-digest: a missing column is named" {
	for c in id signed verdict method.hash shape.k ratio.median; do
		run --separate-stderr -65 ar-digest < <(edit 1 "$c" nothere)
		[ "$stderr" = "ar-digest: <stdin>: no column $c" ]
	done
}

@test "ar-digest: an empty ledger's bare header (id, signed) is a digest of nothing" {
	run --separate-stderr -0 ar-digest -f json < <(printf 'id\tsigned\n')
	[ "$stderr" = "" ]
	[ "$(printf '%s\n' "$output" | jq -r .summary.rows)" = 0 ]
	run --separate-stderr -0 ar-digest < <(printf 'id\tsigned\n')
	[ "${lines[0]}" = "# Campaign digest" ]
	# A row needs the rest.
	run --separate-stderr -65 ar-digest < <(printf 'id\tsigned\nr1\tyes\n')
	[ "$stderr" = "ar-digest: <stdin>: no column verdict" ]
}

@test "ar-digest: NaN, negative or garbage ratios are refused with the line" {
	for v in nan NaN -1 -0.5 inf x; do
		run --separate-stderr -65 ar-digest < <(edit 4 ratio.median "$v")
		[ "$stderr" = "ar-digest: <stdin>: line 4: ratio.median: \"$v\" is not a number of 0 or more" ]
	done
	edit 6 ratio.ci_lo -2 > "$T/x.tsv"
	run --separate-stderr -65 ar-digest -l "$T/x.tsv"
	[ "$stderr" = "ar-digest: $T/x.tsv: line 6: ratio.ci_lo: \"-2\" is not a number of 0 or more" ]
	run --separate-stderr -65 ar-digest < <(edit 4 shape.k 0)
	[ "$stderr" = "ar-digest: <stdin>: line 4: shape.k: \"0\" is not a whole number from 1 to 65536" ]
	run --separate-stderr -65 ar-digest < /dev/null
	[ "$stderr" = "ar-digest: <stdin>: empty input: no header line" ]
}

@test "ar-digest: bad curves are refused with the line" {
	printf '[1]\n' > "$T/c.jsonl"
	run --separate-stderr -65 ar-digest -l "$FIX/export.tsv" -c "$T/c.jsonl"
	[ "$stderr" = "ar-digest: $T/c.jsonl: line 1: not an object" ]
	printf '{"knee": 4}\n' > "$T/c.jsonl"
	run --separate-stderr -65 ar-digest -l "$FIX/export.tsv" -c "$T/c.jsonl"
	[ "$stderr" = "ar-digest: $T/c.jsonl: line 1: no label" ]
}

@test "ar-digest: a missing input file exits 66" {
	run --separate-stderr -66 ar-digest -l "$T/none.tsv"
	[ "$stderr" = "ar-digest: $T/none.tsv: No such file or directory" ]
	run --separate-stderr -66 ar-digest -l "$FIX/export.tsv" -c "$T/none.jsonl"
	[ "$stderr" = "ar-digest: $T/none.jsonl: No such file or directory" ]
}

@test "ar-digest: usage errors exit 64; -h and --version" {
	run --separate-stderr -0 ar-digest -h
	[ "$output" = "$USAGE" ]
	run --separate-stderr -0 ar-digest --help
	[ "$output" = "$USAGE" ]
	run --separate-stderr -0 ar-digest --version
	[ "$output" = "ar-digest $VERSION" ]
	run --separate-stderr -64 ar-digest -Z
	[ "${stderr##*$'\n'}" = "$USAGE" ]
	run --separate-stderr -64 ar-digest extra
	[ "$stderr" = "$USAGE" ]
	run --separate-stderr -64 ar-digest --svg
	run --separate-stderr -64 ar-digest -f xml < "$FIX/export.tsv"
	[ "$stderr" = "ar-digest: -f xml: the formats are md and json" ]
	for b in 0 -1 x 100000001 ''; do
		run --separate-stderr -64 ar-digest -b "$b" < "$FIX/export.tsv"
		[ "$stderr" = "ar-digest: -b $b: not a number of tokens from 1 to 100000000" ]
	done
	run --separate-stderr -64 ar-digest -c - < "$FIX/export.tsv"
	[ "$stderr" = "ar-digest: -c -: standard input is the ledger's" ]
}

# The spool fixtures hold only files; git keeps no empty directories, so
# each test copies them and adds the state directories.
spools() {
	for s in ideas queue; do
		cp -R "$FIX/$s" "$T/$s"
		mkdir -p "$T/$s/tmp" "$T/$s/new" "$T/$s/cur" "$T/$s/done" \
		    "$T/$s/failed" "$T/$s/why"
	done
}

@test "ar-digest -l -i: staleness counts what landed between an idea and its run" {
	spools
	export AR_NOW=2026-11-26T12:00:00Z
	# i-vec was put at 2026-11-20T09:00:05Z (its name says so); two
	# results finished before its run started, one after.
	tab=$(printf '\t')
	cat > "$T/e.tsv" <<EOF2
id${tab}signed${tab}verified${tab}verdict${tab}method.hash${tab}shape.k${tab}ratio.median${tab}idea${tab}started${tab}finished
r1${tab}yes${tab}yes${tab}discard${tab}h1${tab}1${tab}0.9${tab}${tab}2026-11-20T09:20:00Z${tab}2026-11-20T09:30:00Z
r2${tab}yes${tab}yes${tab}discard${tab}h2${tab}1${tab}0.95${tab}${tab}2026-11-20T09:50:00Z${tab}2026-11-20T10:00:00Z
r3${tab}yes${tab}yes${tab}keep${tab}h3${tab}1${tab}1.2${tab}i-vec${tab}2026-11-20T11:00:00Z${tab}2026-11-20T11:10:00Z
r4${tab}yes${tab}yes${tab}discard${tab}h4${tab}1${tab}0.9${tab}${tab}2026-11-20T11:20:00Z${tab}2026-11-20T11:30:00Z
EOF2
	run --separate-stderr -0 ar-digest -l "$T/e.tsv" -i "$T/ideas"
	[[ "$output" == *"| i-vec | vector loads | 2 | 2.00 |"* ]]
	[[ "$output" == *"On average 2.00 results landed between an idea and its run (ideas measured: 1)."* ]]
	run --separate-stderr -0 ar-digest -f json -l "$T/e.tsv" -i "$T/ideas"
	[ "$(echo "$output" | jq -c '.staleness')" = '[{"idea":"i-vec","title":"vector loads","unseen_results":2,"hours_from_idea_to_run":2}]' ]
	# The devices: busy 40 minutes of the 2 h 10 min from the first
	# start to the last finish.
	[ "$(echo "$output" | jq -c '.devices')" = '{"span_hours":2.1667,"busy_hours":0.6667,"idle_share":0.692}' ]
	# Without the ideas, no staleness: creation times come from there.
	run --separate-stderr -0 ar-digest -l "$T/e.tsv"
	[[ "$output" != *"Staleness"* ]]
}

@test "ar-digest -C: the goal and the baseline from the campaign" {
	ar-init -p "$TOP/tests/fixtures/bench/toy" camp > /dev/null
	tab=$(printf '\t')
	cat > e.tsv <<EOF2
id${tab}signed${tab}verified${tab}verdict${tab}method.hash${tab}shape.k${tab}ratio.median${tab}baseline.t.median
r1${tab}yes${tab}yes${tab}keep${tab}h1${tab}1${tab}1.5${tab}0.02
r2${tab}yes${tab}yes${tab}discard${tab}h2${tab}1${tab}0.9${tab}0.04
r3${tab}yes${tab}yes${tab}discard${tab}h3${tab}1${tab}0.9${tab}0.03
EOF2
	run --separate-stderr -0 ar-digest -f json -C camp -l e.tsv
	[ "$(echo "$output" | jq -c '.goal | del(.campaign)')" = '{"problem":"toy","goal":"a shell loop that counts to N: ar-bench'"'"'s tests","metric":"t in s, lower is better","baseline":"baseline","baseline_median":0.03,"baseline_results":3}' ]
	[ "$(echo "$output" | jq -r .goal.campaign)" = "$(sed -n 's/^campaign = //p' camp/campaign.conf)" ]
	run --separate-stderr -0 ar-digest -C camp -l e.tsv
	[[ "$output" == *"## Goal and baseline"* ]]
	run --separate-stderr -66 ar-digest -C nowhere -l e.tsv
	[[ "$stderr" == "ar-digest: nowhere"* ]]
}

@test "ar-digest -i -q: golden queue health, categories and sources" {
	spools
	export AR_NOW=2026-11-26T12:00:00Z
	run --separate-stderr -0 ar-digest -i "$T/ideas" -q "$T/queue"
	diff -u "$FIX/spools.md" <(printf '%s\n' "$output")
	run --separate-stderr -0 ar-digest -f json -i "$T/ideas" -q "$T/queue"
	diff -u "$FIX/spools.json" <(printf '%s\n' "$output")
	printf '%s\n' "$output" | jq -e '.queue_health[0].expired == 1 and
	    .queue_health[0].holders == 2 and .queue_health[1].expired == 2 and
	    .queue_health[1].new_per_holder == 4 and
	    .categories[0].category == "precision" and
	    .categories[-1].category == "memory" and
	    .sources[0] == {"source": "arXiv:2205.14135", "ideas": 3}' >/dev/null
}

@test "ar-digest -i -q: bad records are named on stderr, counted, not fatal" {
	spools
	export AR_NOW=2026-11-26T12:00:00Z
	run --separate-stderr -0 ar-digest -i "$T/ideas" -q "$T/queue"
	[[ "$stderr" == *"ar-digest: $T/ideas/new/"*"-i-bad: invalid JSON"* ]]
	[[ "$stderr" == *"ar-digest: $T/queue/new/junk.txt: not a record name"* ]]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 2 ]
}

@test "ar-digest -i: AR_NOW decides which leases have expired" {
	spools
	run --separate-stderr -0 env AR_NOW=2026-11-26T13:00:00Z ar-digest -f json -i "$T/ideas"
	[ "$(printf '%s\n' "$output" | jq .queue_health[0].expired)" = 2 ]
	run --separate-stderr -0 env AR_NOW=2026-11-26T11:00:00Z ar-digest -f json -q "$T/queue"
	[ "$(printf '%s\n' "$output" | jq .queue_health[0].expired)" = 0 ]
	run --separate-stderr -64 env AR_NOW=yesterday ar-digest -i "$T/ideas"
	[ "$stderr" = "ar-digest: AR_NOW=yesterday: not an RFC 3339 time" ]
}

@test "ar-digest -i, -q: a directory that is not a spool exits 66" {
	mkdir "$T/plain"
	run --separate-stderr -66 ar-digest -i "$T/plain"
	[ "$stderr" = "ar-digest: $T/plain: not a spool" ]
	run --separate-stderr -66 ar-digest -q "$T/none"
	[ "$stderr" = "ar-digest: $T/none: not a spool" ]
}

@test "ar-digest -F autoresearch: golden Markdown and staircase" {
	run --separate-stderr -0 ar-digest -F autoresearch "$FIX/results.tsv" --svg "$T/s.svg"
	[ "$stderr" = "" ]
	diff -u "$FIX/log-autoresearch.md" <(printf '%s\n' "$output")
	diff -u "$FIX/log-autoresearch.svg" "$T/s.svg"
	xmllint --noout "$T/s.svg"
}

@test "ar-digest -F pi: golden JSON and staircase; the config's direction" {
	run --separate-stderr -0 ar-digest -f json -F pi "$FIX/pi.jsonl" --svg "$T/s.svg" --html "$T/p.html"
	diff -u "$FIX/log-pi.json" <(printf '%s\n' "$output")
	diff -u "$FIX/log-pi.svg" "$T/s.svg"
	xmllint --noout "$T/p.html"
	printf '%s\n' "$output" | jq -e '.imported_log.better == "lower" and
	    .imported_log.best_kept == 5510 and .imported_log.flagged_unsigned == 6 and
	    .imported_log.keep == 3 and .imported_log.crash == 1' >/dev/null
}

@test "ar-digest -F: the direction by the metric's name" {
	sed '1s/val_bpb/val_loss/' "$FIX/results.tsv" > "$T/loss.tsv"
	run -0 ar-digest -f json -F autoresearch "$T/loss.tsv"
	[ "$(printf '%s\n' "$output" | jq -r '.imported_log | "\(.better) \(.best_kept)"')" = "lower 0.9876" ]
	sed '1s/val_bpb/accuracy/' "$FIX/results.tsv" > "$T/acc.tsv"
	run -0 ar-digest -f json -F autoresearch "$T/acc.tsv"
	[ "$(printf '%s\n' "$output" | jq -r '.imported_log | "\(.better) \(.best_kept)"')" = "higher 0.9979" ]
	printf '{"run":1,"metric":3,"status":"keep"}\n{"run":2,"metric":5,"status":"keep"}\n' > "$T/p.jsonl"
	run -0 ar-digest -f json -F pi "$T/p.jsonl"
	[ "$(printf '%s\n' "$output" | jq -r '.imported_log | "\(.metric) \(.better) \(.best_kept)"')" = "metric lower 3" ]
}

@test "ar-digest -F: bad logs and bad command lines" {
	printf 'commit\tval_bpb\tmemory_gb\tstatus\tdescription\nabc\t1.0\t4\t\tx\n' > "$T/r.tsv"
	run --separate-stderr -65 ar-digest -F autoresearch "$T/r.tsv"
	[ "$stderr" = "ar-digest: $T/r.tsv: line 2: empty status" ]
	printf 'commit\tval_bpb\tmemory_gb\tstatus\tdescription\nabc\tx\t4\tkeep\tx\n' > "$T/r.tsv"
	run --separate-stderr -65 ar-digest -F autoresearch "$T/r.tsv"
	[ "$stderr" = "ar-digest: $T/r.tsv: line 2: val_bpb: \"x\" is not a number" ]
	printf '{"run":1,"metric":3}\n' > "$T/p.jsonl"
	run --separate-stderr -65 ar-digest -F pi "$T/p.jsonl"
	[ "$stderr" = "ar-digest: $T/p.jsonl: line 1: run without a status" ]
	run --separate-stderr -66 ar-digest -F pi "$T/none.jsonl"
	[ "$stderr" = "ar-digest: $T/none.jsonl: No such file or directory" ]
	run --separate-stderr -64 ar-digest -F csv x
	[ "$stderr" = "ar-digest: -F csv: expected autoresearch or pi" ]
	run --separate-stderr -64 ar-digest -F pi
	[ "$stderr" = "$USAGE" ]
	run --separate-stderr -64 ar-digest -F pi "$FIX/pi.jsonl" -l "$FIX/export.tsv"
	[ "$stderr" = "ar-digest: -F: a log is digested alone, without -l or -c" ]
}

@test "ar-digest: results with roofline fields get a Roofline section; the fixture without them gets none" {
	run -0 ar-digest -l "$FIX/export.tsv"
	[[ "$output" != *"## Roofline"* ]]
	# The fixture's rows, with a roofline share added to every one.
	awk -F'\t' -v OFS='\t' 'NR == 1 { print $0, "roofline.method.frac", "roofline.method.bound", "roofline.baseline.frac"; next }
	    { print $0, 0.5 + NR / 100, (NR % 2 ? "memory" : "compute"), 0.25 }' "$FIX/export.tsv" > r.tsv
	run --separate-stderr -0 ar-digest -f json -l r.tsv
	printf '%s\n' "$output" | jq -e '
	    (.roofline | length) == (.leaderboard | length) and
	    (.roofline | map(.label)) == (.leaderboard | map(.label)) and
	    (.roofline | all(.frac > 0.5 and .baseline_frac == 0.25 and (.bound == "memory" or .bound == "compute")))' > /dev/null
	run -0 ar-digest -l r.tsv
	[[ "$output" == *"## Roofline (share of the machine's measured limit)"* ]]
	# A share that is not a number is no share.
	awk -F'\t' -v OFS='\t' 'NR == 1 { print $0, "roofline.method.frac"; next } { print $0, "much" }' "$FIX/export.tsv" > bad.tsv
	run -0 ar-digest -l bad.tsv
	[[ "$output" != *"## Roofline"* ]]
}

# pooled: results of repeated measurements, a stopped session, two
# workloads, ideas by id (issue 17).
pooled() {
	tab=$(printf '\t')
	{
		printf 'id\tsigned\tverified\tverdict\tmethod.hash\tmethod.commit\tshape.k\tratio.median\tratio.ci_lo\tratio.ci_hi\tworkload\tidea\twhy\n'
		printf 'r1\tyes\tyes\tkeep\th1\tc1aaaaaaaa\t1\t2.00\t1.90\t2.10\tbig\ti-1\t\n'
		printf 'r2\tyes\tyes\tkeep\th1\tc1aaaaaaaa\t1\t2.11\t2.00\t2.20\tbig\ti-1\t\n'
		printf 'r3\tyes\tyes\tkeep\th1\tc1aaaaaaaa\t1\t1.75\t1.65\t1.85\tbig\ti-1\t\n'
		printf 'r4\tyes\tyes\tkeep\th1\tc1aaaaaaaa\t1\t1.98\t1.88\t2.08\tbig\ti-1\t\n'
		printf 'r5\tyes\tyes\tinconclusive\th2\tc2bbbbbbbb\t2\t1.30\t\t\tbig\ti-2\tstopped by --stop-at 1.2 after 8 pairs: ratio 1.3000, its 95%% interval 1.2100 to 1.4000 clearly above it; the minimum effect of 2%% is undecided\n'
		printf 'r6\tyes\tyes\tkeep\th1\tc1aaaaaaaa\t1\t1.50\t1.40\t1.60\tsmall\ti-1\t\n'
	} > "$T/p.tsv"
	mkdir -p "$T/ideas"
	ar-queue init "$T/ideas"
	printf '%s\n' '{"id": "i-1", "title": "four rows at a time"}' \
	    '{"id": "i-2", "title": "prefetch"}' '{"id": "i-3", "title": "avx-512"}' > "$T/i.jsonl"
	ar-queue put -f jsonl "$T/ideas" "$T/i.jsonl" > /dev/null
	ar-queue claim -H me -n 3 "$T/ideas" > /dev/null
	ar-queue done -H me "$T/ideas" i-1 i-2
	ar-queue fail -H me -r "agent: no time left (600 s)" "$T/ideas" i-3
}

@test "ar-digest: the best so far pools a method's results at a k, not the largest of them" {
	pooled
	run --separate-stderr -0 ar-digest -f json -l "$T/p.tsv"
	# 2.00, 2.11, 1.75, 1.98 at k=1: pooled 1.973, not 2.11.
	[ "$(jq -c '.best[] | select(.scope == "overall" and .workload == "big") | [.k, .ratio, .ci_lo, .ci_hi, .results, .id]' <<< "$output")" = '[1,1.973,1.923,2.024,4,"r4"]' ]
	[ "$(jq -c '.leaderboard[] | select(.workload == "big" and .label == "c1aaaaa") | [.ratio, .k, .pooled, .verdict, .results]' <<< "$output")" = '[1.973,1,4,"keep",4]' ]
	run -0 ar-digest -l "$T/p.tsv"
	[[ "$output" != *"2.110"* ]]
}

@test "ar-digest: a result stopped by --stop-at has the interval its why gives" {
	pooled
	run --separate-stderr -0 ar-digest -f json -l "$T/p.tsv"
	[ "$(jq -c '.near_misses[0] | [.label, .k, .ratio, .ci_lo, .ci_hi, .id]' <<< "$output")" = '["c2bbbbb",2,1.3,1.21,1.4,"r5"]' ]
	# Stopped with the earlier results' interval (--stop-prior): the
	# session's own interval is its, not the earlier one.
	sed 's/its 95% interval 1.2100 to 1.4000 clearly above it;/its 95% interval 1.2100 to 1.4000; with the earlier measurements'"'"' 1.2500 to 1.2900, clearly above it;/' "$T/p.tsv" > "$T/q.tsv"
	grep -q "earlier measurements' 1.2500" "$T/q.tsv"
	run --separate-stderr -0 ar-digest -f json -l "$T/q.tsv"
	[ "$(jq -c '.near_misses[0] | [.label, .k, .ratio, .ci_lo, .ci_hi, .id]' <<< "$output")" = '["c2bbbbb",2,1.3,1.21,1.4,"r5"]' ]
}

@test "ar-digest: workloads are never pooled or ranked together; each row names its own" {
	pooled
	run --separate-stderr -0 ar-digest -f json -l "$T/p.tsv"
	[ "$(jq -r '.summary.workload' <<< "$output")" = mixed ]
	[ "$(jq -c '[.best[] | select(.scope == "overall") | [.workload, .ratio, .results]]' <<< "$output")" = '[["big",1.973,4],["small",1.5,1]]' ]
	[ "$(jq -c '[.leaderboard[] | [.workload, .label]]' <<< "$output")" = '[["big","c1aaaaa"],["small","c1aaaaa"],["big","c2bbbbb"]]' ]
}

@test "ar-digest -i: results name their idea by its title; each idea shows its state, a failed one why" {
	pooled
	run --separate-stderr -0 ar-digest -f json -l "$T/p.tsv" -i "$T/ideas"
	[ "$(jq -r '.best[0].idea' <<< "$output")" = "four rows at a time" ]
	[ "$(jq -r '.near_misses[0].idea' <<< "$output")" = "prefetch" ]
	[ "$(jq -c '[.ideas[] | [.idea, .state, .why]]' <<< "$output")" = '[["four rows at a time","done",""],["prefetch","done",""],["avx-512","failed","agent: no time left (600 s)"]]' ]
	# Without -i, the idea's id.
	run --separate-stderr -0 ar-digest -f json -l "$T/p.tsv"
	[ "$(jq -r '.best[0].idea' <<< "$output")" = "i-1" ]
}

# joins: ideas whose ids share prefixes (i-1, i-10, i-100), two with one
# title, one id put twice, results of an idea the spool lacks and of one
# run before it was put, many categories that share prefixes (issue 21:
# the joins are by hash and by sort, not nested loops).
joins() {
	tab=$(printf '\t')
	for d in tmp new cur done failed why; do mkdir -p "$T/ideas/$d"; done
	put() { printf '%s\n' "$3" > "$T/ideas/$1/$2"; }
	o=20261120T
	# i-1 twice: the first read (new/) put after its result started,
	# the second (failed/) before it.
	put new "1000000-${o}120000.000000Z-0000000000000001-i-1" '{"title": "same title", "category": "cat"}'
	put new "1000000-${o}100000.000000Z-0000000000000002-i-10" '{"title": "same title", "category": "cat1"}'
	put done "1000000-${o}110000.000000Z-0000000000000003-i-100" '{"title": "hundred", "category": "cat10"}'
	put failed "1000000-${o}090000.000000Z-0000000000000004-i-1" '{"title": "same title", "category": "cat1"}'
	printf 'agent: gave up\n' > "$T/ideas/why/1000000-${o}090000.000000Z-0000000000000004-i-1"
	for n in $(seq 1 40); do
		put new "1000000-${o}08$(printf '%02d' $((n % 60)))00.000000Z-$(printf '%016x' $((100 + n)))-j-$n" "{\"title\": \"j $n\", \"category\": \"c$((n % 7))\", \"sources\": [\"s$n\", \"s$((n / 2))\", \"s$n\"]}"
	done
	{
		printf 'id\tsigned\tverified\tverdict\tmethod.hash\tshape.k\tratio.median\tidea\tstarted\tfinished\n'
		printf 'r0\tyes\tyes\tdiscard\th0\t1\t0.9\t\t2026-11-20T09:20:00Z\t2026-11-20T09:30:00Z\n'
		printf 'r1\tyes\tyes\tkeep\th1\t1\t1.5\ti-1\t2026-11-20T10:30:00Z\t2026-11-20T10:40:00Z\n'
		printf 'r2\tyes\tyes\tkeep\th2\t1\t1.4\ti-10\t2026-11-20T10:50:00Z\t2026-11-20T11:00:00Z\n'
		printf 'r3\tyes\tyes\tkeep\th3\t1\t1.3\ti-100\t2026-11-20T11:30:00Z\t2026-11-20T11:35:00Z\n'
		printf 'r4\tyes\tyes\tkeep\th4\t1\t1.2\ti-1000\t2026-11-20T11:40:00Z\t2026-11-20T11:45:00Z\n'
		printf 'r5\tyes\tyes\tkeep\th5\t1\t1.1\ti-100\t2026-11-20T10:00:00Z\t2026-11-20T10:05:00Z\n'
	} > "$T/j.tsv"
}

@test "ar-digest -i: staleness, titles and tallies joined right with colliding ids and titles" {
	joins
	export AR_NOW=2026-11-26T12:00:00Z
	run --separate-stderr -0 ar-digest -f json -l "$T/j.tsv" -i "$T/ideas"
	[ "$stderr" = "" ]
	# i-1 matches its record of 09:00, not the one put at 12:00 after
	# its run; i-100's run before its record is not counted; i-1000 is
	# not in the spool.
	[ "$(jq -c '.staleness' <<< "$output")" = '[{"idea":"i-1","title":"same title","unseen_results":2,"hours_from_idea_to_run":1.5},{"idea":"i-10","title":"same title","unseen_results":2,"hours_from_idea_to_run":0.83},{"idea":"i-100","title":"hundred","unseen_results":0,"hours_from_idea_to_run":0.5}]' ]
	[ "$(jq -c '[.leaderboard[] | [.idea, .id]]' <<< "$output")" = '[["same title","r1"],["same title","r2"],["hundred","r3"],["i-1000","r4"],["hundred","r5"]]' ]
	[ "$(jq -c '[.categories[] | [.category, .ideas]] | sort' <<< "$output")" = '[["c0",5],["c1",6],["c2",6],["c3",6],["c4",6],["c5",6],["c6",5],["cat",1],["cat1",2],["cat10",1]]' ]
	# A source cited twice by one idea counts once; s1..s20 are cited
	# by two ideas (s2 by j-2, j-4 and j-5).
	[ "$(jq -c '[.sources[] | select(.source == "s1" or .source == "s2" or .source == "s40" or .source == "s0")] | sort_by(.source)' <<< "$output")" = '[{"source":"s0","ideas":1},{"source":"s1","ideas":3},{"source":"s2","ideas":3},{"source":"s40","ideas":1}]' ]
	[ "$(jq -c '[.ideas[] | select(.id | startswith("i-")) | [.id, .state, .why]]' <<< "$output")" = '[["i-1","new",""],["i-1","failed","agent: gave up"],["i-10","new",""],["i-100","done",""]]' ] ||
	[ "$(jq -c '[.ideas[] | select(.id | startswith("i-")) | [.id, .state, .why]]' <<< "$output")" = '[["i-1","failed","agent: gave up"],["i-1","new",""],["i-10","new",""],["i-100","done",""]]' ]
}

# ---- the peers' real logs (tests/fixtures/imports, README there) ----

@test "ar-digest -F pi: a real log of two sessions has a line for each; the best is the last session's, never pooled" {
	R=$BATS_TEST_DIRNAME/fixtures/imports
	run --separate-stderr -0 ar-digest -F pi "$R/sessions.jsonl" --svg "$T/s.svg"
	[ "$stderr" = "" ]
	[ "$output" = "# Campaign digest

## Imported log

Imported rows are unsigned: flagged, shown here, never used as evidence.

| item | value |
|---|---|
| source | pi |
| metric | pnpm_install_calls |
| better | lower |
| rows | 4 |
| flagged_unsigned | 4 |
| keep | 3 |
| discard | 1 |
| crash | 0 |
| other | 0 |
| best_kept | 4 |
| best_commit | 9e3b0c2 |
| best_description | Shared install job: 9 installs to 1 shared install |

## Imported sessions

Each session of the log by its own metric; the chart shows the last.

| session | name | metric | better | rows | keep | discard | crash | other | best_kept | best_commit |
|---|---|---|---|---|---|---|---|---|---|---|
| 1 | CI build time | pnpm_install_s | lower | 2 | 1 | 1 | 0 | 0 | 26.6 | e17781c |
| 2 | CI build time (workflow structure) | pnpm_install_calls | lower | 2 | 2 | 0 | 0 | 0 | 4 | 9e3b0c2 |" ]
	# The chart plots the last session alone: its two runs.
	grep -q '>run, in log order (2 runs, 2 kept)<' "$T/s.svg"
	xmllint --noout "$T/s.svg"
	# Higher is better in the first session: its best is its highest.
	sed '1s/"lower"/"higher"/' "$R/sessions.jsonl" > "$T/h.jsonl"
	run --separate-stderr -0 ar-digest -f json -F pi "$T/h.jsonl"
	[ "$(jq -c '[.imported_sessions[] | [.better, .best_kept]]' <<< "$output")" = '[["higher",26.6],["lower",4]]' ]
}

@test "ar-digest -F: the real logs read as ar-ledger import reads them (other metrics, own statuses, crashes logged 0)" {
	R=$BATS_TEST_DIRNAME/fixtures/imports
	for f in extra-columns.tsv:autoresearch roc-auc.tsv:autoresearch trading.tsv:autoresearch \
	    no-commit.tsv:autoresearch checks-failed.jsonl:pi crash-zero.jsonl:pi; do
		run --separate-stderr -0 ar-digest -f json -F "${f#*:}" "$R/${f%:*}"
		printf '%s\n' "$output" | jq -c '.imported_log | [.metric, .better, .keep, .discard, .crash, .other, .best_kept, .best_commit]'
	done > "$T/got"
	[ "$(cat "$T/got")" = '["val_bpb","lower",3,1,1,0,1.268992,"c459e32"]
["roc_auc","higher",3,2,0,0,0.787236,"c49b4a6"]
["score","higher",2,0,0,3,1.136,"exp4"]
["primary_rmse","lower",1,1,1,1,0.412,""]
["pebble_writepack_1m_ms","lower",1,1,0,1,4245.856,"f5b94e1"]
["combined_µs","lower",2,1,1,0,3556,"b7ae55f"]' ]
	# ar-ledger import stores the same runs with the same verdicts.
	ar_ledger_like() {
		C=$T/camp-$1
		mkdir -p "$T/prob"
		cp "$BATS_TEST_DIRNAME/fixtures/problem/problem.json" "$T/prob/"
		ar-init -p "$T/prob" "$C" > /dev/null
		ar-ledger import -C "$C" -F "$2" "$R/$1" 2> /dev/null
		ar-ledger export -C "$C" -u -f jsonl | jq -r .verdict | sort | uniq -c | awk '{ print $1, $2 }'
	}
	[ "$(ar_ledger_like trading.tsv autoresearch)" = "1 BASELINE
2 REVERT
2 keep" ]
	[ "$(ar_ledger_like crash-zero.jsonl pi)" = "1 crash
1 discard
2 keep" ]
}

@test "ar-digest -F: real forks' logs: CRLF line ends, an id column first, decision for status, a word for a metric, an integer past 64 bits" {
	R=$BATS_TEST_DIRNAME/fixtures/imports
	for f in fork-columns.tsv:autoresearch decision.tsv:autoresearch diverged.tsv:autoresearch \
	    crlf.tsv:autoresearch bigint.jsonl:pi; do
		run --separate-stderr -0 ar-digest -f json -F "${f#*:}" "$R/${f%:*}"
		printf '%s\n' "$output" | jq -c '.imported_log | [.metric, .better, .keep, .discard, .crash, .other, .best_kept, .best_commit]'
	done > "$T/got"
	[ "$(cat "$T/got")" = '["tg_tok_s","higher",1,2,0,0,29.17,""]
["mae","lower",0,0,0,3,null,""]
["val_fid","lower",1,2,0,0,201.9103,"none"]
["nba_core","higher",1,1,0,1,0.2281,"exp001"]
["avg_toffoli","lower",0,0,1,0,null,""]' ]
	# The Markdown names the metric the rows hold, not the id before it.
	run --separate-stderr -0 ar-digest -F autoresearch "$R/fork-columns.tsv"
	[[ "$output" == *"| metric | tg_tok_s |"* ]]
	# The best as logged: a count of 4306887 gates, not 4.30689e+06.
	sed '2s/"status":"crash"/"status":"keep"/; 2s/"metric":0/"metric":4306887/' "$R/bigint.jsonl" > "$T/count.jsonl"
	run --separate-stderr -0 ar-digest -F pi "$T/count.jsonl"
	[[ "$output" == *"| best_kept | 4306887 |"* ]]
}

# Issue 18, the pictures: kept steps labelled with what was kept, the
# others faint at their own value, x ticks, the scale curves drawn in the
# HTML page and named by idea title, the summary compact; text from the
# data (idea titles, descriptions) escaped everywhere.

@test "ar-digest --svg: kept steps labelled with their descriptions, discards faint at their value, x ticks" {
	run --separate-stderr -0 ar-digest -F autoresearch "$FIX/results.tsv" --svg "$T/s.svg"
	xmllint --noout "$T/s.svg"
	grep -q '>val_bpb (lower is better)</text>' "$T/s.svg"
	# Each step of the running best, labelled; long ones cut, whole on hover.
	grep -q '>baseline</text>' "$T/s.svg"
	grep -q '>increase LR to 0.04</text>' "$T/s.svg"
	grep -q '>warmdown ratio 0.5 -&gt; 0.6</text>' "$T/s.svg"
	grep -q '<title>muon momentum 0.95 with nesterov</title>muon momentum 0.95 with nest…</text>' "$T/s.svg"
	[ "$(grep -c 'rotate(-30 \|rotate(30 ' "$T/s.svg")" -eq 4 ]
	# Three discards, faint; none on the baseline's row.
	[ "$(grep -c 'fill-opacity="0.45"' "$T/s.svg")" -eq 3 ]
	# Runs numbered under the x axis.
	for n in 1 2 8; do
		grep -q "text-anchor=\"middle\">$n</text>" "$T/s.svg"
	done
}

@test "ar-digest --svg --html: titles from agents are escaped; the HTML runs no script from the data" {
	command -v xmllint >/dev/null 2>&1 ||
	    skip "xmllint (libxml2-utils) is not installed"
	spools
	export AR_NOW=2026-11-26T12:00:00Z
	evil='<script>alert(1)</script> ]]> & "q"'
	jq -cn --arg t "$evil" '{id: "i-evil", title: $t, category: "x", created: "2026-11-20T09:00:10Z"}' \
	    > "$T/ideas/new/1000001-20261120T090010.000000Z-0000000000000010-i-evil"
	tab=$(printf '\t')
	cat > "$T/e.tsv" <<EOF2
id${tab}signed${tab}verified${tab}verdict${tab}method.hash${tab}method.commit${tab}workload${tab}shape.k${tab}ratio.median${tab}idea
r1${tab}yes${tab}yes${tab}discard${tab}h1${tab}c1${tab}w${tab}1${tab}0.9${tab}
r2${tab}yes${tab}yes${tab}keep${tab}h3${tab}c0ffee0${tab}w${tab}1${tab}1.2${tab}i-evil
r3${tab}yes${tab}yes${tab}keep${tab}h3${tab}c0ffee0${tab}w${tab}2${tab}1.5${tab}i-evil
EOF2
	printf '%s\n' '{"method":"h3","label":"c0ffee0","workload":"w","device":"cuda","score":"ratio","points":[{"k":1,"score":1.2,"ci_lo":1.1,"ci_hi":1.3,"feasible":true},{"k":2,"score":1.5,"ci_lo":1.4,"ci_hi":1.6,"feasible":true}],"knee":2,"best_k":2,"best_score":1.5}' \
	    '{"method":"h9","label":"<script>x","workload":"]]><script>","device":"cuda","score":"ratio","points":[{"k":1,"score":1.0,"ci_lo":0.9,"ci_hi":1.1,"feasible":false}],"knee":null,"best_k":null}' > "$T/c.jsonl"
	run --separate-stderr -0 ar-digest -l "$T/e.tsv" -i "$T/ideas" -c "$T/c.jsonl" --svg "$T/s.svg" --html "$T/p.html"
	xmllint --noout "$T/s.svg"
	xmllint --noout "$T/p.html"
	for f in "$T/s.svg" "$T/p.html"; do
		[ "$(grep -ci '<script' "$f")" -eq 0 ]
		[ "$(grep -c ']]>' "$f")" -eq 0 ]
		grep -q '&lt;script&gt;alert(1)&lt;/script&gt; ]]&gt; &amp; &quot;q&quot;' "$f"
	done
	# The kept step is labelled with the idea's title, cut to 28
	# characters.
	grep -q '>&lt;script&gt;alert(1)&lt;/script&gt; ]]…</text>' "$T/s.svg"
	# In the curves, the method is named by its idea's title.
	grep -q '<text x="[0-9.]*" y="[0-9.]*" fill="black">&lt;script&gt;alert(1)&lt;/script&gt; ]]&gt; &amp; &quot;q&quot;</text>' "$T/p.html"
	grep -q '>&lt;script&gt;x</text>' "$T/p.html"
}

@test "ar-digest --html: the scale curves drawn above their table, the summary compact" {
	command -v xmllint >/dev/null 2>&1 ||
	    skip "xmllint (libxml2-utils) is not installed"
	run --separate-stderr -0 ar-digest -l "$FIX/export.tsv" -c "$FIX/curves.jsonl" --html "$T/p.html"
	xmllint --noout "$T/p.html"
	[ "$(grep -c '<svg' "$T/p.html")" -eq 2 ]
	[ "$(grep -c '<h2>Scale curves</h2>' "$T/p.html")" -eq 1 ]
	grep -q '>Scale curves: ratio to the baseline against k, 95% intervals</text>' "$T/p.html"
	grep -q '>ratio to baseline (higher is better)</text>' "$T/p.html"
	grep -q '>knee</text>' "$T/p.html"
	grep -q '>decode: knee 4, best 4</text>' "$T/p.html"
	# The picture, then its table, then the summary.
	[ "$(grep -n -m1 '<th>label</th><th>workload</th><th>device</th><th>knee</th>' "$T/p.html" | cut -d: -f1)" -gt \
	    "$(grep -n -m1 'Scale curves: ratio' "$T/p.html" | cut -d: -f1)" ]
	[ "$(grep -n -m1 '<h2>Summary</h2>' "$T/p.html" | cut -d: -f1)" -gt \
	    "$(grep -n -m1 '<th>label</th><th>workload</th><th>device</th><th>knee</th>' "$T/p.html" | cut -d: -f1)" ]
	grep -q '<tr><th>rows</th><td>15</td><th>taken</th><td>13</td><th>flagged unsigned</th><td>1</td></tr>' "$T/p.html"
	# Without -c, no curves are drawn.
	run --separate-stderr -0 ar-digest -l "$FIX/export.tsv" --html "$T/q.html"
	[ "$(grep -c '<svg' "$T/q.html")" -eq 1 ]
}

@test "ar-digest -F pi --svg: nice ticks for negative values and for a single run" {
	command -v xmllint >/dev/null 2>&1 ||
	    skip "xmllint (libxml2-utils) is not installed"
	yticks() {
		grep 'stroke="#ddd"' "$1" | sed 's/.*">\(.*\)<\/text>/\1/' | paste -sd ' '
	}
	{
		echo '{"type":"config","name":"neg","metricName":"score","bestDirection":"higher"}'
		echo '{"run":1,"commit":"a1","metric":-3.2,"status":"keep","description":"baseline"}'
		echo '{"run":2,"commit":"a2","metric":-2.5,"status":"keep","description":"less negative"}'
		echo '{"run":3,"commit":"a3","metric":-2.9,"status":"discard","description":"worse"}'
		echo '{"run":4,"commit":"a4","metric":-1.1,"status":"keep","description":"best"}'
	} > "$T/neg.jsonl"
	run --separate-stderr -0 ar-digest -F pi "$T/neg.jsonl" --svg "$T/n.svg"
	xmllint --noout "$T/n.svg"
	[ "$(yticks "$T/n.svg")" = "-4 -3 -2 -1 0" ]
	grep -q '>score (higher is better)</text>' "$T/n.svg"
	grep -q '>less negative</text>' "$T/n.svg"
	{
		echo '{"type":"config","name":"one","metricName":"score","bestDirection":"higher"}'
		echo '{"run":1,"commit":"a1","metric":7.5,"status":"keep","description":"only"}'
	} > "$T/one.jsonl"
	run --separate-stderr -0 ar-digest -F pi "$T/one.jsonl" --svg "$T/o.svg"
	xmllint --noout "$T/o.svg"
	[ "$(yticks "$T/o.svg")" = "6.5 7.0 7.5 8.0 8.5" ]
	grep -q '>run, in log order (1 run, 1 kept)</text>' "$T/o.svg"
}

@test "ar-digest -F autoresearch -m -d: the metric and direction chosen as ar-ledger import takes them; with pi or without -F, exit 64" {
	X=$BATS_TEST_DIRNAME/fixtures/imports/extra-columns.tsv
	run --separate-stderr -0 ar-digest -f json -F autoresearch "$X"
	[ "$(jq -c '.imported_log | [.metric, .better, .best_kept]' <<< "$output")" = '["val_bpb","lower",1.268992]' ]
	run --separate-stderr -0 ar-digest -f json -F autoresearch "$X" -m tok_per_sec
	[ "$(jq -c '.imported_log | [.metric, .better, .best_kept]' <<< "$output")" = '["tok_per_sec","higher",37700]' ]
	run --separate-stderr -0 ar-digest -f json -m tok_per_sec -d lower -F autoresearch "$X"
	[ "$(jq -c '.imported_log | [.metric, .better, .best_kept]' <<< "$output")" = '["tok_per_sec","lower",36982]' ]
	run --separate-stderr -65 ar-digest -F autoresearch "$X" -m nosuch
	[ "$stderr" = "ar-digest: $X: header: no 'nosuch' column (-m)" ]
	run --separate-stderr -64 ar-digest -F pi "$BATS_TEST_DIRNAME/fixtures/imports/sessions.jsonl" -m x
	[ "$stderr" = "ar-digest: -m and -d choose the metric of a results.tsv (-F autoresearch); a pi log's config lines name its own" ]
	run --separate-stderr -64 ar-digest -d lower -l /dev/null
	run --separate-stderr -64 ar-digest -F autoresearch "$X" -d sideways
	[ "$stderr" = "ar-digest: -d sideways: expected lower or higher" ]
}
