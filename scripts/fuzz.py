#!/usr/bin/env python3
"""Seeded mutation fuzzing of gpuvp's readers, end to end through the CLI.

Each target takes a corpus of valid inputs (tests/fuzz/corpus/TARGET/), mutates them (bit flips,
interesting numbers, deleted, duplicated and spliced ranges, dictionary tokens, deep nesting,
truncation) and runs gpuvp on each mutant. Every input must be accepted (exit 0), refused as bad input
(exit 2, one message that says where: the file and a line or a key), or end in a device error (exit 1,
for inputs that run); anything else is a failure: a signal (crash), a hang (the time limit), exit 3
(an internal error: an exception nobody expected), a sanitizer report, or a message without a place.
Failing inputs are kept (--keep) with the command that failed.

  scripts/fuzz.py [--gpuvp build/gpuvp] [--targets ptx,config,launch,campaign,experiment] [--runs N | --seconds S]
                  [--seed K] [--keep DIR] [--timeout S]

Standard library only (the CI's python3). Deterministic for a given --seed and --runs.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

INTERESTING = [b"0", b"-1", b"1", b"4294967295", b"4294967296", b"18446744073709551616", b"-9223372036854775809",
               b"1e308", b"1e999", b"-0", b"0x7fffffff", b"0xffffffffffffffff", b"00", b"010", b"NaN", b"\"\"",
               b"null", b"true", b"[]", b"{}", b"65536", b"2147483648"]

DICTIONARY = {
    "ptx": [b".reg .b32 %r<4>;", b".shared .align 4 .b8 s[1073741824];", b".local .b8 l[4294967296];",
            b"ld.global.u32 %r1, [%rd1];", b"st.shared.f32 [%r1+4], %f1;", b"bra $L;", b"$L:", b"bar.sync 0;",
            b"@%p1 bra $L;", b"call f, (%r1);", b".func f(.param .b32 a)", b"{", b"}", b"(", b")", b"[", b"]",
            b"%tid.x", b"%ctaid.y", b".entry", b".visible", b".param .u64 p", b"ret;", b"exit;", b"mad.lo.s32",
            b".version 8.0", b".target sm_75", b".address_size 64", b"//", b"/*", b"\"", b"0f7F800000",
            b"0d7FF8000000000000"],
    "json": [b"{", b"}", b"[", b"]", b",", b":", b"\"", b"\"sm\"", b"\"count\"", b"\"args\"", b"\"grid\"",
             b"\"block\"", b"\"buffer\"", b"\"type\"", b"\"f32\"", b"\"u8\"", b"\"init\"", b"\"targets\"",
             b"\"size\"", b"\"window\"", b"\"trigger\"", b"\"fault\"", b"\"seed\"", b"\"platform\"",
             b"\"set\"", b"\"preset\"", b"\"workload\"", b"\"ptx\"", b"\"kernel\"", b"\\u0000", b"\\ud800"],
}
# Experiment files (gpuvp experiment check): their keys, benchmark names and multikernel's kernel lists.
DICTIONARY["experiment"] = DICTIONARY["json"][:7] + [
    b"\"name\"", b"\"max_iterations\"", b"\"max_time\"", b"\"base_result_directory\"", b"\"benchmarks\"",
    b"\"filename\"", b"\"log_name\"", b"\"label\"", b"\"thread_count\"", b"\"block_count\"", b"\"data_size\"",
    b"\"additional_info\"", b"\"release_time\"", b"\"stream_priority\"", b"\"cpu_core\"",
    b"\"./bin/timer_spin.so\"", b"\"./bin/multikernel.so\"", b"\"K1,1000,2,128\"", b",K2,0x10,1,1024", b",,",
    b"[32, 32, 2]", b"[65535, 65535, 65535]", b"-1", b"0.5", b"1e-9", b"\"1e6\"", b"\\u0000", b"\\ud800"]

# A place in a message: a file name with a line (file:12, line 12), a column, a key or option in quotes.
PLACE = re.compile(r"(:\d+|line \d+|column \d+|'[^']+'|\"[^\"]+\"|\bkey\b|--[a-z-]+|\w+\.\w+)")


def mutate(data, others, rng, dictionary):
    """One to four mutations of `data` (bytes)."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(10)
        n = len(out)
        if op == 0 and n:  # flip a bit
            i = rng.randrange(n)
            out[i] ^= 1 << rng.randrange(8)
        elif op == 1 and n:  # a number somewhere becomes an interesting one
            spans = [m.span() for m in re.finditer(rb"-?\d+(\.\d+)?", bytes(out))]
            if spans:
                a, b = rng.choice(spans)
                out[a:b] = rng.choice(INTERESTING)
        elif op == 2 and n:  # delete a range
            a = rng.randrange(n)
            del out[a:a + rng.randint(1, 64)]
        elif op == 3 and n:  # duplicate a range
            a = rng.randrange(n)
            out[a:a] = out[a:a + rng.randint(1, 256)]
        elif op == 4:  # a token from the dictionary
            a = rng.randrange(n + 1)
            out[a:a] = rng.choice(dictionary)
        elif op == 5 and n:  # truncate
            del out[rng.randrange(n):]
        elif op == 6:  # deep nesting
            a = rng.randrange(n + 1)
            opener = rng.choice([b"[", b"{", b"(", b"{\"a\":"])
            out[a:a] = opener * rng.choice([100, 1000, 100000])
        elif op == 7 and others:  # splice another corpus file
            other = rng.choice(others)
            if other:
                a, b = rng.randrange(len(other)), rng.randrange(n + 1)
                out[b:b] = other[a:a + rng.randint(1, 512)]
        elif op == 8 and n:  # a random byte, possibly not ASCII
            out[rng.randrange(n)] = rng.randrange(256)
        elif op == 9:  # a very long token
            a = rng.randrange(n + 1)
            out[a:a] = b"x" * rng.choice([300, 100000])
    return bytes(out)


