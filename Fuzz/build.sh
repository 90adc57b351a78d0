#!/usr/bin/env bash
# Builds the libFuzzer targets with the address sanitizer: Fuzz/out/roundtrip, Fuzz/out/state,
# Fuzz/out/artifact, Fuzz/out/artifact-structured and Fuzz/out/import (TARGETS="import" builds one).
# The entl modules are compiled from Sources/ as they are; the invariants come from
# Tests/EntlTestSupport/Invariants.swift (ImportInvariants.swift for import), which `swift test` also
# runs on every regression input, and the structured target's mutations from
# Tests/EntlTestSupport/ArtifactMutator.swift (its seeded generator from
# Differential/CaseGenerator.swift), which `MutatedGraphTests` runs too.
# About two minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=..
OUT=out
mkdir -p "$OUT/modules"
FLAGS=(-sanitize=fuzzer,address -parse-as-library -O -g -package-name entlc -I "$OUT/modules")

module() {  # name, source dir
  swiftc "${FLAGS[@]}" -wmo -module-name "$1" -emit-module -emit-module-path "$OUT/modules/$1.swiftmodule" \
    -c $(find "$ROOT/Sources/$2" -name '*.swift' | sort) -o "$OUT/modules/$1.o"
}
echo "compiling EntlSupport, EntlSyntax, EntlRuntime, EntlCompiler, EntlImport (fuzzer + address sanitizer)…" >&2
module EntlSupport EntlSupport
module EntlSyntax EntlSyntax
module EntlRuntime EntlRuntime
module EntlCompiler EntlCompiler
module EntlImport EntlImport

for target in ${TARGETS:-roundtrip state artifact artifact-structured import}; do
  support=()
  case $target in
    roundtrip) source=RoundTripFuzz ;;
    state) source=StateFuzz ;;
    artifact) source=ArtifactFuzz ;;
    import) source=ImportFuzz ;;
    artifact-structured)  # the artifact target's entry point with a custom mutator
      source=ArtifactFuzz
      support=(targets/ArtifactStructuredFuzz.swift "$ROOT/Tests/EntlTestSupport/ArtifactMutator.swift"
               "$ROOT/Tests/EntlTestSupport/Differential/CaseGenerator.swift") ;;
    *) echo "unknown target $target" >&2; exit 2 ;;
  esac
  if [ "$target" = import ]; then
    # The importer's invariants need the runtime and the importer only.
    swiftc "${FLAGS[@]}" -module-name fuzz_import "$ROOT/Tests/EntlTestSupport/ImportInvariants.swift" \
      targets/ImportFuzz.swift "$OUT/modules/EntlSupport.o" "$OUT/modules/EntlRuntime.o" "$OUT/modules/EntlImport.o" \
      -o "$OUT/import" \
      2> >(grep -v "Cannot export local symbol" >&2)
    echo "built $OUT/import" >&2
    continue
  fi
  # The shared invariants (which import the modules above) and the entry point, in one module.
  swiftc "${FLAGS[@]}" -module-name "fuzz_${target//-/_}" "$ROOT/Tests/EntlTestSupport/Invariants.swift" "${support[@]}" \
    "targets/$source.swift" \
    "$OUT/modules/EntlSupport.o" "$OUT/modules/EntlSyntax.o" "$OUT/modules/EntlRuntime.o" "$OUT/modules/EntlCompiler.o" -o "$OUT/$target" \
    2> >(grep -v "Cannot export local symbol" >&2)
  echo "built $OUT/$target" >&2
done
