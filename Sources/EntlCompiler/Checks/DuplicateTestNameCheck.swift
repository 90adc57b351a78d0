import EntlSupport
import EntlSyntax

/// Two tests with the same description (W312).
///
/// Invariant: test descriptions are unique, so `entlc test` output and `--filter` name one test.
enum DuplicateTestNameCheck: LintCheck {
    static let code = DiagnosticCode("W312", "duplicate test name")

    static func run(_ context: LintContext) {
        var first: [String: (file: String, range: SourceRange)] = [:]
        for test in context.model.tests {
            let (t, site) = (test.syntax, test.site)
            if let earlier = first[t.description.value] {
                context.report(code, message(t.description.value), file: site.file, at: t.description.range,
                               label: label, help: help,
                               notes: [DiagnosticNote(message: "first used here", file: earlier.file,
                                                      range: earlier.range)])
            } else {
                first[t.description.value] = (site.file, t.description.range)
            }
        }
    }
}

extension DuplicateTestNameCheck {
    fileprivate static func message(_ name: String) -> String { "two tests are named \"\(name.withControlsEscaped)\"" }
    fileprivate static let label = "used again here"
    fileprivate static let help = "give each test its own description"
}
