#!/bin/sh
# bench-policy.sh [-r repeats] [-s seed]: every policy of ar-sched
# simulate over the landscape sets (run by hand, not by CI), side by
# side, by the shape of the true best, and whether ours meets issue 16's
# targets on the sets it was not tuned on:
#   found (strict: feasible, within 0.01 of the best's true score) in at
#   least 95% of the campaigns, at most 30% of the grid's GPU-hours (the
#   mean per campaign), no campaign above the grid's, and no shape of
#   20 campaigns or more below 85%.
# The sets, all made by `ar-sched landscape` with fixed seeds into
# bench/out/landscapes/ (the same bytes every time):
#   tuning   the policy's constants were chosen looking at these:
#            shapes-tune (bench/make-shapes.sh: 1125 landscapes of
#            8-80 methods, seeds 2001-2003) and landscapes/shapes/tune/;
#            and, for the noisy shape, noisy-tune (make-shapes.sh -n:
#            14250 landscapes, seeds 11001-11004, 381 with a noisy best;
#            not run here, 4 policies on it take minutes).
#   check    never tuned on: shapes-check (1236 landscapes, seeds
#            4001-4004, other mixes and method counts) and
#            landscapes/shapes/check/. It was looked at three times
#            while the policy was first tuned, and once more after the
#            noisy shape's change (issue 16: extra looks for noisy
#            pairs), which is why the report sets exist:
#   report-8001  the check recipes with the seeds 8001-8004 (1236
#            landscapes), run for the first time with the first
#            constants released. It has been seen since, so it is no
#            longer fresh; it stays here beside the next one, to compare.
#   report-9001  the check recipes with the seeds 9001-9004 (1236
#            landscapes), made after the noisy shape's change and run
#            once, with the constants frozen, for its figures: at the
#            constants of 29f624e, ours found 95.5% (found_rel 96.8%),
#            29.5% of the grid per campaign, at most 0.70 of it, and
#            the noisy shape 16 of 21 (76.2%, below 85%: missed).
#            At the constants of the noisy pairs' second change (the
#            best and its closest rival measured until told apart),
#            tuned on make-shapes.sh -n's noisy-tune set only, it was
#            run once more: 95.4%, 29.6%, at most 0.70, noisy still 16
#            of 21 (missed); check 95.2%, 29.4%, noisy 26 of 30;
#            report-8001 96.5%, 28.6%, noisy 24 of 24.
#   report-10001 the check recipes with the seeds 10001-10004 (1236
#            landscapes), made after that second change and run once,
#            its constants frozen: ours found 95.5% (found_rel 97.2%),
#            29.7% of the grid per campaign, at most 0.70 of it, the
#            noisy shape 15 of 18 (83.3%: below 85%, missed, though
#            too few campaigns for target's rule of 20), the weakest
#            other shape near-tie 92.1% of 291. The constants before
#            that change gave 95.2%, 29.7% and the same 15 of 18 there.
#   report-noisy-12001  the noisy shape's own report set: the mix of
#            noisy-tune's noisy-rich file (recipes.sh SHAPES_MIX_NOISY,
#            four times the default's noisy weight), 8-80 methods, fresh
#            seeds 12001 and 12002, 2 x 3000 landscapes (about 360 with
#            a noisy best, against the 18-30 of each set above), made
#            and run once with the constants of report-10001 unchanged,
#            so that the noisy shape's rate rests on hundreds of
#            campaigns never tuned on. Its run: ours found 95.3%
#            (found_rel 96.6%), 31.4% of the grid per campaign (above
#            30%: the noise-heavy mix re-measures more), at most 0.70,
#            noisy 87.4% of 364 (grid 64.0%), no shape below it.
#   indep    a second recipe, written apart from ar-sched landscape
#            after the policy was tuned (bench/indep-landscapes.awk:
#            random quadratics in log k, late peaks, flat curves with
#            one jump at 2, 4 or 8, true ties, guard breaks, crashes,
#            equal scales, duds and noisy methods; 8-80 methods,
#            noise of 0.3% to 12% a measurement, costs of its own
#            making, no hints), seeds 21 and 22, 2 x 500 landscapes,
#            made and run once with the constants of report-10001
#            unchanged: ours found 93.5% (found_rel 94.4%), at 26.9%
#            of the grid per campaign, at most 0.70 (grid 72.9%, sha
#            61.8%); its jumps are where it misses: step 81.3% of 107
#            (a method flat until a jump at 8, with nothing below to
#            predict it, 68.6% of 35), late 87.1% of 31, quad 96.3%
#            of 655. Beside it, no target: indep-scale (seed 23, more
#            late and step methods) 92.8% at 29.4%; indep-noisy2 (seed
#            24, twice the noise floor) 88.6% at 39.1% (grid 57.2%).
#            An earlier draft of the recipe (awk's own rand) was run
#            on two sets before: 95.1% at 27.9%; four constants
#            (LOOKAHEAD 0.5 and 0.8, SCALE_EI 0.00003 and 0.000015)
#            tried on it moved found by 0.5 point at most.
#            With ours' pick read through each method's curve (next
#            session), indep gave 93.3%, step 81.3% of 107.
#   report-13001 the check recipes with the seeds 13001-13004 (1236
#            landscapes), made after the pick was changed to read each
#            pair through its method's curve and run once, its
#            constants frozen: ours found 95.5% (found_rel 97.2%), 29.5%
#            of the grid per campaign, at most 0.69 of it, noisy 89.7%
#            of 29, no shape below 85%: every target met.
#   indep-31 the indep recipe, seeds 31 and 32, 2 x 500 landscapes,
#            made and run once beside report-13001: ours found 93.4%
#            (found_rel 94.2%) at 27.7%, at most 0.70 (grid 71.2%, sha
#            60.7%), step 85.9% of 99, late 88.2% of 34: found missed.
#   indep-flatnoise-33 the indep recipe with -v nflat=1 (a method's
#            noise 1-10% a measurement, uniform, the same at every k),
#            seeds 33 and 34, 2 x 500, made and run once beside them:
#            ours found 90.9% (found_rel 91.7%) at 38.6% of the grid,
#            at most 0.70 (grid 61.0%, sha 48.5%), late 84.8% of 33,
#            step 83.5% of 97: found, cost and shapes missed. On a
#            tuning set of the same recipe (400 landscapes) ours reached
#            94.5% only at 48% of the grid (a cap of the whole grid, 16
#            looks, a rival measured to two standard errors).
#   report-14001, indep-41 (seeds 41-42), indep-flatnoise-43 (seeds
#            43-44, nflat) were made for the next change (rivals
#            re-measured only within 2 sd, the top resolved to 2 sd, the
#            curves' roughness learnt) and run once at its first
#            constants (the whole roughness): 94.9% at 30.7%, 93.8% at
#            28.7%, 89.8% at 38.2%. That roughness cost too much of the
#            grid on the shapes sets; with half of it, tuned on the
#            tuning sets only, they were run again (94.8% at 30.5%,
#            93.6% at 28.6%, 89.9% at 38.2%), so these are seen too, and
#            three more were made and run once, the constants frozen:
#   report-15001 the check recipes, seeds 15001-15004 (1236): ours
#            found 95.4% (found_rel 97.1%) at 30.1% of the grid (above
#            30%: missed by 0.1), at most 0.70, noisy 91.3% of 23, no
#            shape below 85%.
#   indep-51 the indep recipe, seeds 51-52 (1000): 93.4% (found_rel
#            94.4%) at 29.2%, noisy 84.2% of 165: found missed.
#   indep-flatnoise-53 nflat, seeds 53-54 (1000): 89.6% (90.9%) at
#            39.4%, late 80.0%, step 83.5%: found, cost, shapes missed.
#            The seen sets moved by the change (before, in brackets):
#            check 95.5% at 30.3% (95.2% at 29.4%), report-10001 96.0%
#            at 30.4% (95.5% at 29.7%), report-13001 96.0% at 30.3%
#            (95.5% at 29.5%), indep-31 94.6% at 28.9% (93.4% at
#            27.7%), indep-flatnoise-33 91.3% at 38.1% (90.9% at 38.6%):
#            found up everywhere, the shapes sets' cost up 0.6 to 0.9
#            point, past 30%.
#   report-16001, indep-61 (seeds 61-62), indep-flatnoise-63 (seeds
#            63-64, nflat) were made for the next change (pairs told
#            apart to the minimum effect in ratio, a rival read through
#            its method's curve where higher, EI_MIN 0.00006 and SCALE_EI
#            0.00015), chosen on the tuning sets only, and run once with
#            its constants frozen: report-16001 95.6% (found_rel 97.2%)
#            at 30.3% of the grid (missed by 0.3), at most 0.70, Amdahl
#            80.0% of 55 (missed; grid 94.6%), noisy 88.6% of 35;
#            indep-61 94.9% (95.6%) at 27.6%, no shape below 85% (found
#            missed by 0.1); indep-flatnoise-63 90.5% (92.1%) at 37.1%,
#            late 79.2% of 24: found, cost, shapes missed. Run again by
#            the constants before the change (seen now, so only to
#            compare): 95.5% at 30.3% with Amdahl 89.1%; 94.9% at
#            28.2%; 90.1% at 37.3%. Pooled (the lines printed before
#            the targets), before -> after: the shapes sets' 11,191
#            campaigns 95.74% at 29.93%
#            -> 96.09% at 29.85%, Amdahl 94.6% -> 91.5% of 555, near-tie
#            92.3% -> 93.6% of 2652; the indep recipe's 5,000 94.06% ->
#            94.30% at 28.6%; its nflat 4,000 90.22% at 38.24% -> 90.35%
#            at 37.82%.
#   report-17001, indep-71 (seeds 71-72), indep-flatnoise-73 (seeds
#            73-74, nflat) were made for the next change (a rival's gap
#            to the incumbent keeps its sign: a pair drawn once above
#            the cautious incumbent is valued as above it), chosen on
#            the tuning sets and the pool of the sets above, and run
#            once: report-17001 96.4% (found_rel 97.2%) at 29.4% of the
#            grid, at most 0.70, no shape below 85%: every target met;
#            indep-71 94.8% (95.5%) at 28.1%, no shape below 85% (found
#            missed by 0.2); indep-flatnoise-73 91.9% (92.8%) at 37.8%,
#            late 70.6% of 34, step 83.8% of 111. Pooled, the sets
#            before it, before -> after: shapes 96.09% -> 96.14% at
#            29.85%; indep 94.30% -> 94.38%, 28.59% -> 28.69%; nflat
#            90.35% -> 90.70%, 37.82% -> 37.97%.
#   report-18001, indep-81 (seeds 81-82), indep-flatnoise-83 (seeds
#            83-84, nflat) were made for the next change (a scale probe
#            priced at the size it is expected to take, its price
#            raised from 0.015% to 0.03%), chosen on the tuning sets
#            only, and run once: report-18001 97.1% (found_rel 98.0%)
#            at 30.5% of the grid (missed by 0.5), at most 0.70, no
#            shape below 85%; indep-81 94.7% (95.3%) at 29.3%, no shape
#            below 85% (found missed by 0.3); indep-flatnoise-83 92.4%
#            (93.3%) at 37.7%, no shape below 85% (found and cost
#            missed). The constants before the change, on the same
#            sets: 96.8% at 29.9%, 94.4% at 29.1%, 92.6% at 38.7%.
#            Pooled with them, before -> after: shapes 96.22% ->
#            96.38%, 29.82% -> 30.43%; indep 94.44% -> 94.87%, 28.66% ->
#            28.74%; nflat 91.22% -> 91.47%, 38.06% -> 37.22%.
#   report-19001, indep-91 (seeds 91-92), indep-flatnoise-93 (seeds
#            93-94, nflat) were made at stop 41 for a change that was
#            not kept (a jump's chance counted apart from the curves'
#            roughness: on them 96.1%, 94.1%, 89.5%, no better), and
#            run once with main's constants, unchanged since
#            report-18001: report-19001 96.3% (found_rel 97.8%) at 30.6%
#            (missed by 0.6), at most 0.70; indep-91 94.4% (95.4%) at
#            28.2% (found missed by 0.6), guard 84.6% of 13; indep-
#            flatnoise-93 89.7% (90.4%) at 39.1%, late 63.3% of 30
#            (grid 46.7%), mostly at the cap.
#   families the project's earlier recipe (ar-sched landscape -t
#            families: 12 and 24 methods, a noisy family of 10-30% rsd,
#            costs in proportion to k), with every hint, parallel
#            fraction and base_pfrac removed ("bare", seeds 5001-5003
#            and 7001-7003) and as written (landscapes/heldout/):
#            reported beside, with no target.
# Found (strict), found_rel (the earlier rule: within 1% of the best)
# and exact (a true best itself) are all printed.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
reps=1
seed=1
while getopts r:s: c; do
	case $c in
	r) reps=$OPTARG ;;
	s) seed=$OPTARG ;;
	*) echo "usage: sh bench/bench-policy.sh [-r repeats] [-s seed]" >&2; exit 64 ;;
	esac
