#!/usr/bin/env bash
# Evaluates every customer of a generated dataset (two files, with blank lines, invalid lines, a
# carriage return inside a line and bytes that are not UTF-8) on Apache Spark (local mode, 2
# cores) with evaluate.py, then checks (check.py) that every row has its file's line number and
# exactly the output of one `entlc eval --states` process per file, and prints both times.
# Installs pyspark from PyPI into examples/spark/.venv, and Java from Debian when it is missing
# (as root).
#   examples/spark/run.sh [LINES, default 200000]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
lines="${1:-200000}"
at="2026-11-22T12:00:00Z"

if ! command -v java >/dev/null; then
  if [[ $(id -u) == 0 ]]; then
    apt-get update >&2 && apt-get install -y --no-install-recommends openjdk-17-jre-headless >&2
  else echo "Java is missing: apt-get install openjdk-17-jre-headless" >&2; exit 2; fi
fi
if [[ ! -x "$here/.venv/bin/spark-submit" ]]; then
  python3 -m venv "$here/.venv"
  "$here/.venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
fi
(cd "$root" && swift build -c release --product entlc --static-swift-stdlib >&2)
entlc="$root/.build/release/entlc"
work="$here/out"
rm -rf "$work" && mkdir -p "$work"

mkdir -p "$work/states"
python3 "$here/generate.py" "$lines" "$work/states"
size=$(cat "$work/states"/*.jsonl | wc -c)
echo "dataset: $lines lines in 2 files, $((size / 1000000)) MB"

start=$(date +%s.%N)
for part in 0 1; do
  "$entlc" eval "$root/examples/api.entl" --states "$work/states/part-$part.jsonl" --all --at "$at" \
    > "$work/single-$part.jsonl"
done
single=$(echo "$(date +%s.%N) - $start" | bc)

# The executors get the rules as `entlc build` wrote them; the single process above compiled the
# source, so the comparison also checks the built graph against the compiled one.
"$entlc" build "$root/examples/api.entl" -o "$work/api.graph.json" 2> /dev/null

start=$(date +%s.%N)
if ! PYSPARK_PYTHON="$here/.venv/bin/python" "$here/.venv/bin/spark-submit" --master "local[2]" \
  --conf spark.ui.enabled=false --conf spark.driver.memory=2g \
  "$here/evaluate.py" --entlc "$entlc" --graph "$work/api.graph.json" --states "$work/states/*.jsonl" \
  --out "$work/spark" --at "$at" --all 2> "$work/spark.log"; then
  echo "FAIL: the Spark job failed; the end of $work/spark.log:" >&2
  tail -20 "$work/spark.log" >&2
  exit 1
fi
spark=$(echo "$(date +%s.%N) - $start" | bc)

PYSPARK_PYTHON="$here/.venv/bin/python" "$here/.venv/bin/python" "$here/check.py" "$work/spark" \
  "$work/states/part-0.jsonl" "$work/single-0.jsonl" "$work/states/part-1.jsonl" "$work/single-1.jsonl" \
  2> "$work/check.log" || { tail -5 "$work/check.log" >&2; exit 1; }
records=$(cat "$work"/single-*.jsonl | wc -l)
out_size=$(cat "$work"/single-*.jsonl | wc -c)
errors=$(cat "$work"/single-*.jsonl | grep -c '^{"line":' || true)
printf '%d output lines (%d error records)\n' "$records" "$errors"
printf 'input %d MB, output %d MB\n' $((size / 1000000)) $((out_size / 1000000))
printf '| run | time | input read | states/s |\n| --- | --- | --- | --- |\n'
printf '| `entlc eval --states` (2 threads), one process per file | %.1f s | %.0f MB/s | %.0f |\n' "$single" \
  "$(echo "$size / $single / 1000000" | bc -l)" "$(echo "$records / $single" | bc -l)"
printf '| Spark local[2], evaluate.py (JVM start-up included) | %.1f s | %.0f MB/s | %.0f |\n' "$spark" \
  "$(echo "$size / $spark / 1000000" | bc -l)" "$(echo "$records / $spark" | bc -l)"
