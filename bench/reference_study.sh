#!/bin/bash
# Runs the 16 campaigns of the reference study (campaigns/reference/) with the SystemC scheduler model and
# with the RTL scheduler, at low priority, and prints per configuration and implementation the injections
# per hour, the share of runs stopped early, and each implementation's total wall time.
# Target (the issue): all 16 (about 111,000 injections) in at most 10 min with the model, 15 with the RTL.
#
#   bench/reference_study.sh [OUT_DIR] [extra scripts/reference-study options, e.g. --count 200]
#
# OUT_DIR (default bench-study) gets model/ and rtl/, each with the stores and summary.md. Existing
# stores are resumed, so remove OUT_DIR for a fresh measurement.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-bench-study}
shift || true
mkdir -p "$out"
for impl in model rtl; do
  t0=$(date +%s.%N)
  nice -n 10 "$root/scripts/reference-study" --impl "$impl" --out "$out/$impl" "$@" >/dev/null 2>"$out/$impl.log" ||
    { cat "$out/$impl.log" >&2; exit 1; }
  t1=$(date +%s.%N)
  echo "== $impl: total wall time $(printf "%.1f" "$(echo "$t1 - $t0" | bc)") s (scripts/reference-study, exports included)"
  # configuration, runs, injections/h, stopped early (columns of summary.md's first table)
  awk -F' [|] ' '/^\| [a-zA-Z]+-[0-9]+b-[0-9]sm \| [0-9]/ { printf "  %-26s %6s runs %12s inj/h  early %s\n", substr($1, 3), $2, $9, $10 }
                 /^Total:/ { print "  " $0 }' "$out/$impl/summary.md"
done
