import Swift

/// Floor: the least a decoder must do, touch every byte of the line once.
/// Build: swiftc -O -wmo -parse-as-library Harness.swift floor.swift -o /tmp/probe-floor

/// Sums the bytes; LLVM vectorizes this loop (SSE2 paddd over 16 bytes).
@inline(never) func sumBytes(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
    var s: UInt32 = 0
    for i in 0..<n { s &+= UInt32(p[i]) }
    return Int(s)
}

/// A character class per byte through a 256-entry table, as a byte-at-a-time scanner does; the
/// table lookups keep it scalar.
let classes: [UInt8] = (0..<256).map { c in
    switch UInt8(c) {
    case UInt8(ascii: "\""): return 1
    case UInt8(ascii: "\\"): return 2
    case UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "]"),
         UInt8(ascii: ":"), UInt8(ascii: ","): return 4
    default: return 0
    }
}

@inline(never) func classifyBytes(_ p: UnsafePointer<UInt8>, _ n: Int, _ table: UnsafePointer<UInt8>) -> Int {
    var s = 0
    for i in 0..<n { s &+= Int(table[Int(p[i])]) }
    return s
}

@main struct Floor {
    static func main() {
        for path in inputPaths() {
            let input = Input(path: path)
            measure("floor: sum bytes (vector)", input) { p, n in sumBytes(p, n) }
            classes.withUnsafeBufferPointer { t in
                measure("floor: class table scalar", input) { p, n in classifyBytes(p, n, t.baseAddress!) }
            }
        }
    }
}
