import EntlSupport

/// What a state says that the rule set cannot make sense of, so a typo never fails open
/// (docs/state.md, "Warnings"): a usage record naming nothing or of the wrong kind, an
/// idempotency key reused for another use, a purchase from a store the rules name no id of, a
/// subscription that would never end, a purchase dated after its own expiry, a grant of something
/// the rules lack or with terms its feature cannot have. Each names its place; under `strict` each
/// is an error.
extension Evaluation {
    /// The state's decoding warnings (unknown keys), then what the rule set cannot make sense of.
    public var warnings: [StateError] {
        let ruleSet = ruleSetWarnings
        // None (most states): the empty array, not the state's (a retain and a release of its storage).
        if ruleSet.isEmpty { return state.warnings.isEmpty ? [] : state.warnings }
        return state.warnings + ruleSet
    }

    /// The warnings that depend on the rule set, in state order: purchases, then usage records.
    public var ruleSetWarnings: [StateError] {
        var found: [StateError] = []
        purchaseWarnings(into: &found)
        usageWarnings(into: &found)
        grantWarnings(into: &found)
        ledgerWarnings(into: &found)
        return found
    }

    /// A state grant naming nothing the rules have, or with terms its feature's kind cannot have.
    private func grantWarnings(into found: inout [StateError]) {
        guard !state.grants.isEmpty else { return }  // most states: no iterator set up
        for (i, g) in state.grants.enumerated() {
            var place: String { "grants[\(i)]" }
            switch g.target {
            case .entitlement(let name):
                guard graph.entitlementIndex[name] == nil else { continue }
                let suggestion = Suggestions.closest(to: name, among: graph.entitlementIndex.keys.sorted())
                found.append(StateError(path: place + ".entitlement", message: "no entitlement \"\(name)\" in the rules"
                                        + (suggestion.map { " (did you mean `\($0)`?)" } ?? "")))
            case .feature(let name):
                guard let f = graph.featureIndex[name] else {
                    let suggestion = Suggestions.closest(to: name, among: graph.featureIndex.keys.sorted())
                    found.append(StateError(path: place + ".feature",
                                            message: "no feature or credit system \"\(name)\" in the rules"
                                                + (suggestion.map { " (did you mean `\($0)`?)" } ?? "")))
                    continue
                }
                let kind = graph.features[f].kind
                func warn(_ key: String, _ message: String) {
                    found.append(StateError(path: place + "." + key, message: "`\(name)` \(message)"))
                }
                if kind == .boolean {
                    if g.amount != .none { warn("amount", "is a boolean feature: its grant has no amount") }
                    if g.interval != nil { warn("per", "is a boolean feature: its grant has no `per`") }
                } else if g.amount == .none {
                    warn("amount", "is metered: its grant needs an \"amount\" or \"unlimited\": true")
                }
                if kind == .continuous, g.interval != nil {
                    warn("per", "is a continuous feature: its grant has no `per`")
                }
                if g.overage != nil, kind != .singleUse {
                    warn("overage", "is not a single-use feature: only those have soft limits (`overage`)")
                }
            }
        }
    }

