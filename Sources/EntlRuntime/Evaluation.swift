/// One evaluation: a pure function of (graph, state, environment, instant). Construction resolves
/// the purchases, computes ownership (§2) and entitlements (§3) once; queries (§4–§6) are then
/// answered from those tables. Same inputs, same results.
public struct Evaluation: Sendable {
    public let graph: EnvironmentGraph
    public let state: PurchaseState
    public let environment: Environment
    public let at: Instant
    /// Whether results carry their reasoning trail (`--explain`).
    public let explains: Bool

    /// Per state purchase: the product index, or -1 when it names none in this environment.
    let purchaseProduct: [Int]
    /// Per state purchase: the store whose id matched (or the purchase's own `store`).
    let purchaseStore: [String?]
    let standings: [PurchaseStanding]
    let products: [ProductStanding]
    let entitlementTruth: [Truth]
    let entitlementEnd: [End]
    /// Per feature: the state usage records that name it (by name or `event`), in state order.
    let usage: [[Int]]
    /// Usage records that name no feature (shown by `--explain`).
    let unmatchedUsage: [Int]

    /// - Parameters:
    ///   - environment: wins over the state's `environment`; default live.
    ///   - at: the evaluation instant.
    public init(graph: RuleGraph, state: PurchaseState, environment: Environment? = nil, at: Instant,
                explain: Bool = false) throws(EvaluationError) {
        let env = environment ?? state.environment ?? .live
        let g = graph[env]
        self.graph = g
        self.state = state
        self.environment = env
        self.at = at
        self.explains = explain

        let resolver = OwnershipResolver(graph: g, environment: env)
        var purchaseProduct = [Int](repeating: -1, count: state.purchases.count)
        var purchaseStore = [String?](repeating: nil, count: state.purchases.count)
        var standings = [PurchaseStanding](repeating: .unknown, count: state.purchases.count)
        var products = [ProductStanding](repeating: ProductStanding(), count: g.products.count)
        for (product, value) in state.overrides {
            guard let p = g.productIndex[product] else {
                throw EvaluationError("overrides.\(product): no product `\(product)` in environment \(env.rawValue)")
            }
            products[p].override = value
        }
        for (j, purchase) in state.purchases.enumerated() {
            guard purchase.environment == env else {
                standings[j] = .ignored("environment \(purchase.environment.rawValue), evaluating \(env.rawValue)")
                continue
            }
            switch try resolver.product(of: purchase, path: "purchases[\(j)]") {
            case .none(let why):
                standings[j] = why
            case .product(let p):
                purchaseProduct[j] = p
                purchaseStore[j] = purchase.store ?? g.products[p].storeIDs.first { $0.id == purchase.product }?.store
                let product = g.products[p]
                let standing = OwnershipResolver.standing(purchase, product, at: at)
                standings[j] = standing
                products[p].purchases.append(j)
                switch standing {
                case .owned:
                    products[p].owned.append(j)
                    if product.kind == .consumable {
                        products[p].quantity = products[p].quantity.addingSaturating(purchase.quantity)
                    }
                case .unknown:
                    products[p].unknown.append(j)
                default:
                    break
                }
            }
        }
        // A product is owned if any purchase is, else unknown if any is, else not; an override decides alone.
        for p in products.indices {
            switch products[p].override {
            case .purchased?:
                products[p].truth = .true
                products[p].quantity = 1
                products[p].end = .never
            case .notPurchased?:
                products[p].truth = .false
            case .unknown?:
                products[p].truth = .unknown
            case nil:
                products[p].truth = !products[p].owned.isEmpty ? .true : !products[p].unknown.isEmpty ? .unknown : .false
                var end = End.at(Instant(seconds: Int64.min / 4))
                for j in products[p].owned {
                    end = max(end, OwnershipResolver.accessEnd(state.purchases[j], g.products[p]))
                }
                products[p].end = products[p].owned.isEmpty ? .never : end
            }
        }
        self.purchaseProduct = purchaseProduct
        self.purchaseStore = purchaseStore
        self.standings = standings
        self.products = products

        var truth = [Truth](repeating: .false, count: g.entitlements.count)
        var end = [End](repeating: .never, count: g.entitlements.count)
        for e in g.entitlementOrder {
            (truth[e], end[e]) = Evaluation.evaluate(g.entitlements[e].constraint, products: products, truth: truth, end: end)
        }
        self.entitlementTruth = truth
        self.entitlementEnd = end

        var usage = [[Int]](repeating: [], count: g.features.count)
        var unmatched: [Int] = []
        for (i, record) in state.usage.enumerated() {
            if let f = g.featureIndex[record.feature] ?? g.eventIndex[record.feature] {
                usage[f].append(i)
            } else {
                unmatched.append(i)
            }
        }
        self.usage = usage
        self.unmatchedUsage = unmatched
    }

