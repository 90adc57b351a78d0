/// The compiled rule set: what the evaluator runs. `entlc build` writes it as an artifact and
/// `RuleGraphArtifact(bytes:)` loads one, checked, without the compiler.
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

extension Windows {
    /// Calendar-aligned windows, for grants with no purchase date: months (and quarters,
    /// half-years, years) start on the 1st of January/…, weeks on Monday, days at 00:00 UTC.
    public static func calendarAligned(_ interval: Interval) -> Windows {
        // 1970-01-05 was a Monday.
        Windows(anchor: Instant(seconds: interval == .week ? 4 * 86_400 : 0), step: interval.step)
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
    public var requires: Constraint? {
        didSet { requiresProgram = requires?.program ?? [] }
    }
    /// `requires` in postfix form (derived, not encoded); empty without one.
    public private(set) var requiresProgram: [ConstraintOp]
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
    public init(name: String, displayName: String?, docs: String?, kind: FeatureKind, event: String?,
                unitSingular: String?, unitPlural: String?, requires: Constraint?, grants: [Grant],
                conversions: [Conversion]) {
        self.name = name
        self.displayName = displayName
        self.docs = docs
        self.kind = kind
        self.event = event
        self.unitSingular = unitSingular
        self.unitPlural = unitPlural
        self.requires = requires
        self.requiresProgram = requires?.program ?? []
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
    public func amount(_ count: Int64) -> String {
        var text: [UInt8] = []
        Feature.writeAmount(count, unit: unit(count), to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// `amount(count)`'s bytes, given `unit(count)` (how a reason writes it, no `String` made).
    static func writeAmount<O: ByteOutput>(_ count: Int64, unit: String, to out: inout O) {
        out.write(grouped: count)
        out.write(UInt8(ascii: " "))
        out.write(string: unit)
    }
}

/// One `grants` item, stored with the feature it grants.
public struct Grant: Sendable {
    public enum Source: Sendable, Hashable {
        /// A product-level grant: once per owned purchase.
        case product(Int)
        case entitlement(Int)
        /// A state grant (`PurchaseState.grants[i]`, docs/state.md): per customer, from its `from`.
        case state(Int)
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

    /// A soft limit (`overage [up to N]`): use beyond the allowance is charged to the grant as
    /// `overdrawn`, billable, up to N per window.
    public enum Overage: Sendable, Hashable {
        case unbounded
        case upTo(Int64)

        /// The most that may be overdrawn in a window (nil: no limit).
        public var cap: Int64? {
            if case .upTo(let n) = self { return n }
            return nil
        }
    }

    public var source: Source
    public var amount: Amount
    /// Nil: a lifetime allowance (granted once, never resets).
    public var interval: Interval?
    public var carry: Carry?
    /// A soft limit: what nothing else covers is overdrawn on it (single-use features only).
    public var overage: Overage?
    /// A lot (a lifetime allowance only): it lasts this long from its purchase, then what is left
    /// of it lapses.
    public var expiresAfter: CalendarStep?
    public var priority: Int64
    /// Position among all grants of the rule set (declaration order breaks consumption ties);
    /// a state grant's comes after every rule set grant's, in state order.
    public var order: Int

    public init(source: Source, amount: Amount, interval: Interval?, carry: Carry?, overage: Overage? = nil,
                expiresAfter: CalendarStep? = nil, priority: Int64, order: Int) {
        self.source = source
        self.amount = amount
        self.interval = interval
        self.carry = carry
        self.overage = overage
        self.expiresAfter = expiresAfter
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
}
