#!/usr/bin/env bash
# Builds every probe into /tmp/probes and runs each on one core (taskset -c 1), then pysimdjson.
# Usage: Benchmarks/probes/run.sh [FILE.jsonl...]   (default: the two app-states files)
set -euo pipefail
cd "$(dirname "$0")"
B=/tmp/probes
mkdir -p "$B"
FILES=("$@")
[[ ${#FILES[@]} -gt 0 ]] || FILES=(/work/main/Benchmarks/out/app-states-long.jsonl
                                   /work/main/Benchmarks/out/app-states-short.jsonl)
PY=${PY:-/work/main/Benchmarks/.venv/bin/python}

swiftc -O -wmo -parse-as-library Harness.swift floor.swift -o "$B/floor"
swiftc -O -wmo -parse-stdlib -parse-as-library -emit-module -emit-library -static -module-name Movemask \
  Movemask.swift -o "$B/libMovemask.a" -emit-module-path "$B/Movemask.swiftmodule"
swiftc -O -wmo -parse-as-library -D BUILTIN_MOVEMASK -I "$B" -L "$B" -lMovemask Harness.swift stage1.swift \
  -o "$B/stage1"
swiftc -O -wmo -parse-as-library Harness.swift decode.swift -o "$B/decode"

taskset -c 1 "$B/floor" "${FILES[@]}"
taskset -c 1 "$B/stage1" "${FILES[@]}"
taskset -c 1 "$B/decode" "${FILES[@]}"
python3 verify_decode.py "${FILES[@]}"
for f in "${FILES[@]}"; do taskset -c 1 "$PY" simdjson_ref.py "$f" 7; done
