/// A three-valued truth (SEMANTICS.md §1), combined with Kleene logic.
public enum Truth: String, Sendable, Hashable {
    case `false`, unknown, `true`

    public static prefix func ! (t: Truth) -> Truth {
        switch t {
        case .true: .false
        case .false: .true
        case .unknown: .unknown
        }
    }

    /// `false and unknown = false`.
    public static func && (a: Truth, b: Truth) -> Truth {
        if a == .false || b == .false { return .false }
        if a == .unknown || b == .unknown { return .unknown }
        return .true
    }

    /// `true or unknown = true`.
    public static func || (a: Truth, b: Truth) -> Truth {
        if a == .true || b == .true { return .true }
        if a == .unknown || b == .unknown { return .unknown }
        return .false
    }

    public var decision: Decision {
        switch self {
        case .true: .allowed
        case .false: .denied
        case .unknown: .undetermined
        }
    }
}

/// When something stops holding by itself: at an instant, or never. `never` is later than any instant.
public enum End: Sendable, Hashable, Comparable {
    case at(Instant)
    case never

    public var instant: Instant? {
        if case .at(let i) = self { return i }
        return nil
    }

    public static func < (a: End, b: End) -> Bool {
        switch (a, b) {
        case (.at(let x), .at(let y)): x < y
        case (.at, .never): true
        case (.never, _): false
        }
    }
}

/// Why a purchase in the state does or does not count (shown by `--explain`).
public enum PurchaseStanding: Sendable, Hashable {
    case owned
    case notOwned(String)
    case unknown
    /// Does not name a product of this rule set / environment.
    case ignored(String)
}

/// What the evaluator knows about one product at `t`.
struct ProductStanding: Sendable {
    var truth: Truth = .false
    var override: Override?
    /// Purchases (state indices) of this product in the evaluation environment.
    var purchases: [Int] = []
    var owned: [Int] = []
    var unknown: [Int] = []
    /// Units held over owned purchases (consumables), saturating.
    var quantity: Int64 = 0
    /// The latest end among owned purchases (`never` for consumables and purchases without one).
    var end: End = .never
}

/// The resolution of a state's purchases against one environment of the graph (§2).
struct OwnershipResolver {
    let graph: EnvironmentGraph
    let environment: Environment

    /// The product a purchase names, or why it names none. STATE.md: with `store`, only that
    /// store's ids match; without it, a rule-set name wins, then an id of any store (an id that two
    /// stores map to different products is an error naming both).
    func product(of purchase: Purchase, path: String) throws(EvaluationError) -> Match {
        if let store = purchase.store {
            if let p = graph.storeIDs[store]?[purchase.product] { return .product(p) }
            return .none(.ignored("no product has \(store) id \"\(purchase.product)\""))
        }
        if let p = graph.productIndex[purchase.product] { return .product(p) }
        if let owners = graph.idOwners[purchase.product], let first = owners.first {
            if let other = owners.first(where: { $0.product != first.product }) {
                throw EvaluationError(
                    "\(path).product: \"\(purchase.product)\" is the \(first.store) id of product `\(graph.products[first.product].name)` "
                        + "and the \(other.store) id of product `\(graph.products[other.product].name)`; add \"store\" to say which")
            }
            return .product(first.product)
        }
        return .none(.ignored("no product is named or has a store id \"\(purchase.product)\""))
    }

    enum Match {
        case product(Int)
        case none(PurchaseStanding)
    }

    /// When an owned purchase stops counting by itself (§2, rules 5–8).
    static func accessEnd(_ purchase: Purchase, _ product: Product) -> End {
        if product.kind == .consumable { return .never }
        if purchase.status == .pastDue { return purchase.graceUntil.map(End.at) ?? .never }
        return effectiveExpiry(purchase, product).map(End.at) ?? .never
    }

    /// `expires_at`, or for a non-renewing product with a duration, `purchased_at + duration`.
    static func effectiveExpiry(_ purchase: Purchase, _ product: Product) -> Instant? {
        if let e = purchase.expiresAt { return e }
        if product.kind == .nonRenewing, let d = product.duration, let bought = purchase.purchasedAt {
            return bought.adding(d)
        }
        return nil
    }

    /// §2 rules 2–8 for one purchase (overrides are applied per product).
    /// CHOICE: a purchase whose `purchased_at` is after `t` did not exist yet and is not owned.
    static func standing(_ purchase: Purchase, _ product: Product, at t: Instant) -> PurchaseStanding {
        switch purchase.status {
        case .revoked, .expired, .billingRetry: return .notOwned(purchase.status.rawValue)
        default: break
        }
        if let bought = purchase.purchasedAt, bought > t { return .notOwned("purchased later, at \(bought)") }
        if purchase.status == .unknown { return .unknown }
        if product.kind == .consumable {
            return purchase.quantity >= 1 ? .owned : .notOwned("quantity 0")
        }
        switch purchase.status {
        case .pastDue:
            if let grace = purchase.graceUntil, t >= grace { return .notOwned("past due, grace period ended \(grace)") }
            return .owned
        case .active, .trialing:
            if let e = effectiveExpiry(purchase, product), t >= e { return .notOwned("\(purchase.status.rawValue) but expired \(e)") }
            return .owned
        case .canceled:
            guard let e = effectiveExpiry(purchase, product) else { return .notOwned("canceled without expires_at") }
            return t < e ? .owned : .notOwned("canceled, period ended \(e)")
        default:
            return .unknown
        }
    }
}
