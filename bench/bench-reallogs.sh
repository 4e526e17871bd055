#!/bin/sh
# bench-reallogs.sh [-v] DIR [BUILD ...]: how many real logs of other
# autoresearch tools each build's ar-digest -F reads (run by hand, not
# by CI). DIR holds tsv/ (results.tsv files) and jsonl/
# (autoresearch.jsonl files), as fetched from public repositories; they
# are not in this repository (their owners' work, not ours: only small
# excerpts are, in tests/fixtures/imports/). BUILD is a build directory
# (build by default; an older checkout's build to compare).
# Prints, per build and kind, the files read (exit 0), refused with one
# line (exit 65) and anything else (a crash: a defect), then the
# refusals by reason; -v prints each file's outcome.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
verbose=0
if [ "${1:-}" = -v ]; then
	verbose=1
	shift
fi
[ $# -ge 1 ] || { echo "usage: sh bench/bench-reallogs.sh [-v] dir [build ...]" >&2; exit 64; }
dir=$1
shift
[ -d "$dir/tsv" ] || [ -d "$dir/jsonl" ] || { echo "bench-reallogs: $dir: no tsv/ or jsonl/" >&2; exit 66; }
[ $# -ge 1 ] || set -- "$top/build"
for b in "$@"; do
	bin=$b/bin/ar-digest
	[ -x "$bin" ] || { echo "bench-reallogs: $bin: not built" >&2; exit 66; }
	for kind in tsv jsonl; do
		[ -d "$dir/$kind" ] || continue
		from=autoresearch
		[ $kind = jsonl ] && from=pi
		read=0 refused=0 other=0
		reasons=$(mktemp)
		for f in "$dir/$kind"/*; do
			[ -f "$f" ] || continue
			rc=0
			"$bin" -F $from "$f" > /dev/null 2> "$reasons.err" || rc=$?
			case $rc in
			0) read=$((read + 1)) ;;
			65) refused=$((refused + 1))
			    # The reason without the file's name and line.
			    sed -n '1s/^[^:]*: [^:]*: \(line [0-9]*: \)\{0,1\}//p' "$reasons.err" |
			        sed 's/"[^"]*"/"..."/g; s/'"'"'[^'"'"']*'"'"'/'"'...'"'/g; s/[0-9][0-9]* fields*/N fields/; s/header has [0-9]*/header has M/' >> "$reasons" ;;
			*) other=$((other + 1)) ;;
			esac
			[ $verbose = 0 ] || printf '%s\t%s\t%s\n' "$rc" "$(basename "$f")" "$(head -1 "$reasons.err")"
		done
		printf '%s\t%s\tread %d\trefused %d\tother %d\n' "$b" "$kind" $read $refused $other
		sort "$reasons" | uniq -c | sort -rn | sed 's/^/	/'
		rm -f "$reasons" "$reasons.err"
	done
done
