#!/usr/bin/env python3
"""A campaign on an application is deterministic: the same campaign file on tests/cudart/fi_app, run
twice into two stores, gives the same outcome fault by fault and the same stores, every table and
column but what the host machine decides (the creation date, the golden run's and each run's host
time).

  fi_app_determinism.py GPUVP FI_APP WORK_DIR

Faults drawn over the state of SM 0 on tx2 (the concurrent dispatcher and the copy engine), two
workers, the faulty runs forked from the golden run at their instants: the runs end in different
orders, the stores must not differ. The drawn runs must hold more than one outcome class, so that
agreement is not agreement on masked alone."""
import json
import os
import sqlite3
import subprocess
import sys

gpuvp, app, work = map(os.path.abspath, sys.argv[1:4])
os.makedirs(work, exist_ok=True)
HOST_TIME = {"campaign": {"created"}, "golden": {"host_seconds"}, "runs": {"host_ms"}}


def run(*args):
    p = subprocess.run([gpuvp, *args], capture_output=True, text=True, cwd=work)
    if p.returncode != 0:
        sys.exit(f"gpuvp {' '.join(args)}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p.stdout


def store(path):
    """Every table's rows, sorted, without the host-time columns."""
    with sqlite3.connect(path) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        out = {}
        for t in tables:
            cur = db.execute(f'SELECT * FROM "{t}"')
            keep = [i for i, d in enumerate(cur.description) if d[0] not in HOST_TIME.get(t, ())]
            out[t] = ([cur.description[i][0] for i in keep], sorted(tuple(r[i] for i in keep) for r in cur))
    return out


campaign = os.path.join(work, "determinism.json")
with open(campaign, "w") as f:
    json.dump({"name": "determinism", "platform": {"preset": "tx2"},
               "application": {"command": [app, "out.txt"], "outputs": ["out.txt"]},
               "targets": ["gpu.sm0.*"], "size": {"count": 16}, "seed": 11, "workers": 2}, f, indent=1)
stores = []
for k in (1, 2):
    db = os.path.join(work, f"determinism{k}.db")
    for f in (db, db + ".lock"):
        if os.path.exists(f):
            os.remove(f)
    run("campaign", "run", campaign, "--db", db, "--quiet")
    stores.append(store(db))
first, second = stores
columns, runs = first["runs"]
outcome = columns.index("outcome")
classes = sorted({r[outcome] for r in runs})
print(f"{len(runs)} runs, outcomes {classes}; tables {sorted(first)}")
assert len(runs) == 16, runs
assert len(classes) > 1, f"one outcome class only: {classes}"
for t in sorted(first.keys() | second.keys()):
    a, b = first.get(t), second.get(t)
    if a != b:
        diff = [(x, y) for x, y in zip(a[1], b[1]) if x != y] if a and b and a[0] == b[0] else (a, b)
        sys.exit(f"table {t} differs between the two campaigns: {diff[:3]}")
print("ok: the two campaigns' stores are equal but host times")
