import EntlSyntax

// The typed declarations of the model: each item of a declaration's block in its own field.
// Values keep their source ranges (`Located`), for diagnostics and editors. A grant is the
// syntax tree's `Grant` itself: already one typed value per `grants` item, its clauses fields.
// Declarations are immutable objects: the rule set's list and each environment's share them.

extension RuleModel {
    /// `app "ID"`
    public final class App: Declared {
        public let id: StringLiteral
        public let site: Site

        init(id: StringLiteral, site: Site) { (self.id, self.site) = (id, site) }
    }

    /// `product NAME: KIND { … }`
    public final class Product: Named {
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

        init(_ p: ProductDeclaration, site: Site, items: ModelBuilder.Items) {
            (name, self.site, docs, kind) = (p.name, site, p.docs, p.kind)
            (displayName, period, group, duration) = (items.displayName, items.period, items.group, items.duration)
            (storeIDs, grants) = (items.storeIDs, items.grants)
        }
    }

    /// `entitlement NAME = CONSTRAINT { … }`
    public final class Entitlement: Named {
        public let name: Identifier
        public let site: Site
        public let docs: [String]
        public let constraint: Expression
        public let displayName: StringLiteral?
        public let grants: [Grant]

        public var symbolKind: Symbol.Kind { .entitlement }

        init(_ e: EntitlementDeclaration, site: Site, items: ModelBuilder.Items) {
            (name, self.site, docs, constraint) = (e.name, site, e.docs, e.expression)
            (displayName, grants) = (items.displayName, items.grants)
        }
    }

    /// `feature NAME: KIND [requires CONSTRAINT] { … }`, or `credits NAME { … }`: a credit
    /// system is a metered single-use feature that pays for others (`conversions`).
    public final class Feature: Named {
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

        /// A feature (`kind` and `requires` as written) or a credit system (neither).
        init(name: Identifier, docs: [String], site: Site, creditSystem: Bool, kind: Located<FeatureKind>?,
             requires: Expression?, items: ModelBuilder.Items) {
            (self.name, self.docs, self.site, isCreditSystem) = (name, docs, site, creditSystem)
            (self.kind, self.requires, displayName) = (kind, requires, items.displayName)
            (usage, event, unit, conversions) = (items.usage, items.event, items.unit, items.conversions)
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
    public final class Test: Declared {
        public let syntax: TestDeclaration
        public let site: Site
        /// Its `env` item, else live.
        public let environment: EnvironmentName
        /// Every name the test writes (products given or overridden, features used, names
        /// granted and expected, credit systems after `via credits`), in source order.
        public let names: [Identifier]
        /// Its `expect` lines, in order.
        public let expectations: [Expectation]
        /// Whether it has an instant to run at: an `at`, or a `state` file (whose `now` it is).
        public let hasInstant: Bool

        init(syntax: TestDeclaration, site: Site, environment: EnvironmentName, names: [Identifier],
             hasInstant: Bool, expectations: [Expectation]) {
            (self.syntax, self.site, self.environment) = (syntax, site, environment)
            (self.names, self.hasInstant, self.expectations) = (names, hasInstant, expectations)
        }
    }
}
