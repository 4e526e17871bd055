# recipes.sh: the recipes of the shapes sets, sourced by
# landscapes/regen.sh (the small sets committed here) and by
# bench/make-shapes.sh (the large ones made at bench time). Each
# function makes one set with `ar-sched landscape -t shapes`:
#   shapes_tune BIN DIR SEED TIMES PREFIX
#   shapes_check BIN DIR SEED TIMES PREFIX
#   shapes_noisy BIN DIR SEED TIMES PREFIX
# into DIR, the files' seeds SEED, SEED+1, ..., their landscape counts
# TIMES times the small sets', their names PREFIX and the file's. The
# tuning set is for choosing a policy's constants; the check set, for
# reporting, differs from it in its seeds, in its mixes and in its
# methods per landscape, so that a policy tuned on one is not tuned on
# the other's draws nor on its proportions.

# Scale winners rare: few weak1-best, USL peaks at 4 and 8 and Amdahl
# scalers, in the tuning set and, rarer still, in the check set.
SHAPES_RARE_TUNE=amdahl=0.8,usl-peak2=1,usl-peak4=0.4,usl-peak8=0.15,weak1-best4=0.1,weak1-best8=0.1,plateau=0.5,strong1-flat=1.5,strong1-fall=1.5,guard-trap4=0.5,guard-trap8=0.5,crash=1,near-tie=0.4,flat=3,dud=4,noisy=1.5
SHAPES_RARE_CHECK=amdahl=0.6,usl-peak2=1.2,usl-peak4=0.3,usl-peak8=0.1,weak1-best4=0.05,weak1-best8=0.08,plateau=0.4,strong1-flat=2,strong1-fall=2,guard-trap4=0.4,guard-trap8=0.6,crash=0.8,near-tie=0.5,flat=4,dud=5,noisy=1
# The check set's other mix: more traps, crashes, near-ties and noise
# than the default, fewer flat methods.
# The default mix with four times the noisy weight: more campaigns whose
# best is noisy, for tuning the noisy shape (issue 16).
SHAPES_MIX_NOISY=amdahl=2,usl-peak2=1,usl-peak4=1,usl-peak8=0.5,weak1-best4=0.5,weak1-best8=0.5,plateau=1,strong1-flat=1.5,strong1-fall=1.5,guard-trap4=0.5,guard-trap8=0.5,crash=1,near-tie=0.4,flat=3,dud=4,noisy=6
SHAPES_MIX_CHECK=amdahl=1.5,usl-peak2=1.5,usl-peak4=1,usl-peak8=0.7,weak1-best4=0.7,weak1-best8=0.4,plateau=1.5,strong1-flat=1,strong1-fall=2,guard-trap4=1,guard-trap8=0.8,crash=1.5,near-tie=0.8,flat=2,dud=3,noisy=2

shapes_tune() {
	"$1" landscape -t shapes -n $((30 * $4)) -m 8-80 -s "$3" -x "${5}mix" > "$2/mixed.tsv"
	"$1" landscape -t shapes -n $((30 * $4)) -m 8-80 -s $(($3 + 1)) -x "${5}rare" --mix "$SHAPES_RARE_TUNE" > "$2/rare-scale.tsv"
	"$1" landscape -t shapes -n $((15 * $4)) -m 8-80 -s $(($3 + 2)) -x "${5}hint" --hints 0.5 > "$2/hinted.tsv"
}

shapes_check() {
	"$1" landscape -t shapes -n $((40 * $4)) -m 8-40 -s "$3" -x "${5}mix" --mix "$SHAPES_MIX_CHECK" > "$2/mixed.tsv"
	"$1" landscape -t shapes -n $((40 * $4)) -m 8-40 -s $(($3 + 1)) -x "${5}rare" --mix "$SHAPES_RARE_CHECK" > "$2/rare-scale.tsv"
	"$1" landscape -t shapes -n $((8 * $4)) -m 60-80 -s $(($3 + 2)) -x "${5}wide" > "$2/wide.tsv"
	"$1" landscape -t shapes -n $((15 * $4)) -m 16-48 -s $(($3 + 3)) -x "${5}hint" --hints 0.3 --mix "$SHAPES_MIX_CHECK" > "$2/hinted.tsv"
}

# A tuning set of many noisy-best campaigns: the tuning recipe TIMES
# times, seeds SEED to SEED+2, and 20 TIMES landscapes of the noisy mix,
# seed SEED+3. At TIMES 150 and seeds 11001-11004 (bench/make-shapes.sh
# -n): 14250 landscapes, 381 of them with a noisy best.
shapes_noisy() {
	shapes_tune "$@"
	"$1" landscape -t shapes -n $((20 * $4)) -m 8-80 -s $(($3 + 3)) -x "${5}noisy" --mix "$SHAPES_MIX_NOISY" > "$2/noisy-rich.tsv"
}