done
bin=${AR_BIN:-$top/build/bin}
[ -x "$bin/ar-sched" ] || { echo "bench-policy: $bin/ar-sched: not built" >&2; exit 66; }
out=$top/bench/out
d=$out/landscapes
mkdir -p "$d/shapes-report" "$d/shapes-report9" "$d/shapes-report10" "$d/families" "$d/noisy-report"
machine "$bin/ar-sched"
AR_BIN=$bin sh "$top/bench/make-shapes.sh" "$d" > /dev/null
. "$top/landscapes/shapes/recipes.sh"
shapes_check "$bin/ar-sched" "$d/shapes-report" 8001 12 R
shapes_check "$bin/ar-sched" "$d/shapes-report9" 9001 12 N
shapes_check "$bin/ar-sched" "$d/shapes-report10" 10001 12 F
mkdir -p "$d/indep"
indep() { awk -f "$top/bench/indep-landscapes.awk" "$@"; }
indep -v seed=21 -v n=500 -v prefix=IA21x > "$d/indep/a21.tsv"
indep -v seed=22 -v n=500 -v prefix=IA22x > "$d/indep/a22.tsv"
indep -v seed=23 -v n=500 -v prefix=IS23x -v wts="2 2 2 0.5 1 0.7 1.5 4 0.5" > "$d/indep/scale23.tsv"
indep -v seed=24 -v n=500 -v prefix=IN24x -v nmul=2 > "$d/indep/noisy24.tsv"
# fresh S R L: a batch of sets made for one change and run once: the
# indep recipe with seeds S and S+1, with nflat S+2 and S+3, into
# indepS/, and the check recipes with seeds R.. (prefix L) into
# shapes-report(R / 1000)/.
fresh() {
	f=$d/indep$1
	mkdir -p "$f" "$d/shapes-report$(($2 / 1000))"
	indep -v seed="$1" -v n=500 -v prefix="IA$1x" > "$f/a$1.tsv"
	indep -v seed=$(($1 + 1)) -v n=500 -v prefix="IA$(($1 + 1))x" > "$f/a$(($1 + 1)).tsv"
	indep -v seed=$(($1 + 2)) -v n=500 -v prefix="IF$(($1 + 2))x" -v nflat=1 > "$f/flat$(($1 + 2)).tsv"
	indep -v seed=$(($1 + 3)) -v n=500 -v prefix="IF$(($1 + 3))x" -v nflat=1 > "$f/flat$(($1 + 3)).tsv"
	shapes_check "$bin/ar-sched" "$d/shapes-report$(($2 / 1000))" "$2" 12 "$3"
}
fresh 31 13001 T
fresh 41 14001 U
fresh 51 15001 V
fresh 61 16001 W
fresh 71 17001 X
fresh 81 18001 Y
fresh 91 19001 Z
for s in 12001 12002; do
	"$bin/ar-sched" landscape -t shapes -n 3000 -m 8-80 -s $s -x "NR${s}x" --mix "$SHAPES_MIX_NOISY" > "$d/noisy-report/$s.tsv"