class Target:
    """How one kind of input is fed to gpuvp."""

    def __init__(self, name, suffix, dictionary, command, runs_code=False):
        self.name, self.suffix, self.dictionary, self.command, self.runs_code = name, suffix, dictionary, command, runs_code


def targets(gpuvp):
    quick = ["--set", "sim.timeout_ms=20"]
    return {
        "ptx": Target("ptx", ".ptx", DICTIONARY["ptx"], lambda f: [gpuvp, "disasm", f]),
        "config": Target("config", ".json", DICTIONARY["json"], lambda f: [gpuvp, "config", "--config", f]),
        "launch": Target("launch", ".json", DICTIONARY["json"],
                         lambda f: [gpuvp, "exec", "--preset", "tx2"] + quick + ["--launch-file", f], True),
        "campaign": Target("campaign", ".json", DICTIONARY["json"], lambda f: [gpuvp, "campaign", "check", f], True),
        "experiment": Target("experiment", ".json", DICTIONARY["experiment"], lambda f: [gpuvp, "experiment", "check", f]),
    }


def verdict(target, path, proc, elapsed, timeout):
    """None when the outcome is acceptable, else why not."""
    if proc is None:
        return f"hang: no exit within {timeout} s"
    err = proc.stderr.decode("utf-8", "replace")
    if proc.returncode < 0:
        return f"crash: signal {-proc.returncode}"
    for bad in ("AddressSanitizer", "terminate called", "Assertion", "LeakSanitizer"):
        if bad in err:
            return f"sanitizer or abort report ({bad})"
    if re.search(r"\.\w+:\d+:\d+: runtime error:", err):  # UBSan's file:line:column: runtime error:
        return "undefined behaviour (UBSan)"
    if proc.returncode == 3:
        return "internal error (exit 3): " + err.strip()[:300]
    if proc.returncode not in (0, 1, 2):
        return f"unexpected exit status {proc.returncode}"
    if proc.returncode == 1 and not target.runs_code:
        return "exit 1 from a command that runs no code: " + err.strip()[:300]
    if proc.returncode == 2:
        if not err.strip():
            return "refused (exit 2) without a message"
        if len(err) > 20000:
            return f"refused with a {len(err)}-byte message (the offending input echoed whole?)"
        if not PLACE.search(err):
            return "refused without saying where: " + err.strip()[:300]
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpuvp", default=os.path.join(ROOT, "build", "gpuvp"))
    ap.add_argument("--corpus", default=os.path.join(ROOT, "tests", "fuzz", "corpus"))
    ap.add_argument("--targets", default="ptx,config,launch,campaign,experiment")
    ap.add_argument("--runs", type=int, default=100, help="mutants per target (ignored with --seconds)")
    ap.add_argument("--seconds", type=float, default=0, help="run each target for this long instead")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=20, help="host seconds before a run counts as a hang")
    ap.add_argument("--keep", default=os.path.join(tempfile.gettempdir(), "gpuvp-fuzz-failures"))
    args = ap.parse_args()
    if not os.access(args.gpuvp, os.X_OK):
        print(f"fuzz: no gpuvp at {args.gpuvp} (build first)", file=sys.stderr)
        return 2
    all_targets = targets(args.gpuvp)
    failures = 0
    work = tempfile.mkdtemp(prefix="gpuvp-fuzz-")
    try:
        for name in args.targets.split(","):
            if name not in all_targets:
                print(f"fuzz: unknown target '{name}' (known: {', '.join(all_targets)})", file=sys.stderr)
                return 2
            t = all_targets[name]
            cdir = os.path.join(args.corpus, name)
            files = [os.path.join(cdir, f) for f in sorted(os.listdir(cdir))]
            seeds = [open(f, "rb").read() for f in files if os.path.isfile(f)]
            if not seeds:
                print(f"fuzz: empty corpus {cdir}", file=sys.stderr)
                return 2
            rng = random.Random(f"{args.seed}:{name}")
            counts = {0: 0, 1: 0, 2: 0}
            start, i = time.monotonic(), 0
            while (time.monotonic() - start < args.seconds) if args.seconds else (i < args.runs):
                data = mutate(rng.choice(seeds), seeds, rng, t.dictionary)
                # Relative paths inside launch and campaign files resolve next to the corpus file.
                path = os.path.join(work, f"{name}-{i}{t.suffix}")
                with open(path, "wb") as f:
                    f.write(data)
                for extra in ("ptx", "data"):
                    src = os.path.join(cdir, extra)
                    if os.path.isdir(src) and not os.path.exists(os.path.join(work, extra)):
                        shutil.copytree(src, os.path.join(work, extra))
                cmd = t.command(path)
                t0 = time.monotonic()
                try:
                    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=args.timeout,
                                          cwd=work)
                except subprocess.TimeoutExpired:
                    proc = None
                why = verdict(t, path, proc, time.monotonic() - t0, args.timeout)
                if why:
                    failures += 1
                    os.makedirs(args.keep, exist_ok=True)
                    kept = os.path.join(args.keep, os.path.basename(path))
                    shutil.copy(path, kept)
                    print(f"FAIL {name} #{i}: {why}\n  input kept: {kept}\n  command: {' '.join(cmd[:-1])} {kept}")
                else:
                    counts[proc.returncode] += 1
                os.remove(path)
                i += 1
            print(f"{name}: {i} inputs in {time.monotonic() - start:.1f} s: {counts[0]} accepted, {counts[2]} refused "
                  f"(exit 2), {counts[1]} device errors (exit 1)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"fuzz: {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
