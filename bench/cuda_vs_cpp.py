#!/usr/bin/env python3
"""Speed of an unmodified CUDA program under `gpuvp cuda` against the same work written against the
C++ API (tests/cuda_twins/twins.cc, the same PTX and runtime calls). Each side's host time is that of
its whole process tree (start, platform build, simulation, exit): CPU time (user + system, which a
machine busy with other work changes little) and wall time, each the best of ROUNDS runs taken in
turns (cuda, C++, cuda, ...) so that a machine busy at one moment slows both. The target: within 5 %.

  bench/cuda_vs_cpp.py [--build BUILD] [--rounds N] [--preset P] [--n N] [PROGRAM ...]

PROGRAMs are test programs of tests/cudart built by nvcc in BUILD/tests/cudart that the twins know
(vector_add streams_events async_copies matmul; default: matmul, of N x N matrices, default 256: about
a second of simulation, so that starting the processes is not what is measured; the small test
programs run for tens of milliseconds, where the second process `gpuvp cuda` starts and the loading
of the library weigh)."""
import argparse
import os
import resource
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--build", default="build")
ap.add_argument("--rounds", type=int, default=7)
ap.add_argument("--preset", default="tx2")
ap.add_argument("--n", type=int, default=256)
ap.add_argument("programs", nargs="*", default=["matmul"])
a = ap.parse_args()
work = os.path.join(a.build, "tests", "cudart")
gpuvp, twins = os.path.join(a.build, "gpuvp"), os.path.join(work, "cudart_twins")
for f in (gpuvp, twins):
    if not os.access(f, os.X_OK):
        sys.exit(f"{f}: not built (nvcc is needed for the CUDA programs: see docs/cuda.md, Tests)")


def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)  # every process waited for: gpuvp cuda's program too
    return r.ru_utime + r.ru_stime


def seconds(cmd):
    """(CPU, wall) seconds of cmd's process tree."""
    c, t = cpu(), time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr}")
    return cpu() - c, wall


worst = 0.0
print(f"{'program':16} {'':6} {'gpuvp cuda (s)':>15} {'C++ API (s)':>12} {'ratio':>7}   best of {a.rounds}, {a.preset}")
for program in a.programs:
    binary = os.path.join(work, program)
    size = [str(a.n)] if program == "matmul" else []
    cuda = [gpuvp, "cuda", "--preset", a.preset, "--", binary, *size]
    cpp = [twins, "run", program, binary, "--preset", a.preset, *(["--n"] + size if size else [])]
    runs = {"cuda": [], "cpp": []}
    for _ in range(a.rounds):
        runs["cuda"].append(seconds(cuda))
        runs["cpp"].append(seconds(cpp))
    for k, what in ((0, "cpu"), (1, "wall")):
        best = {side: min(r[k] for r in v) for side, v in runs.items()}
        ratio = best["cuda"] / best["cpp"]
        if what == "cpu":
            worst = max(worst, ratio)
        print(f"{program:16} {what:6} {best['cuda']:15.3f} {best['cpp']:12.3f} {ratio:7.3f}")
print(f"worst CPU-time ratio {worst:.3f} ({(worst - 1) * 100:+.1f} %, target within 5 %)")
