#!/usr/bin/python3
"""The vulnerable-period study (docs/vulnerable-period.md, "Study").

  /usr/bin/python3 bench/vp_study.py OUT_DIR [--gpuvp build/gpuvp] [--faults 100] [--workers 2]
        [--workloads matrixMul,bfs,conv3x3,...] [--preset tx2] [--seed 7] [--img docs/img]

Per workload (launch `small`) and schedule (`asm.schedule` = nvcc, vp): the design-time estimate of the
registers' vulnerable period (`gpuvp vp`, summed over the workload's kernels, with the launch's grid and
block), the kernel cycles (`gpuvp run --stats`), a register-file campaign (transient bit flips over
`gpu.sm*.regs`) and a functional-unit campaign (instruction-output faults: one bit of one lane of the
result of a dynamic instruction with a destination, group G_GPPR, SM 0), each of FAULTS faults, with
AVF (SDC, and failures = SDC + DUE + timeout) and 95 % Wilson intervals; the register file's measured
ACE figures, from the golden run's access record kept in the register-file store (`gpuvp report DB
--json -`, "ace" over the campaign's fault space: the words the kernels allocated, over the campaign's
window): its live bit-time and its ACE AVF (live / total bit-time there); then the Spearman rank
correlation of the estimate with each measured AVF and with the measured live time, and of the ACE AVF
with the injected failure AVF, over all (workload, schedule) points. Writes OUT_DIR/summary.md and
OUT_DIR/study.json, and with --img the plots vp_study.png (AVF) and vp_study_ace.png (measured live
time). A campaign whose store already exists in OUT_DIR is read, not rerun (an interrupted study resumes).
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import fi_results  # noqa: E402  (the one Wilson interval of the project)

# Kernels of each workload and the grid / block of its `small` launch (sw/workloads/*.cc).
KERNELS = {
    "matrixMul": (["matrixMul"], "1,1", "16,16"),
    "bfs": (["bfsStep", "bfsUpdate"], "2", "32"),
    "conv3x3": (["conv3x3"], "2,2", "16,16"),
    "mandelbrot": (["mandelbrot"], "2,2", "8,8"),
    "grayFilter": (["grayFilter"], "2,2", "8,8"),
    "matVec": (["matVec"], "2", "32"),
    "vectorAdd": (["vectorAdd"], "16", "32"),
    "nearestNeighbour": (["nearestNeighbour"], "4", "32"),
}
KIND = {"matrixMul": "matrix multiply", "bfs": "BFS", "conv3x3": "convolution", "mandelbrot": "Mandelbrot",
        "grayFilter": "image filter", "matVec": "matrix-vector", "vectorAdd": "vector add",
        "nearestNeighbour": "nearest neighbour"}
SCHEDULES = ("nvcc", "vp")
FAILURES = ("sdc", "due", "timeout")


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr}")
    return r.stdout


def wilson(k, n):
    """95 % Wilson score interval of k successes in n trials, in % (the campaign scripts' interval)."""
    lo, hi = fi_results.wilson(k, n)
    return 100 * lo, 100 * hi


def ranks(xs):
    """Ranks from 1, ties sharing their mean rank."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(xs, ys):
    """Spearman's rho: Pearson's correlation of the ranks (ties averaged); None when a side is constant."""
    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sx = math.sqrt(sum((a - mx) ** 2 for a in rx))
    sy = math.sqrt(sum((b - my) ** 2 for b in ry))
    return None if sx == 0 or sy == 0 else sxy / (sx * sy)


def estimate(w, s, opt):
    kernels, grid, block = KERNELS[w]
    total = 0
    for k in kernels:
        path = os.path.join(opt.out, f"{w}-{k}-vp.json")
        run([opt.gpuvp, "vp", w, "--kernel", k, "--preset", opt.preset, "--grid", grid, "--block", block,
             "--json", path])
        with open(path) as f:
            total += json.load(f)[s]["total"]
    return round(total)


def kernel_cycles(w, s, opt):
    path = os.path.join(opt.out, f"{w}-{s}-stats.json")
    run([opt.gpuvp, "run", "--preset", opt.preset, "--workload", w, "--launch", "small",
         "--set", f"asm.schedule={s}", "--stats", path])
    with open(path) as f:
        return json.load(f)["kernel_cycles"]


def campaign(w, s, kind, opt):
    """Runs (or reads) one campaign; returns its outcome counts and wall time."""
    db = os.path.join(opt.out, f"{w}-{s}-{kind}.db")
    spec = {"name": f"vp study {w} {s} {kind}", "platform": {"preset": opt.preset, "set": {"asm.schedule": s}},
            "workload": {"name": w, "launch": "small"},
            "size": {"count": opt.faults}, "seed": opt.seed}
    if kind == "regs":
        spec.update(targets=["gpu.sm*.regs"], fault={"model": "bit_flip", "duration": "transient"})
    else:
        spec.update(instruction_output={"sm": 0, "group": "G_GPPR", "lanes": "one"})
    wall = 0.0
    if not os.path.exists(db):
        path = os.path.join(opt.out, f"{w}-{s}-{kind}.json")
        with open(path, "w") as f:
            json.dump(spec, f, indent=1)
        t = time.time()
        run([opt.gpuvp, "campaign", "run", path, "--db", db, "--workers", str(opt.workers), "-q"])
        wall = time.time() - t
    rows = json.loads(run([opt.gpuvp, "campaign", "export", db, "--json", "-"]))
    rows = rows["runs"] if isinstance(rows, dict) else rows
    counts = {}
    for r in rows:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    return counts, wall, db


REGS = re.compile(r"gpu\.sm\d+\.regs$")


def measured_ace(db, opt):
    """The register files' ACE over the campaign's fault space, summed over the SMs: live bit-time (bit x us)
    and ACE AVF (%), from `gpuvp report --json`."""
    rep = json.loads(run([opt.gpuvp, "report", db, "--json", "-"]))[0]
    ace = rep["ace"]
    if ace is None:
        sys.exit(f"{db}: no lifetimes in the store (made before access recording): remove it to rerun")
    if any(REGS.match(t) for t in ace["unobserved"]):
        sys.exit(f"{db}: register files not observed ({', '.join(ace['unobserved'])})")
    rows = [r for t, r in ace["targets"].items() if REGS.match(t)]
    live = sum(r["live_bit_ps"] for r in rows)
    total = sum(r["total_bit_ps"] for r in rows)
    return {"live_bit_us": live / 1e6, "ace_avf": 100 * live / total if total else 0.0,
            "bits": sum(r["bits"] for r in rows), "whole_ace_avf": 100 * live / sum(r["whole"]["total_bit_ps"] for r in rows)}


def avf(counts, classes):
    n = sum(counts.values()) - counts.get("tool_error", 0)
    k = sum(counts.get(c, 0) for c in classes)
    lo, hi = wilson(k, n)
    return {"avf": 100 * k / n if n else 0.0, "lo": lo, "hi": hi, "k": k, "n": n}


def fmt(a):
    return f"{a['avf']:.1f} [{a['lo']:.1f}, {a['hi']:.1f}]"


def study(opt):
    points = []
    for w in opt.workloads:
        for s in SCHEDULES:
            p = {"workload": w, "kind": KIND[w], "schedule": s, "estimate": estimate(w, s, opt),
                 "kernel_cycles": kernel_cycles(w, s, opt)}
            for kind in ("regs", "fu"):
                counts, wall, db = campaign(w, s, kind, opt)
                p[kind] = {"counts": counts, "sdc": avf(counts, ("sdc",)), "fail": avf(counts, FAILURES),
                           "wall_s": round(wall, 1)}
                if kind == "regs":
                    p["ace"] = measured_ace(db, opt)
                print(f"{w} {s} {kind}: {counts} ({wall:.0f} s)", flush=True)
            points.append(p)
    corr = ace_correlations(points)
    est = [p["estimate"] for p in points]
    for kind in ("regs", "fu"):
        for cls in ("sdc", "fail"):
            a = [p[kind][cls]["avf"] for p in points]
            corr[f"{kind}.{cls}: estimate vs AVF"] = spearman(est, a)
            # AVF x kernel cycles: the register file's measured exposure in time, the quantity the
            # estimate (absolute cycles) stands for, since the register campaign samples a window whose
            # length changes with the kernel; an instruction-output campaign samples instructions, not time.
            if kind == "regs":
                corr[f"{kind}.{cls}: estimate vs AVF x kernel cycles"] = spearman(
                    est, [x * p["kernel_cycles"] for x, p in zip(a, points)])
            nv = [p for p in points if p["schedule"] == "nvcc"]
            vp = [p for p in points if p["schedule"] == "vp"]
            corr[f"{kind}.{cls}: estimate change vs AVF change (vp - nvcc)"] = spearman(
                [b["estimate"] / a_["estimate"] - 1 for a_, b in zip(nv, vp)],
                [b[kind][cls]["avf"] - a_[kind][cls]["avf"] for a_, b in zip(nv, vp)])
    return points, corr


def changes(points, value):
    """value() of each workload's nvcc points, and of its vp points, in workload order."""
    nv = [p for p in points if p["schedule"] == "nvcc"]
    vp = [p for p in points if p["schedule"] == "vp"]
    return [value(a) for a in nv], [value(b) for b in vp]


def warps(w):
    """Warps of the workload's `small` launch (its kernels share it): the estimate is one warp's."""
    _, grid, block = KERNELS[w]
    blocks = math.prod(int(x) for x in grid.split(","))
    return blocks * -(-math.prod(int(x) for x in block.split(",")) // 32)


def ace_correlations(points):
    """The estimate against the register files' measured live time, and the ACE AVF against the injected one."""
    est = [p["estimate"] for p in points]
    live = [p["ace"]["live_bit_us"] for p in points]
    e0, e1 = changes(points, lambda p: p["estimate"])
    l0, l1 = changes(points, lambda p: p["ace"]["live_bit_us"])
    return {"estimate vs measured ACE live time (register file)": spearman(est, live),
            "estimate x warps of the launch vs measured ACE live time": spearman(
                [e * warps(p["workload"]) for e, p in zip(est, points)], live),
            "estimate change vs ACE live time change (vp / nvcc - 1)": spearman(
                [b / a - 1 for a, b in zip(e0, e1)], [b / a - 1 for a, b in zip(l0, l1)]),
            "ACE AVF vs injected failure AVF (register file)": spearman(
                [p["ace"]["ace_avf"] for p in points], [p["regs"]["fail"]["avf"] for p in points])}


def rel(p, base, value):
    """The change of value(p) relative to the nvcc point of its workload, '' for that point itself."""
    return "" if p is base else f" ({100 * (value(p) / value(base) - 1):+.1f} %)"


def ace_table(points):
    """The register file's measured ACE per point, the change in live time relative to nvcc beside the estimate's."""
    lines = ["| workload | schedule | estimate (cycles) | ACE live time (bit x us) | ACE AVF over allocated words % "
             "| reg failure AVF % (injected) | ACE AVF whole file % |", "|---|---|---|---|---|---|---|"]
    base = {}
    for p in points:
        b = base.setdefault(p["workload"], p)
        a = p["ace"]
        lines.append(f"| {p['workload']} | {p['schedule']} | {p['estimate']}{rel(p, b, lambda x: x['estimate'])} | "
                     f"{a['live_bit_us']:.1f}{rel(p, b, lambda x: x['ace']['live_bit_us'])} | {a['ace_avf']:.2f} | "
                     f"{fmt(p['regs']['fail'])} | {a['whole_ace_avf']:.2f} |")
    return lines


def summary(points, corr, opt):
    lines = ["| workload (kind) | schedule | estimate (cycles) | kernel cycles | reg SDC AVF % | reg failure AVF % "
             "| FU SDC AVF % | FU failure AVF % |", "|---|---|---|---|---|---|---|---|"]
    base = {}
    for p in points:
        if p["schedule"] == "nvcc":
            base[p["workload"]] = p
        b = base[p["workload"]]
        est = f"{p['estimate']}{rel(p, b, lambda x: x['estimate'])}"
        cyc = f"{p['kernel_cycles']}{rel(p, b, lambda x: x['kernel_cycles'])}"
        lines.append(f"| {p['workload']} ({p['kind']}) | {p['schedule']} | {est} | {cyc} | {fmt(p['regs']['sdc'])} | "
                     f"{fmt(p['regs']['fail'])} | {fmt(p['fu']['sdc'])} | {fmt(p['fu']['fail'])} |")
    lines.append("")
    lines += ace_table(points)
    lines.append("")
    lines.append(f"Spearman rank correlations ({len(points)} points; the changes over {len(points) // 2} workloads):")
    for k, v in corr.items():
        lines.append(f"- {k}: {'undefined' if v is None else f'{v:+.2f}'}")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(opt.out, "summary.md"), "w") as f:
        f.write(text)
    with open(os.path.join(opt.out, "study.json"), "w") as f:
        json.dump({"preset": opt.preset, "faults": opt.faults, "seed": opt.seed, "points": points,
                   "spearman": corr}, f, indent=1)
    print(text)


def plot(points, corr, opt):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    marks = {"nvcc": "o", "vp": "^"}
    for ax, kind, title in ((axes[0], "regs", "register file"), (axes[1], "fu", "functional units (G_GPPR)")):
        for p in points:
            a = p[kind]["fail"]
            ax.errorbar(p["estimate"], a["avf"], yerr=[[a["avf"] - a["lo"]], [a["hi"] - a["avf"]]],
                        fmt=marks[p["schedule"]], color="C0" if p["schedule"] == "nvcc" else "C3", capsize=2)
            ax.annotate(p["workload"], (p["estimate"], a["avf"]), fontsize=7, xytext=(3, 3),
                        textcoords="offset points")
        rho = corr[f"{kind}.fail: estimate vs AVF"]
        ax.set_xscale("log")
        ax.set_xlabel("estimated vulnerable period (cycles, log)")
        ax.set_ylabel("failure AVF (SDC + DUE + timeout), %")
        ax.set_title(f"{title}: Spearman rho = {'n/a' if rho is None else f'{rho:+.2f}'}")
    axes[0].plot([], [], "o", color="C0", label="nvcc order")
    axes[0].plot([], [], "^", color="C3", label="vp schedule")
    axes[0].legend(fontsize=8)
    fig.suptitle(f"{opt.preset}, launch small, {opt.faults} faults per campaign (95 % Wilson intervals)")
    fig.tight_layout()
    os.makedirs(opt.img, exist_ok=True)
    fig.savefig(os.path.join(opt.img, "vp_study.png"), dpi=110)
    plot_ace(points, corr, opt, plt)


def plot_ace(points, corr, opt, plt):
    """The estimate against the register files' measured live time, both schedules, each workload's pair joined."""
    fig, ax = plt.subplots(figsize=(6.5, 4.8))
    for w in opt.workloads:
        pair = [p for p in points if p["workload"] == w]
        ax.plot([p["estimate"] for p in pair], [p["ace"]["live_bit_us"] for p in pair], "-", color="0.7", lw=0.8)
    for p in points:
        ax.plot(p["estimate"], p["ace"]["live_bit_us"], "o" if p["schedule"] == "nvcc" else "^",
                color="C0" if p["schedule"] == "nvcc" else "C3")
        if p["schedule"] == "nvcc":
            ax.annotate(p["workload"], (p["estimate"], p["ace"]["live_bit_us"]), fontsize=7, xytext=(3, 3),
                        textcoords="offset points")
    ax.plot([], [], "o", color="C0", label="nvcc order")
    ax.plot([], [], "^", color="C3", label="vp schedule")
    ax.legend(fontsize=8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("estimated vulnerable period (cycles, log)")
    ax.set_ylabel("measured register-file ACE live time (bit x us, log)")
    rho = corr["estimate vs measured ACE live time (register file)"]
    ax.set_title(f"{opt.preset}, launch small: Spearman rho = {'n/a' if rho is None else f'{rho:+.2f}'}", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(opt.img, "vp_study_ace.png"), dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("out")
    ap.add_argument("--gpuvp", default="build/gpuvp")
    ap.add_argument("--faults", type=int, default=100)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--workloads", default=",".join(KERNELS))
    ap.add_argument("--preset", default="tx2")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--img")
    opt = ap.parse_args()
    opt.workloads = opt.workloads.split(",")
    for w in opt.workloads:
        if w not in KERNELS:
            sys.exit(f"--workloads: unknown workload '{w}' (known: {', '.join(KERNELS)})")
    os.makedirs(opt.out, exist_ok=True)
    t = time.time()
    points, corr = study(opt)
    summary(points, corr, opt)
    if opt.img:
        plot(points, corr, opt)
    print(f"study wall time {time.time() - t:.0f} s")


if __name__ == "__main__":
    main()
