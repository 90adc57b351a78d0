#!/usr/bin/env bash
# Streaming batch evaluation: feeds SIZE bytes of JSONL states (Benchmarks/out/states-4.jsonl,
# repeated) through a pipe into `entlc eval --states -` (release build, default settings) and
# reports the peak resident memory, the time and the throughput; then the same with one state
# line of 16 MiB + 1 byte in the middle, and 10 MB of it with every result explained (about
# 300 KB of output a line). Needs Benchmarks/run.sh (or QUICK=1) to have written
# Benchmarks/out/ first.  Usage: Benchmarks/stream.sh [SIZE, default 2G]
set -eu  # not pipefail: the endless `cat` loop below ends by SIGPIPE when `head` has enough
cd "$(dirname "$0")"
size="${1:-2G}"
bytes=$(numfmt --from=iec "$size")
[[ -f out/states-4.jsonl ]] || { echo "run Benchmarks/run.sh first (it writes out/states-4.jsonl)" >&2; exit 2; }
(cd .. && swift build -c release --product entlc >&2)
entlc=../.build/release/entlc

# Repeats the states file endlessly; `head -c` cuts it at $1 bytes (then at a line end).
feed() { while true; do cat out/states-4.jsonl; done 2>/dev/null | head -c "$1" | sed '$d'; }
# Half of it, one state line of 16 MiB + 1 byte, the other half.
with_long_line() {
  feed $((bytes / 2))
  printf '{"customer": "%s"}\n' "$(head -c $((16 * 1024 * 1024 + 1)) /dev/zero | tr '\0' x)"
  feed $((bytes / 2))
}

measure() {  # $1: label; $2: input bytes; the rest: the query; stdin: the input
  local label=$1 input=$2
  shift 2
  /usr/bin/time -f "%M %e" -o out/stream-time.txt "$entlc" eval out/batch-rules.entl --states - "$@" \
    --at 2026-11-22T12:00:00Z | wc -c > out/stream-output-bytes.txt
  read -r rss seconds < out/stream-time.txt
  printf '| %s | %s | %d MB | %.1f s | %.0f MB/s | %s |\n' "$label" "$(numfmt --to=iec "$input")" $((rss / 1024)) \
    "$seconds" "$(echo "$input / $seconds / 1000000" | bc -l)" "$(numfmt --to=iec "$(cat out/stream-output-bytes.txt)")"
}

echo "| input | size | peak RSS | time | throughput | output |"
echo "| --- | --- | --- | --- | --- | --- |"
feed "$bytes" | measure "states through a pipe" "$bytes" --entitlement e0
with_long_line | measure "the same, one line of 16 MiB + 1 byte in the middle" "$bytes" --entitlement e0
# Every result, explained: about 300 KB of output a line (blocks then hold a few lines each).
feed 10000000 | measure "10 MB of the states, \`--all --explain\`" 10000000 --all --explain
