import EntlSupport

/// One parsed `.entl` file.
public struct RuleFile: Hashable, Sendable {
    @IgnoredInEquality public var path: String
    public var declarations: [Declaration]

    public init(path: String, declarations: [Declaration]) {
        self.path = path
        self.declarations = declarations
    }

    /// The declarations with environment blocks opened: each block's declarations in its place,
    /// the blocks themselves left out.
    public var declarationsInBlocks: [Declaration] {
        declarations.flatMap { d -> [Declaration] in
            if case .environment(let e) = d { e.declarations } else { [d] }
        }
    }
}

public indirect enum Declaration: Hashable, Sendable {
    case app(AppDeclaration)
    case product(ProductDeclaration)
    case feature(FeatureDeclaration)
    case credits(CreditsDeclaration)
    case entitlement(EntitlementDeclaration)
    case environment(EnvironmentDeclaration)
    case test(TestDeclaration)

    public var range: SourceRange {
        switch self {
        case .app(let d): d.range
        case .product(let d): d.range
        case .feature(let d): d.range
        case .credits(let d): d.range
        case .entitlement(let d): d.range
        case .environment(let d): d.range
        case .test(let d): d.range
        }
    }

    /// The declared name, for the declarations that declare one.
    public var name: Identifier? {
        switch self {
        case .product(let d): d.name
        case .feature(let d): d.name
        case .credits(let d): d.name
        case .entitlement(let d): d.name
        case .app, .environment, .test: nil
        }
    }
}

/// `app "com.example.photos"`
public struct AppDeclaration: Hashable, Sendable {
    public var docs: [String]
    public var id: StringLiteral
    @IgnoredInEquality public var range: SourceRange
}

/// `product NAME: KIND { items }`
public struct ProductDeclaration: Hashable, Sendable {
    public var docs: [String]
    public var name: Identifier
    /// Nil when the kind was missing or unknown (already reported).
    public var kind: Located<ProductKind>?
    public var items: [Item]
    /// Whether the declaration was written with a `{ … }` block (layout only: ignored by `==`).
    @IgnoredInEquality public var hasBlock: Bool
    @IgnoredInEquality public var range: SourceRange
}

/// `feature NAME: boolean [requires EXPR] [{ items }]` or `feature NAME: metered { items }`
public struct FeatureDeclaration: Hashable, Sendable {
    public var docs: [String]
    public var name: Identifier
    public var kind: Located<FeatureKind>?
    public var requires: Expression?
    public var items: [Item]
    @IgnoredInEquality public var hasBlock: Bool
    @IgnoredInEquality public var range: SourceRange
}

/// `credits NAME { items }`: a credit system, itself a metered single-use feature.
public struct CreditsDeclaration: Hashable, Sendable {
    public var docs: [String]
    public var name: Identifier
    public var items: [Item]
    @IgnoredInEquality public var hasBlock: Bool
    @IgnoredInEquality public var range: SourceRange
}

/// `entitlement NAME = EXPR [{ items }]`
public struct EntitlementDeclaration: Hashable, Sendable {
    public var docs: [String]
    public var name: Identifier
    public var expression: Expression
    public var items: [Item]
    @IgnoredInEquality public var hasBlock: Bool
    @IgnoredInEquality public var range: SourceRange
}

/// `environment live|test { declarations }`
public struct EnvironmentDeclaration: Hashable, Sendable {
    public var docs: [String]
    public var environment: Located<EnvironmentName>
    public var declarations: [Declaration]
    @IgnoredInEquality public var range: SourceRange
}

/// One item of a declaration's `{ … }` block. Which items a declaration may hold is checked by
/// the parser (an item no declaration has is `E115`) and the checker (an item on the wrong kind
/// of product or feature is `E212`).
public struct Item: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// `name STRING`
        case displayName(StringLiteral)
        /// `id STORE STRING`
        case storeID(store: Identifier, id: StringLiteral)
        /// `period P`
        case period(Located<BillingPeriod>)
        /// `group NAME`
        case group(Identifier)
        /// `duration N UNIT`
        case duration(IntegerLiteral, Located<DurationUnit>)
        /// `grants FEATURE …`
        case grant(Grant)
        /// `usage single_use|continuous`
        case usage(Located<Usage>)
        /// `event STRING`
        case event(StringLiteral)
        /// `unit STRING [/ STRING]`
        case unit(singular: StringLiteral, plural: StringLiteral?)
        /// `FEATURE AMOUNT = CREDITS` in a credit system
        case conversion(feature: Identifier, amount: IntegerLiteral, credits: IntegerLiteral)
    }

    public var kind: Kind
    @IgnoredInEquality public var range: SourceRange

    public init(_ kind: Kind, range: SourceRange) {
        self.kind = kind
        self.range = range
    }

    /// The word that starts the item, as diagnostics name it.
    public var keyword: String {
        switch kind {
        case .displayName: "name"
        case .storeID: "id"
        case .period: "period"
        case .group: "group"
        case .duration: "duration"
        case .grant: "grants"
        case .usage: "usage"
        case .event: "event"
        case .unit: "unit"
        case .conversion: "conversion"
        }
    }
}

