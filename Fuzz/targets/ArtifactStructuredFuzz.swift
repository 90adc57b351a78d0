// libFuzzer custom mutator, compiled with ArtifactFuzz.swift into the `artifact-structured`
// target: a built rule graph (seeded from the built examples and fixtures) is decoded and mutated
// as a graph or as JSON (`ArtifactMutator`: indices, counts, amounts, operators, kinds, names…),
// written back with a matching digest, and given to the loader. The invariant is the `artifact`
// target's: refused with a located error, or loaded and every query of a few states evaluates
// (`artifactProblem`; a hang is an input that takes longer than -timeout).

/// libFuzzer's own byte mutator, for an input that is not an artifact document.
@_silgen_name("LLVMFuzzerMutate")
func LLVMFuzzerMutate(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int) -> Int

@_cdecl("LLVMFuzzerCustomMutator")
public func mutateArtifact(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    var mutator = ArtifactMutator(random: SeededRandom(seed: UInt64(seed)))
    guard let out = mutator.mutate(Array(UnsafeBufferPointer(start: data, count: size))), out.count <= maxSize else {
        return LLVMFuzzerMutate(data, size, maxSize)
    }
    out.withUnsafeBufferPointer { data.update(from: $0.baseAddress!, count: out.count) }
    return out.count
}
