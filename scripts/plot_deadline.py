#!/usr/bin/python3
"""Timeline of `gpuvp deadline ... --out DIR`: one figure per policy, one lane per SM, each block a box
coloured by its application's priority and labelled with the application's index; each application's
completion is marked on top, red when it missed its deadline (docs/deadline.md).

  /usr/bin/python3 scripts/plot_deadline.py DIR      # writes DIR/deadline_<policy>.png
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLOURS = {"high": "tab:red", "medium": "tab:orange", "low": "tab:blue"}


def plot(policy, out_dir):
    apps = policy["applications"]
    blocks = policy.get("blocks", [])
    sms = 1 + max((b["sm"] for b in blocks), default=0)
    fig, ax = plt.subplots(figsize=(12, 1.0 + 0.6 * sms))
    for b in blocks:
        prio = apps[b["app"]]["priority"]
        ax.broken_barh([(b["start_us"], b["end_us"] - b["start_us"])], (b["sm"] + 0.1, 0.8),
                       facecolors=COLOURS[prio], edgecolors="black", linewidth=0.3)
        if len(blocks) <= 400:
            ax.text((b["start_us"] + b["end_us"]) / 2, b["sm"] + 0.5, str(b["app"]), ha="center", va="center", fontsize=6)
    for i, a in enumerate(apps):
        ax.plot([a["completion_us"]], [sms + 0.2], marker="v", color="black" if a["met"] else "red", markersize=4)
    ax.set_yticks([i + 0.5 for i in range(sms)])
    ax.set_yticklabels([f"SM {i}" for i in range(sms)])
    ax.set_xlabel("µs from the start of the set")
    met = policy["met"]
    ax.set_title(f"{policy['policy']}: {met} of {len(apps)} applications meet their deadlines "
                 f"(high {policy['by_priority']['high']['met']}/{policy['by_priority']['high']['total']}); "
                 f"total lateness {policy['total_lateness_us']:.0f} µs")
    fig.tight_layout()
    path = os.path.join(out_dir, f"deadline_{policy['policy']}.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(path)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(os.path.join(sys.argv[1], "deadline.json")) as f:
        doc = json.load(f)
    for p in doc["policies"]:
        plot(p, sys.argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
