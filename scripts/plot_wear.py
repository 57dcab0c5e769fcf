#!/usr/bin/env python3
"""Plots of a wear study (gpuvp wear-study FILE --out DIR): DIR/cr_per_sm.png (each policy's consumption
rate per SM, first partition) and DIR/normalised_heatmap.png (the fixed policy's GPU consumption rate
normalised to the baseline, partitions in numeric order x rotations ascending).

    /usr/bin/python3 scripts/plot_wear.py DIR

Needs matplotlib (the Debian python3-matplotlib; hence /usr/bin/python3).
"""
import json
import re
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


def natural_key(label):
    """Digit runs compare as numbers ("2:13" before "10:5"; string order would put "10" before "2")."""
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", label) if t]


def label_colour(rgba):
    """Black on light cells, white on dark: whichever contrasts more with the cell by WCAG relative luminance
    (the two contrast equally at 0.179, so the chosen one always reaches a ratio of 4.58)."""
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgba[:3]]
    return "black" if 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2] > 0.179 else "white"


def fixed_grid(runs):
    """Partition labels (natural order), rotation counts (ascending) and the fixed policy's normalised GPU cr
    per partition and rotation count (NaN where the study has no such run)."""
    fixed = [r for r in runs if r["policy"].startswith("fixed R=")]
    parts = sorted({r["label"] for r in runs}, key=natural_key)
    rot = sorted({int(r["policy"].split("=")[1]) for r in fixed})
    grid = [[float("nan")] * len(rot) for _ in parts]
    for r in fixed:
        grid[parts.index(r["label"])][rot.index(int(r["policy"].split("=")[1]))] = r["normalised_gpu_cr"]
    return parts, rot, grid


def heatmap(runs, plt):
    """The figure, or None when the study ran no fixed policy."""
    parts, rot, grid = fixed_grid(runs)
    if not rot:
        return None
    fig, ax = plt.subplots(figsize=(6, 1 + 0.5 * len(parts)))
    im = ax.imshow(grid, aspect="auto", cmap="viridis")
    ax.set_xticks(range(len(rot)), [str(x) for x in rot])
    ax.set_yticks(range(len(parts)), parts)
    ax.set_xlabel("rotations R")
    ax.set_ylabel("partition")
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if v == v:  # a missing run (NaN) is a blank cell: nothing to label
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", color=label_colour(im.to_rgba(v)),
                        fontsize="small")
    fig.colorbar(im, label="GPU cr / baseline")
    fig.tight_layout()
    return fig


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: plot_wear.py DIR")
    runs = load(sys.argv[1])
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cr_per_sm(runs, f"{sys.argv[1]}/cr_per_sm.png", plt)
    fig = heatmap(runs, plt)
    if fig:
        fig.savefig(f"{sys.argv[1]}/normalised_heatmap.png", dpi=120)


if __name__ == "__main__":
    main()
