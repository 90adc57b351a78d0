import EntlRuntime
import EntlSyntax

/// A deliberately simple evaluator for differential testing, written from docs/semantics.md and the
/// README's choices: it interprets the parsed AST directly (no compiled graph, no postfix
/// programs, no memoization), walks reset windows one at a time, and recomputes everything it
/// needs on every question. It is slow on purpose and shares nothing with EntlRuntime but the
/// input and result types.
public struct ReferenceEvaluator {
    struct Product {
        var name: String
        var kind: EntlRuntime.ProductKind
        var period: String?
        var duration: ReferenceStep?
        var ids: [(store: String, id: String)]
        var displayName: String?
    }

    struct Grant {
        enum Source { case product(String), entitlement(String), state(Int) }
        var source: Source
        var feature: String
        /// Nil: unlimited (or a boolean grant).
        var amount: Int64?
        var per: String?
        var carry: Bool
        var cap: Int64?
        var priority: Int64
        var order: Int
        /// A soft limit: `overage`, and its cap per window (nil: none).
        var overage = false
        var overageCap: Int64?
        /// A lot: `expires after N UNIT`, counted from its purchase.
        var expiresAfter: ReferenceStep?
    }

    struct Feature {
        var name: String
        var kind: EntlRuntime.FeatureKind
        var event: String?
        var requires: Expression?
        var routes: [(system: String, amount: Int64, credits: Int64)] = []
        var displayName: String?
        var unit: (singular: String, plural: String)?
    }

    let file: RuleFile
    let state: PurchaseState
    /// Whether results not allowed list what would allow them (off inside that search).
    var unlocks = true
    let environment: Environment
    /// The instant the evaluator reads the state at.
    private(set) var t: Int64
    /// Whether `t` is a past instant of an evaluation at a later one (§5, "what paid for a use
    /// stays paid"): a purchase that is `expired` or `billing_retry` today was owned then while
    /// within its dates.
    private(set) var pastReading = false
    var products: [Product] = []
    var entitlements: [(name: String, expression: Expression)] = []
    var features: [Feature] = []
    var grants: [Grant] = []
    /// What each usage record names (see `target(ofRecord:)`), worked out once.
    var recordTargets: [String?] = []
    /// The product each purchase names (see `resolve`), worked out once.
    var purchaseTargets: [String?] = []

    /// Interprets `file` as seen from the evaluated environment (the state's, unless given).
    public init(file: RuleFile, state: PurchaseState, environment: Environment? = nil, at t: Instant) {
        self.file = file
        self.state = state
        self.environment = environment ?? state.environment ?? .live
        self.t = t.seconds
        var visible: [Declaration] = []
        for d in file.declarations {
            if case .environment(let block) = d {
                if block.environment.value.rawValue == self.environment.rawValue { visible += block.declarations }
            } else {
                visible.append(d)
            }
        }
        var conversions: [(system: String, feature: String, amount: Int64, credits: Int64)] = []
        for d in visible {
            switch d {
            case .product(let p):
                var product = Product(name: p.name.name, kind: EntlRuntime.ProductKind(rawValue: p.kind!.value.rawValue)!, ids: [])
                for item in p.items {
                    switch item.kind {
                    case .period(let period): product.period = period.value.rawValue
                    case .duration(let n, let unit): product.duration = ReferenceStep(duration: n.value, unit: unit.value.rawValue)
                    case .storeID(let store, let id): product.ids.append((store.name, id.value))
                    case .displayName(let n): product.displayName = n.value
                    default: break
                    }
                }
                products.append(product)
                addGrants(p.items, .product(p.name.name))
            case .entitlement(let e):
                entitlements.append((e.name.name, e.expression))
                addGrants(e.items, .entitlement(e.name.name))
            case .feature(let f):
                var feature = Feature(name: f.name.name, kind: .boolean, requires: f.requires)
                if f.kind?.value.rawValue == "metered" {
                    feature.kind = .singleUse
                    for item in f.items {
                        if case .usage(let u) = item.kind, u.value == .continuous { feature.kind = .continuous }
                    }
                }
                for item in f.items {
                    switch item.kind {
                    case .event(let e): feature.event = e.value
                    case .displayName(let n): feature.displayName = n.value
                    case .unit(let one, let many): feature.unit = (one.value, many?.value ?? one.value)
                    default: break
                    }
                }
                features.append(feature)
            case .credits(let c):
                var system = Feature(name: c.name.name, kind: .credits)
                for item in c.items {
                    switch item.kind {
                    case .conversion(let f, let amount, let credits): conversions.append((c.name.name, f.name, amount.value, credits.value))
                    case .displayName(let n): system.displayName = n.value
                    case .unit(let one, let many): system.unit = (one.value, many?.value ?? one.value)
                    default: break
                    }
                }
                features.append(system)
            default:
                break
            }
        }
        for c in conversions {
            if let i = features.firstIndex(where: { $0.name == c.feature }) {
                features[i].routes.append((c.system, c.amount, c.credits))
            }
        }
        recordTargets = state.usage.indices.map(findTarget(ofRecord:))
        purchaseTargets = state.purchases.indices.map { try? resolve($0) }
    }

