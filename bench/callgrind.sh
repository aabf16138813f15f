#!/bin/sh
# Instructions per kernel entry, counted by callgrind in eng_run alone
# (loading and set-up outside it): the 10-task RM set and the two scaling
# forms at 10 and 1,000 threads, each one unrecorded run of mcsim_scale
# --once. Instruction counts do not depend on the machine's load, as wall
# times do. Run as `cmake --build --preset default --target bench_callgrind`
# or bench/callgrind.sh build/default/bench/mcsim_scale.
set -eu
bin=${1:-build/default/bench/mcsim_scale}
command -v valgrind >/dev/null || { echo "callgrind.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '%-16s %14s %12s %10s %14s\n' case instructions entries jobs "instr/entry"
for c in "rm" "periodic 10" "periodic 1000" "devices 10" "devices 1000"; do
    # shellcheck disable=SC2086
    valgrind --tool=callgrind --toggle-collect='eng_run*' --callgrind-out-file="$dir/cg" \
        "$bin" --once $c > "$dir/out" 2> "$dir/err" || { cat "$dir/err" >&2; exit 3; }
    ir=$(awk '/^totals:/ {print $2}' "$dir/cg")
    entries=$(sed -n 's/.*: \([0-9]*\) kernel entries, \([0-9]*\) jobs/\1/p' "$dir/out")
    jobs=$(sed -n 's/.*: \([0-9]*\) kernel entries, \([0-9]*\) jobs/\2/p' "$dir/out")
    printf '%-16s %14s %12s %10s %14s\n' "$c" "$ir" "$entries" "$jobs" "$((ir / entries))"
done
