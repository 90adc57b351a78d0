#!/usr/bin/env bash
# Streaming batch evaluation: feeds SIZE bytes of JSONL states (Benchmarks/out/states-4.jsonl,
# repeated) through a pipe into `entlc eval --states -` (release build, default settings) and
# reports its peak resident memory (VmHWM, read by peak_rss.py as it exits), the time and the
# throughput; then the same with one state line of 16 MiB + 1 byte in the middle, and 10 MB of
# it with every result explained (about 300 KB of output a line). The anchor, in the same run:
# the same feed into `wc -c`, what the pipe and the feeding shell can carry. Needs
# Benchmarks/out/ from `entlc-bench run` first (Benchmarks/run.sh). With FIGURES=FILE, the
# figures also go to FILE as JSON.
#   Usage: Benchmarks/stream.sh [SIZE, default 2G]
set -eu  # not pipefail: the endless `cat` loop below ends by SIGPIPE when `head` has enough
shopt -s lastpipe  # `feed | measure`: measure runs in this shell, so its figures are kept
cd "$(dirname "$0")"
size="${1:-2G}"
bytes=$(numfmt --from=iec "$size")
[[ -f out/states-4.jsonl ]] || { echo "run Benchmarks/run.sh first (it writes out/states-4.jsonl)" >&2; exit 2; }
(cd .. && swift build -c release --product entlc --static-swift-stdlib >&2)
entlc=../.build/release/entlc

# Repeats the states file endlessly; `head -c` cuts it at $1 bytes (then at a line end).
feed() { while true; do cat out/states-4.jsonl; done 2>/dev/null | head -c "$1" | sed '$d'; }
# Half of it, one state line of 16 MiB + 1 byte, the other half.
with_long_line() {
  feed $((bytes / 2))
  printf '{"customer": "%s"}\n' "$(head -c $((16 * 1024 * 1024 + 1)) /dev/zero | tr '\0' x)"
  feed $((bytes / 2))
}

figures=()
row() {  # $1: key; $2: label; $3: input bytes; $4: peak KiB or ""; $5: seconds; $6: output bytes
  local rss="—" mb seconds
  [[ -n $4 ]] && rss="$(($4 / 1024)) MB"
  seconds=$(printf '%.3f' "$5")
  mb=$(printf '%.1f' "$(echo "$3 / $5 / 1000000" | bc -l)")
  printf '| %s | %s | %s | %.1f s | %.0f MB/s | %s |\n' "$2" "$(numfmt --to=iec "$3")" "$rss" "$5" "$mb" \
    "$(numfmt --to=iec "$6")"
  figures+=("\"$1_seconds\": $seconds" "\"$1_mb_per_s\": $mb")
  [[ -n $4 ]] && figures+=("\"$1_rss_mb\": $(($4 / 1024))")
  return 0
}

measure() {  # $1: key; $2: label; $3: input bytes; the rest: the query; stdin: the input
  local key=$1 label=$2 input=$3
  shift 3
  python3 peak_rss.py out/stream-time.txt "$entlc" eval out/batch-rules.entl --states - "$@" \
    --at 2026-11-22T12:00:00Z | wc -c > out/stream-output-bytes.txt
  read -r rss seconds < out/stream-time.txt
  row "$key" "$label" "$input" "$rss" "$seconds" "$(cat out/stream-output-bytes.txt)"
}

anchor() {  # $1: input bytes; stdin: the input
  local start end
  start=$(date +%s%N)
  wc -c > out/stream-output-bytes.txt
  end=$(date +%s%N)
  row anchor "anchor: the same feed into \`wc -c\`" "$1" "" "$(echo "($end - $start) / 1000000000" | bc -l)" \
    "$(cat out/stream-output-bytes.txt)"
}

echo "| input | size | peak RSS (VmHWM) | time | throughput | output |"
echo "| --- | --- | --- | --- | --- | --- |"
feed "$bytes" | anchor "$bytes"
feed "$bytes" | measure pipe "states through a pipe" "$bytes" --entitlement e0
with_long_line | measure long_line "the same, one line of 16 MiB + 1 byte in the middle" "$bytes" --entitlement e0
# Every result, explained: about 300 KB of output a line (blocks then hold a few lines each).
feed 10000000 | measure explain "10 MB of the states, \`--all --explain\`" 10000000 --all --explain
if [[ -n ${FIGURES:-} ]]; then
  (IFS=,; echo "{${figures[*]}, \"bytes\": $bytes}") > "$FIGURES"
fi
