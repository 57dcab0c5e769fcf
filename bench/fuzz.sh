#!/bin/bash
# The long fuzzing run (the CI runs a short one: ctest -R fuzz): every reader for SECONDS each (default
# 600) with a seed of the clock, so each run explores new inputs. Failing inputs are kept in KEEP_DIR
# (default bench-fuzz-failures) with the command that failed; the exit status is 1 if there were any.
#
#   bench/fuzz.sh [SECONDS] [KEEP_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-600}
keep=${2:-bench-fuzz-failures}
seed=$(date +%s)
echo "fuzz: seed $seed, $seconds s per reader (repeat with: scripts/fuzz.py --seed $seed --seconds $seconds)"
exec python3 "$root/scripts/fuzz.py" --gpuvp "$root/build/gpuvp" --seconds "$seconds" --seed "$seed" --keep "$keep"
