import EntlRuntime

/// `entlc state compact RULES --state STATE --before INSTANT [-o OUT]`: folds a customer's usage
/// records dated before INSTANT into the state's ledger (docs/ledger.md), so the file stops
/// growing with the history and every result from INSTANT on stays the same. The work is
/// `LedgerCompaction` (EntlRuntime); this wires the files, the rules and the output to it.
enum StateCompactCommand {
    static let spec = CommandSpec(
        name: "compact",
        summary: "fold the usage records before an instant into the state's ledger",
        help: """
        USAGE: entlc state compact RULES... --state STATE --before INSTANT [-o OUT] [OPTIONS]

        Folds the usage records of STATE dated before INSTANT into its `ledger` (docs/state.md):
        where every grant's allowance stood at INSTANT (its window, what was left, carried, used
        and overdrawn), the overage of the folded uses, and the ids of those whose latest record
        is dated within a day before INSTANT (a late retry still counts once). Evaluated with the same rules at INSTANT
        or later, the state gives the results of its whole history (explanations aside); a use
        dated before INSTANT can no longer be recorded. Compacting a compacted state again, later,
        folds what came since. docs/ledger.md says when and how.

        OPTIONS:
          --state STATE       the state file (- for standard input)
          --before INSTANT    RFC 3339: the records dated before it are folded
          -o, --output FILE   write the compacted state there (atomically; STATE itself to compact
                              it in place, locked against concurrent `eval --consume`); default:
                              standard output
          --env live|test     the state's own environment (its `environment`, else live): another
                              is refused
          --strict            the state's warnings are errors (exit 2, nothing written)
          --graph FILE        compact with a graph built by `entlc build` instead of RULES
        \(RuleLoader.trustHelp(column: 24))

        EXIT: 0 compacted (warnings and a summary on standard error), 2 bad arguments, unreadable
              files, an invalid state, rules that do not compile, an INSTANT before the one the
              state is compacted at already, a state compacted with other rules, or --env
              naming another environment than the state's.

        """,
        options: [
            OptionSpec(name: "--state", takesValue: true), OptionSpec(name: "--before", takesValue: true),
            OptionSpec(name: "--output", takesValue: true, short: "-o"), OptionSpec(name: "--env", takesValue: true),
            OptionSpec(name: "--strict"), RuleLoader.graphOption,
        ] + RuleLoader.trustOptions,
        run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> ExitCode {
        guard let path = args.value("--state") else {
            throw CLIError("give the state to compact with --state FILE (or - for standard input)")
        }
        guard let before = try args.instant("--before") else {
            throw CLIError("give the instant to compact before with --before INSTANT (RFC 3339)")
        }
        let graph = try RuleLoader.graph(args)
        let environment = try args.environment()
        let strict = args.has("--strict")
        let output = args.value("--output") ?? "-"
        func compacted(_ bytes: [UInt8]) throws(CLIError) -> (json: [UInt8], summary: String) {
            try compact(bytes, path: path, graph: graph, environment: environment, before: before, strict: strict)
        }
        // What was folded is said once it is written (a review: it was said, then the write failed).
        let summary: String
        // In place: under the file's lock, as `eval --consume` writes it, so no use is lost.
        // However spelled (`state.json`, `./state.json`, a link to it).
        func file(_ p: String) -> String { FileSystem.canonical(FileSystem.resolvingLinks(p)) }
        if output != "-", path != "-", file(output) == file(path) {
            let target = try FileSystem.writableTarget(path)
            summary = try FileSystem.withLockedFile(target) { bytes throws(CLIError) -> String in
                let result = try compacted(bytes)
                try FileSystem.writeAtomically(target, result.json, rewriting: true)
                return result.summary
            }
        } else {
            let bytes = try FileSystem.contents(ofInput: path)
            try FileSystem.refuseReplacingInput(output)
            let result = try compacted(bytes)
            try FileSystem.writeOutput(output, result.json)
            summary = result.summary
        }
        Terminal.emitError(summary)
        return .success
    }

    /// The compacted state's JSON, and the line that says what was folded; its warnings go to
    /// standard error.
    static func compact(_ bytes: [UInt8], path: String, graph: RuleGraph, environment: Environment?,
                        before: Instant, strict: Bool) throws(CLIError) -> (json: [UInt8], summary: String) {
        let name = StateFile.name(path)
        let state = try StateFile.decode(bytes, path: path, StateDecodingOptions(strict: strict))
        let result: LedgerCompaction.Compacted
        do throws(EvaluationError) {
            result = try LedgerCompaction.compact(graph: graph, state: state, before: before, environment: environment)
        } catch {
            throw CLIError("\(name): \(error.message)")
        }
        if strict, let first = result.warnings.first { throw CLIError("\(name): \(first)") }
        for w in result.warnings { Terminal.emitError("entlc: warning: \(name): \(w)\n") }
        let ledger = result.state.ledger!
        let json: [UInt8]
        do throws(StateError) {
            json = try PurchaseState.compactedJSON(bytes, keeping: result.kept, ledger: ledger)
        } catch {
            throw CLIError("\(name): \(error)")
        }
        let folded = state.usage.count - result.kept.count
        return (json, "entlc: \(name): folded \(folded.counted("usage record")) dated before \(before) into "
                + "the ledger (\(ledger.grants.count.counted("grant position")), "
                + "\(ledger.ids.count.counted("id")) remembered); \(result.kept.count) kept\n")
    }
}
