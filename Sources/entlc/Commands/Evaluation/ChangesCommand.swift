import EntlCompiler
import EntlRuntime

/// `entlc changes RULES --from OLD.json --to NEW.json` and
/// `entlc changes RULES --state S --from-time T1 --to-time T2`
enum ChangesCommand {
    static let spec = CommandSpec(
        name: "changes",
        summary: "the change events between two states, or over a span of time",
        help: """
        USAGE: entlc changes RULES... --from OLD.json --to NEW.json [--at T] [--env live|test]
               entlc changes RULES... --state S.json --from-time T1 --to-time T2 [--env live|test]
               entlc changes --graph FILE [--trusted-key KEY.pub]... …

        Prints the change events (one JSON object per line): entitlement_activated,
        entitlement_deactivated, feature_unlocked, feature_locked and balance_changed (with
        "old_balance" and "new_balance"), entitlements first, then features, in declaration order;
        and what happened to the purchase behind an entitlement: entitlement_renewed,
        entitlement_canceled, entitlement_uncanceled, billing_issue, billing_recovered,
        entitlement_revoked and product_changed (with the entitlement's new fields).

        With --from/--to, the two states are compared (each at its own "now", or at --at).
        With --state, the state is followed from T1 to T2 and every change that happens by itself
        (expiries, grace ends, resets, dated purchases and usage) is reported at its instant.

        OPTIONS:
          --at T                with --from/--to: evaluate both states at T (default: each at its
                                own `now`)
          --env live|test       the environment (default: the state's, else live)
          --graph FILE          a graph built by `entlc build` instead of RULES
        \(RuleLoader.trustHelp(column: 24))

        EXIT: 0 (also when nothing changed), 2 bad arguments, states, rules, or a graph that is not
              usable (or not signed by a trusted key).

        """,
        options: [
            RuleLoader.graphOption,
            OptionSpec(name: "--from", takesValue: true), OptionSpec(name: "--to", takesValue: true),
            OptionSpec(name: "--state", takesValue: true), OptionSpec(name: "--from-time", takesValue: true),
            OptionSpec(name: "--to-time", takesValue: true), OptionSpec(name: "--at", takesValue: true),
            OptionSpec(name: "--env", takesValue: true),
        ] + RuleLoader.trustOptions,
        run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> ExitCode {
        let environment = try args.environment()
        let at = try args.instant("--at")
        let pair = (args.value("--from"), args.value("--to"))
        let span = (args.value("--state"), args.value("--from-time"), args.value("--to-time"))
        let usesPair = pair.0 != nil || pair.1 != nil
        let usesSpan = span.0 != nil || span.1 != nil || span.2 != nil
        guard usesPair != usesSpan else {
            throw CLIError("give --from OLD.json --to NEW.json, or --state S.json --from-time T1 --to-time T2")
        }
        let graph = try RuleLoader.graph(args)
        let events: [ChangeEvent]
        if usesPair {
            guard let from = pair.0, let to = pair.1 else { throw CLIError("give both --from and --to") }
            let (old, new) = (try load(from), try load(to))
            // Two environments would compare names of one with those of the other (and drop
            // what only one has): one environment, or none.
            let (oldEnv, newEnv) = (environment ?? old.environment ?? .live, environment ?? new.environment ?? .live)
            guard oldEnv == newEnv else {
                throw CLIError("\(StateFile.name(from)) is evaluated in \(oldEnv.rawValue) and "
                               + "\(StateFile.name(to)) in \(newEnv.rawValue): give --env to compare both in one "
                               + "environment")
            }
            let clock = Instant.now()
            let (oldAt, newAt) = (at ?? old.now ?? clock, at ?? new.now ?? clock)
            events = try evaluating { () throws(EvaluationError) -> [ChangeEvent] in
                let before = try Evaluation(graph: graph, state: old, environment: environment, at: oldAt).all()
                let after = try Evaluation(graph: graph, state: new, environment: environment, at: newAt).all()
                return Changes.between(before, after, at: newAt)
            }
        } else {
            guard let path = span.0, let t1 = span.1, let t2 = span.2 else {
                throw CLIError("give --state, --from-time and --to-time together")
            }
            if at != nil { throw CLIError("--at goes with --from/--to (--state is followed from T1 to T2)") }
            let state = try load(path)
            let from = try ParsedArguments.instant(t1, option: "--from-time")
            let to = try ParsedArguments.instant(t2, option: "--to-time")
            events = try evaluating { () throws(EvaluationError) -> [ChangeEvent] in
                try Changes.timeline(graph: graph, state: state, environment: environment, from: from, to: to)
            }
        }
        Terminal.emit(events.map { $0.json.compact + "\n" }.joined())
        return .success
    }

    /// Runs an evaluation, turning its error into the job's.
    static func evaluating<T>(_ body: () throws(EvaluationError) -> T) throws(CLIError) -> T {
        do throws(EvaluationError) {
            return try body()
        } catch {
            throw CLIError(error.message)
        }
    }

    static func load(_ path: String) throws(CLIError) -> PurchaseState {
        try StateFile.decode(try FileSystem.contents(ofInput: path), path: path, .default)
    }
}