    /// Kleene truth of a constraint and, when true, when it stops holding by itself (§3):
    /// a product ends with its representative owned purchase, `or` at the latest end among its
    /// true branches, `and` at the earliest end of its parts, `not x` and `x >= N` never.
    static func evaluate(_ c: Constraint, products: [ProductStanding], truth: [Truth], end: [End]) -> (Truth, End) {
        switch c {
        case .product(let p):
            return (products[p].truth, products[p].end)
        case .entitlement(let e):
            return (truth[e], end[e])
        case .atLeast(let p, let n):
            let s = products[p]
            let t: Truth
            switch s.override {
            case .purchased?: t = s.quantity >= n ? .true : .false
            case .notPurchased?: t = .false
            case .unknown?: t = .unknown
            case nil: t = s.quantity >= n ? .true : s.unknown.isEmpty ? .false : .unknown
            }
            return (t, .never)
        case .not(let inner):
            return (!evaluate(inner, products: products, truth: truth, end: end).0, .never)
        case .and(let terms):
            var t = Truth.true
            var e = End.never
            for term in terms {
                let (tt, te) = evaluate(term, products: products, truth: truth, end: end)
                t = t && tt
                e = min(e, te)
            }
            return (t, e)
        case .or(let terms):
            var t = Truth.false
            var e: End?
            for term in terms {
                let (tt, te) = evaluate(term, products: products, truth: truth, end: end)
                t = t || tt
                if tt == .true { e = max(e ?? te, te) }
            }
            return (t, e ?? .never)
        }
    }

    func truth(of c: Constraint) -> Truth {
        Evaluation.evaluate(c, products: products, truth: entitlementTruth, end: entitlementEnd).0
    }

    // MARK: - Queries by name

    public func product(_ name: String) throws(EvaluationError) -> ProductResult {
        guard let p = graph.productIndex[name] else { throw EvaluationError("unknown product `\(name)`") }
        return product(p)
    }

    public func entitlement(_ name: String) throws(EvaluationError) -> EntitlementResult {
        guard let e = graph.entitlementIndex[name] else { throw EvaluationError("unknown entitlement `\(name)`") }
        return entitlement(e)
    }

    /// A feature or credit system. `required` is the amount needed (metered; ignored for boolean).
    public func feature(_ name: String, required: Int64 = 1) throws(EvaluationError) -> FeatureResult {
        guard let f = graph.featureIndex[name] else { throw EvaluationError("unknown feature `\(name)`") }
        guard required >= 1 else { throw EvaluationError("the required amount must be at least 1") }
        return feature(f, required: required)
    }

    /// Every product, then every entitlement, then every feature and credit system, each in
    /// declaration order.
    public func all() -> [EvaluationResult] {
        graph.products.indices.map { .product(product($0)) }
            + graph.entitlements.indices.map { .entitlement(entitlement($0)) }
            + graph.features.indices.map { .feature(feature($0, required: 1)) }
    }

    // MARK: - Products (§2)

