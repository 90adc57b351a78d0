// libFuzzer target: bytes → docs/state.md decoding → every query on a compiled example graph.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzState(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let problem = stateProblem(bytes) {
        fatalError("state invariant broken: \(problem)")
    }
    return 0
}
