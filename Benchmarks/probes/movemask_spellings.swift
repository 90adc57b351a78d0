// Which Swift spellings of "bitmask of lanes equal to c" compile to (v)pmovmskb? None of these do
// (Swift 6.3, x86_64, with or without -target-cpu haswell); README.md lists what each became.
// Build: swiftc -O -wmo -parse-as-library movemask_spellings.swift -S -o /tmp/movemask.s [-target-cpu haswell]
// Each function is @inline(never) so its code stands alone in the assembly.

/// Lane weights 1, 2, 4, …, 128 repeated: AND with a 0/0xFF mask and sum per 8 lanes = the bits.
let weights16 = SIMD16<UInt8>(1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128)

/// A: a loop over the mask's lanes.
@inline(never) public func maskLoop(_ v: SIMD16<UInt8>, _ c: UInt8) -> UInt16 {
    let m = v .== SIMD16(repeating: c)
    var r: UInt16 = 0
    for i in 0..<16 where m[i] { r |= 1 << UInt16(i) }
    return r
}

/// B: the 0/0xFF lanes ANDed with weights, each 8-byte half summed by a multiply (bits are disjoint).
@inline(never) public func maskMultiply(_ v: SIMD16<UInt8>, _ c: UInt8) -> UInt16 {
    let m = SIMD16<UInt8>(repeating: 0).replacing(with: 0xFF, where: v .== SIMD16(repeating: c))
    let halves = unsafeBitCast(m & weights16, to: SIMD2<UInt64>.self)
    let sums = (halves &* 0x0101_0101_0101_0101) &>> 56
    return UInt16(truncatingIfNeeded: sums[0] | (sums[1] << 8))
}

/// C: the same ANDed lanes reduced with wrappedSum() per half.
@inline(never) public func maskWrappedSum(_ v: SIMD16<UInt8>, _ c: UInt8) -> UInt16 {
    let m = SIMD16<UInt8>(repeating: 0).replacing(with: 0xFF, where: v .== SIMD16(repeating: c)) & weights16
    return UInt16(m.lowHalf.wrappedSum()) | UInt16(m.highHalf.wrappedSum()) << 8
}

/// D: the sign bits gathered by the classic SWAR multiply on each 8-byte half.
@inline(never) public func maskSignMultiply(_ v: SIMD16<UInt8>, _ c: UInt8) -> UInt16 {
    let m = SIMD16<UInt8>(repeating: 0).replacing(with: 0xFF, where: v .== SIMD16(repeating: c))
    let h = unsafeBitCast(m, to: SIMD2<UInt64>.self) & 0x8080_8080_8080_8080
    let g = (h &* 0x0002_0408_1020_4081) &>> 56
    return UInt16(truncatingIfNeeded: g[0] | (g[1] << 8))
}

/// E: 32 lanes, the loop form (does LLVM see a movemask at AVX2 width?).
@inline(never) public func maskLoop32(_ v: SIMD32<UInt8>, _ c: UInt8) -> UInt32 {
    let m = v .== SIMD32(repeating: c)
    var r: UInt32 = 0
    for i in 0..<32 where m[i] { r |= 1 << UInt32(i) }
    return r
}

/// F: 32 lanes, the weights-and-multiply form.
@inline(never) public func maskMultiply32(_ v: SIMD32<UInt8>, _ c: UInt8) -> UInt32 {
    let m = SIMD32<UInt8>(repeating: 0).replacing(with: 0xFF, where: v .== SIMD32(repeating: c))
    let w = SIMD32<UInt8>(lowHalf: weights16, highHalf: weights16)
    let q = unsafeBitCast(m & w, to: SIMD4<UInt64>.self)
    let s = (q &* 0x0101_0101_0101_0101) &>> 56
    return UInt32(truncatingIfNeeded: s[0] | s[1] << 8 | s[2] << 16 | s[3] << 24)
}

@main struct Main {
    static func main() {
        var v = SIMD16<UInt8>(repeating: 0x61)
        v[3] = 0x22; v[12] = 0x22
        let w = SIMD32<UInt8>(lowHalf: v, highHalf: v)
        print(maskLoop(v, 0x22), maskMultiply(v, 0x22), maskWrappedSum(v, 0x22), maskSignMultiply(v, 0x22),
              maskLoop32(w, 0x22), maskMultiply32(w, 0x22))
    }
}
