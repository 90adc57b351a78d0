#!/usr/bin/env python3
"""Side by side on one core: `entlc eval --states FILE --jobs 1` (the whole job: read, decode,
evaluate, write the results) against parsing each line of the same JSONL with simdjson and doing
nothing else (pysimdjson, in Benchmarks/.venv; the file read and split into lines beforehand,
untimed: `timing.parse_lines`). Reading and splitting it in Python as well (the anchor until
2026-11-26) is measured too, as context. Median of RUNS runs each, in one run of this
script; prints MB/s and the ratio, by wall-clock time and by CPU time (user + system: on a
shared machine the steadier of the two, as time spent waiting for a core is not counted).

    Benchmarks/.venv/bin/python Benchmarks/simdjson_compare.py ENTLC RULES STATES.jsonl QUERY [RUNS]
    e.g. … .build/release/entlc Benchmarks/out/batch-rules.entl Benchmarks/out/states-4.jsonl "--entitlement e0" 5

With ENTLC_BEFORE=PATH (an entlc built from an earlier commit), that binary runs too, interleaved
with the others, for a before/after measured side by side. With FIGURES=FILE, the medians are also
written to FILE as JSON (Benchmarks/run.sh reads them for the summary).
"""
import json
import os
import statistics
import subprocess
import sys
import time

from timing import children_cpu, parse_lines, read_and_parse_lines
from importlib.metadata import version

entlc, rules, states, query = sys.argv[1:5]
runs = int(sys.argv[5]) if len(sys.argv) > 5 else 5
size = os.path.getsize(states)


before = os.environ.get("ENTLC_BEFORE")


def entlc_eval(binary=entlc):
    start, cpu = time.perf_counter(), children_cpu()
    subprocess.run([binary, "eval", rules, "--states", states, *query.split(), "--jobs", "1",
                    "--at", "2026-11-22T12:00:00Z"], stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start, children_cpu() - cpu


times = {"simdjson": [], "python": [], "entlc": [], "before": []}
for _ in range(runs):  # interleaved, so all see the same machine
    times["simdjson"].append(parse_lines(states))
    times["python"].append(read_and_parse_lines(states))
    times["entlc"].append(entlc_eval())
    if before:
        times["before"].append(entlc_eval(before))


def median(run, which):
    return statistics.median(t[which] for t in times[run])


s, e = median("simdjson", 0), median("entlc", 0)
print(f"{size / 1e6:.1f} MB of JSONL, one core, median of {runs} (wall clock; CPU time in parentheses):\n")
print("| run | median | throughput |")
print("| --- | --- | --- |")
print(f"| pysimdjson {version('pysimdjson')}: parse every line (split beforehand), nothing else | {s * 1000:.0f} ms ({median('simdjson', 1) * 1000:.0f} ms) "
      f"| {size / s / 1e6:.0f} MB/s |")
print(f"| `entlc eval --states --jobs 1 {query}` end to end, output included | {e * 1000:.0f} ms ({median('entlc', 1) * 1000:.0f} ms) "
      f"| {size / e / 1e6:.0f} MB/s |")
p = median("python", 0)
print(f"| context: read, split and parse in Python | {p * 1000:.0f} ms ({median('python', 1) * 1000:.0f} ms) "
      f"| {size / p / 1e6:.0f} MB/s |")
if before:
    b = median("before", 0)
    print(f"| the same, entlc before (`{before}`) | {b * 1000:.0f} ms ({median('before', 1) * 1000:.0f} ms) | {size / b / 1e6:.0f} MB/s |")
cpu = median("entlc", 1) / median("simdjson", 1)
print(f"\nentlc takes **{e / s:.1f}×** the time of parsing alone, **{cpu:.1f}×** its CPU time (goal: ≤ 3×).")
print(f"Against reading, splitting and parsing in Python (context): {e / p:.1f}×.")
if before:
    print(f"Before: **{b / s:.1f}×** ({median('before', 1) / median('simdjson', 1):.1f}× CPU time); "
          f"this build is **{b / e:.2f}×** as fast ({median('before', 1) / median('entlc', 1):.2f}× by CPU time).")

if os.environ.get("FIGURES"):
    with open(os.environ["FIGURES"], "w") as f:
        json.dump({"simdjson_ms": s * 1000, "python_ms": p * 1000, "entlc_ms": e * 1000, "simdjson_cpu_ms": median("simdjson", 1) * 1000,
                   "entlc_cpu_ms": median("entlc", 1) * 1000, "mb": size / 1e6, "runs": runs,
                   "pysimdjson": version("pysimdjson")}, f, indent=2, sort_keys=True)
