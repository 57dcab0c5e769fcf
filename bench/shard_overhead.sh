#!/bin/bash
# The CPU cost of sharding: one campaign run as one process, then as N shards (one after the other)
# plus their merge. Prints the total CPU time (user + sys of every process, children included, as
# /usr/bin/time reports for each command) of both and the overhead of the sharded way in %.
# Target (the issue): at most 5 % with 4 shards. Each shard repeats the golden run, the checkpoint
# pass and the leader's simulation of the golden run up to its last fault: that is the overhead.
#
#   bench/shard_overhead.sh [GPUVP (default build/gpuvp)] [FAULTS (default 3000)] [SHARDS (default 4)] [ROUNDS (default 3)]
#
# A run of this campaign takes a few ms, so the machine's load moves each figure by a few %: the two
# ways are measured in alternation, ROUNDS times, and the totals compared.
#
# The campaign: vectorAdd (launch fi32) on 2 SMs, bit flips in the scheduler (gpu.sched.*), 2 workers.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gpuvp=${1:-$root/build/gpuvp}
faults=${2:-3000}
shards=${3:-4}
rounds=${4:-3}
[ -x "$gpuvp" ] || { echo "shard_overhead.sh: $gpuvp: not an executable (build gpuvp first)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "shard_overhead.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/bench.json" <<JSON
{
  "name": "shard overhead: vectorAdd fi32, 2 SMs, $faults SEUs",
  "platform": {"preset": "flexgrip", "set": {"sm.count": 2}},
  "workload": {"name": "vectorAdd", "launch": "fi32"},
  "targets": ["gpu.sched.*"],
  "size": {"count": $faults},
  "seed": 42,
  "workers": 2
}
JSON
# cpu CMD...: runs CMD, adds its user + sys seconds (children included) to the file $work/cpu.
cpu() {
  /usr/bin/time -f "%U %S" -o "$work/t" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  awk '{ print $1 + $2 }' "$work/t" >>"$work/cpu"
}
sum() { awk '{ s += $1 } END { printf "%.2f\n", s }' "$work/cpu"; }

: >"$work/single"
: >"$work/sharded"
for round in $(seq 1 "$rounds"); do
  rm -f "$work"/*.db
  : >"$work/cpu"
  cpu "$gpuvp" campaign run "$work/bench.json" --db "$work/single.db" -q
  sum >>"$work/single"
  : >"$work/cpu"
  list=()
  for i in $(seq 1 "$shards"); do
    cpu "$gpuvp" campaign run "$work/bench.json" --shard "$i/$shards" --db "$work/s$i.db" -q
    list+=("$work/s$i.db")
  done
  cpu "$gpuvp" campaign merge "$work/merged.db" "${list[@]}"
  sum >>"$work/sharded"
  echo "round $round: one process $(tail -1 "$work/single") s, $shards shards + merge $(tail -1 "$work/sharded") s"
done
total() { awk '{ s += $1 } END { printf "%.2f", s }' "$1"; }
single=$(total "$work/single")
sharded=$(total "$work/sharded")
# The merged store must hold the single run's faults and outcomes: every column but host_ms and shard
# (the last two), and early_stop and detail, which are compared apart: whether a masked run is stopped
# early can depend on the leader's earlier stops (it stops at its own faults' instants only), which
# the engine owns.
cols() { "$gpuvp" campaign export "$1" --csv - | awk -F, -v OFS=, "{ NF -= 2; print }"; }
cols "$work/single.db" >"$work/a.csv"
cols "$work/merged.db" >"$work/b.csv"
outcomes() { awk -F, -v OFS=, '{ print $1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$(NF-2),$(NF-1) }' "$1"; }
cmp -s <(outcomes "$work/a.csv") <(outcomes "$work/b.csv") ||
  { echo "shard_overhead.sh: the merged store's faults or outcomes differ from the single run's" >&2; exit 1; }
early=$(paste -d'|' "$work/a.csv" "$work/b.csv" | awk -F'|' '$1 != $2' | wc -l)
echo "campaign: $faults faults, vectorAdd fi32 on 2 SMs, 2 workers; totals of $rounds rounds"
echo "one process:           $single s CPU (user + sys)"
echo "$shards shards + merge:     $sharded s CPU (user + sys)"
echo "runs stopped early in one and not the other: $early of $faults (same outcome)"
awk -v a="$single" -v b="$sharded" 'BEGIN { printf "overhead:              %.1f %% (target: at most 5 %%)\n", 100 * (b - a) / a }'
