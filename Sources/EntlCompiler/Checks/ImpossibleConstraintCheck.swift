import EntlSyntax

/// Impossible constraint (W303).
///
/// Invariant: every constraint holds for some purchase state. Decided exactly on the BDD of the
/// constraint (entitlements expanded, consumable thresholds ordered), so `zbucks >= 5 and not
/// zbucks >= 3` is caught as surely as `a and not a`. Reported at the smallest conjunct that is
/// impossible by itself (or at the whole constraint, when that search spends its budget). A
/// constraint whose diagram spent its budget is W315's.
enum ImpossibleConstraintCheck: LintCheck {
    static let code = DiagnosticCode("W303", "impossible constraint")

    static func run(_ context: LintContext) {
        context.forEachConstraint { site, owner, e, analysis in
            guard let facts = analysis.facts(of: site.declaration), facts.isImpossible else { return }
            let search = analysis.withinBudget { smallest(e, analysis) }
            let culprit = search.complete ? search.result : e
            context.report(code, message(owner), file: site.file, at: culprit.range,
                           label: label(context.text(site.file, culprit.range)), help: help)
        }
    }

    /// Descends into the first conjunct that is impossible on its own.
    private static func smallest(_ e: Expression, _ analysis: ConstraintAnalysis) -> Expression {
        var current = e
        while !analysis.spent, case .and(let terms) = current,
              let inner = terms.first(where: { analysis.isImpossible(analysis.value($0)) }) {
            current = inner
        }
        return current
    }
}

extension ImpossibleConstraintCheck {
    fileprivate static func message(_ owner: String) -> String { "\(owner) can never hold" }
    fileprivate static func label(_ text: String) -> String { "`\(text)` is false for every purchase state" }
    fileprivate static let help = "no purchase satisfies this; fix the constraint, or remove the declaration unless "
        + "customers are granted it (a state's `grants`)"
}
