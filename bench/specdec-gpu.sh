#!/bin/sh
# specdec-gpu.sh [-BKS] [-b seconds] [-p pairs] [-e list] [-k list] [-m list]
#     [-s size] [-t seconds] [-w workload]: issue 19's
# device figures in one run, on a GPU machine with the programs of BUILD
# (default build/, made by `make gpu-build` where the static libraries
# are; this script builds nothing of its own). Run by hand, not by CI:
#   kernels   specdec-cuda-test: every CUDA kernel and whole passes of
#             the tiny, cpu, gpu and 1b sizes against model.c, bit for
#             bit (-K skips it: gpu-check runs it too)
#   bench     specdec-cuda-test --bench SIZE: the GEMM kernels (warp,
#             wide) on E's shapes and whole passes with each (warp: with
#             the thread attention; wide: with the block attention), at
#             the model size of -s (default gpu; JSON lines); -B skips it
#   roofline  ar-bench --roofline on GPU 0, so that the GEMM's bandwidth
#             can be read as a share of the machine's
#   examples  ar-bench on GPU 0, workload -w (default gpu-512), k = 1, -p pairs
#             (default 2): each example of examples/specdec named in -e
#             (default all six) against the baseline, each session
#             within -t seconds (ar-bench -T, default 100)
#   scale     bench/specdec-scale.sh on the cpu device of the host:
#             burst-64 at k = 1, 2, 4, 8 CPU ranks for the methods of -m
#             (default "candidates fixed4"), curves through ar-curve;
#             -S skips it
# Each step runs under what is left of the budget (-b, default 540 s).
# Writes specdec-gpu.txt (the summary) and specdec-gpu.tgz (every step's
# output) in OUT (default BUILD/specdec-gpu); exits 1 if a step failed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
budget=540 pairs=2 ks="1 2 4 8" ms="candidates fixed4" scale=1 kernels=1 bench=1
es="fixed4 acceptance vermax candidates skipverify starve"
size=gpu wl=gpu-512 tlim=100
while getopts BKSb:p:e:k:m:s:t:w: c; do
	case $c in
	B) bench=0 ;;
	K) kernels=0 ;;
	S) scale=0 ;;
	s) size=$OPTARG ;;
	t) tlim=$OPTARG ;;
	w) wl=$OPTARG ;;
	b) budget=$OPTARG ;;
	e) es=$OPTARG ;;
	p) pairs=$OPTARG ;;
	k) ks=$OPTARG ;;
	m) ms=$OPTARG ;;
	*) echo "usage: sh bench/specdec-gpu.sh [-BKS] [-b seconds] [-p pairs] [-e list] [-k list] [-m list] [-s size] [-t seconds] [-w workload]" >&2
	   exit 64 ;;
	esac
