import EntlSupport
import EntlSyntax

/// A test that expects nothing (W313).
///
/// Invariant: every test block has at least one `expect`: a test without one always passes.
enum TestWithoutExpectationCheck: LintCheck {
    static let code = DiagnosticCode("W313", "test expects nothing")

    static func run(_ context: LintContext) {
        for test in context.model.tests where test.expectations.isEmpty {
            let description = test.syntax.description
            context.report(code, message(description.value), file: test.site.file, at: description.range, label: label,
                           help: help)
        }
    }
}

extension TestWithoutExpectationCheck {
    fileprivate static func message(_ name: String) -> String { "test \"\(name.withControlsEscaped)\" expects nothing" }
    fileprivate static let label = "always passes"
    fileprivate static let help = "add an `expect NAME allowed|denied|undetermined` line"
}
