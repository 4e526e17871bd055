#!/usr/bin/env bats
# ar-sched.bats: tests ar-sched(1). The command line (-h, --version, usage
# errors); gpus from a topology file, --gpus (NVSwitch and --pairs),
# --cpus, a fake sinfo through SINFO and NVML's absence, with exact
# output; every malformed topology (exit 65, file and line named) and a
# missing one (66); pack on aligned, best-connected blocks with best fit,
# bookings in run/gpus respected and the starvation guard keeping a node
# for a large bundle; next: the assignment TSV from a fixture ledger and
# submissions, A/A first on unmeasured nodes, quarantine of loud nodes
# until a newer A/A clears them, the quietest node for validations,
# --put storing records in queue/ and never double-booking a GPU over
# repeated calls, submissions from the submitted/ spool, header only when
# there is nothing to do, and its bad inputs; cluster's invariants on a
# small case (no double booking in --check mode, a sane utilization, the
# same figures for the same seed). Timings are bench/bench-sched.sh's.

bats_require_minimum_version 1.5.0
load common

FIX="$BATS_TEST_DIRNAME/fixtures/sched"
HDR="experiment	method	workload	k	gpus	node	purpose	idea	label	value	why	min_pairs	max_pairs	stop_at	prior_lo	prior_hi"
INV="node	gpu	model	memory_mib	nvlink"
C1=cafe000000000000000000000000000000000001
C2=cafe000000000000000000000000000000000002
C3=cafe000000000000000000000000000000000003

setup() {
	ar_setup ar-sched
	HOST=$(hostname -s)
	# mkcamp's campaigns are of the test problem.
	PROBLEM=$FIXTURES/problem
	cd "$T"
}

teardown() {
	ar_teardown
}

# The columns named, in order, of the last run's TSV output (after its
# header), one row a line.
cols() {
	printf '%s\n' "$output" | awk -F '\t' -v want="$*" '
		NR == 1 { n = split(want, w, " ");
			for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ s = ""; for (i = 1; i <= n; i++) s = s (i > 1 ? " " : "") $c[w[i]];
			print s }'
}

# A booking as ar-run makes it: run/gpus/NODE@GPU.
book() {
	mkdir -p camp/run/gpus
	printf 'x%s\tar-run\t1\t%s\n' "$1" "${2:-2000000000}" > "camp/run/gpus/$1"
}

# ---- the command line ----

@test "ar-sched -h prints every form; --version" {
	run -0 ar-sched -h
	[ "${lines[0]}" = "usage: ar-sched gpus [-g file | --gpus n [--pairs] | --cpus | --slurm]" ]
	[[ "$output" == *"ar-sched pack [-C dir]"* ]]
	[[ "$output" == *"ar-sched next [-C dir] [-l ledger]"* ]]
	[[ "$output" == *"ar-sched cluster [-N nodes] [-G gpus] [-p pending] [-R reservations] [-W window] [-s seed] [-d hours] [--check] [--no-reserve]"* ]]
	[[ "$output" == *"ar-sched simulate "* ]]
	[[ "$output" == *"ar-sched landscape "* ]]
	run -0 ar-sched gpus -h
	[ "${lines[0]}" = "usage: ar-sched gpus [-g file | --gpus n [--pairs] | --cpus | --slurm]" ]
	run -0 ar-sched --version
	[ "$output" = "ar-sched $VERSION" ]
	run -0 ar-sched simulate -h
	[[ "$output" == "usage: ar-sched simulate "* ]]
}

@test "ar-sched: usage errors exit 64" {
	run -64 ar-sched
	[[ "${lines[0]}" == "usage: ar-sched gpus"* ]]
	run -64 --separate-stderr ar-sched frob
	[ "$stderr" = "ar-sched: frob: no such command (gpus, pack, next, fold, cluster, simulate, landscape)" ]
	run -64 ar-sched gpus -x
	# A subcommand's bad option names the program, with that
	# subcommand's usage.
	for sub in gpus pack next cluster simulate landscape; do
		run -64 --separate-stderr ar-sched "$sub" --frob
		same "${stderr_lines[0]}" "ar-sched: unrecognized option '--frob'"
		[[ "${stderr_lines[1]}" == "usage: ar-sched $sub "* ]]
	done
	run -64 ar-sched gpus extra --gpus 2
	run -64 --separate-stderr ar-sched gpus --gpus 0
	[ "$stderr" = "ar-sched: --gpus 0: a GPU count from 1 to 64" ]
	run -64 --separate-stderr ar-sched gpus --gpus 2 -g "$FIX/two.tsv"
	[ "$stderr" = "ar-sched: -g, --gpus, --cpus and --slurm exclude each other" ]
	run -64 --separate-stderr ar-sched gpus --pairs
	[ "$stderr" = "ar-sched: --pairs goes with --gpus" ]
	run -64 --separate-stderr ar-sched pack --gpus 8 3
	[ "$stderr" = "ar-sched: 3: a bundle is 1, 2, 4 or 8 GPUs" ]
	run -64 ar-sched pack --gpus 8
	run -64 --separate-stderr ar-sched cluster -N 0
	[ "$stderr" = "ar-sched: -N 0: nodes from 1 to 100000" ]
	run -64 --separate-stderr ar-sched next -n 0
	[ "$stderr" = "ar-sched: -n 0: a count from 1 to 100000" ]
	run -64 --separate-stderr ar-sched next -l - -m -
	[ "$stderr" = "ar-sched: -l - and -m -: standard input is one of them only" ]
	run -64 --separate-stderr ar-sched next --noise-max -1
	[ "$stderr" = "ar-sched: --noise-max -1: a number of 0 or more" ]
}

# ---- gpus ----

@test "ar-sched gpus -g: a topology file, in GPU order" {
	run --separate-stderr -0 ar-sched gpus -g "$FIX/two.tsv"
	[ "$stderr" = "" ]
	same "$output" "$(cat "$FIX/two.tsv")"
	# Rows in any order, columns in any order, come out the same.
	{ printf 'nvlink\tmodel\tgpu\tnode\tmemory_mib\n'
	  printf '0\tH100\t1\tx\t\n3\tH100\t2\tx\t\n1\tH100\t0\tx\t81559\n2\tH100\t3\tx\t\n'
	} > shuffled.tsv
	run -0 ar-sched gpus -g shuffled.tsv
	same "$output" "$INV
x	0	H100	81559	1
x	1	H100		0
x	2	H100		3
x	3	H100		2"
	run -0 ar-sched gpus -g - < "$FIX/two.tsv"
	same "$output" "$(cat "$FIX/two.tsv")"
}

@test "ar-sched gpus --gpus N: an NVSwitch box, or NVLink pairs with --pairs" {
	run -0 ar-sched gpus --gpus 4
	same "$output" "$INV
$HOST	0	gpu		1,2,3
$HOST	1	gpu		0,2,3
$HOST	2	gpu		0,1,3
$HOST	3	gpu		0,1,2"
	run -0 ar-sched gpus --gpus 3 --pairs
	same "$output" "$INV
$HOST	0	gpu		1
$HOST	1	gpu		0
$HOST	2	gpu		"
}

@test "ar-sched gpus --cpus: the CPUs of the affinity mask" {
	run -0 taskset -c 0 ar-sched gpus --cpus
	same "$output" "$INV
$HOST	0	cpu		"
	run -0 ar-sched gpus --cpus
	[ "${#lines[@]}" -eq $(( $(nproc) + 1 )) ]
}

@test "ar-sched gpus --slurm: sinfo's nodes and GPU gres, through SINFO" {
	cat > sinfo <<'EOF'
#!/bin/sh
[ "$*" = "-h -N -o %N %G" ] || { echo "bad args: $*" >&2; exit 2; }
printf 'n1 gpu:2\n'
printf 'n2 gpu:h100:2(S:0-1)\n'
printf 'n1 gpu:2\n'
printf 'n3 (null)\n'
printf 'n4 gpu:a100:1,gpu:a100:1(S:1)\n'
EOF
	chmod +x sinfo
	SINFO=$T/sinfo run --separate-stderr -0 ar-sched gpus --slurm
	[ "$stderr" = "" ]
	same "$output" "$INV
n1	0	gpu		
n1	1	gpu		
n2	0	h100		
n2	1	h100		
n4	0	a100		
n4	1	a100		"
}

