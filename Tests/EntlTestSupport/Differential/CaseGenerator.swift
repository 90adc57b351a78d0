import EntlRuntime

/// SplitMix64: a small, seedable generator, so every differential case can be replayed from its seed.
public struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }

    public mutating func pick<T>(_ items: [T]) -> T { items.randomElement(using: &self)! }

    public mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }

    public mutating func int64(_ range: ClosedRange<Int64>) -> Int64 { Int64.random(in: range, using: &self) }
}

/// One random differential case: a rule set (as .entl text), a customer state, an environment
/// and an instant. Everything is kept small (a few products and purchases, at most ~1,500
/// windows per grant) so the reference evaluator can walk windows one by one.
public struct DifferentialCase: CustomStringConvertible {
    public var seed: UInt64
    public var rules: String
    public var state: PurchaseState
    public var environment: Environment
    public var at: Instant
    public var focus: Focus

    /// A case written by hand (a test's own rules and state), compared as a generated one is.
    public init(seed: UInt64 = 0, rules: String, state: PurchaseState, environment: Environment = .live, at: Instant,
                focus: Focus = .general) {
        (self.seed, self.rules, self.state, self.environment, self.at, self.focus) =
            (seed, rules, state, environment, at, focus)
    }

    public var description: String {
        let rerun = "ENTLC_DIFF_SEED=\(seed) ENTLC_DIFF_CASES=1"
            + (focus == .general ? "" : " ENTLC_DIFF_FOCUS=\(focus)")
        return "seed \(seed) (\(rerun) reruns it), env \(environment.rawValue), at \(at)\n"
            + "--- rules\n\(rules)--- state\n\(describe(state))"
    }

    func describe(_ s: PurchaseState) -> String {
        var lines: [String] = []
        for (j, p) in s.purchases.enumerated() {
            var line = "purchases[\(j)]: \(p.product)"
            if let x = p.store { line += " store \(x)" }
            line += " \(p.status.rawValue)"
            if let x = p.purchasedAt { line += " purchased_at \(x)" }
            if let x = p.periodStart { line += " period_start \(x)" }
            if let x = p.expiresAt { line += " expires_at \(x)" }
            if let x = p.graceUntil { line += " grace_until \(x)" }
            if let x = p.willRenew { line += " will_renew \(x)" }
            line += " \(p.ownership.rawValue) quantity \(p.quantity) \(p.environment.rawValue)"
            lines.append(line)
        }
        for (i, u) in s.usage.enumerated() {
            let what = switch u.kind {
            case .amount(let n): "amount \(n)"
            case .level(let n): "level \(n)"
            }
            lines.append("usage[\(i)]: \(u.isEvent ? "event " : "")\(u.name) \(what)" + (u.at.map { " at \($0)" } ?? "")
                         + (u.id.map { " id \($0)" } ?? ""))
        }
        for o in s.overrides { lines.append("override \(o.product) \(o.value.rawValue)") }
        for (i, g) in s.grants.enumerated() { lines.append("grants[\(i)]: \(g)") }
        if let since = s.customerSince { lines.append("customer_since \(since)") }
        return lines.joined(separator: "\n") + "\n"
    }

    struct ProductShape {
        var name: String
        var kind: EntlRuntime.ProductKind
        var period: String?
        var ids: [(store: String, id: String)]
        var environment: Environment?
    }

    enum FeatureShape: String { case boolean, singleUse, continuous, credits }

    /// What a case stresses besides the general mix.
    public enum Focus: String, Sendable {
        case general
        /// Credit systems that list most metered features, and uses well beyond the allowances
        /// (spill, shortfall, retries, events, docs/semantics.md §4–§5).
        case credits
        /// Purchase-date qualifiers, with purchases without dates and of unknown status (§2 rule 9).
        case purchaseDates
        /// A customer's history: plans bought, renewed, lapsed and refunded over the span, with
        /// many uses before `t` (§5, what paid for a use stays paid).
        case history
        /// Grants to the customer in the state: promotional entitlements, allowances with soft
        /// limits (`overage`), lots that lapse (§3–§5); and the rule set's soft limits and lots
        /// (`overage [up to N]`, `expires after N UNIT`).
        case commercial
    }

