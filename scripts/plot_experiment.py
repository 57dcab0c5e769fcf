#!/usr/bin/python3
"""Blocks per SM over time for the results of an experiment, as cuda_scheduling_examiner's viewers draw them.

    scripts/plot_experiment.py RESULTS [RESULTS ...] [-o OUT.png] [--title T]

RESULTS are log files in the examiner's output shape (`gpuvp experiment FILE` writes one per benchmark)
or directories holding them. Each SM is a lane; each block is a box from its start to its end time,
labelled with its benchmark's label (or kernel name) and block index; blocks that overlap on one SM are
stacked in the lane. Prints one summary line (blocks, SMs, benchmarks, time span) and writes OUT
(default: RESULTS/blocks_by_sm.png for one directory, else blocks_by_sm.png). Needs matplotlib:
run it with /usr/bin/python3.
"""
import argparse
import json
import os
import sys


def load_logs(paths):
    """(file, log) for every examiner-shaped log among `paths` (files, or directories of *.json)."""
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".json"))
        else:
            files.append(p)
    logs = []
    for f in files:
        try:
            with open(f) as fh:
                log = json.load(fh)
        except (OSError, ValueError) as e:
            sys.exit(f"{f}: cannot read a log: {e}")
        if not isinstance(log, dict) or "times" not in log:
            sys.exit(f"{f}: not an experiment log (no 'times' list)")
        logs.append((f, log))
    if not logs:
        sys.exit("no logs found in " + ", ".join(paths))
    return logs


def blocks_of(logs):
    """Every block as (sm, start, end, name, block index, benchmark number)."""
    out = []
    for n, (f, log) in enumerate(logs):
        name = log.get("label") or log.get("benchmark_name", os.path.basename(f))
        for k, entry in enumerate(log["times"]):
            if not entry or "block_times" not in entry:  # the examiner's first entry is empty
                continue
            bt, ids = entry["block_times"], entry.get("block_smids", [])
            if len(bt) != 2 * len(ids):
                sys.exit(f"{f}: times[{k}]: {len(bt)} block times for {len(ids)} SM ids (expected 2 per block)")
            kernel = entry.get("kernel_name", "")
            label = name if kernel in ("", "timer_spin") else f"{name}:{kernel}"
            for b, sm in enumerate(ids):
                out.append((int(sm), float(bt[2 * b]), float(bt[2 * b + 1]), label, b, n))
    return out


def rows(blocks):
    """Stacks overlapping blocks of one SM: (block, row within the lane), and rows per SM."""
    placed, per_sm = [], {}
    for sm in sorted({b[0] for b in blocks}):
        ends = []  # end time of the last block in each row
        for b in sorted((b for b in blocks if b[0] == sm), key=lambda b: (b[1], b[2])):
            r = next((i for i, e in enumerate(ends) if e <= b[1]), len(ends))
            if r == len(ends):
                ends.append(b[2])
            else:
                ends[r] = b[2]
            placed.append((b, r))
        per_sm[sm] = len(ends)
    return placed, per_sm


def plot(logs, out, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    blocks = blocks_of(logs)
    if not blocks:
        sys.exit("the logs hold no blocks (no iteration ran)")
    placed, per_sm = rows(blocks)
    base, y = {}, 0.0
    for sm in sorted(per_sm):  # lane of SM 0 at the top
        base[sm] = y
        y += per_sm[sm] + 0.5
    t0 = min(b[1] for b in blocks)
    t1 = max(b[2] for b in blocks)
    scale, unit = (1e3, "ms") if t1 - t0 < 1 else (1.0, "s")
    colors = plt.get_cmap("tab10")
    fig, ax = plt.subplots(figsize=(12, 1.0 + 0.35 * y))
    for (sm, a, z, label, idx, n), r in placed:
        top = base[sm] + r
        ax.add_patch(plt.Rectangle((a * scale, top), (z - a) * scale, 0.9, facecolor=colors(n % 10), edgecolor="black",
                                   linewidth=0.4, alpha=0.85))
        if (z - a) / max(t1 - t0, 1e-12) > 0.04:
            ax.text((a + z) / 2 * scale, top + 0.45, f"{label} {idx}", ha="center", va="center", fontsize=6, clip_on=True)
    ax.set_xlim(t0 * scale, t1 * scale + (t1 - t0) * scale * 0.01)
    ax.set_ylim(y, -0.25)
    ax.set_yticks([base[sm] + per_sm[sm] / 2 for sm in sorted(per_sm)])
    ax.set_yticklabels([f"SM {sm}" for sm in sorted(per_sm)])
    ax.set_xlabel(f"time since the scenario start ({unit})")
    names = sorted({(b[5], b[3].split(":")[0]) for b in blocks})
    ax.legend(handles=[plt.Rectangle((0, 0), 1, 1, facecolor=colors(n % 10)) for n, _ in names],
              labels=[name for _, name in names], loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7)
    ax.set_title(title or logs[0][1].get("scenario_name", "experiment"))
    fig.tight_layout()
    fig.savefig(out, dpi=130)
    print(f"{len(blocks)} blocks on {len(per_sm)} SMs from {len(logs)} benchmarks, "
          f"{t0:.6f} s to {t1:.6f} s -> {out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="+", help="log files or directories of them")
    ap.add_argument("-o", "--out", help="image to write (PNG, SVG or PDF by extension)")
    ap.add_argument("--title")
    a = ap.parse_args()
    out = a.out or (os.path.join(a.results[0], "blocks_by_sm.png") if len(a.results) == 1 and os.path.isdir(a.results[0])
                    else "blocks_by_sm.png")
    plot(load_logs(a.results), out, a.title)


if __name__ == "__main__":
    main()
