"""Reading fault-injection campaign results (docs/campaigns.md) for scripts/reference-study and
scripts/plot_campaign.py. Runs with /usr/bin/python3 (standard library only).

The runs come from `gpuvp campaign export DB --json -`, the golden figures and the MTBF from
`gpuvp report DB`. The scheduler phases of the golden run are in the store (golden.phases) but neither
export nor report gives them: `golden_phases` reads that one documented column read-only, after checking
the store's application id and schema version, and returns None on anything unexpected (callers then
shade / attribute nothing).
"""
import json
import math
import re
import sqlite3
import subprocess

CLASSES = ["masked", "masked_timing", "sdc", "due", "timeout"]
CLASS_LABEL = {"masked": "Masked", "masked_timing": "Masked-timing", "sdc": "SDC", "due": "DUE",
               "timeout": "Timeout", "tool_error": "Tool error", "tolerable": "Tolerable"}


def wilson(k, n, z=1.959964):
    """95 % Wilson score interval of k successes in n trials, as fractions; n = 0 gives (0, 1)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def export_runs(gpuvp, db):
    out = subprocess.run([gpuvp, "campaign", "export", db, "--json", "-"], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)


def report_text(gpuvp, db):
    return subprocess.run([gpuvp, "report", db], check=True, capture_output=True, text=True).stdout


def parse_report(text):
    """The figures of `gpuvp report` the scripts need: name, execution window (ps), MTBF (s, inf)."""
    r = {}
    m = re.search(r"^Campaign: (.*)$", text, re.M)
    r["name"] = m.group(1) if m else "?"
    m = re.search(r"execution window (\d+) \.\. (\d+) ps", text)
    if m:
        r["start_ps"], r["end_ps"] = int(m.group(1)), int(m.group(2))
    m = re.search(r"^MTBF \(study:.*\): (\S+) s", text, re.M)
    r["mtbf_s"] = float(m.group(1)) if m else None  # float("inf") parses 'inf'
    return r


def golden_phases(db):
    """[(phase, start_ps, end_ps)] of the golden run, or None. See the module comment."""
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            app = con.execute("PRAGMA application_id").fetchone()[0]
            ver = con.execute("PRAGMA user_version").fetchone()[0]
            if app != 0x47504649 or ver != 1:
                return None
            row = con.execute("SELECT phases, end_ps, sim_end_ps FROM golden WHERE id = 1").fetchone()
        finally:
            con.close()
    except sqlite3.Error:
        return None
    if not row or not row[0]:
        return None
    try:
        ph = json.loads(row[0])
    except json.JSONDecodeError:
        return None
    spans = []
    for i, p in enumerate(ph):
        end = ph[i + 1]["start_ps"] if i + 1 < len(ph) else row[2]
        spans.append((p["phase"], int(p["start_ps"]), int(end)))
    return spans


def phase_at(spans, t):
    for name, a, b in spans:
        if a <= t < b:
            return name
    return None


def counts(runs):
    c = {k: 0 for k in CLASSES + ["tool_error"]}
    for r in runs:
        c[r["outcome"]] = c.get(r["outcome"], 0) + 1
    return c
