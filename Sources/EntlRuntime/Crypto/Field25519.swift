/// An element of GF(2^255 − 19), the field of edwards25519, as five unsigned 64-bit limbs of radix
/// 2^51: `l0 + l1·2^51 + l2·2^102 + l3·2^153 + l4·2^204`.
///
/// Why radix 2^51: a product of two limbs fits one `multipliedFullWidth` (no `UInt128`, which
/// Apple platforms have only from their 2024 releases), a column of five such products fits 128
/// bits, and the reduction is a multiplication by 19 (2^255 ≡ 19).
///
/// INVARIANT: every value this type hands out is *carried*: each limb is below 2^51 + 2^18. Then
/// each limb is below the limbs of 2p (2^52 − 38), so `-`'s bias never underflows, a product
/// column stays below 2^111 and its carry below 2^60, and `carried()` after any operation
/// restores the bound.
///
/// Constant time: no operation branches on or indexes by a value; `select`, `isZeroMask` and
/// `isNegative` use masks. (Swift makes no promise about the machine code; this is what is asked
/// of it, the way the reference C implementations ask it of their compilers.)
struct FieldElement: Sendable {
    var l0, l1, l2, l3, l4: UInt64

    static let mask51: UInt64 = (1 << 51) - 1
    static let zero = FieldElement(l0: 0, l1: 0, l2: 0, l3: 0, l4: 0)
    static let one = FieldElement(l0: 1, l1: 0, l2: 0, l3: 0, l4: 0)

    /// The low 255 bits of 32 little-endian bytes (bit 255, the sign of x in a point encoding, is
    /// ignored). The value may be up to 2^255 − 1, not yet reduced below p.
    init(bytes b: UnsafeRawBufferPointer) {
        func load(_ offset: Int) -> UInt64 {
            var word: UInt64 = 0
            for i in (0..<8).reversed() { word = word << 8 | UInt64(b[offset + i]) }
            return word
        }
        l0 = load(0) & Self.mask51
        l1 = load(6) >> 3 & Self.mask51
        l2 = load(12) >> 6 & Self.mask51
        l3 = load(19) >> 1 & Self.mask51
        l4 = load(24) >> 12 & Self.mask51
    }

    init(l0: UInt64, l1: UInt64, l2: UInt64, l3: UInt64, l4: UInt64) {
        (self.l0, self.l1, self.l2, self.l3, self.l4) = (l0, l1, l2, l3, l4)
    }

    /// The canonical 32-byte little-endian encoding of the value reduced below p.
    var bytes: [UInt8] {
        // Carry twice: every limb below 2^51 and the value below 2^255 + small.
        var t = carried().carried()
        // Subtract p once if the value is at least p: q = 1 exactly when value + 19 ≥ 2^255.
        var q = (t.l0 &+ 19) >> 51
        q = (t.l1 &+ q) >> 51
        q = (t.l2 &+ q) >> 51
        q = (t.l3 &+ q) >> 51
        q = (t.l4 &+ q) >> 51
        t.l0 &+= 19 &* q
        t.l1 &+= t.l0 >> 51; t.l0 &= Self.mask51
        t.l2 &+= t.l1 >> 51; t.l1 &= Self.mask51
        t.l3 &+= t.l2 >> 51; t.l2 &= Self.mask51
        t.l4 &+= t.l3 >> 51; t.l3 &= Self.mask51
        t.l4 &= Self.mask51  // drops the 2^255 that the +19 pushed up: value − p
        let words = [t.l0 | t.l1 << 51, t.l1 >> 13 | t.l2 << 38, t.l2 >> 26 | t.l3 << 25, t.l3 >> 39 | t.l4 << 12]
        var out = [UInt8](repeating: 0, count: 32)
        for (i, word) in words.enumerated() {
            for j in 0..<8 { out[8 * i + j] = UInt8(truncatingIfNeeded: word >> UInt64(8 * j)) }
        }
        return out
    }

