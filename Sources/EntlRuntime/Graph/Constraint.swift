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

    /// `purchased before T`.
    public static func before(_ instant: Instant) -> PurchaseDateFilter { .init(before: true, instant: instant) }
    /// `purchased since T`.
    public static func since(_ instant: Instant) -> PurchaseDateFilter { .init(before: false, instant: instant) }

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
