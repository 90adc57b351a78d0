/// What `Evaluation.writeJSONLine` writes one of.
protocol EncodableResult {
    /// Writes the result's docs/cli.md shape.
    func encode<S: JSONSink & ~Copyable>(to s: inout S)
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
        key("valid_until"); instant(validUntil)
        key("reason"); reason(why)
        self.explanation(explanation)
        endObject()
    }

    /// What a product's and an entitlement's result begin with.
    @inline(__always)
    fileprivate mutating func beginResult(_ kind: StaticString, name: String, decision: Decision) {
        beginObject()
        key("kind"); word(kind)
        key("name"); string(name)
        key("decision"); word(decision.word)
        key("allowed"); bool(decision == .allowed)
    }

    @inline(__always)
    fileprivate mutating func unlockedBy(_ products: [String]?) {
        key("unlocked_by")
        guard let products else { return string(nil) }
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
        s.key("quantity"); s.int(quantity)
        s.endResult(validUntil: validUntil, why: why, explanation: explanation)
    }

    public var json: JSONValue { EvaluationResult.product(self).json }
}

extension EntitlementResult: EncodableResult {
    public func encode<S: JSONSink & ~Copyable>(to s: inout S) {
        s.beginResult("entitlement", name: name, decision: decision)
        s.key("is_active"); s.bool(isActive)
        s.key("status"); s.word(status.word)
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
        s.key("kind"); s.word("feature")
        s.key("name"); s.string(name)
        s.key("display_name"); s.string(displayName)
        s.key("type"); s.word(typeWord)
        s.key("decision"); s.word(decision.word)
        s.key("allowed"); s.bool(allowed)
        if replayed { s.key("replayed"); s.bool(true) }
        s.key("required"); s.int(required)
        s.key("balance"); s.int(balance)
        s.key("unit"); s.string(unit)
        s.key("unlimited"); s.bool(unlimited)
        s.key("overage"); s.int(overage)
        s.key("overdrawn"); s.int(overdrawn)
        s.key("via"); s.string(via?.rawValue)
        s.key("credit_system"); s.string(creditSystem)
        s.key("credits_required"); s.int(creditsRequired)
        s.key("credit_balance"); s.int(creditBalance)
        s.key("shortfall"); s.int(shortfall)
        s.unlockedBy(unlockedBy)
        s.key("valid_until"); s.instant(validUntil)
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
        s.key("grant"); s.string(grant)
        s.key("kind"); s.string(kind)
        s.key("product"); s.string(product)
        s.key("allowance"); s.int(allowance)
        s.key("carried"); s.int(carried)
        s.key("used"); s.int(used)
        s.key("remaining"); s.int(remaining)
        s.key("overdrawn"); s.int(overdrawn)
        s.key("overdraft_left"); s.int(overdraftLeft)
        s.key("window_start"); s.instant(windowStart)
        s.key("resets_at"); s.instant(resetsAt)
        s.key("expires_at"); s.instant(expiresAt)
        s.key("certain"); s.bool(certain)
        if kind == "state" {
            s.key("id"); s.string(id)
            s.key("reason"); s.string(reason)
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
    mutating func reason(_ why: Reason) {
        guard let (graph, key) = why.key else { return why.withUTF8 { string(utf8: $0) } }
        if string(keptAs: key, of: graph) { return }
        why.withUTF8 { string(utf8: $0, keepingAs: key, of: graph) }
    }
}
