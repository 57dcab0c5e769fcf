#!/usr/bin/env python3
"""How a program ends under `gpuvp cuda`, and what `gpuvp cuda` refuses before it starts (tests/cudart/exits.cu):
- exit() inside a host function ends the run there with the program's status and the statistics of what
  ran (threaded and single-thread mode);
- a kernel left running at exit is finished within the run's bounds, said on stderr, and the summary
  counts the launches that completed;
- the program's own options after its name are its own (no `--` needed);
- bad --poll-ns, GPUVP_* values, empty or shared output paths and a folder as --vcd are exit 2 before
  the program runs; GPUVP_PRESET and GPUVP_SET count, the options win;
- a signal ending gpuvp ends the program (SIGTERM forwarded; SIGKILL takes it along);
- libsmctrl and memset edge cases, and messages named after the call the program made;
- exit() from a signal handler while a call waits for its turn; another thread in a call at exit
  (bounded); a device error and a host function left at exit; stderr unwritable or a closed pipe;
  signals sent to gpuvp alone; outputs naming the program; errors naming GPUVP_SET and TMPDIR; two
  processes of the program writing the statistics.

  exits.py GPUVP CUDART_DIR PROGRAM WORK_DIR"""
import json
import os
import signal
import subprocess
import sys
import time

gpuvp, cudart, program, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
bad = []


def env(**extra):
    e = {k: v for k, v in os.environ.items() if not k.startswith("GPUVP_")}
    e.update(extra)
    return e


def run(args, extra_env=None, **kw):
    return subprocess.run([gpuvp, "cuda", "--cudart", cudart] + args, capture_output=True, text=True,
                          env=env(**(extra_env or {})), timeout=120, **kw)


def expect(cond, what, p=None):
    if not cond:
        bad.append(what + (f"\n  exit {p.returncode}\n  stdout: {p.stdout}\n  stderr: {p.stderr}" if p else ""))


def signalled(case, sig, wait_s):
    """Runs the program's case, sends `sig` to gpuvp once the program's first line is out: (that line, exit
    status of gpuvp or None if it had not ended after wait_s)."""
    g = subprocess.Popen([gpuvp, "cuda", "--cudart", cudart, "--", program] + case, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env())
    line = g.stdout.readline()
    g.send_signal(sig)
    try:
        rc = g.wait(timeout=wait_s)
    except subprocess.TimeoutExpired:
        g.kill()
        g.wait()
        rc = None
    g.stdout.close()
    g.stderr.close()
    return line, rc


