// libFuzzer target: bytes → rule-graph artifact decoding (`entlc build`'s output) → every query
// of a small state on the loaded graph.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArtifact(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let problem = artifactProblem(bytes) {
        fatalError("artifact invariant broken: \(problem)")
    }
    return 0
}
