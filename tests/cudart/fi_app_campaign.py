#!/usr/bin/env python3
"""Campaigns on an application (docs/campaigns.md): tests/cudart/fi_app run through gpuvp cuda, once
as the golden run and once per fault, each a process of its own.

  fi_app_campaign.py GPUVP FI_APP WORK_DIR [--fresh]

The faulty runs are forked from golden runs at their instants (application.fork, the default), or with
--fresh fresh processes: the same assertions hold for both.

The faults aimed by hand: fi_app computes c[i] = a[i] + b[i] (a[i] = i, b[i] = 1000) and writes the
64 sums to out.txt. Flipping bit 0 of a[3] in global memory at the first kernel's start makes a[3] = 2,
so c[3] = 1002 instead of 1003: out.txt and the printed total differ (SDC). The same flip once the
kernel has ended changes an input nothing reads again: Masked. Flipping bit 0 of a[0] before the
kernel makes c[0] = 1001, for which `fi_app FILE wait` spins for ever: a hang, killed and
classified timeout. A drawn campaign classifies every run (no tool error). A program writing its pid
into its output is refused (application.check_reproducible)."""
import json
import os
import re
import subprocess
import sys

from kill_resume import check_kill_resume

gpuvp, app, work = sys.argv[1:4]
FORK = "--fresh" not in sys.argv[4:]
# The hang's program is told apart from the other mode's, which may run at the same time, by its output name.
HUNG = "hung.txt" if FORK else "hung_fresh.txt"
os.makedirs(work, exist_ok=True)
GLOBAL_BASE = 0x1000_0000  # sw/isa/address_map.h: word k of gpu.gmem is at GLOBAL_BASE + 4 k


def run(*args, expect=0):
    p = subprocess.run([gpuvp, *args], capture_output=True, text=True, cwd=work)
    if p.returncode != expect:
        sys.exit(f"gpuvp {' '.join(args)}: exit {p.returncode} (expected {expect})\n{p.stdout}\n{p.stderr}")
    return p


