import EntlRuntime
import EntlSyntax

/// Lowers a checked rule set (without errors) to the core of a `RuleGraph`: one self-contained
/// view per environment, names replaced by dense indices, grants stored with the feature they
/// grant, entitlements in dependency order. `EnvironmentGraph.init` links the rest (what each
/// result watches, §6; credit routes; store ids), as it does for a graph loaded from an artifact.
///
/// INVARIANT: the input checked clean, so every name resolves to the right kind and there is
/// no entitlement cycle; a reference that does not resolve is skipped, never trapped on.
enum Lowering {
    static func lower(_ checked: CheckedRuleSet) -> RuleGraph {
        var app: String?
        for site in checked.declarations {
            if case .app(let a) = site.declaration, app == nil { app = a.id.value }
        }
        let live = lower(checked, .live)
        // The environment decides only which declarations are visible: with the same ones in
        // both, the test graph is the live one.
        let test = checked.declarations.sameInEveryEnvironment ? live : lower(checked, .test)
        return RuleGraph(app: app, live: live, test: test)
    }

    private static func lower(_ checked: CheckedRuleSet, _ env: EntlSyntax.EnvironmentName) -> EnvironmentGraph {
        let sites = checked.declarations.filter { $0.isVisible(in: env) }
        var productIndex: [String: Int] = [:], entitlementIndex: [String: Int] = [:], featureIndex: [String: Int] = [:]
        for site in sites {
            switch site.declaration {
            case .product(let p) where productIndex[p.name.name] == nil: productIndex[p.name.name] = productIndex.count
            case .entitlement(let e) where entitlementIndex[e.name.name] == nil:
                entitlementIndex[e.name.name] = entitlementIndex.count
            case .feature(let f) where featureIndex[f.name.name] == nil: featureIndex[f.name.name] = featureIndex.count
            case .credits(let c) where featureIndex[c.name.name] == nil: featureIndex[c.name.name] = featureIndex.count
            default: break
            }
        }

        func constraint(_ e: Expression) -> Constraint {
            switch e {
            case .reference(let id):
                if let p = productIndex[id.name] { return .product(p) }
                return .entitlement(entitlementIndex[id.name] ?? 0)
            case .atLeast(let id, let n): return .atLeast(product: productIndex[id.name] ?? 0, quantity: n.value)
            case .purchased(let id, let date):
                return .purchased(product: productIndex[id.name] ?? 0,
                                  date: date.filter ?? PurchaseDateFilter(before: date.relation.value == .before,
                                                                          instant: EntlRuntime.Instant(seconds: 0)))
            case .everyone: return .everyone
            case .not(let inner, _): return .not(constraint(inner))
            case .and(let terms): return .and(terms.map(constraint))
            case .or(let terms): return .or(terms.map(constraint))
            case .error: return .or([])
            }
        }

        var products: [Product] = []
        var entitlements: [Entitlement] = []
        var features: [Feature] = []
        var pendingGrants: [(feature: String, grant: EntlRuntime.Grant)] = []
        var pendingConversions: [(system: Int, feature: String, amount: Int64, credits: Int64)] = []
        var grantOrder = 0

        func addGrants(_ items: [Item], source: EntlRuntime.Grant.Source) {
            for item in items {
                guard case .grant(let g) = item.kind else { continue }
                let amount: EntlRuntime.Grant.Amount = switch g.amount {
                case .count(let n)?: .count(n.value)
                case .unlimited?: .unlimited
                case nil: .none
                }
                let carry: EntlRuntime.Grant.Carry? = g.carry.map { $0.cap.map { .upTo($0.value) } ?? .uncapped }
                pendingGrants.append((g.feature.name, EntlRuntime.Grant(
                    source: source, amount: amount, interval: g.per.map { interval($0.value) }, carry: carry,
                    priority: g.priority?.value ?? 0, order: grantOrder)))
                grantOrder += 1
            }
        }

        for site in sites {
            switch site.declaration {
            case .product(let p) where productIndex[p.name.name] == products.count:
                let index = products.count
                var product = Product(name: p.name.name, displayName: nil, docs: docs(p.docs),
                                      kind: productKind(p.kind?.value ?? .nonConsumable), period: nil, group: nil,
                                      duration: nil, storeIDs: [])
                for item in p.items {
                    switch item.kind {
                    case .displayName(let s): product.displayName = s.value
                    case .period(let period): product.period = interval(period.value)
                    case .group(let g): product.group = g.name
                    case .duration(let n, let unit): product.duration = step(n.value, unit.value)
                    case .storeID(let store, let id):
                        product.storeIDs.append(StoreID(store: store.name, id: id.value))
                    default: break
                    }
                }
                products.append(product)
                addGrants(p.items, source: .product(index))
            case .entitlement(let e) where entitlementIndex[e.name.name] == entitlements.count:
                let displayName = e.items.lazy.compactMap { item -> String? in
                    if case .displayName(let s) = item.kind { return s.value }
                    return nil
                }.first
                entitlements.append(Entitlement(name: e.name.name, displayName: displayName, docs: docs(e.docs),
                                                constraint: constraint(e.expression)))
                addGrants(e.items, source: .entitlement(entitlements.count - 1))
            case .feature(let f) where featureIndex[f.name.name] == features.count:
                var feature = Feature(name: f.name.name, displayName: nil, docs: docs(f.docs), kind: .boolean, event: nil,
                                      unitSingular: nil, unitPlural: nil, requires: f.requires.map(constraint), grants: [],
                                      conversions: [])
                var usage = Usage.singleUse
                for item in f.items {
                    switch item.kind {
                    case .displayName(let s): feature.displayName = s.value
                    case .usage(let u): usage = u.value
                    case .event(let e): feature.event = e.value
                    case .unit(let singular, let plural):
                        feature.unitSingular = singular.value
                        feature.unitPlural = plural?.value ?? singular.value
                    default: break
                    }
                }
                if f.kind?.value == .metered { feature.kind = usage == .continuous ? .continuous : .singleUse }
                features.append(feature)
            case .credits(let c) where featureIndex[c.name.name] == features.count:
                let index = features.count
                var feature = Feature(name: c.name.name, displayName: nil, docs: docs(c.docs), kind: .credits, event: nil,
                                      unitSingular: nil, unitPlural: nil, requires: nil, grants: [], conversions: [])
                for item in c.items {
                    switch item.kind {
                    case .displayName(let s): feature.displayName = s.value
                    case .unit(let singular, let plural):
                        feature.unitSingular = singular.value
                        feature.unitPlural = plural?.value ?? singular.value
                    case .conversion(let f, let amount, let credits):
                        pendingConversions.append((index, f.name, amount.value, credits.value))
                    default: break
                    }
                }
                features.append(feature)
            default:
                break
            }
        }

        for (name, grant) in pendingGrants {
            if let f = featureIndex[name] { features[f].grants.append(grant) }
        }
        for c in pendingConversions {
            guard let f = featureIndex[c.feature] else { continue }
            features[c.system].conversions.append(Conversion(feature: f, amount: c.amount, credits: c.credits))
        }

        return EnvironmentGraph(products: products, entitlements: entitlements, features: features,
                                entitlementOrder: dependencyOrder(entitlements))
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
        Instant(rfc3339: instant.value).map { PurchaseDateFilter(before: relation.value == .before, instant: $0) }
    }
}
