import EntlSupport

/// A JSON syntax error with its position (1-based line and column, columns in characters).
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var line: Int
    public var column: Int

    public var description: String { "\(line):\(column): \(message)" }
}

/// A cursor over JSON bytes: the lexical layer (whitespace, strings, numbers, literals, nesting,
/// located errors) shared by `JSONParser` and the streaming state decoder. Strict RFC 8259: no
/// trailing commas, no comments, no NaN; strings must be valid UTF-8; nesting is limited to
/// `JSONParser.maxDepth` so hostile input cannot overflow the stack.
///
/// INVARIANT: `bytes` stays valid while the scanner is used: it is made inside
/// `withUnsafeBufferPointer` by `scan(_:_:)` and never escapes it.
struct JSONScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
    }

    /// Runs `body` with a scanner over `bytes` (an array or a slice of one: contiguous).
    static func scan<C: Collection, T, E: Error>(_ bytes: C, _ body: (inout JSONScanner) throws(E) -> T) throws(E) -> T
    where C.Element == UInt8 {
        func run(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<T, E> {
            var scanner = JSONScanner(buffer)
            do throws(E) {
                return .success(try body(&scanner))
            } catch {
                return .failure(error)
            }
        }
        let result = bytes.withContiguousStorageIfAvailable(run) ?? Array(bytes).withUnsafeBufferPointer(run)
        return try result.get()
    }

    /// A string's contents: a range of `bytes` when it has no escape, else its decoded bytes.
    enum StringBytes {
        case range(Range<Int>)
        case decoded([UInt8])
    }

    /// Whether `s` spells `literal`.
    func matches(_ s: StringBytes, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        switch s {
        case .range(let r):
            guard r.count == count else { return false }
            return literal.withUTF8Buffer { l in
                var i = 0
                while i < count, bytes[r.lowerBound + i] == l[i] { i += 1 }
                return i == count
            }
        case .decoded(let d):
            return d.count == count && literal.withUTF8Buffer { d.elementsEqual($0) }
        }
    }

    /// Whether two strings have the same contents.
    func equal(_ a: StringBytes, _ b: StringBytes) -> Bool {
        switch (a, b) {
        case (.range(let x), .range(let y)):
            guard x.count == y.count else { return false }
            var i = 0
            while i < x.count, bytes[x.lowerBound + i] == bytes[y.lowerBound + i] { i += 1 }
            return i == x.count
        default:
            return text(a) == text(b)
        }
    }

    /// The contents as a String.
    func text(_ s: StringBytes) -> String {
        switch s {
        case .range(let r): String(decoding: UnsafeBufferPointer(rebasing: bytes[r]), as: UTF8.self)
        case .decoded(let d): String(decoding: d, as: UTF8.self)
        }
    }

    /// Calls `body` with the contents' bytes.
    func withBytes<T>(_ s: StringBytes, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        switch s {
        case .range(let r): body(UnsafeBufferPointer(rebasing: bytes[r]))
        case .decoded(let d): d.withUnsafeBufferPointer(body)
        }
    }

    func error(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
        let offset = min(offset ?? index, bytes.count)
        var line = 1, column = 1
        for i in 0..<offset {
            if bytes[i] == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if bytes[i] & 0xC0 != 0x80 {
                column += 1
            }
        }
        return JSONSyntaxError(message: message, line: line, column: column)
    }

    func describeCurrent() -> String {
        guard index < bytes.count else { return "end of input" }
        let b = bytes[index]
        if b >= 0x21, b < 0x7F { return "`\(Character(Unicode.Scalar(b)))`" }
        return "byte 0x" + String(b, radix: 16, uppercase: true)
    }

    /// The next byte after whitespace (nil at the end).
    @inline(__always)
    mutating func peek() -> UInt8? {
        skipWhitespace()
        return index < bytes.count ? bytes[index] : nil
    }

    /// The byte at the cursor, whitespace before it already skipped (by `peek`).
    var current: UInt8? {
        @inline(__always) get { index < bytes.count ? bytes[index] : nil }
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < bytes.count {
            let b = bytes[index]
            // One comparison for the common case, a byte that is not whitespace.
            guard b <= 0x20, b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D else { return }
            index += 1
        }
    }

    @inline(__always)
    mutating func expect(_ byte: UInt8, _ what: String) throws(JSONSyntaxError) {
        guard peek() == byte else { throw unexpected(expected: what) }
        index += 1
    }

    /// After a value in an object or array: true for `,`, false for the closing byte.
    @inline(__always)
    mutating func more(closing: UInt8, _ what: String) throws(JSONSyntaxError) -> Bool {
        let b = peek()
        if b == UInt8(ascii: ",") {
            index += 1
            return true
        }
        guard b == closing else { throw unexpected(expected: "`,` or `\(what)`") }
        index += 1
        return false
    }

    /// `unexpected `x`, expected WHAT` at the cursor.
    @inline(never)
    func unexpected(expected what: String) -> JSONSyntaxError {
        error("unexpected \(describeCurrent()), expected \(what)")
    }

    mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > JSONParser.maxDepth { throw error("nesting deeper than \(JSONParser.maxDepth) levels") }
    }

    mutating func leave() { depth -= 1 }

    mutating func literal(_ word: String) throws(JSONSyntaxError) {
        let w = Array(word.utf8)
        guard index + w.count <= bytes.count,
              UnsafeBufferPointer(rebasing: bytes[index..<(index + w.count)]).elementsEqual(w),
              index + w.count == bytes.count || !JSONScanner.isLetter(bytes[index + w.count])
        else {
            // Name the whole word that stands here: `tru`, `nope`, `not`.
            var end = index
            while end < bytes.count, end - index < 40, JSONScanner.isLetter(bytes[end]) { end += 1 }
            let found = String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<max(end, index + 1)]),
                               as: UTF8.self)
            let close = found.count < w.count && w.starts(with: found.utf8)
            throw error("unexpected `\(found)`, expected " + (close ? "`\(word)`" : "a value"))
        }
        index += w.count
    }

    static func isLetter(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
    }

    /// A number's text (a range of `bytes`), checked against the JSON grammar.
    mutating func numberToken() throws(JSONSyntaxError) -> Range<Int> {
        let start = index
        func isDigit(_ i: Int) -> Bool { i < bytes.count && bytes[i] >= 0x30 && bytes[i] <= 0x39 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard isDigit(index) else { throw error("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if isDigit(index) { throw error("invalid number: leading zero", at: start) }
        } else {
            while isDigit(index) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard isDigit(index) else { throw error("invalid number: digits expected after `.`") }
            while isDigit(index) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard isDigit(index) else { throw error("invalid number: digits expected in the exponent") }
            while isDigit(index) { index += 1 }
        }
        return start..<index
    }

    /// The end of the run of bytes from `start` that a JSON string holds as they are: the index of
    /// the first quote, backslash or control byte (or non-ASCII byte, unless `nonASCII`), or `end`.
    /// Eight bytes at a time: a mask of the bytes that stop the run (exact up to its lowest set bit,
    /// the only one read: a borrow runs only upwards from a byte that matched).
    @inline(__always)
    static func plainRun(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int, nonASCII: Bool) -> Int {
        let raw = UnsafeRawPointer(base)
        var i = start
        while i + 8 <= end {
            if let stop = plainRunStop(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self), nonASCII: nonASCII) {
                return i + stop
            }
            i += 8
        }
        // The last bytes as one zero-padded word: a padding byte stops the run like a control byte,
        // at the end.
        guard i < end else { return end }
        return i + (plainRunStop(ByteBuffer.paddedWord(raw + i, end - i), nonASCII: nonASCII) ?? end - i)
    }

    /// The common instant, read in place: with the cursor on a string of the whole-second UTC
    /// form (`"2026-11-22T12:00:00Z"`: its 20 bytes, checked, are a plain JSON string), the
    /// instant, the cursor past the string; else nil, the cursor unmoved.
    @inline(__always)
    mutating func wholeSecondsInstant() -> Instant? {
        guard index + 22 <= bytes.count, bytes[index] == UInt8(ascii: "\""), bytes[index + 21] == UInt8(ascii: "\"")
        else { return nil }
        let text = UnsafeBufferPointer(rebasing: bytes[(index + 1)..<(index + 21)])
        guard let instant = Instant.parseWholeSecondsUTC(text) else { return nil }
        index += 22
        return instant
    }

    /// The common short string, read straight from the bytes: with `quote` on its opening quote,
    /// a string of at most 15 bytes with no escape, ASCII, ends at the first byte of the next 16
    /// that stops a plain run, which is a quote. Then its bytes as two zero-padded words and its
    /// length, from the two words loaded to find that end (no string scanned and then matched);
    /// else nil.
    @inline(__always)
    static func shortString(at quote: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (words: (UInt64, UInt64),
                                                                                     length: Int)? {
        #if _endian(little)
        guard let base = bytes.baseAddress, quote + 17 < bytes.count else { return nil }
        let raw = UnsafeRawPointer(base + quote + 1)
        let first = raw.loadUnaligned(as: UInt64.self)
        let second = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        let length: Int
        if let end = plainRunStop(first) {
            length = end
        } else if let end = plainRunStop(second) {
            length = 8 + end
        } else {
            return nil
        }
        guard raw.load(fromByteOffset: length, as: UInt8.self) == UInt8(ascii: "\"") else { return nil }
        @inline(__always) func low(_ word: UInt64, _ bytes: Int) -> UInt64 {
            bytes >= 8 ? word : bytes <= 0 ? 0 : word & (1 &<< (8 &* UInt64(bytes)) &- 1)
        }
        return ((low(first, length), low(second, length - 8)), length)
        #else
        return nil
        #endif
    }

    /// The position in the eight bytes of `word` (in memory order, little-endian) of the first
    /// that stops a plain run, if one does (`plainRun`).
    @inline(__always)
    static func plainRunStop(_ word: UInt64, nonASCII: Bool = false) -> Int? {
        let v = UInt64(littleEndian: word)
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func below(_ v: UInt64, _ n: UInt64) -> UInt64 { (v &- ones &* n) & ~v & highs }
        let stop = (nonASCII ? 0 : v & highs) | below(v ^ (ones &* 0x22), 1) | below(v ^ (ones &* 0x5C), 1)
            | below(v, 0x20)
        return stop == 0 ? nil : stop.trailingZeroBitCount >> 3
    }

    /// A string's UTF-8 bytes, escapes resolved: a range of the input when it has no escape.
    mutating func stringBytes() throws(JSONSyntaxError) -> StringBytes {
        let quote = index
        index += 1
        var i = index
        if let base = bytes.baseAddress { i = JSONScanner.plainRun(base, from: i, to: bytes.count, nonASCII: false) }
        if i < bytes.count, bytes[i] == UInt8(ascii: "\"") {
            let run = index..<i
            index = i + 1
            return .range(run)
        }
        var out: [UInt8] = Array(bytes[index..<i])
        index = i
        while true {
            guard index < bytes.count else { throw error("unterminated string", at: quote) }
            let b = bytes[index]
            switch b {
            case UInt8(ascii: "\""):
                index += 1
                return .decoded(out)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("unterminated string", at: quote) }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                              bytes[index + 1] == UInt8(ascii: "u")
                        else { throw error("unpaired surrogate in \\u escape") }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw error("unpaired surrogate in \\u escape")
                    }
                    out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
                default:
                    throw error("invalid escape `\\\(Character(Unicode.Scalar(e)))`", at: index - 2)
                }
            default:
                if b < 0x20 { throw error("control character in string (escape it)") }
                if b >= 0x80 {
                    let length = try utf8SequenceLength(at: index)
                    out.append(contentsOf: bytes[index..<(index + length)])
                    index += length
                } else {
                    out.append(b)
                    index += 1
                }
            }
        }
    }

    mutating func string() throws(JSONSyntaxError) -> String {
        text(try stringBytes())
    }

    /// Checks and skips any value.
    mutating func skipValue() throws(JSONSyntaxError) {
        guard let b = peek() else { throw error("unexpected end of input, expected a value") }
        switch b {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // An object's members are a key, `:` and a value; an array's items are values.
            let isObject = b == UInt8(ascii: "{")
            let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
            try enter()
            index += 1
            if peek() == close {
                index += 1
            } else {
                repeat {
                    if isObject {
                        guard peek() == UInt8(ascii: "\"") else { throw unexpected(expected: "a string key") }
                        _ = try stringBytes()
                        try expect(UInt8(ascii: ":"), "`:` after the key")
                    }
                    try skipValue()
                } while try more(closing: close, isObject ? "}" : "]")
            }
            leave()
        case UInt8(ascii: "\""): _ = try stringBytes()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try numberToken()
        default: throw unexpected(expected: "a value")
        }
    }

    /// Fails unless only whitespace follows.
    mutating func end() throws(JSONSyntaxError) {
        if peek() != nil { throw error("unexpected \(describeCurrent()) after the JSON value") }
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("incomplete \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let d: UInt32
            switch b {
            case 0x30...0x39: d = UInt32(b - 0x30)
            case 0x61...0x66: d = UInt32(b - 0x61 + 10)
            case 0x41...0x46: d = UInt32(b - 0x41 + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            v = v << 4 | d
            index += 1
        }
        return v
    }

    private func utf8SequenceLength(at i: Int) throws(JSONSyntaxError) -> Int {
        guard let length = UTF8Validation.sequenceLength(bytes, at: i) else {
            throw error("invalid UTF-8 in string", at: i)
        }
        return length
    }
}
