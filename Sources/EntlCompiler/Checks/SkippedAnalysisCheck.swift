import EntlSyntax

/// Lint analysis skipped (W315, a note).
///
/// Invariant: no lint goes quiet without a word. The exact lints (W303, W304, W305, W310) decide
/// on a constraint's diagram, and each analysis has a budget per constraint (`AnalysisBudget`):
/// a constraint whose diagram would outgrow it is skipped, and so is one that names a skipped
/// entitlement. This note says so at the declaration, naming the analysis; the rest of the rule
/// set is checked as usual. `RedundantTermCheck` reports its own search's budget with this code.
enum SkippedAnalysisCheck: LintCheck {
    static let code = DiagnosticCode("W315", "lint analysis skipped", severity: .note)

    static func run(_ context: LintContext) {
        context.forEachConstraint { site, owner, _, analysis in
            guard let skip = analysis.skip(of: site.declaration) else { return }
            switch skip {
            case .tooManyCombinations:
                report(constraintAnalysis, of: owner, site: site, context: context, help: constraintHelp)
            case .names(let entitlement):
                report(constraintAnalysis, of: owner, site: site, context: context, reason: namesSkipped(entitlement),
                       help: constraintHelp)
            }
        }
    }

    /// Reports that `analysis` skipped the constraint of `site`'s declaration.
    static func report(_ analysis: String, of owner: String, site: DeclarationSite, context: LintContext,
                       reason: String = tooManyCombinations, label: String = constraintLabel, help: String) {
        guard let name = constraintOwnerName(site.declaration) else { return }
        context.report(code, message(analysis, owner, reason), file: site.file, at: name.range, label: label,
                       help: help)
    }
}

extension SkippedAnalysisCheck {
    static let constraintAnalysis = "constraint analysis"
    static let redundancyAnalysis = "redundancy analysis"
    static let tooManyCombinations = "too many combinations"
    fileprivate static func namesSkipped(_ name: String) -> String {
        "it names entitlement `\(name)`, whose analysis was skipped"
    }
    fileprivate static func message(_ analysis: String, _ owner: String, _ reason: String) -> String {
        "\(analysis) of \(owner) skipped: \(reason)"
    }
    fileprivate static let constraintLabel = "its constraint was not checked"
    static let redundancyLabel = "not every term of its constraint was checked"
    fileprivate static let constraintHelp = "the impossible, always-true, redundant-term and equivalence lints "
        + "(W303, W304, W305, W310) did not check this constraint"
    static let redundancyHelp = "the redundant-term lint (W305) did not check every term of this constraint"
}
