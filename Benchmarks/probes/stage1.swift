import Swift

/// A simdjson-style stage 1 in Swift: per 64-byte block, bitmasks of quotes, backslashes,
/// structural characters, whitespace and control bytes; the in-string mask by prefix XOR; then the
/// index of structural positions (structural characters, string starts, scalar starts).
/// Variants differ only in how a block's 64 bytes become those masks (`Classifier`).
/// Build: swiftc -O -wmo -parse-as-library Harness.swift stage1.swift -o /tmp/probe-stage1
/// With a real movemask: build Movemask.swift first (see there), then add
/// `-D BUILTIN_MOVEMASK -I /tmp -L /tmp -lMovemask`.

/// One 64-byte block's classes, bit i = byte i.
struct BlockMasks {
    var quote: UInt64, backslash: UInt64, op: UInt64, whitespace: UInt64, control: UInt64, nonASCII: Bool
}

protocol Classifier { static func classify(_ p: UnsafeRawPointer) -> BlockMasks }

/// Lanes of `v` equal to `c` as 0 / -1 (compiles to one pcmpeqb when both sides are vectors;
/// `v .== c` with a scalar `c` does not).
@inline(__always) func lanesEqual(_ v: SIMD16<UInt8>, _ c: UInt8) -> SIMD16<Int8> {
    unsafeBitCast(v .== SIMD16<UInt8>(repeating: c), to: SIMD16<Int8>.self)
}

/// How 16 lanes of 0 / -1 become 16 bits.
protocol Gather { static func bits(_ m: SIMD16<Int8>) -> UInt64 }

let laneWeights = SIMD16<UInt8>(1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128)

/// AND with lane weights, then `wrappedSum()` of each 8-lane half: compiles to pand + 2 psadbw.
enum SumOfWeights: Gather {
    @inline(__always) static func bits(_ m: SIMD16<Int8>) -> UInt64 {
        let x = unsafeBitCast(m, to: SIMD16<UInt8>.self) & laneWeights
        return UInt64(x.lowHalf.wrappedSum()) | UInt64(x.highHalf.wrappedSum()) << 8
    }
}

/// Each 8-byte half's sign bits gathered by one multiply (the SWAR movemask).
enum MultiplyGather: Gather {
    @inline(__always) static func bits(_ m: SIMD16<Int8>) -> UInt64 {
        let h = unsafeBitCast(m, to: SIMD2<UInt64>.self) & 0x8080_8080_8080_8080
        let g = (h &* 0x0002_0408_1020_4081) &>> 56
        return g[0] | g[1] << 8
    }
}

#if BUILTIN_MOVEMASK
import Movemask

/// The real thing: one pmovmskb, from Movemask.swift (a module built with -parse-stdlib).
enum BuiltinMovemask: Gather {
    @inline(__always) static func bits(_ m: SIMD16<Int8>) -> UInt64 { UInt64(movemask(m)) }
}
#endif

/// Four SIMD16 loads per block, compares per class, then `G` for the bits. The four chunks are
/// written out (a `for k in 0..<4` loop was not unrolled, and shifted by a variable).
enum Vector16<G: Gather>: Classifier {
    /// One 16-byte chunk's five masks (16 bits each) and the OR of its bytes.
    @inline(__always) static func chunk(_ p: UnsafeRawPointer, _ k: Int)
        -> (quote: UInt64, backslash: UInt64, op: UInt64, ws: UInt64, control: UInt64, bytes: SIMD16<UInt8>) {
        let v = p.loadUnaligned(fromByteOffset: 16 * k, as: SIMD16<UInt8>.self)
        let folded = v | SIMD16<UInt8>(repeating: 0x20)  // `[` → `{`, `]` → `}`
        let op = lanesEqual(folded, 0x7B) | lanesEqual(folded, 0x7D) | lanesEqual(v, 0x3A) | lanesEqual(v, 0x2C)
        let ws = lanesEqual(v, 0x20) | lanesEqual(v, 0x0A) | lanesEqual(v, 0x09) | lanesEqual(v, 0x0D)
        let control = lanesEqual(v & SIMD16<UInt8>(repeating: 0xE0), 0)  // bytes below 0x20
        return (G.bits(lanesEqual(v, 0x22)), G.bits(lanesEqual(v, 0x5C)), G.bits(op), G.bits(ws), G.bits(control), v)
    }

    @inline(__always) static func classify(_ p: UnsafeRawPointer) -> BlockMasks {
        let a = chunk(p, 0), b = chunk(p, 1), c = chunk(p, 2), d = chunk(p, 3)
        let high = unsafeBitCast(a.bytes | b.bytes | c.bytes | d.bytes, to: SIMD2<UInt64>.self)
        return BlockMasks(
            quote: a.quote | b.quote << 16 | c.quote << 32 | d.quote << 48,
            backslash: a.backslash | b.backslash << 16 | c.backslash << 32 | d.backslash << 48,
            op: a.op | b.op << 16 | c.op << 32 | d.op << 48,
            whitespace: a.ws | b.ws << 16 | c.ws << 32 | d.ws << 48,
            control: a.control | b.control << 16 | c.control << 32 | d.control << 48,
            nonASCII: (high[0] | high[1]) & 0x8080_8080_8080_8080 != 0)
    }
}

