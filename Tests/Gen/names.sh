#!/usr/bin/env bash
# The long run of the generated-name property (Tests/CLITests/GeneratedNamePropertyTests.swift):
# hundreds of random rule sets (seeded) through `entlc gen swift` and `entlc gen typescript`,
# each Swift file type-checked against the EntlRuntime module this build made, every TypeScript
# file under `tsc --strict`. `swift test` runs one rule set of 300 names; this runs 300 of 60.
#   Tests/Gen/names.sh                      (needs tsc: apt-get install node-typescript)
#   ENTLC_GEN_SEED=1851878757 Tests/Gen/names.sh    replays one case
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v tsc >/dev/null || { echo "tsc not installed (apt-get install node-typescript)" >&2; exit 2; }
ENTLC_GEN_CASES=${ENTLC_GEN_CASES:-300} ENTLC_GEN_NAMES=${ENTLC_GEN_NAMES:-60} \
  swift test --filter GeneratedNamePropertyTests
