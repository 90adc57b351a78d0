import EntlSyntax

/// `carry` without `per` (W307).
///
/// Invariant: `carry` appears only with `per`. A lifetime allowance never resets, so there is
/// nothing to carry over.
enum CarryWithoutResetCheck: LintCheck {
    static let code = DiagnosticCode("W307", "carry without reset")

    static func run(_ context: LintContext) {
        for declaration in context.checkedDeclarations {
            for g in grants(of: declaration)?.grants ?? [] {
                guard let carry = g.carry, g.per == nil, !isUnlimited(g) else { continue }
                context.report(code, message, file: declaration.site.file, at: carry.range, label: label,
                               help: help(g.feature.name))
            }
        }
    }
}

func isUnlimited(_ g: Grant) -> Bool {
    if case .unlimited = g.amount { return true }
    return false
}

extension CarryWithoutResetCheck {
    fileprivate static let message = "`carry` has no effect without `per`"
    fileprivate static let label = "a lifetime allowance never resets"
    fileprivate static func help(_ feature: String) -> String {
        "add a reset interval (`grants \(feature) N per month carry`) or remove `carry`"
    }
}
