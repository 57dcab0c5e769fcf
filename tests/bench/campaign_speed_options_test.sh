#!/bin/sh
# campaign_speed refuses a numeric option that is not a whole number: a message naming the option and
# the value, exit status 2, and no crash (std::stoul used to throw out of main: abort, status 134).
bin="$1"
fail() { echo "FAIL: $*"; exit 1; }
check() {  # option value
  out=$("$bin" "$1" "$2" 2>&1)
  rc=$?
  [ "$rc" -eq 2 ] || fail "$1 $2: exit status $rc, expected 2 (output: $out)"
  echo "$out" | grep -qF "campaign_speed: $1 needs a whole number, got '$2'" || fail "$1 $2: message was: $out"
}
check --faults ten
check --workers -1
check --repeat 3x
check --faults 99999999999999999999
check --workers ""
echo ok
