/// Something the evaluator could not do (unknown name, ambiguous store id, override of a product
/// that does not exist). The message is one line, ready to print; there is no separate place.
public typealias EvaluationError = InputError<Evaluation>

/// One evaluation: a pure function of (graph, state, environment, instant). Construction resolves
/// the purchases, computes ownership (§2) and entitlements (§3) once; queries (§4–§6) are then
/// answered from those tables. Same inputs, same results.
public struct Evaluation: Sendable {
    public let graph: EnvironmentGraph
    public var state: PurchaseState { tables.state }
    public let environment: Environment
    public let at: Instant
    /// Whether results carry their reasoning trail (`--explain`).
    public let explains: Bool
    /// Whether results that are not allowed say which products would allow them (`unlocked_by`,
    /// §4.6): one more evaluation per product that could matter.
    public let unlocks: Bool
    /// The purchases resolved against the graph, and what is computed on first use.
    let tables: EvaluationTables
    /// Whether a metered result's `valid_until` counts a use at `at` turning past a nanosecond
    /// later (`pastReadingChange`); a consume that reads the state then itself asks without it.
    var watchesUsesTurningPast = true

    var purchaseProduct: UnsafeBufferPointer<Int32> { tables.purchaseProduct }
    var standings: UnsafeBufferPointer<PurchaseStanding> { tables.standings }
    var byProduct: UnsafeBufferPointer<Int32> { tables.byProduct }
    var products: EvaluationTables.ProductStandings { tables.products }

    /// - Parameters:
    ///   - environment: wins over the state's `environment`; default live.
    ///   - at: the evaluation instant.
    ///   - unlock: compute `unlocked_by` for results that are not allowed.
    ///   - strict: what the rule set cannot make sense of in the state (`ruleSetWarnings`: a usage
    ///     record naming nothing, an unknown store, …) is an error, not a warning.
    ///
    /// A state built in code with a value its JSON cannot hold (an instant outside the years 0000
    /// … 9999, an amount outside 0 … 10^15: `PurchaseState.rangeError`), or an `at` more than 200
    /// years outside those years, is an error.
    public init(graph: RuleGraph, state: consuming PurchaseState, environment: Environment? = nil, at: Instant,
                explain: Bool = false, unlock: Bool = false, strict: Bool = false) throws(EvaluationError) {
        guard Instant.isEvaluable(at) else {
            throw EvaluationError("at: \(at.seconds) seconds since 1970 is outside the years 0000 … 9999")
        }
        if let error = state.rangeError { throw error }
        try self.init(graph: graph, tables: EvaluationTables(state: state), environment: environment, at: at,
                      explain: explain, unlock: unlock)
        if strict { try refuseRuleSetWarnings() }
    }

    /// An evaluation of `tables.state` filling `tables`, new ones or those of an evaluation done
    /// with them (`EvaluationScratch`).
    /// `strict` is the caller's to check (`refuseRuleSetWarnings`): the check inside the initializer
    /// made it copy the evaluation it returns (two retains and two releases a batch line).
    init(graph: RuleGraph, tables: EvaluationTables, environment: Environment?, at: Instant,
         explain: Bool, unlock: Bool) throws(EvaluationError) {
        let env = environment ?? tables.state.environment ?? .live
        if let ledger = tables.state.ledger, at < ledger.before { throw Evaluation.beforeLedger(ledger, at) }
        let g = graph[env]
        try tables.fill(g, environment: env, at: at)
        // The graph and the tables moved in last, once used (a use after would need a copy: a
        // retain and a release).
        (self.environment, self.at, self.explains, self.unlocks) = (env, at, explain, unlock)
        (self.graph, self.tables) = (g, tables)
    }

    /// `strict`: the first of `ruleSetWarnings` is an error.
    func refuseRuleSetWarnings() throws(EvaluationError) {
        if let first = ruleSetWarnings.first { throw EvaluationError(first.description) }
    }

