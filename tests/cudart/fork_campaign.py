#!/usr/bin/env python3
"""Faulty runs forked from the golden run at their instants (docs/campaigns.md, "Campaigns on
applications") against fresh processes.

  fork_campaign.py GPUVP WORK_DIR same FI_APP [DRAWN]
  fork_campaign.py GPUVP WORK_DIR fallback TWO_THREADS IDLE_THREAD FI_APP
  fork_campaign.py GPUVP WORK_DIR callbacks CALLBACKS

same: one campaign file on tests/cudart/fi_app (faults drawn over the state of SM 0 during the kernel,
DRAWN of them, 40 by default, a DUE among them, and faults aimed at its inputs and output in global memory before, during and after the kernel, a hang
among them with `fi_app aimed.txt wait`; the drawn faults again on `fi_app out.txt cd nochld`, which
changes into a subfolder before its first CUDA call, writes sub/out.txt there and ignores SIGCHLD), run
with application.fork true and false: every run's outcome,
DUE kind and detail are equal (a hang's detail says how long it ran: its outcome is compared), and the
report says how the runs ran.
fallback: tests/cudart/two_threads makes CUDA calls from two threads, tests/cudart/idle_thread has a
second thread that makes none; fork() copies only the calling thread: the forked route gives up, every
fault runs as a fresh process, and the report says why. The same for a shell script that runs fi_app
and writes after it (a run forked in fi_app would end without the script's rest)."""
import json
import os
import re
import subprocess
import sys

gpuvp, work, mode, app = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3], os.path.abspath(sys.argv[4])
os.makedirs(work, exist_ok=True)
GLOBAL_BASE = 0x1000_0000  # sw/isa/address_map.h: word k of gpu.gmem is at GLOBAL_BASE + 4 k
N = 64  # fi_app's elements: a, b and c are 256-byte allocations, one after the other


