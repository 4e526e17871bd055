#!/bin/sh
# regen.sh [ar-sched]: remakes every landscape file here with
# `ar-sched landscape` and the fixed seeds below. The tuning set (*.tsv)
# is what the policy was tuned on; heldout/ uses other seeds, the same
# recipes, and was not looked at while tuning. shapes/ is made by the
# shapes recipe (-t shapes, shapes/recipes.sh): shapes/tune/ to tune on,
# shapes/check/ to report on.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
s=${1:-$here/../build/bin/ar-sched}
few=flat=3,scaler=0.5,contend=2,infeasible=1,noisy=1,dud=2
"$s" landscape -n 60 -m 12 -s 1 -x mixed > "$here/mixed.tsv"
"$s" landscape -n 40 -m 12 -s 2 -x few --mix "$few" > "$here/few-scalers.tsv"
"$s" landscape -n 20 -m 24 -s 3 -x wide > "$here/wide.tsv"
"$s" landscape -n 60 -m 12 -s 101 -x hmixed > "$here/heldout/mixed.tsv"
"$s" landscape -n 40 -m 12 -s 102 -x hfew --mix "$few" > "$here/heldout/few-scalers.tsv"
"$s" landscape -n 20 -m 24 -s 103 -x hwide > "$here/heldout/wide.tsv"
. "$here/shapes/recipes.sh"
mkdir -p "$here/shapes/tune" "$here/shapes/check"
shapes_tune "$s" "$here/shapes/tune" 201 1 st
shapes_check "$s" "$here/shapes/check" 301 1 sc
