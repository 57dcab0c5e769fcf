#!/usr/bin/env python3
"""Power and temperature of every SM over time, from a power trace (gpuvp ... --power-trace FILE).

    /usr/bin/python3 scripts/plot_power.py TRACE.csv OUT.png

Needs matplotlib (the Debian python3-matplotlib; hence /usr/bin/python3). docs/power.md has the columns.
"""
import csv
import sys


def read_trace(path):
    """{sm: ([time_us], [power_w], [temp_k])} from the CSV, exiting with a message naming the line on bad input."""
    series = {}
    with open(path, newline="") as f:
        rows = csv.DictReader(f)
        need = {"start_ps", "end_ps", "sm", "power_w", "temp_k"}
        if not rows.fieldnames or not need <= set(rows.fieldnames):
            sys.exit(f"{path}: not a power trace (columns {sorted(need)} expected)")
        for n, r in enumerate(rows, start=2):
            try:
                t = (int(r["start_ps"]) + int(r["end_ps"])) / 2e6
                s = series.setdefault(int(r["sm"]), ([], [], []))
                s[0].append(t)
                s[1].append(float(r["power_w"]))
                s[2].append(float(r["temp_k"]))
            except (TypeError, ValueError) as e:
                sys.exit(f"{path}:{n}: {e}")
    if not series:
        sys.exit(f"{path}: no intervals")
    return series


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_power.py TRACE.csv OUT.png")
    series = read_trace(sys.argv[1])
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_p, ax_t) = plt.subplots(2, 1, sharex=True, figsize=(10, 6))
    for sm in sorted(series):
        t, p, temp = series[sm]
        ax_p.plot(t, p, label=f"SM {sm}", linewidth=0.8)
        ax_t.plot(t, temp, linewidth=0.8)
    ax_p.set_ylabel("power (W)")
    ax_t.set_ylabel("temperature (K)")
    ax_t.set_xlabel("time (us)")
    if len(series) <= 16:
        ax_p.legend(fontsize="small", ncol=4)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)


if __name__ == "__main__":
    main()