    private mutating func addGrants(_ items: [Item], _ source: Grant.Source) {
        for item in items {
            guard case .grant(let g) = item.kind else { continue }
            var amount: Int64?
            if case .count(let n)? = g.amount { amount = n.value }
            var grant = Grant(source: source, feature: g.feature.name, amount: amount, per: g.per?.value.rawValue,
                              carry: g.carry != nil, cap: g.carry?.cap?.value, priority: g.priority?.value ?? 0,
                              order: grants.count)
            grant.overage = g.overage != nil
            grant.overageCap = g.overage?.cap?.value
            grant.expiresAfter = g.expiresAfter.map {
                ReferenceStep(duration: $0.count.value, unit: $0.unit.value.rawValue)
            }
            grants.append(grant)
        }
    }

    // MARK: - Purchases and products (§2)

    enum Standing: Equatable { case owned, notOwned, unknown }

    func product(named name: String) -> Product? { products.first { $0.name == name } }

    func productOrder(_ name: String) -> Int { products.firstIndex { $0.name == name }! }

    /// The product purchase `j` names in the evaluated environment, nil when none.
    func resolve(_ j: Int) throws(EvaluationError) -> String? {
        let p = state.purchases[j]
        guard p.environment == environment else { return nil }
        if let store = p.store {
            return products.first { $0.ids.contains { $0.store == store && $0.id == p.product } }?.name
        }
        if products.contains(where: { $0.name == p.product }) { return p.product }
        let owners = products.filter { $0.ids.contains { $0.id == p.product } }
        if owners.count > 1 { throw EvaluationError("purchases[\(j)]: ambiguous store id \(p.product)") }
        return owners.first?.name
    }

    /// The state indices of the purchases of product `name`, in state order.
    func purchases(of name: String) -> [Int] {
        state.purchases.indices.filter { purchaseTargets[$0] == name }
    }

    func expiry(_ j: Int) -> Int64? {
        let p = state.purchases[j]
        if let e = p.expiresAt { return e.seconds }
        let product = product(named: purchaseTargets[j]!)!
        if product.kind == .nonRenewing, let d = product.duration, let bought = p.purchasedAt {
            return ReferenceCalendar.add(bought.seconds, d)
        }
        return nil
    }

    /// When an owned purchase stops counting by itself; nil: never.
    func accessEnd(_ j: Int) -> Int64? {
        let p = state.purchases[j]
        if product(named: purchaseTargets[j]!)!.kind == .consumable { return nil }
        if p.status == .pastDue { return p.graceUntil?.seconds }
        return expiry(j)
    }

