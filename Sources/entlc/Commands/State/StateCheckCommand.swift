import EntlRuntime

/// `entlc state check STATE… [--rules RULES] [--env E] [--strict] [--format text|json]`: whether
/// state files are valid (docs/state.md), with their warnings — the decoder's (unknown keys) and,
/// with `--rules`, what those rules cannot make sense of. Nothing is evaluated.
enum StateCheckCommand {
    static let spec = CommandSpec(
        name: "check",
        summary: "check state files: errors and warnings, with or without rules",
        help: """
        USAGE: entlc state check STATE... [--rules RULES] [--env live|test] [--strict]
                                          [--format text|json]

        Decodes each STATE (a file, or - for standard input) as `eval` would and reports what is
        wrong with it: an error (the state cannot be used) or warnings (unknown keys; with
        --rules, usage naming nothing or of the wrong kind, a reused id, an unknown store, a
        subscription that never ends, dates out of order: docs/state.md).

        OPTIONS:
          --rules RULES       also check against these rules (repeatable: files, directories)
          --env live|test     the environment to check in; else the state's; else live
          --strict            warnings are errors
          --format text|json  text (default): messages on standard error; json: an array on
                              standard output, an object per state {"state", "valid", "error",
                              "warnings"}

        EXIT: 0 every state is valid (warnings allowed unless --strict), 1 some state is not,
              2 bad arguments, unreadable files, or rules that do not compile.

        """,
        options: [
            OptionSpec(name: "--rules", takesValue: true, repeatable: true),
            OptionSpec(name: "--env", takesValue: true),
            OptionSpec(name: "--strict"), OptionSpec(name: "--format", takesValue: true),
        ],
        run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> ExitCode {
        guard !args.positionals.isEmpty else {
            throw CLIError("give the state files to check (or `-` for standard input)")
        }
        let format = try args.choice("--format", in: ["text", "json"]) ?? "text"
        let environment = try args.environment()
        let graph = args.has("--rules") ? try RuleLoader.compile(args.all("--rules")).graph : nil
        let strict = args.has("--strict")
        var reports: [JSONValue] = []
        var allValid = true
        for path in args.positionals {
            let bytes = try FileSystem.contents(ofInput: path)
            let (error, warnings) = check(bytes, graph: graph, environment: environment)
            let valid = error == nil && !(strict && !warnings.isEmpty)
            allValid = allValid && valid
            if format == "json" {
                reports.append(.object([("state", .string(StateFile.name(path))), ("valid", .bool(valid)),
                                        ("error", error.map(JSONValue.string) ?? .null),
                                        ("warnings", .array(warnings.map(JSONValue.string)))]))
                continue
            }
            let severity = strict ? "error" : "warning"
            for w in warnings { Terminal.emitError("entlc: \(severity): \(StateFile.name(path)): \(w)\n") }
            if let error { Terminal.emitError("entlc: error: \(StateFile.name(path)): \(error)\n") }
        }
        if format == "json" { Terminal.emit(JSONValue.array(reports).pretty + "\n") }
        return allValid ? .success : .no
    }

    /// The error that makes a state unusable, or its warnings (the rules' ones when given).
    static func check(_ bytes: [UInt8], graph: RuleGraph?,
                      environment: Environment?) -> (error: String?, warnings: [String]) {
        let state: PurchaseState
        do {
            state = try PurchaseState(json: bytes)
        } catch {
            return ("\(error)", [])
        }
        guard let graph else { return (nil, state.warnings.map(\.description)) }
        do throws(EvaluationError) {
            // As `eval` reads it: at its `now` (a compacted state whose `now` is before its ledger's
            // instant cannot be evaluated there, and is no valid state).
            let at = state.now ?? .now()
            let evaluation = try Evaluation(graph: graph, state: state, environment: environment, at: at)
            return (nil, evaluation.warnings.map(\.description))
        } catch {
            return (error.message, state.warnings.map(\.description))
        }
    }
}
