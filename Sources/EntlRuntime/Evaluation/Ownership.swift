/// A three-valued truth (docs/semantics.md §1), combined with Kleene logic.
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

/// Why a purchase in the state does or does not count (described by `--explain`).
public enum PurchaseStanding: Sendable, Hashable {
    case owned
    case notOwned(NotOwned)
    case unknown
    /// Does not name a product of this rule set / environment.
    case ignored(Ignored)

    public enum NotOwned: Sendable, Hashable {
        /// revoked, expired, billing_retry
        case status(PurchaseStatus)
        case purchasedLater(Instant)
        case quantityZero
        case graceEnded(Instant)
        case expired(PurchaseStatus, Instant)
        case canceledWithoutExpiry
        case periodEnded(Instant)
    }

    /// Why a purchase names nothing here (the purchase itself holds the store and id).
    public enum Ignored: Sendable, Hashable {
        case environment(Environment, evaluating: Environment)
        case noStoreID
        case noProduct
    }

    /// What `--explain` says of a purchase with this standing.
    public func description(of purchase: Purchase) -> String {
        switch self {
        case .owned: "counted (owned)"
        case .unknown: "unknown"
        case .notOwned(let why):
            switch why {
            case .status(let s): "not owned (\(s.rawValue))"
            case .purchasedLater(let at): "not owned (purchased later, at \(at))"
            case .quantityZero: "not owned (quantity 0)"
            case .graceEnded(let at): "not owned (past due, grace period ended \(at))"
            case .expired(let s, let at): "not owned (\(s.rawValue) but expired \(at))"
            case .canceledWithoutExpiry: "not owned (canceled without expires_at)"
            case .periodEnded(let at): "not owned (canceled, period ended \(at))"
            }
        case .ignored(let why):
            switch why {
            case .environment(let e, let evaluating):
                "ignored (environment \(e.rawValue), evaluating \(evaluating.rawValue))"
            case .noStoreID: "ignored (no product has \(purchase.store ?? "") id \"\(purchase.product)\")"
            case .noProduct: "ignored (no product is named or has a store id \"\(purchase.product)\")"
            }
        }
    }
}

/// What the evaluator knows about one product at `t`. Plain values: no allocation per product.
struct ProductStanding: Sendable {
    var override: Override?
    var ownedCount: Int32 = 0
    var unknownCount: Int32 = 0
    /// Units held over owned purchases (consumables), saturating.
    var ownedQuantity: Int64 = 0
    /// Units of the purchases whose status is unknown (consumables), saturating.
    var unknownQuantity: Int64 = 0
    /// The latest end among owned purchases.
    var ownedEnd: End = .never
    /// Its matched purchases: a run of the evaluation's purchases sorted by product (`first`,
    /// `count`), found without a search.
    var purchases: (first: Int32, count: Int32) = (0, 0)
    /// The earliest instant after `t` at which one of its purchases starts or stops counting by
    /// itself (§6): a purchase dated later that will count, an owned purchase's end.
    var nextChange: Instant?

    /// Owned if any purchase is, else unknown if any is, else not; an override decides alone.
    var truth: Truth {
        switch override {
        case .purchased?: .true
        case .notPurchased?: .false
        case .unknown?: .unknown
        case nil: ownedCount > 0 ? .true : unknownCount > 0 ? .unknown : .false
        }
    }

    /// Units held for certain: an override to purchased holds one, other overrides none.
    var quantity: Int64 {
        switch override {
        case .purchased?: 1
        case .notPurchased?, .unknown?: 0
        case nil: ownedQuantity
        }
    }

    /// When ownership ends by itself (`never` for consumables, lifetime purchases and overrides).
    var end: End { override == .purchased ? .never : ownedEnd }

    /// Whether something about this product is unknown: an override to `unknown`, or (without an
    /// override) a purchase whose status is unknown.
    var hasUnknown: Bool { override == .unknown || (override == nil && unknownCount > 0) }

    /// `x >= n` (§1): only a purchase's status can be unknown, never its quantity. True when the
    /// owned units reach n, false when even the units of the unknown purchases cannot make up
    /// the difference, unknown otherwise; an override decides alone (`purchased` holds one unit).
    func atLeast(_ n: Int64) -> Truth {
        switch override {
        case .purchased?: return quantity >= n ? .true : .false
        case .notPurchased?: return .false
        case .unknown?: return .unknown
        case nil:
            if ownedQuantity >= n { return .true }
            return ownedQuantity.addingSaturating(unknownQuantity) >= n ? .unknown : .false
        }
    }
}

