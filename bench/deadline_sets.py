#!/usr/bin/env python3
"""Deadline policies over seeded random application sets (docs/deadline.md, "Evaluation").

  bench/deadline_sets.py [--gpuvp build/gpuvp] [--sets 50] [--file experiments/deadline_random_100.json]
                         [--count N] [-- --set sm.count=13 ...]

Runs `gpuvp deadline` on the file's generator with seeds 1..SETS (and its `count` replaced by --count),
prints per seed the applications meeting their deadlines per policy (high-priority ones in brackets),
the number of sets where split meets fewer high-priority deadlines than FIFO, and the host time.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuvp", default=os.path.join(HERE, "..", "build", "gpuvp"))
    ap.add_argument("--sets", type=int, default=50)
    ap.add_argument("--file", default=os.path.join(HERE, "..", "experiments", "deadline_random_12.json"))
    ap.add_argument("--count", type=int, default=0)
    ap.add_argument("rest", nargs="*", help="options for gpuvp (after --)")
    a = ap.parse_args()
    base = json.load(open(a.file))
    worse, host = 0, 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(1, a.sets + 1):
            d = dict(base)
            d["random"] = dict(base["random"], seed=seed)
            if a.count:
                d["random"]["count"] = a.count
            f = os.path.join(tmp, "set.json")
            json.dump(d, open(f, "w"))
            t = time.time()
            subprocess.run([a.gpuvp, "deadline", f, "--out", tmp] + a.rest, check=True, stdout=subprocess.DEVNULL)
            host += time.time() - t
            res = {p["policy"]: p for p in json.load(open(os.path.join(tmp, "deadline.json")))["policies"]}
            os.remove(os.path.join(tmp, "deadline.json"))
            row = "  ".join(f"{n} {p['met']:3d} ({p['by_priority']['high']['met']}/{p['by_priority']['high']['total']})"
                            for n, p in res.items())
            print(f"seed {seed:3d}: {row}")
            if "fifo" in res and "split" in res:
                worse += res["split"]["by_priority"]["high"]["met"] < res["fifo"]["by_priority"]["high"]["met"]
    print(f"sets where split met fewer high-priority deadlines than fifo: {worse} of {a.sets}")
    print(f"host time: {host:.1f} s ({host / a.sets:.2f} s per set)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