def command_lines():
    """Every process's arguments, read from /proc: `ps` itself deadlocks under the sanitizer suite's
    LD_PRELOAD of libasan."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                yield [a.decode(errors="replace") for a in f.read().split(b"\0")[:-1]]
        except OSError:
            continue


def campaign(name, body):
    path = os.path.join(work, name + ".json")
    db = os.path.join(work, name + ".db")
    for f in (db, db + ".lock", db + "-wal", db + "-shm"):
        if os.path.exists(f):
            os.remove(f)
    body = {"name": name, "platform": {"preset": "flexgrip"}, **body}
    if "application" in body:
        body["application"] = {**body["application"], "fork": FORK}
    with open(path, "w") as f:
        json.dump(body, f, indent=1)
    return path, db


def outcomes(path, db):
    run("campaign", "run", path, "--db", db, "--quiet")
    rows = json.loads(run("campaign", "export", db, "--json", "-").stdout)
    return {r["id"]: r for r in rows}


# Where a is, and the golden run's execution window (the first kernel's start and end).
probe = subprocess.run([gpuvp, "cuda", "--preset", "flexgrip", "--", app, "out.txt"], capture_output=True,
                       text=True, cwd=work)
assert probe.returncode == 0, probe.stderr
addr = int(re.search(r"fi_app: a at (0x[0-9a-f]+)", probe.stderr).group(1), 16)
word_a0 = (addr - GLOBAL_BASE) // 4

draw, draw_db = campaign("draw", {"application": {"command": [app, "out.txt"], "outputs": ["out.txt"]},
                                  "targets": ["gpu.sm0.*"], "size": {"count": 12}, "seed": 3, "workers": 2,
                                  "pruning": False})
line = run("campaign", "check", draw).stdout
start, end = map(int, re.search(r"golden run (\d+) to (\d+) ps", line).groups())
assert 0 < start < end, line

# A small drawn campaign: every run classified, none a tool error.
rows = outcomes(draw, draw_db)
assert len(rows) == 12, rows
known = {"masked", "masked_timing", "sdc", "due", "timeout", "tolerable"}
for r in rows.values():
    assert r["outcome"] in known, r
print("drawn:", sorted(r["outcome"] for r in rows.values()))

# kill -9 of the campaign process, then resume: every fault gets one run, with the outcome the
# uninterrupted campaign gave it (the same file draws the same faults).
with open(draw) as f:
    body = json.load(f)
body.pop("name")
body["workers"] = 1
killed, killed_db = campaign("killed", body)
check_kill_resume(gpuvp, killed, killed_db, work, rows)

# Faults aimed by hand.
flip = {"target": "gpu.gmem", "bit": 0}
aimed, aimed_db = campaign("aimed", {
    "application": {"command": [app, "out.txt"], "outputs": ["out.txt"]},
    "faults": [{**flip, "idx": word_a0 + 3, "time_ps": start}, {**flip, "idx": word_a0 + 3, "time_ps": end + 1}]})
rows = outcomes(aimed, aimed_db)
assert rows[0]["outcome"] == "sdc", rows[0]
assert "out.txt" in rows[0]["detail"] or "stdout" in rows[0]["detail"], rows[0]
assert rows[1]["outcome"] == "masked", rows[1]
# Each run names the launch running at its instant, as a campaign on a host program's does.
assert rows[0]["kernel"] == "launch 0 (_Z3addPKiS0_Pii)", rows[0]
assert rows[1]["kernel"] == "", rows[1]

# A duplicated object (a, alloc0): the flipped bit is in the original only, the copies differ and the
# run is a DUE stored with its own kind, `detected` (not `other`).
prot_platform = {"preset": "flexgrip", "set": {"protect.duplicate": "alloc0"}}
app_spec = {"command": [app, "out.txt"], "outputs": ["out.txt"]}
window, _ = campaign("prot_window", {"platform": prot_platform, "application": app_spec, "targets": ["gpu.sm0.*"],
                                     "size": {"count": 1}})
pstart = int(re.search(r"golden run (\d+) to \d+ ps", run("campaign", "check", window).stdout).group(1))
prot, prot_db = campaign("prot", {"platform": prot_platform, "application": app_spec,
                                  "faults": [{**flip, "idx": word_a0 + 3, "time_ps": pstart}]})
rows = outcomes(prot, prot_db)
assert rows[0]["outcome"] == "due" and rows[0]["due_kind"] == "detected", rows[0]

# A hang is contained: the spinning program is killed with its process group, the next run completes.
hang, hang_db = campaign("hang", {
    "application": {"command": [app, HUNG, "wait"], "outputs": [HUNG], "timeout_s": 5},
    "faults": [{**flip, "idx": word_a0, "time_ps": start}, {**flip, "idx": word_a0 + 3, "time_ps": end + 1}]})
rows = outcomes(hang, hang_db)
assert rows[0]["outcome"] == "timeout" and "hang" in rows[0]["detail"], rows[0]
assert rows[1]["outcome"] == "masked", rows[1]
assert not any(args[:3] == [app, HUNG, "wait"] for args in command_lines()), "the spinning program survived"
# A resumed finished campaign has nothing to do; the report counts the runs.
assert "nothing to do" in run("campaign", "resume", hang_db).stderr
report = run("report", hang_db).stdout
assert re.search(r"timeout +1 ", report) and f"application: {app}, {HUNG}, wait" in report, report

# Bad entries: the key is named, the exit status is not 0.
for command, why in ((os.path.join(work, "no_such_program"), "no such file"), (aimed, "not executable")):
    bad, bad_db = campaign("bad", {"application": {"command": [command]}, "faults": [{**flip, "time_ps": 1}]})
    err = run("campaign", "run", bad, "--db", bad_db, expect=2).stderr
    assert "application.command[0]" in err and why in err, err

# A program whose fault-free output is not reproducible (its pid in its output file) is refused: its
# own variation would be classified as the faults' effect. The campaign file may ask to run it anyway.
pid_app = {"command": [app, "out_pid.txt", "pid"], "outputs": ["out_pid.txt"]}
unrepro, _ = campaign("unrepro", {"application": pid_app, "faults": [{**flip, "time_ps": start}]})
err = run("campaign", "check", unrepro, expect=2).stderr
assert "output differs between two fault-free runs:" in err and "first out_pid.txt[" in err, err
assert "outcomes would be meaningless" in err, err
allowed, _ = campaign("unrepro_allowed", {"application": {**pid_app, "check_reproducible": False},
                                          "faults": [{**flip, "time_ps": start}]})
run("campaign", "check", allowed)
print("ok: drawn, aimed (sdc, masked), hang contained, bad entries and an unreproducible program refused")
