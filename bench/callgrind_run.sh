#!/bin/sh
# The whole recorded `mcsim run SCENARIO -o FILE.db [OPTIONS]` process, as
# a user waits for it: loading, the simulation writing its rows, the
# expectation checks and their verdicts, the summary (the per-thread
# accounting and the fragmentation diagnosis). Prints, per case:
#   wall        seconds of one plain run of the process (not under valgrind;
#               depends on the machine and its load)
#   total       instructions of the whole process (callgrind; does not)
#   open        of which db_open: opening the file (a new one: its schema)
#   record      of which eng_run: the simulation and the rows it writes
#   check       of which expect_evaluate_acc: the expectations
#   summary     of which summary_print: the summary after the verdicts,
#   tstats      of it tstats_from: the per-thread accounting table
#   fragment    and fragment_print: the fragmentation diagnosis
# Storing the verdicts and loading the scenario are the rest. Without
# --quiet, which would skip the summary. The phases are named by their
# functions: one the binary no longer has (renamed, or inlined away) stops
# the script with its name rather than printing 0.
#
#   bench/callgrind_run.sh MCSIM SCENARIO [mcsim run options...]
#
# e.g. bench/callgrind_run.sh build/default/mcsim bench/twenty_threads.yaml --trace full.
# The bench_callgrind_run target runs bench/rm10.yaml and
# bench/twenty_threads.yaml (10 s simulated each, --trace sched).
# MCSIM_BENCH_NO_CALLGRIND=1 prints the wall time alone.
set -eu
[ $# -ge 2 ] || { echo "usage: callgrind_run.sh MCSIM SCENARIO [mcsim run options...]" >&2; exit 2; }
bin=$1
scenario=$2
shift 2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

ns() { date +%s%N; }
t0=$(ns)
"$bin" run "$scenario" -o "$dir/wall.db" "$@" > "$dir/out" 2> "$dir/err" || rc=$?
t1=$(ns)
case "${rc:-0}" in 0 | 1) ;; *) cat "$dir/err" >&2; exit 3 ;; esac
printf 'mcsim run %s %s\n' "$(basename "$scenario")" "$*"
printf '  %-10s %16s s\n' wall "$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", (b - a) / 1e9}')"
[ "${MCSIM_BENCH_NO_CALLGRIND:-0}" = 1 ] && exit 0

phases="db_open eng_run expect_evaluate_acc summary_print tstats_from fragment_print"
for f in $phases; do
    nm "$bin" 2>/dev/null | grep -Eq " [tT] $f([.][a-z_.0-9]+)?\$" ||
        { echo "callgrind_run.sh: $bin has no function $f (renamed? update the phases here)" >&2; exit 3; }
done
command -v valgrind >/dev/null || { echo "callgrind_run.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
valgrind --tool=callgrind --callgrind-out-file="$dir/cg" \
    "$bin" run "$scenario" -o "$dir/cg.db" "$@" > "$dir/out" 2> "$dir/err" || rc=$?
case "${rc:-0}" in 0 | 1) ;; *) cat "$dir/err" >&2; exit 3 ;; esac
callgrind_annotate --inclusive=yes --threshold=100 "$dir/cg" > "$dir/annotated" 2>/dev/null
phase() { # the inclusive instructions of function $1 (or a copy the optimiser
    # made of it: NAME.constprop.0, NAME.lto_priv.0), 0 if it never ran
    awk -v f="$1" '$0 ~ ":" f "([.][a-z_.0-9]+)? " {gsub(",", "", $1); print $1; found = 1; exit}
        END {if (!found) print 0}' "$dir/annotated"
}
printf '  %-10s %16s instructions\n' total "$(awk '/^totals:/ {print $2}' "$dir/cg")"
printf '  %-10s %16s\n' open "$(phase db_open)" record "$(phase eng_run)" \
    check "$(phase expect_evaluate_acc)" summary "$(phase summary_print)" \
    tstats "$(phase tstats_from)" fragment "$(phase fragment_print)"
