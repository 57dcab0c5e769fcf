#!/usr/bin/env python3
"""scripts/plot_wear.py's heat map on a hand-made wear-study summary: rows in numeric partition order,
every cell labelled with its own run's value in a colour readable on the cell (WCAG contrast of at least
4.5 against the colour the image gives the cell). Exits 77 (CTest: skipped) without matplotlib.

    /usr/bin/python3 plot_wear_test.py SCRIPT WORK_DIR
"""
import json
import os

from plot_harness import Script

script = Script()  # exits 77 without matplotlib, so this import comes after it
import matplotlib.colors  # noqa: E402

work = script.work
# Partitions and rotation counts out of order, with two-digit numbers that sort before one-digit ones as
# strings; values spread over the whole colour map so that light and dark cells both occur.
value = {("10:5", 16): 0.10, ("10:5", 2): 0.55, ("10:5", 1): 0.90, ("8:7", 16): 0.30, ("8:7", 2): 0.62,
         ("8:7", 1): 1.00, ("2:13", 16): 0.20, ("2:13", 2): 0.45, ("2:13", 1): 0.80}
runs = [{"policy": "baseline", "partition": [10, 5], "cr": [1.0] * 15, "normalised_gpu_cr": 1.0}]
for (part, r), v in value.items():
    runs.append({"policy": f"fixed R={r}", "partition": [int(x) for x in part.split(":")], "cr": [v] * 15,
                 "normalised_gpu_cr": v})
with open(f"{work}/summary.json", "w") as f:
    json.dump({"runs": runs}, f)

figs = script.main(work)
for png in ("cr_per_sm.png", "normalised_heatmap.png"):
    assert os.path.getsize(f"{work}/{png}") > 0, png
ax = next(a for fig in figs for a in fig.axes if a.images)
im = ax.images[0]

rows = [t.get_text() for t in ax.get_yticklabels()]
cols = [t.get_text() for t in ax.get_xticklabels()]
assert rows == ["2:13", "8:7", "10:5"], f"partitions in the wrong order: {rows}"
assert cols == ["1", "2", "16"], f"rotation counts in the wrong order: {cols}"


def luminance(colour):
    """WCAG 2 relative luminance of an sRGB colour."""
    r, g, b = ((c / 12.92) if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in matplotlib.colors.to_rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


labels = {(round(t.get_position()[1]), round(t.get_position()[0])): t for t in ax.texts}
assert len(labels) == 9, f"{len(labels)} cell labels, not 9"
for (i, j), t in labels.items():
    v = value[(rows[i], int(cols[j]))]
    assert t.get_text() == f"{v:.2f}", f"cell {rows[i]} R={cols[j]} says {t.get_text()}, not {v:.2f}"
    cell = im.cmap(im.norm(v))
    lo, hi = sorted((luminance(cell), luminance(t.get_color())))
    contrast = (hi + 0.05) / (lo + 0.05)
    assert contrast >= 4.5, f"label {t.get_text()} in {t.get_color()} on {cell}: contrast {contrast:.2f}"
# viridis runs from dark purple (smallest value) to light yellow (largest): light text on the one, dark on the other.
assert luminance(labels[(0, 2)].get_color()) > 0.5 and luminance(labels[(1, 0)].get_color()) < 0.2
print("ok")
