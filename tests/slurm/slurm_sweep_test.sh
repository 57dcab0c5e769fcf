#!/bin/bash
# The Slurm recipe of docs/user-guide.md ("Sweeps") on a real one-node cluster (tests/slurm/slurm-fixture):
# an array job of 3 shards (`gpuvp sweep FILE --shard I/3`) and a merge job after it (`gpuvp sweep merge`)
# give the table of a single `gpuvp sweep` of the same 3 x 3 grid.
# Exits 77 (CTest: skipped) when slurm-wlm or munge is not installed.
#   slurm_sweep_test.sh GPUVP SOURCE_DIR WORK_DIR
set -uo pipefail
[ $# -eq 3 ] || { echo "usage: slurm_sweep_test.sh GPUVP SOURCE_DIR WORK_DIR" >&2; exit 2; }
gpuvp=$1 src=$2 work=$3
PATH=$PATH:/usr/sbin
command -v slurmctld >/dev/null 2>&1 && command -v munged >/dev/null 2>&1 || { echo "no slurm-wlm or munge: skipped"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "FAIL: the Slurm fixture runs its daemons as root"; exit 1; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
cluster=$(mktemp -d /tmp/gpuvp-sweep-slurm.XXXXXX) || exit 1  # short: the munge socket path is bounded
trap '"$src/tests/slurm/slurm-fixture" stop "$cluster" >/dev/null 2>&1; rm -rf "$cluster"' EXIT
timeout 120 "$src/tests/slurm/slurm-fixture" start "$cluster" >/dev/null || { echo "FAIL: no cluster"; exit 1; }
export SLURM_CONF=$cluster/slurm.conf
cat >big.json <<'JSON'
{"preset": "flexgrip", "workload": "vectorAdd:small",
 "axes": [{"key": "sm.count", "values": [1, 2, 4]}, {"key": "gmem.latency", "values": [2, 20, 200]}]}
JSON
"$gpuvp" sweep big.json --out single -q || { echo "FAIL: the single sweep"; exit 1; }
array=$(sbatch --parsable --array=1-3 --wrap "$gpuvp sweep big.json --shard \$SLURM_ARRAY_TASK_ID/3 --out big.shard\$SLURM_ARRAY_TASK_ID -q")
merge=$(sbatch --parsable --dependency=afterok:"$array" --wrap "$gpuvp sweep merge big.out big.shard*")
for _ in $(seq 600); do
  [ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] && break
  sleep 0.2
done
cmp single/results.csv big.out/results.csv || { echo "FAIL: the merged table differs"; tail -n 5 slurm-*.out; exit 1; }
echo "ok: $(($(wc -l <big.out/results.csv) - 1)) points through array job $array and merge job $merge"
