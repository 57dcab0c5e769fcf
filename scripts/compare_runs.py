#!/usr/bin/env python3
"""Before/after check for refactorings that must not change behaviour.

  scripts/compare_runs.py record BUILD_DIR OUT_DIR    # every workload x launch x preset (+ variants)
  scripts/compare_runs.py compare DIR_A DIR_B         # exit 1 and list what differs

A record holds, per run, the summary gpuvp prints, its statistics JSON (outputs checked against the
CPU reference, cycles per launch, per-SM and per-arbiter counters) and the block timeline; host
timings are dropped. `gpuvp targets` and `gpuvp config` per preset are recorded too.
"""
import concurrent.futures
import json
import os
import re
import subprocess
import sys

PRESETS = ["flexgrip", "tk1", "tx2"]
# Variants that exercise more of the platform: several SMs, the RTL cores, other policies.
VARIANTS = {
    "flexgrip": [[], ["--set", "sm.count=2"], ["--set", "sm.count=4", "--set", "scheduler.policy=even_odd"],
                 ["--set", "sm.count=2", "--set", "scheduler.impl=rtl", "--set", "arbiter.impl=rtl"]],
    "tk1": [[]],
    "tx2": [[], ["--set", "sm.warp_policy=gto"]],
}
SKIP = {("timerSpin", "second")}  # a simulated second of spinning: minutes of host time
HOST_KEYS = {"host_seconds", "thread_insts_per_host_second"}


def workloads(gpuvp):
    out = subprocess.run([gpuvp, "workloads"], capture_output=True, text=True, check=True).stdout
    result, current = [], None
    for line in out.splitlines():
        if line and not line.startswith(" "):
            current = line.split()[0]
        elif line.strip() and current:
            result.append((current, line.split()[0]))
    return [w for w in result if w not in SKIP]


def strip_host(obj):
    if isinstance(obj, dict):
        return {k: strip_host(v) for k, v in obj.items() if k not in HOST_KEYS}
    if isinstance(obj, list):
        return [strip_host(v) for v in obj]
    return obj


def one_run(gpuvp, out_dir, preset, vi, variant, wl, launch):
    tag = f"{preset}.v{vi}.{wl}.{launch}"
    stats, tl = os.path.join(out_dir, tag + ".stats.json"), os.path.join(out_dir, tag + ".timeline.json")
    cmd = [gpuvp, "run", "--preset", preset, *variant, "--workload", wl, "--launch", launch,
           "--stats", stats, "--timeline", tl]
    p = subprocess.run(cmd, capture_output=True, text=True)
    text = re.sub(r"thread-insts:.*", "thread-insts: (host timing dropped)", p.stdout)
    rec = {"cmd": " ".join(cmd[1:]).replace(out_dir, "OUT"), "exit": p.returncode, "stdout": text, "stderr": p.stderr}
    for f, key in ((stats, "stats"), (tl, "timeline")):
        if os.path.exists(f):
            with open(f) as fh:
                rec[key] = strip_host(json.load(fh))
            os.remove(f)
    with open(os.path.join(out_dir, tag + ".json"), "w") as fh:
        json.dump(rec, fh, indent=1, sort_keys=True)
    return tag, p.returncode


def record(build, out_dir):
    gpuvp = os.path.join(build, "gpuvp")
    os.makedirs(out_dir, exist_ok=True)
    for preset in PRESETS:
        for what in ("targets", "config"):
            p = subprocess.run([gpuvp, what, "--preset", preset], capture_output=True, text=True)
            with open(os.path.join(out_dir, f"{preset}.{what}.txt"), "w") as fh:
                fh.write(p.stdout + p.stderr)
    jobs = [(p, vi, v, w, l) for p in PRESETS for vi, v in enumerate(VARIANTS[p]) for (w, l) in workloads(gpuvp)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        futs = [ex.submit(one_run, gpuvp, out_dir, *j) for j in jobs]
        for i, f in enumerate(concurrent.futures.as_completed(futs), 1):
            tag, rc = f.result()
            print(f"[{i}/{len(jobs)}] {tag} exit {rc}", flush=True)


def common_keys(x, y, notes, path=""):
    """The two configuration dumps without the keys only the second has, which are noted (a new
    configuration key changes no behaviour by itself: its default is the old one). A key the second
    lost stays, so it shows as a difference."""
    if not (isinstance(x, dict) and isinstance(y, dict)):
        return x, y
    for k in sorted(set(y) - set(x)):
        notes.add(f"configuration key only in the second record: {path}{k}")
    keys = set(x) & set(y) | (set(x) - set(y))  # a key the second lost is a difference
    pairs = {k: common_keys(x[k], y.get(k), notes, f"{path}{k}.") for k in keys}
    return {k: v[0] for k, v in pairs.items()}, {k: v[1] for k, v in pairs.items()}


def load(path, name):
    text = open(os.path.join(path, name)).read()
    if name.endswith(".config.txt"):
        try:
            return {"stats": {"config": json.loads(text)}}
        except ValueError:
            return text
    return json.loads(text) if name.endswith(".json") else text


def compare(a, b):
    fa, fb = set(os.listdir(a)), set(os.listdir(b))
    bad = [f"only in {a}: {f}" for f in sorted(fa - fb)] + [f"only in {b}: {f}" for f in sorted(fb - fa)]
    notes = set()
    for f in sorted(fa & fb):
        x, y = load(a, f), load(b, f)
        if isinstance(x, dict) and isinstance(y, dict) and "config" in x.get("stats", {}) and "config" in y.get("stats", {}):
            x["stats"]["config"], y["stats"]["config"] = common_keys(x["stats"]["config"], y["stats"]["config"], notes)
        if x != y:
            bad.append(f"differs: {f}")
    for line in sorted(notes):
        print(line)
    for line in bad:
        print(line)
    print(f"{len(fa & fb)} records compared, {len(bad)} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "record":
        record(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
