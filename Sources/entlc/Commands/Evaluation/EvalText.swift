import EntlRuntime

/// The short, human text of `entlc eval` (docs/cli.md):
///
/// ```
/// api_calls: allowed — 8,800 of 10,000 calls left this month (1 needed)
///   via entitlement pro ← pro_monthly (active until 2026-12-05T09:00:00Z, renews)
///   valid until 2026-12-05T09:00:00Z
/// ```
enum EvalText {
    static func render(_ results: [EvaluationResult], evaluation: Evaluation, explain: Bool) -> String {
        var out = ""
        if explain {
            out += "evaluated at \(evaluation.at), environment \(evaluation.environment.rawValue)"
                + (evaluation.state.customer.map { ", customer \($0.withControlsEscaped)" } ?? "") + "\n"
            for line in evaluation.ignoredPurchases() { out += "  " + line.withControlsEscaped + "\n" }
        }
        for r in results {
            switch r {
            case .feature(let f): out += feature(f, evaluation)
            case .entitlement(let e): out += entitlement(e)
            case .product(let p): out += product(p)
            }
            if explain {
                for line in r.explanation { out += "  " + line.withControlsEscaped + "\n" }
            }
        }
        return out
    }

    static func validUntil(_ i: Instant?) -> String {
        i.map { "  valid until \($0)\n" } ?? ""
    }

    /// "  unlock with: pro_monthly, pro_annual", or that no single purchase would do.
    static func unlock(_ products: [String]?) -> String {
        guard let products else { return "" }
        return products.isEmpty ? "  no single purchase unlocks it\n"
            : "  unlock with: \(products.joined(separator: ", "))\n"
    }

    static func feature(_ f: FeatureResult, _ evaluation: Evaluation) -> String {
        let decision = f.decision.rawValue + (f.via.map { $0 == .direct ? "" : " via \($0.rawValue)" } ?? "")
        guard f.kind != .boolean else {
            return "\(f.name): \(decision) — \(f.reason.withControlsEscaped)\n" + unlock(f.unlockedBy)
                + validUntil(f.validUntil)
        }
        let feature = evaluation.graph.features[evaluation.graph.featureIndex[f.name]!]
        let certain = f.sources.filter(\.certain)
        var line = "\(f.name): \(decision) — "
        if f.unlimited {
            line += "unlimited \(feature.unit(2))"
        } else {
            let balance = f.balance ?? 0
            let total = certain.reduce(Int64(0)) {
                $0.addingSaturating(($1.allowance ?? 0).addingSaturating($1.carried))
            }
            let intervals = Set(certain.map { $0.interval?.noun ?? "" })
            let period = intervals.count == 1 && !(intervals.first ?? "").isEmpty ? " this \(intervals.first!)" : ""
            line += certain.isEmpty ? "\(feature.amount(balance)) left"
                : "\(balance.grouped) of \(feature.amount(total)) left\(period)"
            line += " (\((f.required ?? 1).grouped) needed)"
        }
        if let system = f.creditSystem, let need = f.creditsRequired, f.via != .overage {
            let held = f.creditBalance.map(\.grouped) ?? "unlimited"
            line += f.via == .credits ? "; \(need.grouped) credits from \(system) (\(held) held)"
                : "; \(system) has \(held) of the \(need.grouped) credits needed"
        }
        // The result's reason says how much goes over; this line says how the rest is paid.
        if f.via == .overage { line += "; the rest is paid by credits first, then over the allowance (billable)" }
        var out = line.withControlsEscaped + "\n"  // units are strings of the rules
        if let overdrawn = f.overdrawn, overdrawn > 0 {
            out += "  overdrawn \(feature.amount(overdrawn).withControlsEscaped) (billable)\n"
        }
        var shown: Set<String> = []
        let distinct = certain.filter { shown.insert("\($0.kind) \($0.grant)").inserted }
        for s in distinct.prefix(4) {
            out += s.kind == "state"
                ? "  via grant \(s.grant.withControlsEscaped) to this customer"
                    + (s.reason.map { " (\($0.withControlsEscaped))" } ?? "")
                : "  via \(s.kind) \(s.grant)"
            if s.kind == "entitlement", let e = try? evaluation.entitlement(s.grant) {
                out += (e.product.map { " ← \($0)" } ?? "") + " (\(status(e)))"
            }
            out += "\n"
        }
        // The first line already says what is left and needed; an undetermined result also says
        // what it depends on.
        if f.decision == .undetermined, let r = f.reason.firstRange(of: "it depends on") {
            out += "  \(String(f.reason[r.lowerBound...]).withControlsEscaped)\n"
        }
        if let shortfall = f.shortfall { out += "  short by \(feature.amount(shortfall).withControlsEscaped)\n" }
        // Denied with enough left, or with credits that would pay (no shortfall): `--consume` refused
        // a use for what recording it would do.
        if f.decision == .denied, f.shortfall == nil || (f.balance ?? .max) >= (f.required ?? 1) {
            out += "  \(f.reason.withControlsEscaped)\n"
        }
        return out + unlock(f.unlockedBy) + validUntil(f.validUntil)
    }

    /// "active until 2026-12-05T09:00:00Z, renews", "trialing until …", "in grace period until …".
    static func status(_ e: EntitlementResult) -> String {
        var s = e.isTrial ? "trialing" : e.inGracePeriod ? "in grace period" : "active"
        s += e.expiresAt.map { " until \($0)" } ?? (e.period == "lifetime" ? ", lifetime" : ", no expiry")
        if e.willRenew { s += ", renews" }
        return s
    }

    static func entitlement(_ e: EntitlementResult) -> String {
        var out = "\(e.name): \(e.decision.rawValue) — \(e.reason.withControlsEscaped)\n"
        if let product = e.product {
            var details = [product + (e.store.map { " (\($0))" } ?? "")]
            if let p = e.period { details.append(p) }
            if e.isTrial { details.append("trial") }
            if e.inGracePeriod { details.append("in grace period") }
            if e.inBillingRetry { details.append("billing retry") }
            if e.isRevoked { details.append("revoked") }
            if e.ownership == .familyShared { details.append("family shared") }
            details.append(e.willRenew ? "renews" : "does not renew")
            out += "  " + details.joined(separator: ", ") + "\n"
        }
        return out + unlock(e.unlockedBy) + validUntil(e.validUntil)
    }

    static func product(_ p: ProductResult) -> String {
        "\(p.name): \(p.decision.rawValue) — \(p.reason.withControlsEscaped)\n" + validUntil(p.validUntil)
    }
}
