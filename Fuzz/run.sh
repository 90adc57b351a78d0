#!/usr/bin/env bash
# Runs a fuzz target for a while with a corpus seeded from the examples and fixtures.
#   Fuzz/run.sh roundtrip 600     # ten minutes of bytes → parse → check → fmt → reparse
#   Fuzz/run.sh state 600         # ten minutes of bytes → state decoding → evaluation
#   Fuzz/run.sh artifact 600      # ten minutes of bytes → built-graph decoding → every query
#   Fuzz/run.sh artifact-structured 600   # ten minutes of mutated graphs (resealed) → loading → every query
#   Fuzz/run.sh import 600        # ten minutes of bytes → `state import` of each vendor → state decoding
# A crash leaves its input in Fuzz/out/crashes/; copy it to Tests/Fixtures/fuzz/<target>/ so that
# `swift test` (FuzzRegressionTests) checks it from then on (both artifact targets: fuzz/artifact/).
set -euo pipefail
cd "$(dirname "$0")"
TARGET=${1:?roundtrip, state, artifact, artifact-structured or import}
SECONDS_TO_RUN=${2:-60}
[ -x "out/$TARGET" ] || TARGETS=$TARGET ./build.sh
CORPUS=out/corpus/$TARGET
mkdir -p "$CORPUS" out/crashes
if [ "$TARGET" = roundtrip ]; then
  find ../examples ../Tests/Fixtures -name '*.entl' -exec cp {} "$CORPUS/" \;
elif [ "$TARGET" = artifact ] || [ "$TARGET" = artifact-structured ]; then
  # The seeds are the built examples and fixtures (the entlc of this checkout builds them; those
  # that do not compile are skipped).
  (cd .. && swift build -q --product entlc)
  find ../examples ../Tests/Fixtures -name '*.entl' -not -path '*/.build/*' | while IFS= read -r f; do
    ../.build/debug/entlc build "$f" -o "$CORPUS/$(echo "${f#../}" | tr / _).graph.json" 2>/dev/null || true
  done
elif [ "$TARGET" = import ]; then
  # The import fixtures, each behind the byte that picks its vendor (with unverified JWS allowed):
  # 4 revenuecat, 5 app-store, 6 play, 7 stripe.
  byte=4
  for vendor in revenuecat app-store play stripe; do
    for f in ../Tests/Fixtures/import/$vendor/*; do
      { printf "\\$(printf %o $byte)"; cat "$f"; } > "$CORPUS/$vendor-$(basename "$f")"
    done
    byte=$((byte + 1))
  done
else
  find ../examples ../Tests/Fixtures -name '*.json' -exec cp {} "$CORPUS/" \;
  i=0
  while IFS= read -r line; do i=$((i + 1)); printf '%s' "$line" > "$CORPUS/line-$i.json"; done \
    < <(cat ../Tests/Fixtures/states/*.jsonl)
fi
cp ../Tests/Fixtures/fuzz/"${TARGET%-structured}"/* "$CORPUS/" 2>/dev/null || true
case $TARGET in roundtrip) DICT=entl.dict ;; state) DICT=state.dict ;; import) DICT=import.dict ;; *) DICT=artifact.dict ;; esac
EXTRA=()
# The structured target's mutator keeps its inputs whole documents: no byte-level crossover, and
# room for graphs that grow.
if [ "$TARGET" = artifact-structured ]; then EXTRA=(-cross_over=0 -max_len=1048576); fi
ASAN_OPTIONS=detect_leaks=0 "./out/$TARGET" -max_total_time="$SECONDS_TO_RUN" -timeout=10 -rss_limit_mb=4096 \
  -dict="$DICT" -artifact_prefix=out/crashes/ -print_final_stats=1 "${EXTRA[@]}" "$CORPUS"
