import EntlSupport

/// Overflow-safe arithmetic for amounts (docs/semantics.md §5): nothing traps and nothing wraps.
/// Amounts are 0 … 10^15 on input; sums and products saturate at `Int64.max`.
extension Int64 {
    @inlinable
    public func addingSaturating(_ other: Int64) -> Int64 {
        let (r, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : r
    }

    @inlinable
    public func subtractingSaturating(_ other: Int64) -> Int64 {
        let (r, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : r
    }

    @inlinable
    public func multipliedSaturating(by other: Int64) -> Int64 {
        let (r, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? ((self < 0) != (other < 0) ? .min : .max) : r
    }

    /// `ceil(self × factor / divisor)` computed exactly in 128 bits, for non-negative operands
    /// and a positive divisor; saturates at `Int64.max`.
    public func multipliedDividedRoundingUp(by factor: Int64, dividedBy divisor: Int64) -> Int64 {
        multipliedDivided(by: factor, dividedBy: divisor, roundingUp: true)
    }

    /// `floor(self × factor / divisor)` exactly (128-bit intermediate), saturating at `Int64.max`:
    /// how many units `self` credits buy (§4.6 shortfall).
    public func multipliedDividedRoundingDown(by factor: Int64, dividedBy divisor: Int64) -> Int64 {
        multipliedDivided(by: factor, dividedBy: divisor, roundingUp: false)
    }

    /// Whether this balance covers a cost of `need` credits. A cost that saturated (`Int64.max`:
    /// at least 2^63 - 1, a conversion past 64 bits) is covered by no finite balance — a balance
    /// saturated as well is not known to hold that much.
    public func covers(_ need: Int64) -> Bool { need < .max && self >= need }

    private func multipliedDivided(by factor: Int64, dividedBy divisor: Int64, roundingUp: Bool) -> Int64 {
        precondition(self >= 0 && factor >= 0 && divisor > 0, "amounts are non-negative, divisors positive")
        let product = UInt64(self).multipliedFullWidth(by: UInt64(factor))
        let d = UInt64(divisor)
        guard product.high < d else { return .max }
        var (q, r) = d.dividingFullWidth(product)
        if roundingUp, r > 0 { q += 1 }
        return q > UInt64(Int64.max) ? .max : Int64(q)
    }
}

extension Int64 {
    /// The number with a `,` between groups of three digits, for human text: `10,000`.
    public var grouped: String {
        withGroupedUTF8(separator: UInt8(ascii: ",")) { String(decoding: $0, as: UTF8.self) }
    }
}

extension ByteOutput {
    /// `n.grouped`'s bytes (no `String` is made).
    @inline(__always)
    mutating func write(grouped n: Int64) {
        n.withGroupedUTF8(separator: UInt8(ascii: ",")) { write($0) }
    }

    /// The UTF-8 bytes of `text`, as they are (not escaped): in place when the string has them
    /// contiguous (native and small strings), no copy.
    @inline(__always)
    mutating func write(string text: String) {
        let written: Void? = text.utf8.withContiguousStorageIfAvailable { write(UnsafeRawBufferPointer($0)) }
        if written == nil {
            var text = text
            text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
        }
    }
}
