#!/usr/bin/env bash
# Builds the libFuzzer targets with the address sanitizer: Fuzz/out/roundtrip, Fuzz/out/state,
# Fuzz/out/artifact and Fuzz/out/import.
# The entl modules are compiled from Sources/ as they are; the invariants come from
# Tests/EntlTestSupport/Invariants.swift (ImportInvariants.swift for import), which `swift test` also
# runs on every regression input.
# About two minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=..
OUT=out
mkdir -p "$OUT/modules"
FLAGS=(-sanitize=fuzzer,address -parse-as-library -O -g -I "$OUT/modules")

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

for target in ${TARGETS:-roundtrip state artifact import}; do
  case $target in
    roundtrip) source=RoundTripFuzz ;;
    state) source=StateFuzz ;;
    artifact) source=ArtifactFuzz ;;
    import) source=ImportFuzz ;;
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
  swiftc "${FLAGS[@]}" -module-name "fuzz_$target" "$ROOT/Tests/EntlTestSupport/Invariants.swift" "targets/$source.swift" \
    "$OUT/modules/EntlSupport.o" "$OUT/modules/EntlSyntax.o" "$OUT/modules/EntlRuntime.o" "$OUT/modules/EntlCompiler.o" -o "$OUT/$target" \
    2> >(grep -v "Cannot export local symbol" >&2)
  echo "built $OUT/$target" >&2
done
