import EntlCompiler
import EntlRuntime
import EntlSyntax

/// `entlc check RULES [--format text|json] [--env live|test]`
enum CheckCommand {
    static let spec = CommandSpec(
        name: "check",
        summary: "parse and check rule files; report diagnostics",
        help: """
        USAGE: entlc check RULES... [--format text|json] [--env live|test]

        Parses and checks a rule set and prints one diagnostic per problem, then a summary line
        (`1 error, 0 warnings in 3 files`). Codes are stable: E1xx syntax, E2xx names and kinds.

        OPTIONS:
          --format text|json   text (default; colour only on a terminal with NO_COLOR unset) or
                               {"diagnostics":[…],"errors":N,"warnings":N}
          --env live|test      check only that environment's view of the rule set (default: both)

        EXIT: 0 no errors, 1 errors found, 2 bad arguments or unreadable files.

        """,
        options: [OptionSpec(name: "--format", takesValue: true), OptionSpec(name: "--env", takesValue: true)],
        run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> ExitCode {
        let format = try args.choice("--format", in: ["text", "json"]) ?? "text"
        let environments = try args.choice("--env", in: ["live", "test"])
            .map { [EnvironmentName(rawValue: $0)!] } ?? EnvironmentName.allCases
        let sources = try RuleLoader.load(args.positionals)
        let checked = Compiler.check(sources, environments: environments)
        let diagnostics = checked.sortedDiagnostics
        switch format {
        case "json":
            Terminal.emit(DiagnosticOutput.json(diagnostics).pretty + "\n")
        default:
            Terminal.emit(DiagnosticOutput.text(diagnostics, sources: sources, color: Terminal.stdoutWantsColor))
        }
        return diagnostics.hasErrors ? .no : .success
    }
}

/// The output formats of diagnostics.
enum DiagnosticOutput {
    /// Each diagnostic rendered, a blank line between them, then the summary line.
    static func text(_ diagnostics: [Diagnostic], sources: [SourceFile], color: Bool) -> String {
        let renderer = DiagnosticRenderer(sources: sources, color: color)
        var out = ""
        for d in diagnostics {
            out += renderer.render(d) + "\n"
        }
        out += DiagnosticRenderer.summary(errors: diagnostics.errorCount, warnings: diagnostics.warningCount,
                                          files: sources.count) + "\n"
        return out
    }

    /// `{"diagnostics":[…],"errors":N,"warnings":N}` with the keys of CLI.md.
    static func json(_ diagnostics: [Diagnostic]) -> JSONValue {
        .object([
            ("diagnostics", .array(diagnostics.map(json))),
            ("errors", .int(Int64(diagnostics.errorCount))),
            ("warnings", .int(Int64(diagnostics.warningCount))),
        ])
    }

    static func json(_ d: Diagnostic) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("severity", .string(d.severity.rawValue)), ("code", .string(d.code.id)),
                                                           ("message", .string(d.message))]
        members += position(d.file, d.range)
        if let help = d.help { members.append(("help", .string(help))) }
        members.append(("notes", .array(d.notes.map { note in
            .object([("message", .string(note.message))] + position(note.file, note.range))
        })))
        return .object(members)
    }

    private static func position(_ file: String, _ range: SourceRange) -> [(key: String, value: JSONValue)] {
        [("file", .string(file)), ("line", .int(Int64(range.start.line))), ("column", .int(Int64(range.start.column))),
         ("end_line", .int(Int64(range.end.line))), ("end_column", .int(Int64(range.end.column)))]
    }
}
