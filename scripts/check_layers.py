#!/usr/bin/env python3
"""Keeps docs/architecture.md's layer table true.

  scripts/check_layers.py [SOURCE_DIR]

Checks that (1) every library's direct project dependencies in CMake equal the table's
"depends on" column, and (2) every #include "..." in a layer's folder names a header of that
layer or of a layer it depends on (directly or through others). Prints what disagrees and exits 1.
"""
import os
import re
import sys


# Layers that must stay free of SystemC (the runtime API and everything below it on the software side).
NO_SYSTEMC = {"gpuvp_isa", "gpuvp_analysis", "gpuvp_ptx", "gpuvp_runtime", "gpuvp_kernels", "gpuvp_workloads",
              "gpuvp_fatbin"}


def table(root):
    text = open(os.path.join(root, "docs", "architecture.md")).read()
    rows = {}
    for m in re.finditer(r"^\| `([^`]+)` \| (gpuvp_\w+)[^|]*\| ([^|]*)\|", text, re.M):
        deps = set(re.findall(r"gpuvp_\w+", m.group(3)))
        rows[m.group(2)] = (m.group(1), deps)
    return rows


def cmake_deps(root):
    deps = {}
    for dirpath, _, files in os.walk(root):
        if "CMakeLists.txt" not in files or "/build" in dirpath or "/.git" in dirpath:
            continue
        text = open(os.path.join(dirpath, "CMakeLists.txt")).read()
        text = re.sub(r"#.*", "", text)
        for m in re.finditer(r"gpuvp_layer\((gpuvp_\w+)\s+[^\s)]+((?:\s+DEPS)?[^)]*)\)", text):
            deps.setdefault(m.group(1), set()).update(re.findall(r"gpuvp_\w+", m.group(2)))
        for m in re.finditer(r"target_link_libraries\((gpuvp_\w+)\s+PUBLIC([^)]*?)(?:PRIVATE[^)]*)?\)", text):
            deps.setdefault(m.group(1), set()).update(re.findall(r"gpuvp_\w+", m.group(2)))
        for m in re.finditer(r"add_library\((gpuvp_\w+)", text):
            deps.setdefault(m.group(1), set())
    return deps


def closure(lib, deps):
    seen, todo = set(), [lib]
    while todo:
        x = todo.pop()
        for d in deps.get(x, ()):
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return seen


def main(root):
    rows = table(root)
    cm = cmake_deps(root)
    bad = []
    if not rows:
        bad.append("docs/architecture.md: no layer table found")
    for lib, (folder, deps) in rows.items():
        if lib not in cm:
            bad.append(f"table names {lib} ({folder}), which CMake does not build")
            continue
        known = {d for d in cm[lib] if d in rows}
        if known != deps:
            bad.append(f"{lib}: table says it depends on {sorted(deps) or '-'}, CMake links {sorted(known) or '-'}")
    folders = sorted(((f, lib) for lib, (f, _) in rows.items()), key=lambda x: -len(x[0]))

    def owner(path):
        for f, lib in folders:
            if path == f or path.startswith(f + "/"):
                return lib
        return None

    for folder, lib in folders:
        allowed = closure(lib, {k: v[1] for k, v in rows.items()}) | {lib}
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for name in files:
                if not name.endswith((".h", ".cc", ".in")):
                    continue
                path = os.path.join(dirpath, name)
                for n, line in enumerate(open(path, errors="replace"), 1):
                    rel = os.path.relpath(path, root)
                    inc = re.match(r'\s*#\s*include\s+[<"]([^>"]+)[>"]', line)
                    if inc and ("../" in inc.group(1) or inc.group(1).startswith("./")):
                        bad.append(f"{rel}:{n}: relative include {inc.group(1)}: name headers from the root")
                    if inc and lib in NO_SYSTEMC and re.match(r"(systemc|tlm)", inc.group(1)):
                        bad.append(f"{rel}:{n}: includes {inc.group(1)}: {lib} must not depend on SystemC")
                    m = re.match(r'\s*#include\s+"([^"]+)"', line)
                    if not m:
                        continue
                    target = owner(m.group(1))
                    if target and target not in allowed:
                        bad.append(f"{rel}:{n}: includes {m.group(1)} ({target}), not a layer below {lib}")
    for line in bad:
        print(line)
    print(f"layers: {len(rows)} libraries checked, {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")))
