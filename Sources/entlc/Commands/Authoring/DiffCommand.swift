import EntlCompiler
import EntlRuntime
import EntlSyntax

/// `entlc diff OLD NEW [--since INSTANT] [--states FILE.jsonl] [--format …] [--env …] [--allow CODE]…`.
/// Nothing it writes depends on the clock but through `--since`'s default, which is then printed as such.
enum DiffCommand {
    static let spec = CommandSpec(
        name: "diff",
        summary: "what a rule change does to customers: breaking changes, gains, impact",
        help: """
        USAGE: entlc diff OLD NEW [--since INSTANT] [--states FILE.jsonl] [--jobs N]
                                  [--format text|json|github|sarif|markdown] [--env live|test]
                                  [--allow CODE]...

        Compares two versions of a rule set (files or directories) on their checked rules, not
        their text, and reports what the change does (docs/changing-rules.md):

          D401 a purchase situation loses an entitlement     D404 a name is removed or changes kind
          D402 ... loses a feature                            D405 a store id no longer maps
          D403 ... gets a smaller allowance                   D406 a credit conversion got dearer
          D407 a non-renewing product is owned for less time
          D1xx (notes) gains, new names, cheaper conversions, changes for future purchases only

        Losses are breaking when a customer who bought everything before --since can be in the
        situation; each names an example customer and, where it fits, the grandfathering rewrite
        (`P purchased before "<since>"`) that keeps what was sold.

        OPTIONS:
          --since INSTANT      when the new rules ship (RFC 3339; default: now, printed as such):
                               purchases made before it are existing customers, the rewrites use
                               it, and states without `now` are evaluated at it
          --states FILE.jsonl  evaluate both versions for every state (JSONL, as eval --states) and
                               report per entitlement and feature how many customers gain, lose or
                               change balance (the first ten ids, and the counts by the product that
                               represents each customer), and per metered feature and credit system
                               how balances drop or rise
          --jobs N             threads for --states (default: one per core)
          --format text|json|github|sarif|markdown
                               text (default), JSON, GitHub Actions annotations, SARIF 2.1.0, or a
                               Markdown summary to post on a pull request
          --env live|test      compare only that environment (default: both)
          --allow CODE         accept a breaking code (reported as a note; repeatable)

        EXIT: 0 no breaking change (or all allowed), 1 breaking changes,
              2 bad arguments, unreadable files, or a side that does not compile.

        """,
        options: [
            OptionSpec(name: "--since", takesValue: true), OptionSpec(name: "--states", takesValue: true),
            OptionSpec(name: "--jobs", takesValue: true), OptionSpec(name: "--format", takesValue: true),
            OptionSpec(name: "--env", takesValue: true),
            OptionSpec(name: "--allow", takesValue: true, repeatable: true),
        ],
        run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> ExitCode {
        let format = try args.choice("--format", in: ["text", "json", "github", "sarif", "markdown"]) ?? "text"
        let environments = try args.environmentNames()
        let given = try args.instant("--since")
        // The one reading of the clock: the default of `--since`, to the second.
        let since = Since(instant: given ?? Instant(seconds: Instant.now().seconds), fromClock: given == nil)
        var allowed: Set<String> = []
        for raw in args.all("--allow") {
            let code = try ExplainCommand.known(raw, option: "--allow")
            guard code.hasPrefix("D4") else {
                throw CLIError("--allow \(code): only breaking changes (D4xx) can be allowed")
            }
            allowed.insert(code)
        }
        guard args.positionals.count == 2 else {
            throw CLIError("give the two versions to compare: entlc diff OLD NEW (files or directories)")
        }
        if args.value("--jobs") != nil, args.value("--states") == nil { throw CLIError("--jobs goes with --states") }

        let old = try compile(args.positionals[0], side: "OLD", format: format)
        let new = try compile(args.positionals[1], side: "NEW", format: format)
        let diff = RuleDiff.compare(old: old, new: new, since: since.instant, environments: environments,
                                    allowed: allowed)
        let impact = try args.value("--states").map { path throws(CLIError) in
            try Impact.measure(path, old: Compiler.graph(of: old), new: Compiler.graph(of: new),
                               environment: environments.count == 1
                                   ? Environment(rawValue: environments[0].rawValue) : nil,
                               at: since.instant, jobs: try EvalCommand.parseJobs(args))
        }
        let sources = new.sources + old.sources.filter { s in !new.sources.contains { $0.path == s.path } }
        emit(diff, impact: impact, since: since, sources: sources, format: format)
        return diff.breaking.isEmpty ? .success : .no
    }

    /// Checks one side; a side with errors stops the comparison (exit 2) with its diagnostics.
    private static func compile(_ path: String, side: String, format: String) throws(CLIError) -> CheckedRuleSet {
        let sources = try RuleLoader.load([path])
        let checked = Compiler.check(sources, lint: false)
        guard !checked.hasErrors else {
            let diagnostics = checked.sortedDiagnostics
            // Text goes with the error line to standard error (Markdown too: it is no comment to post);
            // the machine formats to standard output.
            let rendered = DiagnosticOutput.render(diagnostics, format: format, sources: sources, color: false)
            if ["text", "markdown"].contains(format) { Terminal.emitError(rendered) } else { Terminal.emit(rendered) }
            let n = diagnostics.errorCount
            throw CLIError("cannot compare: \(side) (`\(path)`) does not compile (\(n.counted("error")))")
        }
        return checked
    }

    /// `2 breaking changes, 3 other changes`
    static func summary(_ diff: RuleDiff) -> String {
        let breaking = diff.breaking.count, other = diff.findings.count - breaking
        return "\(breaking.counted("breaking change")), \(other.counted("other change"))"
    }

    /// `--since`, and whether it is the clock's (then the output says so, to make the run reproducible).
    struct Since {
        var instant: Instant
        var fromClock: Bool

        /// `2026-11-23T00:00:00Z`, or `2026-11-26T05:40:00Z (now; pass --since to fix it)`.
        var text: String { instant.rfc3339 + (fromClock ? " (now; pass --since to fix it)" : "") }
    }

    private static func emit(_ diff: RuleDiff, impact: Impact?, since: Since, sources: [SourceFile], format: String) {
        switch format {
        case "json":
            var members: [(key: String, value: JSONValue)] = [
                ("since", .string(since.instant.rfc3339)),
                ("since_from_clock", .bool(since.fromClock)),
                ("findings", .array(diff.findings.map(DiagnosticOutput.json))),
                ("breaking", .int(Int64(diff.breaking.count))),
                ("other", .int(Int64(diff.findings.count - diff.breaking.count))),
            ]
            if let impact { members.append(("impact", impact.json)) }
            Terminal.emit(JSONValue.object(members).pretty + "\n")
        case "sarif":
            Terminal.emit(sarif(diff, impact: impact, since: since).pretty + "\n")
        case "github":
            Terminal.emit(DiagnosticOutput.githubAnnotations(diff.findings) + summary(diff)
                          + " as of \(since.text)\n" + (impact.map { "\n" + $0.text } ?? ""))
        case "markdown":
            Terminal.emit(markdown(diff, impact: impact, since: since))
        default:
            let renderer = DiagnosticRenderer(sources: sources, color: Terminal.stdoutWantsColor)
            var out = ""
            for d in diff.findings { out += renderer.render(d) + "\n" }
            out += summary(diff) + " as of \(since.text)\n"
            if let impact { out += "\n" + impact.text }
            Terminal.emit(out)
        }
    }

    /// `check`'s SARIF, with `--since` and the impact in the run's property bag.
    private static func sarif(_ diff: RuleDiff, impact: Impact?, since: Since) -> JSONValue {
        var properties: [(key: String, value: JSONValue)] = [
            ("since", .string(since.instant.rfc3339)), ("sinceFromClock", .bool(since.fromClock)),
        ]
        if let impact { properties.append(("impact", impact.json)) }
        return DiagnosticOutput.sarif(diff.findings, properties: properties)
    }
}
