/// The JSON shapes of docs/cli.md, with fixed key order: identical inputs give byte-identical output.
///
/// Each shape is written once, against `JSONSink`, and rendered either as a `JSONValue` tree
/// (`json`, pretty printing, tools) or straight to compact bytes (`writeJSONLine`, the batch path).
public protocol JSONSink: ~Copyable {
    mutating func beginObject()
    mutating func endObject()
    mutating func beginArray()
    mutating func endArray()
    /// An object key: a literal that needs no escaping (the keys of docs/cli.md are plain ASCII).
    mutating func key(_ key: StaticString)
    mutating func string(_ value: String?)
    mutating func int(_ value: Int64?)
    mutating func bool(_ value: Bool)
    /// An RFC 3339 string, or null.
    mutating func instant(_ value: Instant?)
}

extension JSONSink where Self: ~Copyable {
    public mutating func instant(_ value: Instant?) { string(value?.rfc3339) }
}

/// Builds a `JSONValue`.
public struct JSONTree: JSONSink {
    private enum Open {
        case object([(key: String, value: JSONValue)], pendingKey: String?)
        case array([JSONValue])
    }

    private var open: [Open] = []
    public private(set) var value: JSONValue = .null

    public init() {}

    private mutating func add(_ v: JSONValue) {
        guard let last = open.popLast() else {
            value = v
            return
        }
        switch last {
        case .object(var members, let key):
            members.append((key ?? "", v))
            open.append(.object(members, pendingKey: nil))
        case .array(var items):
            items.append(v)
            open.append(.array(items))
        }
    }

    public mutating func beginObject() { open.append(.object([], pendingKey: nil)) }
    public mutating func beginArray() { open.append(.array([])) }

    public mutating func endObject() {
        if case .object(let members, _)? = open.popLast() { add(.object(members)) }
    }

    public mutating func endArray() {
        if case .array(let items)? = open.popLast() { add(.array(items)) }
    }

    public mutating func key(_ key: StaticString) {
        if case .object(let members, _)? = open.popLast() { open.append(.object(members, pendingKey: key.description)) }
    }

    public mutating func string(_ value: String?) { add(.string(value)) }
    public mutating func int(_ value: Int64?) { add(.int(value)) }
    public mutating func bool(_ value: Bool) { add(.bool(value)) }
}

/// Writes compact JSON bytes directly into a buffer of its own. It cannot be copied (so no write
/// checks whether the buffer is shared); it can hold many values, one per line (`endLine`).
public struct JSONBytes: ~Copyable, JSONSink {
    private var buffer: ByteBuffer
    /// Per open container, one bit (the lowest for the innermost): whether a value was written,
    /// so the next one needs a comma. Bits pushed out past 64 levels wait in `deeper`.
    private var filled: UInt64 = 0
    private var deeper: [Bool] = []
    private var depth = 0
    private var afterKey = false

    public init(bytes: [UInt8] = [], capacity: Int = 512) {
        buffer = ByteBuffer(capacity: bytes.count + capacity)
        bytes.withUnsafeBytes { buffer.write($0) }
    }

    /// The bytes written so far.
    public var bytes: [UInt8] { Array(buffer.bytes) }

    /// Calls `body` with the bytes written so far, without copying them.
    public func withBytes<T>(_ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        try withExtendedLifetime(buffer) { try body(buffer.bytes) }
    }

    /// The number of bytes written so far.
    public var count: Int { buffer.count }

    /// Forgets what was written, keeping the buffer.
    public mutating func removeAll() {
        buffer.removeAll()
        filled = 0
        deeper = []
        depth = 0
        afterKey = false
    }

    /// Ends a line of JSON Lines after a whole value: a newline, and the next value starts the next
    /// line (without a comma before it).
    public mutating func endLine() {
        buffer.write(UInt8(ascii: "\n"))
        filled = 0
        afterKey = false
    }

    /// Writes the separator before a value.
    @inline(__always)
    private mutating func separate() {
        if afterKey {
            afterKey = false
        } else {
            if filled & 1 != 0 { buffer.write(UInt8(ascii: ",")) }
            filled |= 1
        }
    }

