import EntlSyntax

/// `per` or `carry` on an unlimited grant (W309).
///
/// Invariant: an unlimited grant has no reset interval and no carry: there is nothing to reset
/// or carry, so either clause means the author expected an amount.
enum UnlimitedWindowCheck: LintCheck {
    static let code = DiagnosticCode("W309", "window on an unlimited grant")

    static func run(_ context: LintContext) {
        for declaration in context.checkedDeclarations {
            for g in grants(of: declaration)?.grants ?? [] where isUnlimited(g) {
                for (clause, range) in [("per", g.per?.range), ("carry", g.carry?.range)] {
                    guard let range else { continue }
                    context.report(code, message(clause), file: declaration.site.file, at: range, label: label,
                                   help: help(g.feature.name, clause))
                }
            }
        }
    }
}

extension UnlimitedWindowCheck {
    fileprivate static func message(_ clause: String) -> String { "`\(clause)` has no effect on an unlimited grant" }
    fileprivate static let label = "nothing to reset or carry"
    fileprivate static func help(_ feature: String, _ clause: String) -> String {
        "write `grants \(feature) unlimited`, or give an amount instead of `unlimited`"
    }
}
