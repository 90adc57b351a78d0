/// Points of edwards25519, `−x² + y² = 1 + d·x²·y²` over GF(2^255 − 19) (RFC 8032 §5.1), in extended
/// coordinates `(X : Y : Z : T)` with `x = X/Z`, `y = Y/Z`, `x·y = T/Z` (Hisil–Wong–Carter–Dawson 2008).
///
/// Two scalar multiplications: `baseMultiple` for the secret scalars of signing (constant time: a
/// fixed sequence of operations, table entries chosen by masks, never by a secret index), and
/// `multiple(of:by:)` for verification, whose scalars and points are public.
struct EdwardsPoint: Sendable {
    var x, y, z, t: FieldElement

    static let identity = EdwardsPoint(x: .zero, y: .one, z: .one, t: .zero)

    /// d = −121665/121666.
    static let d = -FieldElement(l0: 121_665, l1: 0, l2: 0, l3: 0, l4: 0)
        * FieldElement(l0: 121_666, l1: 0, l2: 0, l3: 0, l4: 0).inverted
    static let d2 = d + d
    /// √−1 = 2^((p − 1)/4).
    static let sqrtMinusOne: FieldElement = {
        let two = FieldElement(l0: 2, l1: 0, l2: 0, l3: 0, l4: 0)
        return two.power2_252_3.squared * two  // (p − 1)/4 = 2^253 − 5 = 2·(2^252 − 3) + 1
    }()

    /// The base point B: y = 4/5 with x even (RFC 8032 §5.1).
    static let base: EdwardsPoint = {
        var bytes = [UInt8](repeating: 0x66, count: 32)
        bytes[0] = 0x58
        return bytes.withUnsafeBytes { EdwardsPoint(encoding: $0) }!
    }()

    /// Decodes 32 bytes (RFC 8032 §5.1.3), refusing what is not the canonical encoding of a point:
    /// y ≥ p, an x² with no square root, and x = 0 with the sign bit set.
    init?(encoding e: UnsafeRawBufferPointer) {
        guard e.count == 32 else { return nil }
        let y = FieldElement(bytes: e)
        var canonical = y.bytes
        canonical[31] |= e[31] & 0x80
        guard canonical.elementsEqual(e) else { return nil }  // y ≥ p
        let sign = UInt64(e[31] >> 7)
        // x² = u/v with u = y² − 1, v = d·y² + 1; x = u·v³·(u·v⁷)^((p−5)/8), then fixed up by √−1.
        let y2 = y.squared
        let u = y2 - .one, v = EdwardsPoint.d * y2 + .one
        let v3 = v.squared * v
        var x = u * v3 * (u * v3.squared * v).power2_252_3
        let vx2 = v * x.squared
        if !(vx2 == u) {
            guard vx2 == -u else { return nil }
            x = x * EdwardsPoint.sqrtMinusOne
        }
        let xIsZero = x.isZeroMask != 0
        if xIsZero && sign == 1 { return nil }
        if x.isNegative != sign { x = -x }
        self.init(x: x, y: y, z: .one, t: x * y)
    }

    init(x: FieldElement, y: FieldElement, z: FieldElement, t: FieldElement) {
        (self.x, self.y, self.z, self.t) = (x, y, z, t)
    }

    /// The 32-byte encoding: y with the sign of x in the top bit.
    var encoding: [UInt8] {
        let inverse = z.inverted
        let ax = x * inverse, ay = y * inverse
        var out = ay.bytes
        out[31] |= UInt8(ax.isNegative) << 7
        return out
    }

    var negated: EdwardsPoint { EdwardsPoint(x: -x, y: y, z: z, t: -t) }

    /// `2P` (dbl-2008-hwcd with a = −1).
    var doubled: EdwardsPoint {
        let a = x.squared, b = y.squared, c = z.squared + z.squared
        let h = a + b
        let e = h - (x + y).squared
        let g = a - b
        let f = c + g
        // With a = −1: E' = −E, G' = −G, F' = −F, H' = −H; the signs cancel in each product.
        return EdwardsPoint(x: e * f, y: g * h, z: f * g, t: e * h)
    }

    /// `P + Q` for Q in cached form (add-2008-hwcd-3).
    static func + (p: EdwardsPoint, q: CachedPoint) -> EdwardsPoint {
        let a = (p.y - p.x) * q.yMinusX, b = (p.y + p.x) * q.yPlusX
        let c = p.t * q.t2d, zz = p.z * q.z
        let d = zz + zz
        let e = b - a, f = d - c, g = d + c, h = b + a
        return EdwardsPoint(x: e * f, y: g * h, z: f * g, t: e * h)
    }

    var cached: CachedPoint { CachedPoint(yPlusX: y + x, yMinusX: y - x, z: z, t2d: t * EdwardsPoint.d2) }

    /// Whether `8P` is the identity: P is one of the eight points of small order.
    var hasSmallOrder: Bool {
        let p8 = doubled.doubled.doubled
        return p8.x.isZeroMask != 0 && p8.y == p8.z
    }
}