    private mutating func open(_ byte: UInt8) {
        separate()
        buffer.write(byte)
        if depth >= 63 { deeper.append(filled >> 63 != 0) }
        depth += 1
        filled <<= 1
    }

    private mutating func close(_ byte: UInt8) {
        depth -= 1
        filled >>= 1
        if depth >= 63, let outer = deeper.popLast(), outer { filled |= 1 << 63 }
        buffer.write(byte)
    }

    public mutating func beginObject() { open(UInt8(ascii: "{")) }
    public mutating func endObject() { close(UInt8(ascii: "}")) }
    public mutating func beginArray() { open(UInt8(ascii: "[")) }
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    @inline(__always)  // the key's length is then a constant, and so is the way it is copied
    public mutating func key(_ key: StaticString) {
        buffer.writeKey(key, comma: filled & 1 != 0)
        filled |= 1
        afterKey = true
    }

    public mutating func string(_ value: String?) {
        separate()
        if let value { JSONValue.writeString(value, to: &buffer) } else { buffer.write("null") }
    }

    public mutating func int(_ value: Int64?) {
        separate()
        if let value { JSONValue.writeInteger(value, to: &buffer) } else { buffer.write("null") }
    }

    @inline(__always)
    public mutating func bool(_ value: Bool) {
        separate()
        buffer.write(value ? "true" : "false")
    }

    public mutating func instant(_ value: Instant?) {
        separate()
        guard let value else { return buffer.write("null") }
        buffer.write(UInt8(ascii: "\""))
        value.writeRFC3339(to: &buffer)
        buffer.write(UInt8(ascii: "\""))
    }
}

extension Evaluation {
    /// `{"at", "environment", "customer", "warnings"?, "results": [...]}`; `warnings` (the state's
    /// unknown keys, and what the rule set cannot make sense of) only when there are some.
    /// `warnings`: the evaluation's (`self.warnings`), when the caller has them already.
    public func encode<S: JSONSink & ~Copyable>(_ results: [EvaluationResult], warnings: [StateError]? = nil,
                                                to s: inout S) {
        s.beginObject()
        s.key("at")
        s.instant(at)
        s.key("environment")
        s.string(environment.rawValue)
        s.key("customer")
        s.string(state.customer)
        let warnings = warnings ?? self.warnings
        if !warnings.isEmpty {
            s.key("warnings")
            s.beginArray()
            for w in warnings { s.string(w.description) }
            s.endArray()
        }
        s.key("results")
        s.beginArray()
        for r in results { r.encode(to: &s) }
        s.endArray()
        s.endObject()
    }

    public func json(_ results: [EvaluationResult]) -> JSONValue {
        var tree = JSONTree()
        encode(results, to: &tree)
        return tree.value
    }

    /// The compact JSON of `results` appended to `bytes`.
    public func writeJSONLine(_ results: [EvaluationResult], into bytes: inout [UInt8]) {
        var sink = JSONBytes()
        encode(results, to: &sink)
        sink.withBytes { bytes.append(contentsOf: $0) }
    }

    /// The compact JSON of `results` and a newline, written to `sink` (the batch path: no
    /// intermediate tree, no copy).
    public func writeJSONLine(_ results: [EvaluationResult], warnings: [StateError]? = nil,
                              into sink: inout JSONBytes) {
        encode(results, warnings: warnings, to: &sink)
        sink.endLine()
    }
}

extension EvaluationResult {
    public func encode<S: JSONSink & ~Copyable>(to s: inout S) {
        switch self {
        case .product(let r): r.encode(to: &s)
        case .entitlement(let r): r.encode(to: &s)
        case .feature(let r): r.encode(to: &s)
        }
    }

    public var json: JSONValue {
        var tree = JSONTree()
        encode(to: &tree)
        return tree.value
    }
}

extension JSONSink where Self: ~Copyable {
    fileprivate mutating func unlockedBy(_ products: [String]?) {
        key("unlocked_by")
        guard let products else { return string(nil) }
        beginArray()
        for p in products { string(p) }
        endArray()
    }

    fileprivate mutating func explanation(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        key("explanation")
        beginArray()
        for l in lines { string(l) }
        endArray()
    }
}

