/// Well-formed UTF-8 (RFC 3629, Unicode's Table 3-7): the one check behind the lexer's `E101`
/// and the JSON reader's "invalid UTF-8 in string". Refuses overlong forms, surrogates, values
/// above U+10FFFF, stray continuation bytes and sequences cut short.
public enum UTF8Validation {
    /// The length (1 to 4) of the well-formed sequence that starts at `i`, or nil when the bytes
    /// there are not one.
    @inlinable
    public static func sequenceLength<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, at i: Int) -> Int?
    where Bytes.Index == Int {
        let b = bytes[i]
        if b < 0x80 { return 1 }
        let length: Int
        var lowest: UInt8 = 0x80, highest: UInt8 = 0xBF
        switch b {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lowest = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; highest = 0x9F
        case 0xF0: length = 4; lowest = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; highest = 0x8F
        default: return nil
        }
        guard i + length <= bytes.endIndex, bytes[i + 1] >= lowest, bytes[i + 1] <= highest else { return nil }
        for k in 2..<length where bytes[i + k] & 0xC0 != 0x80 { return nil }
        return length
    }

    /// The offset of the first byte that is not part of well-formed UTF-8, or nil when all of
    /// `bytes` is.
    public static func firstInvalidOffset(_ bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBufferPointer { buffer in
            var i = 0
            while i < buffer.count {
                if buffer[i] < 0x80 {
                    i += 1
                    continue
                }
                guard let length = sequenceLength(buffer, at: i) else { return i }
                i += length
            }
            return nil
        }
    }
}
