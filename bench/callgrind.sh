#!/bin/sh
# Instructions per kernel entry, counted by callgrind in eng_run alone
# (loading and set-up outside it): the 10-task RM set and the two scaling
# forms at 10 and 1,000 threads, each one unrecorded run of mcsim_scale
# --once. Instruction counts do not depend on the machine's load, as wall
# times do. The last column is the first-level data cache misses (loads
# and stores) per entry of callgrind's cache simulation of a fixed cache
# (48 KiB 12-way D1, 4 MiB 16-way last level, 64-byte lines: this
# machine's), where at 1,000 threads the per-thread state an entry
# touches shows. Run as `cmake --build --preset default --target
# bench_callgrind` or bench/callgrind.sh build/default/bench/mcsim_scale;
# cases after the binary replace the default ones, e.g. bench/callgrind.sh
# BIN "periodic 100" "periodic 4000" "devices 100" "devices 4000".
set -eu
bin=${1:-build/default/bench/mcsim_scale}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- "rm" "periodic 10" "periodic 1000" "devices 10" "devices 1000"
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '%-16s %14s %12s %10s %14s %12s\n' case instructions entries jobs "instr/entry" "D1miss/entry"
for c in "$@"; do
    # shellcheck disable=SC2086
    valgrind --tool=callgrind --cache-sim=yes --D1=49152,12,64 --LL=4194304,16,64 \
        --toggle-collect='eng_run*' --callgrind-out-file="$dir/cg" \
        "$bin" --once $c > "$dir/out" 2> "$dir/err" || { cat "$dir/err" >&2; exit 3; }
    ir=$(awk '/^events:/ {for (i = 2; i <= NF; i++) n[i] = $i} /^totals:/ {for (i = 2; i <= NF; i++) if (n[i] == "Ir") print $i}' "$dir/cg")
    d1=$(awk '/^events:/ {for (i = 2; i <= NF; i++) n[i] = $i} /^totals:/ {s = 0; for (i = 2; i <= NF; i++) if (n[i] == "D1mr" || n[i] == "D1mw") s += $i; print s}' "$dir/cg")
    entries=$(sed -n 's/.*: \([0-9]*\) kernel entries, \([0-9]*\) jobs/\1/p' "$dir/out")
    jobs=$(sed -n 's/.*: \([0-9]*\) kernel entries, \([0-9]*\) jobs/\2/p' "$dir/out")
    printf '%-16s %14s %12s %10s %14s %12s\n' "$c" "$ir" "$entries" "$jobs" "$((ir / entries))" \
        "$(awk -v d="$d1" -v e="$entries" 'BEGIN {printf "%.2f", d / e}')"
done