    /// The state as read at an earlier instant `e` of this evaluation (at `t` itself, as it is).
    func reading(at e: Int64) -> ReferenceEvaluator {
        var then = self
        then.pastReading = e < t
        then.t = e
        then.unlocks = false
        return then
    }

    /// The state as a later evaluation reads its instant `t` (§5): a past instant.
    func readingAsPast() -> ReferenceEvaluator {
        var then = self
        then.pastReading = true
        then.unlocks = false
        return then
    }

    func standing(_ j: Int) -> Standing {
        let p = state.purchases[j]
        if p.status == .revoked { return .notOwned }
        if [.expired, .billingRetry].contains(p.status), !pastReading { return .notOwned }
        // §2 rule 11: a purchase dated after `t` does not exist yet.
        if let bought = p.purchasedAt, bought.seconds > t { return .notOwned }
        // §1: a quantity is never unknown, so a purchase of no units makes nothing unknown.
        if product(named: purchaseTargets[j]!)!.kind == .consumable, p.quantity < 1 { return .notOwned }
        if p.status == .unknown { return .unknown }
        if product(named: purchaseTargets[j]!)!.kind == .consumable { return .owned }
        switch p.status {
        case .pastDue: return p.graceUntil.map { t < $0.seconds } ?? true ? .owned : .notOwned
        // Read at a past instant, an `expired` or `billing_retry` purchase was owned within its dates.
        case .active, .trialing, .expired, .billingRetry: return expiry(j).map { t < $0 } ?? true ? .owned : .notOwned
        case .canceled: return expiry(j).map { t < $0 } ?? false ? .owned : .notOwned
        default: return .unknown
        }
    }

    func override(of name: String) -> Override? {
        state.overrides.last { $0.product == name }?.value
    }

    func truth(ofProduct name: String) -> Truth {
        switch override(of: name) {
        case .purchased?: return .true
        case .notPurchased?: return .false
        case .unknown?: return .unknown
        case nil:
            let standings = purchases(of: name).map(standing)
            return standings.contains(.owned) ? .true : standings.contains(.unknown) ? .unknown : .false
        }
    }

    /// Units of a consumable held for certain.
    func quantity(of name: String) -> Int64 {
        switch override(of: name) {
        case .purchased?: return 1
        case .notPurchased?, .unknown?: return 0
        case nil:
            return purchases(of: name).filter { standing($0) == .owned }
                .reduce(Int64(0)) { $0.addingReportingOverflow(state.purchases[$1].quantity).overflow ? .max : $0 + state.purchases[$1].quantity }
        }
    }

    /// When the product stops being owned by itself: its longest-lasting owned purchase's end.
    /// `.max` stands for never.
    func end(ofProduct name: String) -> Int64 {
        if override(of: name) != nil { return .max }
        return purchases(of: name).filter { standing($0) == .owned }.map { accessEnd($0) ?? .max }.max() ?? .max
    }

    // MARK: - Constraints and entitlements (§1, §3)

    /// §3: an entitlement is active when its expression is true, or when a state grant of it
    /// covers `t`: `EXPR or grant`, ending at the later of the two when both hold.
    func entitlementValue(_ name: String) -> (Truth, Int64) {
        let expression = value(expression(ofEntitlement: name)!)
        let covering = coveringGrants(ofEntitlement: name)
        guard !covering.isEmpty else { return expression }
        let end = covering.map { state.grants[$0].until?.seconds ?? .max }.max()!
        return (.true, expression.0 == .true ? max(expression.1, end) : end)
    }

    /// The state grants of an entitlement that cover `t`.
    func coveringGrants(ofEntitlement name: String) -> [Int] {
        state.grants.indices.filter { i in
            if case .entitlement(let e) = state.grants[i].target, e == name { return grantCovers(i) }
            return false
        }
    }

    func grantCovers(_ i: Int) -> Bool {
        let g = state.grants[i]
        return g.from.seconds <= t && g.until.map { t < $0.seconds } ?? true
    }

