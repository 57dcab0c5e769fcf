#!/bin/bash
# scripts/slurm-campaign with fake Slurm commands (sbatch records its arguments) and a fake gpuvp, no
# cluster needed: with CDPATH exported, a campaign named 'a%b\c' gets per-task log names ('%' escaped as
# '%%', the backslash replaced) and a task script whose paths are single lines; the task resumes an
# existing store, keeps it when resume fails for another reason (a missing PTX), and moves it aside only
# when it has no fault list.
#   slurm_campaign_args_test.sh SOURCE_DIR WORK_DIR
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: slurm_campaign_args_test.sh SOURCE_DIR WORK_DIR" >&2; exit 2; }
src=$1 work=$2
rm -rf "$work" && mkdir -p "$work/bin" "$work/camp" "$work/tools" || exit 1
work=$(cd "$work" >/dev/null && pwd -P)
failed() { echo "FAIL: $*"; exit 1; }

for c in sinfo squeue scontrol; do printf '#!/bin/sh\nexit 0\n' >"$work/bin/$c"; done
cat >"$work/bin/sbatch" <<'SH'
#!/bin/bash
n=$(ls "$FAKE_DIR"/sbatch.*.args 2>/dev/null | wc -l)
n=$((n + 1))
printf '%s\n' "$@" >"$FAKE_DIR/sbatch.$n.args"
echo $((100 + n))
SH
# gpuvp: `campaign run` creates the store; `campaign resume` answers as $FAKE_RESUME says.
cat >"$work/tools/gpuvp" <<'SH'
#!/bin/bash
printf '%s\n' "$*" >>"$FAKE_DIR/gpuvp.calls"
case "$2" in
  run) while [ $# -gt 0 ]; do [ "$1" = --db ] && : >"$2"; shift; done; exit 0;;
  resume)
    case $FAKE_RESUME in
      ok) exit 0;;
      ptx) echo "gpuvp: $3: exec: vectorAdd.ptx: cannot open" >&2; exit 2;;
      nofaults) echo "gpuvp: $3: no fault list recorded (the campaign was stopped before it started; remove the file and run the campaign again)" >&2; exit 2;;
      # A store whose path holds the message's words, refused for another reason: it keeps its runs.
      wordy) echo "gpuvp: /x/no fault list recorded (the campaign never started)/$3: another process (pid 1) owns the store (a campaign run or resume); wait for it to end or stop it" >&2; exit 2;;
    esac;;
esac
exit 3
SH
chmod +x "$work"/bin/* "$work/tools/gpuvp"
cp "$src/campaigns/quick.json" "$work/camp/a%b\\c.json" || exit 1
export FAKE_DIR=$work PATH=$work/bin:$PATH CDPATH=$work

cd "$work" || exit 1
"$src/scripts/slurm-campaign" 'camp/a%b\c.json' --shards 2 --gpuvp tools/gpuvp --out out >submit.out 2>submit.err
rc=$?
[ $rc -eq 0 ] || { cat submit.err; failed "slurm-campaign exited $rc"; }
grep -qx -- "--output=$work/out/slurm/logs/a%%b_c.shard%a-of-2.%A.out" sbatch.1.args ||
  { cat sbatch.1.args; failed "the array's log path is not escaped"; }
grep -qx -- "--output=$work/out/slurm/logs/a%%b_c.merge-of-2.%j.out" sbatch.2.args ||
  { cat sbatch.2.args; failed "the merge's log path is not escaped"; }
echo "ok: '%' and '\\' in the campaign name are escaped in the log paths"

task=$work/out/slurm/a%b\\c.of-2.task.sh
db=$work/out/a%b\\c.shard1-of-2.db
[ -f "$task" ] || failed "no task script $task"
run_task() { SLURM_ARRAY_TASK_ID=1 SLURM_JOB_ID=7 FAKE_RESUME=$1 bash "$task" >task.out 2>&1; }
: >"$db.tmp-12345" && : >"$db.tmp-12345-wal"  # a creation killed earlier
run_task ok
rc=$?
[ $rc -eq 0 ] || { cat task.out; failed "the first task exited $rc"; }
grep -qxF "campaign run $work/camp/a%b\\c.json --shard 1/2 --db $db -q" gpuvp.calls ||
  { cat gpuvp.calls; failed "the task did not run the shard with single-line paths"; }
[ -f "$db" ] && [ -f "${db%.db}.done" ] || failed "no store or no marker after the task"
! ls "$db".tmp-* >/dev/null 2>&1 || failed "the task left a killed creation's temporary store"
echo "ok: with CDPATH exported the task runs the shard"

run_task ptx
rc=$?
[ $rc -eq 2 ] || { cat task.out; failed "a resume that failed on its PTX: task exited $rc, expected 2"; }
[ -f "$db" ] && ! ls "$db".bad.* >/dev/null 2>&1 || failed "a store with runs was moved aside after a resume error"
[ ! -f "${db%.db}.done" ] || failed "a failed task left its marker"
echo "ok: a resume error other than a missing fault list keeps the store"

run_task wordy
rc=$?
[ $rc -eq 2 ] && [ -f "$db" ] && ! ls "$db".bad.* >/dev/null 2>&1 || { cat task.out; failed "a path holding the words of the message had its store moved aside"; }
echo "ok: the message's words in a path do not discard a store"

run_task nofaults
rc=$?
[ $rc -eq 0 ] || { cat task.out; failed "task exited $rc after a store without fault list"; }
[ -f "$db.bad.7" ] || failed "a store without fault list was not moved aside"
[ "$(grep -c 'campaign run' gpuvp.calls)" -eq 2 ] || failed "the shard was not run again"
echo "ok: only a store without fault list is moved aside and run again"

# $(dirname) and $(basename) drop a trailing newline: a path holding one is refused, never another file run.
mkdir -p "$work/nl"$'\n' && cp "$src/campaigns/quick.json" "$work/nl"$'\n'"/x.json" || exit 1
cp "$src/campaigns/quick.json" "$work/x.json"
"$src/scripts/slurm-campaign" "nl"$'\n'"/x.json" --shards 2 --gpuvp tools/gpuvp --out out2 >nl.out 2>nl.err
rc=$?
[ $rc -ne 0 ] && grep -q "a newline in the campaign file's path" nl.err || { cat nl.err; failed "a path with a newline was not refused (exit $rc)"; }
echo "ok: a campaign file path holding a newline is refused"
