import EntlRuntime
import EntlSyntax

/// Lowers a checked rule set without errors to the core of a `RuleGraph`: one self-contained
/// view per environment, read off the model (`EnvironmentModel`), whose lists of products,
/// entitlements and features are the graph's, index for index. Names become those indices,
/// grants are stored with the feature they grant (in declaration order, which is also their
/// `order`), credit conversions with their credit system, and entitlements get a dependency
/// order. `EnvironmentGraph.init` links the rest (what each result watches, §6; credit routes;
/// store ids), as it does for a graph loaded from an artifact.
///
/// INVARIANT: the input checked clean, so every name resolves to a declaration of the right
/// kind and no entitlement names itself. A name that resolved to nothing would lower to a
/// constraint that never holds, or a grant or conversion left out: never a trap.
enum Lowering {
    static func lower(_ checked: CheckedRuleSet) -> RuleGraph {
        let model = checked.model
        let live = lower(model.live)
        // The environment decides only which declarations are visible: with the same ones in
        // both, the test graph is the live one.
        let test = model.sameInEveryEnvironment ? live : lower(model.test)
        return RuleGraph(app: model.app, live: live, test: test)
    }

    private static func lower(_ env: EnvironmentModel) -> EnvironmentGraph {
        let entitlements = env.entitlements.map { entitlement($0, env) }
        var features = env.features.map { feature($0, env) }
        for (order, g) in env.grants.enumerated() {
            guard let f = g.feature else { continue }
            features[f].grants.append(grant(g, order: order))
        }
        return EnvironmentGraph(products: env.products.map(product), entitlements: entitlements, features: features,
                                entitlementOrder: dependencyOrder(entitlements))
    }

    // MARK: - Declarations

    private static func product(_ p: RuleModel.Product) -> Product {
        Product(name: p.name.name, displayName: p.displayName?.value, docs: docs(p.docs),
                kind: productKind(p.kind?.value ?? .nonConsumable), period: p.period.map { interval($0.value) },
                group: p.group?.name, duration: p.duration.map { step($0.count.value, $0.unit.value) },
                storeIDs: p.storeIDs.map { StoreID(store: $0.store.name, id: $0.id.value) })
    }

    private static func entitlement(_ e: RuleModel.Entitlement, _ env: EnvironmentModel) -> Entitlement {
        Entitlement(name: e.name.name, displayName: e.displayName?.value, docs: docs(e.docs),
                    constraint: constraint(e.constraint, env))
    }

    /// A feature or a credit system; its grants are added afterwards.
    private static func feature(_ f: RuleModel.Feature, _ env: EnvironmentModel) -> Feature {
        let conversions = f.conversions.compactMap { c -> Conversion? in
            guard case .feature(let target)? = env.resolve(c.feature.name) else { return nil }
            return Conversion(feature: target, amount: c.amount.value, credits: c.credits.value)
        }
        return Feature(name: f.name.name, displayName: f.displayName?.value, docs: docs(f.docs), kind: featureKind(f),
                       event: f.event?.value, unitSingular: f.unit?.singular.value, unitPlural: f.unit?.pluralText,
                       requires: f.requires.map { constraint($0, env) }, grants: [], conversions: conversions)
    }

    private static func grant(_ g: ResolvedGrant, order: Int) -> EntlRuntime.Grant {
        let source: EntlRuntime.Grant.Source = switch g.source {
        case .product(let p): .product(p)
        case .entitlement(let e): .entitlement(e)
        }
        let amount: EntlRuntime.Grant.Amount = switch g.grant.amount {
        case .count(let n)?: .count(n.value)
        case .unlimited?: .unlimited
        case nil: .none
        }
        let carry: EntlRuntime.Grant.Carry? = g.grant.carry.map { $0.cap.map { .upTo($0.value) } ?? .uncapped }
        let overage: EntlRuntime.Grant.Overage? = g.grant.overage.map { $0.cap.map { .upTo($0.value) } ?? .unbounded }
        return EntlRuntime.Grant(source: source, amount: amount, interval: g.grant.per.map { interval($0.value) },
                                 carry: carry, overage: overage,
                                 expiresAfter: g.grant.expiresAfter.map { step($0.count.value, $0.unit.value) },
                                 priority: g.grant.priority?.value ?? 0, order: order)
    }

