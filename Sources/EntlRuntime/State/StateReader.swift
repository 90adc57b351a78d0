import EntlSupport

/// The streaming docs/state.md decoder: walks the JSON with a `JSONScanner`, matching keys as bytes
/// and building only the state's own values.
struct StateReader {
    var s: JSONScanner
    /// Keys of the objects being read (for duplicate detection), one run per open object.
    var keys: [JSONScanner.StringBytes] = []
    /// Unknown keys, in document order.
    var warnings: [StateError] = []

    let options: StateDecodingOptions
    var limits: StateLimits { options.limits }
    let names: StateNames?

    init(_ scanner: JSONScanner, options: StateDecodingOptions) {
        s = scanner
        self.options = options
        names = options.names
    }

    /// Runs a scanner step, turning a JSON syntax error into a located decode error.
    @inline(__always)
    mutating func scan<T>(_ body: (inout JSONScanner) throws -> T) throws(DecodeError) -> T {
        do {
            return try body(&s)
        } catch let error as JSONSyntaxError {
            throw .syntax(error)
        } catch {
            throw DecodeError(path: "", message: "\(error)")
        }
    }

    /// The error for a value of the wrong type at the cursor: "expected WHAT, found a number",
    /// or the syntax error when what stands there is not valid JSON at all (`tru`, `not json`,
    /// an unclosed object): a value is classified only once it is known to be one.
    mutating func mismatch(_ expected: String) -> DecodeError {
        var probe = s
        do {
            try probe.skipValue()
        } catch {
            return .syntax(error)
        }
        let found: String
        switch s.peek() {
        case UInt8(ascii: "\"")?: found = "a string"
        case UInt8(ascii: "{")?: found = "an object"
        case UInt8(ascii: "[")?: found = "an array"
        case UInt8(ascii: "t")?, UInt8(ascii: "f")?: found = "a boolean"
        case UInt8(ascii: "n")?: found = "null"
        case let b? where b == UInt8(ascii: "-") || (b >= 0x30 && b <= 0x39): found = "a number"
        case nil: return .syntax(s, "unexpected end of input, expected a value")
        default: return .syntax(s.unexpected(expected: "a value"))
        }
        return DecodeError(path: "", message: "expected \(expected), found \(found)")
    }

    /// Consumes `null` when it is next (null reads as absent); whitespace before the value is then
    /// skipped, and what stands there is `s.current`.
    @inline(__always)
    mutating func null() throws(DecodeError) -> Bool {
        guard s.peek() == UInt8(ascii: "n") else { return false }
        try scan { try $0.literal("null") }
        return true
    }

    /// Calls `body` for each member of the object at the cursor with the index of its key in
    /// `known` (nil for any other key) and the key's bytes, and rejects duplicate keys (known ones
    /// by a bit each, others by comparing them); errors from `body` are placed under the key.
    mutating func members(
        _ known: KeySet, _ body: (inout StateReader, Int?, JSONScanner.StringBytes) throws(DecodeError) -> Void
    ) throws(DecodeError)
    {
        guard s.peek() == UInt8(ascii: "{") else { throw mismatch("an object") }
        try scan { try $0.enter() }
        s.index += 1
        let base = keys.count
        defer { if keys.count > base { keys.removeSubrange(base...) } }
        var seen: UInt64 = 0
        if s.peek() == UInt8(ascii: "}") {
            s.index += 1
        } else {
            repeat {
                guard s.peek() == UInt8(ascii: "\"") else {
                    throw .syntax(s.unexpected(expected: "a string key"))
                }
                let key: JSONScanner.StringBytes
                let index: Int?
                if let (found, length) = known.match(at: s.index, in: s.bytes) {
                    key = .range(s.index + 1..<s.index + 1 + length)
                    index = found
                    s.index += length + 2
                } else {
                    key = try scan { try $0.stringBytes() }
                    index = known.index(key, in: s)
                }
                if let index {
                    if seen & (1 &<< index) != 0 { throw duplicate(key) }
                    seen |= 1 &<< index
                } else {
                    for other in keys[base...] where s.equal(other, key) { throw duplicate(key) }
                    keys.append(key)
                }
                try scan { try $0.expect(UInt8(ascii: ":"), "`:` after the key") }
                do {
                    try body(&self, index, key)
                } catch {
                    throw error.under(s.text(key))
                }
            } while try scan({ try $0.more(closing: UInt8(ascii: "}"), "}") })
        }
        s.leave()
    }

    func duplicate(_ key: JSONScanner.StringBytes) -> DecodeError {
        DecodeError(path: s.text(key), message: "duplicate key \"\(s.text(key))\"")
    }