@test "ar-sched gpus --slurm: no sinfo, a failing one, garbage: 69, 69, 65" {
	SINFO=$T/none run --separate-stderr -69 ar-sched gpus --slurm
	[ "$stderr" = "ar-sched: $T/none: cannot run: No such file or directory (no Slurm here?)" ]
	printf '#!/bin/sh\necho "slurm_load_node: down" >&2\nexit 1\n' > sinfo
	chmod +x sinfo
	SINFO=$T/sinfo run --separate-stderr -69 ar-sched gpus --slurm
	[ "$stderr" = "slurm_load_node: down
ar-sched: $T/sinfo: failed (exit status 1)" ]
	printf '#!/bin/sh\necho "n1 gpu:lots"\n' > sinfo
	SINFO=$T/sinfo run --separate-stderr -65 ar-sched gpus --slurm
	[ "$stderr" = "ar-sched: $T/sinfo: line 1: node n1: gres \"gpu:lots\": not a GPU count from 0 to 64" ]
}

@test "ar-sched gpus: no NVIDIA driver exits 69 and says what to use" {
	if ldconfig -p 2> /dev/null | grep -q libnvidia-ml.so.1; then
		skip "this machine has NVML"
	fi
	run --separate-stderr -69 ar-sched gpus
	[ "$stderr" = "ar-sched: NVML: libnvidia-ml.so.1: cannot open shared object file: No such file or directory (no NVIDIA driver here; use --gpus N, --cpus or -g FILE)" ]
	[ "$output" = "" ]
}

@test "ar-sched gpus -g: malformed topologies exit 65 naming file and line" {
	cd "$FIX"
	run --separate-stderr -65 ar-sched gpus -g bad-nocol.tsv
	[ "$stderr" = "ar-sched: bad-nocol.tsv: no column nvlink" ]
	run --separate-stderr -65 ar-sched gpus -g bad-dup.tsv
	[ "$stderr" = "ar-sched: bad-dup.tsv: line 4: gpu 1 of node a is listed twice (line 3)" ]
	run --separate-stderr -65 ar-sched gpus -g bad-int.tsv
	[ "$stderr" = 'ar-sched: bad-int.tsv: line 3: gpu: "x1" is not a whole number' ]
	run --separate-stderr -65 ar-sched gpus -g bad-mem.tsv
	[ "$stderr" = 'ar-sched: bad-mem.tsv: line 2: memory_mib: "80GB" is not a whole number' ]
	run --separate-stderr -65 ar-sched gpus -g bad-peer.tsv
	[ "$stderr" = "ar-sched: bad-peer.tsv: line 3: nvlink: peer 2 is not a GPU of the node" ]
	run --separate-stderr -65 ar-sched gpus -g bad-asym.tsv
	[ "$stderr" = "ar-sched: bad-asym.tsv: line 2: nvlink: gpu 0 reaches 1, but 1 does not list 0" ]
	run --separate-stderr -65 ar-sched gpus -g bad-fields.tsv
	[ "$stderr" = "ar-sched: bad-fields.tsv: line 2: 4 fields, header has 5" ]
	run --separate-stderr -65 ar-sched gpus -g /dev/null
	[[ "$stderr" == "ar-sched: /dev/null: empty input"* ]]
	run --separate-stderr -66 ar-sched gpus -g nope.tsv
	[ "$stderr" = "ar-sched: nope.tsv: No such file or directory" ]
	[ "$output" = "" ]
}

# ---- pack ----

@test "ar-sched pack: pairs, then the quad, on NVLinked aligned blocks" {
	run --separate-stderr -0 ar-sched pack -g "$FIX/pairs.tsv" 2 2 4
	[ "$stderr" = "" ]
	same "$output" "k	node	gpus
2	a	0,1
2	a	2,3
4	a	4,5,6,7"
	# A lone 4 goes where its four GPUs are all linked.
	run -0 ar-sched pack -g "$FIX/pairs.tsv" 4
	same "$(cols k node gpus)" "4 a 4,5,6,7"
	# Best fit: small bundles fill the most used block first.
	run -0 ar-sched pack -g "$FIX/pairs.tsv" 1 2 1 1
	same "$(cols k node gpus)" "1 a 0
2 a 2,3
1 a 1
1 a 4"
}

@test "ar-sched pack: an 8 goes to the best-connected node; small ones fill one node first" {
	run -0 ar-sched pack -g "$FIX/two.tsv" 8
	same "$(cols node gpus)" "b 0,1,2,3,4,5,6,7"
	run -0 ar-sched pack -g "$FIX/two.tsv" 1 1 2 4 8
	same "$(cols k node gpus)" "1 a 0
1 a 1
2 a 2,3
4 a 4,5,6,7
8 b 0,1,2,3,4,5,6,7"
	# Nothing left: exit 75, one line each, nothing double-booked.
	run --separate-stderr -75 ar-sched pack -g "$FIX/two.tsv" 8 8 1
	same "$(cols k node gpus)" "8 b 0,1,2,3,4,5,6,7
8 a 0,1,2,3,4,5,6,7"
	[ "$stderr" = "ar-sched: k=1 fits nowhere now" ]
}

@test "ar-sched pack -C: bookings in run/gpus are respected" {
	mkcamp
	book a@0
	book b@5
	run --separate-stderr -0 ar-sched pack -C camp -g "$FIX/two.tsv" 4 4 2 1
	[ "$stderr" = "" ]
	same "$(cols k node gpus)" "4 a 4,5,6,7
4 b 0,1,2,3
2 a 2,3
1 a 1"
	# A node's long name is the node.
	rm camp/run/gpus/*
	book a.cluster.example@4
	run -0 ar-sched pack -C camp -g "$FIX/two.tsv" 4 4 4
	same "$(cols k node gpus)" "4 b 0,1,2,3
4 b 4,5,6,7
4 a 0,1,2,3"
	# "local" is this host, or the only node.
	rm camp/run/gpus/*
	book local@1
	run -0 ar-sched pack -C camp --gpus 2 1
	same "$(cols k node gpus)" "1 $HOST 0"
	run --separate-stderr -75 ar-sched pack -C camp --gpus 2 4
	[ "$stderr" = "ar-sched: k=4: no node has 4 GPUs" ]
	run --separate-stderr -75 ar-sched pack -C camp --gpus 2 2
	[ "$stderr" = "ar-sched: k=2 fits nowhere now; node $HOST is kept for it" ]
}

@test "ar-sched pack: a large bundle that fits nowhere keeps the node that frees first" {
	mkcamp
	# a frees at 1900000000, b at 2000000000: a is kept for the 8,
	# and the 2 that would have gone to a goes to b.
	book a@0 1900000000
	book b@0 2000000000
	run -0 ar-sched pack -C camp -g "$FIX/two.tsv" 2
	same "$(cols node gpus)" "a 2,3"
	run --separate-stderr -75 ar-sched pack -C camp -g "$FIX/two.tsv" 8 2
	[ "$stderr" = "ar-sched: k=8 fits nowhere now; node a is kept for it" ]
	same "$(cols node gpus)" "b 2,3"
}

# ---- next ----

@test "ar-sched next: the assignment TSV; a loud node gets an A/A only" {
	mkcamp
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" \
	    -l "$FIX/ledger.tsv" -m "$FIX/subs.tsv"
	[ "${lines[0]}" = "$HDR" ]
	[ "$stderr" = "ar-sched: left out 1 row not signed and verified (export with ar-ledger export -V)
ar-sched: node b: quarantined: its latest A/A (e2) has noise 0.25 > 0.1; it runs an A/A only until a newer one clears it" ]
	# The A/A comes first; all else runs on a, the quiet node.
	same "$(cols method workload k gpus node purpose label | head -1)" \
	    "baseline decode-512 1 0 b aa A/A"
	same "$(cols node | sort -u | tr '\n' ' ')" "a b "
	same "$(cols node purpose | grep -c '^b ')" 1
	# The new method is probed at k=1; every row has a fresh id.
	cols method k purpose | grep -qx "$C3 1 probe"
	same "$(cols experiment | sort -u | grep -Ec '^[0-9]{8}T[0-9.]{13}Z-[0-9a-f]{16}$')" \
	    "$(( ${#lines[@]} - 1 ))"
	# No GPU is given twice.
	same "$(cols node gpus | awk '{ n = split($2, g, ","); for (i = 1; i <= n; i++) print $1, g[i] }' | sort | uniq -d)" ""
}

@test "ar-sched next: campaign.conf's policy: an unknown one exits 65; the old name autoreduce is ours" {
	mkcamp
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" \
	    -l "$FIX/ledger.tsv" -m "$FIX/subs.tsv"
	ours=$output
	sed -i 's/^policy = .*/policy = autoreduce/' camp/campaign.conf
	grep -qx 'policy = autoreduce' camp/campaign.conf
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" \
	    -l "$FIX/ledger.tsv" -m "$FIX/subs.tsv"
	same "$(printf '%s\n' "$output" | cut -f 2-)" "$(printf '%s\n' "$ours" | cut -f 2-)"
	sed -i 's/^policy = .*/policy = best/' camp/campaign.conf
	run --separate-stderr -65 ar-sched next -C camp -g "$FIX/two.tsv" \
	    -l "$FIX/ledger.tsv" -m "$FIX/subs.tsv"
	[ "$output" = "" ]
	[ "$stderr" = "ar-sched: $PWD/camp/campaign.conf: policy: best: not ours, flat1, grid or sha" ] ||
	    [ "$stderr" = "ar-sched: camp/campaign.conf: policy: best: not ours, flat1, grid or sha" ]
}

@test "ar-sched next: a newer quiet A/A clears the node; --noise-max moves the bar" {
	mkcamp
	cp "$FIX/ledger.tsv" l.tsv
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l l.tsv -m "$FIX/subs.tsv" --noise-max 0.3
	same "$(cols purpose | grep -c '^aa$')" 0
	printf 'e9\tyes\tyes\t\tbaseline\tdecode-512\tcuda\t1\tb\tequivalent\ttrue\t1.0\t0.99\t1.01\ttrue\t0.01\t0.01\t2026-11-26T11:00:00Z\t2026-11-26T11:10:00Z\n' >> l.tsv
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l l.tsv -m "$FIX/subs.tsv"
	same "$(cols purpose | grep -c '^aa$')" 0
	[[ "$stderr" != *quarantined* ]]
	# campaign.conf's sched.noise_max is the default bar.
	echo "sched.noise_max = 0.001" >> camp/campaign.conf
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l l.tsv -m "$FIX/subs.tsv"
	same "$(cols node purpose)" "a aa
b aa"
}

@test "ar-sched next: an A/A recorded under the full host name clears the short one" {
	mkcamp
	sed 's/\tb\tequivalent/\tb.cluster.example\tequivalent/' "$FIX/ledger.tsv" > l.tsv
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l l.tsv -m "$FIX/subs.tsv" --noise-max 0.3
	same "$(cols purpose | grep -c '^aa$')" 0
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l l.tsv -m "$FIX/subs.tsv"
	same "$(cols node purpose | head -1)" "b aa"
	[[ "$stderr" == *"node b: quarantined: its latest A/A (e2) has noise 0.25 > 0.1;"* ]]
}

@test "ar-sched next: validations and close calls go to the quietest node" {
	mkcamp
	# The best so far (e3) on one measurement too noisy to tell the
	# minimum effect: it is measured again.
	sed 's/\t1.10\t1.05\t1.15\t/\t1.10\t1.03\t1.17\t/' "$FIX/ledger.tsv" > l.tsv
	# b is quiet too, but less than a.
	printf 'e9\tyes\tyes\t\tbaseline\tdecode-512\tcuda\t1\tb\tequivalent\ttrue\t1.0\t0.99\t1.01\ttrue\t0.05\t0.01\t2026-11-26T11:00:00Z\t2026-11-26T11:10:00Z\n' >> l.tsv
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l l.tsv -m "$FIX/subs.tsv"
	same "$(cols purpose node | grep '^validate' | sort -u)" "validate a"
	# With a quieter b, b gets them.
	printf 'e10\tyes\tyes\t\tbaseline\tdecode-512\tcuda\t1\tb\tequivalent\ttrue\t1.0\t0.99\t1.01\ttrue\t0.001\t0.01\t2026-11-26T12:00:00Z\t2026-11-26T12:10:00Z\n' >> l.tsv
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l l.tsv -m "$FIX/subs.tsv"
	same "$(cols purpose node | grep '^validate' | sort -u)" "validate b"
}

@test "ar-sched next: a node without an A/A runs one first; header only when nothing is left" {
	mkcamp
	printf 'id\tsigned\tverified\n' > empty.tsv
	run --separate-stderr -0 ar-sched next -C camp --gpus 2 -l empty.tsv -m "$FIX/subs.tsv"
	same "$(cols method k gpus node purpose why)" "baseline 1 0 $HOST aa no A/A on this node yet: measure its noise floor first"
	[ "$stderr" = "ar-sched: node $HOST: no A/A yet: it runs one before any other work" ]
	run --separate-stderr -0 ar-sched next -C camp --gpus 2 -l empty.tsv -m "$FIX/subs.tsv" --put
	# Its A/A is queued: nothing more to do there.
	run --separate-stderr -0 ar-sched next -C camp --gpus 2 -l empty.tsv -m "$FIX/subs.tsv"
	[ "$output" = "$HDR" ]
	[ "$stderr" = "ar-sched: node $HOST: no A/A yet: it runs one before any other work (queued)" ]
	# No methods, quiet nodes: nothing to do, exit 0.
	printf 'id\tmethod\n' > none.tsv
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l "$FIX/ledger.tsv" -m none.tsv --noise-max 1
	[ "$output" = "$HDR" ]
}

@test "ar-sched next: ours sizes each measurement in pairs (sched.pairs); --put stores it" {
	mkcamp
	sed 's/\t1.10\t1.05\t1.15\t/\t1.10\t1.03\t1.17\t/' "$FIX/ledger.tsv" > l.tsv
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" \
	    -l l.tsv -m "$FIX/subs.tsv" --noise-max 1
	# A standard measurement is 32 pairs: a probe, k=1 or scale, is a
	# quarter of one to one, a lone best's second look a quarter to a
	# half, and each stops once its interval leaves out the ratio it was
	# made to answer (a new method's probe: the best so far; a scale
	# probe: the best so far and the minimum effect, 0.01 in ratio); the
	# A/A is ar-bench's own.
	same "$(cols method k purpose min_pairs max_pairs stop_at)" \
	    "$C3 1 probe 8 32 1.1
$C1 2 scale 8 32 1.11
$C2 2 scale 8 32 1.11
$C1 1 validate 8 16 0.98"
	# The re-measurement of C1 at k=1 carries the interval of its
	# earlier results (1.03 to 1.17 in the ledger), so that ar-bench
	# asks its question of all of C1's runs; the probes have none.
	same "$(cols method k prior_lo prior_hi)" "$C3 1  
$C1 2  
$C2 2  
$C1 1 1.032091892 1.172376228"
	sed -i '$a sched.pairs = 40' camp/campaign.conf
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" \
	    -l l.tsv -m "$FIX/subs.tsv" --noise-max 1 --put -n 1
	same "$(cols method k min_pairs max_pairs stop_at)" "$C3 1 10 40 1.1"
	f=$(ls camp/queue/new/*)
	same "$(jq -c '[.method, .k, .min_pairs, .max_pairs, .stop_at, .prior_lo]' $f)" \
	    "[\"$C3\",1,10,40,1.1,null]"
	# No size is below the 8 pairs of a first look's interval (the probe
	# of C3 is queued now).
	sed -i 's/^sched.pairs = .*/sched.pairs = 8/' camp/campaign.conf
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" \
	    -l l.tsv -m "$FIX/subs.tsv" --noise-max 1
	same "$(cols k purpose min_pairs max_pairs)" "2 scale 8 8
1 validate 8 8
2 scale 8 8"
	# The other policies measure as ar-bench decides: no sizes.
	sed -i 's/^policy = .*/policy = grid/' camp/campaign.conf
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" \
	    -l l.tsv -m "$FIX/subs.tsv" --noise-max 1
	same "$(cols min_pairs max_pairs stop_at | sort -u)" "  "
	# A bad sched.pairs exits 65 before any output.
	for bad in 7 x 1.5 100001; do
		sed -i "s/^sched.pairs = .*/sched.pairs = $bad/" camp/campaign.conf
		run --separate-stderr -65 ar-sched next -C camp -g "$FIX/two.tsv" \
		    -l l.tsv -m "$FIX/subs.tsv"
		[ "$output" = "" ]
		[[ "$stderr" == "ar-sched: "*"camp/campaign.conf: sched.pairs: \"$bad\" is not a whole number from 8 to 100000" ]]
	done
}

@test "ar-sched next: ours spends at most 70% of the grid's GPU-hours, but probes every new method" {
	mkcamp
	# Three methods at 10 minutes a k=1 run: the grid is 3 x (1 + 2 + 4
	# + 8) x 10 min, 7.5 GPU-hours, 70% of it 5.25. With 16 runs of
	# fast more, the ledger's 20 runs are 3.33 hours: scale probes and
	# re-measurements still fit; with 28, 5.33 hours: only the new
	# method's first probe, which the cap never stops.
	pad() {
		cat "$FIX/ledger.tsv"
		for i in $(seq 1 "$1"); do
			printf 'p%s\tyes\tyes\t%s\t\tdecode-512\tcuda\t1\ta\tkeep\tfalse\t1.10\t1.05\t1.15\ttrue\t\t\t2026-11-26T11:00:00Z\t2026-11-26T11:10:00Z\n' "$i" "$C1"
		done
	}
	pad 16 > l16.tsv
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l l16.tsv -m "$FIX/subs.tsv" --noise-max 1
	same "$(cols method k purpose | grep probe)" "$C3 1 probe"
	[ "$(cols purpose | grep -vc probe)" -ge 1 ]
	pad 28 > l28.tsv
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l l28.tsv -m "$FIX/subs.tsv" --noise-max 1
	same "$(cols method k purpose)" "$C3 1 probe"
	# sched.grid_cap sets the share; 0 is no cap.
	echo 'sched.grid_cap = 0.8' >> camp/campaign.conf
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l l28.tsv -m "$FIX/subs.tsv" --noise-max 1
	[ "$(cols purpose | grep -vc probe)" -ge 1 ]
	sed -i 's/^sched.grid_cap = .*/sched.grid_cap = 0/' camp/campaign.conf
	pad 60 > l60.tsv
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l l60.tsv -m "$FIX/subs.tsv" --noise-max 1
	[ "$(cols purpose | grep -vc probe)" -ge 1 ]
	for bad in -1 x nan 101; do
		sed -i "s/^sched.grid_cap = .*/sched.grid_cap = $bad/" camp/campaign.conf
		run --separate-stderr -65 ar-sched next -C camp -g "$FIX/two.tsv" -l l60.tsv -m "$FIX/subs.tsv"
		[ "$output" = "" ]
		[[ "$stderr" == "ar-sched: "*"camp/campaign.conf: sched.grid_cap: \"$bad\" is not a number from 0 to 100" ]]
	done
	# The cap is ours' alone.
	sed -i 's/^sched.grid_cap = .*/sched.grid_cap = 0.7/; s/^policy = .*/policy = grid/' camp/campaign.conf
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l l28.tsv -m "$FIX/subs.tsv" --noise-max 1
	[ "$(cols purpose | grep -vc probe)" -ge 1 ]
}

@test "ar-sched next: results of one pair are pooled by their intervals, each read at its ratio.conf" {
	mkcamp
	awk -F '\t' -v OFS='\t' 'NR == 1 { print $0, "ratio.conf"; next } { print $0, "0.95" }' \
	    "$FIX/ledger.tsv" > l.tsv
	# A later, wider result of the fast method at k=1 (1.00, from 0.90
	# to 1.10) beside e3 (1.10, from 1.05 to 1.15): pooled, not the
	# latest alone.
	later() {
		cat l.tsv
		printf 'e6\tyes\tyes\t%s\t\tdecode-512\tcuda\t1\ta\tinconclusive\tfalse\t1.00\t0.90\t1.10\ttrue\t\t\t2026-11-26T11:10:00Z\t2026-11-26T11:20:00Z\t%s\n' "$C1" "$1"
	}
	later 0.95 > l95.tsv
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l l95.tsv -m "$FIX/subs.tsv" --noise-max 1
	same "$(cols method k why | grep "^$C1 2 ours")" "$C1 2 ours: the method's curve and the planner's hint predicts 1.082 +- 0.238 at k=2 against 1.082"
	# At 99% the same interval is a narrower error: it weighs more.
	later 0.99 > l99.tsv
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l l99.tsv -m "$FIX/subs.tsv" --noise-max 1
	same "$(cols method k why | grep "^$C1 2 ours")" "$C1 2 ours: the method's curve and the planner's hint predicts 1.073 +- 0.235 at k=2 against 1.073"
}

@test "ar-sched next --best: the pick on the evidence, a noisy lucky draw read through its method's curve" {
	mkcamp
	BHDR="method	workload	k	estimate	lo	hi	n	pick	pick_sd	label"
	run --separate-stderr -0 ar-sched next -C camp -l "$FIX/ledger.tsv" -m "$FIX/subs.tsv" --best
	[ "${lines[0]}" = "$BHDR" ]
	[ "${#lines[@]}" = 2 ]
	same "$(cols method k estimate lo hi n label)" "$C1 1 1.1 1.05109 1.15119 1 fast"
	# One result alone: its curve says nothing more, and the prior on a
	# level is wide (log sd 1): the pick is its estimate, all but.
	same "$(cols pick)" "1.09995"
	# C2 at 1.00, 1.01, 0.99 at k = 1, 2, 4, then one noisy draw of
	# 1.30 (0.90 to 1.70) at k=8: the highest estimate, and still the
	# highest less a whole standard error (1.30 - 0.21 = 1.09, against
	# C1's 1.10 - 0.03). Read through C2's curve it is far less: C1 is
	# the pick.
	row() {
		printf '%s	yes	yes	%s		decode-512	cuda	%s	a	keep	false	%s	%s	%s	true			2026-11-26T12:00:00Z	2026-11-26T12:10:00Z\n' "$@"
	}
	{
		cat "$FIX/ledger.tsv"
		row f1 "$C2" 2 1.01 1.00 1.02
		row f2 "$C2" 4 0.99 0.98 1.00
		row f3 "$C2" 8 1.30 0.90 1.70
	} > noisy.tsv
	run --separate-stderr -0 ar-sched next -C camp -l noisy.tsv -m "$FIX/subs.tsv" --best
	same "$(cols method k estimate label)" "$C1 1 1.1 fast"
	# Made quiet, the same 1.30 at k=8 is the pick, whatever the curve
	# below it.
	sed 's/\t1.30\t0.90\t1.70\t/\t1.30\t1.29\t1.31\t/' noisy.tsv > quiet.tsv
	run --separate-stderr -0 ar-sched next -C camp -l quiet.tsv -m "$FIX/subs.tsv" --best
	same "$(cols method k estimate label)" "$C2 8 1.3 slow"
	# Nothing feasible yet: the header alone, and why on stderr.
	printf 'id\tsigned\tverified\n' > empty.tsv
	run --separate-stderr -0 ar-sched next -C camp -l empty.tsv -m "$FIX/subs.tsv" --best
	[ "$output" = "$BHDR" ]
	[ "$stderr" = "ar-sched: no pick yet: no feasible result of any method" ]
	# --best decides nothing, so it queues nothing.
	run --separate-stderr -64 ar-sched next -C camp -l "$FIX/ledger.tsv" -m "$FIX/subs.tsv" --best --put
	[ ! -e camp/queue/new ] || [ -z "$(ls camp/queue/new)" ]
	# It lists no queue: the queue's part of the summary stays as the
	# last decision left it, even where the summary is written again.
	rm -rf camp
	mkcamp
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -m "$FIX/subs.tsv" --noise-max 1 --put
	[ -n "$(ls camp/queue/new)" ]
	cp camp/run/sched-queue q.before
	# New results in a new segment: the summary's ledger part changes.
	results 5 1
	ar-ledger compact -C camp 2> /dev/null
	run --separate-stderr -0 ar-sched next -C camp -m "$FIX/subs.tsv" --best
	cmp camp/run/sched-queue q.before
}

@test "ar-sched next -l: a large export is folded in parts on several threads: one thread's decision and pick; a bad row named by its own line" {
	mkcamp
	# About 3,000 results (300 KB): of the two methods at every k, and
	# A/As, each pair's intervals and times spread so that the sums,
	# medians and latest rows all matter.
	awk -F '\t' -v OFS='\t' 'NR == 1 { print; next } NR == 2 || NR == 3 { aa[NR] = $0 }
	    NR == 4 { row = $0 }
	    END {
		print aa[2]
		for (i = 0; i < 3000; i++) {
			split(row, f, "\t")
			f[1] = "r" i
			f[4] = i % 3 ? "cafe000000000000000000000000000000000001" : "cafe000000000000000000000000000000000002"
			f[8] = 2 ^ (i % 4)
			y = 0.9 + (i * 37 % 101) / 400
			f[12] = sprintf("%.4f", y); f[13] = sprintf("%.4f", y - 0.01 - (i % 7) / 200); f[14] = sprintf("%.4f", y + 0.02)
			f[19] = sprintf("2026-11-26T1%d:%02d:%02dZ", i % 10, i % 60, (i * 7) % 60)
			if (i % 11 == 0) f[10] = "crash"
			s = f[1]; for (j = 2; j <= 19; j++) s = s OFS f[j]; print s
		}
		print aa[3]
	    }' "$FIX/ledger.tsv" > big.tsv
	[ "$(wc -c < big.tsv)" -gt 200000 ]
	# No cap: the stop_at of what it decides comes from the sums.
	echo "sched.grid_cap = 0" >> camp/campaign.conf
	for t in 1 2 4 16; do
		AR_THREADS=$t run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l big.tsv -m "$FIX/subs.tsv" --noise-max 1 -n 8
		cols method k gpus purpose value why min_pairs max_pairs stop_at > next-$t.txt
		printf '%s\n' "$stderr" > err-$t.txt
		AR_THREADS=$t run --separate-stderr -0 ar-sched next -C camp -l big.tsv -m "$FIX/subs.tsv" --best
		printf '%s\n' "$output" > best-$t.txt
	done
	[ "$(wc -l < next-1.txt)" -ge 1 ]
	[ "$(wc -l < best-1.txt)" = 2 ]
	for t in 2 4 16; do
		cmp next-1.txt next-$t.txt
		cmp err-1.txt err-$t.txt
		cmp best-1.txt best-$t.txt
	done
	# A bad row in the last part, and one with a field too few in the
	# second: refused as on one thread, by the file's own line.
	n=$(wc -l < big.tsv)
	sed "$((n - 5))s/\t4\ta\t/\tfour\ta\t/; $((n - 5))s/\t8\ta\t/\teight\ta\t/; $((n - 5))s/\t2\ta\t/\ttwo\ta\t/; $((n - 5))s/\t1\ta\t/\tone\ta\t/" big.tsv > badk.tsv
	sed "$((n / 2 + 10))s/\tcuda\t/\t/" big.tsv > short.tsv
	for t in 1 4; do
		AR_THREADS=$t run --separate-stderr -65 ar-sched next -C camp -g "$FIX/two.tsv" -l badk.tsv -m "$FIX/subs.tsv"
		[[ "$stderr" =~ ^"ar-sched: badk.tsv: line $((n - 5)): shape.k: \""[a-z]+"\" is not a whole number from 1 to 65536"$ ]]
		AR_THREADS=$t run --separate-stderr -65 ar-sched next -C camp -g "$FIX/two.tsv" -l short.tsv -m "$FIX/subs.tsv"
		[ "$stderr" = "ar-sched: short.tsv: line $((n / 2 + 10)): 18 fields, header has 19" ]
	done
	# From a pipe, one thread reads it all.
	AR_THREADS=4 run --separate-stderr -0 ar-sched next -C camp -l - -m "$FIX/subs.tsv" --best < big.tsv
	[ "$output" = "$(cat best-1.txt)" ]
}

@test "ar-sched next --put: records in queue/, never a GPU twice over repeated calls" {
	mkcamp
	for i in 1 2 3 4 5; do
		run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" \
		    -l "$FIX/ledger.tsv" -m "$FIX/subs.tsv" --put -n 2 --noise-max 1
		printf '%s\n' "$output" | tail -n +2 >> all.tsv
	done
	# Every GPU given at most once, and each row stored as a record.
	[ "$(cut -f5,6 all.tsv | awk -F '\t' '{ n = split($1, g, ","); for (i = 1; i <= n; i++) print $2, g[i] }' | sort | uniq -d)" = "" ]
	[ "$(ls camp/queue/new | wc -l)" -eq "$(wc -l < all.tsv)" ]
	[ "$(wc -l < all.tsv)" -ge 3 ]
	f=$(ls camp/queue/new/* | head -1)
	jq -e '(.k | type) == "number" and (.priority | type) == "number" and .id == .experiment and (.gpus | type) == "string"' "$f"
	# At the same time too: the lock orders them.
	for i in 1 2 3 4; do
		ar-sched next -C camp -g "$FIX/two.tsv" -l "$FIX/ledger.tsv" \
		    -m "$FIX/subs.tsv" --put -n 2 --noise-max 1 2> /dev/null |
		    tail -n +2 > "par$i.tsv" &
	done
	wait
	cat par*.tsv >> all.tsv
	[ "$(cut -f5,6 all.tsv | awk -F '\t' '{ n = split($1, g, ","); for (i = 1; i <= n; i++) print $2, g[i] }' | sort | uniq -d)" = "" ]
	[ "$(ls camp/queue/new | wc -l)" -eq "$(wc -l < all.tsv)" ]
	first=$(head -1 all.tsv | cut -f1)
	ls camp/queue/new | grep -q -- "-$first\$"
}

@test "ar-sched next --put: one at a time; a lock left by a crash is broken" {
	mkcamp
	mkdir -p camp/run
	echo "other 1" > camp/run/sched.lock
	run --separate-stderr -75 ar-sched next -C camp -g "$FIX/two.tsv" -l "$FIX/ledger.tsv" -m "$FIX/subs.tsv" --put
	[ "$stderr" = "ar-sched: camp/run/sched.lock: another ar-sched next --put is running; try again" ]
	[ "$(ls camp/queue/new | wc -l)" -eq 0 ]
	# Without --put nothing is promised: no lock needed.
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l "$FIX/ledger.tsv" -m "$FIX/subs.tsv"
	touch -d '2 minutes ago' camp/run/sched.lock
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l "$FIX/ledger.tsv" -m "$FIX/subs.tsv" --put
	[ "$(ls camp/queue/new | wc -l)" -eq $(( ${#lines[@]} - 1 )) ]
	[ ! -e camp/run/sched.lock ]
	# What stays is the empty guard that lock breakers take turns on,
	# and the summary next keeps (ar-sched(1)).
	[ "$(ls -A camp/run)" = "sched-queue
sched-summary
sched.lock.break" ]
	[ ! -s camp/run/sched.lock.break ]
}

@test "ar-sched next: methods from the submitted/ spool; pending ones counted" {
	mkcamp
	ar-queue init camp/submitted
	printf '{"id":"m-fast","method":"%s","label":"fast","hint":"scale","pfrac":0.9}\n' "$C1" |
	    ar-queue put -f jsonl camp/submitted > /dev/null
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l "$FIX/ledger.tsv" --noise-max 1
	[ "${#lines[@]}" -ge 2 ]
	same "$(cols method | sort -u)" "$C1"
	same "$(cols label | sort -u)" "fast"
}

@test "ar-sched next: a method submitted twice is measured once; -w sets the workload" {
	mkcamp
	{ cat "$FIX/subs.tsv"; tail -n +4 "$FIX/subs.tsv"; } > twice.tsv
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l "$FIX/ledger.tsv" -m twice.tsv --noise-max 1
	same "$(cols method purpose | grep -c "^$C3 ")" 1
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l "$FIX/ledger.tsv" -m twice.tsv --noise-max 1 -w other
	same "$(cols workload | sort -u)" "other"
	# Nothing is known on that workload: every method is new there.
	same "$(cols purpose | sort -u)" "probe"
}

@test "ar-sched next: bad inputs" {
	mkcamp
	run --separate-stderr -66 ar-sched next -C camp -g "$FIX/two.tsv" -l nope.tsv -m "$FIX/subs.tsv"
	[ "$stderr" = "ar-sched: nope.tsv: No such file or directory" ]
	run --separate-stderr -66 ar-sched next -C camp -g "$FIX/two.tsv" -l "$FIX/ledger.tsv" -m nope.tsv
	[ "$stderr" = "ar-sched: nope.tsv: No such file or directory" ]
	printf 'id\tlabel\nx\ty\n' > nometh.tsv
	run --separate-stderr -65 ar-sched next -C camp -g "$FIX/two.tsv" -l "$FIX/ledger.tsv" -m nometh.tsv
	[ "$stderr" = "ar-sched: nometh.tsv: no column method" ]
	printf 'method\tpfrac\nabc\t2\n' > badpf.tsv
	run --separate-stderr -65 ar-sched next -C camp -g "$FIX/two.tsv" -l "$FIX/ledger.tsv" -m badpf.tsv
	[ "$stderr" = 'ar-sched: badpf.tsv: line 2: pfrac: "2" is not a number from 0 to 1' ]
	sed '4s/\t1\ta\t/\tone\ta\t/' "$FIX/ledger.tsv" > badk.tsv
	run --separate-stderr -65 ar-sched next -C camp -g "$FIX/two.tsv" -l badk.tsv -m "$FIX/subs.tsv"
	[ "$stderr" = 'ar-sched: badk.tsv: line 4: shape.k: "one" is not a whole number from 1 to 65536' ]
	printf 'signed\tverified\nyes\tyes\n' > nocols.tsv
	run --separate-stderr -65 ar-sched next -C camp -g "$FIX/two.tsv" -l nocols.tsv -m "$FIX/subs.tsv"
	[ "$stderr" = "ar-sched: nocols.tsv: no column workload" ]
	run --separate-stderr -65 ar-sched next -C camp -g "$FIX/bad-asym.tsv" -l "$FIX/ledger.tsv" -m "$FIX/subs.tsv"
	[ "${stderr##*$'\n'}" = "ar-sched: $FIX/bad-asym.tsv: line 2: nvlink: gpu 0 reaches 1, but 1 does not list 0" ]
	echo "sched.noise_max = loud" >> camp/campaign.conf
	run --separate-stderr -65 ar-sched next -C camp -g "$FIX/two.tsv" -l "$FIX/ledger.tsv" -m "$FIX/subs.tsv"
	[ "$stderr" = "ar-sched: camp/campaign.conf: sched.noise_max: \"loud\" is not a number of 0 or more" ]
	run -66 ar-sched next -C nocamp -g "$FIX/two.tsv" -l "$FIX/ledger.tsv" -m "$FIX/subs.tsv"
}

@test "ar-sched next: the ledger or the submissions from standard input" {
	mkcamp
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l - -m "$FIX/subs.tsv" < "$FIX/ledger.tsv"
	a=$(cols method k gpus node purpose)
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l "$FIX/ledger.tsv" -m - < "$FIX/subs.tsv"
	same "$(cols method k gpus node purpose)" "$a"
	[ "$(printf '%s\n' "$a" | wc -l)" -ge 3 ]
}

@test "ar-sched next: reads the ledger through ar-ledger export -V without -l" {
	mkcamp
	run --separate-stderr -0 ar-sched next -C camp --gpus 1 -m "$FIX/subs.tsv"
	same "$(cols method purpose)" "baseline aa"
}

# ---- the summary (run/sched-summary) ----

# results N SEED: appends N signed results (fixtures/sched/results.awk)
# to the campaign camp: a segment when N > 16, else loose results.
results() {
	awk -v n="$1" -v s="$2" -f "$FIX/results.awk" | ar-sign-test -C camp > "r$2.jsonl"
	ar-ledger append -C camp "r$2.jsonl" 2> /dev/null
}

# put_scale N: N scale probes of C3 at k=8 and N of C1 at k=2 queued
# in one batch.
put_scale() {
	awk -v n="$1" -v c="$C3" -v d="$C1" 'BEGIN { print "method\tworkload\tk\tpurpose"; for (i = 0; i < n; i++) print c "\tdecode-512\t8\tscale"; for (i = 0; i < n; i++) print d "\tdecode-512\t2\tscale" }' > q.tsv
	ar-queue put camp/queue q.tsv > /dev/null
}

# two_segments: a campaign without a grid cap whose ledger holds two
# segments (40 and 30 results) and 5 loose results.
two_segments() {
	mkcamp
	echo 'sched.grid_cap = 0' >> camp/campaign.conf
	results 40 1
	results 30 2
	results 5 3
}

# exports_after_2 WHOLE: ar-sched next on camp under strace (which the
# caller has) decides WHOLE, its stderr in err.txt, and the export it
# runs gives only the rows after segment 2.
exports_after_2() {
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -f -s 256 -e trace=execve -o trace.txt ar-sched next -C camp -g "$FIX/two.tsv" -m "$FIX/subs.tsv" > out.tsv 2> err.txt
	same "$(cut -f 2- out.tsv)" "$1"
	grep -q '"export", "-C", "camp", "-V", "-f", "tsv", "-A", "2"' trace.txt
}

# queue_70_c3: one ar-queue put of 70 measurements of C3 at k = 8 (one
# batch, with its manifest).
queue_70_c3() {
	awk -v c="$C3" 'BEGIN { print "method\tworkload\tk\tpurpose"; for (i = 0; i < 70; i++) print c "\tdecode-512\t8\tscale" }' > q.tsv
	ar-queue put camp/queue q.tsv > /dev/null
}

# decide: ar-sched next on camp, its output but the fresh experiment ids
# in $out, its stderr in $err.
decide() {
	run --separate-stderr ar-sched next -C camp -g "$FIX/two.tsv" -m "$FIX/subs.tsv"
	[ "$status" -eq 0 ]
	out=$(printf '%s\n' "$output" | cut -f 2-)
	err=$stderr
}

# same_from_rows: a decision as the campaign is, then one from the rows
# alone (no summary, no folds: its sealed segments read from their files,
# the rest exported), then one with the segments' seals put aside (every
# row exported): the same; the export's folds are left behind.
same_from_rows() {
	decide
	local folded=$out s
	rm -r camp/run/sched-summary camp/run/sched-queue camp/run/sched-fold
	decide
	same "$out" "$folded"
	# Again with the segments' seals put aside: every segment's rows
	# through the export, none folded from its file.
	for s in camp/ledger/seg/*.seal; do
		[ ! -e "$s" ] || mv "$s" "$s.kept"
	done
	rm -r camp/run/sched-summary camp/run/sched-queue camp/run/sched-fold
	decide
	same "$out" "$folded"
	for s in camp/ledger/seg/*.seal.kept; do
		[ ! -e "$s" ] || mv -f "$s" "${s%.kept}"
	done
}

@test "ar-sched next: the summary gives the decision a whole read gives, after rows are appended, compacted" {
	need_jq
	mkcamp
	# No cap: ours would have spent its share of the grid on these 40
	# results, and an empty decision compares with anything.
	echo 'sched.grid_cap = 0' >> camp/campaign.conf
	results 40 1
	decide
	[ -s camp/run/sched-summary ]
	same "$err" "ar-sched: the baseline's parallel fraction: 0.436, from its runs at k = 1 and 2, 4 (workload decode-512)"
	[ "$(printf '%s\n' "$out" | wc -l)" -ge 2 ]
	first=$out
	decide
	same "$out" "$first"
	# A new segment and loose results: folded from the summary on...
	results 30 2
	results 5 3
	decide
	kept=$out
	[ "$kept" != "$first" ]
	# ... and read whole without it: the same decision, to the digit.
	rm camp/run/sched-summary
	decide
	same "$out" "$kept"
	decide
	same "$out" "$kept"
	# Compacted, the loose results are a segment of their own.
	ar-ledger compact -C camp 2> /dev/null
	decide
	same "$out" "$kept"
	rm camp/run/sched-summary
	decide
	same "$out" "$kept"
	same "$(ls camp/ledger/seg | grep -v '\.seal$')" "00000001.idx
00000001.tsv
00000002.idx
00000002.tsv
00000003.idx
00000003.tsv"
}

# The summary keeps the lists of durations and baseline values only
# around their medians (AR_SCHED_KEEP values, here 4 instead of 8192):
# a median that leaves them has the summary rebuilt, and the decision is
# always that of a whole read.
@test "ar-sched next: a summary keeps lists around their medians; a median that leaves them rebuilds it" {
	mkcamp
	echo 'sched.grid_cap = 0' >> camp/campaign.conf
	export AR_SCHED_KEEP=4
	results 40 1
	decide
	[[ "$err" != *"rebuilt"* ]]
	# One row more: the medians stay in the window.
	results 1 2
	decide
	one=$out
	[[ "$err" != *"rebuilt"* ]]
	rm camp/run/sched-summary
	decide
	same "$out" "$one"
	# Thirty more, each three hours longer than any before: the
	# median of durations leaves its window of 4.
	awk -v n=30 -v s=3 -f "$FIX/results.awk" |
	    sed 's/"finished":"2026-11-26T10:/"finished":"2026-11-26T13:/' |
	    ar-sign-test -C camp > r3.jsonl
	ar-ledger append -C camp r3.jsonl 2> /dev/null
	decide
	more=$out
	[[ "$err" == *"camp/run/sched-summary: a median left the values it keeps; it is rebuilt from the ledger"* ]]
	decide
	same "$out" "$more"
	[[ "$err" != *"rebuilt"* ]]
	rm camp/run/sched-summary
	decide
	same "$out" "$more"
	unset AR_SCHED_KEEP
}

@test "ar-sched next: a corrupt, truncated or foreign summary is rebuilt, not trusted" {
	mkcamp
	results 40 1
	decide
	whole=$out
	S=camp/run/sched-summary
	why="it is rebuilt from the ledger and the queue"
	# Truncated.
	head -c 200 "$S" > s.tmp && mv s.tmp "$S"
	decide
	same "$out" "$whole"
	[[ "$err" == "ar-sched: $S: its checksum does not match (a torn or altered file); $why"* ]]
	# Rebuilt: the next run trusts it again and says nothing of it.
	decide
	same "$out" "$whole"
	[[ "$err" != *"$S"* ]]
	# One byte changed in the middle.
	n=$(( $(stat -c %s "$S") / 2 ))
	printf '\377' | dd of="$S" bs=1 seek="$n" conv=notrunc 2> /dev/null
	decide
	same "$out" "$whole"
	[[ "$err" == "ar-sched: $S: its checksum does not match (a torn or altered file); $why"* ]]
	# Not a summary at all; empty.
	echo hello > "$S"
	decide
	same "$out" "$whole"
	[[ "$err" == "ar-sched: $S: not a summary of this version; $why"* ]]
	: > "$S"
	decide
	same "$out" "$whole"
	[[ "$err" == "ar-sched: $S: not a summary of this version; $why"* ]]
	# Another campaign's.
	mv camp other
	mkcamp
	results 40 5
	decide
	mine=$out
	cp other/run/sched-summary "$S"
	decide
	same "$out" "$mine"
	[[ "$err" == "ar-sched: $S: made for another campaign; $why"* ]]
	# The queue part's own file: truncated, changed, gone, another
	# run's (its checksum is not the one the summary names).
	Q=camp/run/sched-queue
	why="the queue's records are read again"
	decide
	[[ "$err" != *"$S"* ]]
	cp "$Q" q.kept
	head -c 100 q.kept > "$Q"
	decide
	same "$out" "$mine"
	[[ "$err" == "ar-sched: $S: its queue file sched-queue does not match (a torn, altered or other run's file); $why"* ]]
	cmp q.kept "$Q"
	n=$(( $(stat -c %s "$Q") / 2 ))
	printf '\377' | dd of="$Q" bs=1 seek="$n" conv=notrunc 2> /dev/null
	decide
	same "$out" "$mine"
	[[ "$err" == "ar-sched: $S: its queue file sched-queue does not match (a torn, altered or other run's file); $why"* ]]
	rm "$Q"
	decide
	same "$out" "$mine"
	[[ "$err" == "ar-sched: $S: its queue file sched-queue: No such file or directory; $why"* ]]
	echo hello > "$Q"
	decide
	[[ "$err" == "ar-sched: $S: its queue file sched-queue is not of this version; $why"* ]]
	cp other/run/sched-queue "$Q"
	decide
	same "$out" "$mine"
	[[ "$err" == "ar-sched: $S: its queue file sched-queue does not match (a torn, altered or other run's file); $why"* ]]
	decide
	[[ "$err" != *"$S"* ]]
}

# ---- the loose results' list (run/sched-loose) ----

# aged: the loose results' files made older than a decision's two
# seconds, as results stored a while ago are.
aged() {
	touch -d '-1 min' camp/ledger/results/*.json
}

# decide_traced: decide under strace (which the caller has): its trace,
# processes and files opened, in trace.txt.
decide_traced() {
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -f -s 256 -e trace=execve,open,openat -o trace.txt ar-sched next -C camp -g "$FIX/two.tsv" -m "$FIX/subs.tsv" > out.tsv 2> err.txt
	out=$(cut -f 2- out.tsv)
	err=$(cat err.txt)
}

@test "ar-sched next: loose results folded before come from run/sched-loose, unread; the decision is a whole read's" {
	two_segments
	aged
	LS=camp/run/sched-loose
	decide
	first=$out
	[ -s "$LS" ]
	old=$(ls camp/ledger/results | sed 's/\.json$//')
	[ "$(printf '%s\n' "$old" | wc -l)" -eq 7 ]
	for id in $old; do grep -aq "$id" "$LS"; done
	# The next decision gives the list to the export, which opens none
	# of them; the list is not written again.
	cp -p "$LS" list.kept
	decide_traced
	same "$out" "$first"
	grep -q '"-K", "-"' trace.txt
	not grep -q 'results/[^"]*\.json"' trace.txt
	cmp list.kept "$LS"
	[ "$(stat -c %Y "$LS")" = "$(stat -c %Y list.kept)" ]
	# From the rows alone (no list, summary or folds): the same.
	rm -r "$LS" camp/run/sched-summary camp/run/sched-fold
	decide
	same "$out" "$first"
	# Results not yet two seconds old (here: dated ahead) are read at
	# each decision, and not listed.
	results 4 4
	new=$(ls camp/ledger/results | sed 's/\.json$//' | grep -vxF "$old")
	[ "$(printf '%s\n' "$new" | wc -l)" -eq 6 ]
	touch -d '+1 hour' camp/ledger/results/*.json
	aged_one=$(printf '%s\n' "$old" | head -n 1)
	touch -d '-1 min' camp/ledger/results/$aged_one.json
	decide
	second=$out
	[ "$second" != "$first" ]
	for id in $new; do not grep -aq "$id" "$LS"; done
	grep -aq "$aged_one" "$LS"
	decide_traced
	same "$out" "$second"
	for id in $new; do grep -q "results/$id\.json\"" trace.txt; done
	not grep -q "results/$aged_one\.json\"" trace.txt
	rm -r "$LS" camp/run/sched-summary camp/run/sched-fold
	decide
	same "$out" "$second"
	# Compacted, they are a segment's rows, and the list is gone.
	ar-ledger compact -C camp 2> /dev/null
	decide
	same "$out" "$second"
	[ ! -e "$LS" ]
}

@test "ar-sched next: a listed loose result that a compaction put in a segment, its file left, is counted once" {
	command -v strace >/dev/null || skip "strace is needed (.ci/run installs it)"
	two_segments
	aged
	decide
	whole=$out
	[ -s camp/run/sched-loose ]
	# A compaction that dies before it removes the files (here each
	# unlink fails): the results are in a new segment, and their files
	# are still there, unchanged.
	ls camp/ledger/results > before.txt
	cp -p camp/ledger/loose.seal seal.kept
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -f -o /dev/null -e trace=unlink,unlinkat -e inject=unlink,unlinkat:error=EIO ar-ledger compact -C camp 2> /dev/null || true
	[ -f camp/ledger/seg/00000003.tsv ]
	ls camp/ledger/results | cmp - before.txt
	# Its fold, as an append's ar-sched fold leaves it: the decision
	# takes segment 3 from it, past the segments the list looked in,
	# and reads the loose results again, which segment 3 holds. (The
	# fold's export drops them from the loose seal; the seal of before,
	# put back, still lists them: the list alone must not be trusted.)
	ar-sched fold -C camp 2> /dev/null
	cp -p seal.kept camp/ledger/loose.seal
	decide_traced
	same "$out" "$whole"
	not grep -q '"-K"' trace.txt
	# None was folded as a loose result (each only as segment 3's row):
	# no list is left.
	[ ! -e camp/run/sched-loose ]
	decide
	same "$out" "$whole"
	same_from_rows
}

@test "ar-sched next: AR_SCHED_LOOSE_MAX lists the first loose results in id order; the rest are read each time" {
	two_segments
	aged
	decide
	whole=$out
	rm camp/run/sched-loose
	mapfile -t ids < <(ls camp/ledger/results | sed 's/\.json$//' | LC_ALL=C sort)
	[ "${#ids[@]}" -eq 7 ]
	export AR_SCHED_LOOSE_MAX=3
	decide
	same "$out" "$whole"
	for i in 0 1 2; do grep -aq "${ids[$i]}" camp/run/sched-loose; done
	for i in 3 4 5 6; do not grep -aq "${ids[$i]}" camp/run/sched-loose; done
	decide_traced
	same "$out" "$whole"
	for i in 0 1 2; do not grep -q "results/${ids[$i]}\.json\"" trace.txt; done
	for i in 3 4 5 6; do grep -q "results/${ids[$i]}\.json\"" trace.txt; done
	# None: no list at all; a value out of range is the default.
	AR_SCHED_LOOSE_MAX=0 decide
	same "$out" "$whole"
	[ ! -e camp/run/sched-loose ]
	AR_SCHED_LOOSE_MAX=x decide
	for i in 0 1 2 3 4 5 6; do grep -aq "${ids[$i]}" camp/run/sched-loose; done
}

@test "ar-sched next: a loose result changed after it was listed is read again and checked" {
	two_segments
	aged
	decide
	[ -s camp/run/sched-loose ]
	f=$(grep -l '"verdict":"keep"' camp/ledger/results/*.json | head -n 1)
	touch -r "$f" when
	was=$(stat -c '%i %s' "$f")
	# Edited in place to the same size, its mtime put back: the ctime
	# tells it from the file listed.
	off=$(grep -bo '"verdict":"keep"' "$f" | cut -d: -f1)
	chmod u+w "$f"
	printf '"verdict":"kept"' | dd of="$f" bs=1 seek="$off" conv=notrunc 2> /dev/null
	chmod a-w "$f"
	touch -r when "$f"
	[ "$(stat -c '%i %s' "$f")" = "$was" ]
	run --separate-stderr ar-sched next -C camp -g "$FIX/two.tsv" -m "$FIX/subs.tsv"
	listed_status=$status listed_out=$output listed_err=$stderr
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"ar-ledger: 1 problem found; bad rows left out (ar-ledger verify names them)"* ]]
	# As a decision without the list ends.
	rm -f camp/run/sched-loose camp/run/sched-summary
	run --separate-stderr ar-sched next -C camp -g "$FIX/two.tsv" -m "$FIX/subs.tsv"
	[ "$status" -eq "$listed_status" ]
	same "$output" "$listed_out"
	same "$stderr" "$listed_err"
}

@test "ar-sched next: a corrupt, truncated or foreign run/sched-loose is not trusted" {
	two_segments
	aged
	decide
	whole=$out
	LS=camp/run/sched-loose
	why="its loose results are read again"
	cp "$LS" list.kept
	head -c 200 list.kept > "$LS"
	decide
	same "$out" "$whole"
	[[ "$err" == *"ar-sched: $LS: its checksum does not match (a torn or altered file); $why"* ]]
	# Written again whole: the next decision trusts it, silently.
	cmp list.kept "$LS"
	decide
	[[ "$err" != *"$LS"* ]]
	n=$(( $(stat -c %s "$LS") / 2 ))
	printf '\377' | dd of="$LS" bs=1 seek="$n" conv=notrunc 2> /dev/null
	decide
	same "$out" "$whole"
	[[ "$err" == *"ar-sched: $LS: its checksum does not match (a torn or altered file); $why"* ]]
	echo hello > "$LS"
	decide
	same "$out" "$whole"
	[[ "$err" == *"ar-sched: $LS: not a list of this version; $why"* ]]
	: > "$LS"
	decide
	[[ "$err" == *"ar-sched: $LS: not a list of this version; $why"* ]]
	rm "$LS"
	mkdir "$LS"
	decide
	same "$out" "$whole"
	[[ "$err" == *"ar-sched: $LS: Is a directory; $why"* ]]
	rmdir "$LS"
	decide
	[ -s "$LS" ]
	# Another campaign's list.
	mv camp other
	two_segments
	results 2 9
	aged
	decide
	mine=$out
	cp other/run/sched-loose "$LS"
	decide
	same "$out" "$mine"
	[[ "$err" == *"ar-sched: $LS: made for another campaign; $why"* ]]
}

@test "ar-sched next: a settled segment is only stat'ed, and a change to it is still seen" {
	command -v strace >/dev/null || skip "strace is needed (.ci/run installs it)"
	mkcamp
	results 40 1
	results 20 2
	decide
	whole=$out
	# Each segment is opened and its last bytes hashed while its ctime
	# is new. Three seconds on it is settled: the next decision says
	# so in the summary, and the ones after it only stat the segment.
	# (Not a race: after the sleep the ctimes are old whatever the load.)
	sleep 3
	decide
	same "$out" "$whole"
	ASAN_OPTIONS=detect_leaks=0 strace -e trace=openat,stat,newfstatat,statx -o trace ar-sched next -C camp -g "$FIX/two.tsv" -m "$FIX/subs.tsv" > o 2> e
	[ "$(cut -f 2- o)" = "$whole" ]
	not grep -q 'seg/0000000[12]\.tsv", O_RDONLY' trace
	grep -q 'seg/00000001\.tsv"' trace
	grep -q 'seg/00000002\.tsv"' trace
	# Altered in place, its mtime put back: its ctime is new, and the
	# stat tells.
	f=camp/ledger/seg/00000002.tsv
	touch -r "$f" ref
	chmod u+w "$f"
	sed -i 's/"verdict":"keep"/"verdict":"kept"/' "$f"
	touch -r ref "$f"
	run --separate-stderr -69 ar-sched next -C camp -g "$FIX/two.tsv" -m "$FIX/subs.tsv"
	[[ "$stderr" == *"ar-sched: camp/run/sched-summary: ledger segment 00000002 changed since it was summarized; it is rebuilt from the ledger (the queue records it knows are kept)"* ]]
	same "$output" ""
}

@test "ar-sched next: a ledger rewritten or altered under the summary is detected" {
	mkcamp
	results 40 1
	results 20 2
	decide
	# The ledger written again with other rows: its segments are not
	# the ones summarized.
	rm -rf camp/ledger
	mkdir -p camp/ledger/results camp/ledger/seg
	results 40 7
	results 20 8
	decide
	[[ "$err" == "ar-sched: camp/run/sched-summary: ledger segment 00000001 changed since it was summarized; it is rebuilt from the ledger (the queue records it knows are kept)"* ]]
	rewritten=$out
	rm camp/run/sched-summary
	decide
	same "$out" "$rewritten"
	# A segment gone.
	rm camp/ledger/seg/00000002.*
	decide
	[[ "$err" == "ar-sched: camp/run/sched-summary: ledger segment 00000002 is gone or renumbered since it was summarized; "* ]]
	# A segment altered in place, its times put back: the summary is not
	# trusted, and the rows read again fail their checks.
	f=camp/ledger/seg/00000001.tsv
	touch -r "$f" ref
	chmod u+w "$f"
	sed -i 's/"verdict":"keep"/"verdict":"kept"/' "$f"
	touch -r ref "$f"
	run --separate-stderr -69 ar-sched next -C camp -g "$FIX/two.tsv" -m "$FIX/subs.tsv"
	[[ "$stderr" == *"ar-sched: camp/run/sched-summary: ledger segment 00000001 changed since it was summarized; it is rebuilt from the ledger (the queue records it knows are kept)"* ]]
	[[ "$stderr" == *"ar-sched: ar-ledger export -C camp -V failed; give its export with -l" ]]
	same "$output" ""
}

@test "ar-sched next: queue records are read once; the summary knows the rest by name" {
	mkcamp
	# No cap: ours would have spent its share of the grid on these 40
	# results, and an empty decision compares with anything.
	echo 'sched.grid_cap = 0' >> camp/campaign.conf
	results 40 1
	decide
	none=$out
	# 70 measurements of C3 at k = 8 pending: it is not picked there.
	queue_70_c3
	decide
	queued=$out
	[ "$queued" != "$none" ]
	[[ "$queued" != *"$C3	decode-512	8"* ]]
	# A record the summary knows by its name is not read again. (A
	# new file put in its place, as any writer makes one: the batch's
	# manifest names the record's old inode, so a whole read reads it.)
	f=$(ls camp/queue/new/* | head -1)
	echo 'not JSON' > new.rec
	mv new.rec "$f"
	decide
	same "$out" "$queued"
	[[ "$err" != *"left out"* ]]
	# Read whole again, it is read, and left out.
	rm camp/run/sched-summary
	decide
	same "$out" "$queued"
	[[ "$err" == *"$f: invalid JSON"*"; left out"* ]]
}

# Each segment's rows, once folded, are kept as the segment's fold
# (run/sched-fold/NNNNNNNN): a summary built again reads the folds, not
# the rows, and comes out the same, byte for byte.
@test "ar-sched next: the segments' folds rebuild the summary as their rows would" {
	# No segment settles during the test: the summaries compare byte
	# for byte whatever the machine's load.
	export AR_SCHED_SETTLE=1000000
	two_segments
	decide
	whole=$out
	same "$(ls camp/run/sched-fold)" "00000001
00000002"
	cp camp/run/sched-summary kept
	cp camp/run/sched-fold/00000001 f1
	cp camp/run/sched-fold/00000002 f2
	# From the folds: the same decision and summary; only the rows
	# after the folded segments are exported.
	rm camp/run/sched-summary camp/run/sched-queue
	if command -v strace > /dev/null; then
		exports_after_2 "$whole"
		rm camp/run/sched-summary camp/run/sched-queue
	fi
	decide
	same "$out" "$whole"
	[[ "$err" != *"sched-fold"* ]]
	cmp kept camp/run/sched-summary
	# From the rows, neither kept: the same, and the same folds.
	rm -r camp/run/sched-summary camp/run/sched-queue camp/run/sched-fold
	decide
	same "$out" "$whole"
	cmp kept camp/run/sched-summary
	cmp f1 camp/run/sched-fold/00000001
	cmp f2 camp/run/sched-fold/00000002
	# Compacted, the loose results are a segment, folded in turn.
	ar-ledger compact -C camp 2> /dev/null
	decide
	same "$out" "$whole"
	[ -s camp/run/sched-fold/00000003 ]
	rm camp/run/sched-summary
	decide
	same "$out" "$whole"
}

@test "ar-sched next: a sealed segment without its fold is folded from its file, as its export would be; an unsealed or changed one is exported" {
	export AR_SCHED_SETTLE=1000000
	two_segments
	decide
	whole=$out
	cp camp/run/sched-summary kept
	cp camp/run/sched-fold/00000001 f1
	cp camp/run/sched-fold/00000002 f2
	# The folds gone, the two sealed segments are read from their
	# files: the export is asked only for the rows after them, and
	# the folds and the summary are the export's, byte for byte.
	exports_from 2
	[[ "$err" != *"sched-fold"* ]]
	cmp kept camp/run/sched-summary
	cmp f1 camp/run/sched-fold/00000001
	cmp f2 camp/run/sched-fold/00000002
	# Touched, segment 2's seal no longer signs its stat: its bytes are
	# hashed, found as sealed, and folded from its file all the same.
	touch camp/ledger/seg/00000002.tsv
	exports_from 2
	cmp f1 camp/run/sched-fold/00000001
	# Its seal altered by a byte, or gone: it and what follows are
	# exported, each row checked; segment 1's seal gone, all of them.
	sed -i 's/^rows /rowz /' camp/ledger/seg/00000002.seal
	exports_from 1
	rm camp/ledger/seg/00000002.seal
	exports_from 1
	mv camp/ledger/seg/00000001.seal s1
	exports_from 0
	cmp f1 camp/run/sched-fold/00000001
}

# exports_from N: from no summary or folds, ar-sched next on camp decides
# $whole, and (under strace, where there is one) its export gives only
# the rows after segment N.
exports_from() {
	rm -rf camp/run/sched-summary camp/run/sched-queue camp/run/sched-fold
	if command -v strace > /dev/null; then
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		    strace -f -s 256 -e trace=execve -o trace.txt ar-sched next -C camp -g "$FIX/two.tsv" -m "$FIX/subs.tsv" > out.tsv 2> err.txt
		same "$(cut -f 2- out.tsv)" "$whole"
		grep -q '"export", "-C", "camp", "-V", "-f", "tsv", "-A", "'"$1"'"' trace.txt
		rm -r camp/run/sched-summary camp/run/sched-queue camp/run/sched-fold
	fi
	decide
	same "$out" "$whole"
}

# The folds' prefix (run/sched-fold/prefix): the first segments' folds
# merged, so that a summary built again reads one file and the folds
# after it (AR_SCHED_PREFIX folds or more after it write it again).
@test "ar-sched next: a summary built again reads the folds' prefix; a bad or stale one is said and not used" {
	command -v strace >/dev/null || skip "strace is needed (.ci/run installs it)"
	export AR_SCHED_PREFIX=2
	two_segments
	ar-ledger compact -C camp 2> /dev/null
	decide
	whole=$out
	# The append of segment 2 wrote the prefix (two folds); the
	# compaction's fold, one after it, did not.
	[ -s camp/run/sched-fold/prefix ]
	rm camp/run/sched-summary camp/run/sched-queue
	decide_traced
	same "$out" "$whole"
	[ -z "$err" ] || [[ "$err" != *"sched-fold"* ]]
	grep -q 'sched-fold/prefix"' trace.txt
	not grep -q 'sched-fold/0000000[12]"' trace.txt
	grep -q 'sched-fold/00000003"' trace.txt
	# As from the rows alone (which leaves folds, no prefix); built
	# again from the three folds, the decision writes the prefix.
	same_from_rows
	P=camp/run/sched-fold/prefix
	[ ! -e "$P" ]
	rm camp/run/sched-summary camp/run/sched-queue
	decide
	same "$out" "$whole"
	[ -s "$P" ]
	# Torn or damaged: said, the folds read, and written again.
	n=$(( $(stat -c %s "$P") / 2 ))
	printf '\377' | dd of="$P" bs=1 seek="$n" conv=notrunc 2> /dev/null
	rm camp/run/sched-summary camp/run/sched-queue
	decide
	same "$out" "$whole"
	[[ "$err" == *"ar-sched: $P: its checksum does not match (a torn or altered file); the folds are read instead"* ]]
	rm camp/run/sched-summary camp/run/sched-queue
	decide
	same "$out" "$whole"
	[[ "$err" != *"$P"* ]]
	# A segment touched: its ctime is new, but its bytes hash as they
	# did: taken, and written again.
	touch camp/ledger/seg/00000002.tsv
	cp "$P" p.before
	rm camp/run/sched-summary camp/run/sched-queue
	decide
	same "$out" "$whole"
	[[ "$err" != *"$P"* ]]
	not cmp -s p.before "$P"
	# Another campaign's.
	mv camp other
	two_segments
	ar-ledger compact -C camp 2> /dev/null
	decide
	mine=$out
	cp other/run/sched-fold/prefix "$P"
	rm camp/run/sched-summary camp/run/sched-queue
	decide
	same "$out" "$mine"
	[[ "$err" == *"ar-sched: $P: made for another campaign; the folds are read instead"* ]]
	# Copied with cp -a (new inodes and ctimes): taken once each of its
	# segments hashes as it did, and written again with their
	# identities now; no fold is read.
	mv camp orig
	cp -a orig camp
	rm camp/run/sched-summary camp/run/sched-queue
	cp "$P" p.before
	decide_traced
	same "$out" "$mine"
	[[ "$err" != *"$P"* ]]
	not grep -q 'sched-fold/0000000[123]"' trace.txt
	not cmp -s p.before "$P"
	rm camp/run/sched-summary camp/run/sched-queue
	decide
	same "$out" "$mine"
	[[ "$err" != *"$P"* ]]
	# Altered in place, its times put back: not the bytes folded. The
	# prefix is not taken, nor the segment's fold, and its rows fail
	# their checks.
	f=camp/ledger/seg/00000002.tsv
	touch -r "$f" ref
	chmod u+w "$f"
	sed -i 's/"verdict":"keep"/"verdict":"kept"/' "$f"
	touch -r ref "$f"
	rm camp/run/sched-summary camp/run/sched-queue
	run --separate-stderr -69 ar-sched next -C camp -g "$FIX/two.tsv" -m "$FIX/subs.tsv"
	[[ "$stderr" == *"ar-sched: $P: ledger segment 00000002 changed since it was folded; the folds are read instead"* ]]
	[[ "$stderr" == *"ar-sched: ar-ledger export -C camp -V failed; give its export with -l" ]]
}

@test "ar-sched fold: the folds' prefix is written once AR_SCHED_PREFIX folds follow it" {
	export AR_SCHED_PREFIX=3
	mkcamp
	results 40 1
	results 30 2
	[ ! -e camp/run/sched-fold/prefix ]
	results 30 3
	# Three folds: the append's ar-sched fold merged them.
	[ -s camp/run/sched-fold/prefix ]
	cp camp/run/sched-fold/prefix p3
	results 30 4
	results 30 5
	cmp p3 camp/run/sched-fold/prefix
	results 30 6
	not cmp -s p3 camp/run/sched-fold/prefix
	decide
	whole=$out
	same_from_rows
	same "$out" "$whole"
}

# A campaign copied (cp -a: new inodes and ctimes) keeps its folds: a
# fold is taken when its segment's bytes hash as they did when folded
# (the seal's hash, when ar-ledger has sealed the copy again). A segment
# altered under the copy, its size and last bytes kept, is read again.
@test "ar-sched next: a copied campaign's folds are taken when its segments' bytes hash as folded; an altered segment is read again" {
	two_segments
	decide
	whole=$out
	mv camp orig
	cp -a orig camp
	[ "$(stat -c %i orig/ledger/seg/00000001.tsv)" != "$(stat -c %i camp/ledger/seg/00000001.tsv)" ]
	# Only the rows after the folded segments are exported.
	if command -v strace > /dev/null; then
		exports_after_2 "$whole"
		not grep -q "rows are read instead" err.txt
		rm -r camp
		cp -a orig camp
	fi
	decide
	same "$out" "$whole"
	[[ "$err" != *"rows are read instead"* ]]
	# The folds now name the copy's segments.
	rm camp/run/sched-summary
	decide
	same "$out" "$whole"
	[ -z "$err" ] || [[ "$err" != *"sched-fold"* ]]
	# The copy verified, which seals its segments again: the same.
	rm -r camp
	cp -a orig camp
	ar-ledger verify -C camp > /dev/null
	decide
	same "$out" "$whole"
	[[ "$err" != *"rows are read instead"* ]]
	# A row altered in the copy's first segment, its size and last 4096
	# bytes kept: the fold is not taken, the rows fail their checks.
	rm -r camp
	cp -a orig camp
	f=camp/ledger/seg/00000001.tsv
	chmod u+w "$f"
	sed -i '0,/"verdict":"keep"/s//"verdict":"kept"/' "$f"
	not cmp -s "$f" orig/ledger/seg/00000001.tsv
	[ "$(stat -c %s "$f")" = "$(stat -c %s orig/ledger/seg/00000001.tsv)" ]
	cmp <(tail -c 4096 "$f") <(tail -c 4096 orig/ledger/seg/00000001.tsv)
	run --separate-stderr -69 ar-sched next -C camp -g "$FIX/two.tsv" -m "$FIX/subs.tsv"
	[[ "$stderr" == *"ar-sched: camp/run/sched-fold/00000001: ledger segment 00000001 changed since it was folded; the segment's rows are read instead"* ]]
	[[ "$stderr" == *"ar-sched: ar-ledger export -C camp -V failed; give its export with -l" ]]
	same "$output" ""
}

# A campaign copied whole (cp -a: new inodes and times) has a summary
# whose segments are not the copy's; the queue records it holds do not
# depend on them and keep their names, so they are not read again.
@test "ar-sched next: a copied campaign's summary keeps the queue records it knows; its ledger part is rebuilt" {
	two_segments
	queue_70_c3
	decide
	queued=$out
	[[ "$queued" != *"$C3	decode-512	8"* ]]
	mv camp orig
	cp -a orig camp
	# A record replaced by a file that is not one: read, it would be
	# left out with a warning (the manifest names the old inode).
	f=$(ls camp/queue/new/* | head -1)
	echo 'not JSON' > new.rec
	mv new.rec "$f"
	decide
	same "$out" "$queued"
	[[ "$err" == *"ar-sched: camp/run/sched-summary: ledger segment 00000001 changed since it was summarized; it is rebuilt from the ledger (the queue records it knows are kept)"* ]]
	[[ "$err" != *"left out"* ]]
	# Its ledger part now names the copy's segments.
	decide
	same "$out" "$queued"
	[[ "$err" != *"sched-summary"* ]]
	# The queue part torn as well: both are rebuilt, and the record is
	# read.
	rm -r camp
	cp -a orig camp
	echo 'not JSON' > new.rec
	mv new.rec "$f"
	head -c 100 orig/run/sched-queue > camp/run/sched-queue
	decide
	[[ "$err" == *"ar-sched: camp/run/sched-summary: ledger segment 00000001 changed since it was summarized; it is rebuilt from the ledger and the queue"* ]]
	[[ "$err" == *"$f: invalid JSON"*"; left out"* ]]
	same "$out" "$queued"
}

# ar-ledger append seals the segments it writes and runs ar-sched fold:
# a first decision on a ledger no decision read takes their folds, the
# bytes a decision would have written, and exports only the rows after.
@test "ar-sched fold: folds the segments after the newest folded one, as a decision would; ar-ledger append runs it" {
	two_segments
	same "$(ls camp/run/sched-fold)" "00000001
00000002"
	[ ! -e camp/run/sched-summary ]
	cp camp/run/sched-fold/00000001 f1
	cp camp/run/sched-fold/00000002 f2
	rm -r camp/run/sched-fold
	run -0 --separate-stderr ar-sched fold -C camp
	[ "$output" = "" ]
	[ "$stderr" = "ar-sched: fold: 2 segments folded" ]
	cmp f1 camp/run/sched-fold/00000001
	cmp f2 camp/run/sched-fold/00000002
	[ ! -e camp/run/sched-summary ]
	run -0 --separate-stderr ar-sched fold -C camp
	[ "$stderr" = "ar-sched: fold: 0 segments folded" ]
	# Only the segments after the newest good fold are read.
	rm camp/run/sched-fold/00000002
	run -0 --separate-stderr ar-sched fold -C camp
	[ "$stderr" = "ar-sched: fold: 1 segment folded" ]
	cmp f2 camp/run/sched-fold/00000002
	# An older segment without a fold file (a fold run of appends at
	# once saw the newer one first): folded from there on.
	rm camp/run/sched-fold/00000001
	run -0 --separate-stderr ar-sched fold -C camp
	[ "$stderr" = "ar-sched: fold: 2 segments folded" ]
	cmp f1 camp/run/sched-fold/00000001
	cmp f2 camp/run/sched-fold/00000002
	# The first decision exports the rows after the folded segments
	# only, and decides as one from the rows does.
	if command -v strace > /dev/null; then
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		    strace -f -s 256 -e trace=execve -o trace.txt ar-sched next -C camp -g "$FIX/two.tsv" -m "$FIX/subs.tsv" > /dev/null 2>&1
		grep -q '"export", "-C", "camp", "-V", "-f", "tsv", "-A", "2"' trace.txt
		rm camp/run/sched-summary camp/run/sched-queue
	fi
	same_from_rows
	cmp f1 camp/run/sched-fold/00000001
	# Without a problem to name the metric, folded as next folds
	# then: by none.
	rm -r camp/run/sched-fold
	mv camp/problem problem.kept
	run -0 --separate-stderr ar-sched fold -C camp
	[ "$stderr" = "ar-sched: fold: 2 segments folded" ]
	mv problem.kept camp/problem
	# Bad uses: one line each, documented codes.
	run -64 --separate-stderr ar-sched fold -C camp extra
	[ "${stderr_lines[0]}" = "usage: ar-sched fold [-C dir]" ]
	run -66 --separate-stderr ar-sched fold -C nowhere
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "ar-sched: "*nowhere* ]]
}

# A segment compacted from loose results is checked and sealed by the
# export -V of the fold that follows, and folded: by ar-ledger compact,
# and by the append whose results made the compaction due.
@test "ar-sched fold: a compaction, asked for or made by an append, is sealed and folded" {
	mkcamp
	echo 'sched.grid_cap = 0' >> camp/campaign.conf
	results 5 1
	[ ! -e camp/run/sched-fold ]
	run -0 --separate-stderr ar-ledger compact -C camp
	[[ "$stderr" == "ar-ledger: "*" results merged into segments" ]]
	[ -f camp/ledger/seg/00000001.seal ]
	[ -s camp/run/sched-fold/00000001 ]
	n=$(ls camp/ledger/results | wc -l)
	[ "$n" -eq 0 ]
	AR_LEDGER_COMPACT=4 results 5 2
	[ -f camp/ledger/seg/00000002.seal ]
	[ -s camp/run/sched-fold/00000002 ]
	cp camp/run/sched-fold/00000001 f1
	cp camp/run/sched-fold/00000002 f2
	same_from_rows
	cmp f1 camp/run/sched-fold/00000001
	cmp f2 camp/run/sched-fold/00000002
}

# Appends at once each seal their segment and run a fold, which may see
# the others' segments half-way: every fold kept must still be the bytes
# a decision from the rows writes.
@test "ar-sched fold: eight batch appends at once leave seals and folds that decide as the rows do" {
	mkcamp
	echo 'sched.grid_cap = 0' >> camp/campaign.conf
	for i in 1 2 3 4 5 6 7 8; do
		awk -v n=20 -v s=$((10 + i)) -f "$FIX/results.awk" | ar-sign-test -C camp > "r$i.jsonl"
	done
	pids=
	for i in 1 2 3 4 5 6 7 8; do
		AR_LOCK_WAIT=120 ar-ledger append -C camp "r$i.jsonl" 2> "err$i" &
		pids="$pids $!"
	done
	for p in $pids; do
		wait "$p"
	done
	total=0
	for i in 1 2 3 4 5 6 7 8; do
		n=$(wc -l < "r$i.jsonl")
		total=$((total + n))
		same "$(cat "err$i")" "ar-ledger: append: $n stored, 0 already there"
	done
	[ "$(ls camp/ledger/seg/*.tsv | wc -l)" -eq 8 ]
	[ "$(ls camp/ledger/seg/*.seal | wc -l)" -eq 8 ]
	run -0 --separate-stderr ar-ledger verify -C camp
	[ "$stderr" = "ar-ledger: $total rows: $total verified, 0 unsigned (imported); 0 problems" ]
	# Folds a fold run left out (it saw a segment not yet renamed in)
	# are made now, the others made again the same.
	mkdir kept
	cp camp/run/sched-fold/* kept/
	ar-sched fold -C camp 2> /dev/null
	for f in kept/*; do
		cmp "$f" "camp/run/sched-fold/${f#kept/}"
	done
	[ "$(ls camp/run/sched-fold | wc -l)" -eq 8 ]
	cp camp/run/sched-fold/* kept/
	same_from_rows
	for f in kept/*; do
		cmp "$f" "camp/run/sched-fold/${f#kept/}"
	done
}

@test "ar-sched next: a torn, altered, foreign or stale fold is not trusted; its segment's rows are read" {
	mkcamp
	echo 'sched.grid_cap = 0' >> camp/campaign.conf
	results 40 1
	results 30 2
	decide
	whole=$out
	F=camp/run/sched-fold/00000001
	why="the segment's rows are read instead"
	cp "$F" f1
	again() {
		rm camp/run/sched-summary
		decide
		same "$out" "$whole"
	}
	head -c 200 f1 > "$F"
	again
	[[ "$err" == *"ar-sched: $F: its checksum does not match (a torn or altered file); $why"* ]]
	# Written again whole: trusted, and nothing said of it.
	cmp f1 "$F"
	again
	[[ "$err" != *"sched-fold"* ]]
	n=$(( $(stat -c %s "$F") / 2 ))
	printf '\377' | dd of="$F" bs=1 seek="$n" conv=notrunc 2> /dev/null
	again
	[[ "$err" == *"ar-sched: $F: its checksum does not match (a torn or altered file); $why"* ]]
	echo hello > "$F"
	again
	[[ "$err" == *"ar-sched: $F: not a segment's fold of this version; $why"* ]]
	: > "$F"
	again
	[[ "$err" == *"ar-sched: $F: not a segment's fold of this version; $why"* ]]
	cmp f1 "$F"
	# Another campaign's.
	mv camp other
	mkcamp
	echo 'sched.grid_cap = 0' >> camp/campaign.conf
	results 40 5
	results 30 6
	decide
	whole=$out
	cp other/run/sched-fold/00000001 "$F"
	again
	[[ "$err" == *"ar-sched: $F: made for another campaign; $why"* ]]
	# The ledger written again under the same numbers: the folds are of
	# segments that are no more (put back over those append wrote).
	cp "$F" stale
	rm -rf camp/ledger
	mkdir -p camp/ledger/results camp/ledger/seg
	results 40 7
	results 30 8
	cp stale "$F"
	rm camp/run/sched-summary
	decide
	[[ "$err" == *"ar-sched: $F: ledger segment 00000001 changed since it was folded; $why"* ]]
	whole=$out
	rm -r camp/run/sched-summary camp/run/sched-fold
	decide
	same "$out" "$whole"
}

# A batch put leaves a manifest of its records (queue/batch/): a
# decision that reads many records reads it instead of each file, and
# decides as it would from the files.
@test "ar-sched next: the export is folded as it comes; one that fails leaves no fold and no summary, and is said to have failed" {
	mkcamp
	echo 'sched.grid_cap = 0' >> camp/campaign.conf
	results 40 1
	results 30 2
	rm -r camp/run/sched-fold
	ar-ledger export -C camp -V -f tsv -A 0 > whole.tsv 2> /dev/null
	# Without their seals, the segments' rows come from the export only
	# (a sealed segment is folded from its file before the export).
	rm camp/ledger/seg/*.seal
	n=$(stat -c %s whole.tsv)
	# Ten bytes into the middle line: a row cut short.
	half=$(awk -v h="$(( $(wc -l < whole.tsv) / 2 ))" 'NR <= h { b += length($0) + 1 } END { print b + 10 }' whole.tsv)
	# ar-sched runs the ar-ledger beside it: a copy of it beside one
	# that writes the first BYTES of the export, then exits STATUS (or
	# kills itself with -9).
	mkdir fake
	cp "$(command -v ar-sched)" fake/
	fake() {
		printf '#!/bin/sh\nhead -c %s "%s"\n%s\n' "$1" "$PWD/whole.tsv" "$2" > fake/ar-ledger
		chmod +x fake/ar-ledger
	}
	nothing_kept() {
		[ ! -e camp/run/sched-summary ]
		[ -z "$(ls camp/run/sched-fold 2> /dev/null)" ]
	}
	for how in "$half:exit 1" "$n:exit 1" "$half:kill -9 \$\$" "$n:kill -9 \$\$"; do
		fake "${how%%:*}" "${how#*:}"
		run --separate-stderr -69 fake/ar-sched next -C camp -g "$FIX/two.tsv" -m "$FIX/subs.tsv"
		[[ "$stderr" == *"ar-sched: ar-ledger export -C camp -V failed; give its export with -l" ]]
		[[ "$stderr" != *"line "* ]]
		same "$output" ""
		nothing_kept
	done
	# Cut short but exited 0: the rows are malformed, and say where.
	fake "$half" "exit 0"
	run --separate-stderr -65 fake/ar-sched next -C camp -g "$FIX/two.tsv" -m "$FIX/subs.tsv"
	[[ "$stderr" == "ar-sched: ar-ledger export: line $(( $(wc -l < whole.tsv) / 2 + 1 )): 1 field, header has "* ]]
	nothing_kept
	# Whole and well: the folds and the decision the real export gives.
	fake "$n" "exit 0"
	run --separate-stderr -0 fake/ar-sched next -C camp -g "$FIX/two.tsv" -m "$FIX/subs.tsv"
	faked=$(printf '%s\n' "$output" | cut -f 2-)
	mv camp/run/sched-fold fold.faked
	rm camp/run/sched-summary camp/run/sched-queue
	decide
	same "$out" "$faked"
	diff -r fold.faked camp/run/sched-fold
	[ "$(ls camp/run/sched-fold)" = "$(printf '00000001\n00000002')" ]
}

@test "ar-sched next: queue records from a batch's manifest, as from their files" {
	mkcamp
	echo 'sched.grid_cap = 0' >> camp/campaign.conf
	results 40 1
	put_scale 70
	[ "$(ls camp/queue/batch | wc -l)" -eq 1 ]
	decide
	withman=$out
	mv camp/queue/batch man.kept
	rm camp/run/sched-summary
	decide
	same "$out" "$withman"
	# Torn: not used, the files are read.
	mkdir camp/queue/batch
	m=$(ls man.kept)
	head -c 1000 "man.kept/$m" > "camp/queue/batch/$m"
	rm camp/run/sched-summary
	decide
	same "$out" "$withman"
	# Records replaced by new files (other inodes) that say k = 1: the
	# files count, not the manifest.
	cp "man.kept/$m" "camp/queue/batch/$m"
	for f in $(grep -l '"k":"8"' camp/queue/new/*); do
		sed 's/"k":"8"/"k":"1"/' "$f" > new.rec
		mv new.rec "$f"
	done
	rm camp/run/sched-summary
	decide
	one=$out
	mv camp/queue/batch man2
	rm camp/run/sched-summary
	decide
	same "$out" "$one"
	[ "$one" != "$withman" ]
}

@test "ar-sched next: many queue records are read on several threads: one thread's decision, bad records said in the listing's order" {
	mkcamp
	echo 'sched.grid_cap = 0' >> camp/campaign.conf
	results 40 1
	put_scale 200
	keep=$(ls camp/queue/batch)
	# Some records in files of their own (their manifests removed),
	# three of them malformed, one claimed: in cur/ as well as new/ while
	# it moves.
	awk -v c="$C1" 'BEGIN { print "method\tworkload\tk\tpurpose"; for (i = 0; i < 30; i++) print c "\tdecode-512\t4\tscale" }' > q2.tsv
	for i in 1 2 3; do
		ar-queue put camp/queue q2.tsv > /dev/null
	done
	for m in camp/queue/batch/*; do
		[ "${m##*/}" = "$keep" ] || rm "$m"
	done
	[ "$(ls camp/queue/batch)" = "$keep" ]
	for b in bad1 bad2 bad3; do
		printf '{"k": ' > "camp/queue/new/20261126T000000.000000Z-$b"
	done
	r=$(ls camp/queue/new | head -n 1)
	mkdir -p camp/queue/cur
	cp "camp/queue/new/$r" "camp/queue/cur/$r@n1.1"
	[ "$(ls camp/queue/new | wc -l)" -ge 493 ]
	for t in 1 2 4; do
		rm -f camp/run/sched-summary camp/run/sched-queue
		AR_THREADS=$t decide
		printf '%s\n' "$out" > out-$t.txt
		printf '%s\n' "$err" > err-$t.txt
	done
	[ "$(grep -c 'left out' err-1.txt)" = 3 ]
	cmp out-1.txt out-2.txt
	cmp out-1.txt out-4.txt
	cmp err-1.txt err-2.txt
	cmp err-1.txt err-4.txt
	# The summary each wrote decides the same, read back.
	AR_THREADS=4 decide
	[ "$out" = "$(cat out-1.txt)" ]
}

@test "ar-sched next: a queue directory that cannot be listed, read beside the ledger or after it: one line, exit 74, no summary" {
	mkcamp
	echo 'sched.grid_cap = 0' >> camp/campaign.conf
	results 40 1
	put_scale 200
	# A file where cur/ should be: stat sees it, opendir cannot.
	rm -rf camp/queue/cur
	echo x > camp/queue/cur
	for t in 1 4; do
		rm -f camp/run/sched-summary camp/run/sched-queue
		AR_THREADS=$t run --separate-stderr ar-sched next -C camp -g "$FIX/two.tsv" -m "$FIX/subs.tsv"
		[ "$status" -eq 74 ]
		[ -z "$output" ]
		[ "$stderr" = "ar-sched: camp/queue/cur: Not a directory" ]
		[ ! -e camp/run/sched-summary ]
		[ ! -e camp/run/sched-queue ]
	done
	# Put back, the same campaign decides as one read after the ledger.
	rm camp/queue/cur
	mkdir camp/queue/cur
	AR_THREADS=1 decide
	serial=$out
	rm -f camp/run/sched-summary camp/run/sched-queue
	AR_THREADS=4 decide
	same "$out" "$serial"
}

# Listing 100,000 records costs more than the rest of a decision: queue
# directories that have not changed since the summary's listing (their
# inode, mtime and ctime) are not listed again.
@test "ar-sched next: queue directories unchanged since the summary are not listed again" {
	# Summaries compared byte for byte: no segment settles meanwhile.
	export AR_SCHED_SETTLE=1000000
	command -v strace > /dev/null || skip "strace is needed (.ci/run installs it)"
	# LeakSanitizer cannot run under ptrace (check-asan).
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	mkcamp
	echo 'sched.grid_cap = 0' >> camp/campaign.conf
	results 40 1
	queue_70_c3
	mkdir -p camp/queue/cur
	# Changed a minute ago: a change after the listing cannot share
	# its times.
	touch -d '1 minute ago' camp/queue/new camp/queue/cur
	decide
	queued=$out
	strace -f -e trace=openat -o trace.txt ar-sched next -C camp -g "$FIX/two.tsv" -m "$FIX/subs.tsv" > out.tsv 2> /dev/null
	same "$(cut -f 2- out.tsv)" "$queued"
	run -1 grep -c 'queue/new' trace.txt
	# New rows, the queue still: the summary is written again, its
	# queue file is not, and they still give a whole read's decision.
	sum0=$(stat -c %Y.%i camp/run/sched-summary)
	q0=$(stat -c %Y.%i camp/run/sched-queue)
	results 20 2
	strace -f -e trace=openat -o trace.txt ar-sched next -C camp -g "$FIX/two.tsv" -m "$FIX/subs.tsv" > out.tsv 2> /dev/null
	run -1 grep -c 'queue/new' trace.txt
	[ "$(stat -c %Y.%i camp/run/sched-summary)" != "$sum0" ]
	[ "$(stat -c %Y.%i camp/run/sched-queue)" = "$q0" ]
	decide
	fresh=$out
	cp camp/run/sched-summary kept
	cp camp/run/sched-queue keptq
	rm camp/run/sched-summary camp/run/sched-queue
	decide
	same "$out" "$fresh"
	same "$(cut -f 2- out.tsv)" "$fresh"
	cmp kept camp/run/sched-summary
	cmp keptq camp/run/sched-queue
	# Changed just now: listed, and each run lists it until it has
	# been still a while.
	rm "$(ls camp/queue/new/* | head -1)"
	strace -f -e trace=openat -o trace.txt ar-sched next -C camp -g "$FIX/two.tsv" -m "$FIX/subs.tsv" > /dev/null 2>&1
	grep -q 'queue/new' trace.txt
	strace -f -e trace=openat -o trace.txt ar-sched next -C camp -g "$FIX/two.tsv" -m "$FIX/subs.tsv" > /dev/null 2>&1
	grep -q 'queue/new' trace.txt
	# What the listing found is what a whole read finds.
	decide
	changed=$out
	rm camp/run/sched-summary
	decide
	same "$out" "$changed"
}

# ---- cluster ----

@test "ar-sched cluster: no double booking, a sane utilization, the same figures for a seed" {
	run --separate-stderr -0 ar-sched cluster -N 6 -G 8 -p 2000 -d 30 -s 7 --check
	[ "$stderr" = "" ]
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "nodes	gpus_per_node	pending	seed	hours	reserve	decisions	placements	utilization	decision_ms_mean	decision_ms_p99	decision_ms_max	placed8	wait8_max_h" ]
	u=$(cols utilization)
	awk -v u="$u" 'BEGIN { exit !(u > 0.8 && u <= 1) }'
	[ "$(cols placements)" -gt 100 ]
	a=$(cols nodes pending seed decisions placements utilization placed8 wait8_max_h)
	run -0 ar-sched cluster -N 6 -G 8 -p 2000 -d 30 -s 7
	same "$(cols nodes pending seed decisions placements utilization placed8 wait8_max_h)" "$a"
	run -0 ar-sched cluster -N 6 -G 8 -p 2000 -d 30 -s 8
	[ "$(cols nodes pending seed decisions placements utilization)" != "$a" ]
	# Odd node sizes and the greedy mode keep the invariants too.
	run -0 ar-sched cluster -N 5 -G 6 -p 500 -d 20 --check --no-reserve
	[ "$(cols reserve)" = no ]
	run -0 ar-sched cluster -N 3 -G 8 -p 300 -d 20 -R 2 -W 4 --check
	[ "$(cols placements)" -gt 10 ]
}

@test "ar-sched next: the baseline's parallel fraction from its runs beside each method at k = 1 and 2; sched.base_pfrac overrides it" {
	mkcamp
	# Baseline throughput 100 at k=1 and 160 at k=2: Amdahl's
	# p = (1 - 1/1.6) / (1 - 1/2) = 0.75.
	{
		printf 'experiment\tsigned\tverified\tmethod.commit\tmethod.dir\tworkload\tdevice\tshape.k\tshape.node\tverdict\taa\tratio.median\tratio.ci_lo\tratio.ci_hi\tdirection\tbaseline.tok_s.median\tstarted\tfinished\n'
		printf 'b1\tyes\tyes\t\tbaseline\tdecode-512\tcuda\t1\ta\tequivalent\ttrue\t1.0\t0.99\t1.01\thigher\t100\t2026-11-26T10:00:00Z\t2026-11-26T10:10:00Z\n'
		printf 'b2\tyes\tyes\tcafe000000000000000000000000000000000001\t\tdecode-512\tcuda\t1\ta\tkeep\tfalse\t1.1\t1.05\t1.15\thigher\t100\t2026-11-26T10:10:00Z\t2026-11-26T10:20:00Z\n'
		printf 'b3\tyes\tyes\tcafe000000000000000000000000000000000001\t\tdecode-512\tcuda\t2\ta\tkeep\tfalse\t1.2\t1.15\t1.25\thigher\t160\t2026-11-26T10:20:00Z\t2026-11-26T10:30:00Z\n'
		# Another workload's baseline does not count.
		printf 'b4\tyes\tyes\tcafe000000000000000000000000000000000001\t\tdecode-64\tcuda\t2\ta\tkeep\tfalse\t1.2\t1.15\t1.25\thigher\t900\t2026-11-26T10:20:00Z\t2026-11-26T10:30:00Z\n'
	} > l.tsv
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l l.tsv -m "$FIX/subs.tsv"
	[[ "$stderr" == *"ar-sched: the baseline's parallel fraction: 0.750, from its runs at k = 1 and 2 (workload decode-512)"* ]]
	# A lower-is-better metric reads the other way: 100 s, then 62.5 s.
	sed -e 's/\thigher\t160\t/\tlower\t62.5\t/' -e 's/\thigher\t/\tlower\t/' l.tsv > low.tsv
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l low.tsv -m "$FIX/subs.tsv"
	[[ "$stderr" == *"parallel fraction: 0.750, from its runs at k = 1 and 2"* ]]
	# Without a run at k > 1, nothing is said.
	grep -v '^b3' l.tsv > one.tsv
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l one.tsv -m "$FIX/subs.tsv"
	[[ "$stderr" != *"parallel fraction"* ]]
	# The campaign's figure wins, and a bad one exits 65 before any output.
	echo 'sched.base_pfrac = 0.5' >> camp/campaign.conf
	run --separate-stderr -0 ar-sched next -C camp -g "$FIX/two.tsv" -l l.tsv -m "$FIX/subs.tsv"
	[[ "$stderr" != *"parallel fraction"* ]]
	sed -i 's/^sched.base_pfrac = .*/sched.base_pfrac = 1.5/' camp/campaign.conf
	run --separate-stderr -65 ar-sched next -C camp -g "$FIX/two.tsv" -l l.tsv -m "$FIX/subs.tsv"
	[ "$output" = "" ]
	[[ "$stderr" == *"campaign.conf: sched.base_pfrac: \"1.5\" is not a number above 0 and at most 1" ]]
}
