#!/usr/bin/env python3
"""`entlc eval --state FILE --feature calls --amount 1 --consume` against `entlc eval --state FILE
--feature calls --amount 1` (its anchor) on the same state file of N usage records, for each N
given, interleaved, median of RUNS runs each (stdlib only). Each consume appends one record to the
file (a few more among N). The rules: a plan granting `calls` (single use) and `lookups` 1,000,000
a month, and a credit system paying for both; the records use both, over the year before `--at`.

    python3 Benchmarks/consume.py ENTLC OUT_DIR RUNS N [N…]    e.g. … .build/release/entlc Benchmarks/out 7 100000 200000

With FIGURES=FILE, the medians also go to FILE as JSON.
"""
import json
import os
import random
import statistics
import subprocess
import sys
import time

entlc, out, runs, sizes = sys.argv[1], sys.argv[2], int(sys.argv[3]), [int(n) for n in sys.argv[4:]]
AT = "2026-11-22T12:00:00Z"
RULES = """product plan: subscription { period month }
feature calls: metered
feature lookups: metered
credits pool { calls 1 = 2; lookups 1 = 1 }
entitlement e = plan {
  grants calls 1_000_000 per month
  grants lookups 1_000_000 per month
  grants pool 1_000 per month carry up to 5_000
}
"""


def state(n):
    r = random.Random(n)
    start = 1763812800  # 2025-11-22T12:00:00Z
    stamps = sorted(start + r.randrange(31_536_000) for _ in range(n))
    usage = ",\n".join(
        '{"feature": "%s", "amount": %d, "at": "%s"}'
        % (r.choice(["calls", "lookups"]), 1 + r.randrange(40), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t)))
        for t in stamps)
    return ('{"customer": "c", "purchases": [{"product": "plan", "purchased_at": "2025-11-22T12:00:00Z", '
            '"expires_at": "2026-12-22T12:00:00Z"}],\n"usage": [\n' + usage + "\n]}\n")


def timed(args):
    start = time.perf_counter()
    done = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if done.returncode != 0:
        sys.exit(f"{' '.join(args)} exited {done.returncode}")
    return time.perf_counter() - start


os.makedirs(out, exist_ok=True)
rules = os.path.join(out, "consume-rules.entl")
with open(rules, "w") as f:
    f.write(RULES)
figures, rows = {"runs": runs}, []
for n in sizes:
    path = os.path.join(out, f"consume-state-{n}.json")
    with open(path, "w") as f:
        f.write(state(n))
    query = [entlc, "eval", rules, "--state", path, "--feature", "calls", "--amount", "1", "--at", AT,
             "--format", "json"]
    evals, consumes = [], []
    for _ in range(runs):
        evals.append(timed(query))
        consumes.append(timed(query + ["--consume"]))
    e, c = statistics.median(evals), statistics.median(consumes)
    figures[f"eval_{n}_ms"], figures[f"consume_{n}_ms"] = e * 1000, c * 1000
    rows.append((n, os.path.getsize(path), e, c))

print(f"A state file of N usage records; median of {runs} runs each, interleaved:\n")
print("| N records | file | `eval --feature calls --amount 1` (the anchor) | the same with `--consume` | ratio |")
print("| --- | --- | --- | --- | --- |")
for n, size, e, c in rows:
    print(f"| {n:,} | {size / 1e6:.1f} MB | {e * 1000:.0f} ms | {c * 1000:.0f} ms | **{c / e:.2f}×** |")
if len(rows) > 1:
    (n0, _, e0, c0), (n1, _, e1, c1) = rows[0], rows[-1]
    print(f"\n{n1 / n0:.0f}× the records: `--consume` ×{c1 / c0:.2f}, `eval` ×{e1 / e0:.2f}.")
if os.environ.get("FIGURES"):
    with open(os.environ["FIGURES"], "w") as f:
        json.dump(figures, f, indent=2, sort_keys=True)