/// No vectors: eight UInt64 words per block, exact per-byte equality by the carry-free zero-byte
/// test, sign bits gathered by a multiply.
enum Swar64: Classifier {
    @inline(__always) static func equalHighBits(_ w: UInt64, _ c: UInt64) -> UInt64 {
        let x = w ^ (c &* 0x0101_0101_0101_0101)
        let t = ((x & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | x
        return ~t & 0x8080_8080_8080_8080
    }
    @inline(__always) static func gather(_ h: UInt64) -> UInt64 { (h &* 0x0002_0408_1020_4081) &>> 56 }

    @inline(__always) static func classify(_ p: UnsafeRawPointer) -> BlockMasks {
        var m = BlockMasks(quote: 0, backslash: 0, op: 0, whitespace: 0, control: 0, nonASCII: false)
        var high: UInt64 = 0
        for k in 0..<8 {
            let w = p.loadUnaligned(fromByteOffset: 8 * k, as: UInt64.self)
            let f = w | 0x2020_2020_2020_2020
            let op = equalHighBits(f, 0x7B) | equalHighBits(f, 0x7D) | equalHighBits(w, 0x3A) | equalHighBits(w, 0x2C)
            let ws = equalHighBits(w, 0x20) | equalHighBits(w, 0x0A) | equalHighBits(w, 0x09) | equalHighBits(w, 0x0D)
            // byte < 0x20 (for ASCII bytes): adding 0x60 leaves bit 7 clear
            let control = ~((w & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x6060_6060_6060_6060) & ~w & 0x8080_8080_8080_8080
            let shift = UInt64(8 * k)
            m.quote |= gather(equalHighBits(w, 0x22)) << shift
            m.backslash |= gather(equalHighBits(w, 0x5C)) << shift
            m.op |= gather(op) << shift
            m.whitespace |= gather(ws) << shift
            m.control |= gather(control) << shift
            high |= w
        }
        m.nonASCII = high & 0x8080_8080_8080_8080 != 0
        return m
    }
}

/// Bit i of the result = XOR of bits 0...i (the in-string mask from the quote mask).
@inline(__always) func prefixXor(_ x: UInt64) -> UInt64 {
    var x = x
    x ^= x << 1; x ^= x << 2; x ^= x << 4; x ^= x << 8; x ^= x << 16; x ^= x << 32
    return x
}

/// The stage-1 indexer: reusable buffers, one line at a time.
struct Stage1<C: Classifier> {
    var index: UnsafeMutablePointer<UInt32> = .allocate(capacity: 1 << 16)
    let tail: UnsafeMutableRawPointer = .allocate(byteCount: 64, alignment: 64)
    var errors = 0, nonASCIILines = 0

    /// Fills `index` with the line's structural positions; returns their count, or -1 if the
    /// line is malformed as far as stage 1 sees (unterminated string, control byte in a string).
    @inline(__always) mutating func run(_ line: UnsafePointer<UInt8>, _ n: Int) -> Int {
        var count = 0
        var prevEscaped: UInt64 = 0, prevInString: UInt64 = 0, prevScalar: UInt64 = 0
        var bad: UInt64 = 0, nonASCII = false
        var base = 0
        while base < n {
            let block: UnsafeRawPointer
            if n - base >= 64 {
                block = UnsafeRawPointer(line + base)
            } else {
                tail.initializeMemory(as: UInt8.self, repeating: 0x20, count: 64)
                tail.copyMemory(from: line + base, byteCount: n - base)
                block = UnsafeRawPointer(tail)
            }
            let m = C.classify(block)
            nonASCII = nonASCII || m.nonASCII
            var escaped: UInt64 = 0
            if m.backslash | prevEscaped != 0 {
                let backslash = m.backslash & ~prevEscaped
                let followsEscape = backslash << 1 | prevEscaped
                let even: UInt64 = 0x5555_5555_5555_5555
                let oddStarts = backslash & ~even & ~followsEscape
                let (sum, overflow) = oddStarts.addingReportingOverflow(backslash)
                prevEscaped = overflow ? 1 : 0
                escaped = (even ^ (sum << 1)) & followsEscape
            }
            let quote = m.quote & ~escaped
            let inString = prefixXor(quote) ^ prevInString
            prevInString = UInt64(bitPattern: Int64(bitPattern: inString) >> 63)
            bad |= m.control & inString
            let scalar = ~(m.op | m.whitespace)
            let followsScalar = scalar << 1 | prevScalar
            prevScalar = scalar >> 63
            var structurals = (m.op | (scalar & ~followsScalar)) & ~(inString ^ quote)
            if n - base < 64 { structurals &= (1 << UInt64(n - base)) &- 1 }
            // flatten: four positions written per step whatever the count (the buffer has room)
            let total = count + structurals.nonzeroBitCount
            while count < total {
                for j in 0..<4 {
                    index[count + j] = UInt32(base + structurals.trailingZeroBitCount)
                    structurals &= structurals &- 1
                }
                count += 4
            }
            count = total
            base += 64
        }
        if nonASCII { nonASCIILines += 1 }  // would go to a scalar UTF-8 validation (not written here)
        if bad != 0 || prevInString != 0 { errors += 1; return -1 }
        return count
    }
}

@inline(never) func runStage1<C: Classifier>(_ label: String, _ input: Input, _ c: C.Type) {
    var s = Stage1<C>()
    measure(label, input) { p, n in
        let k = s.run(p, n)
        return k > 0 ? Int(s.index[k - 1]) &+ k : k
    }
    if s.errors + s.nonASCIILines != 0 { print("  errors \(s.errors), non-ASCII lines \(s.nonASCIILines)") }
}

@main struct Probe {
    static func main() {
        for path in inputPaths() {
            let input = Input(path: path)
            runStage1("stage1: SIMD16 + psadbw", input, Vector16<SumOfWeights>.self)
            runStage1("stage1: SIMD16 + multiply", input, Vector16<MultiplyGather>.self)
            runStage1("stage1: SWAR UInt64", input, Swar64.self)
            #if BUILTIN_MOVEMASK
            runStage1("stage1: SIMD16 + pmovmskb", input, Vector16<BuiltinMovemask>.self)
            #endif
        }
    }
}
