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