    public func product(_ p: Int) -> ProductResult {
        let s = products[p]
        let product = graph.products[p]
        let decision = s.truth.decision
        var reason: String
        switch (s.override, s.truth) {
        case (let o?, _): reason = "overridden to \(o.rawValue)"
        case (nil, .true):
            reason = product.kind == .consumable ? "\(s.quantity) held" : "owned through \(purchaseList(s.owned))"
        case (nil, .unknown): reason = "the status of \(purchaseList(s.unknown)) is unknown"
        case (nil, .false): reason = s.purchases.isEmpty ? "no purchase" : "no purchase is owned now"
        }
        if product.kind == .consumable, s.truth == .unknown, s.override == nil {
            reason = "\(s.quantity) held for certain; the status of \(purchaseList(s.unknown)) is unknown"
        }
        var explanation: [String] = []
        if explains { explanation = explainProducts([p]) }
        return ProductResult(name: product.name, decision: decision,
                             quantity: product.kind == .consumable ? s.quantity : nil,
                             validUntil: nextChange(watching: [p]), reason: reason, explanation: explanation)
    }

    func purchaseList(_ indices: [Int]) -> String {
        let shown = indices.prefix(3).map { "purchase #\($0)" }
        return shown.joined(separator: ", ") + (indices.count > 3 ? " and \(indices.count - 3) more" : "")
    }

    /// `product: why` for every purchase of the products, and their overrides.
    func explainProducts(_ ps: [Int]) -> [String] {
        var lines: [String] = []
        for p in ps {
            let s = products[p]
            let name = graph.products[p].name
            if let o = s.override { lines.append("  product `\(name)`: overridden to \(o.rawValue)") }
            if s.purchases.isEmpty, s.override == nil { lines.append("  product `\(name)`: no purchases") }
            for j in s.purchases {
                lines.append("  product `\(name)` ← purchase #\(j) \(describePurchase(j)): \(describe(standings[j]))")
            }
        }
        return lines
    }

    func describePurchase(_ j: Int) -> String {
        let pu = state.purchases[j]
        var text = "\"\(pu.product)\"" + (pu.store.map { " (\($0))" } ?? "") + " \(pu.status.rawValue)"
        if graph.products[purchaseProduct[j]].kind == .consumable { text += " quantity \(pu.quantity)" }
        if let e = pu.expiresAt { text += " until \(e)" }
        if let g = pu.graceUntil { text += " grace until \(g)" }
        return text
    }

    func describe(_ s: PurchaseStanding) -> String {
        switch s {
        case .owned: "counted (owned)"
        case .notOwned(let why): "not owned (\(why))"
        case .unknown: "unknown"
        case .ignored(let why): "ignored (\(why))"
        }
    }

    /// The purchases of the state that count for nothing, with why (for `--explain`).
    public func ignoredPurchases() -> [String] {
        var lines: [String] = []
        for (j, s) in standings.enumerated() {
            if case .ignored(let why) = s {
                let pu = state.purchases[j]
                lines.append("purchase #\(j) \"\(pu.product)\"\(pu.store.map { " (\($0))" } ?? ""): ignored, \(why)")
            }
        }
        for i in unmatchedUsage {
            lines.append("usage[\(i)] \"\(state.usage[i].feature)\": ignored, no feature or event of that name")
        }
        return lines
    }

    // MARK: - valid_until (§6)

    /// The earliest instant after `t` at which a purchase of these products starts or stops
    /// counting by itself. Overridden products never change by themselves.
    func nextChange(watching ps: [Int]) -> Instant? {
        var best: Instant?
        func consider(_ i: Instant) {
            if i > at, best.map({ i < $0 }) ?? true { best = i }
        }
        for p in ps where products[p].override == nil {
            for j in products[p].purchases {
                let purchase = state.purchases[j]
                if let bought = purchase.purchasedAt, bought > at, purchase.status != .revoked,
                   purchase.status != .expired, purchase.status != .billingRetry {
                    consider(bought)
                }
                if standings[j] == .owned, case .at(let end) = OwnershipResolver.accessEnd(purchase, graph.products[p]) {
                    consider(end)
                }
            }
        }
        return best
    }
}

func earliest(_ a: Instant?, _ b: Instant?) -> Instant? {
    switch (a, b) {
    case (let x?, let y?): min(x, y)
    case (let x?, nil): x
    case (nil, let y): y
    }
}
