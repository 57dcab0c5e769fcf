#!/usr/bin/env python3
"""A test CUDA program run through `gpuvp cuda` and the same work written against the C++ API
(tests/cuda_twins/twins.cc) give the same timeline and statistics: every block's SM, start and end
(`--timeline`), every launch's kernel, start and end, the simulated end, the bytes each arbiter and
the DRAM moved (the copies) and every other figure of the statistics but host time and what ran.

  twin_timelines.py GPUVP CUDART_TWINS WORK_DIR PROGRAM...

Each PROGRAM is WORK_DIR/PROGRAM, built by nvcc; it runs on tx2 (streams run concurrently, the copy
engine overlaps kernels) and on flexgrip (the batch mode).

two_threads' two host threads take turns at the library in the order their calls arrive, which the
host machine decides; given that order the run is deterministic. The library records it
(GPUVP_CALL_THREADS: which thread made each call served) and the twin makes its calls in it (--order);
which of the two threads wrote from 100 the kernels' printf lines tell: the twin's must equal the
program's."""
import json
import os
import subprocess
import sys

gpuvp, twins, work, programs = *map(os.path.abspath, sys.argv[1:4]), sys.argv[4:]
HOST_TIME = ("host_seconds", "thread_insts_per_host_second")  # the machine's, not the simulation's


def run(*args, env=None):
    p = subprocess.run(list(args), capture_output=True, text=True, cwd=work, env=env)
    if p.returncode != 0:
        sys.exit(f"{' '.join(args)}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p.stdout


def printed(stdout):
    """What the kernels printed (device printf), in order."""
    return [line for line in stdout.splitlines() if line.startswith("fill:")]


def run_twin(program, outputs, calls, cuda_stdout):
    """The twin; for two_threads in the order of the calls the program made (its threads numbered in
    the order of their first calls, each numbering tried), the one giving the program's printf lines.
    Returns the order ('' for the other programs)."""
    binary = os.path.join(work, program)
    if program != "two_threads":
        run(twins, "run", program, binary, *outputs)
        return ""
    with open(calls) as f:
        threads = [int(t) for t in f.read().split()]
    for names in ("ab", "ba"):
        order = "".join(names[t] for t in threads)
        if printed(run(twins, "run", program, binary, *outputs, "--order", order)) == printed(cuda_stdout):
            return order
    sys.exit(f"two_threads: no naming of the threads of {threads} prints {printed(cuda_stdout)}")


def load(path, drop=()):
    with open(path) as f:
        j = json.load(f)
    def strip(v):
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items() if k not in drop}
        return [strip(x) for x in v] if isinstance(v, list) else v
    return strip(j)


def first_difference(a, b, path="$"):
    if type(a) is not type(b) or not isinstance(a, (dict, list)):
        return None if a == b else f"{path}: {a!r} vs {b!r}"
    if isinstance(a, dict):
        if a.keys() != b.keys():
            return f"{path}: keys {sorted(a.keys() ^ b.keys())}"
        pairs = [(a[k], b[k], f"{path}.{k}") for k in a]
    else:
        if len(a) != len(b):
            return f"{path}: {len(a)} vs {len(b)} entries"
        pairs = [(x, y, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a, b))]
    return next(filter(None, (first_difference(x, y, p) for x, y, p in pairs)), None)


failed = False
for program in programs:
    for preset in ("tx2", "flexgrip"):
        out = {}
        calls = os.path.join(work, f"twin_{program}_{preset}.calls")
        for side in ("cuda", "cpp"):
            stats, timeline = (os.path.join(work, f"twin_{program}_{preset}_{side}.{k}.json") for k in ("stats", "timeline"))
            outputs = ["--preset", preset, "--stats", stats, "--timeline", timeline]
            if side == "cuda":
                cuda_stdout = run(gpuvp, "cuda", *outputs, "--", os.path.join(work, program),
                                  env={**os.environ, "GPUVP_CALL_THREADS": calls})
            else:
                order = run_twin(program, outputs, calls, cuda_stdout)
            out[side] = (load(timeline), load(stats, HOST_TIME + ("program", "args", "thread_turns")))
        (tl_app, st_app), (tl_cpp, st_cpp) = out["cuda"], out["cpp"]
        blocks = [e for e in tl_app["traceEvents"] if e["ph"] == "X"]
        launches = [(l["kernel"], l["start_ps"], l["end_ps"]) for l in st_app["launches"]]
        diff = first_difference(tl_app, tl_cpp) or first_difference(st_app, st_cpp)
        print(f"{program} on {preset}: {len(blocks)} blocks, launches {launches}, simulated end "
              f"{st_app['sim_seconds']} s{', calls in the order ' + order if order else ''}: "
              f"{'equal' if not diff else 'DIFFERENT: ' + diff}")
        failed |= bool(diff) or not blocks
sys.exit(1 if failed else 0)
