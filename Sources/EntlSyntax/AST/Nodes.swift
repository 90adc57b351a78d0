/// Wraps a value that takes no part in `==` and hashing: AST equality ignores source ranges,
/// so `parse(print(ast)) == ast` compares structure only.
@propertyWrapper
public struct IgnoredInEquality<Value: Sendable>: Hashable, Sendable {
    public var wrappedValue: Value

    public init(wrappedValue: Value) { self.wrappedValue = wrappedValue }

    public static func == (lhs: Self, rhs: Self) -> Bool { true }
    public func hash(into hasher: inout Hasher) {}
}

/// A name as written in the source.
public struct Identifier: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    @IgnoredInEquality public var range: SourceRange

    public init(_ name: String, range: SourceRange) {
        self.name = name
        self.range = range
    }

    public var description: String { name }
}

/// A value with the range it was written at (a number, a string, a keyword-like word).
public struct Located<Value: Hashable & Sendable>: Hashable, Sendable {
    public var value: Value
    @IgnoredInEquality public var range: SourceRange

    public init(_ value: Value, range: SourceRange) {
        self.value = value
        self.range = range
    }
}

public typealias IntegerLiteral = Located<Int64>
public typealias StringLiteral = Located<String>

// MARK: - Closed word sets

/// Words that stand for one of a closed set of values (`month`, `subscription`, `active`, …).
public protocol KeywordValue: RawRepresentable, CaseIterable, Hashable, Sendable where RawValue == String {
    /// How diagnostics name the set: "product kind", "billing period".
    static var setName: String { get }
    /// Accepted alternative spellings (e.g. `day` for `days`), mapped to the canonical value.
    static var aliases: [String: Self] { get }
}

extension KeywordValue {
    public static var aliases: [String: Self] { [:] }

    public init?(word: String) {
        if let v = Self(rawValue: word) {
            self = v
        } else if let v = Self.aliases[word] {
            self = v
        } else {
            return nil
        }
    }

    public static var spellings: [String] { allCases.map(\.rawValue) }
}

public enum ProductKind: String, KeywordValue {
    case nonConsumable = "non_consumable"
    case consumable
    case subscription
    case nonRenewing = "non_renewing"
    public static let setName = "product kind"
}

public enum FeatureKind: String, KeywordValue {
    case boolean, metered
    public static let setName = "feature kind"
}

public enum Usage: String, KeywordValue {
    case singleUse = "single_use"
    case continuous
    public static let setName = "usage"
}

/// A subscription's billing period.
public enum BillingPeriod: String, KeywordValue {
    case week, month, quarter
    case halfYear = "half_year"
    case year
    public static let setName = "billing period"
}

/// A grant's reset interval (`per …`).
public enum ResetInterval: String, KeywordValue {
    case minute, hour, day, week, month, quarter
    case halfYear = "half_year"
    case year
    public static let setName = "reset interval"
}

/// The unit of a non-renewing product's `duration`.
public enum DurationUnit: String, KeywordValue {
    case days, weeks, months, years
    public static let setName = "duration unit"
    public static let aliases: [String: DurationUnit] = ["day": .days, "week": .weeks, "month": .months, "year": .years]

    /// The unit as text reads it after `count`: `year` after 1, else `years` (both are valid units).
    public func word(after count: Int64) -> String { count == 1 ? String(rawValue.dropLast()) : rawValue }
}

public enum EnvironmentName: String, KeywordValue {
    case live, test
    public static let setName = "environment"
}

/// A purchase status (docs/state.md), as written in a test's `given`.
public enum PurchaseStatusWord: String, KeywordValue {
    case active, trialing
    case pastDue = "past_due"
    case billingRetry = "billing_retry"
    case canceled, expired, revoked, unknown
    public static let setName = "purchase status"
}

public enum OverrideWord: String, KeywordValue {
    case purchased
    case notPurchased = "not_purchased"
    case unknown
    public static let setName = "override"
}

public enum DecisionWord: String, KeywordValue {
    case allowed, denied, undetermined
    public static let setName = "decision"
}
