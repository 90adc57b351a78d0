#!/usr/bin/env bash
# Times `entlc check` (release build) on the constraints the lint budgets are about, each beside
# an anchor measured in the same run (`entlc check examples`): the median of RUNS runs each.
#   pairs-20        20 pairs `(a0 and b0 and a1) or (a0 and b0) or … or (a19 and b19)`, the
#                   products declared all `a`s then all `b`s: finds the redundant first term
#   pairs-forced    the same pairs after an entitlement that names every `a` first, so their
#                   diagram is exponential: skipped with a W315 note once its budget is spent
#   wide-700        one `or` of 700 products and a repeated one: the redundancy search's budget
# With FIGURES=FILE, the medians also go to FILE as JSON.
#   Benchmarks/lint_budget.sh          RUNS=9 Benchmarks/lint_budget.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-7}
swift build -c release --product entlc --static-swift-stdlib >&2
ENTLC=.build/release/entlc
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
python3 - "$OUT" <<'PY'
import sys
out = sys.argv[1]
a = "".join(f"product a{i}: non_consumable\n" for i in range(20))
b = "".join(f"product b{i}: non_consumable\n" for i in range(20))
pairs = " or ".join(f"(a{i} and b{i})" for i in range(20))
head = a + b + "feature f: boolean\n"
open(f"{out}/pairs-20.entl", "w").write(head + f"entitlement pairs = (a0 and b0 and a1) or {pairs} {{ grants f }}\n")
any_a = " or ".join(f"a{i}" for i in range(20))
open(f"{out}/pairs-forced.entl", "w").write(
    head + f"entitlement any_a = {any_a} {{ grants f }}\nentitlement pairs = {pairs} {{ grants f }}\n")
wide = "".join(f"product w{i}: non_consumable\n" for i in range(700))
open(f"{out}/wide-700.entl", "w").write(
    wide + "feature f: boolean\nentitlement wide = " + " or ".join(f"w{i}" for i in range(700)) + " or w3 { grants f }\n")
PY
echo "| rule set | what \`entlc check\` reports | median | anchor (\`check examples\`) |"
echo "| --- | --- | --- | --- |"
for name in pairs-20 pairs-forced wide-700; do
  file="$OUT/$name.entl"
  codes=$("$ENTLC" check "$file" | grep -o '^[^ ]*: [a-z]*\[W3[0-9]*\]' | sed 's/^[^ ]* //' | sort | uniq -c \
    | awk '{printf "%s%s×%s", sep, $2, $1; sep=", "}')
  python3 - "$ENTLC" "$file" "$RUNS" "$name" "$codes" "$OUT/figures-$name.json" <<'PY'
import json, statistics, subprocess, sys, time
entlc, file, runs, name, codes, figures = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
def once(args):
    start = time.perf_counter()
    subprocess.run([entlc, "check", *args], stdout=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start
once([file]); once(["examples"])
case, anchor = [], []
for _ in range(runs):  # alternating, so drift hits both alike
    case.append(once([file]))
    anchor.append(once(["examples"]))
print(f"| {name} | {codes or 'nothing'} | {statistics.median(case) * 1000:.0f} ms "
      f"| {statistics.median(anchor) * 1000:.0f} ms |")
json.dump({"ms": statistics.median(case) * 1000, "anchor_ms": statistics.median(anchor) * 1000}, open(figures, "w"))
PY
done
if [[ -n ${FIGURES:-} ]]; then
  python3 - "$OUT" "$FIGURES" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
json.dump({p.stem[len("figures-"):]: json.load(open(p)) for p in sorted(out.glob("figures-*.json"))},
          open(sys.argv[2], "w"), indent=2, sort_keys=True)
PY
fi
