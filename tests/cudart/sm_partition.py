#!/usr/bin/env python3
"""SM partitions from libsmctrl: sm_partition (an unmodified program linked with -lsmctrl) runs on tx2
with 4 SMs under `gpuvp cuda --timeline`; in the timeline every block of each kernel lies on the SMs
its mask leaves (the program's masks: stream a SM 0, stream b SMs 1-2, the global mask SMs 0-2, the
next mask SM 3), every block ran, and the two streams' kernels ran side by side.

  sm_partition.py GPUVP PROGRAM TIMELINE.json"""
import collections
import json
import subprocess
import sys

gpuvp, program, timeline = sys.argv[1:4]
# kernel -> (SMs allowed, blocks): stream_a runs twice (before and after the next mask)
EXPECTED = {"stream_a": ({0}, 16), "stream_b": ({1, 2}, 8), "unmasked": ({0, 1, 2}, 8), "next_only": ({3}, 8)}

p = subprocess.run([gpuvp, "cuda", "--set", "sm.count=4", "--timeline", timeline, "--", program],
                   capture_output=True, text=True)
if p.returncode != 0 or "every block on its partition" not in p.stdout:
    sys.exit(f"sm_partition: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
blocks = [e for e in json.load(open(timeline))["traceEvents"] if e["ph"] == "X"]
sms, count, spans = collections.defaultdict(set), collections.Counter(), collections.defaultdict(list)
for e in blocks:
    sms[e["cat"]].add(e["args"]["sm"])
    count[e["cat"]] += 1
    spans[(e["cat"], e["args"]["launch"])].append((e["ts"], e["ts"] + e["dur"]))
bad = []
for kernel, (allowed, n) in EXPECTED.items():
    if count[kernel] != n:
        bad.append(f"{kernel}: {count[kernel]} blocks in the timeline, expected {n}")
    if not sms[kernel] <= allowed:
        bad.append(f"{kernel}: blocks on SMs {sorted(sms[kernel])}, allowed {sorted(allowed)}")
if set(count) != set(EXPECTED):
    bad.append(f"kernels {sorted(count)}, expected {sorted(EXPECTED)}")
# The first launches of stream a and stream b: each started before the other ended.
first = {k: min((l for (kk, l) in spans if kk == k), default=None) for k in ("stream_a", "stream_b")}
if None not in first.values():
    a, b = spans[("stream_a", first["stream_a"])], spans[("stream_b", first["stream_b"])]
    if not (min(s for s, _ in a) < max(e for _, e in b) and min(s for s, _ in b) < max(e for _, e in a)):
        bad.append("stream a's and stream b's kernels did not overlap")
if bad:
    sys.exit("\n".join(bad))
print(f"sm_partition: {len(blocks)} blocks, each kernel's on its SMs: "
      + ", ".join(f"{k} {sorted(sms[k])}" for k in EXPECTED))
