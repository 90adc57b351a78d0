// libFuzzer target: bytes → parse → check → format → reparse (the round-trip invariants), and
// evaluation of the compiled graph when the bytes are a clean rule set.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRoundTrip(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let problem = roundTripProblem(bytes) {
        fatalError("round-trip invariant broken: \(problem)")
    }
    return 0
}
