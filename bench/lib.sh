# bench/lib.sh: what the benchmark scripts share; sourced, not run.

# best CMD...: the best wall seconds of three runs of CMD (stdout and
# stderr dropped), with millisecond digits. Best, not mean: the noise of
# a shared machine only ever adds time.
best() {
	b=
	for i in 1 2 3; do
		t0=$(date +%s.%N)
		"$@" > /dev/null 2>&1
		t1=$(date +%s.%N)
		b=$(awk -v a="$t0" -v z="$t1" -v b="$b" 'BEGIN { t = z - a;
		    if (b == "" || t < b) b = t; printf "%.3f", b }')
	done
	echo "$b"
}

# machine: one comment line naming the machine and the program's version.
machine() {
	model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	echo "# machine: $(uname -n), $(nproc) CPUs (${model:-unknown}), $("$1" --version)"
}

# signed_results CAMP N WORK: N signed results (ar-sign-test, one signer
# per core) appended to CAMP in batches of ${SR_BATCH:-100000} rows (a
# segment each, or more past 16,384 rows), with
# scratch files in WORK; $bin and $tbin name the programs and test
# helpers. Dies (die, the caller's) when an append fails.
signed_results() {
	sr_per=$(( ($2 + $(nproc) - 1) / $(nproc) ))
	sr_j=0 sr_left=$2
	while [ "$sr_left" -gt 0 ]; do
		sr_j=$((sr_j + 1))
		sr_k=$(( sr_left < sr_per ? sr_left : sr_per ))
		"$tbin/ar-sign-test" -C "$1" -g "$sr_k" -s "$sr_j" > "$3/gen.$sr_j" &
		sr_left=$((sr_left - sr_k))
	done
	wait
	for sr_g in "$3"/gen.*; do
		split -l "${SR_BATCH:-100000}" -d -a 6 "$sr_g" "$sr_g.part."
		rm -f "$sr_g"
		for sr_f in "$sr_g".part.*; do
			"$bin/ar-ledger" append -C "$1" "$sr_f" 2> /dev/null || die "append $sr_f failed"
			rm -f "$sr_f"
		done
	done
}

# node_aas CAMP WORK: a signed, quiet A/A of each of the 64 nodes n00 to n63
# appended to CAMP, so that none is quarantined; topo64 FILE: their
# topology, 8 NVLinked H100s each.
node_aas() {
	awk 'BEGIN { h = sprintf("%064d", 0)
		for (n = 0; n < 64; n++)
			printf "{\"experiment\":\"aa%d\",\"aa\":true,\"method\":{\"dir\":\"baseline\",\"hash\":\"%s\"},\"workload\":\"decode-512\",\"shape\":{\"k\":1,\"node\":\"n%02d\"},\"verdict\":\"equivalent\",\"noise_floor\":{\"rsd\":0.01},\"started\":\"2026-11-26T09:00:00Z\",\"finished\":\"2026-11-26T09:10:00Z\"}\n", n, h, n }' |
	    "$tbin/ar-sign-test" -C "$1" > "$2/aa.jsonl"
	"$bin/ar-ledger" append -C "$1" "$2/aa.jsonl" 2> /dev/null || die "append of the A/As failed"
}
topo64() {
	awk 'BEGIN { OFS = "\t"; print "node", "gpu", "model", "memory_mib", "nvlink"
		for (n = 0; n < 64; n++) for (g = 0; g < 8; g++) {
			l = ""; for (h = 0; h < 8; h++) if (h != g) l = l (l == "" ? "" : ",") h
			print sprintf("n%02d", n), g, "H100", 81559, l } }' > "$1"
}
