/// The compiled rule set: what the evaluator runs. `entlc build` writes it as an artifact and
/// `RuleGraphArtifact.decode` loads one, checked, without the compiler.
///
/// Each environment has its own self-contained view with dense indices (declaration order):
/// products, entitlements, and features (credit systems included, as features of kind
/// `.credits`). Constraints and grants refer to those indices, so the hot path does no string
/// hashing. Name and store-id lookups happen once, when a state is resolved.
public struct RuleGraph: Sendable {
    public var app: String?
    public var live: EnvironmentGraph
    public var test: EnvironmentGraph

    public init(app: String?, live: EnvironmentGraph, test: EnvironmentGraph) {
        self.app = app
        self.live = live
        self.test = test
    }

    public subscript(environment: Environment) -> EnvironmentGraph {
        environment == .live ? live : test
    }
}

public enum Environment: String, Sendable, CaseIterable {
    case live, test
}

/// The graph of one environment. Immutable and shared: passing it around costs one retain.
public final class EnvironmentGraph: Sendable {
    public let products: [Product]
    public let entitlements: [Entitlement]
    /// Features and credit systems, in declaration order.
    public let features: [Feature]
    /// Entitlement indices such that each comes after every entitlement its constraint names.
    public let entitlementOrder: [Int]
    /// store → store product id → product index.
    public let storeIDs: [String: [String: Int]]

    public let productIndex: [String: Int]
    public let entitlementIndex: [String: Int]
    public let featureIndex: [String: Int]
    /// Usage event name (`event "…"`) → feature index.
    public let eventIndex: [String: Int]
    /// Store product id → the (store, product) pairs with that id, in store-name order (for
    /// purchases that give no `store`).
    public let idOwners: [String: [(store: String, product: Int)]]
    /// Per feature: the *credit component* it belongs to (an index into `components`), or -1 for
    /// boolean and continuous features. A credit system and every single-use feature its schema
    /// lists are replayed together (a use a feature's grants cannot cover spills into a credit
    /// system, docs/semantics.md §5), so components are the connected groups of credit systems
    /// and the single-use features they list; a single-use feature no system lists is alone.
    public let componentOf: [Int]
    /// The members of each component, in declaration order.
    public let components: [[Int]]
    /// Per feature: its position among its component's members, or -1 (as `componentOf`).
    let componentMember: [Int]
    /// Per component, per member: the credit systems that can pay for it, as members, in
    /// declaration order (none for a credit system).
    let componentRoutes: [[[ComponentReplay.Route]]]

    /// The name indices as `NameTable`s, for the lookups every evaluation makes.
    let productNames: NameTable, entitlementNames: NameTable, featureNames: NameTable
    /// (store, store product id) → product index.
    let storeProductIDs: NameTable
    /// What a usage record's `feature` names: a feature or credit system, else a feature's event.
    let usageNames: NameTable
    /// What a usage record's `event` names.
    let eventNames: NameTable