    /// An unknown key: its value is skipped (it must still be valid JSON) and the key is a
    /// warning at `place` (the enclosing object's path), with the closest of `known` — or, in
    /// strict mode, an error.
    mutating func unknown(_ key: JSONScanner.StringBytes, place: () -> String, known: [String]) throws(DecodeError) {
        let name = s.text(key)
        let message = "unknown key" + (StateReader.suggestion(name, known).map { " (did you mean `\($0)`?)" } ?? "")
        if options.strict { throw DecodeError(path: "", message: message) }
        try skip()
        let prefix = place()
        warnings.append(StateError(path: prefix.isEmpty ? name : prefix + "." + name, message: message))
    }

    /// The known key a misspelled one most likely meant: one that differs only in case (`Now`),
    /// the closest spelling within two edits, ties going to the longer common start (`state` →
    /// `status`, not `store`), or one it is the start or the end of (`expires` → `expires_at`).
    static func suggestion(_ key: String, _ known: [String]) -> String? {
        if let same = known.first(where: { $0.lowercased() == key.lowercased() }) { return same }
        let limit = max(2, key.utf8.count / 3)
        let ranked = known.compactMap { k in Suggestions.distance(key, k, limit: limit).map { (k, $0) } }.min { a, b in
            a.1 != b.1 ? a.1 < b.1 : commonPrefix(key, a.0) > commonPrefix(key, b.0)
        }
        if let best = ranked { return best.0 }
        guard key.utf8.count >= 3 else { return nil }
        return known.first { $0.hasPrefix(key) || key.hasPrefix($0) || $0.hasSuffix(key) }
    }

    private static func commonPrefix(_ a: String, _ b: String) -> Int {
        zip(a.utf8, b.utf8).prefix { $0 == $1 }.count
    }

    /// Calls `body` with each element's index for each element of the array at the cursor (or
    /// nothing for `null`); errors from `body` are placed under the element's index.
    mutating func elements(limit: Int, _ noun: String, _ body: (inout StateReader, Int) throws(DecodeError) -> Void)
        throws(DecodeError)
    {
        if try null() { return }
        guard s.current == UInt8(ascii: "[") else { throw mismatch("an array") }
        try scan { try $0.enter() }
        s.index += 1
        var count = 0
        if s.peek() == UInt8(ascii: "]") {
            s.index += 1
        } else {
            repeat {
                guard count < limit else {
                    throw DecodeError(path: "", message: "more than \(limit) \(noun), the most a state may hold")
                }
                do {
                    try body(&self, count)
                } catch {
                    throw error.under("[\(count)]")
                }
                count += 1
            } while try scan({ try $0.more(closing: UInt8(ascii: "]"), "]") })
        }
        s.leave()
    }

    mutating func skip() throws(DecodeError) {
        try scan { try $0.skipValue() }
    }

    mutating func string() throws(DecodeError) -> String? {
        if try null() { return nil }
        guard s.current == UInt8(ascii: "\"") else { throw mismatch("a string") }
        if let names, let (words, length) = JSONScanner.shortString(at: s.index, in: s.bytes),
           let name = names.name(words, length: length) {
            s.index += length + 2
            return name
        }
        return try scan { try $0.string() }
    }

    mutating func bool() throws(DecodeError) -> Bool? {
        if try null() { return nil }
        switch s.current {
        case UInt8(ascii: "t")?:
            try scan { try $0.literal("true") }
            return true
        case UInt8(ascii: "f")?:
            try scan { try $0.literal("false") }
            return false
        default:
            throw mismatch("true or false")
        }
    }

    mutating func instant() throws(DecodeError) -> Instant? {
        if try null() { return nil }
        guard s.current == UInt8(ascii: "\"") else { throw mismatch("a string") }
        if let instant = s.wholeSecondsInstant() { return instant }
        let text = try scan { try $0.stringBytes() }
        guard let instant = s.withBytes(text, Instant.parse(rfc3339:)) else {
            let written = s.text(text)
            throw DecodeError(path: "", message: "\"\(written)\" \(Instant.rejection(of: written))")
        }
        return instant
    }