    func expression(ofEntitlement name: String) -> Expression? {
        entitlements.first { $0.name == name }?.expression
    }

    /// Kleene truth and, when true, the end (`.max`: never).
    func value(_ e: Expression) -> (Truth, Int64) {
        switch e {
        case .reference(let id):
            if expression(ofEntitlement: id.name) != nil { return entitlementValue(id.name) }
            return (truth(ofProduct: id.name), end(ofProduct: id.name))
        case .atLeast(let id, let n):
            switch override(of: id.name) {
            case .purchased?: return (1 >= n.value ? .true : .false, .max)
            case .notPurchased?: return (.false, .max)
            case .unknown?: return (.unknown, .max)
            case nil:
                // §1: true when the owned units reach N; false when even those plus the units of
                // the unknown purchases fall short; unknown otherwise.
                let owned = quantity(of: id.name)
                if owned >= n.value { return (.true, .max) }
                let unknownUnits = purchases(of: id.name).filter { standing($0) == .unknown }
                    .reduce(Int128(0)) { $0 + Int128(state.purchases[$1].quantity) }
                return (Int128(owned) + unknownUnits >= Int128(n.value) ? .unknown : .false, .max)
            }
        case .everyone:
            return (.true, .max)
        case .purchased(let id, let date):
            return purchased(id.name, Self.filter(date))
        case .not(let inner, _):
            return (!value(inner).0, .max)
        case .and(let terms):
            let values = terms.map(value)
            return (values.reduce(Truth.true) { $0 && $1.0 }, values.map(\.1).min()!)
        case .or(let terms):
            let values = terms.map(value)
            let ends = values.filter { $0.0 == .true }.map(\.1)
            return (values.reduce(Truth.false) { $0 || $1.0 }, ends.max() ?? .max)
        case .error:
            fatalError("generated rules have no syntax errors")
        }
    }

    /// A purchase-date qualifier: before (true) or since, and the instant in seconds.
    struct DateFilter: Hashable {
        var before: Bool
        var instant: Int64
        func admits(_ j: Int, _ state: PurchaseState) -> Bool? {
            state.purchases[j].purchasedAt.map { before ? $0.seconds < instant : $0.seconds >= instant }
        }
    }

    static func filter(_ date: PurchaseDate) -> DateFilter {
        DateFilter(before: date.relation.value == .before, instant: Instant(rfc3339: date.instant.value)!.seconds)
    }

    /// §2 rule 9: true when some owned purchase of the product has `purchased_at` before (since)
    /// the instant; otherwise unknown when an owned purchase has no `purchased_at`, or an unknown
    /// purchase might qualify (its `purchased_at` qualifies or is absent); otherwise false. An
    /// override decides alone. When true, it ends with the latest end of those purchases.
    func purchased(_ name: String, _ filter: DateFilter) -> (Truth, Int64) {
        switch override(of: name) {
        case .purchased?: return (.true, .max)
        case .notPurchased?: return (.false, .max)
        case .unknown?: return (.unknown, .max)
        case nil: break
        }
        let qualifying = purchases(of: name).filter { standing($0) == .owned && filter.admits($0, state) == true }
        if !qualifying.isEmpty { return (.true, qualifying.map { accessEnd($0) ?? .max }.max()!) }
        let owned = purchases(of: name).filter { standing($0) == .owned }
        let unknown = purchases(of: name).filter { standing($0) == .unknown }
        let maybe = owned.contains { filter.admits($0, state) == nil } || unknown.contains { filter.admits($0, state) != false }
        return (maybe ? .unknown : .false, .max)
    }

    /// Products named in `e` (through nested entitlements): all of them, or only those under an
    /// even number of `not`s.
    func products(in e: Expression, positiveOnly: Bool, negated: Bool = false) -> Set<String> {
        Set(behind(in: e, positiveOnly: positiveOnly, negated: negated).map(\.product))
    }

