#!/usr/bin/env python3
"""Batch at the parse limit, per query kind and line length: `entlc eval --states FILE --jobs 1
QUERY` (read, decode, evaluate, write, output to /dev/null) against parsing every line of the
same file with simdjson and nothing else (pysimdjson, one core; the file read and split into lines
beforehand, untimed: `timing.parse_lines`), side by side and interleaved, median of RUNS runs each.
Reading and splitting the file in Python as well (`timing.read_and_parse_lines`, the anchor until
2026-11-26) is measured too and given as context. Queries: `--entitlement e0`, `--feature gated`
(boolean, `requires`), `--feature f1` (metered, paid by a credit system when its grants run out)
and `--all`; files: short
lines (about 330 bytes: 1 to 3 purchases) and long ones (about 650: 1 to 4 purchases, 4 usage
events), written by `entlc-bench matrix-inputs`.

    Benchmarks/.venv/bin/python Benchmarks/batch_matrix.py ENTLC RULES SHORT.jsonl LONG.jsonl [RUNS]

`--all` answers every product, entitlement and feature of the rules on each line: its output is
some twenty times its input, and writing it is most of the work. Its cell has a second anchor,
pysimdjson parsing that output (the same JSONL, written by entlc once, before the timed runs): how
entlc's whole job compares with merely reading what it writes.

With ENTLC_BEFORE=PATH (an entlc built from an earlier commit), that binary runs too, interleaved,
and each cell's output bytes are compared with it (they must be identical). With FIGURES=FILE,
the medians also go to FILE as JSON.
"""
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from timing import children_cpu, parse_lines, read_and_parse_lines
from importlib.metadata import version

entlc, rules, short, long_ = sys.argv[1:5]
runs = int(sys.argv[5]) if len(sys.argv) > 5 else 5
before = os.environ.get("ENTLC_BEFORE")
QUERIES = [("entitlement", "--entitlement e0"), ("requires", "--feature gated"), ("credits", "--feature f1"),
           ("all", "--all")]
FILES = [("short", short), ("long", long_)]


def command(binary, path, query):
    return [binary, "eval", rules, "--states", path, *query.split(), "--jobs", "1", "--at", "2026-11-22T12:00:00Z"]


