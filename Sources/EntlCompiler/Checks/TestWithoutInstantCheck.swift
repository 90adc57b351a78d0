import EntlSupport
import EntlSyntax

/// A test with no instant to run at (W316).
///
/// Invariant: every test block can run: it has an `at`, or reads a `state` file whose `now` is
/// the instant. A test with neither fails every run with "cannot run"; `check` says so first.
enum TestWithoutInstantCheck: LintCheck {
    static let code = DiagnosticCode("W316", "test without an instant")

    static func run(_ context: LintContext) {
        for test in context.model.tests where !test.hasInstant {
            let description = test.syntax.description
            context.report(code, message(description.value), file: test.site.file, at: description.range, label: label,
                           help: help)
        }
    }
}

extension TestWithoutInstantCheck {
    fileprivate static func message(_ name: String) -> String {
        "test \"\(name.withControlsEscaped)\" has no `at` and no `state`: it has no instant to run at"
    }
    fileprivate static let label = "cannot run"
    fileprivate static let help = "add `at \"2026-11-22T12:00:00Z\"` (or a `state` file that has a `now`)"
}