    public init(seed: UInt64, focus: Focus = .general) {
        self.seed = seed
        self.focus = focus
        var r = SeededRandom(seed: seed)
        let spillHeavy = focus == .credits
        let dates = focus == .purchaseDates
        let history = focus == .history
        let commercial = focus == .commercial

        // Time: a span of a day, two months or three years around t, with the intervals whose
        // windows fit it (so no grant has more than ~1,500 windows to walk).
        let span: Int64 = r.pick([86_400, 60 * 86_400, 3 * 365 * 86_400])
        let intervals = ["minute", "hour", "day", "week", "month", "quarter", "half_year", "year"].filter { i in
            switch i {
            case "minute": span <= 86_400
            case "hour": span <= 60 * 86_400
            default: true
            }
        }
        let t = 1_767_225_600 + r.int64(0...(400 * 86_400)) + (r.chance(0.5) ? r.int64(0...86_399) : 0)  // 2026 onwards
        at = Instant(seconds: t)
        func instant(before: Int64, after: Int64) -> Instant { Instant(seconds: t + r.int64(-before...after)) }
        // Soft limits and lots in the rules draw from a stream of their own, so the other draws (and
        // the cases of the other focuses) stay what they were.
        var terms = SeededRandom(seed: seed ^ 0x5E11_1A75)
        /// ` overage [up to N]` and ` expires after N UNIT` for a counted grant (lots only without
        /// `per`; soft limits only on single-use features), lengths around the span.
        func commercialTerms(singleUse: Bool, windowed: Bool) -> String {
            var out = ""
            if singleUse, terms.chance(commercial ? 0.45 : 0.05) {
                out += " overage"
                if terms.chance(0.5) {
                    out += " up to \(terms.chance(0.05) ? 1_000_000_000_000_000 : terms.int64(1...30))"
                }
            }
            if !windowed, terms.chance(commercial ? 0.5 : 0.05) {
                let days = max(1, span / 86_400)
                out += terms.pick([" expires after \(terms.int64(1...min(days, 90))) days",
                                   " expires after \(terms.int64(1...max(1, days / 7))) weeks",
                                   " expires after \(terms.int(1...max(1, Int(days / 28)))) months",
                                   " expires after \(terms.int(1...3)) years"])
            }
            return out
        }
        func amount() -> Int64 { r.chance(0.05) ? 1_000_000_000_000_000 : r.int64(1...30) }

        // Products.
        var products: [ProductShape] = []
        for i in 0..<r.int(history ? 2...4 : 1...5) {
            let kind = history && i == 0 ? .subscription
                : r.pick([EntlRuntime.ProductKind.nonConsumable, .consumable, .subscription, .nonRenewing])
            var ids: [(String, String)] = []
            if r.chance(0.5) { ids.append(("app_store", "A.p\(i)")) }
            if r.chance(0.3) { ids.append(("stripe", "price_p\(i)")) }
            // A store id that spells the product's own name (a rule name wins over it).
            if r.chance(0.15) { ids.append(("play_store", "p\(i)")) }
            products.append(ProductShape(name: "p\(i)", kind: kind,
                                         period: kind == .subscription ? r.pick(["week", "month", "quarter", "half_year", "year"]) : nil,
                                         ids: ids, environment: nil))
        }
        var features: [(name: String, shape: FeatureShape)] = []
        for i in 0..<r.int(spillHeavy ? 2...4 : 1...4) {
            features.append(("f\(i)", spillHeavy && i < 2 ? .singleUse : r.pick([.boolean, .singleUse, .singleUse, .continuous])))
        }
        let meteredFeatures = features.filter { $0.shape == .singleUse || $0.shape == .continuous }
        for i in 0..<(meteredFeatures.isEmpty ? 0 : r.int(spillHeavy ? 1...2 : 0...2)) { features.append(("cr\(i)", .credits)) }

        func grant(_ target: (name: String, shape: FeatureShape)) -> String {
            switch target.shape {
            case .boolean: return "grants \(target.name)"
            case .continuous:
                var g = "grants \(target.name) " + (r.chance(0.1) ? "unlimited" : "\(amount())")
                if r.chance(0.3) { g += " priority \(r.int(0...2))" }
                return g
            case .singleUse, .credits:
                if r.chance(0.08) { return "grants \(target.name) unlimited" }
                var g = "grants \(target.name) \(amount())"
                var windowed = false
                if r.chance(0.7) {
                    windowed = true
                    g += " per \(r.pick(intervals))"
                    if r.chance(0.4) { g += " carry" + (r.chance(0.5) ? " up to \(amount())" : "") }
                }
                g += commercialTerms(singleUse: target.shape == .singleUse, windowed: windowed)
                if r.chance(0.3) { g += " priority \(r.int(0...2))" }
                return g
            }
        }

        func expression(_ depth: Int, names: [String], consumables: [String]) -> String {
            if depth == 0 || r.chance(0.35) {
                if !consumables.isEmpty, r.chance(0.2) { return "\(r.pick(consumables)) >= \(r.int(1...5))" }
                if r.chance(0.05) { return "everyone" }
                // Grandfathering: a product qualified by its purchase date.
                if r.chance(dates ? 0.5 : 0.12) {
                    let relation = r.chance(0.5) ? "before" : "since"
                    return "\(r.pick(products).name) purchased \(relation) \"\(instant(before: span, after: span / 10))\""
                }
                return r.pick(names)
            }
            switch r.int(0...2) {
            case 0: return "not " + (r.chance(0.5) ? r.pick(names) : "(\(expression(depth - 1, names: names, consumables: consumables)))")
            case 1: return (0..<r.int(2...3)).map { _ in "(\(expression(depth - 1, names: names, consumables: consumables)))" }.joined(separator: " and ")
            default: return (0..<r.int(2...3)).map { _ in "(\(expression(depth - 1, names: names, consumables: consumables)))" }.joined(separator: " or ")
            }
        }

        var text = ""
        for p in products {
            var items: [String] = []
            if let period = p.period { items.append("period \(period)") }
            if p.kind == .nonRenewing, r.chance(0.7) { items.append("duration \(r.int(1...12)) \(r.pick(["days", "weeks", "months", "years"]))") }
            for (store, id) in p.ids { items.append("id \(store) \"\(id)\"") }
            if r.chance(0.3) { for _ in 0..<r.int(1...2) { items.append(grant(r.pick(features))) } }
            text += "product \(p.name): \(p.kind.rawValue) { \(items.joined(separator: "; ")) }\n"
        }
        let consumables = products.filter { $0.kind == .consumable }.map(\.name)
        for f in features {
            switch f.shape {
            case .boolean:
                text += "feature \(f.name): boolean"
                if r.chance(0.3) {
                    text += " requires \(expression(2, names: products.map(\.name), consumables: consumables))"
                }
                text += "\n"
            case .singleUse:
                text += "feature \(f.name): metered { usage single_use" + (r.chance(0.5) ? "; event \"ev_\(f.name)\"" : "") + " }\n"
            case .continuous:
                text += "feature \(f.name): metered { usage continuous }\n"
            case .credits:
                let listed = meteredFeatures.filter { _ in r.chance(spillHeavy ? 0.9 : 0.7) }
                let entries = (listed.isEmpty ? [meteredFeatures[0]] : listed).map {
                    "\($0.name) \(r.int(1...5)) = \(r.chance(0.05) ? 1_000_000_000_000_000 : Int64(r.int(1...10)))"
                }
                text += "credits \(f.name) { \(entries.joined(separator: "; ")) }\n"
            }
        }
        var entitlementNames: [String] = []
        if spillHeavy {
            // Every credit system is granted to everyone, with enough to pay for some spills.
            for (i, system) in features.filter({ $0.shape == .credits }).enumerated() {
                let per = r.chance(0.5) ? " per \(r.pick(intervals))" + (r.chance(0.3) ? " carry" : "") : ""
                text += "entitlement pays\(i) = everyone { grants \(system.name) \(r.int(40...400))\(per) }\n"
            }
        }
        for i in 0..<r.int(0...4) {
            let names = products.map(\.name) + entitlementNames
            let items = (0..<r.int(0...3)).map { _ in grant(r.pick(features)) }
            // Sometimes a free tier: `everyone`, alone or with a condition.
            let constraint = r.chance(0.12) ? r.pick(["everyone", "everyone and not \(r.pick(products).name)"])
                : expression(3, names: names, consumables: consumables)
            text += "entitlement e\(i) = \(constraint)"
                + (items.isEmpty ? "" : " { \(items.joined(separator: "; ")) }") + "\n"
            entitlementNames.append("e\(i)")
        }
        var testOnly: [ProductShape] = []
        if r.chance(0.2) {
            let p = ProductShape(name: "tp", kind: .nonConsumable, period: nil, ids: [("app_store", "A.tp")], environment: .test)
            testOnly.append(p)
            text += "environment test {\n  product tp: non_consumable { id app_store \"A.tp\"; \(grant(r.pick(features))) }\n"
            text += "  entitlement te = tp or \(r.pick(products).name) { \(grant(r.pick(features))) }\n}\n"
        }
        rules = text

        // The state.
        environment = r.chance(0.85) ? .live : .test
        var state = PurchaseState()
        let statuses: [PurchaseStatus] = [.active, .active, .active, .trialing, .pastDue, .billingRetry, .canceled, .canceled,
                                          .expired, .revoked, .unknown]
        for _ in 0..<r.int(history ? 2...7 : 0...6) {
            let product = r.pick(products + testOnly)
            var p = Purchase(product: product.name)
            switch r.int(0...9) {
            case 0..<5: break
            case 5..<8:
                if let id = product.ids.first {
                    p.product = id.id
                    if r.chance(0.5) { p.store = id.store }
                }
            case 8: (p.product, p.store) = ("A.\(product.name)", "stripe")  // wrong store: ignored
            default: p.product = "com.other.app.thing"  // names nothing: ignored
            }
            p.status = dates && r.chance(0.3) ? .unknown : r.pick(statuses)
            if r.chance(dates ? 0.7 : 0.9) { p.purchasedAt = instant(before: span, after: span / 10) }
            if let bought = p.purchasedAt, r.chance(0.3), bought.seconds < t {
                p.periodStart = Instant(seconds: r.int64(bought.seconds...t))
            }
            if product.kind == .subscription ? r.chance(0.8) : r.chance(0.2) {
                p.expiresAt = history ? instant(before: span, after: span / 2) : instant(before: span / 2, after: span)
            }
            if p.status == .pastDue, r.chance(0.6) { p.graceUntil = instant(before: span / 4, after: span / 4) }
            if r.chance(0.3) { p.willRenew = r.chance(0.5) }
            if r.chance(0.2) { p.ownership = .familyShared }
            if product.kind == .consumable {
                p.quantity = r.chance(0.05) ? 1_000_000_000_000_000 : r.int64(0...8)
            }
            if r.chance(0.1) { p.environment = .test }
            state.purchases.append(p)
        }
        var ids: [String] = []
        // Some uses dated exactly at the evaluation's instant (a stream of its own, so every other
        // draw stays as it was): a past one a nanosecond later (§5, §6).
        var atNow = SeededRandom(seed: seed ^ 0xA7_0000)
        let nowHeavy = atNow.chance(0.15)
        for _ in 0..<r.int(spillHeavy ? 6...16 : history ? 8...24 : 0...10) {
            guard let f = features.filter({ $0.shape != .boolean }).randomElement(using: &r) else { break }
            var name = f.name
            var byEvent = false
            if f.shape == .singleUse, r.chance(0.3) {
                name = "ev_\(f.name)"
                byEvent = r.chance(0.5)  // `event` instead of `feature`
            }
            if r.chance(0.05) { name = "no_such_feature" }
            if r.chance(0.03) { byEvent = true }  // `event` naming a feature's name: names nothing
            let n = r.chance(0.03) ? 1_000_000_000_000_000 : r.int64(spillHeavy ? 5...60 : 1...25)
            // Mostly what the feature expects; sometimes the other kind (ignored).
            let kind: UsageRecord.Kind = (f.shape == .continuous) != r.chance(0.1) ? .level(n) : .amount(n)
            var at: Instant? = r.chance(history ? 0.05 : 0.15) ? nil : instant(before: span, after: history ? 0 : span / 10)
            if at != nil, nowHeavy, atNow.chance(0.3) { at = Instant(seconds: t) }
            // Idempotency keys, some repeated (retries).
            var id: String?
            if r.chance(0.3) {
                id = !ids.isEmpty && r.chance(0.4) ? r.pick(ids) : "u\(ids.count)"
                if let id, !ids.contains(id) { ids.append(id) }
            }
            state.usage.append(byEvent ? UsageRecord(event: name, kind: kind, at: at, id: id)
                                       : UsageRecord(feature: name, kind: kind, at: at, id: id))
        }
        if r.chance(0.3) { state.customerSince = instant(before: span, after: span / 10) }
        // Grants to this customer: of an entitlement (sometimes one the rules lack), or of a feature
        // or credit system, with soft limits and lots.
        for _ in 0..<(commercial ? r.int(1...4) : r.chance(0.15) ? 1 : 0) {
            let from = instant(before: span, after: span / 10)
            let until: Instant? = r.chance(0.6) ? Instant(seconds: from.seconds + r.int64(60...span)) : nil
            if !entitlementNames.isEmpty, r.chance(0.35) {
                state.grants.append(StateGrant(target: .entitlement(r.pick(entitlementNames)), from: from, until: until,
                                               id: r.chance(0.5) ? "g\(state.grants.count)" : nil, reason: "promo"))
                continue
            }
            guard let f = features.randomElement(using: &r) else { continue }
            var g = StateGrant(target: .feature(f.name), from: from, until: until, id: r.chance(0.5) ? "g\(state.grants.count)" : nil)
            switch f.shape {
            case .boolean: break
            case .continuous: g.amount = r.chance(0.1) ? .unlimited : .count(amount())
            case .singleUse, .credits:
                g.amount = r.chance(0.08) ? .unlimited : .count(amount())
                if r.chance(0.5) {
                    g.interval = Interval(rawValue: r.pick(intervals))
                    if r.chance(0.3) { g.carry = r.chance(0.5) ? .uncapped : .upTo(amount()) }
                }
                // Now and then on a credit system too: a warning, and no soft limit.
                if f.shape == .singleUse ? r.chance(commercial ? 0.6 : 0.3) : r.chance(0.05) {
                    g.overage = r.chance(0.5) ? .unbounded : .upTo(amount())
                }
                if r.chance(0.3) { g.priority = Int64(r.int(0...2)) }
            }
            state.grants.append(g)
        }
        let visible = products + (environment == .test ? testOnly : [])
        for _ in 0..<(r.chance(0.25) ? r.int(1...2) : 0) {
            state.setOverride(r.pick(visible).name, r.pick(Override.allCases))
        }
        self.state = state
    }
}
