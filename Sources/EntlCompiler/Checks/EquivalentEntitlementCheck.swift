import EntlSyntax

/// Equivalent entitlements (W310).
///
/// Invariant: two entitlements that are not written as aliases (`entitlement b = a`) have
/// different constraints. Decided on canonical BDDs, indexed by node id, so finding every pair
/// is linear in the number of entitlements (no pairwise comparison). An entitlement whose
/// diagram spent its budget is W315's.
enum EquivalentEntitlementCheck: LintCheck {
    static let code = DiagnosticCode("W310", "equivalent entitlements")

    static func run(_ context: LintContext) {
        for env in context.environments {
            let analysis = context.analysis(env)
            var seen: [Int32: (name: String, file: String, range: SourceRange)] = [:]
            for site in context.declarations where site.isVisible(in: env) {
                guard case .entitlement(let e) = site.declaration else { continue }
                if case .reference(let id) = e.expression, analysis.table[id.name]?.kind == .entitlement { continue }
                guard let facts = analysis.facts(of: site.declaration), !facts.isImpossible, !facts.isAlwaysTrue
                else { continue }
                let key = facts.canonical
                if let first = seen[key] {
                    context.report(code, message(e.name.name, first.name), file: site.file, at: e.name.range,
                                   label: label, help: help(e.name.name, first.name),
                                   notes: [DiagnosticNote(message: "`\(first.name)` is declared here", file: first.file,
                                                          range: first.range)])
                } else {
                    seen[key] = (e.name.name, site.file, e.name.range)
                }
            }
        }
    }
}

extension EquivalentEntitlementCheck {
    fileprivate static func message(_ name: String, _ other: String) -> String {
        "entitlement `\(name)` is active for exactly the purchases `\(other)` is"
    }
    fileprivate static let label = "the same purchases activate it"
    fileprivate static func help(_ name: String, _ other: String) -> String {
        "merge their grants into `\(other)`, or write `entitlement \(name) = \(other)` to say they are one "
            + "(a customer granted `\(other)` then has `\(name)` too)"
    }
}
