/// The answer to "may this customer …?". Undetermined is never access (§1).
public enum Decision: String, Sendable, Hashable {
    case allowed, denied, undetermined
}

extension Decision {
    /// `rawValue` as the JSON writer takes it (`JSONSink.word`: no scan for escapes).
    var word: StaticString {
        switch self {
        case .allowed: "allowed"
        case .denied: "denied"
        case .undetermined: "undetermined"
        }
    }
}

extension Environment {
    /// `rawValue` as the JSON writer takes it (`JSONSink.word`).
    var word: StaticString {
        switch self {
        case .live: "live"
        case .test: "test"
        }
    }
}

/// How a metered feature was allowed.
public enum Via: String, Sendable, Hashable {
    /// The balance covers it.
    case direct
    /// One credit system pays what the balance cannot.
    case credits
    /// A soft limit: what the balance and the credits cannot cover is overdrawn, billable (§5).
    case overage
}

/// `entitled(product:)`: ownership (§2), with the quantity held for a consumable.
public struct ProductResult: Sendable, Equatable, Reasoned {
    public var name: String
    public var decision: Decision
    /// Units held, for consumables.
    public var quantity: Int64?
    public var validUntil: Instant?
    /// Set by the evaluation once the result is decided.
    public var why: Reason = ""
    /// The reasoning trail (only when the evaluation was asked to explain).
    public var explanation: [String]

    public init(name: String, decision: Decision, quantity: Int64?, validUntil: Instant?, explanation: [String]) {
        self.name = name
        self.decision = decision
        self.quantity = quantity
        self.validUntil = validUntil
        self.explanation = explanation
    }

    public var allowed: Bool { decision == .allowed }
}

/// One word an app can switch on (§3): the representative purchase's status while active; why
/// not when inactive (in this order of precedence: billing retry, revoked, expired, never
/// purchased); `unknown` when undetermined.
public enum EntitlementStatus: String, Sendable, Hashable, CaseIterable {
    case active, trialing
    case pastDue = "past_due"
    case canceled
    case billingRetry = "billing_retry"
    case revoked, expired
    case neverPurchased = "never_purchased"
    case unknown
    /// Active through a grant to this customer (a promotion, support), no purchase (§3).
    case promotional
}

extension EntitlementStatus {
    /// `rawValue` as the JSON writer takes it (`JSONSink.word`).
    var word: StaticString {
        switch self {
        case .active: "active"
        case .trialing: "trialing"
        case .pastDue: "past_due"
        case .canceled: "canceled"
        case .billingRetry: "billing_retry"
        case .revoked: "revoked"
        case .expired: "expired"
        case .neverPurchased: "never_purchased"
        case .unknown: "unknown"
        case .promotional: "promotional"
        }
    }
}

/// `entitlement(_:)`: whether it is active, and the merged state of the purchases behind it (§3).
public struct EntitlementResult: Sendable, Equatable, Reasoned {
    public var name: String
    public var decision: Decision
    public var product: String?
    public var store: String?
    public var expiresAt: Instant?
    public var willRenew: Bool
    public var inGracePeriod: Bool
    public var inBillingRetry: Bool
    public var isRevoked: Bool
    public var ownership: Ownership?
    /// The subscription period, `lifetime`, or nil (consumables, non-renewing products).
    public var period: String?
    public var isTrial: Bool
    public var status: EntitlementStatus = .neverPurchased
    /// The representative's `expires_at` while it is trialing.
    public var trialEnd: Instant?
    /// The reported product's display name (its `name` item): the plan name a screen shows.
    public var displayName: String?
    /// The reported purchase's product id at its store.
    public var storeProductID: String?
    /// Not active: the products any one of which, bought now, would make it active (declaration
    /// order); nil when active or not computed (§4.6).
    public var unlockedBy: [String]?
    public var validUntil: Instant?
    /// Set by the evaluation once the result is decided.
    public var why: Reason = ""
    public var explanation: [String]

