import EntlSyntax

/// Carry cap below one window's allowance (W308).
///
/// Invariant: a carry cap is at least one window's allowance. `carry up to N` caps what rolls
/// over into the next window, not the balance: a cap below the allowance usually means the
/// author wanted to cap the whole balance, which would need `up to` the cap minus the allowance.
enum CarryCapBelowAllowanceCheck: LintCheck {
    static let code = DiagnosticCode("W308", "carry cap below one allowance")

    static func run(_ context: LintContext) {
        for declaration in context.checkedDeclarations {
            for g in grants(of: declaration)?.grants ?? [] {
                guard let per = g.per, let cap = g.carry?.cap, case .count(let amount)? = g.amount,
                      cap.value < amount.value else { continue }
                context.report(code, message(cap.value, per.value.rawValue, amount.value), file: declaration.site.file,
                               at: cap.range, label: label, help: help(amount.value, cap.value))
            }
        }
    }
}

extension CarryCapBelowAllowanceCheck {
    fileprivate static func message(_ cap: Int64, _ per: String, _ amount: Int64) -> String {
        "carry cap \(cap) is below one \(per)'s allowance of \(amount)"
    }
    fileprivate static let label = "caps what rolls over, not the balance"
    fileprivate static func help(_ amount: Int64, _ cap: Int64) -> String {
        "the balance can reach \(amount + cap) after a reset; if that is intended, "
        + "silence this with `// entl-allow W308`"
    }
}
