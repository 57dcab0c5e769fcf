#!/bin/bash
# scripts/plot_sweep.py on a 2 x 2 sweep: a PNG and an SVG with one line per value of the --lines axis;
# an unknown column and an axis left unfixed are refused (exit 2) naming them.
# Exits 77 (CTest: skipped) when /usr/bin/python3 has no matplotlib.
#   plot_sweep_test.sh GPUVP SOURCE_DIR WORK_DIR
set -euo pipefail
gpuvp=$1 src=$2 work=$3
/usr/bin/python3 -c 'import matplotlib' 2>/dev/null || { echo "no matplotlib in /usr/bin/python3: skipped"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
cat >"$work/grid.json" <<'JSON'
{"preset": "flexgrip", "workload": "vectorAdd:small",
 "axes": [{"key": "sm.count", "values": [1, 2]}, {"key": "gmem.latency", "values": [2, 20]}]}
JSON
"$gpuvp" sweep "$work/grid.json" --out "$work/out" --quiet
plot() { /usr/bin/python3 "$src/scripts/plot_sweep.py" "$@"; }
expect() {  # expect STATUS TEXT COMMAND...: the exit status and a text of its output
  local want=$1 text=$2; shift 2
  set +e; out=$("$@" 2>&1); rc=$?; set -e
  [ "$rc" = "$want" ] || { echo "exit $rc, not $want: $*"; echo "$out"; exit 1; }
  [[ $out == *"$text"* ]] || { echo "no '$text' in the output of $*:"; echo "$out"; exit 1; }
}
expect 0 "2 line(s), 4 point(s), 0 left out (not ok) -> $work/c.png" \
  plot "$work/out" --x sm.count --y kernel_cycles --lines gmem.latency -o "$work/c.png"
expect 0 "1 line(s), 2 point(s)" plot "$work/out/results.json" --x sm.count --y warp_ipc --where gmem.latency=20 -o "$work/c.svg"
head -c 8 "$work/c.png" | grep -q PNG || { echo "c.png is not a PNG"; exit 1; }
grep -q "<svg" "$work/c.svg" || { echo "c.svg is not an SVG"; exit 1; }
expect 2 "no column 'cycles'" plot "$work/out" --x sm.count --y cycles
expect 2 "axis 'gmem.latency' has several values (2, 20)" plot "$work/out" --x sm.count --y kernel_cycles
expect 2 "not a sweep table" plot "$work/grid.json" --x sm.count --y kernel_cycles
echo ok
