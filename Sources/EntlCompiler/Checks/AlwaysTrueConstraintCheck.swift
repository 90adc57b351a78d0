import EntlSyntax

/// Always-true constraint (W304).
///
/// Invariant: every constraint depends on purchases, unless it says `everyone`. One that holds for
/// every purchase state gives its grants to every customer, paying or not: intended, that is the
/// free tier and is written `everyone`. Decided exactly on the BDD; reported at the smallest
/// disjunct that is always true by itself (or at the whole constraint, when that search spends
/// its budget). A constraint whose diagram spent its budget is W315's.
enum AlwaysTrueConstraintCheck: LintCheck {
    static let code = DiagnosticCode("W304", "always-true constraint")

    static func run(_ context: LintContext) {
        context.forEachConstraint { site, owner, e, analysis in
            guard !context.saysEveryone(e, analysis), let facts = analysis.facts(of: site.declaration),
                  facts.isAlwaysTrue else { return }
            // The first disjunct that always holds by itself, as deep as that goes.
            let search = analysis.withinBudget {
                var culprit = e
                while !analysis.spent, case .or(let terms) = culprit,
                      let inner = terms.first(where: { analysis.isAlwaysTrue(analysis.value($0)) }) {
                    culprit = inner
                }
                return culprit
            }
            let culprit = search.complete ? search.result : e
            context.report(code, message(owner), file: site.file, at: culprit.range,
                           label: label(context.text(site.file, culprit.range)), help: help)
        }
    }
}

extension AlwaysTrueConstraintCheck {
    fileprivate static func message(_ owner: String) -> String { "\(owner) always holds" }
    fileprivate static func label(_ text: String) -> String { "`\(text)` is true for every purchase state" }
    fileprivate static let help = "every customer gets this without buying anything; for a free tier, say so: "
        + "`entitlement free = everyone { … }`"
}
