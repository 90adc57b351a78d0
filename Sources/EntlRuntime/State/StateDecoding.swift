import EntlSupport

/// A state that cannot be used (or, in `PurchaseState.warnings`, a key that was not understood),
/// with the place that says why:
/// `purchases[3].expires_at: "2026-13-01" is not an RFC 3339 instant`.
public struct StateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `purchases[3].expires_at`, or a `line:column` for JSON syntax errors, or empty.
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// How much one state may hold: a state beyond these is refused with a located error rather
/// than evaluated slowly (a server can lower them for untrusted input).
public struct StateLimits: Sendable, Equatable {
    public var purchases: Int
    public var usageRecords: Int

    public init(purchases: Int = 100_000, usageRecords: Int = 1_000_000) {
        self.purchases = purchases
        self.usageRecords = usageRecords
    }

    public static let `default` = StateLimits()
}

/// How a state is decoded.
public struct StateDecodingOptions: Sendable, Equatable {
    public var limits: StateLimits
    /// Unknown keys are errors instead of warnings: a misspelled `status` or `expires_at` would
    /// otherwise be skipped and could grant access.
    public var strict: Bool

    public init(limits: StateLimits = .default, strict: Bool = false) {
        self.limits = limits
        self.strict = strict
    }

    public static let `default` = StateDecodingOptions()
}

extension PurchaseState {
    /// Decodes state JSON (docs/state.md) in one pass, straight into the state (no intermediate
    /// tree): the batch hot path. Everything is checked, and the first problem in document order
    /// is thrown with its place. An unknown key (matched exactly, case-sensitive) is a warning in
    /// `warnings`, with the closest known key, or an error when `options.strict`.
    public init(json bytes: [UInt8], options: StateDecodingOptions = .default) throws(StateError) {
        try self.init(json: bytes[...], options: options)
    }

    /// Decodes state JSON from part of a buffer (a JSONL line) without copying it.
    public init(json bytes: ArraySlice<UInt8>, options: StateDecodingOptions = .default) throws(StateError) {
        self.init()
        try PurchaseState.read(bytes, options, into: &self)
    }

    /// Reads state JSON into `state`, an empty state (a state returned would be copied, twice).
    private static func read(_ bytes: ArraySlice<UInt8>, _ options: StateDecodingOptions, into state: inout PurchaseState)
        throws(StateError)
    {
        do {
            try JSONScanner.scan(bytes) { (scanner: inout JSONScanner) throws(DecodeError) in
                var reader = StateReader(scanner, options: options)
                try reader.read(into: &state)
            }
        } catch {
            throw StateError(path: error.path, message: error.message)
        }
    }

    public init(json bytes: [UInt8], limits: StateLimits) throws(StateError) {
        try self.init(json: bytes[...], options: StateDecodingOptions(limits: limits))
    }

    public init(json text: String, options: StateDecodingOptions = .default) throws(StateError) {
        try self.init(json: Array(text.utf8), options: options)
    }

    /// Decodes a parsed JSON value (the same rules as the bytes).
    public init(json value: JSONValue) throws(StateError) {
        var bytes: [UInt8] = []
        value.write(into: &bytes, indent: false, level: 0)
        try self.init(json: bytes)
    }
}

/// A problem found while decoding, with its path relative to the value being decoded. Each
/// enclosing object or array prefixes its key or index while the error unwinds, so paths cost
/// nothing unless something is wrong. Syntax errors carry `line:column` and are not prefixed.
private struct DecodeError: Error {
    var path: String
    var message: String
    var isSyntax = false

    /// `key` + `.child`, or `[3]` + `.child`, or `key` + `[3]…`.
    func under(_ segment: String) -> DecodeError {
        guard !isSyntax else { return self }
        var e = self
        e.path = path.isEmpty ? segment : path.hasPrefix("[") ? segment + path : segment + "." + path
        return e
    }

    static func syntax(_ s: JSONScanner, _ message: String) -> DecodeError {
        syntax(s.error(message))
    }

