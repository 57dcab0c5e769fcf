#!/usr/bin/python3
"""Plots fault-injection campaign stores (docs/campaigns.md, docs/reliability.md).

    /usr/bin/python3 scripts/plot_campaign.py OUT_DIR A.db [B.db ...] [--gpuvp build/gpuvp] [--no-profile]

For each store NAME.db (NAME = the file's stem, or DIR-NAME when two stores share a stem):
  profile_NAME.png  the fault profile: outcome against injection time, one row per target (indexed
                    registers grouped, the bit spreading the points vertically), one colour per class;
                    the golden run's scheduler phases marked (shaded when wide enough to see, else a
                    line at each configuration and exchange phase; none when the store has no phases).
  avf_NAME.png      AVF per structure (the semantic structures of the export's `structure` column:
                    register file, predicates, warp control, ... across SMs; docs/campaigns.md,
                    "Structures"): stacked bars of the non-masked classes, with the 95 % Wilson
                    interval of their sum.
And, for all of them, mtbf.png: the study's MTBF (`gpuvp report`) per store on a log scale.

Runs with Debian's python3 (python3-matplotlib, Agg backend); results via `gpuvp campaign export --json`
and `gpuvp report`, the phases as scripts/fi_results.py explains.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fi_results as fr  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLOUR = {"masked": "#c8c8c8", "masked_timing": "#4c9be8", "sdc": "#d62728", "due": "#9467bd",
          "timeout": "#ff9f1c", "tool_error": "#000000", "tolerable": "#f4a6a6"}
PHASE_COLOUR = {"configuration": "#2ca02c", "dispatch": "#17becf", "exchange": "#8c564b", "wait": None,
                "idle": None}


def row_of(target):
    return re.sub(r"\[\d+\]$", "[*]", target)


def structure_of(run):
    """The run's semantic structure (exports of stores without the column: its target's name, indices grouped)."""
    return run.get("structure") or row_of(run["target"])


def short(target):
    return target.replace("gpu.sched.", "")


def load(gpuvp, db):
    rep = fr.parse_report(fr.report_text(gpuvp, db))
    return {"db": db, "runs": fr.export_runs(gpuvp, db), "report": rep, "phases": fr.golden_phases(db)}


def labels(dbs):
    stems = [os.path.splitext(os.path.basename(d))[0] for d in dbs]
    out = []
    for d, s in zip(dbs, stems):
        if stems.count(s) > 1:
            s = os.path.basename(os.path.dirname(os.path.abspath(d))) + "-" + s
        out.append(s)
    return out


def plot_profile(plt, c, label, path):
    runs = c["runs"]
    rows = sorted({row_of(r["target"]) for r in runs})
    width = {}
    for r in runs:
        k = row_of(r["target"])
        width[k] = max(width.get(k, 1), r["bit"] + 1, 1)
    rep = c["report"]
    t0 = rep.get("start_ps", min((r["time_ps"] for r in runs), default=0))
    t1 = rep.get("end_ps", max((r["time_ps"] for r in runs), default=1))
    us = 1e-6
    fig, ax = plt.subplots(figsize=(11, 0.32 * len(rows) + 2.2))
    for cls in ["masked", "masked_timing", "sdc", "due", "timeout", "tool_error", "tolerable"]:
        sel = [r for r in runs if r["outcome"] == cls]
        if not sel:
            continue
        xs = [(r["time_ps"] - t0) * us for r in sel]
        ys = [rows.index(row_of(r["target"])) + (r["bit"] + 0.5) / width[row_of(r["target"])] * 0.8 - 0.4
              for r in sel]
        n = len(sel)
        ax.scatter(xs, ys, s=3 if cls == "masked" else 9, c=COLOUR[cls], linewidths=0,
                   label=f"{fr.CLASS_LABEL[cls]} ({n})", zorder=2 if cls == "masked" else 3)
    phases = c["phases"]
    seen = set()
    if phases:
        span = (t1 - t0) or 1
        for name, a, b in phases:
            col = PHASE_COLOUR.get(name)
            if col is None or b <= t0 or a >= t1:
                continue
            lab = f"{name} phase" if name not in seen else None
            seen.add(name)
            if (b - a) / span > 0.004:
                ax.axvspan((a - t0) * us, (b - t0) * us, color=col, alpha=0.18, lw=0, label=lab, zorder=1)
            elif name != "dispatch":  # 1-2 cycles: a line (dispatch follows configuration at once)
                ax.axvline((a - t0) * us, color=col, lw=0.8, ls="--", alpha=0.8, label=lab, zorder=1)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([short(r) for r in rows], fontsize=8)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_xlim(0, (t1 - t0) * us)
    ax.set_xlabel("injection time from the start of the execution window (µs)")
    note = "" if phases else "  (no scheduler phases in this store)"
    ax.set_title(f"Fault profile: {label} — {c['report']['name']}{note}", fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.005, 1), fontsize=8, markerscale=2, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_avf(plt, c, label, path):
    runs = c["runs"]
    rows = sorted({structure_of(r) for r in runs})
    cls_list = ["sdc", "tolerable", "due", "timeout", "masked_timing"]
    per = {k: {cl: 0 for cl in fr.CLASSES + ["tool_error", "tolerable"]} for k in rows}
    for r in runs:
        per[structure_of(r)][r["outcome"]] += 1
    fig, ax = plt.subplots(figsize=(9, 0.3 * len(rows) + 1.8))
    left = [0.0] * len(rows)
    for cl in cls_list:
        vals = []
        for k in rows:
            n = sum(per[k].values()) - per[k]["tool_error"]
            vals.append(100 * per[k][cl] / n if n else 0)
        ax.barh(range(len(rows)), vals, left=left, color=COLOUR[cl], label=fr.CLASS_LABEL[cl], height=0.7)
        left = [a + b for a, b in zip(left, vals)]
    for i, k in enumerate(rows):
        n = sum(per[k].values()) - per[k]["tool_error"]
        bad = sum(per[k][cl] for cl in cls_list)
        lo, hi = fr.wilson(bad, n)
        ax.plot([100 * lo, 100 * hi], [i, i], color="black", lw=0.8)
        ax.text(min(100 * hi, 100) + 1, i, f"n={n}", va="center", fontsize=7)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([short(r) for r in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, 110)
    ax.set_xlabel("AVF (% of the faults injected in the structure; line: 95 % Wilson interval of the sum)")
    ax.set_title(f"AVF per structure: {label}", fontsize=9)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.005, 1), fontsize=8, frameon=False)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def plot_mtbf(plt, cs, labs, path):
    fig, ax = plt.subplots(figsize=(max(6, 0.45 * len(cs) + 2), 4.2))
    vals = [c["report"].get("mtbf_s") for c in cs]
    finite = [v for v in vals if v is not None and v != float("inf") and v > 0]
    top = max(finite) * 5 if finite else 1
    for i, v in enumerate(vals):
        if v is None:
            continue
        if v == float("inf"):
            ax.bar(i, top, color="none", edgecolor="grey", hatch="//")
            ax.text(i, top ** 0.5 * min(finite or [1]) ** 0.5, "no SDC", ha="center", va="center", fontsize=7,
                    rotation=90)
        else:
            ax.bar(i, v, color="#d62728" if labs[i].startswith("rtl") else "#1f77b4")
            ax.text(i, v * 1.08, f"{v:.3g}", ha="center", va="bottom", fontsize=7, rotation=90)
    ax.set_yscale("log")
    if finite:
        ax.set_ylim(min(finite) / 3, top * 2)
    from matplotlib.ticker import LogFormatterSciNotation
    ax.yaxis.set_minor_formatter(LogFormatterSciNotation(labelOnlyBase=False, minor_thresholds=(2, 0.5)))
    ax.tick_params(axis="y", which="minor", labelsize=7)
    ax.set_xticks(range(len(cs)))
    ax.set_xticklabels(labs, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("MTBF (simulated s)")
    ax.set_title("MTBF per configuration, as the study computes it: execution time / SDC cross section",
                 fontsize=9)
    ax.grid(axis="y", alpha=0.3, which="both")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", help="directory for the PNGs")
    ap.add_argument("dbs", nargs="+", help="campaign stores")
    ap.add_argument("--gpuvp", default=os.path.join(ROOT, "build", "gpuvp"))
    ap.add_argument("--no-profile", action="store_true", help="skip the per-store profile and AVF plots")
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_campaign: matplotlib is missing (use /usr/bin/python3, python3-matplotlib)", file=sys.stderr)
        sys.exit(3)
    for d in args.dbs:
        if not os.path.isfile(d):
            print(f"plot_campaign: {d}: no such file", file=sys.stderr)
            sys.exit(2)
    os.makedirs(args.out, exist_ok=True)
    cs = [load(args.gpuvp, d) for d in args.dbs]
    labs = labels(args.dbs)
    for c, lab in zip(cs, labs):
        if args.no_profile:
            continue
        plot_profile(plt, c, lab, os.path.join(args.out, f"profile_{lab}.png"))
        plot_avf(plt, c, lab, os.path.join(args.out, f"avf_{lab}.png"))
    plot_mtbf(plt, cs, labs, os.path.join(args.out, "mtbf.png"))


if __name__ == "__main__":
    main()
