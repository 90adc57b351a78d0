#!/usr/bin/env python3
"""Grants to one customer at scale: `entlc eval --feature calls` and `eval --consume` on a state with
many state grants and usage records (each use before `t` is charged under the state as it read
then, so every grant that starts or ends between uses is another reading of the state). Medians of
RUNS runs of each, wall time and peak memory (the process's own, `/usr/bin/time -f %M`).

    python3 Benchmarks/grants.py ENTLC OUT_DIR [RUNS] [BEFORE_ENTLC]

States (written to OUT_DIR, seeded): a year of daily 30-day top-ups with 100,000 uses, and 2,000
grants over the year (random starts, until mid-2027) with 5,000 uses; the rules: a plan granting a
feature and a credit system that pays for it. With BEFORE_ENTLC, an older build runs the same
commands, interleaved, and its outputs are compared byte for byte.
"""
import datetime
import json
import os
import random
import shutil
import statistics
import subprocess
import sys

entlc, out = sys.argv[1], sys.argv[2]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
before = sys.argv[4] if len(sys.argv) > 4 else None
os.makedirs(out, exist_ok=True)
RULES = os.path.join(out, "grants-rules.entl")
with open(RULES, "w") as f:
    f.write("product plan: subscription { period month }\nfeature calls: metered\ncredits pool { calls 1 = 2 }\n"
            "entitlement e = plan { grants calls 1_000_000 per month; grants pool 1_000 per month carry up to 5_000 }\n")
START = datetime.datetime(2026, 1, 1)
PLAN = [{"product": "plan", "purchased_at": "2025-11-22T12:00:00Z", "expires_at": "2027-12-22T12:00:00Z"}]


def at(seconds):
    return (START + datetime.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def write(name, grants, uses):
    path = os.path.join(out, name)
    with open(path, "w") as f:
        json.dump({"customer": "c", "purchases": PLAN, "grants": grants, "usage": uses}, f)
    return path


rng = random.Random(7)
DAY, YEAR = 86_400, 365 * 86_400
states = [
    ("365 daily 30-day top-ups, 100,000 uses", write("grants-daily.json",
        [{"feature": "calls", "amount": 1000, "from": at(i * DAY), "until": at((i + 30) * DAY), "id": f"top-up-{i}"}
         for i in range(365)],
        [{"feature": "calls", "amount": rng.randint(1, 5), "at": at(k * YEAR // 100_000)} for k in range(100_000)])),
    ("2,000 grants, 5,000 uses", write("grants-2000.json",
        [{"feature": "calls", "amount": rng.randint(10, 1000), "from": at(rng.randint(0, 360) * DAY),
          "until": "2027-06-01T00:00:00Z", "id": f"g{i}"} for i in range(2000)],
        [{"feature": "calls", "amount": rng.randint(1, 50), "at": at(k * YEAR // 5_000)} for k in range(5_000)])),
]
AT = ["--at", "2026-12-31T00:00:00Z"]


def run(binary, state, consume):
    """(wall seconds, peak KB, stdout) of one run; a consume works on a fresh copy of the state."""
    target = state
    if consume:
        target = os.path.join(out, "consumed.json")
        shutil.copyfile(state, target)
    args = [binary, "eval", RULES, "--state", target, "--feature", "calls", "--format", "json"] + AT
    if consume:
        args += ["--consume", "--id", "bench-1"]
    r = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + args, capture_output=True, check=True)
    wall, peak = r.stderr.decode().strip().splitlines()[-1].split()
    written = open(target, "rb").read() if consume else b""
    return float(wall), int(peak), r.stdout + written


print(f"Median of {runs} runs each, `--at 2026-12-31T00:00:00Z`, wall time and peak memory:\n")
print("| state | command | entlc | peak memory |" + (" before | peak memory | output |" if before else ""))
print("| --- | --- | --- | --- |" + (" --- | --- | --- |" if before else ""))
for label, state in states:
    for consume in (False, True):
        times = {"now": [], "before": []}
        outputs = {}
        for _ in range(runs):
            for key, binary in [("now", entlc)] + ([("before", before)] if before else []):
                wall, peak, output = run(binary, state, consume)
                times[key].append((wall, peak))
                outputs[key] = output
        row = f"| {label} | `eval {'--consume' if consume else '--feature'}` "
        for key in ["now"] + (["before"] if before else []):
            row += (f"| {statistics.median(t[0] for t in times[key]):.2f} s "
                    f"| {statistics.median(t[1] for t in times[key]) / 1024:.0f} MB ")
        if before:
            row += "| " + ("identical" if outputs["now"] == outputs["before"] else "**differs**") + " "
        print(row + "|")
