#!/usr/bin/env python3
"""Microbenchmarks of the tk1/tx2 memory hierarchy, issue rate, streaming bandwidth and SM scaling,
each against the public figure it is meant to reproduce (docs/validation.md, "Microbenchmarks").
gtx480 has the streaming copy and the SM scaling only (no public latencies or issue figures here).

    bench/microbench.py [--gpuvp build/gpuvp] [--preset tx2 --preset tk1 --preset gtx480]
                        [--only chase,fma,stream,scaling]
                        [--json FILE] [--plot FILE.png]

Every figure comes from `gpuvp exec`/`gpuvp run` with --stats (kernel cycles, thread-instructions) and,
for the pointer chase, from the kernel's own clock64 readings. Exit status 1 when a figure is outside
its stated tolerance. Needs only the standard library; --plot needs matplotlib (/usr/bin/python3).
"""
import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MICRO_PTX = os.path.join(HERE, "microbench", "microbench.ptx")
STREAM_PTX = os.path.join(ROOT, "tests", "data", "exec", "stream.ptx")

# Load-to-use latencies (cycles) measured by pointer chasing on desktop chips of the same
# architectures (Pascal for tx2, Kepler for tk1; none were published for the Jetson boards).
PUBLIC_LATENCY = {
    "tx2": {"l1": 82, "l2": 252, "dram": 486},
    "tk1": {"l1": 32, "l2": 188, "dram": 331},
}
# Peak fp32 lanes per cycle per SM (cores per SM) and the boards' DRAM bandwidth (GB/s).
PEAK_LANES = {"tx2": 128, "tk1": 192}
PRESETS = ["tx2", "tk1", "gtx480"]
LATENCY_TOLERANCE = 0.10   # a plateau within 10 % of the public latency
FMA_MIN_FRACTION = {"tx2": 0.85, "tk1": 0.60}  # Kepler reaches its 192 lanes only with dual issue of ILP
STREAM_MIN_FRACTION = 0.80  # a streaming copy reaches at least 80 % of the configured DRAM bandwidth


def run(gpuvp, args):
    with tempfile.TemporaryDirectory() as d:
        stats = os.path.join(d, "stats.json")
        out = os.path.join(d, "out.bin")
        cmd = [gpuvp] + [a.replace("@OUT@", out) for a in args] + ["--stats", stats]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"microbench: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr}")
        with open(stats) as f:
            j = json.load(f)
        if os.path.exists(out):
            with open(out, "rb") as f:
                j["_out"] = f.read()
        return j


def chase(gpuvp, preset, kernel, size_bytes, stride_bytes, steps=2048):
    """Cycles per dependent load over a ring of size_bytes with stride_bytes between loads (2048 timed
    loads: the timed loop's own code misses the instruction cache on its first pass)."""
    n = size_bytes // 8
    args = ["exec", "--preset", preset, "--ptx", MICRO_PTX, "--kernel", kernel, "--grid", "1", "--block", "1024",
            "--arg", f"buf:u64:{n}", "--arg", f"u32:{n}", "--arg", f"u32:{stride_bytes // 8}", "--arg", f"u32:{steps}",
            "--arg", "buf:u64:3:out=@OUT@"]
    cycles, _, got_steps = struct.unpack("<3Q", run(gpuvp, args)["_out"])
    return cycles / got_steps


def config_value(gpuvp, preset, key):
    p = subprocess.run([gpuvp, "config", "--preset", preset], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"microbench: gpuvp config --preset {preset} failed:\n{p.stderr}")
    node = json.loads(p.stdout)
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


class Report:
    def __init__(self):
        self.rows, self.failed = [], 0

    def add(self, preset, what, measured, public, ok, unit=""):
        self.rows.append({"preset": preset, "what": what, "measured": measured, "public": public, "ok": ok,
                          "unit": unit})
        self.failed += 0 if ok else 1
        mark = "ok" if ok else "OUTSIDE"
        print(f"{preset:7} {what:48} {measured:10.1f} {unit:10} public {public:>10} {mark}", flush=True)


def within(x, ref, tol):
    return abs(x - ref) <= tol * ref


