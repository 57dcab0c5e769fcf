#!/usr/bin/python3
"""The data-centric protection study (docs/reliability.md, "Study").

  /usr/bin/python3 bench/memprot_study.py OUT_DIR [--gpuvp build/gpuvp] [--runs 1000] [--workers 2]
        [--workloads matVec,conv3x3,matrixMul] [--preset tx2] [--img docs/img]

Per workload: the memory profile (objects, footprint and access shares, hot objects), then the outcomes
(SDC, detected DUE, other DUE, timeout, tolerable, masked; corrected for triplication) of RUNS
stuck-at runs per setting (1 and 5 faulty blocks; 2, 3 and 4 stuck bits; blocks drawn in
proportion to their L1 misses) as the read-only objects are duplicated cumulatively, most accesses
per byte first, and with the hot objects triplicated; then the kernel-cycle overhead of duplicating /
triplicating the hot objects only against every read-only object. Writes OUT_DIR/summary.md, the
JSON of every campaign, and with --img the plots. Prints each campaign's wall time.
"""
import argparse
import json
import os
import subprocess
import sys
import time

# How each workload's output is checked: element type, then the output-check options.
CHECKS = {
    "matrixMul": ("f32", ["--rel", "1e-5", "--max-share", "0"]),
    "scalarProd": ("f32", ["--rel", "1e-5", "--max-share", "0"]),
    "vectorAdd": ("f32", ["--rel", "1e-5", "--max-share", "0"]),
    "grayFilter": ("f32", ["--abs", "1", "--max-share", "0.01"]),
    "matVec": ("f32", ["--rel", "1e-5", "--max-share", "0"]),
    "conv3x3": ("f32", ["--abs", "1", "--max-share", "0.01"]),
}
LAUNCH = {"matrixMul": "square32", "matVec": "tall"}


def gpuvp(args, opt, *extra):
    cmd = [opt.gpuvp, *extra, "--preset", opt.preset, *args]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr}")
    return r.stdout


def job_args(w):
    return ["--workload", w] + (["--launch", LAUNCH[w]] if LAUNCH.get(w) else [])


def profile(w, opt):
    path = os.path.join(opt.out, f"{w}-profile.json")
    csv = os.path.join(opt.out, f"{w}-blocks.csv")
    gpuvp(job_args(w) + ["--json", path, "--csv", csv], opt, "profile-memory")
    with open(path) as f:
        return json.load(f), csv


def reusable(path, runs, opt):
    """A campaign's JSON from an earlier (interrupted) study, when it has the runs and preset asked for:
    a study rerun with another --runs or --preset in the same folder must not report the old counts."""
    if not os.path.exists(path):
        return False
    with open(path) as f:
        j = json.load(f)
    return j.get("runs") == runs and j.get("preset") == opt.preset


def campaign(w, opt, name, runs, blocks, bits, sets):
    path = os.path.join(opt.out, f"{w}-{name}.json")
    if not reusable(path, runs, opt):
        typ, check = CHECKS[w]
        args = job_args(w) + ["--runs", str(runs), "--blocks", str(blocks), "--bits", str(bits), "--choice",
                              "miss_weighted", "--workers", str(opt.workers), "--output-type", typ, *check,
                              "--json", path]
        for k, v in sets.items():
            args += ["--set", f"{k}={v}"]
        t0 = time.time()
        gpuvp(args, opt, "mem-campaign")
        with open(path) as f:
            j = json.load(f)
        j["preset"] = opt.preset  # what reusable() compares
        with open(path, "w") as f:
            json.dump(j, f, indent=1)
        print(f"{w} {name}: {runs} runs in {time.time() - t0:.1f} s", flush=True)
    with open(path) as f:
        return json.load(f)


MASKED = ("masked", "masked_timing")


def counts(r, base, level):
    """SDC, detected DUE, other DUE, timeout, tolerable, masked, corrected of one campaign; `base` is
    the unprotected campaign of the same fault sets (same seed), corrected only for triplication."""
    o = r["outcomes"]
    corrected = "-"
    if level.startswith("trip"):
        corrected = sum(1 for a, b in zip(r["run_outcomes"], base["run_outcomes"]) if a in MASKED and b not in MASKED)
    return [o["sdc"], r["detected"], r["due_other"], o["timeout"], o["tolerable"], o["masked"] + o["masked_timing"],
            corrected]


