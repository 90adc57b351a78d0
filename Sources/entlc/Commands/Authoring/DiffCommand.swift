import EntlCompiler
import EntlRuntime
import EntlSyntax

/// `entlc diff OLD NEW [--since INSTANT] [--states FILE.jsonl] [--format …] [--env …] [--allow CODE]…`
enum DiffCommand {
    static let spec = CommandSpec(
        name: "diff",
        summary: "what a rule change does to customers: breaking changes, gains, impact",
        help: """
        USAGE: entlc diff OLD NEW [--since INSTANT] [--states FILE.jsonl] [--jobs N]
                                  [--format text|json|github|sarif] [--env live|test] [--allow CODE]...

        Compares two versions of a rule set (files or directories) on their checked rules, not
        their text, and reports what the change does (docs/changing-rules.md):

          D401 a purchase situation loses an entitlement     D404 a name is removed or changes kind
          D402 ... loses a feature                            D405 a store id no longer maps
          D403 ... gets a smaller allowance                   D406 a credit conversion got dearer
          D1xx (notes) gains, new names, cheaper conversions, changes for future purchases only

        Losses are breaking when a customer who bought everything before --since can be in the
        situation; each names an example customer and, where it fits, the grandfathering rewrite
        (`P purchased before "<since>"`) that keeps what was sold.

        OPTIONS:
          --since INSTANT      when the new rules ship (RFC 3339; default: now): purchases made
                               before it are existing customers
          --states FILE.jsonl  evaluate both versions for every state (JSONL, as eval --states) and
                               report per entitlement and feature how many customers gain, lose or
                               change balance, with the first ten customer ids
          --jobs N             threads for --states (default: one per core)
          --format text|json|github|sarif
                               text (default), JSON, GitHub Actions annotations, or SARIF 2.1.0
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
        let format = try args.choice("--format", in: ["text", "json", "github", "sarif"]) ?? "text"
        let environments = try args.environmentNames()
        let since = try args.instant("--since") ?? Instant(seconds: Instant.now().seconds)
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
        let diff = RuleDiff.compare(old: old, new: new, since: since, environments: environments,
                                    allowed: allowed)
        let impact = try args.value("--states").map { path throws(CLIError) in
            try Impact.measure(path, old: Compiler.graph(of: old), new: Compiler.graph(of: new),
                               environment: environments.count == 1
                                   ? Environment(rawValue: environments[0].rawValue) : nil,
                               jobs: try EvalCommand.parseJobs(args))
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
            // Text goes with the error line to standard error; the machine formats to standard output.
            let rendered = DiagnosticOutput.render(diagnostics, format: format, sources: sources, color: false)
            if format == "text" { Terminal.emitError(rendered) } else { Terminal.emit(rendered) }
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

    private static func emit(_ diff: RuleDiff, impact: Impact?, since: Instant, sources: [SourceFile], format: String) {
        switch format {
        case "json":
            var members: [(key: String, value: JSONValue)] = [
                ("since", .string(since.rfc3339)),
                ("findings", .array(diff.findings.map(DiagnosticOutput.json))),
                ("breaking", .int(Int64(diff.breaking.count))),
                ("other", .int(Int64(diff.findings.count - diff.breaking.count))),
            ]
            if let impact { members.append(("impact", impact.json)) }
            Terminal.emit(JSONValue.object(members).pretty + "\n")
        case "sarif":
            Terminal.emit(DiagnosticOutput.sarif(diff.findings).pretty + "\n")
        case "github":
            Terminal.emit(DiagnosticOutput.githubAnnotations(diff.findings) + summary(diff)
                          + " as of \(since.rfc3339)\n" + (impact.map { "\n" + $0.text } ?? ""))
        default:
            let renderer = DiagnosticRenderer(sources: sources, color: Terminal.stdoutWantsColor)
            var out = ""
            for d in diff.findings { out += renderer.render(d) + "\n" }
            out += summary(diff) + " as of \(since.rfc3339)\n"
            if let impact { out += "\n" + impact.text }
            Terminal.emit(out)
        }
    }
}

/// `--states`: EntlCompiler's `Impact` measured over a JSONL file, and its two formats.
extension Impact {
    static func measure(_ path: String, old: RuleGraph, new: RuleGraph, environment: Environment?,
                        jobs: Int) throws(CLIError) -> Impact {
        let clock = Instant.now()
        var total = Impact(source: path)
        try JSONLines.process(path, jobs: jobs, initial: { Impact(source: path) }, reset: { $0 = Impact(source: path) },
                              line: { line, number, impact in
            impact.add(line: number, old: old, new: new, environment: environment, clock: clock) {
                try JSONLines.state(line)
            }
        }, size: { _ in 0 }, consume: { total.merge($0) })  // a summary: its size does not grow with the lines
        return total
    }

    /// The table a reviewer reads.
    var text: String {
        var out = "Impact on \(Int64(customers).grouped) customer\(customers == 1 ? "" : "s") in \(source):\n"
        if rows.isEmpty { out += "  no customer gains or loses anything, and no balance changes\n" }
        for key in rows.keys.sorted() {
            let row = rows[key]!
            let groups = [("lose", row.lost), ("gain", row.gained), ("change balance", row.balanceChanged)]
            for (word, group) in groups where group.count > 0 {
                let more = group.count > group.customers.count ? ", …" : ""
                out += "  \(key.kind) \(key.name): \(Int64(group.count).grouped) \(word) "
                    + "(\(group.customers.joined(separator: ", "))\(more))\n"
            }
        }
        if errorCount > 0 {
            out += "  \(Int64(errorCount).grouped) line\(errorCount == 1 ? "" : "s") could not be evaluated:\n"
            for e in errors { out += "    line \(e.line): \(e.message)\n" }
        }
        return out
    }

    var json: JSONValue {
        func group(_ g: Group) -> JSONValue {
            .object([("count", .int(Int64(g.count))), ("customers", .array(g.customers.map { .string($0) }))])
        }
        return .object([
            ("states", .string(source)),
            ("customers", .int(Int64(customers))),
            ("changes", .array(rows.keys.sorted().map { key in
                let row = rows[key]!
                return .object([("kind", .string(key.kind)), ("name", .string(key.name)), ("gained", group(row.gained)),
                                ("lost", group(row.lost)), ("balance_changed", group(row.balanceChanged))])
            })),
            ("errors", .int(Int64(errorCount))),
            ("first_errors", .array(errors.map {
                .object([("line", .int(Int64($0.line))), ("error", .string($0.message))])
            })),
        ])
    }
}
