#!/usr/bin/env bash
# The pruning identity tests (tests/faultinj/*_lifetimes_test.cc, pruning_test.cc) on their full fault
# lists: CI runs a sparser list of the same structure in each; GPUVP_PRUNING_DENSE=1 gives them the
# dense lists they were written with. Per test case: passed or failed, wall and CPU seconds (user + sys,
# the campaigns' processes included), and each comparison's counts (faults, pruned as dead, sharing a
# run, not masked without pruning). --ci runs the CI lists instead (the same report, to compare).
#
#   bench/pruning_dense.sh [--ci] [BUILD_DIR] [NAME_PREFIX ...]
#
# NAME_PREFIX selects test cases whose name starts with it (default: every pruning identity test).
# Exit status: the number of failed test cases (0: every comparison held).
set -u
dense=1
if [[ ${1:-} == --ci ]]; then
  dense=0
  shift
fi
build=${1:-build}
[[ $# -gt 0 ]] && shift
exe=$build/tests/test_faultinj
if [[ ! -x $exe ]]; then
  echo "pruning_dense.sh: $exe not found (build the test_faultinj and gpuvp targets of $build)" >&2
  exit 2
fi
prefixes=("$@")
[[ ${#prefixes[@]} -eq 0 ]] && prefixes=("pruning:" "exhaustive: one run" "cache pruning:" "state pruning:" "warp pruning:"
                                         "mem pruning:" "sm pruning:" "dispatch pruning:")
failed=0
while IFS= read -r name; do
  keep=0
  for p in "${prefixes[@]}"; do [[ $name == "$p"* ]] && keep=1; done
  [[ $keep == 1 ]] || continue
  log=$(mktemp)
  # Catch2 reads a comma as "or" in a test spec: escape it.
  /usr/bin/time -f '%e %U %S' -o "$log.time" env GPUVP_PRUNING_DENSE=$dense "$exe" "${name//,/\\,}" >"$log" 2>&1
  status=$?
  read -r wall user sys < <(tail -n 1 "$log.time")  # after time's own line on a failure
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')
  verdict=passed
  if [[ $status != 0 ]]; then
    verdict=FAILED
    failed=$((failed + 1))
  fi
  echo "$verdict  wall ${wall} s  cpu ${cpu} s  $name"
  grep '^  compared ' "$log"
  [[ $status != 0 ]] && tail -n 40 "$log"
  rm -f "$log" "$log.time"
done < <("$exe" --list-test-names-only | sed -n 's/^\([a-z].*\)$/\1/p')
exit $failed
