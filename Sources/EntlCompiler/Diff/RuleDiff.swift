import EntlRuntime
import EntlSyntax

/// The findings `entlc diff` reports (`D4xx` breaking, `D1xx` the rest).
extension DiagnosticCode {
    public static let entitlementLost = DiagnosticCode("D401", "entitlement lost by existing customers")
    public static let featureLost = DiagnosticCode("D402", "feature lost by existing customers")
    public static let allowanceShrinks = DiagnosticCode("D403", "allowance shrinks for existing customers")
    public static let nameRemoved = DiagnosticCode("D404", "name removed or of another kind")
    public static let storeIDUnmapped = DiagnosticCode("D405", "store id no longer maps to its product")
    public static let conversionDearer = DiagnosticCode("D406", "credit conversion dearer or removed")
    public static let ownershipShortened = DiagnosticCode("D407", "purchases of a product owned for less time")
    public static let accessGained = DiagnosticCode("D101", "access gained")
    public static let allowanceGrows = DiagnosticCode("D102", "allowance grows")
    public static let nameAdded = DiagnosticCode("D103", "new name")
    public static let conversionCheaper = DiagnosticCode("D104", "credit conversion cheaper or added")
    public static let futurePurchasesOnly = DiagnosticCode("D105", "change for future purchases only")
    public static let comparisonIncomplete = DiagnosticCode("D106", "comparison incomplete")

    static let diffCodes: [DiagnosticCode] = [
        .entitlementLost, .featureLost, .allowanceShrinks, .nameRemoved, .storeIDUnmapped, .conversionDearer,
        .ownershipShortened, .accessGained, .allowanceGrows, .nameAdded, .conversionCheaper, .futurePurchasesOnly,
        .comparisonIncomplete,
    ]

    /// Whether the finding takes something from existing customers or from app code.
    public var isBreaking: Bool { id.hasPrefix("D4") }
}

/// What a change from one version of a rule set to another does, decided on the checked rules
/// (not their text), per environment, in one purchase-atom space shared by both versions:
///
/// - Access (`D401`, `D402`, `D101`): an entitlement's or a boolean feature's availability as a
///   function of the purchases (the linter's BDDs). A situation that had it and loses it is
///   breaking when an *existing* customer can be in it — everything bought before `since` — and
///   otherwise a change for future purchases only (`D105`, which is what a grandfathered change
///   looks like).
/// - Allowances (`D403`, `D102`): for each metered feature and credit system, the purchase
///   situations are split by which grant sources (entitlements, products, on both sides) are
///   active, and in each the old and new grants are compared (`Allowance.covers`).
/// - Names (`D404`, `D103`), store ids (`D405`), credit conversions (`D406`, `D104`).
///
/// Breaking findings are errors (unless allowed: then notes), the rest notes. Each names an
/// example situation, and where it fits a grandfathering rewrite with `since` as the instant.
public struct RuleDiff: Sendable {
    /// Every finding, in output order (NEW's files first, then OLD's).
    public var findings: [Diagnostic]

    public var breaking: [Diagnostic] { findings.filter { $0.severity == .error } }

    /// Compares two checked rule sets without errors. `allowed`: breaking codes reported as notes.
    /// `diagramNodes`: the most decision-diagram nodes one environment's comparison may hold (past
    /// them it is incomplete, D106); nil: two million.
    public static func compare(old: CheckedRuleSet, new: CheckedRuleSet, since: Instant,
                               environments: [EnvironmentName] = EnvironmentName.allCases,
                               allowed: Set<String> = [], diagramNodes: Int? = nil) -> RuleDiff {
        var perEnvironment: [[Diagnostic]] = []
        for env in environments {
            let diff = EnvironmentDiff(old: old, new: new, environment: env, since: since,
                                       capacity: diagramNodes ?? BDD.defaultCapacity)
            diff.run()
            perEnvironment.append(diff.findings)
        }
        // A finding made in every compared environment is reported once; one made in some only
        // says where.
        var count: [Diagnostic: Int] = [:]
        for list in perEnvironment { for d in Set(list) { count[d, default: 0] += 1 } }
        var seen: Set<Diagnostic> = []
        var findings: [Diagnostic] = []
        for (env, list) in zip(environments, perEnvironment) {
            for d in list where seen.insert(d).inserted {
                var d = d
                if count[d]! < environments.count { d.message += " (environment `\(env.rawValue)`)" }
                if d.code.isBreaking, allowed.contains(d.code.id) { d.severity = .note }
                findings.append(d)
            }
        }
        let order = new.sources.map(\.path) + old.sources.map(\.path)
        return RuleDiff(findings: findings.sortedForOutput(fileOrder: order))
    }
}