    /// Each limb's bits above 51 moved to the next limb (the top limb's, times 19, to the first).
    func carried() -> FieldElement {
        let c0 = l0 >> 51, c1 = l1 >> 51, c2 = l2 >> 51, c3 = l3 >> 51, c4 = l4 >> 51
        return FieldElement(l0: (l0 & Self.mask51) &+ c4 &* 19, l1: (l1 & Self.mask51) &+ c0,
                            l2: (l2 & Self.mask51) &+ c1, l3: (l3 & Self.mask51) &+ c2, l4: (l4 & Self.mask51) &+ c3)
    }

    static func + (a: FieldElement, b: FieldElement) -> FieldElement {
        FieldElement(l0: a.l0 &+ b.l0, l1: a.l1 &+ b.l1, l2: a.l2 &+ b.l2, l3: a.l3 &+ b.l3, l4: a.l4 &+ b.l4).carried()
    }

    /// `a − b` as `a + 2p − b`: 2p's limbs exceed any carried limb, so nothing underflows.
    static func - (a: FieldElement, b: FieldElement) -> FieldElement {
        FieldElement(l0: (a.l0 &+ 0xf_ffff_ffff_ffda) &- b.l0, l1: (a.l1 &+ 0xf_ffff_ffff_fffe) &- b.l1,
                     l2: (a.l2 &+ 0xf_ffff_ffff_fffe) &- b.l2, l3: (a.l3 &+ 0xf_ffff_ffff_fffe) &- b.l3,
                     l4: (a.l4 &+ 0xf_ffff_ffff_fffe) &- b.l4).carried()
    }

    static prefix func - (a: FieldElement) -> FieldElement { zero - a }

    static func * (a: FieldElement, b: FieldElement) -> FieldElement {
        // Column i sums a_j·b_k over j + k ≡ i (mod 5); a wrapped term (j + k ≥ 5) carries 2^255 ≡ 19.
        let b1 = b.l1 &* 19, b2 = b.l2 &* 19, b3 = b.l3 &* 19, b4 = b.l4 &* 19
        var r0 = Wide(a.l0, b.l0), r1 = Wide(a.l0, b.l1), r2 = Wide(a.l0, b.l2), r3 = Wide(a.l0, b.l3)
        var r4 = Wide(a.l0, b.l4)
        r0.add(a.l1, b4); r0.add(a.l2, b3); r0.add(a.l3, b2); r0.add(a.l4, b1)
        r1.add(a.l1, b.l0); r1.add(a.l2, b4); r1.add(a.l3, b3); r1.add(a.l4, b2)
        r2.add(a.l1, b.l1); r2.add(a.l2, b.l0); r2.add(a.l3, b4); r2.add(a.l4, b3)
        r3.add(a.l1, b.l2); r3.add(a.l2, b.l1); r3.add(a.l3, b.l0); r3.add(a.l4, b4)
        r4.add(a.l1, b.l3); r4.add(a.l2, b.l2); r4.add(a.l3, b.l1); r4.add(a.l4, b.l0)
        return reduce(r0, r1, r2, r3, r4)
    }

    /// `a · a`, with the symmetric products counted once and doubled.
    var squared: FieldElement {
        let d0 = l0 &* 2, d1 = l1 &* 2, l3_19 = l3 &* 19, l4_19 = l4 &* 19
        var r0 = Wide(l0, l0), r1 = Wide(d0, l1), r2 = Wide(d0, l2), r3 = Wide(d0, l3), r4 = Wide(d0, l4)
        r0.add(d1, l4_19); r0.add(l2 &* 2, l3_19)
        r1.add(l2 &* 2, l4_19); r1.add(l3, l3_19)
        r2.add(l1, l1); r2.add(l3 &* 2, l4_19)
        r3.add(d1, l2); r3.add(l4, l4_19)
        r4.add(d1, l3); r4.add(l2, l2)
        return FieldElement.reduce(r0, r1, r2, r3, r4)
    }

    /// `self` squared `n` times.
    func squared(times n: Int) -> FieldElement {
        var t = self
        for _ in 0..<n { t = t.squared }
        return t
    }