extension ProductResult {
    public func encode<S: JSONSink & ~Copyable>(to s: inout S) {
        s.beginObject()
        s.key("kind"); s.string("product")
        s.key("name"); s.string(name)
        s.key("decision"); s.string(decision.rawValue)
        s.key("allowed"); s.bool(allowed)
        s.key("quantity"); s.int(quantity)
        s.key("valid_until"); s.instant(validUntil)
        s.key("reason"); s.string(reason)
        s.explanation(explanation)
        s.endObject()
    }

    public var json: JSONValue { EvaluationResult.product(self).json }
}

extension EntitlementResult {
    public func encode<S: JSONSink & ~Copyable>(to s: inout S) {
        s.beginObject()
        s.key("kind"); s.string("entitlement")
        s.key("name"); s.string(name)
        s.key("decision"); s.string(decision.rawValue)
        s.key("allowed"); s.bool(allowed)
        s.key("is_active"); s.bool(isActive)
        s.key("status"); s.string(status.rawValue)
        s.key("product"); s.string(product)
        s.key("display_name"); s.string(displayName)
        s.key("store"); s.string(store)
        s.key("store_product_id"); s.string(storeProductID)
        s.key("expires_at"); s.instant(expiresAt)
        s.key("trial_end"); s.instant(trialEnd)
        s.key("will_renew"); s.bool(willRenew)
        s.key("in_grace_period"); s.bool(inGracePeriod)
        s.key("in_billing_retry"); s.bool(inBillingRetry)
        s.key("is_revoked"); s.bool(isRevoked)
        s.key("ownership"); s.string(ownership?.rawValue)
        s.key("period"); s.string(period)
        s.key("is_trial"); s.bool(isTrial)
        s.unlockedBy(unlockedBy)
        s.key("valid_until"); s.instant(validUntil)
        s.key("reason"); s.string(reason)
        s.explanation(explanation)
        s.endObject()
    }

    public var json: JSONValue { EvaluationResult.entitlement(self).json }
}

extension FeatureResult {
    /// "boolean", "metered" (single-use and continuous) or "credits".
    public var type: String {
        switch kind {
        case .boolean: "boolean"
        case .singleUse, .continuous: "metered"
        case .credits: "credits"
        }
    }

    public func encode<S: JSONSink & ~Copyable>(to s: inout S) {
        s.beginObject()
        s.key("kind"); s.string("feature")
        s.key("name"); s.string(name)
        s.key("display_name"); s.string(displayName)
        s.key("type"); s.string(type)
        s.key("decision"); s.string(decision.rawValue)
        s.key("allowed"); s.bool(allowed)
        if replayed { s.key("replayed"); s.bool(true) }
        s.key("required"); s.int(required)
        s.key("balance"); s.int(balance)
        s.key("unit"); s.string(unit)
        s.key("unlimited"); s.bool(unlimited)
        s.key("overage"); s.int(overage)
        s.key("via"); s.string(via?.rawValue)
        s.key("credit_system"); s.string(creditSystem)
        s.key("credits_required"); s.int(creditsRequired)
        s.key("credit_balance"); s.int(creditBalance)
        s.key("shortfall"); s.int(shortfall)
        s.unlockedBy(unlockedBy)
        s.key("valid_until"); s.instant(validUntil)
        s.key("reason"); s.string(reason)
        s.key("sources")
        s.beginArray()
        for source in sources { source.encode(to: &s) }
        s.endArray()
        s.explanation(explanation)
        s.endObject()
    }

    public var json: JSONValue { EvaluationResult.feature(self).json }
}

extension BalanceSource {
    public func encode<S: JSONSink & ~Copyable>(to s: inout S) {
        s.beginObject()
        s.key("grant"); s.string(grant)
        s.key("kind"); s.string(kind)
        s.key("product"); s.string(product)
        s.key("allowance"); s.int(allowance)
        s.key("carried"); s.int(carried)
        s.key("used"); s.int(used)
        s.key("remaining"); s.int(remaining)
        s.key("window_start"); s.instant(windowStart)
        s.key("resets_at"); s.instant(resetsAt)
        s.key("certain"); s.bool(certain)
        s.endObject()
    }

    public var json: JSONValue {
        var tree = JSONTree()
        encode(to: &tree)
        return tree.value
    }
}
