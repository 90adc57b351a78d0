import EntlRuntime

/// A place in a JSON document, built as a reader descends and rendered only for messages:
/// `subscriber.subscriptions["com.example.pro"].expires_date`, `data[0].lastTransactions[1]`.
struct JSONPath: Sendable {
    enum Component: Sendable {
        case key(String)
        case index(Int)
    }

    var components: [Component] = []

    func appending(_ component: Component) -> JSONPath {
        var path = self
        path.components.append(component)
        return path
    }

    var description: String {
        var out = ""
        for component in components {
            switch component {
            case .index(let i):
                out += "[\(i)]"
            case .key(let key) where JSONPath.isPlain(key):
                out += out.isEmpty ? key : "." + key
            case .key(let key):
                out += "[" + JSONValue.string(key).compact + "]"
            }
        }
        return out
    }

    /// A key written bare in a path: letters, digits, `_`, `-` and `$` (RevenueCat's `$rc_annual`).
    private static func isPlain(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || b == 0x5F || b == 0x2D || b == 0x24
        }
    }
}

/// How a vendor writes instants.
enum InstantEncoding {
    /// RFC 3339 text (RevenueCat, Google Play subscriptions).
    case rfc3339
    /// Milliseconds since 1970 (the App Store; Google Play's `purchaseTimeMillis`, as a string),
    /// from 2001 on (`Node.earliestMillisecond`: seconds given for milliseconds are refused).
    case milliseconds
    /// Milliseconds since 1970 that only order two reports (the App Store's `signedDate`).
    case orderingMilliseconds
    /// Seconds since 1970 (Stripe).
    case seconds
}

/// A value of a vendor payload with its place: every accessor checks the type and throws a
/// located `ImportIssue` instead of guessing.
struct Node {
    let value: JSONValue
    let path: JSONPath
    let document: String

    init(_ value: JSONValue, path: JSONPath = JSONPath(), document: String) {
        self.value = value
        self.path = path
        self.document = document
    }

    var place: ImportPlace { ImportPlace(document: document, path: path.description) }

    /// A parsed document, or a JWS payload, at `path`: refused when an object in it has a key
    /// twice. A vendor writes each key once; reading either would be a guess (`"refunded_at"`
    /// given, then null, would read as no refund).
    static func document(_ value: JSONValue, path: JSONPath = JSONPath(),
                         document: String) throws(ImportIssue) -> Node {
        if let (place, key) = firstRepeatedKey(in: value, at: path) {
            throw ImportIssue(place: ImportPlace(document: document, path: place.description),
                              message: "duplicate key \(JSONValue.string(key).compact): which one holds is not known")
        }
        return Node(value, path: path, document: document)
    }

    /// The first key an object of `value` repeats, in document order, with its place.
    private static func firstRepeatedKey(in value: JSONValue, at path: JSONPath) -> (JSONPath, String)? {
        switch value {
        case .object(let members):
            var seen = Set<String>()
            for member in members {
                let place = path.appending(.key(member.key))
                guard seen.insert(member.key).inserted else { return (place, member.key) }
                if let repeated = firstRepeatedKey(in: member.value, at: place) { return repeated }
            }
        case .array(let items):
            for (i, item) in items.enumerated() {
                if let repeated = firstRepeatedKey(in: item, at: path.appending(.index(i))) { return repeated }
            }
        default:
            break
        }
        return nil
    }

    func issue(_ message: String) -> ImportIssue { ImportIssue(place: place, message: message) }

    /// The member `key` of an object; nil when the value is not an object, or the member is
    /// absent or null (vendors write null for "none").
    subscript(key: String) -> Node? {
        guard let member = value[key] else { return nil }
        if case .null = member { return nil }
        return Node(member, path: path.appending(.key(key)), document: document)
    }

    /// The member `key`, which must be there.
    func required(_ key: String) throws(ImportIssue) -> Node {
        guard let member = self[key] else { throw issue("missing \"\(key)\"") }
        return member
    }

    /// This value, checked to be an object.
    func object() throws(ImportIssue) -> Node {
        guard case .object = value else { throw mismatch("an object") }
        return self
    }

    /// The members of an object, in document order (null members left out).
    func members() throws(ImportIssue) -> [(key: String, node: Node)] {
        guard case .object(let members) = value else { throw mismatch("an object") }
        return members.compactMap { member in
            if case .null = member.value { return nil }
            return (member.key, Node(member.value, path: path.appending(.key(member.key)), document: document))
        }
    }

    /// The items of an array.
    func items() throws(ImportIssue) -> [Node] {
        guard case .array(let items) = value else { throw mismatch("an array") }
        return items.enumerated().map { Node($1, path: path.appending(.index($0)), document: document) }
    }

    func string() throws(ImportIssue) -> String {
        guard case .string(let text) = value else { throw mismatch("a string") }
        return text
    }

