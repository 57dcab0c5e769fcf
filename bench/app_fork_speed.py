#!/usr/bin/env python3
"""Runs per second of a campaign on an application (docs/campaigns.md, "Campaigns on applications"):
the faulty runs forked from golden runs at their instants (application.fork true, the default) against
fresh processes (false). The same campaign file on tests/cudart/fi_app (COUNT faults drawn over the
state of SM 0 during the kernel, no pruning) runs in turns, fork, fresh, fork, ..., so that a machine
busy at one moment slows both; each side's figure is the best of ROUNDS. A run's time is the whole
`gpuvp campaign run` (its golden run included, the same for both) divided into COUNT runs: wall time,
and CPU time (user + system of the whole process tree), which a machine busy with other work changes
little.

  bench/app_fork_speed.py [--build BUILD] [--rounds N] [--count N] [--workers N] [--preset P]"""
import argparse
import json
import resource
import os
import subprocess
import sys
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("--build", default="build")
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--count", type=int, default=100)
ap.add_argument("--workers", type=int, default=1)
ap.add_argument("--preset", default="flexgrip")
a = ap.parse_args()
gpuvp, app = os.path.abspath(os.path.join(a.build, "gpuvp")), os.path.abspath(os.path.join(a.build, "tests", "cudart", "fi_app"))
for f in (gpuvp, app):
    if not os.access(f, os.X_OK):
        sys.exit(f"{f}: not built (nvcc is needed for the CUDA programs: see docs/cuda.md, Tests)")
work = tempfile.mkdtemp(prefix="gpuvp-fork-speed-")


def campaign_seconds(fork, round_):
    path, db = os.path.join(work, f"c{round_}{fork}.json"), os.path.join(work, f"c{round_}{fork}.db")
    body = {"name": "speed", "platform": {"preset": a.preset}, "workers": a.workers, "pruning": False,
            "application": {"command": [app, "out.txt"], "outputs": ["out.txt"], "fork": fork},
            "targets": ["gpu.sm0.*"], "size": {"count": a.count}, "seed": 7}
    with open(path, "w") as f:
        json.dump(body, f)
    cpu0, t0 = cpu(), time.perf_counter()
    p = subprocess.run([gpuvp, "campaign", "run", path, "--db", db, "--quiet"], capture_output=True, text=True)
    t, c = time.perf_counter() - t0, cpu() - cpu0
    if p.returncode != 0:
        sys.exit(f"campaign (fork {fork}): exit {p.returncode}\n{p.stderr}")
    return t, c


def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)  # every process waited for, down the tree
    return r.ru_utime + r.ru_stime


best = {fork: [float("inf"), float("inf")] for fork in (True, False)}
for r in range(a.rounds):
    for fork in (True, False):
        best[fork] = [min(x, y) for x, y in zip(best[fork], campaign_seconds(fork, r))]
for fork, name in ((True, "forked"), (False, "fresh processes")):
    (wall, cpu_s) = best[fork]
    print(f"{name:16s} {a.count / wall:8.1f} runs/s wall ({wall:.2f} s), {a.count / cpu_s:8.1f} runs/s CPU ({cpu_s:.2f} s); "
          f"{a.count} runs, best of {a.rounds}, {a.workers} worker(s), {a.preset}")
print(f"speed-up        {best[False][0] / best[True][0]:8.2f} x wall, {best[False][1] / best[True][1]:.2f} x CPU")
