/// A change between two evaluations (docs/semantics.md §7).
public struct ChangeEvent: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        case entitlementActivated = "entitlement_activated"
        case entitlementDeactivated = "entitlement_deactivated"
        case featureUnlocked = "feature_unlocked"
        case featureLocked = "feature_locked"
        case balanceChanged = "balance_changed"
        // Lifecycle events of an entitlement (§7), from its merged fields (§3).
        case entitlementRenewed = "entitlement_renewed"
        case entitlementCanceled = "entitlement_canceled"
        case entitlementUncanceled = "entitlement_uncanceled"
        case billingIssue = "billing_issue"
        case billingRecovered = "billing_recovered"
        case entitlementRevoked = "entitlement_revoked"
        case productChanged = "product_changed"

        public var isLifecycle: Bool {
            switch self {
            case .entitlementActivated, .entitlementDeactivated, .featureUnlocked, .featureLocked, .balanceChanged:
                false
            default: true
            }
        }
    }

    public var kind: Kind
    public var name: String
    /// When the change was observed (the later evaluation's instant).
    public var at: Instant
    /// For `balance_changed`: nil means unlimited.
    public var oldBalance: Int64?
    public var newBalance: Int64?
    /// For lifecycle events: the entitlement as it is now.
    public var entitlement: EntitlementResult?
    /// For `product_changed`: the product that represented it before (nil: a grant of the state).
    public var oldProduct: String?

    /// `{"event": "entitlement_activated", "name": "premium", "at": "…"}`; `balance_changed`
    /// adds `"old_balance"` and `"new_balance"` (null when unlimited); lifecycle events add the
    /// entitlement's new `status`, `product`, `store_product_id`, `expires_at` and `will_renew`,
    /// and `product_changed` the `old_product`.
    public var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("event", .string(kind.rawValue)), ("name", .string(name)),
                                                           ("at", .string(at.rfc3339))]
        if kind == .balanceChanged {
            members.append(("old_balance", .int(oldBalance)))
            members.append(("new_balance", .int(newBalance)))
        }
        if kind == .productChanged { members.append(("old_product", .string(oldProduct))) }
        if let e = entitlement {
            members += [("status", .string(e.status.rawValue)), ("product", .string(e.product)),
                        ("store_product_id", .string(e.storeProductID)), ("expires_at", .string(e.expiresAt?.rfc3339)),
                        ("will_renew", .bool(e.willRenew))]
        }
        return .object(members)
    }

    public var description: String { json.compact }
}

public enum Changes {
    /// The events between two evaluate-everything results of one graph (same order, as
    /// `Evaluation.all()` gives them): entitlements then features and credit systems, each in
    /// declaration order. An entitlement or feature changes when it becomes allowed, or stops
    /// being allowed (denied or undetermined: never access); a metered balance when it differs.
    public static func between(_ old: [EvaluationResult], _ new: [EvaluationResult], at: Instant) -> [ChangeEvent] {
        var oldByName: [String: EvaluationResult] = [:]
        for r in old { oldByName[key(r)] = r }
        var events: [ChangeEvent] = []
        for r in new {
            guard let before = oldByName[key(r)] else { continue }
            switch (before, r) {
            case (.entitlement(let a), .entitlement(let b)):
                if a.allowed != b.allowed {
                    events.append(ChangeEvent(kind: b.allowed ? .entitlementActivated : .entitlementDeactivated,
                                              name: b.name, at: at))
                }
                events += lifecycle(a, b, at: at)
            case (.feature(let a), .feature(let b)):
                if a.allowed != b.allowed {
                    events.append(ChangeEvent(kind: b.allowed ? .featureUnlocked : .featureLocked, name: b.name,
                                              at: at))
                }
                if b.kind.isMetered, a.balance != b.balance || a.unlimited != b.unlimited {
                    events.append(ChangeEvent(kind: .balanceChanged, name: b.name, at: at, oldBalance: a.balance,
                                              newBalance: b.balance))
                }
            default:
                break
            }
        }
        return events
    }