    /// Purchases are read in place (an element read by subscript is a copy: a retain of each of
    /// its strings); most have no warning, and no place is formed for them.
    private func purchaseWarnings(into found: inout [StateError]) {
        guard tables.purchasesMayWarn else { return }  // most states: the purchases not read again
        tables.state.purchases.withUnsafeBufferPointer { purchases in
            for j in purchases.indices where purchases[j].environment == environment {
                let purchase = purchases.baseAddress! + j
                var place: String { "purchases[\(j)]" }
                // A purchase with a store is matched by its id at that store, which the rules then
                // know: only an unmatched one can name a store they have no id of.
                if let store = purchase.pointee.store, purchaseProduct[j] < 0, graph.storeIDs[store] == nil {
                    let suggestion = Suggestions.closest(to: store, among: graph.storeIDs.keys.sorted())
                    found.append(StateError(path: place + ".store",
                                            message: "no product of the rules has an id at store `\(store)`"
                                                + (suggestion.map { " (did you mean `\($0)`?)" } ?? "")))
                }
                if let bought = purchase.pointee.purchasedAt, let expiry = purchase.pointee.expiresAt, bought > expiry {
                    found.append(StateError(path: place + ".purchased_at",
                                            message: "\(bought) is after its own `expires_at` \(expiry)"))
                }
                // A refunded purchase grants nothing, a lot of its or not.
                if purchaseProduct[j] >= 0, purchase.pointee.purchasedAt == nil, purchase.pointee.status != .revoked,
                   graph.startsLots[Int(purchaseProduct[j])] {
                    let name = graph.products[Int(purchaseProduct[j])].name
                    found.append(StateError(path: place + ".purchased_at", message: "a grant that `expires after` "
                                            + "counts from the purchase that pays it: while this `\(name)` does, "
                                            + "without `purchased_at`, it never expires"))
                }
                guard purchaseProduct[j] >= 0, graph.products[Int(purchaseProduct[j])].kind == .subscription else {
                    continue
                }
                let status = purchase.pointee.status, expires = purchase.pointee.expiresAt
                if purchase.pointee.purchasedAt == nil, purchase.pointee.periodStart != nil, status != .revoked,
                   graph.hasWindows[Int(purchaseProduct[j])] {
                    found.append(StateError(path: place + ".purchased_at", message: "without `purchased_at`, the "
                                            + "windows of the grants this subscription pays are laid from its "
                                            + "`period_start`, which each renewal moves: a renewal would lay them "
                                            + "anew (give `purchased_at`: a renewal keeps it)"))
                }
                if status == .active || status == .trialing, expires == nil {
                    found.append(StateError(path: place + ".expires_at", message: "a subscription "
                                                + "`\(status.rawValue)` without an `expires_at` never ends"))
                } else if status == .canceled, expires == nil {
                    found.append(StateError(path: place + ".expires_at", message: "a subscription `canceled` "
                                                + "without an `expires_at` has no paid period: it is not owned"))
                } else if status == .pastDue, purchase.pointee.graceUntil == nil {
                    found.append(StateError(path: place + ".grace_until", message: "a subscription `past_due` "
                                                + "without a `grace_until` keeps access with no end"))
                }
            }
        }
    }

    /// Whether `purchaseWarnings` may find something to say of a purchase of the evaluated
    /// environment, matched to a product of `kind` (nil: matched to none): a store named, dates in
    /// the wrong order, a subscription without the date that ends it, a lot without the date it
    /// starts at. Asked by `fill`, which reads each purchase anyway; it may say yes when there is
    /// nothing to say, never the reverse.
    @inline(__always)
    static func mayWarn(_ purchase: UnsafePointer<Purchase>, kind: ProductKind?, startsLots: Bool = false) -> Bool {
        if kind == nil, purchase.pointee.store != nil { return true }
        if startsLots, purchase.pointee.purchasedAt == nil, purchase.pointee.status != .revoked { return true }
        if let bought = purchase.pointee.purchasedAt, let expiry = purchase.pointee.expiresAt, bought > expiry {
            return true
        }
        guard kind == .subscription else { return false }
        return purchase.pointee.expiresAt == nil || purchase.pointee.purchasedAt == nil
            || (purchase.pointee.status == .pastDue && purchase.pointee.graceUntil == nil)
    }

