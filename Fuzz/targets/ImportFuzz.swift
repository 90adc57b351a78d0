// libFuzzer target: bytes → `entlc state import` of one vendor (the first byte picks it, and the
// options; NUL bytes separate documents) → the imported state decoded by the runtime.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImport(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let problem = importProblem(bytes) {
        fatalError("import invariant broken: \(problem)")
    }
    return 0
}