/// What names resolved to in the states an `EvaluationTables` filled before, for the next: a
/// batch's lines name the same few store ids and features again and again, and looking one up
/// hashes and compares its bytes (about 150 instructions) where this compares two strings'
/// representations (a few). The tables keep one for purchases' products (a name and its `store`,
/// `OwnershipResolver.product(of:index:in:)`'s answer) and one for usage records' features (a
/// name, qualified when it is an event).
///
/// A name and its qualifier are recognized by their `String`s' representations, two words each:
/// equal words are the same string (a short string's words are its bytes; a longer one's point at
/// its storage, which the memo's own copy keeps alive and unchanged). Unequal words are only a
/// miss. Kept for one graph; another graph empties it. It keeps nothing for tables filled once
/// (`keeps`): most are, and making room for the memo would cost them more than it saves.
struct NameMemo {
    private struct Entry {
        var name: String
        var qualifier: String?
        var answer: Int32
    }

    /// Direct-mapped: a rule set's store ids, a few stores each, fit with few collisions.
    private static let slots = 256
    /// Whether a `String` is the two words this memo compares (64-bit platforms); if not, it keeps nothing.
    private static let comparable = MemoryLayout<String>.size == 16

    private var graph: EnvironmentGraph?
    private var entries: [Entry?] = []
    /// Whether answers are kept: set from the second `fill` of the same tables on.
    var keeps = false

    @inline(__always)
    private static func slot(_ name: (UInt64, UInt64)) -> Int {
        let h = (name.0 ^ name.1 ^ name.1 >> 29) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: h >> 56) & (slots - 1)
    }

    @inline(__always)
    private static func same(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): a.representationWords == b.representationWords
        default: false
        }
    }

    /// The answer kept for `name` and `qualifier` in `graph`, if any.
    @inline(__always)
    func answer(_ name: String, _ qualifier: String?, in graph: EnvironmentGraph) -> Int32? {
        guard NameMemo.comparable, self.graph === graph else { return nil }
        let words = name.representationWords
        guard let entry = entries[NameMemo.slot(words)], entry.name.representationWords == words,
              NameMemo.same(entry.qualifier, qualifier)
        else { return nil }
        return entry.answer
    }

    /// Keeps `answer` for `name` and `qualifier` in `graph` (in place of what its slot held).
    mutating func keep(_ answer: Int32, _ name: String, _ qualifier: String?, in graph: EnvironmentGraph) {
        guard NameMemo.comparable, keeps else { return }
        if self.graph !== graph {
            self.graph = graph
            entries = Array(repeating: nil, count: NameMemo.slots)
        }
        entries[NameMemo.slot(name.representationWords)] = Entry(name: name, qualifier: qualifier, answer: answer)
    }
}

extension NameMemo {
    /// A product index, plus `byName` when named by its rule-set name; below 0, why none.
    private static let noStoreID: Int32 = -1, noProduct: Int32 = -2

    /// `OwnershipResolver.product(of:index:in:)`, from the memo when it holds the purchase's
    /// `product` and `store`. Only answers that follow from the names alone are kept (a product,
    /// no product, no product of that store), not the error an ambiguous id raises.
    @inline(__always)
    mutating func product(of purchase: UnsafePointer<Purchase>, index: Int, in graph: EnvironmentGraph)
        throws(EvaluationError) -> OwnershipResolver.Match
    {
        if let answer = answer(purchase.pointee.product, purchase.pointee.store, in: graph) {
            switch answer {
            case NameMemo.noStoreID: return .none(.noStoreID)
            case NameMemo.noProduct: return .none(.noProduct)
            default: return .product(Int(answer))
            }
        }
        let match = try OwnershipResolver.product(of: purchase, index: index, in: graph)
        let answer: Int32? = switch match {
        case .product(let p): Int32(p)
        case .none(.noStoreID): NameMemo.noStoreID
        case .none(.noProduct): NameMemo.noProduct
        case .none: nil
        }
        if let answer { keep(answer, purchase.pointee.product, purchase.pointee.store, in: graph) }
        return match
    }
}