    /// A constraint with its names replaced by indices.
    private static func constraint(_ e: Expression, _ env: EnvironmentModel) -> Constraint {
        func product(_ id: Identifier) -> Int? {
            if case .product(let p)? = env.resolve(id.name) { p } else { nil }
        }
        let never = Constraint.or([])
        switch e {
        case .reference(let id):
            switch env.resolve(id.name) {
            case .product(let p)?: return .product(p)
            case .entitlement(let i)?: return .entitlement(i)
            case .feature?, nil: return never
            }
        case .atLeast(let id, let n):
            return product(id).map { .atLeast(product: $0, quantity: n.value) } ?? never
        case .purchased(let id, let date):
            // INVARIANT: the checker refused an instant that is not RFC 3339 (E217).
            guard let p = product(id), let filter = date.filter else { return never }
            return .purchased(product: p, date: filter)
        case .everyone: return .everyone
        case .not(let inner, _): return .not(constraint(inner, env))
        case .and(let terms): return .and(terms.map { constraint($0, env) })
        case .or(let terms): return .or(terms.map { constraint($0, env) })
        case .error: return never
        }
    }

    /// Entitlements ordered so each follows those it names (iterative depth-first post-order).
    private static func dependencyOrder(_ entitlements: [Entitlement]) -> [Int] {
        func references(_ c: Constraint, into out: inout [Int]) {
            switch c {
            case .entitlement(let e): out.append(e)
            case .not(let inner): references(inner, into: &out)
            case .and(let terms), .or(let terms): for t in terms { references(t, into: &out) }
            case .product, .atLeast, .purchased, .everyone: break
            }
        }
        let edges = entitlements.map { e -> [Int] in
            var out: [Int] = []
            references(e.constraint, into: &out)
            return out
        }
        var order: [Int] = []
        var state = [UInt8](repeating: 0, count: entitlements.count)  // 0 new, 1 open, 2 done
        for root in entitlements.indices where state[root] == 0 {
            var stack: [(Int, Int)] = [(root, 0)]
            state[root] = 1
            while let (node, next) = stack.last {
                if next < edges[node].count {
                    stack[stack.count - 1].1 += 1
                    let target = edges[node][next]
                    if state[target] == 0 {
                        state[target] = 1
                        stack.append((target, 0))
                    }
                } else {
                    state[node] = 2
                    order.append(node)
                    stack.removeLast()
                }
            }
        }
        return order
    }

    private static func docs(_ lines: [String]) -> String? {
        lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    private static func productKind(_ k: EntlSyntax.ProductKind) -> EntlRuntime.ProductKind {
        switch k {
        case .nonConsumable: .nonConsumable
        case .consumable: .consumable
        case .subscription: .subscription
        case .nonRenewing: .nonRenewing
        }
    }

    /// What the graph calls a feature's kind: a credit system, a metered feature by its usage,
    /// else boolean (a feature whose kind did not parse is never lowered).
    private static func featureKind(_ f: RuleModel.Feature) -> EntlRuntime.FeatureKind {
        if f.isCreditSystem { return .credits }
        guard f.kind?.value == .metered else { return .boolean }
        return f.usage?.value == .continuous ? .continuous : .singleUse
    }

    private static func interval(_ p: BillingPeriod) -> Interval {
        switch p {
        case .week: .week
        case .month: .month
        case .quarter: .quarter
        case .halfYear: .halfYear
        case .year: .year
        }
    }

    private static func interval(_ r: ResetInterval) -> Interval {
        Interval(rawValue: r.rawValue) ?? .month
    }

    private static func step(_ n: Int64, _ unit: DurationUnit) -> CalendarStep {
        switch unit {
        case .days: CalendarStep(months: 0, seconds: n.multipliedSaturating(by: 86_400))
        case .weeks: CalendarStep(months: 0, seconds: n.multipliedSaturating(by: 604_800))
        case .months: CalendarStep(months: n, seconds: 0)
        case .years: CalendarStep(months: n.multipliedSaturating(by: 12), seconds: 0)
        }
    }
}

extension PurchaseDate {
    /// Which purchases the qualifier admits; nil when the instant is not RFC 3339 (the checker
    /// reports that, E217). The one reading of a `purchased before|since` qualifier, for the
    /// lowering, the constraint analysis and `entlc diff`.
    var filter: PurchaseDateFilter? {
        Instant(rfc3339: instant.value).map { relation.value == .before ? .before($0) : .since($0) }
    }
}