def study(w, opt, lines):
    prof, csv = profile(w, opt)
    # Hottest first: accesses per byte (a small object every warp reads beats a large streamed one).
    ro = sorted([o for o in prof["objects"] if o["read_only"]], key=lambda o: -o["accesses"] / o["bytes"])
    hot = prof["hot_objects"]
    lines += [f"### {w}", "", "| object | bytes | footprint % | access % | read-only | hot |", "|---|---|---|---|---|---|"]
    for o in prof["objects"]:
        lines.append(f"| {o['name']} | {o['bytes']} | {100 * o['footprint_share']:.2f} | {100 * o['access_share']:.2f} | "
                     f"{'yes' if o['read_only'] else 'no'} | {'yes' if o['hot'] else 'no'} |")
    levels = [("none", {})]
    for i in range(len(ro)):
        names = ",".join(o["name"] for o in ro[: i + 1])
        levels.append((f"dup[{names}]", {"protect.duplicate": names}))
    levels.append((f"trip[{','.join(hot)}]", {"protect.triplicate": ",".join(hot)}))
    lines += ["", f"Outcomes of {opt.runs} runs per setting, blocks drawn by L1 misses (detected DUE: the copies of a "
              "duplicated object differed; corrected: masked with triplication, not masked unprotected):", "",
              "| protection | blocks | bits | SDC | detected DUE | other DUE | timeout | tolerable | masked | corrected |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    sdc = {}
    for name, sets in levels:
        for b in (1, 5):
            for k in (2, 3, 4):
                r = campaign(w, opt, f"{name}-{b}b{k}", opt.runs, b, k, sets)
                base = campaign(w, opt, f"none-{b}b{k}", opt.runs, b, k, {})
                sdc[(name, b, k)] = r["outcomes"]["sdc"]
                lines.append(f"| {name} | {b} | {k} | " + " | ".join(str(c) for c in counts(r, base, name)) + " |")
    everything = ",".join(o["name"] for o in ro)
    cyc = {}
    for name, sets in [("none", {}), ("dup hot", {"protect.duplicate": ",".join(hot)}),
                       ("dup all", {"protect.duplicate": everything}),
                       ("trip hot", {"protect.triplicate": ",".join(hot)}),
                       ("trip all", {"protect.triplicate": everything})]:
        cyc[name] = campaign(w, opt, "cycles-" + name.replace(" ", "-"), 1, 1, 2, sets)["golden_cycles"]
    lines += ["", "| kernel cycles | none | dup hot | dup all | trip hot | trip all |", "|---|---|---|---|---|---|",
              "| " + w + " | " + " | ".join(
                  str(cyc[n]) + ("" if n == "none" else f" (+{100 * (cyc[n] / cyc['none'] - 1):.1f} %)")
                  for n in ["none", "dup hot", "dup all", "trip hot", "trip all"]) + " |", ""]
    if opt.img:
        plot(w, opt, csv, levels, sdc)


def plot(w, opt, csv, levels, sdc):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    subprocess.run(["/usr/bin/python3", os.path.join(os.path.dirname(__file__), "..", "scripts", "plot_mem_profile.py"),
                    csv, os.path.join(opt.img, f"memprot-profile-{w}.png"), f"{w}: accesses per 128-byte block"],
                   check=True)
    fig, ax = plt.subplots(figsize=(8, 4))
    xs = list(range(len(levels)))
    for b in (1, 5):
        for k in (2, 3, 4):
            # The duplication levels are cumulative (a line); triplication of the hot objects stands apart.
            line = ax.plot(xs[:-1], [sdc[(n, b, k)] for n, _ in levels[:-1]], marker="o", label=f"{b} block(s), {k} bits")
            ax.plot([xs[-1]], [sdc[(levels[-1][0], b, k)]], marker="s", color=line[0].get_color())
    ax.set_xticks(xs)
    ax.set_xticklabels([n for n, _ in levels], rotation=20, fontsize=7)
    ax.set_ylabel(f"SDC runs of {opt.runs}")
    ax.set_title(f"{w}: SDCs as objects are protected")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(opt.img, f"memprot-sdc-{w}.png"), dpi=110)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--gpuvp", default="build/gpuvp")
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--workloads", default="matVec,conv3x3,matrixMul")
    ap.add_argument("--preset", default="tx2")
    ap.add_argument("--img", default="")
    opt = ap.parse_args()
    os.makedirs(opt.out, exist_ok=True)
    if opt.img:
        os.makedirs(opt.img, exist_ok=True)
    lines = [f"# Data-centric protection study ({opt.preset}, {opt.runs} runs per setting)", ""]
    t0 = time.time()
    for w in opt.workloads.split(","):
        study(w, opt, lines)
    lines.append(f"Total wall time {time.time() - t0:.0f} s.")
    with open(os.path.join(opt.out, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
