#!/usr/bin/env python3
"""The project's libcudart.so.13 exports every function of the real library's list (exports.txt) with
its version node, and nothing else but the nvcc entry points (__cuda*) and sc_main (docs/cuda.md).
Needs only binutils' nm, not CUDA.   usage: exports_check.py NM LIBRARY EXPORTS.txt"""
import subprocess
import sys

nm, lib, listing = sys.argv[1:4]
wanted = {line.split()[0] for line in open(listing) if line.strip() and not line.startswith("#")}
out = subprocess.run([nm, "-D", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
exported, unversioned = set(), []
for fields in map(str.split, out.splitlines()):
    if len(fields) != 3 or fields[1] == "A":  # the version node itself
        continue
    name, _, version = fields[2].partition("@@")
    exported.add(name)
    if version != "libcudart.so.13":
        unversioned.append(fields[2])
missing = sorted(wanted - exported)
extra = sorted(n for n in exported - wanted if not n.startswith("__cuda") and n != "sc_main")
for what, names in (("missing", missing), ("not in the list", extra), ("without version libcudart.so.13", unversioned)):
    if names:
        print(f"{lib}: {len(names)} exports {what}: {' '.join(names[:20])}")
if missing or extra or unversioned or len(wanted) < 400:
    sys.exit(1)
print(f"exports: all {len(wanted)} of the list, nothing else")