done

# The earlier recipe without any hint: the columns pfrac, hint and
# base_pfrac emptied.
bare() {
	awk -F'\t' 'BEGIN { OFS = "\t" }
	    NR == 1 { for (i = 1; i <= NF; i++) if ($i == "pfrac" || $i == "hint" || $i == "base_pfrac") z[i] = 1; print; next }
	    { for (i in z) $i = ""; print }'
}
few=flat=3,scaler=0.5,contend=2,infeasible=1,noisy=1,dud=2
for s in 5001 7001; do
	"$bin/ar-sched" landscape -n 300 -m 12 -s $s -x "b${s}mixed" | bare > "$d/families/b$s-mixed.tsv"
	"$bin/ar-sched" landscape -n 200 -m 12 -s $((s + 1)) -x "b${s}few" --mix "$few" | bare > "$d/families/b$s-few.tsv"
	"$bin/ar-sched" landscape -n 100 -m 24 -s $((s + 2)) -x "b${s}wide" | bare > "$d/families/b$s-wide.tsv"
done

ok=0
run_set() {
	set=$1
	shift
	n=$(cat "$@" | awk -F'\t' '$1 != "landscape" { print $1 }' | sort -u | wc -l)
	echo
	echo "# $set: $n landscapes x $reps repeat(s), seed $seed: ar-sched simulate -F -r $reps -s $seed $(echo "$@" | sed "s|$top/||g")"
	"$bin/ar-sched" simulate -F -r "$reps" -s "$seed" "$@" > "$out/policy-$set.tsv"
	awk -F'\t' 'NR == 1 || $2 == "all"' "$out/policy-$set.tsv" | column -t
	echo "# by the shape of the true best: found (strict) / found_rel / mean grid_frac, campaigns"
	awk -F'\t' 'NR > 1 && $2 != "all" {
		if (!($2 in seen)) { seen[$2] = 1; fam[++nf] = $2 }
		v[$2, $1] = sprintf("%.3f/%.3f/%.2f", $5, $6, $9); n[$2] = $3 }
	    END {
		printf "%-14s %6s  %-18s %-18s %-18s %-18s\n", "shape", "runs", "ours", "grid", "sha", "flat1"
		for (i = 1; i <= nf; i++)
			printf "%-14s %6d  %-18s %-18s %-18s %-18s\n", fam[i], n[fam[i]], v[fam[i], "ours"], v[fam[i], "grid"], v[fam[i], "sha"], v[fam[i], "flat1"]
	    }' "$out/policy-$set.tsv"
}