    /// `past`: the state as read at `at`, an earlier instant of an evaluation at a later one (§5,
    /// "what paid for a use stays paid"); such an evaluation only finds candidates.
    init(_ g: EnvironmentGraph, state: consuming PurchaseState, environment env: Environment, at: Instant,
         explain: Bool, unlock: Bool, past: Bool = false) throws(EvaluationError) {
        self.graph = g
        self.environment = env
        self.at = at
        self.explains = explain
        self.unlocks = unlock
        self.tables = EvaluationTables(state: state)
        try tables.fill(g, environment: env, at: at, past: past)
    }

    /// The state indices of the purchases of product `p` (in this environment), in state order
    /// (a view into `byProduct`: no allocation).
    func purchases(of p: Int) -> PurchaseIndices {
        let run = products.purchases(of: p)
        return PurchaseIndices(run: byProduct, startIndex: Int(run.first), endIndex: Int(run.first + run.count))
    }

    /// The usage records of feature `f`, in state order.
    func usage(of f: Int) -> [Int] {
        let feature = Int32(f), usageFeature = tables.usageFeatures(in: graph)
        return usageFeature.indices.filter { usageFeature[$0] == feature }
    }

    func instant(of record: UsageRecord) -> Instant { record.at ?? at }

    /// The store a purchase came from: its own `store`, or the store whose id it matched; none
    /// when it names the product by its rule-set name (a name wins over ids, docs/state.md).
    func store(of j: Int) -> String? {
        if let s = state.purchases[j].store { return s }
        let product = state.purchases[j].product  // the field alone, not the purchase copied
        if graph.productNames[product] != nil { return nil }
        return graph.products[Int(purchaseProduct[j])].storeIDs.first { $0.id == product }?.store
    }

    /// When purchase `j` (of a matched product) stops counting by itself.
    func accessEnd(_ j: Int) -> End { tables.ends[j] }

    /// Kleene truth of entitlement `e` and, when true, when it stops holding by itself (§3).
    /// Computed on first use, its dependencies first (iteratively: no recursion on chain length).
    func entitlementValue(_ e: Int) -> (Truth, End) {
        tables.withEntitlements { memo in
            if let v = memo[e] { return v }
            // The entitlements waiting for a dependency (none, most often: no allocation).
            var pending: [Int] = []
            var x = e
            while true {
                if memo[x] == nil {
                    let program = graph.entitlements[x].program
                    var missing: Int?
                    for op in program {
                        if case .entitlement(let d) = op, memo[Int(d)] == nil {
                            missing = Int(d)
                            break
                        }
                    }
                    // A compiled graph has no cycles; a hand-made one with a cycle yields false.
                    if let d = missing, pending.count < memo.count {
                        pending.append(x)
                        x = d
                        continue
                    }
                    memo[x] = withStateGrants(x, run(program, entitlements: UnsafeBufferPointer(memo)))
                }
                guard let next = pending.popLast() else { break }
                x = next
            }
            return memo[e] ?? (.false, .never)
        }
    }

    /// Entitlement `e`'s constraint alone, without its own state grants (those of the entitlements
    /// it names count: they see it active).
    func constraintValue(_ e: Int) -> (Truth, End) {
        _ = entitlementValue(e)
        return tables.withEntitlements { memo in
            run(graph.entitlements[e].program, entitlements: UnsafeBufferPointer(memo))
        }
    }

    /// Runs a postfix constraint program on a stack of its length (on the call stack when short;
    /// its values are trivial, so assigning to a slot initializes it; `top` indexes it, so popping
    /// several values is one subtraction). A product ends with its representative owned purchase,
    /// `or` at the latest end among its true branches, `and` at the earliest end of its parts,
    /// `not x` and `x >= N` never.
    func run(_ program: [ConstraintOp], entitlements: UnsafeBufferPointer<(Truth, End)?>) -> (Truth, End) {
        withUnsafeTemporaryAllocation(of: (Truth, End).self, capacity: program.count) { stack in
            run(program, entitlements: entitlements, stack: stack)
        }
    }