def stats(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return {}


# exit(3) in a host function queued after one kernel.
for mode in ("threaded", "single"):
    path = os.path.join(work, f"hostfn_{mode}.json")
    p = run(["--stats", path, "--", program, "hostfn"], {"GPUVP_SINGLE_THREAD": "1"} if mode == "single" else None)
    expect(p.returncode == 3 and "exited inside the simulation" in p.stderr, f"hostfn ({mode}): exit 3 and why", p)
    expect("went on after exit" not in p.stdout, f"hostfn ({mode}): the program went on", p)
    expect(len(stats(path).get("launches", [])) == 1, f"hostfn ({mode}): statistics with the one kernel that ran", p)

# An endless kernel left at exit: stopped by sim.timeout_ms, then by the host-time bound of the exit.
for bound, said in (("sim.timeout_ms=0.2", "after 0.2 ms of simulated time"),
                    ("sim.host_timeout_s=0.5", "after 0.5 s of CPU time")):
    p = run(["--set", bound, "--set", "sim.timeout_ms=0.2" if "host" not in bound else "sim.timeout_ms=0",
             "--", program, "unwaited"])
    expect(p.returncode == 0 and "exited without waiting for work it queued" in p.stderr and said in p.stderr
           and "1 kernel launch completed" in p.stderr, f"unwaited ({bound}): said, bounded, one launch counted", p)

# exit() from another thread while the main thread waits in a CUDA call: the exit's status, main goes no further.
p = run(["--set", "sim.host_timeout_s=1", "--set", "sim.timeout_ms=0", "--", program, "thread_exit"])
expect(p.returncode == 35 and "went on" not in p.stdout, "thread_exit: status 35, main stopped", p)

# A stale statistics file is not summarised as this run's; a non-regular one is refused.
stale = os.path.join(work, "stale.json")
with open(stale, "w") as f:
    json.dump({"preset": "stale", "launches": []}, f)
p = run(["--stats", stale, "--", program, "sleep"])  # no "sleep" file argument: exits 1 at once
expect("stale" not in p.stderr, "a stale statistics file summarised", p)
p = run(["--stats", "/dev/null", "--", program, "edges"])
expect(p.returncode == 2 and "not a regular file" in p.stderr, "--stats /dev/null refused", p)

# The program's options, without "--".
path = os.path.join(work, "args.json")
p = run(["--stats", path, program, "edges", "-h", "--preset", "bogus"])
expect(p.returncode == 0 and "exits: edges as expected" in p.stdout, "edges: the program's own checks", p)
expect(stats(path).get("args") == ["edges", "-h", "--preset", "bogus"], "the program's options are its own", p)
for needle in ("gpuvp: libsmctrl_get_tpc_info: pointer to the result is NULL",
               "gpuvp: libsmctrl_get_tpc_info: device 5", "gpuvp: libsmctrl_set_stream_mask:",
               "gpuvp: cudaStreamCreate: pointer to the result is NULL",
               "gpuvp: cudaMallocHost: pointer to the result is NULL", "gpuvp: cudaEventCreate: pointer"):
    expect(needle in p.stderr, f"edges: stderr names the call: {needle}", p)

# Refused before the program starts: exit 2, a short message naming the option or variable.
os.makedirs(os.path.join(work, "folder"), exist_ok=True)
same = os.path.join(work, "same.json")
for args, extra, said in (
        (["--poll-ns", "abc"], None, "--poll-ns"), (["--poll-ns", "1e30"], None, "--poll-ns"),
        (["--poll-ns", "nan"], None, "--poll-ns"), (["--poll-ns", "0.0001"], None, "--poll-ns"),
        ([], {"GPUVP_POLL_NS": "1e-9"}, "GPUVP_POLL_NS=1e-9"), ([], {"GPUVP_THREAD_GRACE_MS": "x"}, "GPUVP_THREAD_GRACE_MS"),
        ([], {"GPUVP_SINGLE_THREAD": "yes"}, "GPUVP_SINGLE_THREAD"), (["--stats", ""], None, "--stats: an empty path"),
        (["--stats", same, "--timeline", same], None, "--stats and --timeline name the same file"),
        (["--vcd", os.path.join(work, "folder") + "/"], None, "--vcd"),
        (["--vcd", os.path.join(work, "folder")], None, "not a folder")):
    p = run(args + ["--", program, "edges"], extra)
    expect(p.returncode == 2 and said in p.stderr and len(p.stderr) < 300 and "exits:" not in p.stdout,
           f"refused before the program: {args} {extra}", p)

# The environment's preset and overrides count; the options win.
path = os.path.join(work, "env.json")
for args, preset, sms in (([], "tk1", 3), (["--set", "sm.count=2"], "tk1", 2), (["--preset", "tx2"], "tx2", 3)):
    p = run(args + ["--stats", path, "--", program, "edges"], {"GPUVP_PRESET": "tk1", "GPUVP_SET": "sm.count=3"})
    j = stats(path)
    expect(p.returncode == 0 and j.get("preset") == preset and len(j.get("sms", [])) == sms,
           f"environment {args}: preset {j.get('preset')}, {len(j.get('sms', []))} SMs; expected {preset}, {sms}", p)

# Signals: the program does not outlive gpuvp.
for sig in (signal.SIGTERM, signal.SIGKILL):
    mark = os.path.join(work, f"alive_{sig.name}")
    if os.path.exists(mark):
        os.remove(mark)
    line, rc = signalled(["sleep", mark], sig, 1.5)  # the first line: the program made its CUDA call, sleeps
    time.sleep(2.5)  # past the program's 2 s
    expect("sleeping" in line and rc == (128 + sig if sig == signal.SIGTERM else -sig),
           f"{sig.name}: gpuvp ended ({rc})")
    expect(not os.path.exists(mark), f"{sig.name}: the program outlived gpuvp")

# exit() from a signal handler while the thread waits for its turn behind a call served for ever: at once.
t0 = time.monotonic()
p = run(["--set", "sim.timeout_ms=0", "--", program, "turn_signal"])
expect(p.returncode == 9 and "during a CUDA call" in p.stderr and time.monotonic() - t0 < 30,
       "turn_signal: exit 9 at once", p)

# Another thread waits in a synchronisation on an endless kernel when main returns: the exit's bound holds.
p = run(["--set", "sim.timeout_ms=0", "--set", "sim.host_timeout_s=0.5", "--", program, "sync_at_exit"])
expect(p.returncode == 14 and "exited without waiting" in p.stderr and "after 0.5 s of CPU time" in p.stderr,
       "sync_at_exit: status 14, bounded", p)

# A device error in work left at exit: said, and the statistics written all the same.
path = os.path.join(work, "error_at_exit.json")
p = run(["--stats", path, "--", program, "error_at_exit"])
expect(p.returncode == 0 and "the simulation stopped" in p.stderr and len(stats(path).get("launches", [])) >= 1,
       "error_at_exit: status 0, the error said, statistics written", p)

# A host function left queued at exit is not run (CUDA abandons it): its exit(7) does not become the status.
path = os.path.join(work, "hostfn_at_exit.json")
p = run(["--stats", path, "--", program, "hostfn_at_exit"])
expect(p.returncode == 0 and "are not run" in p.stderr and len(stats(path).get("launches", [])) == 1,
       "hostfn_at_exit: status 0, statistics of the kernel", p)

# stderr unwritable: the library's messages are dropped, the program's status kept.
with open("/dev/full", "w") as full:
    p = subprocess.run([gpuvp, "cuda", "--cudart", cudart, "--", program, "hostfn"], stdout=subprocess.PIPE,
                       stderr=full, text=True, env=env(), timeout=120)
expect(p.returncode == 3, f"hostfn with stderr on /dev/full: status {p.returncode}, not 3")

# The summary into a pipe nobody reads: the program's status, not SIGPIPE.
r, w = os.pipe()
os.close(r)
p = subprocess.run([gpuvp, "cuda", "--cudart", cudart, "--", program, "status"], stdout=subprocess.DEVNULL,
                   stderr=w, env=env(), timeout=120)
os.close(w)
expect(p.returncode == 42, f"status with a closed stderr pipe: {p.returncode}, not 42")

# Signals sent to gpuvp alone reach the program: its SIGUSR1 handler's status; SIGINT from kill ends it.
for sig, want in ((signal.SIGUSR1, 9), (signal.SIGINT, 128 + signal.SIGINT)):
    line, rc = signalled(["usr1"], sig, 4)
    expect("ready" in line and rc == want, f"{sig.name} to gpuvp: {rc}, expected {want}")

# No output may be the program; errors in what the environment gave name the variable.
p = run(["--timeline", program, "--", program, "status"])
expect(p.returncode == 2 and "that is the program" in p.stderr, "--timeline naming the program refused", p)
p = run(["--", program, "status"], {"GPUVP_SET": " "})
expect(p.returncode == 2 and "GPUVP_SET" in p.stderr, "a bad GPUVP_SET named", p)
p = subprocess.run([gpuvp, "cuda", "--cudart", cudart, "--", program, "status"], capture_output=True, text=True,
                   env=env(TMPDIR=os.path.join(work, "no such folder")), timeout=120)
expect(p.returncode == 2 and "TMPDIR=" in p.stderr, "a TMPDIR that is no folder named", p)

# Two processes of the program under one gpuvp cuda: the later one says it replaced the statistics.
path = os.path.join(work, "two.json")
p = run(["--stats", path, "--", "sh", "-c", f"'{program}' status; '{program}' status"])
expect(p.returncode == 42 and p.stderr.count("holds another process's statistics") == 1,
       "two processes: the second says so", p)

if bad:
    sys.exit("exits:\n" + "\n".join(bad))
print("exits: every case as expected")