/// `grants FEATURE [AMOUNT | unlimited] [per INTERVAL] [carry [up to N]] [overage [up to N]]
/// [expires after N UNIT] [priority N]`
public struct Grant: Hashable, Sendable {
    public enum Amount: Hashable, Sendable {
        case count(IntegerLiteral)
        case unlimited(Located<String>)

        public var range: SourceRange {
            switch self {
            case .count(let n): n.range
            case .unlimited(let w): w.range
            }
        }
    }

    /// A clause word with an optional cap: `carry [up to N]`, `overage [up to N]`. The range spans
    /// the whole clause.
    public struct Capped: Hashable, Sendable {
        public var cap: IntegerLiteral?
        @IgnoredInEquality public var range: SourceRange

        public init(cap: IntegerLiteral?, range: SourceRange) {
            self.cap = cap
            self.range = range
        }
    }

    /// `carry [up to N]`: unused allowance rolls into the next window.
    public typealias Carry = Capped
    /// `overage [up to N]`: a soft limit; use beyond the allowance is overdrawn (billable).
    public typealias Overage = Capped

    /// `expires after N UNIT`: a lifetime allowance that lapses N UNIT after its purchase (a lot).
    public struct Expiry: Hashable, Sendable {
        public var count: IntegerLiteral
        public var unit: Located<DurationUnit>
        /// From `expires` to the unit.
        @IgnoredInEquality public var range: SourceRange

        public init(count: IntegerLiteral, unit: Located<DurationUnit>, range: SourceRange) {
            self.count = count
            self.unit = unit
            self.range = range
        }

        /// `12 months`, `1 year`: the unit in the singular after 1.
        public var text: String { count.value.literal + " " + unitWord }

        /// The unit as text reads it: `year` after 1, else `years`.
        public var unitWord: String { unit.value.word(after: count.value) }
    }

    public var feature: Identifier
    public var amount: Amount?
    /// `per INTERVAL` and the range of the whole clause.
    public var per: Located<ResetInterval>?
    public var carry: Carry?
    public var overage: Overage?
    public var expiresAfter: Expiry?
    public var priority: IntegerLiteral?
    @IgnoredInEquality public var range: SourceRange

    public init(feature: Identifier, amount: Amount? = nil, per: Located<ResetInterval>? = nil, carry: Carry? = nil,
                overage: Overage? = nil, expiresAfter: Expiry? = nil, priority: IntegerLiteral? = nil,
                range: SourceRange) {
        self.feature = feature
        self.amount = amount
        self.per = per
        self.carry = carry
        self.overage = overage
        self.expiresAfter = expiresAfter
        self.priority = priority
        self.range = range
    }
}

extension Grant: CustomStringConvertible {
    /// The grant as `fmt` writes it, without `grants`: `api_calls 10_000 per month carry up to 20_000`.
    public var description: String {
        var out = feature.name
        switch amount {
        case .count(let n)?: out += " " + n.value.literal
        case .unlimited?: out += " unlimited"
        case nil: break
        }
        if let per { out += " per " + per.value.rawValue }
        if let carry { out += " carry" + carry.upTo }
        if let overage { out += " overage" + overage.upTo }
        if let expiresAfter { out += " expires after " + expiresAfter.text }
        if let priority { out += " priority \(priority.value)" }
        return out
    }
}

extension Grant.Capped {
    /// ` up to 5_000`, or nothing without a cap.
    public var upTo: String { cap.map { " up to " + $0.value.literal } ?? "" }
}

extension Int64 {
    /// An integer literal with `_` between groups of three digits: `10_000`, `500`.
    public var literal: String { self >= 1000 ? grouped(by: "_") : String(self) }
}