def run(binary, path, query):
    start, cpu = time.perf_counter(), children_cpu()
    subprocess.run(command(binary, path, query), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start, children_cpu() - cpu


def output(binary, path, query):
    out = subprocess.run(command(binary, path, query), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True)
    return hashlib.sha256(out.stdout).hexdigest(), len(out.stdout)


# `--all`'s output, written once per file for its second anchor.
outputs = {}
for name, path in FILES:
    with tempfile.NamedTemporaryFile(prefix=f"entlc-all-{name}-", suffix=".jsonl", delete=False) as f:
        subprocess.run(command(entlc, path, "--all"), stdout=f, stderr=subprocess.DEVNULL, check=True)
        outputs[name] = f.name

times = {}
for _ in range(runs):  # interleaved, so every cell sees the same machine
    for name, path in FILES:
        times.setdefault((name, "simdjson"), []).append(parse_lines(path))
        times.setdefault((name, "python"), []).append(read_and_parse_lines(path))
        times.setdefault((name, "simdjson-all-output"), []).append(parse_lines(outputs[name]))
        for kind, query in QUERIES:
            times.setdefault((name, kind), []).append(run(entlc, path, query))
            if before:
                times.setdefault((name, kind, "before"), []).append(run(before, path, query))


def median(key, which=0):
    return statistics.median(t[which] for t in times[key])


figures = {"runs": runs, "pysimdjson": version("pysimdjson")}
print(f"One core, median of {runs} runs, wall clock (CPU time in parentheses); rules `{os.path.basename(rules)}` "
      f"(10 products, 20 features, 5 entitlements, a credit system, a feature with `requires`):\n")
print("| lines | query | output | pysimdjson: parse every line (split beforehand) | `entlc eval --states --jobs 1` "
      "| ratio |"
      + (" before | |" if before else ""))
print("| --- | --- | --- | --- | --- | --- |" + (" --- | --- |" if before else ""))
mismatches = []
for name, path in FILES:
    size = os.path.getsize(path)
    lines = sum(1 for _ in open(path, "rb"))
    s, s_cpu = median((name, "simdjson")), median((name, "simdjson"), 1)
    figures[f"{name}_mb"] = size / 1e6
    figures[f"{name}_lines"] = lines
    figures[f"{name}_simdjson_ms"] = s * 1000
    figures[f"{name}_python_ms"] = median((name, "python")) * 1000
    for kind, query in QUERIES:
        e, e_cpu = median((name, kind)), median((name, kind), 1)
        digest, out_bytes = output(entlc, path, query)
        row = (f"| {name}: {lines:,} lines, {size / 1e6:.0f} MB ({size / lines:.0f} B a line) | `{query}` "
               f"| {out_bytes / 1e6:.0f} MB | {s * 1000:.0f} ms ({s_cpu * 1000:.0f} ms), {size / s / 1e6:.0f} MB/s "
               f"| {e * 1000:.0f} ms ({e_cpu * 1000:.0f} ms), {size / e / 1e6:.0f} MB/s | **{e / s:.1f}×** "
               f"({e_cpu / s_cpu:.1f}× CPU) |")
        if before:
            b = median((name, kind, "before"))
            same = output(before, path, query)[0] == digest
            if not same:
                mismatches.append(f"{name} {query}")
            row += f" {b * 1000:.0f} ms ({b / s:.1f}×) | {b / e:.2f}× as fast{'' if same else ', OUTPUT DIFFERS'} |"
            figures[f"{name}_{kind}_before_ms"] = b * 1000
        print(row)
        if kind == "all":
            o = median((name, "simdjson-all-output"))
            figures[f"{name}_all_output_simdjson_ms"] = o * 1000
            figures[f"{name}_all_output_ratio"] = e / o
        figures[f"{name}_{kind}_ms"] = e * 1000
        figures[f"{name}_{kind}_cpu_ms"] = e_cpu * 1000
        figures[f"{name}_{kind}_ratio"] = e / s
        figures[f"{name}_{kind}_output_mb"] = out_bytes / 1e6
    figures[f"{name}_simdjson_cpu_ms"] = s_cpu * 1000
print(f"\npysimdjson {version('pysimdjson')}. The command: `entlc eval {os.path.basename(rules)} --states FILE QUERY "
      "--jobs 1 --at 2026-11-22T12:00:00Z > /dev/null`.")
print("\n`--all` against pysimdjson parsing its output (" + ", ".join(
    f"{name}: {figures[f'{name}_all_output_mb']:.0f} MB in {figures[f'{name}_all_output_simdjson_ms']:.0f} ms; "
    f"entlc {figures[f'{name}_all_ms']:.0f} ms, **{figures[f'{name}_all_output_ratio']:.2f}×**" for name, _ in FILES)
      + "): entlc's whole job (decoding, evaluating every declaration, writing) beside only reading what it "
      "writes.")
print("\nContext, not the goal: reading the file, splitting it into lines and parsing them, all in Python (the "
      "anchor until 2026-11-26; " + ", ".join(f"{name}: {figures[f'{name}_python_ms']:.0f} ms" for name, _ in FILES)
      + "). Against it entlc's ratios are " + "; ".join(
          f"{name} " + ", ".join(f"{figures[f'{name}_{kind}_ms'] / figures[f'{name}_python_ms']:.1f}×"
                                 for kind, _ in QUERIES) for name, _ in FILES)
      + " (queries in the table's order).")
for path in outputs.values():
    os.remove(path)
if before:
    print("Output bytes identical to the earlier build in every cell." if not mismatches
          else f"**Output differs from the earlier build**: {', '.join(mismatches)}.")
if os.environ.get("FIGURES"):
    with open(os.environ["FIGURES"], "w") as f:
        json.dump(figures, f, indent=2, sort_keys=True)
sys.exit(1 if mismatches else 0)