def run(*args):
    p = subprocess.run([gpuvp, *args], capture_output=True, text=True, cwd=work)
    if p.returncode != 0:
        sys.exit(f"gpuvp {' '.join(args)}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p


def campaign(name, body, fork):
    """Runs the campaign; returns its rows by id, the report and what the campaign said on stderr."""
    path, db = os.path.join(work, name + ".json"), os.path.join(work, name + ".db")
    for f in (db, db + ".lock"):
        if os.path.exists(f):
            os.remove(f)
    body = json.loads(json.dumps(body))
    body["application"]["fork"] = fork
    with open(path, "w") as f:
        json.dump({"name": name, "platform": {"preset": "flexgrip"}, "workers": 2, **body}, f, indent=1)
    said = run("campaign", "run", path, "--db", db, "--quiet").stderr
    rows = {r["id"]: r for r in json.loads(run("campaign", "export", db, "--json", "-").stdout)}
    return rows, run("report", db).stdout, said


def same():
    probe = subprocess.run([gpuvp, "cuda", "--preset", "flexgrip", "--", app, "out.txt"], capture_output=True,
                           text=True, cwd=work)
    assert probe.returncode == 0, probe.stderr
    a0 = (int(re.search(r"fi_app: a at (0x[0-9a-f]+)", probe.stderr).group(1), 16) - GLOBAL_BASE) // 4
    spec = {"command": [app, "out.txt"], "outputs": ["out.txt"]}
    sm0 = ["gpu.sm0.block_idx", "gpu.sm0.num_blocks", "gpu.sm0.state", "gpu.sm0.warp[0].*", "gpu.sm0.warp[1].*"]
    count = int(sys.argv[5]) if len(sys.argv) > 5 else 40
    drawn = {"application": spec, "targets": sm0, "size": {"count": count}, "seed": 11}
    window = run("campaign", "check", campaign_file("window", drawn)).stdout
    start, end = map(int, re.search(r"golden run (\d+) to (\d+) ps", window).groups())
    # a[i], b[i], c[i]: words a0 + i, a0 + 64 + i, a0 + 128 + i; a[0] flipped before the kernel makes
    # `fi_app aimed.txt wait` spin (a hang).
    aimed = {"application": {"command": [app, "aimed.txt", "wait"], "outputs": ["aimed.txt"], "timeout_s": 4},
             "faults": [{"target": "gpu.gmem", "idx": a0 + off + i, "bit": bit, "time_ps": t}
                        for off, i, bit in ((0, 0, 0), (0, 3, 0), (N, 17, 4), (2 * N, 9, 1), (2 * N, 40, 30))
                        for t in (start // 2, (start + end) // 2, end + 1)]}
    # A forked run works in the counterpart of the folder the golden run changed into, as a fresh run
    # does, and its exit status (a DUE's) is not lost when the application ignores SIGCHLD.
    odd = {**drawn, "application": {"command": [app, "out.txt", "cd", "nochld"], "outputs": ["sub/out.txt"]}}
    ok, classes = True, set()
    for name, body in (("drawn", drawn), ("aimed", aimed), ("odd", odd)):
        forked, forked_report, _ = campaign(name + "_fork", body, True)
        fresh, fresh_report, _ = campaign(name + "_fresh", body, False)
        assert "Faulty runs: forked from golden runs at their instants" in forked_report, forked_report
        assert "Faulty runs: fresh processes (application.fork is false)" in fresh_report, fresh_report
        expected = len(body["faults"]) if "faults" in body else body["size"]["count"]
        assert sorted(forked) == sorted(fresh) and len(fresh) == expected, (forked, fresh)
        for i in sorted(fresh):
            key = ("outcome", "due_kind") + (() if fresh[i]["outcome"] == "timeout" else ("detail",))
            f, g = (tuple(forked[i].get(k) for k in key), tuple(fresh[i].get(k) for k in key))
            if f != g:
                ok = False
                print(f"{name} {i}: forked {f}, fresh {g}")
        print(f"{name}: {len(fresh)} runs:", sorted(r["outcome"] for r in fresh.values()))
        classes |= {r["outcome"] for r in fresh.values()}
    assert {"due", "sdc", "masked", "timeout"} <= classes, classes  # agreement on more than one class
    return ok


def campaign_file(name, body):
    path = os.path.join(work, name + ".json")
    with open(path, "w") as f:
        json.dump({"name": name, "platform": {"preset": "flexgrip"}, **body}, f, indent=1)
    return path


def fallback():
    # two_threads: whichever comes first, the second thread's call or an instant while both run.
    # run_fi_app.sh: a script running fi_app and appending to its output after it; a run forked in
    # fi_app would leave that out.
    script = os.path.join(work, "run_fi_app.sh")
    with open(script, "w") as f:
        f.write(f'#!/bin/sh\n"{os.path.abspath(sys.argv[6])}" out.txt\necho "fi_app: exit $?" >> out.txt\n')
    os.chmod(script, 0o755)
    why = {app: r"(a second thread of the application made a CUDA call|the application has \d+ threads at a fault's instant)",
           os.path.abspath(sys.argv[5]): "the application has 2 threads at a fault's instant",
           script: "the CUDA calls come from a child process of the application's command"}
    for program, reason in why.items():
        body = {"application": {"command": [program]}, "targets": ["gpu.sm0.warp[0].*"], "size": {"count": 4},
                "seed": 2}
        if program == app:
            # two_threads' standard output interleaves its two threads' own printf (not reproducible,
            # docs/cuda.md; slow builds such as the sanitizers' show it): this test is about why its runs
            # are fresh, not about their outcomes.
            body["application"]["check_reproducible"] = False
        rows, report, said = campaign(os.path.basename(program), body, True)
        # A fresh run of two_threads may end before an instant (its threads take turns as they come).
        assert len(rows) == 4 and (program == app or all(r["outcome"] != "tool_error" for r in rows.values())), rows
        line = re.search(r"Faulty runs: (.*)", report).group(1)
        assert re.match("fresh processes for 4 of 4: not forked, " + reason, line), report
        assert line in said, said
        print("fallback:", line)
    return True


def callbacks():
    """tests/cudart/callbacks (host functions in stream order) on tx2, where they wait on host threads of
    the runtime: forked at instants where one is pending, the runs give the fresh runs' outcomes."""
    spec = {"command": [app], "outputs": []}
    body = {"platform": {"preset": "tx2"}, "application": spec, "targets": ["gpu.sm0.*"], "size": {"count": 16},
            "seed": 7}
    forked, forked_report, _ = campaign("callbacks_fork", body, True)
    fresh, _, _ = campaign("callbacks_fresh", body, False)
    assert "Faulty runs: forked from golden runs at their instants" in forked_report, forked_report
    assert sorted(forked) == sorted(fresh) and len(fresh) == 16, (forked, fresh)
    ok = True
    for i in sorted(fresh):
        key = ("outcome", "due_kind") + (() if fresh[i]["outcome"] == "timeout" else ("detail",))
        f, g = (tuple(forked[i].get(k) for k in key), tuple(fresh[i].get(k) for k in key))
        if f != g:
            ok = False
            print(f"callbacks {i}: forked {f}, fresh {g}")
    outcomes = sorted(r["outcome"] for r in fresh.values())
    assert "tool_error" not in outcomes, fresh
    print("callbacks: 16 runs:", outcomes)
    return ok


sys.exit(0 if {"same": same, "fallback": fallback, "callbacks": callbacks}[mode]() else 1)
