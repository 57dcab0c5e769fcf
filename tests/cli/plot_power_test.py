#!/usr/bin/env python3
"""scripts/plot_power.py on a hand-made power trace with a power-gated stretch written as one row (as a
steady stretch is, docs/power.md): the power line is steps, each row's power held from its start to its
end, flat at 0 W over the gated stretch with vertical edges; a stretch without rows breaks the line;
temperature sits at each row's end; overlapping rows are refused naming the line. Exits 77 (CTest:
skipped) without matplotlib.

    /usr/bin/python3 plot_power_test.py SCRIPT WORK_DIR
"""
import math
import os

from plot_harness import Script

script = Script()
work = script.work
head = "interval,start_ps,end_ps,sm,dynamic_w,static_w,power_w,temp_k,em_rate,idle_fraction\n"
# 10 us intervals. SM 0: 2 W, 2.5 W, gated from 20 to 60 us (one row of 4 intervals), 3 W.
# SM 1: 1 W, no rows from 10 to 30 us, 1.5 W.
trace = head + """0,0,10000000,0,1.7,0.3,2.0,320,1,0
0,0,10000000,1,0.7,0.3,1.0,319,1,0
1,10000000,20000000,0,2.2,0.3,2.5,321,1,0
2,20000000,60000000,0,0,0,0,318.5,0,0
3,30000000,40000000,1,1.2,0.3,1.5,320,1,0
6,60000000,70000000,0,2.7,0.3,3.0,322,1,0
"""
with open(f"{work}/trace.csv", "w") as f:
    f.write(trace)


def run(csv):
    """The power and temperature axes of the figure plot_power.py draws of the trace CSV."""
    (fig,) = script.main(csv, f"{work}/power.png")
    return fig.axes[0], fig.axes[1]


ax_p, ax_t = run(f"{work}/trace.csv")
assert os.path.getsize(f"{work}/power.png") > 0
sm0 = [tuple(p) for p in ax_p.lines[0].get_xydata()]
want = [(0, 2.0), (10, 2.0), (10, 2.5), (20, 2.5), (20, 0.0), (60, 0.0), (60, 3.0), (70, 3.0)]
assert sm0 == want, f"SM 0's power line is not the steps of its rows:\n{sm0}\n{want}"
sm1 = [tuple(p) for p in ax_p.lines[1].get_xydata()]
assert sm1[:2] == [(0, 1.0), (10, 1.0)] and sm1[3:] == [(30, 1.5), (40, 1.5)], sm1
assert all(math.isnan(c) for c in sm1[2]), f"no break in SM 1's line where it has no rows: {sm1}"
temps = [tuple(p) for p in ax_t.lines[0].get_xydata()]
assert temps == [(10, 320), (20, 321), (60, 318.5), (70, 322)], f"SM 0's temperature not at the rows' ends: {temps}"

with open(f"{work}/overlap.csv", "w") as f:
    f.write(head + "0,0,10000000,0,0,0,1,320,1,0\n1,5000000,15000000,0,0,0,1,320,1,0\n")
try:
    run(f"{work}/overlap.csv")
    raise AssertionError("overlapping rows accepted")
except SystemExit as e:
    assert f"{work}/overlap.csv:3: SM 0" in str(e.code), e.code
print("ok")
