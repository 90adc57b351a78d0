extension Int64 {
    /// The number with `separator` between groups of three digits: `10,000` for text, `10_000` for
    /// an `.entl` literal.
    public func grouped(by separator: Character) -> String {
        guard separator.utf8.count == 1, let byte = separator.utf8.first else {
            // Wider than a byte: the commas of the text replaced.
            return String(grouped(by: ",").map { $0 == "," ? separator : $0 })
        }
        return withGroupedUTF8(separator: byte) { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the UTF-8 bytes of `grouped(by:)` with the one-byte `separator`, formed in
    /// a buffer on the stack: the digits written from the last, a separator before each group of
    /// three but the first (no `String` is made).
    @inlinable
    public func withGroupedUTF8<R>(separator: UInt8, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        // 19 digits at most (`Int64.min`), 6 separators and a sign.
        var text: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        return try withUnsafeMutableBytes(of: &text) { buffer in
            var start = buffer.count
            var rest = magnitude
            var inGroup = 0
            repeat {
                if inGroup == 3 {
                    start -= 1
                    buffer[start] = separator
                    inGroup = 0
                }
                start -= 1
                buffer[start] = UInt8(truncatingIfNeeded: rest % 10) &+ UInt8(ascii: "0")
                rest /= 10
                inGroup += 1
            } while rest > 0
            if self < 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            return try body(UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }
}
