/// One customer's purchase-tracker state (docs/state.md).
public struct PurchaseState: Sendable, Equatable {
    public var customer: String?
    /// When the customer's account was created: anchors the windows of grants no purchase is
    /// behind (the free tier, `everyone`).
    public var customerSince: Instant?
    /// The evaluation instant when none is given explicitly.
    public var now: Instant?
    public var environment: Environment?
    public var purchases: [Purchase]
    public var usage: [UsageRecord]
    /// Product name → override; wins over purchases (a debug tracker). In insertion order.
    public var overrides: [(product: String, value: Override)]
    /// Per-customer grants a person or a back office gave (a promotion, a support credit, an
    /// enterprise deal), in state order.
    public var grants: [StateGrant]
    /// The uses folded by `entlc state compact` (docs/state.md `ledger`): where every grant's ledger
    /// stood at its `before`; nil for a state that holds its whole history.
    public var ledger: LedgerSnapshot? {
        get { folded?.snapshot }
        set { folded = newValue.map(FoldedLedger.init) }
    }
    /// `ledger`, behind a reference: most states have none, and a state is copied and passed often.
    private var folded: FoldedLedger?
    /// What decoding noticed but did not refuse: unknown keys (`purchases[0].state: unknown key
    /// (did you mean `status`?)`). Not part of the state: `==` ignores them.
    public var warnings: [StateError]

    public init(customer: String? = nil, customerSince: Instant? = nil, now: Instant? = nil,
                environment: Environment? = nil, purchases: [Purchase] = [], usage: [UsageRecord] = [],
                overrides: [(product: String, value: Override)] = [], grants: [StateGrant] = [],
                ledger: LedgerSnapshot? = nil, warnings: [StateError] = []) {
        self.customer = customer
        self.customerSince = customerSince
        self.now = now
        self.environment = environment
        self.purchases = purchases
        self.usage = usage
        self.overrides = overrides
        self.grants = grants
        self.folded = ledger.map(FoldedLedger.init)
        self.warnings = warnings
    }

    public static func == (lhs: PurchaseState, rhs: PurchaseState) -> Bool {
        lhs.customer == rhs.customer && lhs.customerSince == rhs.customerSince && lhs.now == rhs.now
            && lhs.environment == rhs.environment && lhs.purchases == rhs.purchases && lhs.usage == rhs.usage
            && lhs.grants == rhs.grants && lhs.ledger == rhs.ledger
            && lhs.overrides.elementsEqual(rhs.overrides) { $0.product == $1.product && $0.value == $1.value }
    }

    /// Empties the state for another to be decoded into it, keeping its arrays' storage (a batch
    /// decodes line after line into one state: `EvaluationScratch`). `keepingPlaces`: the
    /// purchases and usage records stay, for `read(json:options:)` to decode the next ones into
    /// their places (emptying the arrays and appending again would destroy and copy each).
    mutating func clear(keepingPlaces: Bool = false) {
        (customer, customerSince, now, environment, folded) = (nil, nil, nil, nil, nil)
        if !keepingPlaces {
            purchases.removeAll(keepingCapacity: true)
            usage.removeAll(keepingCapacity: true)
        }
        if !overrides.isEmpty { overrides.removeAll() }
        if !grants.isEmpty { grants.removeAll(keepingCapacity: true) }
        if !warnings.isEmpty { warnings.removeAll() }
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
                periodStart: Instant? = nil, expiresAt: Instant? = nil, graceUntil: Instant? = nil,
                willRenew: Bool? = nil, ownership: Ownership = .purchased, quantity: Int64 = 1,
                environment: Environment = .live) {
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

    /// Every field but `product` back to `Purchase(product: "")`'s, in place: a decoder reusing a
    /// purchase's place, which sets `product` itself (set here too, it was released twice).
    mutating func resetAllButProduct() {
        (store, status, ownership, quantity, environment) = (nil, .active, .purchased, 1, .live)
        (purchasedAt, periodStart, expiresAt, graceUntil, willRenew) = (nil, nil, nil, nil, nil)
    }
}

/// A usage record: consumption of a single-use feature or credit system, or the current level of
/// a continuous feature.
public struct UsageRecord: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case amount(Int64)
        case level(Int64)
    }

    /// What the record names: given as `feature`, a feature or credit system name or a feature's
    /// `event` name; given as `event`, only an `event` name.
    public var name: String
    /// Whether the record was given as `event` (it then names only an `event "…"`).
    public var isEvent: Bool
    public var kind: Kind
    /// Nil: the evaluation instant.
    public var at: Instant?
    /// An idempotency key: a record repeating an earlier record's `id` is a retry, counted once.
    public var id: String?

    /// A record naming a feature or credit system (or a feature's event name).
    public init(feature: String, kind: Kind, at: Instant? = nil, id: String? = nil) {
        self.name = feature
        self.isEvent = false
        self.kind = kind
        self.at = at
        self.id = id
    }

    /// A record naming a usage event (`event "…"` of a feature).
    public init(event: String, kind: Kind, at: Instant? = nil, id: String? = nil) {
        self.init(feature: event, kind: kind, at: at, id: id)
        self.isEvent = true
    }
}

/// A per-customer grant (docs/state.md `grants`): of an entitlement, active over `[from, until)`
/// whatever its constraint; or of a feature or credit system, an allowance that counts like a rule
/// set's grant from `from` (SEMANTICS §3–§5).
public struct StateGrant: Sendable, Equatable {
    public enum Target: Sendable, Equatable {
        case entitlement(String)
        /// A feature or a credit system.
        case feature(String)

        var isEntitlement: Bool {
            if case .entitlement = self { return true }
            return false
        }
    }

    public var target: Target
    /// A feature grant's amount (`.count`) or `.unlimited`; `.none` for an entitlement or a
    /// boolean feature.
    public var amount: Grant.Amount
    /// Nil: a lifetime allowance (a lot, when the grant has an `until`).
    public var interval: Interval?
    public var carry: Grant.Carry?
    public var overage: Grant.Overage?
    public var priority: Int64
    /// The grant counts over `[from, until)`; `until` nil: no end.
    public var from: Instant
    public var until: Instant?
    public var id: String?
    /// Why it was given, for people (support tickets, deal names).
    public var reason: String?

    public init(target: Target, amount: Grant.Amount = .none, interval: Interval? = nil, carry: Grant.Carry? = nil,
                overage: Grant.Overage? = nil, priority: Int64 = 0, from: Instant, until: Instant? = nil,
                id: String? = nil, reason: String? = nil) {
        self.target = target
        self.amount = amount
        self.interval = interval
        self.carry = carry
        self.overage = overage
        self.priority = priority
        self.from = from
        self.until = until
        self.id = id
        self.reason = reason
    }

    /// Whether it counts at `t`.
    public func covers(_ t: Instant) -> Bool { from <= t && until.map { t < $0 } ?? true }

    /// What names it in results: its `id`, else its place (`grants[3]`).
    func name(index: Int) -> String { id ?? "grants[\(index)]" }
}

/// A compacted state's snapshot, boxed (`PurchaseState.ledger`); never changed once made.
private final class FoldedLedger: Sendable {
    let snapshot: LedgerSnapshot

    init(_ snapshot: LedgerSnapshot) { self.snapshot = snapshot }
}
