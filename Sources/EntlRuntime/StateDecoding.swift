/// A state that cannot be used, with the place that says why:
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

extension PurchaseState {
    /// Most purchases one state may hold.
    public static let maxPurchases = 100_000
    /// Most usage records one state may hold.
    public static let maxUsageRecords = 1_000_000

    /// Decodes STATE.md JSON. Unknown keys are ignored; everything else is checked, and the first
    /// problem is thrown with its place.
    public init(json bytes: [UInt8]) throws(StateError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw StateError(path: "\(error.line):\(error.column)", message: error.message)
        }
        try self.init(json: value)
    }

    public init(json text: String) throws(StateError) {
        try self.init(json: Array(text.utf8))
    }

    public init(json value: JSONValue) throws(StateError) {
        guard case .object = value else {
            throw StateError(path: "", message: "the state must be a JSON object, found \(describe(value))")
        }
        let root = try Fields(value, path: "")
        self.init()
        customer = try root.string("customer")
        now = try root.instant("now")
        environment = try root.choice("environment", Environment.self, noun: "environment")
        if let list = try root.array("purchases") {
            guard list.count <= PurchaseState.maxPurchases else {
                throw StateError(path: "purchases", message: "\(list.count) purchases; the limit is \(PurchaseState.maxPurchases)")
            }
            purchases.reserveCapacity(list.count)
            for (i, item) in list.enumerated() {
                purchases.append(try Purchase(json: item, path: "purchases[\(i)]"))
            }
        }
        if let list = try root.array("usage") {
            guard list.count <= PurchaseState.maxUsageRecords else {
                throw StateError(path: "usage", message: "\(list.count) usage records; the limit is \(PurchaseState.maxUsageRecords)")
            }
            usage.reserveCapacity(list.count)
            for (i, item) in list.enumerated() {
                usage.append(try UsageRecord(json: item, path: "usage[\(i)]"))
            }
        }
        if let value = root.value("overrides"), value != .null {
            let fields = try Fields(value, path: "overrides")
            for (key, _) in fields.members {
                guard let o = try fields.choice(key, Override.self, noun: "override") else { continue }
                setOverride(key, o)
            }
        }
    }
}

extension Purchase {
    init(json value: JSONValue, path: String) throws(StateError) {
        let f = try Fields(value, path: path)
        guard let product = try f.string("product") else { throw StateError(path: path, message: "missing \"product\"") }
        self.init(product: product)
        store = try f.string("store")
        status = try f.choice("status", PurchaseStatus.self, noun: "status") ?? .active
        purchasedAt = try f.instant("purchased_at")
        periodStart = try f.instant("period_start")
        expiresAt = try f.instant("expires_at")
        graceUntil = try f.instant("grace_until")
        willRenew = try f.bool("will_renew")
        ownership = try f.choice("ownership", Ownership.self, noun: "ownership") ?? .purchased
        quantity = try f.amount("quantity") ?? 1
        environment = try f.choice("environment", Environment.self, noun: "environment") ?? .live
    }
}

extension UsageRecord {
    init(json value: JSONValue, path: String) throws(StateError) {
        let f = try Fields(value, path: path)
        guard let feature = try f.string("feature") else { throw StateError(path: path, message: "missing \"feature\"") }
        let amount = try f.amount("amount"), level = try f.amount("level")
        let kind: Kind
        switch (amount, level) {
        case (let a?, nil): kind = .amount(a)
        case (nil, let l?): kind = .level(l)
        case (_?, _?): throw StateError(path: path, message: "give \"amount\" or \"level\", not both")
        case (nil, nil): throw StateError(path: path, message: "missing \"amount\" (a use) or \"level\" (a continuous level)")
        }
        self.init(feature: feature, kind: kind, at: try f.instant("at"))
    }
}

private func describe(_ v: JSONValue) -> String {
    switch v {
    case .null: "null"
    case .bool: "a boolean"
    case .int, .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
}

/// The members of one JSON object, read with their path; `null` reads as absent.
private struct Fields {
    let members: [(key: String, value: JSONValue)]
    let path: String

    init(_ value: JSONValue, path: String) throws(StateError) {
        guard case .object(let members) = value else {
            throw StateError(path: path, message: "expected an object, found \(describe(value))")
        }
        var seen: Set<String> = []
        for m in members where !seen.insert(m.key).inserted {
            throw StateError(path: sub(m.key, path), message: "duplicate key \"\(m.key)\"")
        }
        self.members = members
        self.path = path
    }

    func value(_ key: String) -> JSONValue? {
        members.first { $0.key == key }?.value
    }

    private func present(_ key: String) -> JSONValue? {
        guard let v = value(key), v != .null else { return nil }
        return v
    }

    func here(_ key: String) -> String { sub(key, path) }

    func string(_ key: String) throws(StateError) -> String? {
        guard let v = present(key) else { return nil }
        guard case .string(let s) = v else { throw StateError(path: here(key), message: "expected a string, found \(describe(v))") }
        return s
    }

    func bool(_ key: String) throws(StateError) -> Bool? {
        guard let v = present(key) else { return nil }
        guard case .bool(let b) = v else { throw StateError(path: here(key), message: "expected true or false, found \(describe(v))") }
        return b
    }

    func array(_ key: String) throws(StateError) -> [JSONValue]? {
        guard let v = present(key) else { return nil }
        guard case .array(let items) = v else { throw StateError(path: here(key), message: "expected an array, found \(describe(v))") }
        return items
    }

    func instant(_ key: String) throws(StateError) -> Instant? {
        guard let text = try string(key) else { return nil }
        guard let instant = Instant(rfc3339: text) else {
            throw StateError(path: here(key), message: "\"\(text)\" is not an RFC 3339 instant")
        }
        return instant
    }

    /// An integer amount in 0 … 10^15.
    func amount(_ key: String) throws(StateError) -> Int64? {
        guard let v = present(key) else { return nil }
        let raw: String
        switch v {
        case .number(let r): raw = r
        case .int(let n): raw = String(n)
        default: throw StateError(path: here(key), message: "expected an integer, found \(describe(v))")
        }
        let negative = raw.hasPrefix("-")
        let digits = negative ? raw.dropFirst() : raw[...]
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
            throw StateError(path: here(key), message: "\(raw) is not an integer")
        }
        if negative, digits.contains(where: { $0 != "0" }) {
            throw StateError(path: here(key), message: "\(raw) is negative")
        }
        let significant = digits.drop { $0 == "0" }
        guard significant.count <= 16, let n = Int64(significant.isEmpty ? "0" : String(significant)), n <= 1_000_000_000_000_000
        else { throw StateError(path: here(key), message: "\(raw) is larger than 10^15") }
        return n
    }

    func choice<T: RawRepresentable & CaseIterable>(_ key: String, _: T.Type, noun: String) throws(StateError) -> T?
    where T.RawValue == String {
        guard let text = try string(key) else { return nil }
        guard let v = T(rawValue: text) else {
            let options = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw StateError(path: here(key), message: "unknown \(noun) \"\(text)\" (expected one of: \(options))")
        }
        return v
    }
}

private func sub(_ key: String, _ path: String) -> String {
    path.isEmpty ? key : "\(path).\(key)"
}
