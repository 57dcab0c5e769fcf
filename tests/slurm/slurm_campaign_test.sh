#!/bin/bash
# scripts/slurm-campaign on a real one-node Slurm (tests/slurm/slurm-fixture): a 120-fault campaign in
# 4 shards (an array job and a merge job after it) gives the same runs as one `gpuvp campaign run`
# (exports compared without host_ms and shard); run again, it submits nothing; with one shard's store
# removed, it submits that shard and a merge, and the result is the same again; a campaign with more
# shards than faults (an empty shard) merges.
# Exits 77 (CTest: skipped) only when slurm-wlm or munge is not installed.
#   slurm_campaign_test.sh GPUVP SOURCE_DIR WORK_DIR
set -uo pipefail
[ $# -eq 3 ] || { echo "usage: slurm_campaign_test.sh GPUVP SOURCE_DIR WORK_DIR" >&2; exit 2; }
gpuvp=$1 src=$2 work=$3
PATH=$PATH:/usr/sbin
for p in munged mungekey slurmctld slurmd sbatch squeue sinfo scancel; do
  command -v "$p" >/dev/null 2>&1 || { echo "$p not installed (slurm-wlm, munge): skipped"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "FAIL: the Slurm fixture runs its daemons as root; run this test as root"; exit 1; }

rm -rf "$work" && mkdir -p "$work/out" || exit 1
work=$(cd "$work" && pwd)
# The munge socket path must fit a sockaddr_un (108 bytes): the cluster lives in a short /tmp path.
cluster=$(mktemp -d /tmp/gpuvp-slurm.XXXXXX) || exit 1
cleanup() {
  "$src/tests/slurm/slurm-fixture" stop "$cluster" >/dev/null 2>&1
  rm -rf "$cluster"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

failed() {
  echo "FAIL: $*"
  for f in "$work"/out/slurm/logs/*.out; do [ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }; done
  for f in slurmctld.log slurmd.log; do echo "--- $f (tail)"; tail -n 20 "$cluster/$f" 2>/dev/null; done
  exit 1
}

timeout 120 "$src/tests/slurm/slurm-fixture" start "$cluster" >/dev/null || failed "the Slurm fixture did not start"
export SLURM_CONF=$cluster/slurm.conf
echo "cluster up: $(sinfo -h -o '%P %a %D %t %N')"

sed 's/"size": {"count": 500}/"size": {"count": 120}/' "$src/campaigns/quick.json" >"$work/q120.json"
grep -q '"count": 120' "$work/q120.json" || failed "could not make the 120-fault campaign from campaigns/quick.json"

# Waits (at most 5 minutes) until job $1 has left the queue.
wait_job() {
  local id=$1 i
  for i in $(seq 1500); do
    [ -z "$(squeue -h -j "$id" -o %i 2>/dev/null)" ] && return 0
    sleep 0.2
  done
  squeue
  failed "job $id still in the queue after 5 minutes"
}

# Exports of $1 and $2 equal run by run, without the host_ms and shard columns.
same_runs() {
  "$gpuvp" campaign export "$1" --csv - >"$work/a.csv" || failed "export of $1"
  "$gpuvp" campaign export "$2" --csv - >"$work/b.csv" || failed "export of $2"
  /usr/bin/python3 - "$work/a.csv" "$work/b.csv" <<'PY' || failed "$1 and $2 differ"
import csv, sys
def rows(path):
    with open(path, newline="") as f:
        r = list(csv.DictReader(f))
    for x in r:
        x.pop("host_ms", None); x.pop("shard", None)
    return sorted(r, key=lambda x: int(x["id"]))
a, b = rows(sys.argv[1]), rows(sys.argv[2])
if len(a) != 120 or len(b) != 120:
    sys.exit(f"{len(a)} and {len(b)} runs, expected 120")
diff = [(x, y) for x, y in zip(a, b) if x != y]
for x, y in diff[:5]:
    print("merged:", x, "\nsingle:", y)
sys.exit(1 if diff else 0)
PY
}

submit() {
  "$src/scripts/slurm-campaign" "$work/q120.json" --shards 4 --gpuvp "$gpuvp" --out "$work/out" >"$work/submit.out" ||
    failed "slurm-campaign exited $?"
  cat "$work/submit.out"
}

# 1. Four shards and a merge.
submit
array=$(awk '$1 == "array_job" {print $2}' "$work/submit.out")
merge=$(awk '$1 == "merge_job" {print $2}' "$work/submit.out")
[ -n "$array" ] && [ -n "$merge" ] || failed "no array or merge job id printed"
grep -q "^array_job $array shards 1-4$" "$work/submit.out" || failed "expected shards 1-4"
dep=$(scontrol show job "$merge" | grep -o 'Dependency=[^ ]*')
[[ $dep == *afterok:$array* ]] || [ "$dep" = "Dependency=(null)" ] || failed "merge job: $dep"
wait_job "$merge"
[ -f "$work/out/q120.merged" ] || failed "the merge job left no marker (it failed or never ran)"
for i in 1 2 3 4; do [ -f "$work/out/q120.shard$i-of-4.done" ] || failed "shard $i has no marker"; done

"$gpuvp" campaign run "$work/q120.json" --db "$work/single.db" -q || failed "single-process campaign run"
same_runs "$work/out/q120.db" "$work/single.db"
echo "ok: 4 shards on Slurm merged = one process, run by run"

# 2. Again: everything is done, nothing is submitted.
submit
[ ! -s "$work/submit.out" ] || failed "a second run submitted jobs with everything done"
echo "ok: nothing submitted when all is done"

# 3. Shard 2 lost: only it and a merge are submitted.
rm -f "$work/out/q120.shard2-of-4.db"* "$work/out/q120.shard2-of-4.done"
submit
grep -q '^array_job [0-9]* shards 2$' "$work/submit.out" || failed "expected shard 2 only"
merge=$(awk '$1 == "merge_job" {print $2}' "$work/submit.out")
[ -n "$merge" ] || failed "no merge job submitted"
wait_job "$merge"
[ -f "$work/out/q120.merged" ] || failed "the second merge left no marker"
same_runs "$work/out/q120.db" "$work/single.db"
echo "ok: shard 2 re-run alone, merged again = one process"

# 4. More shards than faults: shard 4 of a 3-fault campaign is empty, finished at once; the merge takes it.
sed 's/"size": {"count": 500}/"size": {"count": 3}/' "$src/campaigns/quick.json" >"$work/q3.json"
"$src/scripts/slurm-campaign" "$work/q3.json" --shards 4 --gpuvp "$gpuvp" --out "$work/out" >"$work/submit.out" ||
  failed "slurm-campaign exited $? (3 faults, 4 shards)"
merge=$(awk '$1 == "merge_job" {print $2}' "$work/submit.out")
[ -n "$merge" ] || failed "no merge job submitted (3 faults, 4 shards)"
wait_job "$merge"
[ -f "$work/out/q3.merged" ] || failed "the merge of a campaign with an empty shard failed"
rows=$("$gpuvp" campaign export "$work/out/q3.db" --csv - | tail -n +2 | wc -l)
[ "$rows" -eq 3 ] || failed "the merge of 3 faults in 4 shards has $rows runs"
echo "ok: an empty shard is finished and merged"