/// A point prepared for addition: `(Y + X, Y − X, Z, 2d·T)`.
struct CachedPoint: Sendable {
    var yPlusX, yMinusX, z, t2d: FieldElement

    static let identity = CachedPoint(yPlusX: .one, yMinusX: .one, z: .one, t2d: .zero)

    /// `−P`: swap `Y + X` and `Y − X`, negate `2d·T`.
    var negated: CachedPoint { CachedPoint(yPlusX: yMinusX, yMinusX: yPlusX, z: z, t2d: -t2d) }

    static func select(_ a: CachedPoint, _ b: CachedPoint, mask: UInt64) -> CachedPoint {
        CachedPoint(yPlusX: .select(a.yPlusX, b.yPlusX, mask: mask), yMinusX: .select(a.yMinusX, b.yMinusX, mask: mask),
                    z: .select(a.z, b.z, mask: mask), t2d: .select(a.t2d, b.t2d, mask: mask))
    }

    /// `digit · P` from `table` = [1P, 2P, …, 8P], digit in −8…8, reading every entry and keeping
    /// the right one by mask, then negating by mask: the same work for every digit.
    static func select(from table: UnsafeBufferPointer<CachedPoint>, digit: Int8) -> CachedPoint {
        let bits = UInt8(bitPattern: digit)
        let negative = UInt64(bits >> 7)
        let magnitude = UInt64((bits ^ (0 &- UInt8(negative))) &+ UInt8(negative))  // |digit|
        var chosen = CachedPoint.identity
        for j in 0..<8 {
            // All ones exactly when magnitude == j + 1.
            let equal = ((magnitude ^ UInt64(j + 1)) &- 1) >> 63 &* UInt64.max
            chosen = select(chosen, table[j], mask: equal)
        }
        return select(chosen, chosen.negated, mask: 0 &- negative)
    }
}

extension EdwardsPoint {
    /// A scalar (32 little-endian bytes, below 2^255) as 64 signed digits in −8…8 of radix 16.
    static func radix16(_ scalar: [UInt8]) -> [Int8] {
        var digits = [Int8](repeating: 0, count: 64)
        for i in 0..<32 {
            digits[2 * i] = Int8(scalar[i] & 15)
            digits[2 * i + 1] = Int8(scalar[i] >> 4)
        }
        var carry: Int8 = 0
        for i in 0..<63 {
            digits[i] &+= carry
            carry = (digits[i] &+ 8) >> 4
            digits[i] &-= carry << 4
        }
        digits[63] &+= carry
        return digits
    }

    /// `16^(2i)·j·B` for row i in 0..<32 and j in 1…8: with it, `s·B` needs no doubling but the four
    /// between the odd and the even digits. Built once, on first use (30 KB).
    static let baseTable: [CachedPoint] = {
        var table: [CachedPoint] = []
        table.reserveCapacity(32 * 8)
        var rowBase = base
        for _ in 0..<32 {
            var multiple = rowBase
            let cached = rowBase.cached
            for j in 0..<8 {
                table.append(multiple.cached)
                if j < 7 { multiple = multiple + cached }
            }
            for _ in 0..<8 { rowBase = rowBase.doubled }  // × 256
        }
        return table
    }()

    /// `s·B` in constant time, s (32 little-endian bytes) below 2^255.
    static func baseMultiple(_ scalar: [UInt8]) -> EdwardsPoint {
        let digits = radix16(scalar)
        var h = identity
        baseTable.withUnsafeBufferPointer { table in
            // Σ digit_i·16^i·B: the odd digits first, times 16, then the even ones.
            for i in stride(from: 1, to: 64, by: 2) {
                h = h + CachedPoint.select(from: UnsafeBufferPointer(rebasing: table[(i / 2) * 8..<(i / 2) * 8 + 8]),
                                           digit: digits[i])
            }
            h = h.doubled.doubled.doubled.doubled
            for i in stride(from: 0, to: 64, by: 2) {
                h = h + CachedPoint.select(from: UnsafeBufferPointer(rebasing: table[(i / 2) * 8..<(i / 2) * 8 + 8]),
                                           digit: digits[i])
            }
        }
        return h
    }

    /// `s·P` for public s (below 2^255) and P: a table of 1P…8P and the radix-16 digits from the top.
    static func multiple(of point: EdwardsPoint, by scalar: [UInt8]) -> EdwardsPoint {
        var table: [CachedPoint] = [point.cached]
        var multiple = point
        for _ in 1..<8 {
            multiple = multiple + table[0]
            table.append(multiple.cached)
        }
        let digits = radix16(scalar)
        var h = identity
        table.withUnsafeBufferPointer { table in
            for i in stride(from: 63, through: 0, by: -1) {
                h = h.doubled.doubled.doubled.doubled
                h = h + CachedPoint.select(from: table, digit: digits[i])
            }
        }
        return h
    }
}
