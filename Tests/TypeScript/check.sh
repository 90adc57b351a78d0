#!/usr/bin/env bash
# Type-checks what `entlc gen typescript` writes, with TypeScript's own compiler in strict mode:
# every example rule set and the awkward-names fixture, each with a small program that uses the
# constants, the name unions and the eval result shapes on real `entlc eval --format json` output.
#   Tests/TypeScript/check.sh        (needs tsc: apt-get install node-typescript)
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v tsc >/dev/null || { echo "tsc not installed (apt-get install node-typescript)" >&2; exit 2; }
swift build -q --product entlc
ENTLC=.build/debug/entlc
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
for rules in examples/*.entl Tests/Fixtures/gen/names.entl; do
  name=$(basename "$rules" .entl)
  mkdir -p "$OUT/$name"
  "$ENTLC" gen typescript "$rules" -o "$OUT/$name/rules.ts"
  state=${rules%.entl}.state.json
  if [ -f "$state" ]; then
    answer=$("$ENTLC" eval "$rules" --state "$state" --all --format json)
  else
    answer='{"at": "2026-11-22T12:00:00Z", "environment": "live", "customer": null, "results": []}'
  fi
  cat > "$OUT/$name/use.ts" <<TS
import { Products, Features, Entitlements, CreditSystems, EvalOutput, FeatureName, ProductName } from "./rules";

// Real output of \`entlc eval --format json\`, checked against the generated shapes.
const output: EvalOutput = $answer;

const names: FeatureName[] = Object.values(Features).map((f) => f.name);
const products: ProductName[] = Object.values(Products).map((p) => p.name);
const all: string[] = [...names, ...products, ...Object.values(Entitlements).map((e) => e.name),
  ...Object.values(CreditSystems).map((c) => c.name)];

function paywall(o: EvalOutput): ProductName[] {
  const blocked: ProductName[] = [];
  for (const r of o.results) {
    if (r.kind !== "product" && !r.allowed && r.unlocked_by !== null) blocked.push(...r.unlocked_by);
  }
  return blocked;
}
export const summary = [output.results.length, all.length, paywall(output).length];
TS
done
tsc --strict --noEmit --target es2019 --moduleResolution node "$OUT"/*/use.ts
echo "tsc --strict: $(ls "$OUT" | wc -l) generated files type-check"
