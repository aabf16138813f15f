#!/usr/bin/env bash
# slurm.roundtrip (tests/slurm.cmake): a small sweep through a real
# one-node Slurm cluster (scripts/slurm-local) and the same sweep run
# locally give byte-identical CSV files; --no-wait returns a job id whose
# shards `mcsim sweep merge` then combines into the same files. The daemons
# are stopped at the end. A cluster that cannot start is a failure, never
# a skip.
#   slurm_roundtrip.sh MCSIM SOURCE_DIR WORK_DIR
set -euo pipefail
mcsim=$1 src=$2 work=$3
export MCSIM_SLURM_DIR=$work/cluster
rm -rf "$work"
mkdir -p "$work"
cd "$work"
trap '"$src/scripts/slurm-local" stop' EXIT
"$src/scripts/slurm-local" stop
eval "$("$src/scripts/slurm-local" start)"

cat >small.yaml <<'SPEC'
mcsim_sweep: 1
name: small
seed: 7
tasks: {min: 3, max: 5}
utilisation: {from: 0.5, to: 0.9, step: 0.2}
sets: 4
periods: {min: 1ms, max: 20ms, distribution: log-uniform}
schedulers: [mcs, classic]
duration: 60ms
criticality: {hi_share: 0.5, factor: 1.5}
budget: 1.2
SPEC

"$mcsim" sweep small.yaml -o local --quiet
"$mcsim" sweep small.yaml --slurm --shards 3 -o cluster-wait --quiet
for f in results.csv success.csv weighted.csv; do
    cmp "local/$f" "cluster-wait/$f"
done
[ "$(ls cluster-wait/shards)" = "$(printf '0\n1\n2')" ]
[ -s cluster-wait/success.png ] && [ -s cluster-wait/weighted.svg ]

job=$("$mcsim" sweep small.yaml --slurm --shards 2 --no-wait -o cluster-later)
[[ $job =~ ^[0-9]+$ ]] || { echo "not a job id: '$job'"; exit 1; }
for _ in $(seq 1 240); do
    squeue -h -j "$job" 2>/dev/null | grep -q . || break
    sleep 0.5
done
"$mcsim" sweep merge cluster-later --quiet
for f in results.csv success.csv weighted.csv; do
    cmp "local/$f" "cluster-later/$f"
done
echo "slurm.roundtrip: the cluster's CSV files are the local run's"
