#!/bin/bash
# Runs the 16 campaigns of the reference study (campaigns/reference/) with the SystemC scheduler model and
# with the RTL scheduler, at low priority, and prints per configuration and implementation the injections
# per hour, the share of runs stopped early, and each implementation's total wall time.
# Targets: all 16 (about 111,000 injections) in at most 10 min with the model, 15 with the RTL; with pruning
# (the default), the model's in at most 90 s (issue 24; 262 s without pruning on the machine it was set on).
#
#   bench/reference_study.sh [--model-only] [--baseline] [OUT_DIR] [extra scripts/reference-study options]
#
# OUT_DIR (default bench-study) gets model/ and rtl/, each with the stores and summary.md. Existing
# stores are resumed, so remove OUT_DIR for a fresh measurement. --model-only skips the RTL half.
# --baseline also runs the model's study with --no-pruning (in OUT_DIR/model-no-pruning; several times
# longer) and prints how much faster pruning made it on this machine, against the target's 262 / 90, and
# whether the two AVF tables are equal cell by cell (they must be: pruning is exact).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
impls="model rtl"
baseline=0
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --model-only) impls=model ;;
    --baseline) baseline=1 ;;
    *) echo "bench/reference_study.sh: unknown option $1 (before OUT_DIR: --model-only, --baseline)" >&2; exit 2 ;;
  esac
  shift
done
out=${1:-bench-study}
shift || true
mkdir -p "$out"

# Runs one study into $out/$1 (reference-study options after it); sets `wall` (seconds, 1 decimal).
study() {
  local dir=$1
  shift
  local t0 t1
  t0=$(date +%s.%N)
  nice -n 10 "$root/scripts/reference-study" --out "$out/$dir" "$@" >/dev/null 2>"$out/$dir.log" ||
    { cat "$out/$dir.log" >&2; exit 1; }
  t1=$(date +%s.%N)
  wall=$(printf "%.1f" "$(echo "$t1 - $t0" | bc)")
}

# The AVF cells of a summary (configuration to Timeout AVF, the first table).
avf_cells() { grep -E '^\| [a-zA-Z]+-[0-9]+b-[0-9]sm \| [0-9]' "$1" | cut -d'|' -f2-8; }

# The targets are for the whole study: with extra options (--count, --only) no verdict is given.
full=$(($# == 0))
verdict() {
  if ((!full)); then echo "no verdict (options given: not the whole study)"
  elif (($(echo "$1 <= $2" | bc))); then echo met
  else echo MISSED; fi
}

for impl in $impls; do
  study "$impl" --impl "$impl" "$@"
  limit=$([[ $impl == model ]] && echo 600 || echo 900)
  echo "== $impl: total wall time $wall s (scripts/reference-study, exports included): ≤ $((limit / 60)) min: $(verdict "$wall" "$limit")"
  [[ $impl == model ]] && { pruned_wall=$wall; echo "   with pruning ≤ 90 s (issue 24): $(verdict "$wall" 90)"; }
  # configuration, runs, injections/h, stopped early (columns of summary.md's first table)
  awk -F' [|] ' '/^\| [a-zA-Z]+-[0-9]+b-[0-9]sm \| [0-9]/ { printf "  %-26s %6s runs %12s inj/h  early %s\n", substr($1, 3), $2, $9, $10 }
                 /^Total:/ { print "  " $0 }' "$out/$impl/summary.md"
done

if ((baseline)) && [[ $impls == *model* ]]; then
  study model-no-pruning --impl model --no-pruning "$@"
  echo "== model without pruning: total wall time $wall s; pruning made the study $(printf "%.1f" "$(echo "$wall / $pruned_wall" | bc -l)")x faster here (the target asks 262 / 90 = 2.9x)"
  if diff <(avf_cells "$out/model/summary.md") <(avf_cells "$out/model-no-pruning/summary.md") >/dev/null; then
    echo "   AVF tables with and without pruning: equal in every cell"
  else
    echo "   AVF tables with and without pruning DIFFER:" >&2
    diff <(avf_cells "$out/model/summary.md") <(avf_cells "$out/model-no-pruning/summary.md") >&2 || true
    exit 1
  fi
fi
