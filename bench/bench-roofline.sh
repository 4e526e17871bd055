#!/bin/sh
# bench-roofline.sh [-G gpu-ids | -k cpus] [-P samples] [-p aa-pairs]: the
# roofline problem's figures (run by hand, not by CI): the own copy kernel
# against cudaMemcpy device to device (target >= 90%), cuBLASLt BF16 GEMM
# against cublasGemmEx on the same shapes (target >= 85%), FP8 and
# all-reduce where they run, and the A/A noise floor of a ~10 ms copy
# (target rsd < 1% on a GPU). Without -G it measures the cpu device. The
# records go to bench/out/roofline.json and bench/out/roofline-aa.json.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
bundle=
samples=20
pairs=30
while getopts G:k:P:p: c; do
	case $c in
	G) bundle="-G $OPTARG" ;;
	k) bundle="-k $OPTARG" ;;
	P) samples=$OPTARG ;;
	p) pairs=$OPTARG ;;
	*) echo "usage: sh bench/bench-roofline.sh [-G gpu-ids | -k cpus] [-P samples] [-p aa-pairs]" >&2; exit 64 ;;
	esac
done
bin=${AR_BIN:-$top/build/bin}
[ -x "$bin/ar-bench" ] || { echo "bench-roofline: $bin/ar-bench: not built" >&2; exit 66; }
command -v jq > /dev/null || { echo "bench-roofline: jq: not found" >&2; exit 69; }
out=$top/bench/out
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
machine "$bin/ar-bench"
"$bin/ar-init" -k "$tmp/keys" -p "$top/tests/fixtures/problem" "$tmp/camp" > /dev/null
# shellcheck disable=SC2086
"$bin/ar-bench" --roofline -C "$tmp/camp" -q -P "$samples" $bundle > "$out/roofline.json"
# shellcheck disable=SC2086
"$bin/ar-bench" --roofline --aa -C "$tmp/camp" -q -P "$pairs" $bundle > "$out/roofline-aa.json"
jq -r '"# \(.device) k=\(.k): \(.devices[0].name); verdict \(.verdict) \(.why)",
    (.measures | to_entries[] | .key as $op | .value |
	if has("skipped") then "\($op)\tskipped: \(.skipped)"
	else "\($op)\t\((.gb_s // .tflop_s // .busbw_gb_s).median)\t\(if has("gb_s") then "GB/s" elif has("tflop_s") then "TFLOP/s" else "GB/s bus" end)\tevents \((.events).median)\tclock \(.clock_mhz.min)-\(.clock_mhz.max) MHz\tdropped \(.dropped_throttled)\tchecked \(.checked)" end),
    "copy / memcpy\t\(.figures.copy_vs_memcpy)\t(target >= 0.90 on a GPU)",
    "cuBLASLt / cuBLAS\t\(.figures.lt_vs_cublas)\t(target >= 0.85 on a GPU)"' "$out/roofline.json"
jq -r '"A/A, copy of \(.workload_ms) ms, \(.pairs) pairs: rsd \(.noise_floor.rsd) (events \(.noise_floor.rsd_events)), dropped \(.dropped_throttled)\t(target < 0.01 on a GPU)"' "$out/roofline-aa.json"