    /// An integer amount in 0 … 10^15 (a `total`, a sum of amounts in a compacted state's ledger: in
    /// 0 … 2^63 - 1). A number with no fraction is that integer however it is written (`5`, `5.0`,
    /// `5e0`, `0.5e1`), as JSON Schema reads it; a fraction is an error.
    mutating func amount(total: Bool = false) throws(DecodeError) -> Int64? {
        if try null() { return nil }
        guard let b = s.current, b == UInt8(ascii: "-") || (b >= 0x30 && b <= 0x39) else {
            throw mismatch("an integer")
        }
        let range = try scan { try $0.numberToken() }
        let token = UnsafeBufferPointer(rebasing: s.bytes[range])
        // The common form, plain digits (a valid token has no leading zero): at most 16 of them
        // are below 2^63 and need no other check but the bound of a single amount.
        if token.count <= 16, token.allSatisfy({ $0 &- 0x30 <= 9 }) {
            let value = token.reduce(Int64(0)) { $0 &* 10 &+ Int64($1 &- 0x30) }
            if total || value <= 1_000_000_000_000_000 { return value }
        }
        // Quoted in a message: a number of thousands of digits shows its first 40 and its length.
        let raw = {
            token.count <= 48 ? String(decoding: token, as: UTF8.self)
                : String(decoding: token.prefix(40), as: UTF8.self) + "… (\(token.count) characters)"
        }
        let (negative, digits, exponent) = Self.decimal(token)
        if digits.isEmpty { return 0 }
        if negative { throw DecodeError(path: "", message: "\(raw()) is negative") }
        guard exponent >= 0 else { throw DecodeError(path: "", message: "\(raw()) is not a whole number") }
        if total {
            var value: Int64 = 0
            for d in digits + [UInt8](repeating: 0x30, count: min(exponent, 20)) {
                let (times, o1) = value.multipliedReportingOverflow(by: 10)
                let (next, o2) = times.addingReportingOverflow(Int64(d - 0x30))
                guard !o1, !o2 else { throw DecodeError(path: "", message: "\(raw()) is larger than 2^63 - 1") }
                value = next
            }
            return value
        }
        guard digits.count + exponent <= 16 else {
            throw DecodeError(path: "", message: "\(raw()) is larger than 10^15")
        }
        var value: Int64 = 0
        for d in digits { value = value * 10 + Int64(d - 0x30) }
        for _ in 0..<exponent { value *= 10 }
        guard value <= 1_000_000_000_000_000 else {
            throw DecodeError(path: "", message: "\(raw()) is larger than 10^15")
        }
        return value
    }

    /// A JSON number token as sign, significant digits (no leading or trailing zeros: empty for
    /// zero) and a power of ten (kept within a million or so: far past 10^15 either way).
    static func decimal(_ token: UnsafeBufferPointer<UInt8>) -> (negative: Bool, digits: [UInt8], exponent: Int) {
        var i = 0
        let negative = token.first == UInt8(ascii: "-")
        if negative { i += 1 }
        var digits: [UInt8] = []
        var exponent = 0
        while i < token.count, token[i] >= 0x30, token[i] <= 0x39 { digits.append(token[i]); i += 1 }
        if i < token.count, token[i] == UInt8(ascii: ".") {
            i += 1
            while i < token.count, token[i] >= 0x30, token[i] <= 0x39 { digits.append(token[i]); exponent -= 1; i += 1 }
        }
        if i < token.count, token[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            var sign = 1
            if i < token.count, token[i] == UInt8(ascii: "-") || token[i] == UInt8(ascii: "+") {
                if token[i] == UInt8(ascii: "-") { sign = -1 }
                i += 1
            }
            var e = 0
            while i < token.count, token[i] >= 0x30, token[i] <= 0x39 {
                // Past 2^40 the number is zero, a fraction or far beyond 10^15 anyway: no token has
                // that many digits to make up for it (a million was not enough: `3` and 12 million
                // zeros `e-12000000` is 3, a review).
                if e < 1 << 40 { e = e * 10 + Int(token[i] - 0x30) }
                i += 1
            }
            exponent += sign * e
        }
        let first = digits.firstIndex { $0 != 0x30 } ?? digits.count
        digits.removeFirst(first)
        while let last = digits.last, last == 0x30 {
            digits.removeLast()
            exponent += 1
        }
        return (negative, digits, exponent)
    }

    /// One of an enumeration's raw values, matched as bytes (no String is made).
    mutating func choice<T>(_ spellings: Spellings<T>, noun: String) throws(DecodeError) -> T? {
        if try null() { return nil }
        guard s.current == UInt8(ascii: "\"") else { throw mismatch("a string") }
        if let (found, length) = spellings.keys.match(at: s.index, in: s.bytes), let found {
            s.index += length + 2
            return spellings.values[found]
        }
        let text = try scan { try $0.stringBytes() }
        guard let v = spellings.keys.index(text, in: s).map({ spellings.values[$0] }) else {
            let options = spellings.keys.names.joined(separator: ", ")
            throw DecodeError(path: "", message: "unknown \(noun) \"\(s.text(text))\" (expected one of: \(options))")
        }
        return v
    }
}
