#!/bin/sh
# Instructions per set of `mcsim sweep`, by phase, counted by callgrind in
# one process (-j 1): the sweep of bench/sweep8.yaml (8 tasks, 1 s simulated
# per set) with SETS sets per utilisation point (default 20: 100 sets).
# Phases (inclusive counts): generating the set's YAML and loading it
# (sweep_set_scenario), the analysis (analysis_run), the simulation
# (eng_run), and the rest (the database, the CSV files; gnuplot runs in a
# process of its own and is not counted). Instruction counts do not depend
# on the machine's load, as mcsim_bench_sweep's wall times do. Run as
# `cmake --build --preset default --target bench_callgrind_sweep` or
# bench/callgrind_sweep.sh build/default/mcsim [SPEC] [SETS].
set -eu
bin=${1:-build/default/mcsim}
spec=${2:-$(dirname "$0")/sweep8.yaml}
sets=${3:-20}
command -v valgrind >/dev/null || { echo "callgrind_sweep.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
sed "s/^sets: .*/sets: $sets/" "$spec" > "$dir/spec.yaml"
valgrind --tool=callgrind --callgrind-out-file="$dir/cg" "$bin" sweep "$dir/spec.yaml" \
    -o "$dir/out" -j 1 --quiet > "$dir/log" 2>&1 || { cat "$dir/log" >&2; exit 3; }
# one row per set and scheduler in results.csv, after its # lines and header
rows=$(grep -vc '^#' "$dir/out/results.csv")
n=$(awk -F, '!/^#/ && NR > 1 && $1 != "set_id" {print $1}' "$dir/out/results.csv" | sort -u | wc -l)
callgrind_annotate --inclusive=yes "$dir/cg" > "$dir/annotated"
count() { # the inclusive instructions of function $1
    awk -v f="$1" '{ gsub(",", "", $1); n = split($NF, a, ":"); name = $0; sub(/ \[.*/, "", name);
        if (name ~ (":" f "(\\.[a-z_.0-9]+)?$")) { print $1; exit } }' "$dir/annotated"
}
total=$(awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }' "$dir/annotated")
gen=$(count sweep_set_scenario)
ana=$(count analysis_run)
sim=$(count eng_run)
rest=$((total - gen - ana - sim))
echo "mcsim sweep $(basename "$spec") with $sets sets a point: $n sets, $((rows - 1)) results, -j 1"
printf '%-34s %16s %14s %7s\n' phase instructions "per set" share
for p in "generate and load:$gen" "analysis:$ana" "simulation:$sim" "the rest (database, CSV, start):$rest" "total:$total"; do
    name=${p%:*}
    v=${p##*:}
    printf '%-34s %16s %14s %6s%%\n' "$name" "$v" "$((v / n))" "$((v * 100 / total))"
done
