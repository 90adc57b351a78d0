/// What `Evaluation.writeJSONLine` writes one of.
protocol EncodableResult {
    /// Writes the result's docs/cli.md shape.
    func encode<S: JSONSink & ~Copyable>(to s: inout S)
    /// Writes the bytes `encode(to:)` writes to `s`, in runs (`ResultBytes.swift`: the batch path).
    func write(to s: inout JSONBytes)
}

/// The JSON shapes of docs/cli.md, with fixed key order: identical inputs give byte-identical output.
///
/// Each shape is written once, against `JSONSink`, and rendered either as a `JSONValue` tree
/// (`json`, pretty printing, tools) or straight to compact bytes (`writeJSONLine`, the batch path).
extension EvaluationResult: EncodableResult {
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

/// The parts several shapes share, inlined where each is written (most are a few fixed bytes and a
/// null or an empty array, which a call would cost more than).
extension JSONSink where Self: ~Copyable {
    /// What a product's and an entitlement's result end with.
    @inline(__always)
    fileprivate mutating func endResult(validUntil: Instant?, why: Reason, explanation: [String]) {
        field("valid_until", validUntil)
        key("reason"); reason(why)
        self.explanation(explanation)
        endObject()
    }

    /// What a product's and an entitlement's result begin with.
    @inline(__always)
    fileprivate mutating func beginResult(_ kind: StaticString, name: String, decision: Decision) {
        beginObject()
        field("kind", word: kind)
        field("name", name)
        field("decision", word: decision.word)
        field("allowed", decision == .allowed)
    }

    @inline(__always)
    fileprivate mutating func unlockedBy(_ products: [String]?) {
        guard let products else { return field("unlocked_by", nil as String?) }
        key("unlocked_by")
        beginArray()
        for p in products { string(p) }
        endArray()
    }

    @inline(__always)
    fileprivate mutating func explanation(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        key("explanation")
        beginArray()
        for l in lines { string(l) }
        endArray()
    }
}

extension ProductResult: EncodableResult {
    public func encode<S: JSONSink & ~Copyable>(to s: inout S) {
        s.beginResult("product", name: name, decision: decision)
        s.field("quantity", quantity)
        s.endResult(validUntil: validUntil, why: why, explanation: explanation)
    }

    public var json: JSONValue { EvaluationResult.product(self).json }
}

extension EntitlementResult: EncodableResult {
    public func encode<S: JSONSink & ~Copyable>(to s: inout S) {
        s.beginResult("entitlement", name: name, decision: decision)
        s.field("is_active", isActive)
        s.field("status", word: status.word)
        s.field("product", product)
        s.field("display_name", displayName)
        s.field("store", store)
        s.field("store_product_id", storeProductID)
        s.field("expires_at", expiresAt)
        s.field("trial_end", trialEnd)
        s.field("will_renew", willRenew)
        s.field("in_grace_period", inGracePeriod)
        s.field("in_billing_retry", inBillingRetry)
        s.field("is_revoked", isRevoked)
        s.field("ownership", ownership?.rawValue)
        s.field("period", period)
        s.field("is_trial", isTrial)
        s.unlockedBy(unlockedBy)
        s.endResult(validUntil: validUntil, why: why, explanation: explanation)
    }

    public var json: JSONValue { EvaluationResult.entitlement(self).json }
}

extension FeatureResult: EncodableResult {
    /// "boolean", "metered" (single-use and continuous) or "credits".
    public var type: String { typeWord.description }

    private var typeWord: StaticString {
        switch kind {
        case .boolean: "boolean"
        case .singleUse, .continuous: "metered"
        case .credits: "credits"
        }
    }

    public func encode<S: JSONSink & ~Copyable>(to s: inout S) {
        s.beginObject()
        s.field("kind", word: "feature")
        s.field("name", name)
        s.field("display_name", displayName)
        s.field("type", word: typeWord)
        s.field("decision", word: decision.word)
        s.field("allowed", allowed)
        if replayed { s.field("replayed", true) }
        s.field("required", required)
        s.field("balance", balance)
        s.field("unit", unit)
        s.field("unlimited", unlimited)
        s.field("overage", overage)
        s.field("overdrawn", overdrawn)
        s.field("via", via?.rawValue)
        s.field("credit_system", creditSystem)
        s.field("credits_required", creditsRequired)
        s.field("credit_balance", creditBalance)
        s.field("shortfall", shortfall)
        s.unlockedBy(unlockedBy)
        s.field("valid_until", validUntil)
        s.key("reason"); s.reason(why)
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
        s.field("grant", grant)
        s.field("kind", kind)
        s.field("product", product)
        s.field("allowance", allowance)
        s.field("carried", carried)
        s.field("used", used)
        s.field("remaining", remaining)
        s.field("overdrawn", overdrawn)
        s.field("overdraft_left", overdraftLeft)
        s.field("window_start", windowStart)
        s.field("resets_at", resetsAt)
        s.field("expires_at", expiresAt)
        s.field("certain", certain)
        if kind == "state" {
            s.field("id", id)
            s.field("reason", reason)
        }
        s.endObject()
    }

    public var json: JSONValue {
        var tree = JSONTree()
        encode(to: &tree)
        return tree.value
    }
}

extension JSONSink where Self: ~Copyable {
    /// A result's reason, written from its bytes (on the batch path no `String` is made).
    mutating func reason(_ why: Reason) { why.write(to: &self) }
}
