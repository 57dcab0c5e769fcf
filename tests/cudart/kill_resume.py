"""Shared by the campaign tests on applications: a campaign killed with kill -9 after its first stored
run, then resumed, ends with the outcomes of the same campaign run without interruption."""
import json
import os
import subprocess
import time


def export(gpuvp, db):
    out = subprocess.run([gpuvp, "campaign", "export", db, "--json", "-"], capture_output=True, text=True)
    return {r["id"]: r for r in json.loads(out.stdout or "[]")}


def check_kill_resume(gpuvp, path, db, work, rows):
    """Runs campaign file `path` into store `db`, kills it (kill -9) once a run is stored, resumes it and
    asserts every fault of `rows` (the uninterrupted campaign's export, by id) got one run with the same
    fault and outcome. Returns what it printed."""
    proc = subprocess.Popen([gpuvp, "campaign", "run", path, "--db", db, "--quiet"], cwd=work)
    deadline, done = time.time() + 120, {}
    while time.time() < deadline and proc.poll() is None and not done:
        if os.path.exists(db):
            done = export(gpuvp, db)
        time.sleep(0.05)
    finished = proc.poll() is not None
    proc.kill()
    proc.wait()
    said = "kill -9: " + ("too late, the campaign had ended" if finished else f"after {len(done)} of {len(rows)} runs")
    print(said)
    resumed = subprocess.run([gpuvp, "campaign", "resume", db, "--quiet"], capture_output=True, text=True, cwd=work)
    assert resumed.returncode == 0, resumed.stderr
    again = export(gpuvp, db)
    assert sorted(again) == sorted(rows), again
    for i, r in rows.items():
        assert (again[i]["target"], again[i]["idx"], again[i]["time_ps"], again[i]["outcome"]) == \
            (r["target"], r["idx"], r["time_ps"], r["outcome"]), (again[i], r)
    return said
