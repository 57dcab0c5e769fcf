#!/usr/bin/env python3
"""Deadline policies over seeded random application sets (docs/deadline.md, "Evaluation").

  bench/deadline_sets.py [--gpuvp build/gpuvp] [--sets 50] [--first-seed 1] [--file experiments/deadline_random_12.json]
                         [--count N] [-- --set sm.count=13 ...]
  /usr/bin/python3 bench/deadline_sets.py --sweep 10,20,...,100 --plot sweep.png [--sets S] [--file F] [-- ...]

Runs `gpuvp deadline` on the file's generator with seeds FIRST..FIRST+SETS-1 (1..SETS by default) (and its `count` replaced by --count),
prints per seed the applications meeting their deadlines per policy (high-priority ones in brackets),
the counts over all the sets per policy (applications and high-priority ones meeting their deadlines),
the number of sets where split meets fewer high-priority deadlines than FIFO, and the host time.
With --sweep, does so for each number of injected applications and plots (matplotlib: /usr/bin/python3)
the mean number of applications meeting their deadlines per policy against that number.
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
    ap.add_argument("--first-seed", type=int, default=1, help="seeds FIRST..FIRST+SETS-1")
    ap.add_argument("--file", default=os.path.join(HERE, "..", "experiments", "deadline_random_12.json"))
    ap.add_argument("--count", type=int, default=0)
    ap.add_argument("--sweep", default="", help="comma-separated application counts")
    ap.add_argument("--plot", default="", help="PNG of the sweep")
    ap.add_argument("rest", nargs="*", help="options for gpuvp (after --)")
    a = ap.parse_args()
    if not a.sweep:
        run_sets(a, a.count)
        return 0
    counts = [int(c) for c in a.sweep.split(",")]
    means, high = {}, {}
    for c in counts:
        print(f"--- {c} applications")
        totals, high_totals = run_sets(a, c)
        for policy, met in totals.items():
            means.setdefault(policy, []).append(met / a.sets)
            met_high, all_high = high_totals[policy]
            high.setdefault(policy, []).append(100.0 * met_high / all_high if all_high else 100.0)
    if a.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        # All applications, and the high-priority share the splitter is built to protect.
        fig, (ax, ax_high) = plt.subplots(1, 2, figsize=(11, 4))
        for policy in means:
            ax.plot(counts, means[policy], marker="o", label=policy)
            ax_high.plot(counts, high[policy], marker="o", label=policy)
        ax.set_xlabel("applications injected")
        ax.set_ylabel(f"meeting their deadlines (mean of {a.sets} sets)")
        ax.set_title("all applications")
        ax_high.set_xlabel("applications injected")
        ax_high.set_ylabel("high priority meeting their deadlines (%)")
        ax_high.set_title("high-priority applications")
        ax_high.set_ylim(0, 105)
        ax.legend()
        fig.tight_layout()
        fig.savefig(a.plot, dpi=120)
        print(a.plot)
    return 0


def run_sets(a, count):
    """Runs seeds 1..a.sets with `count` applications (0: the file's); returns, per policy, the total met
    and [high-priority met, high-priority total]."""
    base = json.load(open(a.file))
    totals, high_totals, apps = {}, {}, {}
    worse, host = 0, 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(a.first_seed, a.first_seed + a.sets):
            d = dict(base)
            d["random"] = dict(base["random"], seed=seed)
            if count:
                d["random"]["count"] = count
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
            for n, p in res.items():
                totals[n] = totals.get(n, 0) + p["met"]
                high = high_totals.setdefault(n, [0, 0])
                high[0] += p["by_priority"]["high"]["met"]
                high[1] += p["by_priority"]["high"]["total"]
                apps[n] = apps.get(n, 0) + len(p["applications"])
            if "fifo" in res and "split" in res:
                worse += res["split"]["by_priority"]["high"]["met"] < res["fifo"]["by_priority"]["high"]["met"]
    for n in totals:
        print(f"over {a.sets} sets, {n}: {totals[n]} of {apps[n]} applications met their deadlines, "
              f"high priority {high_totals[n][0]} of {high_totals[n][1]}")
    print(f"sets where split met fewer high-priority deadlines than fifo: {worse} of {a.sets}")
    print(f"host time: {host:.1f} s ({host / a.sets:.2f} s per set)")
    return totals, high_totals


if __name__ == "__main__":
    sys.exit(main())
