#!/bin/sh
# Peak memory of a whole recorded `mcsim run` as the run gets longer
# (issue 18: flat in the run's length). bench/aborts.yaml has about 3,500
# aborted calls a second, which the run's accounting (cli/acct/tacc.c)
# once kept one by one. Prints, per duration (default 1s 10s 100s): the
# maximum resident set size (getrusage's ru_maxrss, as /usr/bin/time
# reports it), the aborted calls, the wall seconds (machine-dependent),
# and the database file's size (which does grow with the run).
#
#   bench/tacc_mem.sh MCSIM [SCENARIO [DURATION...]]
set -eu
[ $# -ge 1 ] || { echo "usage: tacc_mem.sh MCSIM [SCENARIO [DURATION...]]" >&2; exit 2; }
bin=$1
scenario=${2:-$(dirname "$0")/aborts.yaml}
[ $# -ge 2 ] && shift 2 || shift $#
[ $# -ge 1 ] || set -- 1s 10s 100s
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '%-8s %12s %14s %8s %12s\n' duration 'max RSS KiB' 'aborted calls' wall 'file KiB'
for d in "$@"; do
    db=$dir/run.db
    rm -f "$db"
    /usr/bin/time -f '%M %e' -o "$dir/time" "$bin" run "$scenario" --duration "$d" -o "$db" \
        --quiet >/dev/null || [ $? -eq 1 ]
    calls=$(sqlite3 "$db" "SELECT count(*) FROM events WHERE kind = 'call_aborted'")
    set -- $(cat "$dir/time")
    printf '%-8s %12s %14s %8s %12s\n' "$d" "$1" "$calls" "$2" $(( $(stat -c %s "$db") / 1024 ))
done