def bench_chase(gpuvp, preset, rep, curves):
    pub = PUBLIC_LATENCY[preset]
    l2_kib = config_value(gpuvp, preset, "l2.size_kib") or 512
    sizes = [4 << 10, 8 << 10, 16 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20, 2 << 20]
    for kernel in ("chase_nc", "chase_ca"):
        curve = []
        for s in sizes:
            lat = chase(gpuvp, preset, kernel, s, 128)
            curve.append((s, lat))
            print(f"{preset:7} {kernel} {s >> 10:6} KiB stride 128 B: {lat:7.1f} cycles/load", flush=True)
        curves[(preset, kernel)] = curve
    lat = dict(curves[(preset, "chase_nc")])
    rep.add(preset, "L1 hit (ld.global.nc, 8 KiB ring)", lat[8 << 10], pub["l1"],
            within(lat[8 << 10], pub["l1"], LATENCY_TOLERANCE), "cycles")
    l2_size = min(s for s in sizes if s >= 64 << 10 and s <= (l2_kib << 10) // 2)
    l2 = dict(curves[(preset, "chase_ca")])[l2_size]
    rep.add(preset, f"L2 hit (ld.global, {l2_size >> 10} KiB ring)", l2, pub["l2"], within(l2, pub["l2"], LATENCY_TOLERANCE),
            "cycles")
    dram = dict(curves[(preset, "chase_ca")])[2 << 20]
    rep.add(preset, "DRAM (ld.global, 2 MiB ring)", dram, pub["dram"], within(dram, pub["dram"], LATENCY_TOLERANCE),
            "cycles")
    # The constant cache's hit latency needs a chain of addresses in constant memory, which a launch
    # cannot fill: `ctest -R "cache latency"` measures it (Pascal 12, Kepler 16 cycles, 3 %).
    # Sector effect: a 32-byte stride touches every sector of a line, so in an L2-resident ring a
    # quarter of the loads miss L1's sectors where a 128-byte stride misses all of them.
    s32 = chase(gpuvp, preset, "chase_nc", 128 << 10, 32)
    print(f"{preset:7} chase_nc 128 KiB stride 32 B: {s32:7.1f} cycles/load (stride 128 B: "
          f"{dict(curves[(preset, 'chase_nc')])[128 << 10]:.1f})", flush=True)


def bench_fma(gpuvp, preset, rep):
    sms = config_value(gpuvp, preset, "sm.count") or 1
    blocks = 4 * sms
    j = run(gpuvp, ["exec", "--preset", preset, "--ptx", MICRO_PTX, "--kernel", "fma8", "--grid", str(blocks),
                    "--block", "1024", "--arg", f"buf:f32:{blocks * 1024}", "--arg", "i32:256"])
    lanes = j["thread_insts"] / j["kernel_cycles"] / sms
    peak = PEAK_LANES[preset]
    rep.add(preset, "fp32 FMA issue (thread-insts / cycle / SM)", lanes, f">= {FMA_MIN_FRACTION[preset]:.0%} of {peak}",
            FMA_MIN_FRACTION[preset] * peak <= lanes <= peak * 1.001, "lanes")


def bench_stream(gpuvp, preset, rep):
    n = 4 << 20  # 2 x 16 MiB
    sms = config_value(gpuvp, preset, "sm.count") or 1
    bw = config_value(gpuvp, preset, "gmem.bandwidth_gbps")
    mhz = config_value(gpuvp, preset, "gpu.clock_mhz")
    grid = 32 * sms
    j = run(gpuvp, ["exec", "--preset", preset, "--ptx", STREAM_PTX, "--kernel", "copy4", "--grid", str(grid),
                    "--block", "256", "--arg", f"i32:{n}", "--arg", f"buf:f32:{n}", "--arg", f"buf:f32:{n}"])
    gbps = 2 * 4 * n / (j["kernel_cycles"] / (mhz * 1e-3))  # bytes per ns
    rep.add(preset, "streaming copy 2 x 16 MiB (GB/s)", gbps, f">= {STREAM_MIN_FRACTION:.0%} of {bw}",
            STREAM_MIN_FRACTION * bw <= gbps <= bw * 1.001, "GB/s")


def bench_scaling(gpuvp, preset, rep):
    for wl, launch in (("matrixMul", "square32"), ("mandelbrot", "medium")):
        prev = None
        for sms in (1, 2, 4, 8):
            args = ["run", "--preset", preset, "--set", f"sm.count={sms}", "--workload", wl]
            if launch:
                args += ["--launch", launch]
            cyc = run(gpuvp, args)["kernel_cycles"]
            ok = prev is None or cyc <= prev
            rep.add(preset, f"{wl} on {sms} SMs: cycles (never more than fewer SMs)", cyc, "monotone", ok, "cycles")
            prev = cyc


def plot(curves, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4))
    for (preset, kernel), curve in sorted(curves.items()):
        ax.plot([s / 1024 for s, _ in curve], [l for _, l in curve], marker="o", label=f"{preset} {kernel}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("array size (KiB), stride 128 B")
    ax.set_ylabel("cycles per dependent load")
    ax.set_title("Pointer chase: latency plateaus and capacity knees")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    print(f"plot: {path}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpuvp", default=os.path.join(ROOT, "build", "gpuvp"))
    ap.add_argument("--preset", action="append", choices=PRESETS)
    ap.add_argument("--only", default="chase,fma,stream,scaling")
    ap.add_argument("--json")
    ap.add_argument("--plot")
    a = ap.parse_args()
    if not os.access(a.gpuvp, os.X_OK):
        sys.exit(f"microbench: no gpuvp binary at {a.gpuvp} (--gpuvp PATH)")
    parts = set(a.only.split(","))
    unknown = parts - {"chase", "fma", "stream", "scaling"}
    if unknown:
        sys.exit(f"microbench: --only: unknown part(s) {', '.join(sorted(unknown))}")
    rep, curves = Report(), {}
    for preset in a.preset or ["tx2", "tk1"]:
        if "chase" in parts and preset in PUBLIC_LATENCY:
            bench_chase(a.gpuvp, preset, rep, curves)
        if "fma" in parts and preset in PEAK_LANES:
            bench_fma(a.gpuvp, preset, rep)
        if "stream" in parts:
            bench_stream(a.gpuvp, preset, rep)
        if "scaling" in parts:
            bench_scaling(a.gpuvp, preset, rep)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rows": rep.rows, "curves": {f"{p} {k}": c for (p, k), c in curves.items()}}, f, indent=1)
    if a.plot and curves:
        plot(curves, a.plot)
    print(f"{len(rep.rows) - rep.failed} of {len(rep.rows)} figures within tolerance")
    return 1 if rep.failed else 0


if __name__ == "__main__":
    sys.exit(main())