    /// §7 lifecycle events: what happened to the purchase behind an entitlement. Renewals (the
    /// end moved later, not by a grace period),
    /// cancellations and product changes are of an entitlement active before and after; a
    /// billing issue (`in_grace_period` or `in_billing_retry` turned true) or a revocation of one
    /// active before (it may have ended it); a billing recovery (one of them turned false, none
    /// true) of one active after. Each flag is read on its own: a purchase left in billing retry
    /// long ago hides neither a renewal of another nor its grace period.
    static func lifecycle(_ a: EntitlementResult, _ b: EntitlementResult, at: Instant) -> [ChangeEvent] {
        var kinds: [ChangeEvent.Kind] = []
        let issue = (!a.inGracePeriod && b.inGracePeriod) || (!a.inBillingRetry && b.inBillingRetry)
        let recovered = !issue && ((a.inGracePeriod && !b.inGracePeriod) || (a.inBillingRetry && !b.inBillingRetry))
        if a.allowed, b.allowed {
            // A grace period extends access too, but it is no renewal.
            if let old = a.expiresAt, let new = b.expiresAt, new > old, a.product == b.product, !b.inGracePeriod {
                kinds.append(.entitlementRenewed)
            }
            if a.willRenew != b.willRenew, a.product == b.product {
                kinds.append(b.willRenew ? .entitlementUncanceled : .entitlementCanceled)
            }
        }
        if a.allowed, issue { kinds.append(.billingIssue) }
        if b.allowed, recovered { kinds.append(.billingRecovered) }
        if a.allowed, !a.isRevoked, b.isRevoked { kinds.append(.entitlementRevoked) }
        var events = kinds.map { ChangeEvent(kind: $0, name: b.name, at: at, entitlement: b) }
        // From a purchase onto a grant of the state (a promotion) and back is a change of what
        // represents it too (a review: active throughout, it had gone unsaid).
        if a.allowed, b.allowed, a.product != b.product {
            events.append(ChangeEvent(kind: .productChanged, name: b.name, at: at, entitlement: b,
                                      oldProduct: a.product))
        }
        return events
    }

    private static func key(_ r: EvaluationResult) -> String {
        switch r {
        case .product(let p): "p:" + p.name
        case .entitlement(let e): "e:" + e.name
        case .feature(let f): "f:" + f.name
        }
    }

    /// The earliest `valid_until` of a set of results: when anything may change by itself.
    public static func nextChange(_ results: [EvaluationResult]) -> Instant? {
        results.reduce(nil) { earliest($0, $1.validUntil) }
    }

    /// Most evaluations one timeline may take.
    public static let maxSteps = 100_000

    /// What changes by itself as time passes from `from` to `to` (expiries, grace ends, resets,
    /// purchases and usage dated in between): the state is evaluated at `from`, then at each
    /// instant where a decision or balance may change (`Evaluation.nextObservableChange`) up to
    /// `to`, and every difference is reported at the instant it happens. Window boundaries that
    /// change no balance (a full window renewing itself) are stepped over, so the cost grows
    /// with the changes, not with the number of windows in the span.
    public static func timeline(graph: RuleGraph, state: PurchaseState, environment: Environment? = nil,
                                from: Instant, to: Instant,
                                maxSteps: Int = Changes.maxSteps) throws(EvaluationError) -> [ChangeEvent] {
        guard from <= to else { throw EvaluationError("the start \(from) is after the end \(to)") }
        var evaluation = try Evaluation(graph: graph, state: state, environment: environment, at: from)
        var results = evaluation.all()
        var events: [ChangeEvent] = []
        var steps = 0
        while let next = evaluation.nextObservableChange(), next <= to {
            steps += 1
            guard steps <= maxSteps else {
                throw EvaluationError("more than \(maxSteps) changes between \(from) and \(to); choose a shorter span")
            }
            evaluation = try Evaluation(graph: graph, state: state, environment: environment, at: next)
            let later = evaluation.all()
            events += between(results, later, at: next)
            results = later
        }
        return events
    }
}

extension Evaluation {
    /// The earliest instant after `t` at which a decision, an entitlement's state or a balance
    /// may change by itself: a purchase starts or ends (also one behind an entitlement that owns
    /// nothing: a billing retry coming to exist is a billing issue), a state grant starts or ends,
    /// the customer's `customer_since` comes, a dated usage record arrives, or a grant's window
    /// boundary changes its balance. Unlike `valid_until` (§6),
    /// boundaries at which a balance renews to the same amount do not count: the results there
    /// differ only in their window fields.
    public func nextObservableChange() -> Instant? {
        var next = earliest(nextChange(watching: Array(graph.products.indices)), nextStateGrantChange)
        // Grants no purchase is behind start at `customer_since` (a timeline had stepped over it).
        if let since = state.customerSince, since > at { next = earliest(next, since) }
        next = earliest(next, pastReadingChange())
        for e in graph.entitlements.indices { next = earliest(next, changeBehind(e, entitlementValue(e).0)) }
        for record in state.usage where instant(of: record) > at {
            next = earliest(next, instant(of: record))
        }
        for (f, feature) in graph.features.enumerated() where feature.kind.isMetered {
            next = earliest(next, meteredBalance(f, sources: false).nextBalanceChange)
        }
        return next
    }
}