    /// A string that names something (a product id): not empty.
    func name() throws(ImportIssue) -> String {
        let text = try string()
        guard !text.isEmpty else { throw issue("an empty string where a name belongs") }
        return text
    }

    func bool() throws(ImportIssue) -> Bool {
        guard case .bool(let b) = value else { throw mismatch("true or false") }
        return b
    }

    /// A whole number; with `orString`, also one written as a string of digits (Google writes
    /// 64-bit integers as strings).
    func integer(orString: Bool = false) throws(ImportIssue) -> Int64 {
        let raw: String
        switch value {
        case .number(let text): raw = text
        case .int(let n): return n
        case .string(let text) where orString: raw = text
        default: throw mismatch(orString ? "a whole number (or a string of digits)" : "a whole number")
        }
        guard let n = Node.wholeNumber(raw) else {
            throw issue("\(value.compact) is not a whole number that fits in 64 bits")
        }
        return n
    }

    /// A count from 0 to 10^15 (quantities).
    func count() throws(ImportIssue) -> Int64 {
        let n = try integer(orString: true)
        guard n >= 0, n <= 1_000_000_000_000_000 else { throw issue("\(value.compact) is not a count from 0 to 10^15") }
        return n
    }

    /// 2001-09-09T01:46:40Z, in milliseconds since 1970: no store's purchase is older.
    static let earliestMillisecond: Int64 = 1_000_000_000_000

    /// An instant, written the vendor's way; one outside the years 1970 to 9999 is refused.
    func instant(_ encoding: InstantEncoding) throws(ImportIssue) -> Instant {
        switch encoding {
        case .rfc3339:
            let text = try string()
            guard let instant = Instant(rfc3339: text) else {
                throw issue("\(value.compact) is not an RFC 3339 instant")
            }
            return instant
        case .milliseconds, .orderingMilliseconds:
            let ms = try integer(orString: true)
            guard ms >= 0, ms <= Node.latestSecond * 1000 + 999 else {
                throw issue("\(value.compact) is out of range (milliseconds since 1970, up to the year 9999)")
            }
            // No store sold anything before 2001: seconds given for milliseconds would date a
            // purchase in 1970, before every `purchased before` a rule set names.
            guard ms >= Node.earliestMillisecond || encoding == .orderingMilliseconds else {
                let read = Instant(seconds: ms / 1000, nanoseconds: Int32(ms % 1000) * 1_000_000).rfc3339
                throw issue("\(value.compact) is \(read) read as milliseconds since 1970, before any store sold "
                            + "anything: seconds? (\(Instant(seconds: ms).rfc3339))")
            }
            return Instant(seconds: ms / 1000, nanoseconds: Int32(ms % 1000) * 1_000_000)
        case .seconds:
            let s = try integer()
            guard s >= 0, s <= Node.latestSecond else {
                throw issue("\(value.compact) is out of range (seconds since 1970, up to the year 9999)")
            }
            return Instant(seconds: s)
        }
    }

    /// One of a closed set of words (a status, an enumeration). A word entlc does not know is an
    /// error, never a guess: a status added by the vendor could mean anything for access.
    func word(_ noun: String, in allowed: [String]) throws(ImportIssue) -> String {
        let text = try string()
        guard allowed.contains(text) else {
            throw issue("unknown \(noun) \(value.compact) (expected one of: \(allowed.joined(separator: ", ")))")
        }
        return text
    }

    /// One of a closed set of numbers (Apple's and Google's numeric enumerations).
    func code(_ noun: String, in allowed: ClosedRange<Int64>) throws(ImportIssue) -> Int64 {
        let n = try integer()
        guard allowed.contains(n) else {
            throw issue("unknown \(noun) \(n) (expected \(allowed.lowerBound) to \(allowed.upperBound))")
        }
        return n
    }

    /// 9999-12-31T23:59:59Z: the last second an RFC 3339 instant can name.
    static let latestSecond: Int64 = 253_402_300_799

    /// "an object", "a string", …: what a value is, for messages.
    var kind: String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    private func mismatch(_ expected: String) -> ImportIssue { issue("expected \(expected), found \(kind)") }

    /// Digits with an optional minus sign (no fraction, no exponent), within `Int64`.
    static func wholeNumber(_ text: String) -> Int64? {
        var digits = Substring(text)
        let negative = digits.first == "-"
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var value: Int64 = 0
        for b in digits.utf8 {
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (plus, o2) = times.addingReportingOverflow(Int64(b - 0x30))
            guard !o1, !o2 else { return nil }
            value = plus
        }
        return negative ? -value : value
    }
}

/// `value ?? fallback()` for a fallback that throws an `ImportIssue` (`??` rethrows untyped).
func either<T>(_ value: T?, _ fallback: () throws(ImportIssue) -> T) throws(ImportIssue) -> T {
    if let value { return value }
    return try fallback()
}