    public init(name: String, decision: Decision, product: String?, store: String?, expiresAt: Instant?,
                willRenew: Bool, inGracePeriod: Bool, inBillingRetry: Bool, isRevoked: Bool, ownership: Ownership?,
                period: String?, isTrial: Bool, validUntil: Instant?, explanation: [String]) {
        self.name = name
        self.decision = decision
        self.product = product
        self.store = store
        self.expiresAt = expiresAt
        self.willRenew = willRenew
        self.inGracePeriod = inGracePeriod
        self.inBillingRetry = inBillingRetry
        self.isRevoked = isRevoked
        self.ownership = ownership
        self.period = period
        self.isTrial = isTrial
        self.validUntil = validUntil
        self.explanation = explanation
    }

    /// A nameless denial with nothing decided, which the evaluation fills in.
    package init() {
        name = ""
        decision = .denied
        willRenew = false
        inGracePeriod = false
        inBillingRetry = false
        isRevoked = false
        isTrial = false
        explanation = []
    }

    /// Back to `EntitlementResult()`, for the next line of a batch that answers into one result
    /// (`Evaluation.entitlement(_:into:)`): a string or an array is released only when it is set
    /// (most results have no purchase behind them), where dropping the result released every
    /// member through its value witness, a call each. `EntitlementResetTests` checks it.
    package mutating func reset() {
        name = ""
        (decision, status) = (.denied, .neverPurchased)
        if product != nil { product = nil }
        if store != nil { store = nil }
        if period != nil { period = nil }
        if displayName != nil { displayName = nil }
        if storeProductID != nil { storeProductID = nil }
        if unlockedBy != nil { unlockedBy = nil }
        if !explanation.isEmpty { explanation = [] }
        why = ""
        (expiresAt, trialEnd, validUntil, ownership) = (nil, nil, nil, nil)
        (willRenew, inGracePeriod, inBillingRetry, isRevoked, isTrial) = (false, false, false, false, false)
    }

    public var allowed: Bool { decision == .allowed }
    public var isActive: Bool { decision == .allowed }
}

/// One grant's contribution to a metered feature's balance at `t`.
public struct BalanceSource: Sendable, Equatable {
    /// The entitlement or product that grants it, or a state grant's `id` (else `grants[N]`).
    public var grant: String
    /// "entitlement", "product" or "state" (a grant to this customer, docs/state.md).
    public var kind: String
    /// The product behind it (the entitlement's representative purchase, or the product itself).
    public var product: String?
    /// Nil when unlimited.
    public var allowance: Int64?
    public var carried: Int64
    public var used: Int64
    /// Nil when unlimited.
    public var remaining: Int64?
    public var windowStart: Instant?
    public var resetsAt: Instant?
    /// The per-window interval, nil for a lifetime allowance.
    public var interval: Interval?
    /// False when the source's ownership is unknown (counted only in the optimistic balance).
    public var certain: Bool
    /// A soft limit's billable use in the current window (0 for a grant without `overage`).
    public var overdrawn: Int64 = 0
    /// What may still be overdrawn in the window: 0 for a grant without `overage`, nil for
    /// `overage` without `up to`.
    public var overdraftLeft: Int64? = 0
    /// A lot's lapse (`expires after`, a state grant's `until`); nil otherwise.
    public var expiresAt: Instant?
    /// A state grant's `id` and `reason` (kind "state").
    public var id: String?
    public var reason: String?
}

/// One result of an evaluate-everything call.
///
/// A product's and an entitlement's result are boxed (a feature's holds its fields in one allocation
/// already): moving results into an array, and copying one, costs a reference count, not one per
/// string the result holds.
public enum EvaluationResult: Sendable, Equatable {
    indirect case product(ProductResult)
    indirect case entitlement(EntitlementResult)
    case feature(FeatureResult)

    public var decision: Decision { fields.decision }
    public var validUntil: Instant? { fields.validUntil }
    public var explanation: [String] { fields.explanation }

    /// What every kind of result has.
    private var fields: (decision: Decision, validUntil: Instant?, explanation: [String]) {
        switch self {
        case .product(let r): (r.decision, r.validUntil, r.explanation)
        case .entitlement(let r): (r.decision, r.validUntil, r.explanation)
        case .feature(let r): (r.decision, r.validUntil, r.explanation)
        }
    }
}
