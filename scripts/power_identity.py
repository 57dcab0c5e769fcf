#!/usr/bin/env python3
"""Before/after check for changes to the power, thermal and wear accounting that must not change a
single figure (docs/power.md, "Cost").

  scripts/power_identity.py GPUVP_BEFORE GPUVP_AFTER [WORK_DIR] [--new-key SECTION.KEY ...]

Runs each case below with power accounting on under both binaries and compares, byte for byte, the
statistics JSON (host timings dropped: they are the only figures that differ run to run), the power
trace CSV and the timeline with its power and temperature counter tracks. The cases cover the three
presets with several SMs, a memory-bound and a compute-bound kernel, a block asleep for a simulated
second (steady stretches, the thermal transient) and concurrent kernels sharing SMs (events of several
launches in one interval). Prints what differs; exit 1 when anything does. A parameter the after build
declares and the before build does not (--new-key power.cluster_static_share) is left out of the
statistics' configuration dump, where it is the only difference a new parameter at its default makes.
"""
import concurrent.futures
import json
import os
import subprocess
import sys

from compare_runs import strip_host  # host timings: the only figures that differ run to run

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMER_SPIN = ["exec", "--preset", "tx2", "--ptx", f"{SRC}/sw/kernels/timerSpin.ptx", "--kernel", "timerSpin",
              "--grid", "2", "--block", "32", "--arg", "buf:u64:2", "--arg", "buf:u64:2", "--arg", "buf:u32:2",
              "--arg", "buf:u64:2:const=1000000000", "--arg", "u32:1000000"]
TRANSPOSE = ["exec", "--preset", "tx2", "--ptx", f"{SRC}/bench/microbench/microbench.ptx", "--kernel", "transpose",
             "--grid", "32,32", "--block", "32,8", "--arg", "buf:f32:1048576:iota", "--arg", "buf:f32:1048576",
             "--arg", "i32:1024"]
CASES = {
    "tx2.timer_spin_1s": TIMER_SPIN,
    "tx2.transpose": TRANSPOSE,
    "tx2.scalarProd": ["run", "--preset", "tx2", "--workload", "scalarProd", "--launch", "fi32"],
    "tx2.matrixMul": ["run", "--preset", "tx2", "--workload", "matrixMul", "--launch", "square32"],
    "tk1.scalarProd": ["run", "--preset", "tk1", "--workload", "scalarProd", "--launch", "fi32"],
    "tk1.timerSpin_jitter": ["run", "--preset", "tk1", "--workload", "timerSpin", "--launch", "jitter"],
    "tk1.multikernel": ["experiment", f"{SRC}/experiments/tk1_multikernel.json", "--preset", "tk1"],
    "gtx480.scalarProd": ["run", "--preset", "gtx480", "--workload", "scalarProd", "--launch", "fi32"],
    "gtx480.nearestNeighbour": ["run", "--preset", "gtx480", "--workload", "nearestNeighbour", "--launch", "fi32"],
    "gtx480.reduction": ["run", "--preset", "gtx480", "--workload", "reduction", "--launch", "medium"],
}


NEW_KEYS = []  # SECTION.KEY: left out of the statistics' "config" (parameters only the after build has)


def drop_new_keys(stats):
    for key in NEW_KEYS:
        section, _, name = key.partition(".")
        stats.get("config", {}).get(section, {}).pop(name, None)
    return stats


def outputs(gpuvp, work, name, args):
    """{output: its text} of one case under one binary."""
    base = os.path.join(work, name)
    files = {"stats": base + ".stats.json", "power_trace": base + ".power.csv", "timeline": base + ".timeline.json"}
    cmd = [gpuvp, *args, "--set", "power.enabled=true", "--stats", files["stats"], "--power-trace",
           files["power_trace"], "--timeline", files["timeline"]]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=work)
    out = {"exit": str(p.returncode)}
    for key, f in files.items():
        if not os.path.exists(f):
            out[key] = "(not written)"
            continue
        text = open(f).read()
        if key == "stats":
            out[key] = json.dumps(drop_new_keys(strip_host(json.loads(text))), sort_keys=True)
        else:
            out[key] = json.dumps(strip_host(json.loads(text)), sort_keys=True) if f.endswith(".json") else text
        os.remove(f)
    return out


def main():
    args = sys.argv[1:]
    while "--new-key" in args:
        i = args.index("--new-key")
        if i + 1 >= len(args) or "." not in args[i + 1]:
            sys.exit(__doc__)
        NEW_KEYS.append(args[i + 1])
        del args[i:i + 2]
    if len(args) not in (2, 3):
        sys.exit(__doc__)
    before, after = (os.path.abspath(b) for b in args[0:2])
    work = os.path.abspath(args[2] if len(args) == 3 else "power_identity")
    for side in ("before", "after"):
        os.makedirs(os.path.join(work, side), exist_ok=True)
    bad = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        runs = {n: (ex.submit(outputs, before, os.path.join(work, "before"), n, a),
                    ex.submit(outputs, after, os.path.join(work, "after"), n, a)) for n, a in CASES.items()}
        for name, (fa, fb) in runs.items():
            a, b = fa.result(), fb.result()
            diff = [k for k in a if a[k] != b.get(k)]
            if a["exit"] != "0":
                diff.append(f"exit {a['exit']} before")
            print(f"{name}: {'identical' if not diff else 'DIFFERS in ' + ', '.join(diff)}", flush=True)
            bad += bool(diff)
    print(f"{len(CASES)} cases, {bad} differing")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