    /// The products named in `e` (through nested entitlements) with their purchase-date
    /// qualifiers: all of them, or only those under an even number of `not`s.
    func behind(in e: Expression, positiveOnly: Bool, negated: Bool = false) -> Set<Behind> {
        switch e {
        case .reference(let id):
            if let inner = expression(ofEntitlement: id.name) { return behind(in: inner, positiveOnly: positiveOnly, negated: negated) }
            return positiveOnly && negated ? [] : [Behind(product: id.name, filter: nil)]
        case .atLeast(let id, _):
            return positiveOnly && negated ? [] : [Behind(product: id.name, filter: nil)]
        case .purchased(let id, let date):
            return positiveOnly && negated ? [] : [Behind(product: id.name, filter: Self.filter(date))]
        case .everyone:
            return []
        case .not(let inner, _):
            return behind(in: inner, positiveOnly: positiveOnly, negated: !negated)
        case .and(let terms), .or(let terms):
            return terms.reduce(into: Set<Behind>()) { $0.formUnion(behind(in: $1, positiveOnly: positiveOnly, negated: negated)) }
        case .error:
            return []
        }
    }

    struct Behind: Hashable {
        var product: String
        var filter: DateFilter?
    }

    /// The products behind an entitlement (named positively), with their qualifiers.
    func behind(ofEntitlement name: String) -> [Behind] {
        Array(behind(in: expression(ofEntitlement: name)!, positiveOnly: true))
    }

    /// The purchases behind an entitlement: of a product named without a qualifier, all; with
    /// one, those it admits (a purchase without `purchased_at` is admitted by none).
    func purchasesBehind(ofEntitlement name: String, includingLater: Bool = false) -> [Int] {
        let b = behind(ofEntitlement: name)
        // §2 rule 11: a purchase dated after `t` is behind nothing yet.
        let admitted = state.purchases.indices.filter { j in
            let exists = includingLater || state.purchases[j].purchasedAt.map { $0.seconds <= t } ?? true
            return exists && b.contains { $0.product == purchaseTargets[j] && ($0.filter.map { f in f.admits(j, state) == true } ?? true) }
        }
        // In product declaration order, then state order.
        return admitted.sorted { (productOrder(purchaseTargets[$0]!), $0) < (productOrder(purchaseTargets[$1]!), $1) }
    }

    enum Representative: Equatable { case purchase(Int), override(String), stateGrant(Int) }

    /// The owned purchase behind an entitlement that lasts longest: no end beats any end, then
    /// the later end, then the earlier `purchased_at` (unknown last), then product declaration
    /// order, then state order. A product overridden to purchased is a lifetime purchase. When its
    /// expression does not hold, a covering state grant represents it: the one lasting longest (no
    /// `until` beats any, then the later, then the earlier `from`, then state order).
    func representative(ofEntitlement name: String) -> Representative? {
        let covering = coveringGrants(ofEntitlement: name)
        if !covering.isEmpty, value(expression(ofEntitlement: name)!).0 != .true {
            let best = covering.min { a, b in
                let (x, y) = (state.grants[a], state.grants[b])
                let (ex, ey) = (x.until?.seconds ?? .max, y.until?.seconds ?? .max)
                if ex != ey { return ex > ey }
                if x.from != y.from { return x.from < y.from }
                return a < b
            }!
            return .stateGrant(best)
        }
        var offers: [(rep: Representative, end: Int64, bought: Int64, product: Int, index: Int)] = []
        for p in Set(behind(ofEntitlement: name).map(\.product)) where override(of: p) == .purchased {
            offers.append((.override(p), .max, .max, productOrder(p), -1))
        }
        for j in ownedPurchasesBehind(ofEntitlement: name) {
            let p = purchaseTargets[j]!
            offers.append((.purchase(j), accessEnd(j) ?? .max, state.purchases[j].purchasedAt?.seconds ?? .max, productOrder(p), j))
        }
        return offers.min { a, b in
            if a.end != b.end { return a.end > b.end }
            if a.bought != b.bought { return a.bought < b.bought }
            if a.product != b.product { return a.product < b.product }
            return a.index < b.index
        }?.rep
    }

