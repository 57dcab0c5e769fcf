#!/bin/bash
# scripts/plot_campaign.py on a 30-fault campaign: every PNG it promises exists and is not empty.
# Exits 77 (CTest: skipped) when /usr/bin/python3 has no matplotlib.
#   plot_campaign_test.sh GPUVP SOURCE_DIR WORK_DIR
set -euo pipefail
gpuvp=$1 src=$2 work=$3
/usr/bin/python3 -c 'import matplotlib' 2>/dev/null || { echo "no matplotlib in /usr/bin/python3: skipped"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
cat >"$work/tiny.json" <<'JSON'
{
  "name": "plot test: 30 SEUs, vectorAdd 16 blocks, 1 SM",
  "platform": {"preset": "flexgrip", "set": {"sm.count": 1}},
  "workload": {"name": "vectorAdd", "launch": "fi16"},
  "targets": ["gpu.sched.*"],
  "size": {"count": 30},
  "seed": 7
}
JSON
"$gpuvp" campaign run "$work/tiny.json" --db "$work/tiny.db" --quiet --workers 1
/usr/bin/python3 "$src/scripts/plot_campaign.py" "$work/png" "$work/tiny.db" --gpuvp "$gpuvp"
for f in profile_tiny.png avf_tiny.png mtbf.png; do
  [ -s "$work/png/$f" ] || { echo "missing or empty: $f"; exit 1; }
done
echo "ok: $(ls "$work/png")"
