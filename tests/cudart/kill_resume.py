"""Shared by the campaign tests on applications: a campaign killed with kill -9 after its first stored
run, then resumed, ends with the outcomes of the same campaign run without interruption."""
import json
import os
import sqlite3
import subprocess
import time


def export(gpuvp, db):
    out = subprocess.run([gpuvp, "campaign", "export", db, "--json", "-"], capture_output=True, text=True)
    return {r["id"]: r for r in json.loads(out.stdout or "[]")}


def stored_runs(db):
    """Runs stored so far, read from the store itself (a `gpuvp` process per poll is slower than a run)."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.05) as con:
            return con.execute("SELECT count(*) FROM runs").fetchone()[0]
    except sqlite3.Error:  # not created yet, or being written
        return 0


def check_kill_resume(gpuvp, path, db, work, rows):
    """Runs campaign file `path` into store `db`, kills it (kill -9) once a run is stored and before the
    last, resumes it and asserts every fault of `rows` (the uninterrupted campaign's export, by id) got
    one run with the same fault and outcome. The campaign must be long enough to be caught mid-way
    (several runs, no pruning). Returns what it printed."""
    proc = subprocess.Popen([gpuvp, "campaign", "run", path, "--db", db, "--quiet"], cwd=work)
    deadline, done = time.time() + 120, 0
    while time.time() < deadline and proc.poll() is None and not done:
        done = stored_runs(db) if os.path.exists(db) else 0
        time.sleep(0.01)
    finished = proc.poll() is not None
    proc.kill()
    proc.wait()
    assert not finished, "kill -9 came too late: the campaign had ended (make it longer)"
    done = stored_runs(db)
    assert 0 < done < len(rows), f"kill -9 after {done} of {len(rows)} runs: nothing left to resume"
    said = f"kill -9: after {done} of {len(rows)} runs"
    print(said)
    resumed = subprocess.run([gpuvp, "campaign", "resume", db, "--quiet"], capture_output=True, text=True, cwd=work)
    assert resumed.returncode == 0, resumed.stderr
    again = export(gpuvp, db)
    assert sorted(again) == sorted(rows), again
    for i, r in rows.items():
        assert (again[i]["target"], again[i]["idx"], again[i]["time_ps"], again[i]["outcome"]) == \
            (r["target"], r["idx"], r["time_ps"], r["outcome"]), (again[i], r)
    return said