    /// The owned purchases behind an entitlement, of products no override decides: what may
    /// represent it, or pay for its grants.
    func ownedPurchasesBehind(ofEntitlement name: String) -> [Int] {
        purchasesBehind(ofEntitlement: name).filter { override(of: purchaseTargets[$0]!) == nil && standing($0) == .owned }
    }

    /// Of the owned purchases behind an entitlement (none overridden), the one bought first: dated
    /// before undated, then as the representative ranks them.
    func firstBought(behindEntitlement name: String) -> Int? {
        ownedPurchasesBehind(ofEntitlement: name).min { a, b in
            let (x, y) = (state.purchases[a].purchasedAt?.seconds ?? .max, state.purchases[b].purchasedAt?.seconds ?? .max)
            if x != y { return x < y }
            let (ea, eb) = (accessEnd(a) ?? .max, accessEnd(b) ?? .max)
            if ea != eb { return ea > eb }
            let (pa, pb) = (productOrder(purchaseTargets[a]!), productOrder(purchaseTargets[b]!))
            return pa != pb ? pa < pb : a < b
        }
    }

    func store(of j: Int) -> String? {
        let p = state.purchases[j]
        if let s = p.store { return s }
        // Named by its rule name: no store matched (even if some store's id spells the same).
        if products.contains(where: { $0.name == p.product }) { return nil }
        return product(named: purchaseTargets[j]!)!.ids.first { $0.id == p.product }?.store
    }

    func willRenew(_ j: Int) -> Bool {
        let p = state.purchases[j]
        if let w = p.willRenew { return w }
        return product(named: purchaseTargets[j]!)!.kind == .subscription && [.active, .trialing, .pastDue].contains(p.status)
    }

    func periodName(_ name: String) -> String? {
        let p = product(named: name)!
        switch p.kind {
        case .subscription: return p.period
        case .nonConsumable: return "lifetime"
        case .consumable, .nonRenewing: return nil
        }
    }

    // MARK: - valid_until (§6)

    /// The earliest instant after `t` at which a purchase of these products starts or stops
    /// counting by itself (overridden products never change by themselves).
    func nextChange(watching names: Set<String>) -> Int64? {
        var candidates: [Int64] = []
        for name in names where override(of: name) == nil {
            for j in purchases(of: name) {
                let p = state.purchases[j]
                if let bought = p.purchasedAt?.seconds, bought > t, ![.revoked, .expired, .billingRetry].contains(p.status) {
                    candidates.append(bought)
                }
                if standing(j) == .owned, let end = accessEnd(j) { candidates.append(end) }
            }
        }
        return candidates.filter { $0 > t }.min()
    }

    /// The products a feature's result depends on: those granting it, those named by the
    /// entitlements granting it and by its requirement, and the same for its credit systems. A
    /// single-use feature's or credit system's balance depends on everything replayed with it
    /// (uses spill into the systems), so it watches the products of its whole component.
    func watchedProducts(ofFeature name: String) -> Set<String> {
        func own(_ name: String) -> Set<String> {
            var set: Set<String> = []
            for g in grants where g.feature == name {
                switch g.source {
                case .product(let p): set.insert(p)
                case .entitlement(let e): set.formUnion(products(in: expression(ofEntitlement: e)!, positiveOnly: false))
                case .state: break
                }
            }
            let feature = features.first { $0.name == name }!
            if let r = feature.requires { set.formUnion(products(in: r, positiveOnly: false)) }
            return set
        }
        func replayedWith(_ name: String) -> [String] {
            let kind = features.first { $0.name == name }!.kind
            return kind == .singleUse || kind == .credits ? component(of: name) : [name]
        }
        var set = replayedWith(name).reduce(into: Set<String>()) { $0.formUnion(own($1)) }
        for route in features.first(where: { $0.name == name })!.routes {
            set = replayedWith(route.system).reduce(into: set) { $0.formUnion(own($1)) }
        }
        return set
    }