    /// Links a graph from its core: products, entitlements (name, constraint), features (kind,
    /// grants, conversions) and a topological entitlement order. Everything else is derived here,
    /// the one place for the compiler's lowering and the artifact decoder alike: the store-id map
    /// (first product wins), the purchases behind each entitlement and the products each result
    /// watches (§3, §6), each metered feature's credit routes, the name indices and the credit
    /// components.
    ///
    /// PRECONDITION: every index is in range and `entitlementOrder` is a topological order of the
    /// entitlements (the checker or `RuleGraphArtifact.decode` has made sure).
    public init(products: [Product], entitlements: [Entitlement], features: [Feature], entitlementOrder: [Int]) {
        var storeIDs: [String: [String: Int]] = [:]
        for (index, product) in products.enumerated() {
            for s in product.storeIDs where storeIDs[s.store, default: [:]][s.id] == nil {
                storeIDs[s.store, default: [:]][s.id] = index
            }
        }

        var features = features
        for i in features.indices { features[i].creditRoutes = [] }
        // Conversions in credit-system declaration order, so each feature's routes are too.
        for system in features.indices {
            for c in features[system].conversions {
                features[c.feature].creditRoutes.append(CreditRoute(system: system, amount: c.amount, credits: c.credits))
            }
        }

        var entitlements = entitlements
        var named = [NamedProducts](repeating: NamedProducts(), count: entitlements.count)
        for e in entitlementOrder {
            named[e] = NamedProducts(entitlements[e].constraint, nested: named)
            entitlements[e].behind = named[e].positive.sorted()
            entitlements[e].watchedProducts = named[e].all.sorted()
            entitlements[e].unlockCandidates = named[e].positiveProducts.sorted()
        }

        // §6: a feature watches its granting products, the products behind its granting
        // entitlements and its requirement, and the same of the credit systems that pay for it.
        // The balance of a single-use feature or credit system depends on its whole credit
        // component (uses spill into the systems), so those watch the whole component's products.
        let (componentOf, components) = EnvironmentGraph.creditComponents(features)
        var own = [Set<Int>](repeating: [], count: features.count)
        var ownPositive = own
        for (i, f) in features.enumerated() {
            for g in f.grants {
                switch g.source {
                case .product(let p):
                    own[i].insert(p)
                    ownPositive[i].insert(p)
                case .entitlement(let e):
                    own[i].formUnion(named[e].all)
                    ownPositive[i].formUnion(named[e].positiveProducts)
                }
            }
            if let r = f.requires {
                let required = NamedProducts(r, nested: named)
                own[i].formUnion(required.all)
                ownPositive[i].formUnion(required.positiveProducts)
            }
        }
        let componentProducts = components.map { members in members.reduce(into: Set<Int>()) { $0.formUnion(own[$1]) } }
        for i in features.indices {
            var set = own[i]
            if componentOf[i] >= 0 { set.formUnion(componentProducts[componentOf[i]]) }
            for route in features[i].creditRoutes { set.formUnion(componentProducts[componentOf[route.system]]) }
            features[i].watchedProducts = set.sorted()
            // §4.6: buying a product only makes its atoms truer, so only products named positively
            // can allow what is not allowed — unless credits are involved: losing a grant can turn
            // a use that spilled into a credit system into overage, leaving credits for later
            // uses, so there every watched product can matter.
            let credits = !features[i].creditRoutes.isEmpty || (componentOf[i] >= 0 && components[componentOf[i]].count > 1)
            features[i].unlockCandidates = credits ? features[i].watchedProducts : ownPositive[i].sorted()
        }

        self.products = products
        self.entitlements = entitlements
        self.features = features
        self.entitlementOrder = entitlementOrder
        self.storeIDs = storeIDs
        self.productIndex = Dictionary(products.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        self.entitlementIndex = Dictionary(entitlements.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        self.featureIndex = Dictionary(features.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        var events: [String: Int] = [:]
        for (i, f) in features.enumerated() {
            if let e = f.event, events[e] == nil { events[e] = i }
        }
        self.eventIndex = events
        var owners: [String: [(store: String, product: Int)]] = [:]
        for store in storeIDs.keys.sorted() {
            for (id, product) in storeIDs[store]! { owners[id, default: []].append((store, product)) }
        }
        self.idOwners = owners
        (self.componentOf, self.components) = (componentOf, components)
        var componentMember = [Int](repeating: -1, count: features.count)
        for members in components {
            for (m, f) in members.enumerated() { componentMember[f] = m }
        }
        self.componentMember = componentMember
        self.componentRoutes = components.map { members in
            members.map { f in
                features[f].kind == .credits ? [] : features[f].creditRoutes.map { r in
                    ComponentReplay.Route(member: componentMember[r.system], amount: r.amount, credits: r.credits)
                }
            }
        }
        self.productNames = NameTable(productIndex)
        self.entitlementNames = NameTable(entitlementIndex)
        self.featureNames = NameTable(featureIndex)
        self.storeProductIDs = NameTable(pairs: storeIDs)
        self.usageNames = NameTable(featureIndex.merging(events) { feature, _ in feature })
        self.eventNames = NameTable(events)
    }

    /// The products a constraint names, through nested entitlements: those under an even number
    /// of `not`s (positive: their purchases — or those a purchase-date qualifier admits — can make
    /// it true, §3) and under an odd number (negative).
    struct NamedProducts {
        var positive: Set<BehindProduct> = []
        var negative: Set<BehindProduct> = []
        var all: Set<Int> { positiveProducts.union(negative.map(\.product)) }
        var positiveProducts: Set<Int> { Set(positive.map(\.product)) }

        init() {}

        /// `nested` holds the sets of the entitlements `c` names (computed first).
        init(_ c: Constraint, nested: [NamedProducts]) {
            collect(c, negated: false, nested: nested)
        }

        private mutating func collect(_ c: Constraint, negated: Bool, nested: [NamedProducts]) {
            switch c {
            case .product(let p), .atLeast(let p, _):
                if negated { negative.insert(BehindProduct(product: p)) } else { positive.insert(BehindProduct(product: p)) }
            case .purchased(let p, let date):
                let behind = BehindProduct(product: p, date: date)
                if negated { negative.insert(behind) } else { positive.insert(behind) }
            case .entitlement(let e):
                positive.formUnion(negated ? nested[e].negative : nested[e].positive)
                negative.formUnion(negated ? nested[e].positive : nested[e].negative)
            case .not(let inner):
                collect(inner, negated: !negated, nested: nested)
            case .and(let terms), .or(let terms):
                for t in terms { collect(t, negated: negated, nested: nested) }
            case .everyone:
                break
            }
        }
    }

    /// Union-find over single-use features and credit systems, joined by conversions.
    public static func creditComponents(_ features: [Feature]) -> (componentOf: [Int], components: [[Int]]) {
        var parent = Array(features.indices)
        func root(_ x: Int) -> Int {
            var x = x
            while parent[x] != x {
                parent[x] = parent[parent[x]]
                x = parent[x]
            }
            return x
        }
        for (system, f) in features.enumerated() where f.kind == .credits {
            for c in f.conversions where features.indices.contains(c.feature) && features[c.feature].kind == .singleUse {
                let (a, b) = (root(system), root(c.feature))
                if a != b { parent[max(a, b)] = min(a, b) }
            }
        }
        var componentOf = [Int](repeating: -1, count: features.count)
        var components: [[Int]] = []
        var byRoot: [Int: Int] = [:]
        for (i, f) in features.enumerated() where f.kind == .singleUse || f.kind == .credits {
            let r = root(i)
            if let c = byRoot[r] {
                components[c].append(i)
                componentOf[i] = c
            } else {
                byRoot[r] = components.count
                componentOf[i] = components.count
                components.append([i])
            }
        }
        return (componentOf, components)
    }
}

public enum ProductKind: String, Sendable, CaseIterable {
    case nonConsumable = "non_consumable"
    case consumable
    case subscription
    case nonRenewing = "non_renewing"
}

/// A reset interval or billing period: a whole number of months, or a fixed number of seconds.
public enum Interval: String, Sendable, CaseIterable {
    case minute, hour, day, week, month, quarter
    case halfYear = "half_year"
    case year

    /// The calendar step of one interval.
    public var step: CalendarStep {
        switch self {
        case .minute: CalendarStep(months: 0, seconds: 60)
        case .hour: CalendarStep(months: 0, seconds: 3600)
        case .day: CalendarStep(months: 0, seconds: 86_400)
        case .week: CalendarStep(months: 0, seconds: 604_800)
        case .month: CalendarStep(months: 1, seconds: 0)
        case .quarter: CalendarStep(months: 3, seconds: 0)
        case .halfYear: CalendarStep(months: 6, seconds: 0)
        case .year: CalendarStep(months: 12, seconds: 0)
        }
    }

    /// "this month", "this minute", … for text output.
    public var noun: String {
        self == .halfYear ? "half-year" : rawValue
    }
}

/// A calendar length: months (day clamped at month ends) or seconds, never both.
public struct CalendarStep: Sendable, Hashable {
    public var months: Int64
    public var seconds: Int64

    public init(months: Int64, seconds: Int64) {
        self.months = months
        self.seconds = seconds
    }
}

public struct StoreID: Sendable, Hashable {
    public var store: String
    public var id: String

    public init(store: String, id: String) {
        self.store = store
        self.id = id
    }
}

public struct Product: Sendable {
    public var name: String
    public var displayName: String?
    public var docs: String?
    public var kind: ProductKind
    /// Subscriptions: the billing period.
    public var period: Interval?
    public var group: String?
    /// Non-renewing products: how long a purchase lasts when the tracker gives no `expires_at`.
    public var duration: CalendarStep?
    public var storeIDs: [StoreID]

    public init(name: String, displayName: String?, docs: String?, kind: ProductKind, period: Interval?, group: String?,
                duration: CalendarStep?, storeIDs: [StoreID]) {
        self.name = name
        self.displayName = displayName
        self.docs = docs
        self.kind = kind
        self.period = period
        self.group = group
        self.duration = duration
        self.storeIDs = storeIDs
    }
}

/// A compiled purchase constraint over product and entitlement indices.
public indirect enum Constraint: Sendable, Hashable {
    case product(Int)
    case entitlement(Int)
    /// At least `quantity` units of a consumable held.
    case atLeast(product: Int, quantity: Int64)
    /// The product owned through a purchase made before (or at or after) an instant.
    case purchased(product: Int, date: PurchaseDateFilter)
    /// True for every customer (the free tier); no purchase is behind it.
    case everyone
    case not(Constraint)
    case and([Constraint])
    case or([Constraint])
}

/// One step of a constraint in postfix form: evaluated with a small stack, no recursion and no
/// reference counting (the evaluator's hot path).
public enum ConstraintOp: Sendable, Hashable {
    case product(Int32)
    case entitlement(Int32)
    case atLeast(Int32, Int64)
    case purchased(Int32, PurchaseDateFilter)
    case everyone
    case not
    /// Combine the top `n` values.
    case and(Int32)
    case or(Int32)
}

extension Constraint {
    /// Whether `everyone` appears in the constraint.
    public var mentionsEveryone: Bool {
        switch self {
        case .everyone: true
        case .not(let inner): inner.mentionsEveryone
        case .and(let terms), .or(let terms): terms.contains { $0.mentionsEveryone }
        case .product, .entitlement, .atLeast, .purchased: false
        }
    }

    /// The postfix program of this constraint.
    public var program: [ConstraintOp] {
        var out: [ConstraintOp] = []
        func emit(_ c: Constraint) {
            switch c {
            case .product(let p): out.append(.product(Int32(p)))
            case .entitlement(let e): out.append(.entitlement(Int32(e)))
            case .atLeast(let p, let n): out.append(.atLeast(Int32(p), n))
            case .purchased(let p, let date): out.append(.purchased(Int32(p), date))
            case .everyone: out.append(.everyone)
            case .not(let inner):
                emit(inner)
                out.append(.not)
            case .and(let terms):
                terms.forEach(emit)
                out.append(.and(Int32(terms.count)))
            case .or(let terms):
                terms.forEach(emit)
                out.append(.or(Int32(terms.count)))
            }
        }
        emit(self)
        return out
    }
}

/// `purchased before T` (`before`) or `purchased since T`: which purchases of a product qualify.
public struct PurchaseDateFilter: Sendable, Hashable, Comparable {
    public var before: Bool
    public var instant: Instant

    public init(before: Bool, instant: Instant) {
        self.before = before
        self.instant = instant
    }

    /// Whether a purchase made at `purchasedAt` qualifies.
    public func admits(_ purchasedAt: Instant) -> Bool {
        before ? purchasedAt < instant : purchasedAt >= instant
    }

    public static func < (a: PurchaseDateFilter, b: PurchaseDateFilter) -> Bool {
        a.before != b.before ? a.before : a.instant < b.instant
    }
}

/// A product whose purchases are behind an entitlement (§3): all of them, or only those a
/// purchase-date qualifier admits.
public struct BehindProduct: Sendable, Hashable, Comparable {
    public var product: Int
    /// Nil: every purchase of the product.
    public var date: PurchaseDateFilter?

    public init(product: Int, date: PurchaseDateFilter? = nil) {
        self.product = product
        self.date = date
    }

    public static func < (a: BehindProduct, b: BehindProduct) -> Bool {
        if a.product != b.product { return a.product < b.product }
        switch (a.date, b.date) {
        case (nil, nil): return false
        case (nil, _?): return true
        case (_?, nil): return false
        case (let x?, let y?): return x < y
        }
    }
}

public struct Entitlement: Sendable {
    public var name: String
    public var displayName: String?
    public var docs: String?
    public var constraint: Constraint {
        didSet { program = constraint.program }
    }
    /// `constraint` in postfix form (derived, not encoded).
    public private(set) var program: [ConstraintOp]
    /// The products named positively (not under an odd number of `not`s), through nested
    /// entitlements, in declaration order, with their purchase-date qualifiers: the purchases
    /// "behind" the entitlement (§3).
    public var behind: [BehindProduct]
    /// Every product its constraint names, through nested entitlements (for `valid_until`).
    public var watchedProducts: [Int]
    /// The products named positively: the only ones whose purchase can make it active (§4.6).
    public var unlockCandidates: [Int]

    /// `behind` and `watchedProducts` are derived when the graph is linked (`EnvironmentGraph.init`).
    public init(name: String, displayName: String?, docs: String?, constraint: Constraint) {
        self.name = name
        self.displayName = displayName
        self.docs = docs
        self.constraint = constraint
        self.program = constraint.program
        self.behind = []
        self.watchedProducts = []
        self.unlockCandidates = []
    }
}

public enum FeatureKind: String, Sendable, CaseIterable {
    case boolean
    /// Metered, consumed in uses (API calls).
    case singleUse = "single_use"
    /// Metered, a current level (seats, storage).
    case continuous
    /// A credit system: metered and single-use, and it can pay for other features.
    case credits

    public var isMetered: Bool { self != .boolean }
}

public struct Feature: Sendable {
    public var name: String
    public var displayName: String?
    public var docs: String?
    public var kind: FeatureKind
    public var event: String?
    public var unitSingular: String?
    public var unitPlural: String?
    /// Boolean features: the requirement that grants it by itself.
    public var requires: Constraint?
    /// Every grant of this feature, in declaration order.
    public var grants: [Grant]
    /// Credit systems: what they pay for.
    public var conversions: [Conversion]
    /// Metered features: the credit systems whose schema lists this feature, in declaration order.
    public var creditRoutes: [CreditRoute]
    /// Products whose purchases' ends can change this feature's result (§6): granting products,
    /// products named in granting entitlements and in `requires`, and those of its credit systems.
    public var watchedProducts: [Int]
    /// The products whose purchase can allow it (§4.6): of the watched ones, those named
    /// positively (or granting directly); all of them when credit systems are involved.
    public var unlockCandidates: [Int]

    /// `creditRoutes` and `watchedProducts` are derived when the graph is linked (`EnvironmentGraph.init`).
    public init(name: String, displayName: String?, docs: String?, kind: FeatureKind, event: String?, unitSingular: String?,
                unitPlural: String?, requires: Constraint?, grants: [Grant], conversions: [Conversion]) {
        self.name = name
        self.displayName = displayName
        self.docs = docs
        self.kind = kind
        self.event = event
        self.unitSingular = unitSingular
        self.unitPlural = unitPlural
        self.requires = requires
        self.grants = grants
        self.conversions = conversions
        self.creditRoutes = []
        self.watchedProducts = []
        self.unlockCandidates = []
    }

    public func unit(_ count: Int64) -> String {
        count == 1 ? (unitSingular ?? unitPlural ?? "unit") : (unitPlural ?? unitSingular ?? "units")
    }

    /// `count` grouped, in its unit: "8,800 calls", "1 call".
    public func amount(_ count: Int64) -> String { "\(count.grouped) \(unit(count))" }
}

/// One `grants` item, stored with the feature it grants.
public struct Grant: Sendable {
    public enum Source: Sendable, Hashable {
        /// A product-level grant: once per owned purchase.
        case product(Int)
        case entitlement(Int)
    }

    public enum Amount: Sendable, Hashable {
        /// Boolean features.
        case none
        case count(Int64)
        case unlimited
    }

    public enum Carry: Sendable, Hashable {
        case uncapped
        case upTo(Int64)
    }

    public var source: Source
    public var amount: Amount
    /// Nil: a lifetime allowance (granted once, never resets).
    public var interval: Interval?
    public var carry: Carry?
    public var priority: Int64
    /// Position among all grants of the rule set (declaration order breaks consumption ties).
    public var order: Int

    public init(source: Source, amount: Amount, interval: Interval?, carry: Carry?, priority: Int64, order: Int) {
        self.source = source
        self.amount = amount
        self.interval = interval
        self.carry = carry
        self.priority = priority
        self.order = order
    }
}

/// `FEATURE AMOUNT = CREDITS` in a credit system.
public struct Conversion: Sendable, Hashable {
    public var feature: Int
    public var amount: Int64
    public var credits: Int64

    public init(feature: Int, amount: Int64, credits: Int64) {
        self.feature = feature
        self.amount = amount
        self.credits = credits
    }
}

/// A credit system that can pay for a feature: `amount` units cost `credits` credits.
public struct CreditRoute: Sendable, Hashable {
    public var system: Int
    public var amount: Int64
    public var credits: Int64

    public init(system: Int, amount: Int64, credits: Int64) {
        self.system = system
        self.amount = amount
        self.credits = credits
    }
}
