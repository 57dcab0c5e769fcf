#!/usr/bin/python3
"""Plots the block timeline that `gpuvp run --timeline FILE.json` writes: one row per SM, one bar per
block (start to end), coloured by kernel, labelled with the block index.

    /usr/bin/python3 scripts/plot_timeline.py timeline.json timeline.png [--title TEXT]

Runs with Debian's python3 (python3-matplotlib); exits 2 with a message on a file it cannot read.
"""
import argparse
import json
import sys


def fail(message):
    print(f"plot_timeline: {message}", file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        fail(f"{path}: cannot read: {e.strerror}")
    except json.JSONDecodeError as e:
        fail(f"{path}:{e.lineno}:{e.colno}: not valid JSON: {e.msg}")
    events = doc.get("traceEvents") if isinstance(doc, dict) else None
    if not isinstance(events, list):
        fail(f"{path}: no traceEvents list (not a gpuvp --timeline file?)")
    blocks = []
    for i, e in enumerate(events):
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        try:
            blocks.append((int(e["tid"]), float(e["ts"]), float(e["dur"]), str(e.get("cat", "kernel")),
                           int(e["args"]["block"])))
        except (KeyError, TypeError, ValueError):
            fail(f"{path}: traceEvents[{i}] lacks tid, ts, dur or args.block")
    if not blocks:
        fail(f"{path}: no blocks in the timeline")
    return blocks


def main():
    ap = argparse.ArgumentParser(description="Plot a gpuvp block timeline")
    ap.add_argument("timeline")
    ap.add_argument("output")
    ap.add_argument("--title", default=None)
    a = ap.parse_args()
    blocks = load(a.timeline)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sms = sorted({b[0] for b in blocks})
    kernels = sorted({b[3] for b in blocks})
    colours = plt.get_cmap("tab10")
    t0 = min(b[1] for b in blocks)
    fig, ax = plt.subplots(figsize=(10, 1.0 + 0.6 * len(sms)))
    # Blocks resident on the same SM at the same time overlap: stack them in lanes within the row.
    for sm in sms:
        lanes = []  # end time of the last block in each lane
        for _, ts, dur, kernel, block in sorted(b for b in blocks if b[0] == sm):
            lane = next((i for i, end in enumerate(lanes) if end <= ts), len(lanes))
            if lane == len(lanes):
                lanes.append(0.0)
            lanes[lane] = ts + dur
            height = 0.8 / max(1, 8)
            y = sms.index(sm) - 0.4 + (lane % 8) * height
            ax.broken_barh([(ts - t0, dur)], (y, height * 0.9), facecolors=colours(kernels.index(kernel) % 10))
            if dur > 0:
                ax.text(ts - t0 + dur / 2, y + height * 0.45, str(block), ha="center", va="center", fontsize=6)
    ax.set_yticks(range(len(sms)))
    ax.set_yticklabels([f"SM {s}" for s in sms])
    ax.set_xlabel("simulated time (us)")
    ax.invert_yaxis()
    handles = [plt.Rectangle((0, 0), 1, 1, color=colours(i % 10)) for i in range(len(kernels))]
    ax.legend(handles, kernels, loc="upper right", fontsize=8)
    ax.set_title(a.title or f"{len(blocks)} blocks on {len(sms)} SM{'s' if len(sms) > 1 else ''}")
    fig.tight_layout()
    fig.savefig(a.output, dpi=120)
    print(f"{a.output}: {len(blocks)} blocks, {len(sms)} SMs, {len(kernels)} kernel(s)")


if __name__ == "__main__":
    main()