    static func instant(_ s: Int64?) -> Instant? { s.map { Instant(seconds: $0) } }
}

// MARK: - Results

extension ReferenceEvaluator {
    public func product(_ name: String) -> ProductResult {
        let consumable = product(named: name)!.kind == .consumable
        return ProductResult(name: name, decision: truth(ofProduct: name).decision, quantity: consumable ? quantity(of: name) : nil,
                             validUntil: Self.instant(nextChange(watching: [name])), explanation: [])
    }

    public func entitlement(_ name: String) -> EntitlementResult {
        let (active, end) = entitlementValue(name)
        let positive = behind(ofEntitlement: name)
        let behind = purchasesBehind(ofEntitlement: name)
        var r = EntitlementResult(
            name: name, decision: active.decision, product: nil, store: nil, expiresAt: nil, willRenew: false,
            inGracePeriod: false, inBillingRetry: behind.contains { state.purchases[$0].status == .billingRetry },
            isRevoked: false, ownership: nil, period: nil, isTrial: false,
            validUntil: Self.instant(nextChange(watching: products(in: expression(ofEntitlement: name)!, positiveOnly: false))),
            explanation: [])
        let anyOwned = positive.contains { b in (b.filter.map { purchased(b.product, $0).0 } ?? truth(ofProduct: b.product)) == .true }
        r.isRevoked = !anyOwned && behind.contains { state.purchases[$0].status == .revoked }
        if active == .true {
            r.expiresAt = end == .max ? nil : Instant(seconds: end)
            switch representative(ofEntitlement: name) {
            case .stateGrant?:
                r.status = .promotional
            case .override(let p)?:
                r.product = p
                r.ownership = .purchased
                r.period = "lifetime"
                r.status = .active
            case .purchase(let j)?:
                let p = state.purchases[j]
                r.product = purchaseTargets[j]
                r.store = store(of: j)
                r.storeProductID = storeProductID(of: j)
                r.willRenew = willRenew(j)
                r.inGracePeriod = p.status == .pastDue
                r.ownership = p.ownership
                r.period = periodName(r.product!)
                r.isTrial = p.status == .trialing
                r.trialEnd = r.isTrial ? p.expiresAt : nil
                // The representative's own status; an owned purchase is one of these four.
                r.status = EntitlementStatus(rawValue: p.status.rawValue)!
            case nil:
                r.status = .active
            }
        } else if let j = mostRecentlyEnded(behind.filter(hasEnded)) {
            // Inactive: the purchase behind it that ended last. It never reports an end after `t`
            // (a purchase its status ended before its dates did reports none).
            let p = state.purchases[j]
            r.product = purchaseTargets[j]
            r.store = store(of: j)
            r.storeProductID = storeProductID(of: j)
            r.expiresAt = Self.instant(accessEnd(j).flatMap { $0 <= t ? $0 : nil })
            r.willRenew = willRenew(j)
            r.ownership = p.ownership
            r.period = periodName(r.product!)
        }
        r.displayName = r.product.flatMap { product(named: $0)?.displayName }
        if active == .unknown {
            r.status = .unknown
        } else if active == .false {
            // In this order of precedence.
            // §3: `expired` when a purchase behind it has ended by `t` through its status `expired`
            // or its access end — not one a refund ended while another is owned (it is reported,
            // but nothing expired: `never_purchased`, the expression not satisfied otherwise).
            let expired = behind.contains { j in
                hasEnded(j) && (state.purchases[j].status == .expired || accessEnd(j).map { $0 <= t } ?? false)
            }
            r.status = r.inBillingRetry ? .billingRetry : r.isRevoked ? .revoked : expired ? .expired : .neverPurchased
        }
        // §6: a purchase behind it dated later changes what it reports when it comes to exist, and
        // while it is not active, one that ends changes it too (it is then the one that ended).
        var changes: [Int64] = r.validUntil.map { [$0.seconds] } ?? []
        for j in purchasesBehind(ofEntitlement: name, includingLater: true) {
            let p = state.purchases[j]
            if let bought = p.purchasedAt?.seconds, bought > t {
                changes.append(bought)
            } else if active != .true, p.status != .unknown, let end = accessEnd(j), end > t {
                changes.append(end)
            }
        }
        changes += stateGrantChanges()
        r.validUntil = Self.instant(changes.min())
        if active != .true { r.unlockedBy = unlocking { $0.entitlementValue(name).0 == .true } }
        return r
    }

