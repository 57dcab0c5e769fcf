#!/usr/bin/env python3
"""Plots of a wear study (gpuvp wear-study FILE --out DIR): DIR/cr_per_sm.png (each policy's consumption
rate per SM, first partition) and DIR/normalised_heatmap.png (the fixed policy's GPU consumption rate
normalised to the baseline, partitions x rotations).

    /usr/bin/python3 scripts/plot_wear.py DIR

Needs matplotlib (the Debian python3-matplotlib; hence /usr/bin/python3).
"""
import json
import sys


def load(folder):
    path = f"{folder}/summary.json"
    try:
        with open(path) as f:
            s = json.load(f)
        runs = s["runs"]
        for r in runs:
            r["label"] = ":".join(str(x) for x in r["partition"])
        return runs
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit(f"{path}: not a wear-study summary ({e})")


def cr_per_sm(runs, out, plt):
    first = runs[0]["label"]
    chosen = [r for r in runs if r["label"] == first]
    fig, ax = plt.subplots(figsize=(10, 4))
    width = 0.8 / len(chosen)
    for i, r in enumerate(chosen):
        xs = [k + i * width for k in range(len(r["cr"]))]
        ax.bar(xs, r["cr"], width, label=r["policy"])
    ax.set_xlabel("SM")
    ax.set_ylabel("consumption rate cr")
    ax.set_title(f"consumption rate per SM, partition {first}")
    ax.legend(fontsize="small", ncol=3)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def heatmap(runs, out, plt):
    parts = sorted({r["label"] for r in runs})
    rot = sorted({int(r["policy"].split("=")[1]) for r in runs if r["policy"].startswith("fixed R=")})
    if not rot:
        return False
    grid = [[float("nan")] * len(rot) for _ in parts]
    for r in runs:
        if r["policy"].startswith("fixed R="):
            grid[parts.index(r["label"])][rot.index(int(r["policy"].split("=")[1]))] = r["normalised_gpu_cr"]
    fig, ax = plt.subplots(figsize=(6, 1 + 0.5 * len(parts)))
    im = ax.imshow(grid, aspect="auto", cmap="viridis")
    ax.set_xticks(range(len(rot)), [str(x) for x in rot])
    ax.set_yticks(range(len(parts)), parts)
    ax.set_xlabel("rotations R")
    ax.set_ylabel("partition")
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            ax.text(j, i, f"{v:.2f}", ha="center", va="center", color="white", fontsize="small")
    fig.colorbar(im, label="GPU cr / baseline")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    return True


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: plot_wear.py DIR")
    runs = load(sys.argv[1])
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cr_per_sm(runs, f"{sys.argv[1]}/cr_per_sm.png", plt)
    heatmap(runs, f"{sys.argv[1]}/normalised_heatmap.png", plt)


if __name__ == "__main__":
    main()
