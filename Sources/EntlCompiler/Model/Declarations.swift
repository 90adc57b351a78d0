import EntlSyntax

// The typed declarations of the model: each item of a declaration's block in its own field.
// Values keep their source ranges (`Located`), for diagnostics and editors. A grant is the
// syntax tree's `Grant` itself: already one typed value per `grants` item, its clauses fields.

extension RuleModel {
    /// `app "ID"`
    public struct App: Declared {
        public let id: StringLiteral
        public let site: Site
    }

    /// `product NAME: KIND { … }`
    public struct Product: Named {
        public let name: Identifier
        public let site: Site
        public let docs: [String]
        /// Nil when the kind was missing or unknown (already reported).
        public let kind: Located<ProductKind>?
        public let displayName: StringLiteral?
        public let period: Located<BillingPeriod>?
        public let group: Identifier?
        public let duration: Duration?
        public let storeIDs: [StoreID]
        public let grants: [Grant]

        public var symbolKind: Symbol.Kind { .product(kind?.value) }
    }

    /// `entitlement NAME = CONSTRAINT { … }`
    public struct Entitlement: Named {
        public let name: Identifier
        public let site: Site
        public let docs: [String]
        public let constraint: Expression
        public let displayName: StringLiteral?
        public let grants: [Grant]

        public var symbolKind: Symbol.Kind { .entitlement }
    }

    /// `feature NAME: KIND [requires CONSTRAINT] { … }`, or `credits NAME { … }`: a credit
    /// system is a metered single-use feature that pays for others (`conversions`).
    public struct Feature: Named {
        public let name: Identifier
        public let site: Site
        public let docs: [String]
        public let isCreditSystem: Bool
        /// Nil for a credit system, and when the kind was missing or unknown (already reported).
        public let kind: Located<FeatureKind>?
        /// `usage single_use|continuous` as written; a metered feature without one is single use.
        public let usage: Located<Usage>?
        /// A boolean feature's `requires`.
        public let requires: Expression?
        public let displayName: StringLiteral?
        public let event: StringLiteral?
        public let unit: Unit?
        /// A credit system's `FEATURE AMOUNT = CREDITS` lines.
        public let conversions: [Conversion]

        public var symbolKind: Symbol.Kind {
            isCreditSystem ? .credits : .feature(kind?.value, usage?.value ?? .singleUse)
        }
    }

    /// `duration N UNIT`
    public struct Duration: Sendable {
        public let count: IntegerLiteral
        public let unit: Located<DurationUnit>
        public let range: SourceRange
    }

    /// `id STORE "ID"`
    public struct StoreID: Sendable {
        public let store: Identifier
        public let id: StringLiteral
        public let range: SourceRange
    }

    /// `unit "ONE" [/ "MANY"]`
    public struct Unit: Sendable {
        public let singular: StringLiteral
        public let plural: StringLiteral?
        public let range: SourceRange

        /// The plural to show: as written, else the singular.
        public var pluralText: String { plural?.value ?? singular.value }
    }

    /// `FEATURE AMOUNT = CREDITS` in a credit system: AMOUNT units of FEATURE cost CREDITS.
    public struct Conversion: Sendable {
        public let feature: Identifier
        public let amount: IntegerLiteral
        public let credits: IntegerLiteral
        public let range: SourceRange
    }

    /// `test "DESCRIPTION" { … }`: the tree (the test runner reads its items in order), the
    /// environment it runs in, and the names it writes.
    public struct Test: Declared {
        public let syntax: TestDeclaration
        public let site: Site
        /// Its `env` item, else live.
        public let environment: EnvironmentName
        /// Every name the test writes (products given or overridden, features used, names
        /// expected, credit systems after `via credits`), in source order.
        public let names: [Identifier]
        /// Its `expect` lines, in order.
        public let expectations: [Expectation]
    }
}
