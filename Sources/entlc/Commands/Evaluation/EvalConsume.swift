import EntlRuntime
import EntlSupport

/// `entlc eval RULES --state FILE --feature F --amount N --consume [--id ID]`: check and consume
/// (`Consumption.decide`). The state file is locked while it is read, checked and rewritten, so
/// concurrent consumers of one file never both spend its last unit; the use is appended to its
/// `usage` (every other byte kept) and the file replaced atomically, only when it is to be
/// recorded.
enum EvalConsume {
    static func run(_ path: String, _ options: EvalCommand.Options, id: String?) throws(CLIError) -> ExitCode {
        guard path != "-" else {
            throw CLIError("--consume records the use in the state file; it cannot write to standard input")
        }
        guard case .feature(let feature, let amount) = options.query else {
            throw CLIError("--consume goes with --feature F [--amount N]")
        }
        let kind = EvalCommand.kind(of: feature, in: options.graph)
        guard kind.map({ $0 == .singleUse || $0 == .credits }) ?? false else {
            throw CLIError("--consume records a use of a single-use feature or credit system; `\(feature)` is not one")
        }
        guard options.overrides.isEmpty else {
            throw CLIError("--override does not go with --consume: "
                           + "the recorded state would not say why the use was allowed")
        }
        // A file that cannot be written is refused before anything is decided or printed.
        let target = try FileSystem.writableTarget(path)
        return try FileSystem.withLockedFile(target) { bytes throws(CLIError) -> ExitCode in
            let state = try StateFile.decode(bytes, path: path, options.decoding,
                                             reportWarnings: options.format == "text")
            let at = options.at ?? state.now ?? .now()
            let decision: Consumption.Decision
            let envelope: Evaluation
            do throws(EvaluationError) {
                // Under --strict, what the rules cannot make sense of in the state stops it first.
                // A compacted state is read from its ledger's instant on (a late retry may come earlier).
                let readable = state.ledger.map { max(at, $0.before) } ?? at
                envelope = try Evaluation(graph: options.graph, state: state, environment: options.environment,
                                          at: readable, strict: options.decoding.strict)
                decision = try Consumption.decide(graph: options.graph, state: state,
                                                  environment: options.environment, feature: feature,
                                                  amount: amount, id: id, at: at, explain: options.explain,
                                                  unlock: options.unlock)
            } catch {
                throw CLIError("\(StateFile.name(path)): \(error.message)")
            }
            // The use is written before the answer is printed: a caller that reads "allowed" can
            // rely on it being recorded (a write that fails is exit 2 with nothing printed).
            if let record = decision.record {
                // A record past the limit would leave a state no command reads (compaction included).
                let limit = options.decoding.limits.usageRecords
                guard state.usage.count < limit else {
                    throw CLIError("\(StateFile.name(path)): it holds \(state.usage.count) usage records, the most "
                                   + "a state may hold; compact it (entlc state compact) to record more; "
                                   + "nothing recorded")
                }
                let updated: [UInt8]
                do throws(StateError) {
                    updated = try PurchaseState.appendingUsage(record, toJSON: bytes)
                } catch {
                    throw CLIError("\(StateFile.name(path)): \(error)")
                }
                try FileSystem.writeAtomically(target, updated, rewriting: true)
            }
            // What was recorded is said first: if the answer cannot be printed (exit 2), standard
            // error still tells that the use is in the file.
            if let record = decision.record {
                Terminal.emitError("entlc: recorded usage[\(state.usage.count)] in \(StateFile.name(path)): "
                                   + String(decoding: record.json, as: UTF8.self) + "\n")
            }
            if options.format == "text" { EvalCommand.reportRuleSetWarnings(envelope, path: path) }
            EvalCommand.emit([.feature(decision.result)], envelope, options)
            // Quoted as a JSON string would be (a `"` in the id had made the quotes ambiguous).
            let quoted = (id ?? "").flatMap { $0 == "\"" || $0 == "\\" ? ["\\", $0] : [$0] }
            let key = "entlc: id \"\(String(quoted).withControlsEscaped)\" is already recorded"
            if let first = decision.retryOf {
                Terminal.emitError("\(key) (usage[\(first)]); nothing recorded\n")
            } else if decision.result.replayed {
                Terminal.emitError("\(key) (folded into the state's ledger); nothing recorded\n")
            }
            return decision.record != nil || decision.result.allowed ? .success : .no
        }
    }
}
