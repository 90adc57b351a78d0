/// One customer's purchase-tracker state (docs/state.md).
public struct PurchaseState: Sendable, Equatable {
    public var customer: String?
    /// The evaluation instant when none is given explicitly.
    public var now: Instant?
    public var environment: Environment?
    public var purchases: [Purchase]
    public var usage: [UsageRecord]
    /// Product name → override; wins over purchases (a debug tracker). In insertion order.
    public var overrides: [(product: String, value: Override)]

    public init(customer: String? = nil, now: Instant? = nil, environment: Environment? = nil,
                purchases: [Purchase] = [], usage: [UsageRecord] = [], overrides: [(product: String, value: Override)] = []) {
        self.customer = customer
        self.now = now
        self.environment = environment
        self.purchases = purchases
        self.usage = usage
        self.overrides = overrides
    }

    public static func == (lhs: PurchaseState, rhs: PurchaseState) -> Bool {
        lhs.customer == rhs.customer && lhs.now == rhs.now && lhs.environment == rhs.environment
            && lhs.purchases == rhs.purchases && lhs.usage == rhs.usage
            && lhs.overrides.elementsEqual(rhs.overrides) { $0.product == $1.product && $0.value == $1.value }
    }

    /// Sets an override (replacing an earlier one for the same product).
    public mutating func setOverride(_ product: String, _ value: Override) {
        overrides.removeAll { $0.product == product }
        overrides.append((product, value))
    }
}

public enum PurchaseStatus: String, Sendable, CaseIterable, Codable {
    case active, trialing
    case pastDue = "past_due"
    case billingRetry = "billing_retry"
    case canceled, expired, revoked, unknown
}

public enum Ownership: String, Sendable, Codable, CaseIterable {
    case purchased
    case familyShared = "family_shared"
}

public enum Override: String, Sendable, CaseIterable, Codable {
    case purchased
    case notPurchased = "not_purchased"
    case unknown
}

public struct Purchase: Sendable, Equatable {
    /// A rule-set product name, or a store product id.
    public var product: String
    public var store: String?
    public var status: PurchaseStatus
    public var purchasedAt: Instant?
    public var periodStart: Instant?
    /// Nil: no expiry.
    public var expiresAt: Instant?
    public var graceUntil: Instant?
    /// Nil: the default (true for an active, trialing or past-due subscription).
    public var willRenew: Bool?
    public var ownership: Ownership
    public var quantity: Int64
    public var environment: Environment

    public init(product: String, store: String? = nil, status: PurchaseStatus = .active, purchasedAt: Instant? = nil,
                periodStart: Instant? = nil, expiresAt: Instant? = nil, graceUntil: Instant? = nil, willRenew: Bool? = nil,
                ownership: Ownership = .purchased, quantity: Int64 = 1, environment: Environment = .live) {
        self.product = product
        self.store = store
        self.status = status
        self.purchasedAt = purchasedAt
        self.periodStart = periodStart
        self.expiresAt = expiresAt
        self.graceUntil = graceUntil
        self.willRenew = willRenew
        self.ownership = ownership
        self.quantity = quantity
        self.environment = environment
    }
}

/// A usage record: consumption of a single-use feature or credit system, or the current level of
/// a continuous feature.
public struct UsageRecord: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case amount(Int64)
        case level(Int64)
    }

    /// A feature or credit system name, or a feature's `event` name.
    public var feature: String
    public var kind: Kind
    /// Nil: the evaluation instant.
    public var at: Instant?

    public init(feature: String, kind: Kind, at: Instant? = nil) {
        self.feature = feature
        self.kind = kind
        self.at = at
    }
}