# target SET: the verdict on ours, then its figures: found_rel, the
# grid's share of all the hours, the noisy shape and the weakest shape
# of 20 campaigns or more.
target() {
	awk -F'\t' -v set="$1" '
	    $1 == "ours" && $2 == "all" { f = $5; r = $6; g = $9; m = $10; h = $11 }
	    $1 == "ours" && $2 == "noisy" { nz = sprintf("%.1f%% of %d", 100 * $5, $3) }
	    $1 == "ours" && $2 != "all" && $3 >= 20 && (ws == "" || $5 < w) { w = $5; ws = $2 }
	    $1 == "ours" && $2 != "all" && $3 >= 20 && $5 < 0.85 { low = low " " $2 "=" $5 }
	    END {
		okf = f >= 0.95; okg = g <= 0.30; okm = m <= 1.0; oks = low == ""
		printf "# %s: ours found %.1f%% (>= 95%%: %s), %.1f%% of the grid per campaign (<= 30%%: %s), at most %.2f of it (<= 1: %s), shapes below 85%%:%s (%s)\n",
		    set, 100 * f, okf ? "met" : "MISSED", 100 * g, okg ? "met" : "MISSED", m, okm ? "met" : "MISSED", oks ? " none" : low, oks ? "met" : "MISSED"
		printf "#   found_rel %.1f%%, %.1f%% of all the grid'"'"'s hours, noisy %s, weakest shape %s %.1f%%\n",
		    100 * r, 100 * h, nz == "" ? "none" : nz, ws, 100 * w
		exit !(okf && okg && okm && oks) }' "$out/policy-$1.tsv" || ok=1
}