    private func run(_ program: [ConstraintOp], entitlements: UnsafeBufferPointer<(Truth, End)?>,
                     stack: UnsafeMutableBufferPointer<(Truth, End)>) -> (Truth, End) {
        var top = 0
        let products = self.products
        for op in program {
            switch op {
            case .product(let p):
                stack[top] = products.value(Int(p))
                top += 1
            case .entitlement(let e):
                stack[top] = entitlements[Int(e)] ?? (.false, .never)
                top += 1
            case .atLeast(let p, let n):
                stack[top] = (products[Int(p)].atLeast(n), .never)
                top += 1
            case .everyone:
                stack[top] = (.true, .never)
                top += 1
            case .purchased(let p, let date):
                stack[top] = qualified(Int(p), date)
                top += 1
            case .not:
                stack[top - 1] = (!stack[top - 1].0, .never)
            case .and(let n):
                var t = Truth.true
                var e = End.never
                for i in (top - Int(n))..<top {
                    t = t && stack[i].0
                    e = min(e, stack[i].1)
                }
                top -= Int(n) - 1
                stack[top - 1] = (t, e)
            case .or(let n):
                var t = Truth.false
                var e: End?
                for i in (top - Int(n))..<top {
                    t = t || stack[i].0
                    if stack[i].0 == .true { e = max(e ?? stack[i].1, stack[i].1) }
                }
                top -= Int(n) - 1
                stack[top - 1] = (t, e ?? .never)
            }
        }
        return top > 0 ? stack[top - 1] : (.false, .never)
    }

    /// Kleene truth of a constraint's postfix program (a feature's `requires`): the entitlements it
    /// names are computed first, then the program runs as an entitlement's does.
    func truth(of program: [ConstraintOp]) -> Truth {
        for op in program { if case .entitlement(let e) = op { _ = entitlementValue(Int(e)) } }
        return tables.withEntitlements { memo in run(program, entitlements: UnsafeBufferPointer(memo)) }.0
    }

    // MARK: - Queries by name

    public func product(_ name: String) throws(EvaluationError) -> ProductResult {
        guard let p = graph.productNames[name] else { throw EvaluationError("unknown product `\(name)`") }
        return product(p)
    }

    public func entitlement(_ name: String) throws(EvaluationError) -> EntitlementResult {
        guard let e = graph.entitlementNames[name] else { throw EvaluationError("unknown entitlement `\(name)`") }
        return entitlement(e)
    }

