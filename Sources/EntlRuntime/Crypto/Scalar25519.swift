/// Arithmetic modulo L = 2^252 + 27742317777372353535851937790883648493, the order of the base
/// point: reducing a 64-byte hash (RFC 8032 §5.1.6 step 2 and §5.1.7 step 2) and `r + k·a`
/// (§5.1.6 step 6). Scalars are 32 little-endian bytes.
///
/// The reduction is the schoolbook one, a bit at a time from the top: shift in a bit, subtract L
/// when the value reaches it. It is short, obviously right, and constant time (the subtraction is
/// always computed and kept by mask); 512 steps cost a few microseconds, against the hundreds a
/// point multiplication takes.
enum Scalar25519 {
    /// L as four little-endian 64-bit limbs.
    static let order: [UInt64] = [0x5812_631a_5cf5_d3ed, 0x14de_f9de_a2f7_9cd6, 0, 0x1000_0000_0000_0000]

    /// `bytes` (little-endian, any length up to 64) reduced modulo L.
    static func reduce(_ bytes: [UInt8]) -> [UInt8] {
        var words = [UInt64](repeating: 0, count: (bytes.count + 7) / 8)
        for (i, b) in bytes.enumerated() { words[i / 8] |= UInt64(b) << UInt64(8 * (i % 8)) }
        return encode(reduce(words: words))
    }

    /// `(a·b + c) mod L` for scalars a, b, c, in constant time.
    static func multiplyAdd(_ a: [UInt8], _ b: [UInt8], _ c: [UInt8]) -> [UInt8] {
        let x = decode(a), y = decode(b), z = decode(c)
        var product = [UInt64](repeating: 0, count: 8)
        for i in 0..<4 {
            var carry: UInt64 = 0
            for j in 0..<4 {
                // product[i + j] + x[i]·y[j] + carry < 2^128: the high word takes both carries.
                let (high, low) = x[i].multipliedFullWidth(by: y[j])
                var c1: UInt64 = 0, c2: UInt64 = 0
                let sum = add(low, product[i + j], carryIn: &c1)
                product[i + j] = add(sum, carry, carryIn: &c2)
                carry = high &+ c1 &+ c2
            }
            product[i + 4] = carry
        }
        var carry: UInt64 = 0
        for i in 0..<4 { product[i] = add(product[i], z[i], carryIn: &carry) }
        for i in 4..<8 { product[i] = add(product[i], 0, carryIn: &carry) }
        return encode(reduce(words: product))
    }

    /// Whether a 32-byte scalar is below L: a signature's S must be (RFC 8032 §5.1.7 step 1).
    /// Variable time: S is public.
    static func isCanonical(_ scalar: [UInt8]) -> Bool {
        let s = decode(scalar)
        for i in (0..<4).reversed() where s[i] != order[i] { return s[i] < order[i] }
        return false  // equal to L
    }

    /// The value of `words` (little-endian) modulo L, one bit at a time from the top.
    private static func reduce(words: [UInt64]) -> [UInt64] {
        // INVARIANT: r < L < 2^253 before each step, so 2r + 1 < 2^254 fits four words.
        var (r0, r1, r2, r3): (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        let (l0, l1, l2, l3) = (order[0], order[1], order[2], order[3])
        for word in words.reversed() {
            for bit in stride(from: 63, through: 0, by: -1) {
                (r3, r2, r1, r0) = (r3 << 1 | r2 >> 63, r2 << 1 | r1 >> 63, r1 << 1 | r0 >> 63,
                                    r0 << 1 | (word &>> UInt64(bit)) & 1)
                var borrow: UInt64 = 0
                let d0 = subtract(r0, l0, borrowIn: &borrow), d1 = subtract(r1, l1, borrowIn: &borrow)
                let d2 = subtract(r2, l2, borrowIn: &borrow), d3 = subtract(r3, l3, borrowIn: &borrow)
                let keep = borrow &- 1  // all ones when r ≥ L: take the difference
                r0 ^= keep & (r0 ^ d0); r1 ^= keep & (r1 ^ d1); r2 ^= keep & (r2 ^ d2); r3 ^= keep & (r3 ^ d3)
            }
        }
        return [r0, r1, r2, r3]
    }

    /// `a − b − borrow`, setting `borrow` to the borrow out (0 or 1), computed from the top bits
    /// (Hacker's Delight 2–13): a Bool from `subtractingReportingOverflow` compiles to a branch.
    private static func subtract(_ a: UInt64, _ b: UInt64, borrowIn borrow: inout UInt64) -> UInt64 {
        let d = a &- b &- borrow
        borrow = ((~a & b) | (~(a ^ b) & d)) >> 63
        return d
    }

    /// `a + b + carry`, setting `carry` to the carry out (0 or 1), likewise without a branch.
    private static func add(_ a: UInt64, _ b: UInt64, carryIn carry: inout UInt64) -> UInt64 {
        let s = a &+ b &+ carry
        carry = ((a & b) | ((a | b) & ~s)) >> 63
        return s
    }

    private static func decode(_ bytes: [UInt8]) -> [UInt64] {
        var words: [UInt64] = [0, 0, 0, 0]
        for i in 0..<32 { words[i / 8] |= UInt64(bytes[i]) << UInt64(8 * (i % 8)) }
        return words
    }

    private static func encode(_ words: [UInt64]) -> [UInt8] {
        (0..<32).map { UInt8(truncatingIfNeeded: words[$0 / 8] >> UInt64(8 * ($0 % 8))) }
    }
}
