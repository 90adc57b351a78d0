/// The compiled rule set: what the evaluator runs. `Codable`, so a server or app can load a graph
/// compiled ahead of time without the compiler.
///
/// Each environment has its own self-contained view with dense indices (declaration order):
/// products, entitlements, and features (credit systems included, as features of kind
/// `.credits`). Constraints and grants refer to those indices, so the hot path does no string
/// hashing. Name and store-id lookups happen once, when a state is resolved.
public struct RuleGraph: Codable, Sendable {
    /// Bumped when the encoding changes incompatibly.
    public static let formatVersion = 1

    public var formatVersion: Int
    public var app: String?
    public var live: EnvironmentGraph
    public var test: EnvironmentGraph

    public init(app: String?, live: EnvironmentGraph, test: EnvironmentGraph) {
        self.formatVersion = RuleGraph.formatVersion
        self.app = app
        self.live = live
        self.test = test
    }

    public subscript(environment: Environment) -> EnvironmentGraph {
        environment == .live ? live : test
    }
}

public enum Environment: String, Codable, Sendable, CaseIterable {
    case live, test
}

/// The graph of one environment. Immutable and shared: passing it around costs one retain.
public final class EnvironmentGraph: Codable, Sendable {
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

    public init(products: [Product], entitlements: [Entitlement], features: [Feature], entitlementOrder: [Int],
                storeIDs: [String: [String: Int]]) {
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
        (self.componentOf, self.components) = EnvironmentGraph.creditComponents(features)
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

    // The name indices are derived: encode the core, rebuild the rest on decode.
    private enum CodingKeys: String, CodingKey {
        case products, entitlements, features, entitlementOrder, storeIDs
    }

    public required convenience init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(products: try c.decode([Product].self, forKey: .products),
                  entitlements: try c.decode([Entitlement].self, forKey: .entitlements),
                  features: try c.decode([Feature].self, forKey: .features),
                  entitlementOrder: try c.decode([Int].self, forKey: .entitlementOrder),
                  storeIDs: try c.decode([String: [String: Int]].self, forKey: .storeIDs))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(products, forKey: .products)
        try c.encode(entitlements, forKey: .entitlements)
        try c.encode(features, forKey: .features)
        try c.encode(entitlementOrder, forKey: .entitlementOrder)
        try c.encode(storeIDs, forKey: .storeIDs)
    }
}

public enum ProductKind: String, Codable, Sendable {
    case nonConsumable = "non_consumable"
    case consumable
    case subscription
    case nonRenewing = "non_renewing"
}

/// A reset interval or billing period: a whole number of months, or a fixed number of seconds.
public enum Interval: String, Codable, Sendable, CaseIterable {
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
public struct CalendarStep: Codable, Sendable, Hashable {
    public var months: Int64
    public var seconds: Int64

    public init(months: Int64, seconds: Int64) {
        self.months = months
        self.seconds = seconds
    }
}

public struct StoreID: Codable, Sendable, Hashable {
    public var store: String
    public var id: String

    public init(store: String, id: String) {
        self.store = store
        self.id = id
    }
}

public struct Product: Codable, Sendable {
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
public indirect enum Constraint: Codable, Sendable, Hashable {
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
public struct PurchaseDateFilter: Codable, Sendable, Hashable, Comparable {
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
public struct BehindProduct: Codable, Sendable, Hashable, Comparable {
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

public struct Entitlement: Codable, Sendable {
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

    public init(name: String, displayName: String?, docs: String?, constraint: Constraint, behind: [BehindProduct],
                watchedProducts: [Int]) {
        self.name = name
        self.displayName = displayName
        self.docs = docs
        self.constraint = constraint
        self.program = constraint.program
        self.behind = behind
        self.watchedProducts = watchedProducts
    }

    private enum CodingKeys: String, CodingKey {
        case name, displayName, docs, constraint, behind, watchedProducts
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(name: try c.decode(String.self, forKey: .name),
                  displayName: try c.decodeIfPresent(String.self, forKey: .displayName),
                  docs: try c.decodeIfPresent(String.self, forKey: .docs),
                  constraint: try c.decode(Constraint.self, forKey: .constraint),
                  behind: try c.decode([BehindProduct].self, forKey: .behind),
                  watchedProducts: try c.decode([Int].self, forKey: .watchedProducts))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encodeIfPresent(displayName, forKey: .displayName)
        try c.encodeIfPresent(docs, forKey: .docs)
        try c.encode(constraint, forKey: .constraint)
        try c.encode(behind, forKey: .behind)
        try c.encode(watchedProducts, forKey: .watchedProducts)
    }
}

public enum FeatureKind: String, Codable, Sendable {
    case boolean
    /// Metered, consumed in uses (API calls).
    case singleUse = "single_use"
    /// Metered, a current level (seats, storage).
    case continuous
    /// A credit system: metered and single-use, and it can pay for other features.
    case credits

    public var isMetered: Bool { self != .boolean }
}

public struct Feature: Codable, Sendable {
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

    public init(name: String, displayName: String?, docs: String?, kind: FeatureKind, event: String?, unitSingular: String?,
                unitPlural: String?, requires: Constraint?, grants: [Grant], conversions: [Conversion],
                creditRoutes: [CreditRoute], watchedProducts: [Int]) {
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
        self.creditRoutes = creditRoutes
        self.watchedProducts = watchedProducts
    }

    public func unit(_ count: Int64) -> String {
        count == 1 ? (unitSingular ?? unitPlural ?? "unit") : (unitPlural ?? unitSingular ?? "units")
    }
}

/// One `grants` item, stored with the feature it grants.
public struct Grant: Codable, Sendable {
    public enum Source: Codable, Sendable, Hashable {
        /// A product-level grant: once per owned purchase.
        case product(Int)
        case entitlement(Int)
    }

    public enum Amount: Codable, Sendable, Hashable {
        /// Boolean features.
        case none
        case count(Int64)
        case unlimited
    }

    public enum Carry: Codable, Sendable, Hashable {
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
public struct Conversion: Codable, Sendable, Hashable {
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
public struct CreditRoute: Codable, Sendable, Hashable {
    public var system: Int
    public var amount: Int64
    public var credits: Int64

    public init(system: Int, amount: Int64, credits: Int64) {
        self.system = system
        self.amount = amount
        self.credits = credits
    }
}
