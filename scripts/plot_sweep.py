#!/usr/bin/python3
"""A metric of a sweep against one of its axes, one line per value of another axis.

    scripts/plot_sweep.py RESULTS --x AXIS --y METRIC [--lines AXIS] [--where AXIS=VALUE ...]
                          [-o OUT.png|OUT.svg] [--title T] [--logx] [--logy]

RESULTS is the results.json `gpuvp sweep FILE` writes (or the output folder holding it). AXIS and METRIC
are column names of its table (`sm.count`, `workload`, `kernel_cycles`, ...). Every other axis must have
one value among the points plotted: fix it with --where (repeatable; VALUE compared as the table prints
it). Points whose status is not "ok" are left out and counted. Prints one summary line and writes OUT
(default: METRIC_vs_AXIS.png beside RESULTS); .svg writes SVG. Needs matplotlib: run it with
/usr/bin/python3. Exit status 2 for bad input (the file or the column named).
"""
import argparse
import json
import os
import sys


def fail(msg):
    print(f"plot_sweep: {msg}", file=sys.stderr)
    sys.exit(2)


def load(path):
    if os.path.isdir(path):
        path = os.path.join(path, "results.json")
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        fail(f"{path}: cannot read: {e.strerror}")
    except ValueError as e:
        fail(f"{path}: not valid JSON: {e}")
    if not isinstance(doc, dict) or doc.get("schema") != "gpuvp-sweep-table/1" or not isinstance(doc.get("rows"), list):
        fail(f"{path}: not a sweep table (schema gpuvp-sweep-table/1 with rows)")
    return path, doc


def shown(v):
    """A cell as the CSV shows it: strings bare, numbers and booleans as JSON."""
    return v if isinstance(v, str) else json.dumps(v)


def select(path, doc, args):
    cols = doc.get("columns", [])
    for c in [args.x, args.y] + ([args.lines] if args.lines else []) + [w[0] for w in args.where]:
        if c not in cols:
            fail(f"{path}: no column '{c}' (columns: {', '.join(cols)})")
    rows = [r for r in doc["rows"] if all(shown(r.get(k)) == v for k, v in args.where)]
    bad = [r for r in rows if r.get("status") != "ok"]
    rows = [r for r in rows if r.get("status") == "ok" and isinstance(r.get(args.y), (int, float))]
    if not rows:
        fail(f"{path}: no point with status ok and a numeric '{args.y}'" + (" matching --where" if args.where else ""))
    axes = doc.get("axes", [])
    fixed = {args.x, args.lines} | {w[0] for w in args.where}
    for a in axes:
        values = sorted({shown(r.get(a)) for r in rows})
        if a not in fixed and len(values) > 1:
            fail(f"{path}: axis '{a}' has several values ({', '.join(values)}): choose one with --where {a}=VALUE "
                 f"or draw it with --lines {a}")
    return rows, len(bad)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results")
    ap.add_argument("--x", required=True, help="axis column for the x axis")
    ap.add_argument("--y", required=True, help="metric column for the y axis")
    ap.add_argument("--lines", help="axis column: one line per value")
    ap.add_argument("--where", action="append", default=[], help="AXIS=VALUE: only these points (repeatable)")
    ap.add_argument("-o", "--out")
    ap.add_argument("--title")
    ap.add_argument("--logx", action="store_true")
    ap.add_argument("--logy", action="store_true")
    args = ap.parse_args()
    where = []
    for w in args.where:
        if "=" not in w:
            fail(f"--where {w}: expected AXIS=VALUE")
        where.append(tuple(w.split("=", 1)))
    args.where = where
    path, doc = load(args.results)
    rows, skipped = select(path, doc, args)
    out = args.out or os.path.join(os.path.dirname(os.path.abspath(path)), f"{args.y}_vs_{args.x}.png")
    if not out.endswith((".png", ".svg")):
        fail(f"-o {out}: the file name ends in .png or .svg")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = {}
    for r in rows:
        groups.setdefault(shown(r.get(args.lines)) if args.lines else "", []).append(r)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    numeric_x = all(isinstance(r.get(args.x), (int, float)) for r in rows)
    for label in sorted(groups, key=lambda v: (len(v), v)):
        pts = groups[label]
        pts.sort(key=lambda r: r[args.x] if numeric_x else shown(r[args.x]))
        xs = [r[args.x] if numeric_x else shown(r[args.x]) for r in pts]
        ax.plot(xs, [r[args.y] for r in pts], marker="o", label=f"{args.lines}={label}" if args.lines else None)
    ax.set_xlabel(args.x)
    ax.set_ylabel(args.y)
    if args.logx:
        ax.set_xscale("log")
    if args.logy:
        ax.set_yscale("log")
    ax.set_title(args.title or f"{doc.get('name', '')}: {args.y} against {args.x}")
    ax.grid(True, alpha=0.3)
    if args.lines:
        ax.legend()
    fig.tight_layout()
    try:
        fig.savefig(out)
    except OSError as e:
        fail(f"{out}: cannot write: {e.strerror}")
    print(f"{len(groups)} line(s), {len(rows)} point(s), {skipped} left out (not ok) -> {out}")


if __name__ == "__main__":
    main()
