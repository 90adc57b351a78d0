import EntlCompiler
import EntlRuntime
import EntlSyntax

/// `entlc check RULES [--format text|json|sarif|github] [--env live|test] [--deny-warnings]
/// [--allow CODE]... [--deny CODE]...`
enum CheckCommand {
    static let spec = CommandSpec(
        name: "check",
        summary: "parse, check and lint rule files; report diagnostics",
        help: """
        USAGE: entlc check RULES... [--format text|json|sarif|github] [--env live|test]
                                    [--deny-warnings] [--allow CODE]... [--deny CODE]...

        Parses, checks and lints a rule set and prints one diagnostic per problem, then a summary
        line (`1 error, 2 warnings in 3 files`). Codes are stable: E1xx syntax, E2xx names and
        kinds, W3xx lints (lints run when there are no errors). `entlc explain CODE` explains one.
        A `// entl-allow CODE` comment on the line above a declaration silences a warning there.

        OPTIONS:
          --format text|json|sarif|github
                               text (default; colour only on a terminal with NO_COLOR unset),
                               {"diagnostics":[…],"errors":N,"warnings":N}, SARIF 2.1.0 for code
                               scanning, or GitHub Actions annotations (::error file=…::…)
          --env live|test      check only that environment's view of the rule set (default: both)
          --allow CODE         drop a warning code everywhere (repeatable)
          --deny CODE          report a warning code as an error (repeatable)
          --deny-warnings      exit 1 when there are warnings too

        EXIT: 0 no errors, 1 errors found (or warnings with --deny-warnings),
              2 bad arguments or unreadable files.

        """,
        options: [
            OptionSpec(name: "--format", takesValue: true), OptionSpec(name: "--env", takesValue: true),
            OptionSpec(name: "--allow", takesValue: true, repeatable: true),
            OptionSpec(name: "--deny", takesValue: true, repeatable: true), OptionSpec(name: "--deny-warnings"),
        ],
        run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> ExitCode {
        let format = try args.choice("--format", in: ["text", "json", "sarif", "github"]) ?? "text"
        let environments = try args.environmentNames()
        let allow = try codes(args.all("--allow"), option: "--allow", warningsOnly: true)
        let deny = try codes(args.all("--deny"), option: "--deny", warningsOnly: false)
        if let both = allow.sorted().first(where: deny.contains) {
            throw CLIError("\(both) is given to both --allow and --deny: drop it or make it an error, not both")
        }
        let sources = try RuleLoader.load(args.positionals)
        let checked = Compiler.check(sources, environments: environments)
        let diagnostics = checked.sortedDiagnostics.compactMap { d -> Diagnostic? in
            if allow.contains(d.code.id) { return nil }
            var d = d
            if deny.contains(d.code.id) { d.severity = .error }
            return d
        }
        Terminal.emit(DiagnosticOutput.render(diagnostics, format: format, sources: sources,
                                              color: Terminal.stdoutWantsColor))
        if diagnostics.hasErrors { return .no }
        if args.has("--deny-warnings"), diagnostics.warningCount > 0 { return .no }
        return .success
    }

    /// Validates codes given to `--allow`/`--deny`: unknown ones fail with the nearest valid code.
    static func codes(_ values: [String], option: String, warningsOnly: Bool) throws(CLIError) -> Set<String> {
        var out: Set<String> = []
        for raw in values {
            let code = try ExplainCommand.known(raw, option: option)
            if warningsOnly, !code.hasPrefix("W") {
                throw CLIError("\(option) \(code): only warnings can be allowed; errors must be fixed")
            }
            out.insert(code)
        }
        return out
    }
}
