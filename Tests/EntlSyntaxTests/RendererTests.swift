import EntlSyntax
import Testing

@Suite struct RendererTests {
    let source = SourceFile(path: "rules/photos.entl", text: """
    product pro_monthly: subscription { period month }
    product pro_annual: subscription { period year }
    entitlement pro = pro_montly or pro_annual {
    \tgrants x
    }
    """)

    func range(_ line: Int, _ from: Int, _ to: Int, offset: Int = 0) -> SourceRange {
        SourceRange(start: EntlSyntax.SourceLocation(line: line, column: from, offset: offset),
                    end: EntlSyntax.SourceLocation(line: line, column: to, offset: offset + to - from))
    }

    @Test func rendersTheCLIExampleLayout() {
        let d = Diagnostic(DiagnosticCode("E201", "unknown name"), "unknown product `pro_montly`", file: "rules/photos.entl",
                           range: range(3, 19, 29), label: "not declared in this rule set",
                           help: "did you mean `pro_monthly`?")
        #expect(DiagnosticRenderer(sources: [source]).render(d) == """
        rules/photos.entl:3:19: error[E201]: unknown product `pro_montly`
          |
        3 | entitlement pro = pro_montly or pro_annual {
          |                   ^^^^^^^^^^ not declared in this rule set
          = help: did you mean `pro_monthly`?

        """)
    }

    /// One renderer keeps the line it showed last: a diagnostic after others on the same line, on
    /// another line or in another file with a line of that number, renders as a fresh renderer
    /// renders it.
    @Test func aRendererReusesOnlyTheSameLine() {
        let other = SourceFile(path: "other.entl", text: "feature a: boolean\nfeature b: boolean\nfeature c: boolean\n")
        let diagnostics = [(source.path, 3, 19, 29), (source.path, 3, 33, 43), (other.path, 3, 9, 10),
                           (source.path, 1, 9, 20), (other.path, 1, 9, 10), (source.path, 3, 1, 12)]
            .map { file, line, from, to in
                Diagnostic(DiagnosticCode("E201", "unknown name"), "m", file: file, range: range(line, from, to))
            }
        let shared = DiagnosticRenderer(sources: [source, other])
        for d in diagnostics {
            #expect(shared.render(d) == DiagnosticRenderer(sources: [source, other]).render(d))
        }
        #expect(shared.render(diagnostics[2]).contains("3 | feature c: boolean"))
    }

    @Test func notesGetTheirOwnSnippetAndTabsAlign() {
        let d = Diagnostic(DiagnosticCode("W399", "x"), "something", file: "rules/photos.entl", range: range(4, 9, 10),
                           notes: [DiagnosticNote(message: "see here", file: "rules/photos.entl", range: range(1, 9, 20))])
        #expect(DiagnosticRenderer(sources: [source]).render(d) == """
        rules/photos.entl:4:9: warning[W399]: something
          |
        4 | \tgrants x
          | \t       ^
        rules/photos.entl:1:9: note: see here
          |
        1 | product pro_monthly: subscription { period month }
          |         ^^^^^^^^^^^

        """)
    }

    /// docs/cli.md "Messages print as they read": a control character of the input reaches no
    /// terminal as itself — the source line shows its picture (one column: the carets stay under
    /// the range), the message, label and help quote it escaped (a review: an ESC in a rule file
    /// had cleared the screen of whoever ran `check`).
    @Test func controlCharactersOfTheInputAreShownNotObeyed() {
        let file = SourceFile(path: "esc.entl", text: "product p: consumable \u{1B}[2J\u{1B}[31mFAKE\r\u{7F}\n")
        let d = Diagnostic(DiagnosticCode("E100", "unexpected character"), "unexpected characters `\u{1B}[`",
                           file: file.path, range: range(1, 23, 25, offset: 22), label: "not \u{1B}[0m",
                           help: "remove `\u{1B}`")
        #expect(DiagnosticRenderer(sources: [file]).render(d) == """
        esc.entl:1:23: error[E100]: unexpected characters `\\u{1B}[`
          |
        1 | product p: consumable \u{241B}[2J\u{241B}[31mFAKE\u{240D}\u{2421}
          |                       ^^ not \\u{1B}[0m
          = help: remove `\\u{1B}`

        """)
    }

    @Test func colourOnlyWhenAsked() {
        let d = Diagnostic(DiagnosticCode("E201", "unknown name"), "unknown", file: "rules/photos.entl", range: range(3, 19, 29))
        #expect(!DiagnosticRenderer(sources: [source]).render(d).contains("\u{1B}["))
        let coloured = DiagnosticRenderer(sources: [source], color: true).render(d)
        #expect(coloured.hasPrefix("rules/photos.entl:3:19: \u{1B}[1;31merror[E201]\u{1B}[0m"))
    }

    @Test func summaryLine() {
        #expect(DiagnosticRenderer.summary(errors: 1, warnings: 2, files: 3) == "1 error, 2 warnings in 3 files")
        #expect(DiagnosticRenderer.summary(errors: 0, warnings: 1, files: 1) == "0 errors, 1 warning in 1 file")
    }
}
