#!/bin/sh
# specdec-scale.sh [-w workload] [-k list] [-m list] [-p pairs] [-o dir]:
# problems/specdec's scale curves (run by hand, not by CI; issue 19). For
# each k of the list (default "1 2 4 8" CPU ranks, so run it on a host
# with 8 free cores, such as the device machine's), measures the
# baseline against itself and each example of examples/specdec named in
# the method list (default: fixed4 acceptance vermax candidates) through ar-bench
# on the cpu device, appending to one campaign's ledger; then exports the ledger and
# draws each method's curve with ar-curve. Prints one line per session
# (method, k, verdict, ratio, the baseline's and the method's goodput,
# acceptance) and ar-curve's text; keeps the campaign, the results and
# the curves in dir (default a new directory in TMPDIR, named at the end).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
w=chat-512 ks="1 2 4 8" ms="fixed4 acceptance vermax candidates" pairs=8 dir=
while getopts w:k:m:p:o: c; do
	case $c in
	w) w=$OPTARG ;;
	k) ks=$OPTARG ;;
	m) ms=$OPTARG ;;
	p) pairs=$OPTARG ;;
	o) dir=$OPTARG ;;
	*) echo "usage: sh bench/specdec-scale.sh [-w workload] [-k list] [-m list] [-p pairs] [-o dir]" >&2
	   exit 64 ;;
	esac
done
bin=${AR_BIN:-$top/build/bin}
for p in ar-init ar-bench ar-ledger ar-curve; do
	[ -x "$bin/$p" ] || { echo "specdec-scale: $bin/$p: not built" >&2; exit 66; }
done
[ -n "$dir" ] || dir=$(mktemp -d "${TMPDIR:-/tmp}/specdec-scale.XXXXXX")
mkdir -p "$dir"
PATH=$bin:$PATH
export PATH
[ -d "$dir/camp" ] ||
    ar-init -k "$dir/keys" -p "$top/problems/specdec" "$dir/camp" > /dev/null
sb=
[ "$(id -u)" -eq 0 ] && command -v bwrap > /dev/null 2>&1 || sb=--no-sandbox
machine "$bin/ar-bench"
printf 'method\tk\tverdict\tratio\tbaseline_goodput\tmethod_goodput\taccept_rate\tp95_ttft_int_ms\n'
for k in $ks; do
	for m in baseline $ms; do
		if [ "$m" = baseline ]; then
			set -- --aa
		else
			set -- -m "$top/examples/specdec/$m"
		fi
		r=$dir/$m-k$k.json
		ar-bench -q -a -C "$dir/camp" $sb -k "$k" -w "$w" -p "$pairs" \
		    -P "$((pairs * 2))" -W 1 "$@" > "$r" 2> "$dir/$m-k$k.err" || true
		line=$(jq -r --arg m "$m" --arg k "$k" '[$m, $k, .verdict,
		    (.ratio.median // "-"), (.baseline.goodput_tok_s.median // "-"),
		    (.metrics.goodput_tok_s.median // "-"),
		    (.metrics.accept_rate.median // "-"),
		    (.metrics.p95_ttft_int_ms.median // "-")] | @tsv' "$r" 2>/dev/null) ||
		    line=
		[ -n "$line" ] ||
		    line=$(printf '%s\t%s\tno result\t%s' "$m" "$k" "$(tail -n 1 "$dir/$m-k$k.err")")
		printf '%s\n' "$line"
	done
done
ar-ledger export -C "$dir/camp" -V -f tsv > "$dir/export.tsv"
# No curve when no result has a ratio (every session discarded, say).
ar-curve --text "$dir/export.tsv" > "$dir/curves.txt" || true
cat "$dir/curves.txt"
ar-curve "$dir/export.tsv" > "$dir/curves.tsv" || true
echo "# specdec-scale: campaign, results and curves in $dir"
