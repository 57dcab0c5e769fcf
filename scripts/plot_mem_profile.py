#!/usr/bin/python3
"""Plots a memory profile: accesses per 128-byte block, blocks sorted by accesses, coloured by data object.

  /usr/bin/python3 scripts/plot_mem_profile.py BLOCKS.csv OUT.png [TITLE]

BLOCKS.csv is what `gpuvp profile-memory --csv` writes (rank,object,block,addr,accesses,l1_misses,warps,hot).
The hot blocks (the prefix holding the profile's hot share of the accesses) are left of the dashed line;
the scale is logarithmic (blocks never accessed do not show).
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        print(f"{argv[1]}: no block", file=sys.stderr)
        return 2
    objects = list(dict.fromkeys(r["object"] for r in rows))
    colours = plt.get_cmap("tab10")
    fig, ax = plt.subplots(figsize=(8, 4))
    for i, name in enumerate(objects):
        xs = [int(r["rank"]) for r in rows if r["object"] == name]
        ys = [int(r["accesses"]) for r in rows if r["object"] == name]
        ax.bar(xs, ys, width=1.0, color=colours(i % 10), label=name)
    nhot = sum(int(r["hot"]) for r in rows)
    if nhot:
        ax.axvline(nhot - 0.5, color="black", linestyle="--", linewidth=1, label=f"hot blocks ({nhot})")
    ax.set_xlabel("128-byte blocks, most accessed first")
    ax.set_yscale("log")  # hot blocks take orders of magnitude more accesses than the rest
    ax.set_ylabel("accesses (warp transactions, log scale)")
    ax.set_title(argv[3] if len(argv) == 4 else "memory profile")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(argv[2], dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