    /// §6: every state grant's `from` after `t`, and its `until` after `t`.
    func stateGrantChanges() -> [Int64] {
        state.grants.flatMap { g in [g.from.seconds, g.until?.seconds].compactMap { $0 }.filter { $0 > t } }
    }

    /// The purchase's id at its store: what it names its product by, unless that is the rule name
    /// (docs/state.md: with a store, only that store's ids match).
    func storeProductID(of j: Int) -> String? {
        let p = state.purchases[j]
        if p.store == nil, products.contains(where: { $0.name == p.product }) { return nil }
        return p.product
    }

    /// §4.6, by the words: every product (declaration order) such that buying it now — an active
    /// purchase made at `t`, a subscription for one period — on top of the state makes `allows`
    /// true of the evaluation.
    func unlocking(_ allows: (ReferenceEvaluator) -> Bool) -> [String]? {
        guard unlocks else { return nil }
        return products.filter { p in
            var more = state
            let end = p.kind == .subscription ? p.period.map { ReferenceCalendar.add(t, ReferenceStep(interval: $0)) } : nil
            more.purchases.append(Purchase(product: p.name, status: .active, purchasedAt: Instant(seconds: t),
                                           expiresAt: end.map { Instant(seconds: $0) }, environment: environment))
            var after = ReferenceEvaluator(file: file, state: more, environment: environment, at: Instant(seconds: t))
            after.unlocks = false
            return allows(after)
        }.map(\.name)
    }

    /// §3: whether purchase `j` has ended by `t`: it is not owned through its status (`expired`,
    /// `revoked`, `billing_retry`) or its access end is at or before `t`. An unknown purchase and
    /// one dated after `t` have not ended.
    func hasEnded(_ j: Int) -> Bool {
        let p = state.purchases[j]
        if p.status == .unknown { return false }
        if let bought = p.purchasedAt, bought.seconds > t { return false }
        if [.expired, .revoked, .billingRetry].contains(p.status) { return true }
        return accessEnd(j).map { $0 <= t } ?? false
    }

    /// Of `candidates` (in order), the one that ended last: by access end (a status-ended one
    /// without an access end by its `purchased_at`; having one beats none), then the later
    /// `purchased_at` (having one beats none), else the first.
    func mostRecentlyEnded(_ candidates: [Int]) -> Int? {
        var best: Int?
        for j in candidates {
            guard let b = best else {
                best = j
                continue
            }
            let (e1, e2) = (accessEnd(j) ?? state.purchases[j].purchasedAt?.seconds,
                            accessEnd(b) ?? state.purchases[b].purchasedAt?.seconds)
            let (p1, p2) = (state.purchases[j].purchasedAt?.seconds, state.purchases[b].purchasedAt?.seconds)
            let later: Bool
            if e1 != e2 {
                later = e2 == nil || (e1 != nil && e1! > e2!)
            } else {
                later = p1 != nil && (p2 == nil || p1! > p2!)
            }
            if later { best = j }
        }
        return best
    }
}
