#!/usr/bin/env bash
# Runs every benchmark in release mode and the side-by-side comparison with Cedar (cedarpy,
# installed into Benchmarks/.venv). Prints Markdown tables (see BENCHMARKS.md).
#   Benchmarks/run.sh           full run (about 5 minutes on 2 cores)
#   QUICK=1 Benchmarks/run.sh   a smaller, faster run
set -euo pipefail
cd "$(dirname "$0")"
OUT=out
mkdir -p "$OUT"

echo "building entlc and entlc-bench (release)…" >&2
(cd .. && swift build -c release --product entlc >&2)
swift build -c release >&2

echo "## Machine"
echo
echo "- $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/ {print $2}') GiB"
echo "- $(swift --version 2>/dev/null | head -1)"
echo

./.build/release/entlc-bench run --entlc ../.build/release/entlc --examples ../examples --out "$OUT" ${QUICK:+--quick}

echo
echo "### Side by side with Cedar (cedarpy)"
echo
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv >&2
  .venv/bin/pip install --quiet cedarpy >&2
fi
CEDAR_VERSION=$(.venv/bin/pip show cedarpy 2>/dev/null | awk '/^Version/ {print $2}')
RESULT=$(.venv/bin/python cedar/compare.py "$OUT/batch-rules.cedar" "$OUT/states-4.jsonl" e0 "$OUT/entlc-decisions-4.jsonl" "${QUICK:+3}${QUICK:-5}")
read -r ENTLC ENTLC_SINGLE < "$OUT/entlc-batch-seconds.txt"
.venv/bin/python - "$RESULT" "$ENTLC" "$ENTLC_SINGLE" "$CEDAR_VERSION" "$(nproc)" <<'PY'
import json, sys
r, entlc, single, version, cores = json.loads(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
n = r["states"]
print(f"Same rule set (as Cedar policies), same {n:,} JSONL states, entitlement `e0`, both end to end from the file:\n")
print("| engine | median time | per state | decisions |")
print("| --- | --- | --- | --- |")
print(f"| entlc `eval --states` ({cores} threads, the default) | {entlc*1000:.0f} ms | {entlc/n*1e6:.1f} µs | {n:,} |")
print(f"| entlc `eval --states --jobs 1` | {single*1000:.0f} ms | {single/n*1e6:.1f} µs | {n:,} |")
print(f"| cedarpy {version} `is_authorized_batch` + state glue | {r['median_seconds']*1000:.0f} ms | {r['median_seconds']/n*1e6:.1f} µs | {n:,} |")
print(f"\nentlc is **{r['median_seconds']/entlc:.1f}×** faster (**{r['median_seconds']/single:.1f}×** on one thread). Decisions agree on {r['agree']:,} of {n:,} states "
      f"({r['disagree']} disagreements; {r['allowed']:,} allowed).")
PY