/// The resolution of a state's purchases against one environment of the graph (§2).
enum OwnershipResolver {
    /// The product a purchase names in `graph`, or why it names none. docs/state.md: with `store`,
    /// only that store's ids match; without it, a rule-set name wins, then an id of any store (an id
    /// that two stores map to different products is an error naming both). The graph is borrowed
    /// (a resolver holding it would retain and release it on every evaluation).
    @inline(__always)
    static func product(of purchase: UnsafePointer<Purchase>, index: Int, in graph: EnvironmentGraph)
        throws(EvaluationError) -> Match
    {
        if let store = purchase.pointee.store {
            if let p = graph.storeProductIDs[store, purchase.pointee.product] { return .product(p) }
            return .none(.noStoreID)
        }
        if let p = graph.productNames[purchase.pointee.product] { return .product(p) }
        if let owners = graph.idOwners[purchase.pointee.product], let first = owners.first {
            if let other = owners.first(where: { $0.product != first.product }) {
                throw EvaluationError(
                    "purchases[\(index)].product: \"\(purchase.pointee.product)\" is the \(first.store) id of product "
                        + "`\(graph.products[first.product].name)` and the \(other.store) id of product "
                        + "`\(graph.products[other.product].name)`; add \"store\" to say which")
            }
            return .product(first.product)
        }
        return .none(.noProduct)
    }

    enum Match {
        case product(Int)
        case none(PurchaseStanding.Ignored)
    }

    // The purchase is read in place, a field at a time: a `Purchase` passed by value (even
    // `pointee`) is a copy, a retain and release of each of its strings.

    /// When an owned purchase stops counting by itself (§2, rules 5–8).
    @inline(__always)
    static func accessEnd(_ purchase: UnsafePointer<Purchase>, _ kind: ProductKind, _ duration: CalendarStep?) -> End {
        if kind == .consumable { return .never }
        if purchase.pointee.status == .pastDue { return purchase.pointee.graceUntil.map(End.at) ?? .never }
        return effectiveExpiry(purchase, kind, duration).map(End.at) ?? .never
    }

    /// `expires_at`, or for a non-renewing product with a duration, `purchased_at + duration`.
    @inline(__always)
    static func effectiveExpiry(_ purchase: UnsafePointer<Purchase>, _ kind: ProductKind,
                                _ duration: CalendarStep?) -> Instant? {
        if let e = purchase.pointee.expiresAt { return e }
        if kind == .nonRenewing, let d = duration, let bought = purchase.pointee.purchasedAt {
            return bought.adding(d)
        }
        return nil
    }

    /// §2 rules 2–8 and 11 for one purchase (overrides are applied per product). `past`: `t` is an
    /// earlier instant of an evaluation at a later one (§5, "what paid for a use stays paid"): an
    /// `expired` or `billing_retry` purchase was owned then within its dates, like an active one.
    @inline(__always)
    static func standing(_ purchase: UnsafePointer<Purchase>, _ kind: ProductKind, _ duration: CalendarStep?,
                         at t: Instant, past: Bool = false) -> PurchaseStanding {
        switch purchase.pointee.status {
        case .revoked: return .notOwned(.status(.revoked))
        case .expired where !past, .billingRetry where !past: return .notOwned(.status(purchase.pointee.status))
        default: break
        }
        // Rule 11: a purchase dated after `t` does not exist yet.
        if let bought = purchase.pointee.purchasedAt, bought > t { return .notOwned(.purchasedLater(bought)) }
        if kind == .consumable {
            // A quantity is always known (§1): no units, nothing owned, whatever the status.
            guard purchase.pointee.quantity >= 1 else { return .notOwned(.quantityZero) }
            return purchase.pointee.status == .unknown ? .unknown : .owned
        }
        if purchase.pointee.status == .unknown { return .unknown }
        switch purchase.pointee.status {
        case .pastDue:
            if let grace = purchase.pointee.graceUntil, t >= grace { return .notOwned(.graceEnded(grace)) }
            return .owned
        case .active, .trialing, .expired, .billingRetry:
            if let e = effectiveExpiry(purchase, kind, duration), t >= e {
                return .notOwned(.expired(purchase.pointee.status, e))
            }
            return .owned
        case .canceled:
            guard let e = effectiveExpiry(purchase, kind, duration) else { return .notOwned(.canceledWithoutExpiry) }
            return t < e ? .owned : .notOwned(.periodEnded(e))
        default:
            return .unknown
        }
    }
}
