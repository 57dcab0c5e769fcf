#!/usr/bin/env python3
"""Plot of an aging study (gpuvp aging-study FILE --out DIR): DIR/worst_delay.png, the worst working
lane cluster's delay degradation per variation map, one line per distribution policy (maps sorted by
even distribution's figure), with the timing limit.

    /usr/bin/python3 scripts/plot_aging.py DIR [--fail 0.05]

Needs matplotlib (the Debian python3-matplotlib; hence /usr/bin/python3).
"""
import json
import sys


def load(folder):
    path = f"{folder}/summary.json"
    try:
        with open(path) as f:
            s = json.load(f)
        worst = {}
        for r in s["runs"]:
            worst.setdefault(r["policy"], {})[int(r["map"])] = float(r["worst"])
        return s["policies"], worst
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit(f"{path}: not an aging-study summary ({e})")


def main():
    args = sys.argv[1:]
    fail = 0.05
    if len(args) == 3 and args[1] == "--fail":
        fail = float(args[2])
        args = args[:1]
    if len(args) != 1:
        sys.exit("usage: plot_aging.py DIR [--fail 0.05]")
    policies, worst = load(args[0])
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = sorted(worst["even"], key=lambda m: worst["even"][m])
    fig, ax = plt.subplots(figsize=(9, 4))
    for p in policies:
        ax.plot(range(len(order)), [100 * worst[p][m] for m in order], marker="o", markersize=3, label=p)
    ax.axhline(100 * fail, color="grey", linestyle="--", label=f"timing limit {100 * fail:g} %")
    ax.set_xlabel("variation map (sorted by even distribution's worst cluster)")
    ax.set_ylabel("worst cluster delay degradation (%)")
    ax.set_title("worst working lane cluster after aging, per variation map")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(f"{args[0]}/worst_delay.png", dpi=120)


if __name__ == "__main__":
    main()