run_set tuning "$d"/shapes-tune/*.tsv "$top"/landscapes/shapes/tune/*.tsv
run_set check "$d"/shapes-check/*.tsv "$top"/landscapes/shapes/check/*.tsv
run_set report-8001 "$d"/shapes-report/*.tsv
run_set report-9001 "$d"/shapes-report9/*.tsv
run_set report-10001 "$d"/shapes-report10/*.tsv
run_set report-noisy-12001 "$d"/noisy-report/*.tsv
run_set indep "$d"/indep/a2*.tsv
run_set indep-scale "$d"/indep/scale23.tsv
run_set indep-noisy2 "$d"/indep/noisy24.tsv
run_set report-13001 "$d"/shapes-report13/*.tsv
run_set indep-31 "$d"/indep31/a3*.tsv
run_set indep-flatnoise-33 "$d"/indep31/flat3*.tsv
run_set report-14001 "$d"/shapes-report14/*.tsv
run_set indep-41 "$d"/indep41/a4*.tsv
run_set indep-flatnoise-43 "$d"/indep41/flat4*.tsv
run_set report-15001 "$d"/shapes-report15/*.tsv
run_set indep-51 "$d"/indep51/a5*.tsv
run_set indep-flatnoise-53 "$d"/indep51/flat5*.tsv
run_set report-16001 "$d"/shapes-report16/*.tsv
run_set indep-61 "$d"/indep61/a6*.tsv
run_set indep-flatnoise-63 "$d"/indep61/flat6*.tsv
run_set report-17001 "$d"/shapes-report17/*.tsv
run_set indep-71 "$d"/indep71/a7*.tsv
run_set indep-flatnoise-73 "$d"/indep71/flat7*.tsv
run_set report-18001 "$d"/shapes-report18/*.tsv
run_set indep-81 "$d"/indep81/a8*.tsv
run_set indep-flatnoise-83 "$d"/indep81/flat8*.tsv
run_set report-19001 "$d"/shapes-report19/*.tsv
run_set indep-91 "$d"/indep91/a9*.tsv
run_set indep-flatnoise-93 "$d"/indep91/flat9*.tsv
run_set families "$d"/families/*.tsv "$top"/landscapes/heldout/*.tsv
# pooled NAME SET...: ours over several sets at once, by the shape of
# the true best (a set of 1,000 campaigns moves by half a point by
# chance; the pool, by a fifth of that).
pooled() {
	name=$1
	shift
	for p in "$@"; do cat "$out/policy-$p.tsv"; done | awk -F'\t' -v name="$name" '
	    $1 == "ours" { r[$2] += $3; f[$2] += $4; g[$2] += $9 * $3 }
	    END {
		printf "# %s, pooled: ours found %.2f%% of %d at %.2f%% of the grid per campaign;", name, 100 * f["all"] / r["all"], r["all"], 100 * g["all"] / r["all"]
		for (x in r) if (x != "all" && r[x] >= 20) printf " %s %.1f%% of %d", x, 100 * f[x] / r[x], r[x]
		print "" }'
}

echo
pooled shapes tuning check report-8001 report-9001 report-10001 report-13001 report-14001 report-15001 report-16001 report-17001 report-18001 report-19001
pooled indep indep indep-31 indep-41 indep-51 indep-61 indep-71 indep-81 indep-91
pooled indep-flatnoise indep-flatnoise-33 indep-flatnoise-43 indep-flatnoise-53 indep-flatnoise-63 indep-flatnoise-73 indep-flatnoise-83 indep-flatnoise-93
target tuning
target check
target report-8001
target report-9001
target report-10001
target report-noisy-12001
target indep
target report-13001
target indep-31
target indep-flatnoise-33
target report-14001
target indep-41
target indep-flatnoise-43
target report-15001
target indep-51
target indep-flatnoise-53
target report-16001
target indep-61
target indep-flatnoise-63
target report-17001
target indep-71
target indep-flatnoise-73
target report-18001
target indep-81
target indep-flatnoise-83
target report-19001
target indep-91
target indep-flatnoise-93
exit $ok
