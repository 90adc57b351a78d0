#!/usr/bin/env bash
# Every benchmark of Benchmarks/BENCHMARKS.md in one run, each beside the anchor it is compared
# with, measured in the same run: release builds, medians of several runs. Writes the report
# (the table of current figures, then each benchmark's tables) into BENCHMARKS.md between its
# `report` markers, and prints it.
#   Benchmarks/run.sh           everything (about 20 minutes on 2 cores)
#   QUICK=1 Benchmarks/run.sh   smaller inputs and fewer runs (a few minutes); prints the report
#                               and leaves BENCHMARKS.md alone
# Needs python3 with venv and pip (PyPI's cedarpy and pysimdjson go into Benchmarks/.venv),
# /usr/bin/time and bc. Inputs and each step's output go to Benchmarks/out/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")"
OUT=out
REPORT=$PWD/$OUT/report
rm -rf "$REPORT"
mkdir -p "$REPORT"
quick() { if [[ -n ${QUICK:-} ]]; then echo "$1"; else echo "$2"; fi; }
step() { echo "== $*" >&2; }
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
DATE=$(date -u +%Y-%m-%d)

# entlc as it is shipped, with the Swift runtime linked in (docs/scale.md); entlc-bench, whose
# in-process figures are the library's, as an app or a server links it (the runtime apart).
step "building entlc (release, the Swift runtime linked in) and entlc-bench (release)"
(cd .. && swift build -c release --product entlc --static-swift-stdlib >&2)
swift build -c release >&2
ENTLC=$PWD/../.build/release/entlc
BENCH=./.build/release/entlc-bench
if [[ ! -x .venv/bin/python ]] || ! .venv/bin/python -c 'import cedarpy, simdjson' 2>/dev/null; then
  step "installing cedarpy and pysimdjson into Benchmarks/.venv"
  python3 -m venv .venv >&2
  .venv/bin/pip install --quiet cedarpy pysimdjson >&2
fi

step "entlc-bench run: in-process checks, windows, heavy usage, batch, check, diff"
$BENCH run --entlc "$ENTLC" --examples ../examples --out "$OUT" --figures "$REPORT/bench.json" \
  ${QUICK:+--quick} > "$REPORT/bench.md"

step "cedarpy: the same batch"
.venv/bin/python cedar/compare.py "$OUT/batch-rules.cedar" "$OUT/states-4.jsonl" e0 "$OUT/entlc-decisions-4.jsonl" \
  "$(quick 3 5)" > "$REPORT/cedar.json"
.venv/bin/python - "$REPORT" "$(.venv/bin/pip show cedarpy | awk '/^Version/ {print $2}')" <<'PY' > "$REPORT/cedar.md"
import json, os, sys
report, version = sys.argv[1], sys.argv[2]
r, b = json.load(open(f"{report}/cedar.json")), json.load(open(f"{report}/bench.json"))
n, entlc, single, cedar = r["states"], b["batch_4_ms"] / 1e3, b["batch_4_single_ms"] / 1e3, r["median_seconds"]
print(f"Same rule set (as Cedar policies), same {n:,} JSONL states, entitlement `e0`, both end to end from the file:\n")
print("| engine | median time | per state | decisions |")
print("| --- | --- | --- | --- |")
print(f"| entlc `eval --states` ({os.cpu_count()} threads, the default) | {entlc * 1000:.0f} ms | {entlc / n * 1e6:.1f} µs | {n:,} |")
print(f"| entlc `eval --states --jobs 1` | {single * 1000:.0f} ms | {single / n * 1e6:.1f} µs | {n:,} |")
print(f"| cedarpy {version} `is_authorized_batch` + state glue | {cedar * 1000:.0f} ms | {cedar / n * 1e6:.1f} µs | {n:,} |")
print(f"\nentlc is **{cedar / entlc:.1f}×** faster (**{cedar / single:.1f}×** on one thread). Decisions agree on "
      f"{r['agree']:,} of {n:,} states ({r['disagree']} disagreements; {r['allowed']:,} allowed).")
PY

step "pysimdjson: parsing the same JSONL alone"
FIGURES=$REPORT/simdjson.json .venv/bin/python simdjson_compare.py "$ENTLC" "$OUT/batch-rules.entl" \
  "$OUT/states-4.jsonl" "--entitlement e0" "$(quick 3 9)" > "$REPORT/simdjson.md"

step "batch_matrix.py: every query kind, short and long lines, against pysimdjson"
$BENCH matrix-inputs --out "$OUT" ${QUICK:+--quick} >&2
FIGURES=$REPORT/matrix.json .venv/bin/python batch_matrix.py "$ENTLC" "$OUT/app-rules.entl" \
  "$OUT/app-states-short.jsonl" "$OUT/app-states-long.jsonl" "$(quick 3 7)" > "$REPORT/matrix.md"

step "consume.py: eval --consume against eval on one state file"
FIGURES=$REPORT/consume.json python3 consume.py "$ENTLC" "$OUT" "$(quick 3 7)" \
  $(quick "10000 20000" "100000 200000") > "$REPORT/consume.md"

step "stream.sh: states through a pipe"
FIGURES=$REPORT/stream.json ./stream.sh "$(quick 200M 2G)" > "$REPORT/stream.md"

step "lsp_latency.py: every request on 10,000 lines"
FIGURES=$REPORT/lsp.json ENTLC=$ENTLC python3 lsp_latency.py "$(quick 5 30)" > "$REPORT/lsp.md"

step "lsp_long_line.py: 20,000 declarations on one line and one per line"
FIGURES=$REPORT/lsp-long.json ENTLC=$ENTLC python3 lsp_long_line.py "$(quick 1 5)" > "$REPORT/lsp-long.md"

step "lint_budget.sh: the lints' budgets"
FIGURES=$REPORT/lint.json RUNS=$(quick 3 7) ./lint_budget.sh > "$REPORT/lint.md"

step "entlc-bench load: loading built rules against compiling them"
$BENCH generate --lines 10000 --out "$OUT" >&2
$BENCH load ../examples/api.entl "$OUT/batch-rules.entl" "$OUT/rules-10000.entl" \
  --figures "$REPORT/load.json" > "$REPORT/load.md"

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$REPORT/run.json" <<PY
import json, sys
json.dump({"date": "$DATE", "commit": "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- .. || echo '+changes')",
           "quick": bool("${QUICK:-}"), "load_before": "$LOAD_BEFORE", "load_after": "$LOAD_AFTER",
           "machine": "$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
                      + ", $(free -g | awk '/Mem:/ {print $2}') GiB, Linux",
           "swift": "$(swift --version 2>/dev/null | head -1 | sed 's/ (.*//')"}, open(sys.argv[1], "w"))
PY
if [[ -n ${QUICK:-} ]]; then
  python3 report.py "$REPORT"
else
  python3 report.py "$REPORT" --into BENCHMARKS.md
fi
