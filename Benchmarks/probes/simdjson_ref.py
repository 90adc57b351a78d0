"""Reference: pysimdjson parse-only, ns per line, median of PASSES passes (lines split beforehand).

Usage: /work/main/Benchmarks/.venv/bin/python simdjson_ref.py FILE.jsonl [PASSES]
"""
import statistics
import sys
import time

import simdjson

path = sys.argv[1]
passes = int(sys.argv[2]) if len(sys.argv) > 2 else 7
with open(path, "rb") as f:
    lines = [line for line in f.read().split(b"\n") if line.strip()]
parser = simdjson.Parser()
times = []
for _ in range(passes):
    start = time.perf_counter()
    for line in lines:
        parser.parse(line)
    times.append(time.perf_counter() - start)
ns = statistics.median(times) / len(lines) * 1e9
print(f"pysimdjson parse  {path.rsplit('/', 1)[-1]:24} {ns:8.1f} ns/line  ({len(lines)} lines)")
