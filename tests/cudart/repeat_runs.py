#!/usr/bin/env python3
"""A program with several host threads making CUDA calls gives the same run every time (docs/cuda.md,
"Several application threads"): its block timeline, its statistics (host time aside) and the lines
of its standard output are equal over N runs, and no call was served unordered.

  repeat_runs.py GPUVP WORK_DIR N PROGRAM [ARGS...]

Served in the order the threads reach the library, the calls interleave differently run to run and
the simulated timings differ. The grace is raised so that a loaded machine's slow thread start is
waited for: the test is about the order the rule gives, not about the grace."""
import json
import os
import subprocess
import sys

gpuvp, work, count, *command = sys.argv[1:]
work = os.path.abspath(work)
os.makedirs(work, exist_ok=True)
HOST_TIME = ("host_seconds", "thread_insts_per_host_second")  # the machine's, not the simulation's
env = {"GPUVP_THREAD_GRACE_MS": "5000", **os.environ}  # a test may set its own grace


def one_run(k):
    stats, timeline = (os.path.join(work, f"repeat_{k}.{x}.json") for x in ("stats", "timeline"))
    p = subprocess.run([gpuvp, "cuda", "--stats", stats, "--timeline", timeline, "--", *command],
                       capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"run {k}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
    with open(stats) as f:
        s = json.load(f)
    turns = s.get("thread_turns", {})
    if turns.get("unordered", 0):
        sys.exit(f"run {k}: {turns['unordered']} calls served unordered: {turns.get('first_unordered')}")
    for key in HOST_TIME:
        s.pop(key, None)
    with open(timeline) as f:
        # The lines, not their order: device printf lines of kernels in different streams may come out in
        # another order (docs/cuda.md, what is not deterministic).
        return {"stdout lines": sorted(p.stdout.splitlines()), "stats": s, "timeline": json.load(f)}, s.get("sim_seconds")


first, end = one_run(0)
ends = [end]
for k in range(1, int(count)):
    run, end = one_run(k)
    ends.append(end)
    for part in first:
        if run[part] != first[part]:
            shown = f":\n{first[part]}---\n{run[part]}" if part == "stdout lines" else ""
            sys.exit(f"run {k}'s {part} differs from run 0's (simulated ends so far: {ends}){shown}")
print(f"{count} runs of {os.path.basename(command[0])}: equal timeline, statistics and stdout lines; "
      f"simulated end {ends[0]} s, {first['stats']['thread_turns']['calls']} calls in turn")
