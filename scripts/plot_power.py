#!/usr/bin/env python3
"""Power and temperature of every SM over time, from a power trace (gpuvp ... --power-trace FILE).

    /usr/bin/python3 scripts/plot_power.py TRACE.csv OUT.png

Power is drawn as steps: a row's power holds from its start_ps to its end_ps (a steady stretch of many
intervals, such as a power-gated one, is a single row), so a gated stretch is flat with vertical edges
rather than a ramp between neighbouring samples. Temperature is the value at each row's end_ps.

Needs matplotlib (the Debian python3-matplotlib; hence /usr/bin/python3). docs/power.md has the columns.
"""
import csv
import sys


def read_trace(path):
    """{sm: [(start_ps, end_ps, power_w, temp_k)]} from the CSV, each SM's rows in time order without overlap;
    exits with a message naming the line on bad input."""
    series = {}
    with open(path, newline="") as f:
        rows = csv.DictReader(f)
        need = {"start_ps", "end_ps", "sm", "power_w", "temp_k"}
        if not rows.fieldnames or not need <= set(rows.fieldnames):
            sys.exit(f"{path}: not a power trace (columns {sorted(need)} expected)")
        for n, r in enumerate(rows, start=2):
            try:
                row = (int(r["start_ps"]), int(r["end_ps"]), float(r["power_w"]), float(r["temp_k"]))
                s = series.setdefault(int(r["sm"]), [])
            except (TypeError, ValueError) as e:
                sys.exit(f"{path}:{n}: {e}")
            if row[1] <= row[0] or (s and row[0] < s[-1][1]):
                sys.exit(f"{path}:{n}: SM {r['sm']}'s interval {row[0]}..{row[1]} ps is empty or overlaps the one before")
            s.append(row)
    if not series:
        sys.exit(f"{path}: no intervals")
    return series


def power_steps(rows):
    """Corner points (us, W) of the step line; a gap between rows (no samples) breaks the line."""
    xs, ys, last_end = [], [], None
    for start, end, p, _ in rows:
        if last_end is not None and start > last_end:
            xs.append(float("nan"))
            ys.append(float("nan"))
        xs += [start / 1e6, end / 1e6]
        ys += [p, p]
        last_end = end
    return xs, ys


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_power.py TRACE.csv OUT.png")
    series = read_trace(sys.argv[1])
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_p, ax_t) = plt.subplots(2, 1, sharex=True, figsize=(10, 6))
    for sm in sorted(series):
        rows = series[sm]
        ax_p.plot(*power_steps(rows), label=f"SM {sm}", linewidth=0.8)
        ax_t.plot([r[1] / 1e6 for r in rows], [r[3] for r in rows], linewidth=0.8)
    ax_p.set_ylabel("power (W)")
    ax_t.set_ylabel("temperature (K)")
    ax_t.set_xlabel("time (us)")
    if len(series) <= 16:
        ax_p.legend(fontsize="small", ncol=4)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)


if __name__ == "__main__":
    main()
