#!/usr/bin/env bash
# Evaluates every customer of a generated dataset on Apache Spark (local mode, 2 cores) with
# evaluate.py, then checks that the results are byte for byte those of one `entlc eval --states`
# process (after sorting), and prints both times. Installs pyspark from PyPI into
# examples/spark/.venv, and Java from Debian when it is missing (as root).
#   examples/spark/run.sh [LINES, default 200000]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
lines="${1:-200000}"
at="2026-11-22T12:00:00Z"

if ! command -v java >/dev/null; then
  if [[ $(id -u) == 0 ]]; then apt-get install -y --no-install-recommends openjdk-17-jre-headless >&2
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

python3 "$here/generate.py" "$lines" > "$work/states.jsonl"
size=$(stat -c %s "$work/states.jsonl")
echo "dataset: $lines lines, $((size / 1000000)) MB"

start=$(date +%s.%N)
"$entlc" eval "$root/examples/api.entl" --states "$work/states.jsonl" --all --at "$at" > "$work/single.jsonl"
single=$(echo "$(date +%s.%N) - $start" | bc)

# The executors get the rules as `entlc build` wrote them; the single process above compiled the
# source, so the comparison also checks the built graph against the compiled one.
"$entlc" build "$root/examples/api.entl" -o "$work/api.graph.json" 2> /dev/null

start=$(date +%s.%N)
PYSPARK_PYTHON="$here/.venv/bin/python" "$here/.venv/bin/spark-submit" --master "local[2]" \
  --conf spark.ui.enabled=false --conf spark.driver.memory=2g \
  "$here/evaluate.py" --entlc "$entlc" --graph "$work/api.graph.json" --states "$work/states.jsonl" \
  --out "$work/spark" --at "$at" --all 2> "$work/spark.log"
spark=$(echo "$(date +%s.%N) - $start" | bc)

LC_ALL=C sort "$work/single.jsonl" > "$work/single.sorted"
cat "$work/spark/output"/part-* | LC_ALL=C sort > "$work/spark.sorted"
if ! cmp -s "$work/single.sorted" "$work/spark.sorted"; then
  echo "FAIL: Spark and one process disagree" >&2
  diff "$work/single.sorted" "$work/spark.sorted" | head -5 >&2
  exit 1
fi
records=$(wc -l < "$work/single.jsonl")
out_size=$(stat -c %s "$work/single.jsonl")
errors=$(grep -c '^{"line":' "$work/single.jsonl" || true)
printf 'agree: %d output lines (%d error records), identical bytes after sorting\n' "$records" "$errors"
printf 'input %d MB, output %d MB\n' $((size / 1000000)) $((out_size / 1000000))
printf '| run | time | input read | states/s |\n| --- | --- | --- | --- |\n'
printf '| one `entlc eval --states` process (2 threads) | %.1f s | %.0f MB/s | %.0f |\n' "$single" \
  "$(echo "$size / $single / 1000000" | bc -l)" "$(echo "$records / $single" | bc -l)"
printf '| Spark local[2], evaluate.py (JVM start-up included) | %.1f s | %.0f MB/s | %.0f |\n' "$spark" \
  "$(echo "$size / $spark / 1000000" | bc -l)" "$(echo "$records / $spark" | bc -l)"
