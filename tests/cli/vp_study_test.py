#!/usr/bin/env python3
"""The statistics of bench/vp_study.py against hand-worked values (the script's tables rest on them)."""
import importlib.util
import math
import sys

spec = importlib.util.spec_from_file_location("vp_study", sys.argv[1])
vp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(vp)


def near(a, b, tol=1e-9):
    return a is not None and abs(a - b) <= tol


# Ranks 1,2,3,4 vs 1,3,2,4: d = 0,1,1,0, rho = 1 - 6 * 2 / (4 * 15) = 0.8.
assert near(vp.spearman([10, 20, 30, 40], [1, 3, 2, 4]), 0.8)
# A tie shares its mean rank: x ranks 1.5, 1.5, 3 vs 1, 2, 3; Pearson = 1.5 / (sqrt(1.5) sqrt(2)) = sqrt(3) / 2.
assert vp.ranks([5, 5, 9]) == [1.5, 1.5, 3.0]
assert near(vp.spearman([5, 5, 9], [1, 2, 3]), math.sqrt(3) / 2)
# Reversed order: -1; a constant side: undefined.
assert near(vp.spearman([1, 2, 3], [3, 2, 1]), -1.0)
assert vp.spearman([1, 1, 1], [1, 2, 3]) is None
# Wilson score interval of 7 in 400 at 95 %: centre (p + z^2/2n) / (1 + z^2/n), worked with z = 1.96:
# p = 0.0175, z^2 = 3.8416; centre = 0.0223020 / 1.009604 = 0.0220899; half width =
# 1.96 sqrt(0.0175 * 0.9825 / 400 + 3.8416 / 640000) / 1.009604 = 0.0136; so [0.85 %, 3.57 %].
lo, hi = vp.wilson(7, 400)
assert abs(lo - 0.85) < 0.005 and abs(hi - 3.57) < 0.005, (lo, hi)
assert vp.wilson(0, 0) == (0.0, 100.0)
# AVF over faults injected: tool errors are not injections; failures are SDC + DUE + timeout.
a = vp.avf({"masked": 6, "sdc": 2, "due": 1, "timeout": 1, "tool_error": 2}, vp.FAILURES)
assert a["n"] == 10 and a["k"] == 4 and near(a["avf"], 40.0)
# Warps of a launch: conv3x3's small launch is 2 x 2 blocks of 16 x 16 threads = 4 x 8 warps; bfs 2 x 32 = 2 x 1.
assert vp.warps("conv3x3") == 32 and vp.warps("bfs") == 2
# The register files' measured ACE, summed over the SMs from `gpuvp report --json` (its `ace` object):
# live 1e6 + 3e6 bit x ps = 4 bit x us over 2 x 1e7 bit x ps = 20 %; other targets are not counted.
def row(live, total):
    return {"bits": 64, "live_bit_ps": live, "total_bit_ps": total, "whole": {"live_bit_ps": live, "total_bit_ps": 4 * total}}


report = {"targets": {"gpu.sm0.regs": row(1e6, 1e7), "gpu.sm1.regs": row(3e6, 1e7), "gpu.sm0.preds": row(9e6, 1e7)},
          "unobserved": ["gpu.l2.data"]}
vp.run = lambda cmd: vp.json.dumps([{"ace": report}])
m = vp.measured_ace("x.db", type("Opt", (), {"gpuvp": "gpuvp"}))
assert near(m["live_bit_us"], 4.0) and near(m["ace_avf"], 20.0) and near(m["whole_ace_avf"], 5.0) and m["bits"] == 128, m
# Relative change against the nvcc point; the nvcc point itself prints nothing.
b, p = {"estimate": 200}, {"estimate": 150}
assert vp.rel(p, b, lambda x: x["estimate"]) == " (-25.0 %)" and vp.rel(b, b, lambda x: x["estimate"]) == ""
print("ok")