    /// Five 128-bit columns carried into limbs. Each column is below 2^111, so each carry fits a
    /// word and the top carry times 19 does too.
    private static func reduce(_ r0: Wide, _ r1: Wide, _ r2: Wide, _ r3: Wide, _ r4: Wide) -> FieldElement {
        let c0 = r0.shifted51, c1 = r1.shifted51, c2 = r2.shifted51, c3 = r3.shifted51, c4 = r4.shifted51
        return FieldElement(l0: (r0.low & mask51) &+ c4 &* 19, l1: (r1.low & mask51) &+ c0,
                            l2: (r2.low & mask51) &+ c1, l3: (r3.low & mask51) &+ c2,
                            l4: (r4.low & mask51) &+ c3).carried()
    }

    /// `self^(2^250 − 1)` and `self^11`, the common start of inversion and square roots.
    private func power2_250_1() -> (FieldElement, FieldElement) {
        let z2 = squared
        let z9 = z2.squared(times: 2) * self
        let z11 = z9 * z2
        let z5 = z11.squared * z9                     // 2^5 − 1
        let z10 = z5.squared(times: 5) * z5           // 2^10 − 1
        let z20 = z10.squared(times: 10) * z10        // 2^20 − 1
        let z40 = z20.squared(times: 20) * z20        // 2^40 − 1
        let z50 = z40.squared(times: 10) * z10        // 2^50 − 1
        let z100 = z50.squared(times: 50) * z50       // 2^100 − 1
        let z200 = z100.squared(times: 100) * z100    // 2^200 − 1
        return (z200.squared(times: 50) * z50, z11)   // 2^250 − 1
    }

    /// `1 / self` as `self^(p − 2)` (0 for 0); a fixed chain of squarings and multiplications.
    var inverted: FieldElement {
        let (t, z11) = power2_250_1()
        return t.squared(times: 5) * z11  // 2^255 − 32 + 11 = p − 2
    }

    /// `self^((p − 5) / 8) = self^(2^252 − 3)`, the core of a square root in this field.
    var power2_252_3: FieldElement {
        let (t, _) = power2_250_1()
        return t.squared(times: 2) * self
    }

    /// All ones when `self ≡ 0 (mod p)`, else 0.
    var isZeroMask: UInt64 {
        var any: UInt8 = 0
        for b in bytes { any |= b }
        return (UInt64(any) &- 1) >> 63 &* UInt64.max
    }

    /// Whether the canonical value is odd: the sign of x in a point encoding (RFC 8032 §5.1.2).
    var isNegative: UInt64 { UInt64(bytes[0] & 1) }

    /// `b` where `mask` is all ones, `a` where it is 0, without a branch.
    static func select(_ a: FieldElement, _ b: FieldElement, mask: UInt64) -> FieldElement {
        FieldElement(l0: a.l0 ^ (mask & (a.l0 ^ b.l0)), l1: a.l1 ^ (mask & (a.l1 ^ b.l1)),
                     l2: a.l2 ^ (mask & (a.l2 ^ b.l2)), l3: a.l3 ^ (mask & (a.l3 ^ b.l3)),
                     l4: a.l4 ^ (mask & (a.l4 ^ b.l4)))
    }

    /// Whether two elements are equal mod p (variable time: for public values only).
    static func == (a: FieldElement, b: FieldElement) -> Bool { a.bytes == b.bytes }
}

/// A 128-bit column sum of 64 × 64-bit products.
struct Wide {
    var high: UInt64, low: UInt64

    init(_ a: UInt64, _ b: UInt64) { (high, low) = a.multipliedFullWidth(by: b) }

    mutating func add(_ a: UInt64, _ b: UInt64) {
        let p = a.multipliedFullWidth(by: b)
        let (sum, carry) = low.addingReportingOverflow(p.low)
        low = sum
        high &+= p.high &+ (carry ? 1 : 0)
    }

    /// The value shifted right by 51 bits, known to fit a word.
    var shifted51: UInt64 { high << 13 | low >> 51 }
}
