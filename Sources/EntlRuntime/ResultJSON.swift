/// The JSON shapes of CLI.md, with fixed key order: identical inputs give byte-identical output.
extension Evaluation {
    /// `{"at", "environment", "customer", "results": [...]}`.
    public func json(_ results: [EvaluationResult]) -> JSONValue {
        .object([
            ("at", .string(at.rfc3339)),
            ("environment", .string(environment.rawValue)),
            ("customer", .string(state.customer)),
            ("results", .array(results.map(\.json))),
        ])
    }
}

extension EvaluationResult {
    public var json: JSONValue {
        switch self {
        case .product(let r): r.json
        case .entitlement(let r): r.json
        case .feature(let r): r.json
        }
    }
}

private func instant(_ i: Instant?) -> JSONValue { .string(i?.rfc3339) }

private func withExplanation(_ members: [(key: String, value: JSONValue)], _ lines: [String]) -> JSONValue {
    .object(lines.isEmpty ? members : members + [("explanation", .array(lines.map(JSONValue.string)))])
}

extension ProductResult {
    public var json: JSONValue {
        withExplanation([
            ("kind", .string("product")), ("name", .string(name)), ("decision", .string(decision.rawValue)),
            ("allowed", .bool(allowed)), ("quantity", .int(quantity)), ("valid_until", instant(validUntil)),
            ("reason", .string(reason)),
        ], explanation)
    }
}

extension EntitlementResult {
    public var json: JSONValue {
        withExplanation([
            ("kind", .string("entitlement")), ("name", .string(name)), ("decision", .string(decision.rawValue)),
            ("allowed", .bool(allowed)), ("is_active", .bool(isActive)), ("product", .string(product)),
            ("store", .string(store)), ("expires_at", instant(expiresAt)), ("will_renew", .bool(willRenew)),
            ("in_grace_period", .bool(inGracePeriod)), ("in_billing_retry", .bool(inBillingRetry)),
            ("is_revoked", .bool(isRevoked)), ("ownership", .string(ownership?.rawValue)), ("period", .string(period)),
            ("is_trial", .bool(isTrial)), ("valid_until", instant(validUntil)), ("reason", .string(reason)),
        ], explanation)
    }
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

    public var json: JSONValue {
        withExplanation([
            ("kind", .string("feature")), ("name", .string(name)), ("type", .string(type)),
            ("decision", .string(decision.rawValue)), ("allowed", .bool(allowed)), ("required", .int(required)),
            ("balance", .int(balance)), ("unlimited", .bool(unlimited)), ("overage", .int(overage)),
            ("via", .string(via?.rawValue)), ("credit_system", .string(creditSystem)),
            ("credits_required", .int(creditsRequired)), ("credit_balance", .int(creditBalance)),
            ("valid_until", instant(validUntil)), ("reason", .string(reason)),
            ("sources", .array(sources.map(\.json))),
        ], explanation)
    }
}

extension BalanceSource {
    public var json: JSONValue {
        .object([
            ("grant", .string(grant)), ("kind", .string(kind)), ("product", .string(product)),
            ("allowance", .int(allowance)), ("carried", .int(carried)), ("used", .int(used)),
            ("remaining", .int(remaining)), ("window_start", instant(windowStart)), ("resets_at", instant(resetsAt)),
            ("certain", .bool(certain)),
        ])
    }
}
