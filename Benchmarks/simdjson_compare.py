#!/usr/bin/env python3
"""Side by side on one core: `entlc eval --states FILE --jobs 1` (the whole job: read, decode,
evaluate, write the results) against parsing each line of the same JSONL with simdjson and doing
nothing else (pysimdjson, in Benchmarks/.venv). Median of RUNS runs each, in one run of this
script; prints MB/s and the ratio.

    Benchmarks/.venv/bin/python Benchmarks/simdjson_compare.py ENTLC RULES STATES.jsonl QUERY [RUNS]
    e.g. … .build/release/entlc Benchmarks/out/batch-rules.entl Benchmarks/out/states-4.jsonl "--entitlement e0" 5

With ENTLC_BEFORE=PATH (an entlc built from an earlier commit), that binary runs too, interleaved
with the others, for a before/after measured side by side.
"""
import os
import statistics
import subprocess
import sys
import time

import simdjson
from importlib.metadata import version

entlc, rules, states, query = sys.argv[1:5]
runs = int(sys.argv[5]) if len(sys.argv) > 5 else 5
size = os.path.getsize(states)


def simdjson_parse():
    parser = simdjson.Parser()
    start = time.perf_counter()
    with open(states, "rb") as f:
        data = f.read()
    for line in data.split(b"\n"):
        if line.strip():
            parser.parse(line)
    return time.perf_counter() - start


before = os.environ.get("ENTLC_BEFORE")


def entlc_eval(binary=entlc):
    start = time.perf_counter()
    subprocess.run([binary, "eval", rules, "--states", states, *query.split(), "--jobs", "1",
                    "--at", "2026-11-22T12:00:00Z"], stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


times = {"simdjson": [], "entlc": [], "before": []}
for _ in range(runs):  # interleaved, so all see the same machine
    times["simdjson"].append(simdjson_parse())
    times["entlc"].append(entlc_eval())
    if before:
        times["before"].append(entlc_eval(before))
s, e = statistics.median(times["simdjson"]), statistics.median(times["entlc"])
print(f"{size / 1e6:.1f} MB of JSONL, one core, median of {runs}:\n")
print("| run | median | throughput |")
print("| --- | --- | --- |")
print(f"| pysimdjson {version('pysimdjson')}: parse every line, nothing else | {s * 1000:.0f} ms | {size / s / 1e6:.0f} MB/s |")
print(f"| `entlc eval --states --jobs 1 {query}` end to end, output included | {e * 1000:.0f} ms | {size / e / 1e6:.0f} MB/s |")
if before:
    b = statistics.median(times["before"])
    print(f"| the same, entlc before (`{before}`) | {b * 1000:.0f} ms | {size / b / 1e6:.0f} MB/s |")
print(f"\nentlc takes **{e / s:.1f}×** the time of parsing alone (goal: ≤ 4×).")
if before:
    print(f"Before: **{b / s:.1f}×**; this build is **{b / e:.2f}×** as fast.")