    /// Records are read in place (as purchases are); retries and conflicts come in record order,
    /// so each is met by walking its list along.
    private func usageWarnings(into found: inout [StateError]) {
        guard !tables.state.usage.isEmpty else { return }
        let (features, retries, conflicts) = tables.usage(in: graph)
        var (nextRetry, nextConflict) = (0, 0)
        var names: (events: [String], all: [String])?
        tables.state.usage.withUnsafeBufferPointer { usage in
            for i in usage.indices {
                // A retry names what its first record names: a record naming nothing is reported once.
                if nextRetry < retries.count, retries[nextRetry].record == i {
                    nextRetry += 1
                    continue
                }
                let record = usage.baseAddress! + i
                var place: String { "usage[\(i)]" }
                let f = Int(features[i])
                if f < 0 {
                    let known = names ?? (graph.eventIndex.keys.sorted(),
                                          graph.featureIndex.keys.sorted() + graph.eventIndex.keys.sorted())
                    names = known
                    let name = record.pointee.name, isEvent = record.pointee.isEvent
                    let suggestion = Suggestions.closest(to: name, among: isEvent ? known.events : known.all)
                    let what = isEvent ? "event" : "feature, credit system or event"
                    found.append(StateError(path: place + (isEvent ? ".event" : ".feature"),
                                            message: "no \(what) \"\(name)\" in the rules"
                                                + (suggestion.map { " (did you mean `\($0)`?)" } ?? "")))
                } else {
                    // Formed only for a warning (a feature read whole is a copy of its tables).
                    var name: String { graph.features[f].name }
                    switch (record.pointee.kind, graph.features[f].kind) {
                    case (.amount, .continuous):
                        found.append(StateError(path: place + ".amount",
                                                message: "`\(name)` is a continuous feature: "
                                                    + "its usage is a `level`, not an `amount`"))
                    case (.level, .singleUse), (.level, .credits):
                        found.append(StateError(path: place + ".level", message: "`\(name)` is used up, "
                                                    + "not held: its usage is an `amount`, not a `level`"))
                    case (.level, .boolean), (.amount, .boolean):
                        found.append(StateError(path: place + ".feature",
                                                message: "`\(name)` is a boolean feature: it has no usage"))
                    default:
                        break
                    }
                }
                if nextConflict < conflicts.count, conflicts[nextConflict].record == i {
                    let first = conflicts[nextConflict].first
                    nextConflict += 1
                    found.append(StateError(path: place + ".id", message: "\"\(record.pointee.id ?? "")\" was used "
                                                + "for " + describeFirstRecord(first) + "; ids are unique per "
                                                + "customer, so this record counts as another use"))
                }
            }
        }
    }
}

/// What a state built in code may hold that its JSON cannot (docs/state.md): an instant outside the
/// years 0000 … 9999 (or with nanoseconds outside 0 … 999,999,999), an amount outside 0 … 10^15.
/// Evaluating one is an error naming the value's place, never a trap in arithmetic on it.
extension PurchaseState {
    /// The first value out of range, as an error naming its place; nil when there is none.
    public var rangeError: EvaluationError? {
        func instant(_ i: Instant?, _ place: @autoclosure () -> String) -> EvaluationError? {
            guard let i, !Instant.isInRange(i) else { return nil }
            return EvaluationError("\(place()): \(i.seconds) seconds (and \(i.nanoseconds) ns) since 1970 is "
                                   + "outside the years 0000 … 9999 a state holds")
        }
        func amount(_ n: Int64?, _ place: @autoclosure () -> String) -> EvaluationError? {
            guard let n, !(0...Instant.maxAmount).contains(n) else { return nil }
            return EvaluationError("\(place()): \(n) is outside 0 … 10^15")
        }
        if let e = instant(customerSince, "customer_since") ?? instant(now, "now") { return e }
        for (j, p) in purchases.enumerated() {
            let place = "purchases[\(j)]"
            if let e = instant(p.purchasedAt, place + ".purchased_at")
                ?? instant(p.periodStart, place + ".period_start") ?? instant(p.expiresAt, place + ".expires_at")
                ?? instant(p.graceUntil, place + ".grace_until")
                ?? amount(p.quantity, place + ".quantity") { return e }
        }
        for (i, r) in usage.enumerated() {
            let value: Int64 = switch r.kind {
            case .amount(let n), .level(let n): n
            }
            if let e = instant(r.at, "usage[\(i)].at") ?? amount(value, "usage[\(i)].amount") { return e }
        }
        for (i, g) in grants.enumerated() {
            let place = "grants[\(i)]"
            var count: Int64?
            if case .count(let n) = g.amount { count = n }
            var carry: Int64?
            if case .upTo(let n)? = g.carry { carry = n }
            if let e = instant(g.from, place + ".from") ?? instant(g.until, place + ".until")
                ?? amount(count, place + ".amount") ?? amount(carry, place + ".carry_up_to")
                ?? amount(g.overage?.cap, place + ".overage_up_to") ?? amount(g.priority, place + ".priority") {
                return e
            }
        }
        return nil
    }
}
