#!/usr/bin/env python3
"""A campaign on the application tests/cudart/fi_app gives, fault by fault, the outcomes that the same
faults give injected by the campaign engine into the same work written against the C++ API
(tests/cuda_twins/twins.cc: the PTX of fi_app's fat binary, the runtime calls the library makes).

  twin_outcomes.py GPUVP CUDART_TWINS FI_APP WORK_DIR [--fresh]

The application's faulty runs are forked from golden runs at their instants (application.fork, the
default), or with --fresh fresh processes.

Faults drawn by the campaign over the state of the kernel's block and its two warps on SM 0 during the
kernel (they give masked, SDC and DUE runs), on flexgrip and on tx2, and faults aimed by hand at global
memory around the kernel on flexgrip (fi_app's inputs a, b and its output c, before the kernel starts,
while it runs and after it has ended): a flip of an input before
the kernel reads it changes a sum (SDC), one after the kernel has ended changes nothing read again
(masked), one in c before the kernel writes it is overwritten (masked), after it is read back (SDC).
The aimed list must give both SDC and masked, so that agreement is not agreement on one class."""
import json
import os
import re
import subprocess
import sys

gpuvp, twins, app, work = map(os.path.abspath, sys.argv[1:5])
FORK = "--fresh" not in sys.argv[5:]
os.makedirs(work, exist_ok=True)
GLOBAL_BASE = 0x1000_0000  # sw/isa/address_map.h: word k of gpu.gmem is at GLOBAL_BASE + 4 k
N = 64  # fi_app's elements: a, b and c are 256-byte allocations, one after the other


def run(*args):
    p = subprocess.run(list(args), capture_output=True, text=True, cwd=work)
    if p.returncode != 0:
        sys.exit(f"{' '.join(args)}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p


def app_outcomes(name, body, preset="flexgrip"):
    """Runs the campaign on the application; returns its rows (the export)."""
    path, db = os.path.join(work, name + ".json"), os.path.join(work, name + ".db")
    for f in (db, db + ".lock"):
        if os.path.exists(f):
            os.remove(f)
    body = {"name": name, "platform": {"preset": preset},
            "application": {"command": [app, "out.txt"], "outputs": ["out.txt"], "fork": FORK}, "workers": 2, **body}
    with open(path, "w") as f:
        json.dump(body, f, indent=1)
    run(gpuvp, "campaign", "run", path, "--db", db, "--quiet")
    return json.loads(run(gpuvp, "campaign", "export", db, "--json", "-").stdout)


def twin_outcomes(name, rows, preset):
    faults, results = os.path.join(work, name + ".faults.json"), os.path.join(work, name + ".twin.json")
    with open(faults, "w") as f:
        json.dump(rows, f)
    run(twins, "campaign", app, faults, results, "--preset", preset)
    with open(results) as f:
        return json.load(f)


def compare(name, rows, preset="flexgrip"):
    twin = twin_outcomes(name, rows, preset)
    differ = [(r["id"], r["target"], r["idx"], r["bit"], r["time_ps"], r["outcome"], twin.get(str(r["id"])))
              for r in rows if twin.get(str(r["id"])) != r["outcome"]]
    for d in differ:
        print("differs: id %d %s[%d] bit %d at %d ps: application %s, C++ API %s" % d)
    print(f"{name}: {len(rows) - len(differ)} of {len(rows)} outcomes equal:",
          sorted({r["outcome"] for r in rows}))
    return not differ


probe = run(gpuvp, "cuda", "--preset", "flexgrip", "--", app, "out.txt")
a0 = (int(re.search(r"fi_app: a at (0x[0-9a-f]+)", probe.stderr).group(1), 16) - GLOBAL_BASE) // 4
# The state of the kernel's block and of its two warps (64 threads).
sm0 = ["gpu.sm0.block_idx", "gpu.sm0.num_blocks", "gpu.sm0.state", "gpu.sm0.warp[0].*", "gpu.sm0.warp[1].*"]
drawn = app_outcomes("drawn", {"targets": sm0, "size": {"count": 30}, "seed": 11})
assert len(drawn) == 30, drawn
line = run(gpuvp, "campaign", "check", os.path.join(work, "drawn.json")).stdout
start, end = map(int, re.search(r"golden run (\d+) to (\d+) ps", line).groups())
# a[i], b[i] and c[i] are words a0 + i, a0 + 64 + i, a0 + 128 + i; instants before, inside and just
# after the kernel's window (c is read back after it).
aimed = [{"target": "gpu.gmem", "idx": a0 + off + i, "bit": bit, "time_ps": t}
         for off, i, bit in ((0, 3, 0), (N, 17, 4), (2 * N, 9, 1), (2 * N, 40, 30))
         for t in (start // 2, (start + end) // 2, end + 1)]
aimed = app_outcomes("aimed", {"faults": aimed})
classes = {r["outcome"] for r in aimed}
assert {"sdc", "masked"} <= classes, classes
# On tx2 (SMs running ahead within their quantum), the fault of this list at gpu.sm0.warp[0].group_pc[0]
# gave masked through the application and DUE through the engine while the library flipped the bits
# without stopping the SMs at the instant.
drawn_tx2 = app_outcomes("drawn_tx2", {"targets": sm0, "size": {"count": 80}, "seed": 11}, "tx2")
ok = compare("drawn", drawn) & compare("aimed", aimed) & compare("drawn_tx2", drawn_tx2, "tx2")
sys.exit(0 if ok else 1)