    /// `3:7: invalid JSON: unexpected `}`, expected a value`.
    static func syntax(_ e: JSONSyntaxError) -> DecodeError {
        DecodeError(path: "\(e.line):\(e.column)", message: "invalid JSON: " + e.message, isSyntax: true)
    }
}

/// The streaming docs/state.md decoder: walks the JSON with a `JSONScanner`, matching keys as bytes
/// and building only the state's own values.
private struct StateReader {
    var s: JSONScanner
    /// Keys of the objects being read (for duplicate detection), one run per open object.
    var keys: [JSONScanner.StringBytes] = []
    /// Unknown keys, in document order.
    var warnings: [StateError] = []

    let options: StateDecodingOptions
    var limits: StateLimits { options.limits }

    init(_ scanner: JSONScanner, options: StateDecodingOptions) {
        s = scanner
        self.options = options
    }

    /// Runs a scanner step, turning a JSON syntax error into a located decode error.
    @inline(__always)
    private mutating func scan<T>(_ body: (inout JSONScanner) throws -> T) throws(DecodeError) -> T {
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
    private mutating func mismatch(_ expected: String) -> DecodeError {
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

    /// Consumes `null` when it is next (null reads as absent).
    @inline(__always)
    private mutating func null() throws(DecodeError) -> Bool {
        guard s.peek() == UInt8(ascii: "n") else { return false }
        try scan { try $0.literal("null") }
        return true
    }

    /// Calls `body` for each member of the object at the cursor with the index of its key in
    /// `known` (nil for any other key) and the key's bytes, and rejects duplicate keys (known ones
    /// by a bit each, others by comparing them); errors from `body` are placed under the key.
    private mutating func members(
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

    private func duplicate(_ key: JSONScanner.StringBytes) -> DecodeError {
        DecodeError(path: s.text(key), message: "duplicate key \"\(s.text(key))\"")
    }

    /// The keys an object may have (at most 64, each at most 16 bytes), matched as bytes: the
    /// candidates of the key's length, each compared as two words.
    struct KeySet: Sendable {
        let names: [String]
        /// The keys as (index in `names`, their bytes as two zero-padded words), by length.
        private let entries: [(index: Int, words: (UInt64, UInt64))]
        /// `entries[starts[n] ..< starts[n + 1]]` are the keys of `n` bytes.
        private let starts: [Int]

        init(_ names: [String]) {
            precondition(names.count <= 64 && names.allSatisfy { $0.utf8.count <= 16 })
            self.names = names
            let sorted = names.indices.sorted { (names[$0].utf8.count, $0) < (names[$1].utf8.count, $1) }
            entries = sorted.map { i in Array(names[i].utf8).withUnsafeBufferPointer { (i, ByteBuffer.paddedWords($0.baseAddress, $0.count)) } }
            starts = (0...17).map { n in sorted.firstIndex { names[$0].utf8.count >= n } ?? sorted.count }
        }

        /// The index in `names` of a key read by `scanner`.
        @inline(__always)
        func index(_ key: JSONScanner.StringBytes, in scanner: JSONScanner) -> Int? {
            switch key {
            case .range(let r): index(UnsafeBufferPointer(rebasing: scanner.bytes[r]))
            case .decoded(let d): d.withUnsafeBufferPointer { index($0) }
            }
        }

        func index(_ key: UnsafeBufferPointer<UInt8>) -> Int? {
            guard key.count <= 16 else { return nil }
            return index(ByteBuffer.paddedWords(key.baseAddress, key.count), length: key.count)
        }

        @inline(__always)
        private func index(_ words: (UInt64, UInt64), length: Int) -> Int? {
            for e in starts[length]..<starts[length + 1] where entries[e].words == words { return entries[e].index }
            return nil
        }

        /// The common key, read straight from the bytes: with the cursor on its opening quote,
        /// a key of at most 15 bytes with no escape, ASCII, ends at the first byte of the next 16
        /// that stops a plain run, which is a quote. Then its index in `names` (nil for any other
        /// key) and its length, from the two words loaded to find that end (no string scanned and
        /// then matched); else nil (the key is read as any string is).
        @inline(__always)
        func match(at quote: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (index: Int?, length: Int)? {
            #if _endian(little)
            guard let base = bytes.baseAddress, quote + 17 < bytes.count else { return nil }
            let raw = UnsafeRawPointer(base + quote + 1)
            let first = raw.loadUnaligned(as: UInt64.self), second = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            let length: Int
            if let end = JSONScanner.plainRunStop(first) {
                length = end
            } else if let end = JSONScanner.plainRunStop(second) {
                length = 8 + end
            } else {
                return nil
            }
            guard raw.load(fromByteOffset: length, as: UInt8.self) == UInt8(ascii: "\"") else { return nil }
            @inline(__always) func low(_ word: UInt64, _ bytes: Int) -> UInt64 {
                bytes >= 8 ? word : bytes <= 0 ? 0 : word & (1 &<< (8 &* UInt64(bytes)) &- 1)
            }
            return (index((low(first, length), low(second, length - 8)), length: length), length)
            #else
            return nil
            #endif
        }
    }

    /// An unknown key: its value is skipped (it must still be valid JSON) and the key is a
    /// warning at `place` (the enclosing object's path), with the closest of `known` — or, in
    /// strict mode, an error.
    private mutating func unknown(_ key: JSONScanner.StringBytes, place: () -> String, known: [String]) throws(DecodeError) {
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

    static let stateKeys = KeySet(["customer", "customer_since", "now", "environment", "purchases", "usage", "overrides",
                                   "$schema"])
    static let purchaseKeys = KeySet(["product", "store", "status", "purchased_at", "period_start", "expires_at", "grace_until",
                                      "will_renew", "ownership", "quantity", "environment"])
    static let usageKeys = KeySet(["feature", "event", "amount", "level", "at", "id"])
    /// An object whose keys are names (overrides): none is known.
    static let noKeys = KeySet([])

    /// Calls `body` with each element's index for each element of the array at the cursor (or
    /// nothing for `null`); errors from `body` are placed under the element's index.
    private mutating func elements(limit: Int, _ noun: String, _ body: (inout StateReader, Int) throws(DecodeError) -> Void)
        throws(DecodeError)
    {
        if try null() { return }
        guard s.peek() == UInt8(ascii: "[") else { throw mismatch("an array") }
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

    private mutating func skip() throws(DecodeError) {
        try scan { try $0.skipValue() }
    }

    private mutating func string() throws(DecodeError) -> String? {
        if try null() { return nil }
        guard s.peek() == UInt8(ascii: "\"") else { throw mismatch("a string") }
        return try scan { try $0.string() }
    }

    private mutating func bool() throws(DecodeError) -> Bool? {
        if try null() { return nil }
        switch s.peek() {
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

    private mutating func instant() throws(DecodeError) -> Instant? {
        if try null() { return nil }
        guard s.peek() == UInt8(ascii: "\"") else { throw mismatch("a string") }
        // The common form, read in place: its 20 bytes, checked, are a plain JSON string.
        if s.index + 22 <= s.bytes.count, s.bytes[s.index + 21] == UInt8(ascii: "\""),
           let instant = Instant.parseWholeSecondsUTC(UnsafeBufferPointer(rebasing: s.bytes[(s.index + 1)..<(s.index + 21)])) {
            s.index += 22
            return instant
        }
        let text = try scan { try $0.stringBytes() }
        guard let instant = s.withBytes(text, Instant.parse(rfc3339:)) else {
            throw DecodeError(path: "", message: "\"\(s.text(text))\" is not an RFC 3339 instant")
        }
        return instant
    }

    /// An integer amount in 0 … 10^15. A number with no fraction is that integer however it is
    /// written (`5`, `5.0`, `5e0`, `0.5e1`), as JSON Schema reads it; a fraction is an error.
    private mutating func amount() throws(DecodeError) -> Int64? {
        if try null() { return nil }
        guard let b = s.peek(), b == UInt8(ascii: "-") || (b >= 0x30 && b <= 0x39) else { throw mismatch("an integer") }
        let range = try scan { try $0.numberToken() }
        let token = UnsafeBufferPointer(rebasing: s.bytes[range])
        let raw = { String(decoding: token, as: UTF8.self) }
        let (negative, digits, exponent) = Self.decimal(token)
        if digits.isEmpty { return 0 }
        if negative { throw DecodeError(path: "", message: "\(raw()) is negative") }
        guard exponent >= 0 else { throw DecodeError(path: "", message: "\(raw()) is not a whole number") }
        guard digits.count + exponent <= 16 else { throw DecodeError(path: "", message: "\(raw()) is larger than 10^15") }
        var value: Int64 = 0
        for d in digits { value = value * 10 + Int64(d - 0x30) }
        for _ in 0..<exponent { value *= 10 }
        guard value <= 1_000_000_000_000_000 else { throw DecodeError(path: "", message: "\(raw()) is larger than 10^15") }
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
                // Past a million the number is zero, a fraction or far beyond 10^15 anyway.
                if e < 1_000_000 { e = e * 10 + Int(token[i] - 0x30) }
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
    private mutating func choice<T>(_ spellings: Spellings<T>, noun: String) throws(DecodeError) -> T? {
        if try null() { return nil }
        guard s.peek() == UInt8(ascii: "\"") else { throw mismatch("a string") }
        let text = try scan { try $0.stringBytes() }
        guard let v = spellings.keys.index(text, in: s).map({ spellings.values[$0] }) else {
            let options = spellings.keys.names.joined(separator: ", ")
            throw DecodeError(path: "", message: "unknown \(noun) \"\(s.text(text))\" (expected one of: \(options))")
        }
        return v
    }

    /// An enumeration's raw values as a key set. They are ASCII without `K`, `;` or a backquote
    /// (the ASCII characters something else is canonically equal to), so matching bytes is
    /// matching strings.
    struct Spellings<T: Sendable>: Sendable {
        let keys: KeySet
        let values: [T]
    }

    static let statuses = Spellings<PurchaseStatus>()
    static let ownerships = Spellings<Ownership>()
    static let environments = Spellings<Environment>()
    static let overrides = Spellings<Override>()

    // MARK: - docs/state.md

    mutating func read(into state: inout PurchaseState) throws(DecodeError) {
        guard s.peek() != nil else { throw .syntax(s, "unexpected end of input, expected a value") }
        guard s.peek() == UInt8(ascii: "{") else {
            let e = mismatch("an object")
            if e.isSyntax { throw e }
            throw DecodeError(path: "", message: "the state must be a JSON object, found " + e.message.dropFirst("expected an object, found ".count))
        }
        try members(StateReader.stateKeys) { (r, known, key) throws(DecodeError) in
            switch known {
            case 0: state.customer = try r.string()
            case 1: state.customerSince = try r.instant()
            case 2: state.now = try r.instant()
            case 3: state.environment = try r.choice(StateReader.environments, noun: "environment")
            case 4:
                try r.elements(limit: r.limits.purchases, "purchases") { (r, i) throws(DecodeError) in
                    if i == 0 { state.purchases.reserveCapacity(8) }  // not grown 1, 2, 4, 8
                    state.purchases.append(StateReader.blankPurchase)
                    try r.purchase(i, into: &state.purchases[i])
                }
            case 5:
                try r.elements(limit: r.limits.usageRecords, "usage records") { (r, i) throws(DecodeError) in
                    if i == 0 { state.usage.reserveCapacity(8) }
                    state.usage.append(StateReader.blankUsage)
                    try r.usage(i, into: &state.usage[i])
                }
            case 6:
                if try r.null() { return }
                try r.members(StateReader.noKeys) { (r, _, key) throws(DecodeError) in
                    guard let value = try r.choice(StateReader.overrides, noun: "override") else { return }
                    state.setOverride(r.s.text(key), value)
                }
            case 7: _ = try r.string()  // `$schema`: where an editor finds the JSON Schema; nothing to evaluate
            default: try r.unknown(key, place: { "" }, known: StateReader.stateKeys.names)
            }
        }
        try scan { try $0.end() }
        state.warnings = warnings
    }

    /// What a purchase and a usage record are read into, appended to the state's arrays (copying
    /// a constant costs less than building a value and then copying it in, which is what appending
    /// a new value compiles to).
    static let blankPurchase = Purchase(product: "")
    static let blankUsage = UsageRecord(feature: "", kind: .amount(0))

    /// Reads a purchase into `p`, a blank purchase in its place in the state (a purchase read into
    /// a variable of its own would be copied into the array, and so would a returned one).
    private mutating func purchase(_ index: Int, into p: inout Purchase) throws(DecodeError) {
        var product: String?
        try members(StateReader.purchaseKeys) { (r, known, key) throws(DecodeError) in
            switch known {
            case 0: product = try r.string()
            case 1: p.store = try r.string()
            case 2: p.status = try r.choice(StateReader.statuses, noun: "status") ?? .active
            case 3: p.purchasedAt = try r.instant()
            case 4: p.periodStart = try r.instant()
            case 5: p.expiresAt = try r.instant()
            case 6: p.graceUntil = try r.instant()
            case 7: p.willRenew = try r.bool()
            case 8: p.ownership = try r.choice(StateReader.ownerships, noun: "ownership") ?? .purchased
            case 9: p.quantity = try r.amount() ?? 1
            case 10: p.environment = try r.choice(StateReader.environments, noun: "environment") ?? .live
            default: try r.unknown(key, place: { "purchases[\(index)]" }, known: StateReader.purchaseKeys.names)
            }
        }
        guard let product else { throw DecodeError(path: "", message: "missing \"product\"") }
        p.product = product
    }

    /// Reads a usage record into `u`, a blank record in its place in the state (as `purchase`).
    private mutating func usage(_ index: Int, into u: inout UsageRecord) throws(DecodeError) {
        var feature: String?, event: String?, id: String?
        var amount: Int64?, level: Int64?
        var at: Instant?
        try members(StateReader.usageKeys) { (r, known, key) throws(DecodeError) in
            switch known {
            case 0: feature = try r.string()
            case 1: event = try r.string()
            case 2: amount = try r.amount()
            case 3: level = try r.amount()
            case 4: at = try r.instant()
            case 5: id = try r.string()
            default: try r.unknown(key, place: { "usage[\(index)]" }, known: StateReader.usageKeys.names)
            }
        }
        let kind: UsageRecord.Kind
        switch (amount, level) {
        case (let a?, nil): kind = .amount(a)
        case (nil, let l?): kind = .level(l)
        case (_?, _?): throw DecodeError(path: "", message: "give \"amount\" or \"level\", not both")
        case (nil, nil): throw DecodeError(path: "", message: "missing \"amount\" (a use) or \"level\" (a continuous level)")
        }
        switch (feature, event) {
        case (let f?, nil): u.name = f
        case (nil, let e?):
            u.name = e
            u.isEvent = true
        case (_?, _?): throw DecodeError(path: "", message: "give \"feature\" or \"event\", not both")
        case (nil, nil): throw DecodeError(path: "", message: "missing \"feature\" (or \"event\")")
        }
        u.kind = kind
        u.at = at
        u.id = id
    }
}

extension StateReader.Spellings where T: RawRepresentable & CaseIterable, T.RawValue == String {
    init() {
        values = Array(T.allCases)
        keys = StateReader.KeySet(values.map(\.rawValue))
    }
}