    /// A feature or credit system. `required` is the amount needed (metered; ignored for boolean).
    public func feature(_ name: String, required: Int64 = 1) throws(EvaluationError) -> FeatureResult {
        guard let f = graph.featureNames[name] else { throw EvaluationError("unknown feature `\(name)`") }
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

    /// The state indices of product `p`'s purchases with the given standing.
    func purchases(of p: Int, _ standing: PurchaseStanding) -> [Int] {
        purchases(of: p).filter { standings[$0] == standing }
    }

    public func product(_ p: Int) -> ProductResult {
        let s = products[p]
        let kind = graph.products[p].kind
        let reason: Reason
        switch (s.override, s.truth) {
        case (let o?, _):
            reason = Reason { text in
                text.write("overridden to ")
                text.write(string: o.rawValue)
            }
        case (nil, .true) where kind == .consumable:
            let held = s.quantity
            reason = Reason { text in
                JSONValue.writeInteger(held, to: &text)
                text.write(" held")
            }
        case (nil, .true):
            let owned = purchases(of: p, .owned)
            reason = Reason { text in
                text.write("owned through ")
                text.write(string: Evaluation.purchaseList(owned))
            }
        case (nil, .unknown):
            let unknown = purchases(of: p, .unknown), held = s.quantity, consumable = kind == .consumable
            reason = Reason { text in
                if consumable {
                    JSONValue.writeInteger(held, to: &text)
                    text.write(" held for certain; ")
                }
                text.write("the status of ")
                text.write(string: Evaluation.purchaseList(unknown))
                text.write(" is unknown")
            }
        case (nil, .false): reason = purchases(of: p).isEmpty ? "no purchase" : "no purchase is owned now"
        }
        var result = ProductResult(name: graph.products[p].name, decision: s.truth.decision,
                                   quantity: kind == .consumable ? s.quantity : nil,
                                   validUntil: nextChange(watching: [p]),
                                   explanation: explains ? explainProducts([p]) : [])
        result.why = reason
        return result
    }

    static func purchaseList(_ indices: [Int]) -> String {
        let shown = indices.prefix(3).map { "purchase #\($0)" }
        return shown.joined(separator: ", ") + (indices.count > 3 ? " and \(indices.count - 3) more" : "")
    }

    /// `product: why` for every purchase of the products, and their overrides.
    func explainProducts(_ ps: [Int]) -> [String] {
        var lines: [String] = []
        for p in ps {
            let name = graph.products[p].name
            let own = purchases(of: p)
            if let o = products[p].override { lines.append("  product `\(name)`: overridden to \(o.rawValue)") }
            if own.isEmpty, products[p].override == nil { lines.append("  product `\(name)`: no purchases") }
            for j in own {
                let standing = standings[j].description(of: state.purchases[j])
                lines.append("  product `\(name)` ← purchase #\(j) \(describePurchase(j)): \(standing)")
            }
        }
        return lines
    }

    func describePurchase(_ j: Int) -> String {
        let pu = state.purchases[j]
        var text = "\"\(pu.product)\"" + (pu.store.map { " (\($0))" } ?? "") + " \(pu.status.rawValue)"
        if graph.products[Int(purchaseProduct[j])].kind == .consumable { text += " quantity \(pu.quantity)" }
        if let e = pu.expiresAt { text += " until \(e)" }
        if let g = pu.graceUntil { text += " grace until \(g)" }
        return text
    }

    /// The purchases of the state that count for nothing, with why (for `--explain`).
    public func ignoredPurchases() -> [String] {
        var lines: [String] = []
        for (j, s) in standings.enumerated() {
            if case .ignored = s {
                let pu = state.purchases[j]
                let why = s.description(of: pu).dropFirst("ignored (".count).dropLast()
                lines.append("purchase #\(j) \"\(pu.product)\"\(pu.store.map { " (\($0))" } ?? ""): ignored, \(why)")
            }
        }
        let (usageFeature, retries, _) = tables.usage(in: graph)
        let retried = Dictionary(retries.map { ($0.record, $0.first) }, uniquingKeysWith: { a, _ in a })
        for (i, f) in usageFeature.enumerated() where f < 0 {
            let record = state.usage[i]
            let named = "usage[\(i)] " + (record.isEvent ? "event " : "") + "\"\(record.name)\""
            if let first = retried[i] {
                let of = first >= 0 ? "usage[\(first)]" : "ledger.ids[\(-1 - first)]"
                lines.append("\(named): ignored, a retry of \(of) (id \"\(record.id ?? "")\")")
            } else {
                lines.append("\(named): ignored, no \(record.isEvent ? "event" : "feature or event") of that name")
            }
        }
        return lines
    }

    // MARK: - valid_until (§6)

    /// The earliest instant after `t` at which a purchase of these products starts or stops
    /// counting by itself. Overridden products never change by themselves.
    func nextChange(watching ps: [Int]) -> Instant? {
        var best: Instant?
        for p in ps {
            let standing = products[p]
            if standing.override == nil { best = earliest(best, standing.nextChange) }
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

/// State indices of purchases: a run of `EvaluationTables.byProduct`, read as `Int`s (a plain
/// collection: a generic lazy map would cost more than the search that finds the run).
struct PurchaseIndices: RandomAccessCollection {
    let run: UnsafeBufferPointer<Int32>
    let startIndex: Int
    let endIndex: Int

    subscript(i: Int) -> Int { Int(run[i]) }
}
