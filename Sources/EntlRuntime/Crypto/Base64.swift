/// Standard base64 (RFC 4648 §4, `+/` and `=` padding), for signature files and PEM keys.
///
/// The decoder is strict, so that a text has one meaning: only the 64 letters, padding only at the
/// end and only up to a multiple of four, and the unused bits of the last letter zero. Callers
/// remove line breaks first where their format allows them.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            var group = UInt32(bytes[i]) << 16
            if n > 1 { group |= UInt32(bytes[i + 1]) << 8 }
            if n > 2 { group |= UInt32(bytes[i + 2]) }
            for j in 0..<4 {
                out.append(j <= n ? alphabet[Int(group >> UInt32(18 - 6 * j) & 63)] : UInt8(ascii: "="))
            }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of `text`, or why it is not strict base64 (1-based character positions).
    static func decode(_ text: [UInt8]) throws(Base64Error) -> [UInt8] {
        guard text.count % 4 == 0 else { throw Base64Error(lengthNotMultipleOfFour(text.count)) }
        let padding = text.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        guard padding <= 2 else { throw Base64Error(misplacedPadding(text.count - padding + 1)) }
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3)
        var group: UInt32 = 0
        for (i, letter) in text.enumerated() {
            if i >= text.count - padding {
                group <<= 6
            } else {
                guard let value = value(of: letter) else {
                    let padding = letter == UInt8(ascii: "=")
                    throw Base64Error(padding ? misplacedPadding(i + 1) : notALetter(letter, at: i + 1))
                }
                group = group << 6 | value
            }
            if i % 4 == 3 {
                out.append(contentsOf: [UInt8(group >> 16 & 255), UInt8(group >> 8 & 255), UInt8(group & 255)])
                group = 0
            }
        }
        // The bits the padding stands for must be zero, else another text has the same bytes.
        if padding > 0 {
            let dropped = out.suffix(padding)
            guard dropped.allSatisfy({ $0 == 0 }) else { throw Base64Error(unusedBitsSet) }
            out.removeLast(padding)
        }
        return out
    }

    private static func value(of letter: UInt8) -> UInt32? {
        switch letter {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return UInt32(letter - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return UInt32(letter - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(letter - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }

    private static func lengthNotMultipleOfFour(_ n: Int) -> String {
        "\(n) characters of base64 (a multiple of 4 was expected)"
    }
    private static func misplacedPadding(_ at: Int) -> String { "misplaced `=` at character \(at)" }
    private static func notALetter(_ letter: UInt8, at: Int) -> String {
        let printable = letter >= 0x20 && letter < 0x7f
        let shown = printable ? "`\(Character(Unicode.Scalar(letter)))`" : "byte 0x\(String(letter, radix: 16))"
        return "\(shown) at character \(at) is not base64"
    }
    private static let unusedBitsSet = "the last base64 character has unused bits set"
}

/// Why a text is not base64.
struct Base64Error: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
