/// `test "description" { items }`: a scenario test, run by `entlc test`.
public struct TestDeclaration: Hashable, Sendable {
    public var docs: [String]
    public var description: StringLiteral
    public var items: [TestItem]
    @IgnoredInEquality public var range: SourceRange
}

/// One line of a test block. Test items are line-oriented: an item's optional clauses must be on
/// the same line as the item (because `at` is both an item and a clause of `used` and `level`).
public struct TestItem: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// `at INSTANT`
        case at(StringLiteral)
        /// `env live|test`
        case env(Located<EnvironmentName>)
        /// `state "PATH"`, relative to the rule file
        case state(StringLiteral)
        case given(Given)
        /// `used FEATURE N [at INSTANT] [id STRING]` (FEATURE may be an `event` name)
        case used(feature: Identifier, amount: IntegerLiteral, at: StringLiteral?, id: StringLiteral?)
        /// `level FEATURE N [at INSTANT]`
        case level(feature: Identifier, amount: IntegerLiteral, at: StringLiteral?)
        /// `customer since INSTANT`: the state's `customer_since`
        case customerSince(StringLiteral)
        /// `override PRODUCT purchased|not_purchased|unknown`
        case override(product: Identifier, value: Located<OverrideWord>)
        /// `grant NAME …`: a grant to this customer (a state grant)
        case grant(TestGrant)
        case expect(Expectation)
    }

    public var kind: Kind
    @IgnoredInEquality public var range: SourceRange

    public init(_ kind: Kind, range: SourceRange) {
        self.kind = kind
        self.range = range
    }
}

/// `given PRODUCT [STATUS] [since I] [until I] [grace_until I] [quantity N] [family_shared]`
public struct Given: Hashable, Sendable {
    public var product: Identifier
    public var status: Located<PurchaseStatusWord>?
    public var since: StringLiteral?
    public var until: StringLiteral?
    public var graceUntil: StringLiteral?
    public var quantity: IntegerLiteral?
    public var familyShared: Located<String>?
}

/// `grant NAME [N | unlimited] [per INTERVAL] [overage [up to N]] [from I] [until I]`: a grant to the
/// customer (docs/state.md `grants`), of an entitlement (no amount) or of a feature or credit system.
public struct TestGrant: Hashable, Sendable {
    public var name: Identifier
    public var amount: Grant.Amount?
    /// `per INTERVAL` and the range of the whole clause.
    public var per: Located<ResetInterval>?
    public var overage: Grant.Overage?
    public var from: StringLiteral?
    public var until: StringLiteral?
}

/// `expect NAME [N] allowed|denied|undetermined [balance N|unlimited] [via direct|credits [SYSTEM]|overage]`
public struct Expectation: Hashable, Sendable {
    public enum Balance: Hashable, Sendable {
        case amount(IntegerLiteral)
        case unlimited(Located<String>)
    }

    /// `via direct` / `via credits [SYSTEM]` / `via overage`; the word's range spans from `via`.
    public enum Via: Hashable, Sendable {
        case direct(Located<String>)
        case credits(Located<String>, system: Identifier?)
        case overage(Located<String>)

        /// From `via` to the word after it.
        public var range: SourceRange {
            switch self {
            case .direct(let w), .credits(let w, _), .overage(let w): w.range
            }
        }
    }

    public var name: Identifier
    public var amount: IntegerLiteral?
    public var decision: Located<DecisionWord>
    public var balance: Balance?
    public var via: Via?
}
