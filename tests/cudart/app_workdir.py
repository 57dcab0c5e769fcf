#!/usr/bin/env python3
"""A campaign on an application that reads its input relative to its working directory
(application.workdir, docs/campaigns.md "Campaigns on applications").

  app_workdir.py GPUVP FI_INPUT WORK_DIR [--fresh]

tests/cudart/fi_input reads 64 integers a[i] from sub/in.txt, writes c[i] = a[i] + 1000 to out.txt and
their total to stdout, then overwrites its input with "consumed" (a run that finds it consumed exits 5).
The campaign's workdir is the folder data/ next to the campaign file: every run, the golden run and each
faulty run (forked, or with --fresh a fresh process), must start with its own copy of it. So: the golden
run succeeds; three faults after the kernel are masked one after the other (each run found the input
intact although the run before it consumed its copy); a flip of a[3] before the kernel is an SDC; the
original input is untouched; a campaign killed with kill -9 and resumed gives the uninterrupted one's
outcomes; a missing or non-folder workdir and an unknown key are refused, named, with exit 2."""
import json
import os
import re
import shutil
import subprocess
import sys

from kill_resume import check_kill_resume

gpuvp, app, work = sys.argv[1:4]
FORK = "--fresh" not in sys.argv[4:]
GLOBAL_BASE = 0x1000_0000  # sw/isa/address_map.h: word k of gpu.gmem is at GLOBAL_BASE + 4 k
N = 64
A = [3 * i + 7 for i in range(N)]  # the input; the expected sums are computed here, not by the platform
SUMS = [x + 1000 for x in A]

shutil.rmtree(work, ignore_errors=True)
os.makedirs(os.path.join(work, "data", "sub"))
INPUT = os.path.join(work, "data", "sub", "in.txt")
TEXT = "".join(f"{x}\n" for x in A)
with open(INPUT, "w") as f:
    f.write(TEXT)


def run(*args, expect=0, cwd=work):
    p = subprocess.run([gpuvp, *args], capture_output=True, text=True, cwd=cwd)
    if p.returncode != expect:
        sys.exit(f"gpuvp {' '.join(args)}: exit {p.returncode} (expected {expect})\n{p.stdout}\n{p.stderr}")
    return p


def campaign(name, body, app_extra=None):
    path, db = os.path.join(work, name + ".json"), os.path.join(work, name + ".db")
    application = {"command": [app, "sub/in.txt", "out.txt"], "workdir": "data", "outputs": ["out.txt"],
                   "fork": FORK, **(app_extra or {})}
    with open(path, "w") as f:
        json.dump({"name": name, "platform": {"preset": "flexgrip"}, "application": application, **body}, f)
    return path, db


def export(db):
    return {r["id"]: r for r in json.loads(run("campaign", "export", db, "--json", "-").stdout)}


# The program itself, in a copy of data/: the hand-computed sums; a second run in the same folder finds
# its input consumed (what a run sharing its folder with another would meet).
direct = os.path.join(work, "direct")
shutil.copytree(os.path.join(work, "data"), direct)
first = run("cuda", "--preset", "flexgrip", "--", app, "sub/in.txt", "out.txt", cwd=direct)
assert f"fi_input: total {sum(SUMS)}" in first.stdout, first.stdout
with open(os.path.join(direct, "out.txt")) as f:
    assert [int(x) for x in f.read().split()] == SUMS
again = run("cuda", "--preset", "flexgrip", "--", app, "sub/in.txt", "out.txt", cwd=direct, expect=5)
assert "consumed by another run" in again.stderr, again.stderr
word_a0 = (int(re.search(r"fi_input: a at (0x[0-9a-f]+)", first.stderr).group(1), 16) - GLOBAL_BASE) // 4

# The golden run's window; the golden run itself needs its copy of the input (else: no CUDA call).
window, _ = campaign("window", {"targets": ["gpu.sm0.*"], "size": {"count": 1}})
start, end = map(int, re.search(r"golden run (\d+) to (\d+) ps", run("campaign", "check", window).stdout).groups())
assert 0 < start < end

# Faults aimed by hand, one golden process for all (workers 1): each run consumes its own copy only.
flip = {"target": "gpu.gmem", "bit": 0}
aimed, aimed_db = campaign("aimed", {"workers": 1, "faults": [
    {**flip, "idx": word_a0 + 3, "time_ps": start}, *({**flip, "idx": word_a0 + 3, "time_ps": end + k} for k in (1, 2, 3))]})
run("campaign", "run", aimed, "--db", aimed_db, "--quiet")
rows = export(aimed_db)
assert rows[0]["outcome"] == "sdc" and ("out.txt" in rows[0]["detail"] or "stdout" in rows[0]["detail"]), rows[0]
for k in (1, 2, 3):
    assert rows[k]["outcome"] == "masked", rows[k]
with open(INPUT) as f:
    assert f.read() == TEXT, "the campaign changed the original input"
print("aimed:", [rows[k]["outcome"] for k in sorted(rows)])

# A drawn campaign, then the same killed with kill -9 and resumed: the same faults, the same outcomes;
# no run met a consumed input.
# Every fault runs (no pruning), so that the kill comes mid-way.
drawn = {"targets": ["gpu.sm0.*"], "size": {"count": 12}, "seed": 5, "pruning": False}
draw, draw_db = campaign("draw", {**drawn, "workers": 2})
run("campaign", "run", draw, "--db", draw_db, "--quiet")
rows = export(draw_db)
assert len(rows) == 12, rows
for r in rows.values():
    assert r["outcome"] != "tool_error" and "consumed" not in r["detail"] and "changed while" not in r["detail"], r
killed, killed_db = campaign("killed", {**drawn, "workers": 1})
check_kill_resume(gpuvp, killed, killed_db, work, rows)
with open(INPUT) as f:
    assert f.read() == TEXT, "the campaigns changed the original input"

# Bad entries: named, exit 2, before anything runs.
with open(os.path.join(work, "a_file"), "w") as f:
    f.write("x\n")
for extra, why in (({"workdir": "no_such_folder"}, "no such folder"), ({"workdir": "a_file"}, "not a folder"),
                   ({"work_dir": "data"}, "unknown key 'work_dir'")):
    bad, bad_db = campaign("bad", {"faults": [{**flip, "time_ps": 1}]}, extra)
    err = run("campaign", "run", bad, "--db", bad_db, expect=2).stderr
    assert bad in err and ("application.workdir" in err or "work_dir" in err) and why in err, err
print("ok: golden run and every faulty run in a copy of the working directory" + ("" if FORK else " (fresh processes)"))