done
build=${BUILD:-$top/build}
case $build in /*) ;; *) build=$top/$build ;; esac
out=${OUT:-$build/specdec-gpu}
mkdir -p "$out" || exit 1
PATH=$build/bin:$build/tests:/usr/local/nvidia/bin:/usr/local/cuda/bin:$PATH
export PATH LC_ALL=C
unset AR_CAMPAIGN
work=$(mktemp -d "${TMPDIR:-/tmp}/specdec-gpu.XXXXXX") || exit 1
res=$work/res
mkdir -p "$res"
sum=$out/specdec-gpu.txt
: > "$sum"
start=$(date +%s)
failed=0

say() { printf '%s\n' "$*" | tee -a "$sum" >&2; }
left() { echo $((budget - ($(date +%s) - start))); }

# step NAME LIMIT CMD...: CMD under timeout, output in res/NAME.out and
# res/NAME.err; RC is its status. Skipped (RC 125) when under 10 s are left.
step() {
	name=$1 limit=$2
	shift 2
	l=$(left)
	[ "$limit" -gt "$l" ] && limit=$l
	if [ "$limit" -lt 10 ]; then
		say "== $name: skipped: the budget is spent"
		RC=125
		return
	fi
	t0=$(date +%s)
	timeout -k 5 "$limit" "$@" > "$res/$name.out" 2> "$res/$name.err"
	RC=$?
	say "== $name: exit $RC in $(($(date +%s) - t0)) s (limit $limit s)"
}

say "# specdec-gpu $(date -u +%FT%TZ) $(git -C "$top" rev-parse --short HEAD 2>/dev/null)"
say "# $(nvidia-smi -L 2>/dev/null | head -n 1); $(nproc) CPUs"

if [ "$kernels" -eq 1 ]; then
	step kernels 120 specdec-cuda-test
	[ "$RC" -eq 0 ] || failed=1
	grep '^not ok\|^specdec-cuda-test:' "$res/kernels.out" | tee -a "$sum" >&2
fi

if [ "$bench" -eq 1 ]; then
	step bench 150 specdec-cuda-test --bench "$size"
	[ "$RC" -eq 0 ] || failed=1
fi

# The examples first, the roofline after: they are what the issue asks.
ar-init -k "$work/keys" -p "$top/problems/specdec" "$work/camp" > /dev/null ||
    failed=1
say "# workload $wl"
say "method	verdict	ratio	baseline_goodput	method_goodput	accept_rate	tok_per_verify	p95_ttft_int_ms	bad	wall_ms"
for m in $es; do
	set -- -m "$top/examples/specdec/$m"
	step "gpu-$m" $((tlim + 50)) ar-bench -q -a -C "$work/camp" -G 0 --device cuda -k 1 \
	    --no-sandbox -w "$wl" -p "$pairs" -P "$pairs" -W 0 -T "$tlim" "$@"
	line=$(jq -r --arg m "$m" '[$m, .verdict, (.ratio.median // "-"),
	    (.baseline.goodput_tok_s.median // "-"),
	    (.metrics.goodput_tok_s.median // "-"),
	    (.metrics.accept_rate.median // "-"),
	    (.metrics.tok_per_verify.median // "-"),
	    (.metrics.p95_ttft_int_ms.median // "-"),
	    (.metrics.bad.median // "-"), (.metrics.wall_ms.median // "-")] |
	    map(tostring) | join("\t")' "$res/gpu-$m.out" 2>/dev/null) || line=
	[ -n "$line" ] || { line="$m	no result: $(tail -n 2 "$res/gpu-$m.err" | tr '\n' ' ')"; failed=1; }
	say "$line"
done

step roofline 90 ar-bench --roofline -q -C "$work/camp" -G 0 --device cuda -P 5
mem=$(jq -r '.roofline.mem_gb_s // empty' "$res/roofline.out" 2>/dev/null)
say "# roofline: mem_gb_s ${mem:-?} ($(jq -r '.devices[0].name // ""' "$res/roofline.out" 2>/dev/null))"
if [ -s "$res/bench.out" ]; then
	say "kernel	shape	rows	time	weight_gb_s	share_of_roofline	gflop_s"
	jq -r --arg mem "${mem:-0}" 'select(.kernel == "gemm") |
	    ["gemm \(.gemm // "warp")", "\(.in)x\(.out)", .n, "\(.us) us", .weight_gb_s,
	     (if ($mem | tonumber) > 0 then (.bytes_gb_s / ($mem | tonumber) * 1000 | round / 1000) else "-" end),
	     .gflop_s] | map(tostring) | join("\t")' "$res/bench.out" | tee -a "$sum" >&2
	jq -r 'select(.kernel == "pass") | ["pass \(.gemm // "warp")", "\(.net) \(.shape)", .rows,
	    "\(.ms) ms"] | map(tostring) | join("\t")' "$res/bench.out" |
	    tee -a "$sum" >&2
fi

if [ "$scale" -eq 1 ] && [ "$(left)" -gt 30 ]; then
	t0=$(date +%s)
	AR_BIN=$build/bin timeout -k 5 "$(left)" sh "$top/bench/specdec-scale.sh" \
	    -w burst-64 -k "$ks" -m "$ms" -p "$pairs" -o "$work/scale" \
	    > "$res/scale.out" 2> "$res/scale.err"
	say "== scale: exit $? in $(($(date +%s) - t0)) s"
	tee -a "$sum" < "$res/scale.out" >&2
	cp "$work/scale/export.tsv" "$res/scale-export.tsv" 2>/dev/null
else
	say "== scale: skipped (-S, or the budget is spent)"
fi

say "# specdec-gpu: $([ "$failed" -eq 0 ] && echo ok || echo FAILED) in $(($(date +%s) - start)) s"
tar -czf "$out/specdec-gpu.tgz" -C "$work" res 2>/dev/null
rm -rf "$work"
exit "$failed"
