import EntlRuntime

/// `entlc eval RULES --state FILE --feature F --amount N --consume [--id ID]`: check and consume.
/// The state file is locked while it is read, checked and rewritten, so concurrent consumers of
/// one file never both spend its last unit; the use is appended to its `usage` (every other byte
/// kept) and the file replaced atomically, only when the check allows it.
enum EvalConsume {
    static func run(_ path: String, _ options: EvalCommand.Options, id: String?) throws(CLIError) -> ExitCode {
        guard path != "-" else { throw CLIError("--consume records the use in the state file; it cannot write to standard input") }
        guard case .feature(let feature, let amount) = options.query else {
            throw CLIError("--consume goes with --feature F [--amount N]")
        }
        guard EvalCommand.kind(of: feature, in: options.graph).map({ $0 == .singleUse || $0 == .credits }) ?? false else {
            throw CLIError("--consume records a use of a single-use feature or credit system; `\(feature)` is not one")
        }
        guard options.overrides.isEmpty else {
            throw CLIError("--override does not go with --consume: the recorded state would not say why the use was allowed")
        }
        return try FileSystem.withLockedFile(path) { bytes throws(CLIError) -> ExitCode in
            let state = try StateFile.decode(bytes, path: path, options.decoding, reportWarnings: options.format == "text")
            let at = options.at ?? state.now ?? .now()
            if let id, let first = state.usage.firstIndex(where: { $0.id == id }) {
                // A retry: nothing to record; the answer the first call got.
                let answer: FeatureResult
                do throws(EvaluationError) {
                    answer = try Evaluator.recordedAnswer(graph: options.graph, state: state, environment: options.environment,
                                                          record: first, feature: feature, amount: amount, clock: at)
                } catch {
                    throw CLIError("\(path): \(error.message)")
                }
                try show(answer, state: state, at: at, options)
                Terminal.emitError("entlc: id \"\(id)\" is already recorded (usage[\(first)]); nothing recorded\n")
                return answer.allowed ? .success : .no
            }
            var check = options
            check.at = at
            let (evaluation, results) = try EvalCommand.evaluate(state, path: path, check)
            EvalCommand.emit(results, evaluation, options)
            guard case .feature(let result)? = results.first, result.allowed else { return .no }
            let record = UsageRecord(feature: feature, kind: .amount(amount), at: at, id: id)
            let updated: [UInt8]
            do throws(StateError) {
                updated = try PurchaseState.appendingUsage(record, toJSON: bytes)
            } catch {
                throw CLIError("\(path): \(error)")
            }
            try FileSystem.writeAtomically(path, updated)
            Terminal.emitError("entlc: recorded usage[\(state.usage.count)] in \(path): "
                               + String(decoding: record.json, as: UTF8.self) + "\n")
            return .success
        }
    }

    /// Prints a feature result as `eval` would.
    private static func show(_ result: FeatureResult, state: PurchaseState, at: Instant, _ options: EvalCommand.Options)
        throws(CLIError)
    {
        do throws(EvaluationError) {
            let evaluation = try Evaluation(graph: options.graph, state: state, environment: options.environment, at: at)
            EvalCommand.emit([.feature(result)], evaluation, options)
        } catch {
            throw CLIError(error.message)
        }
    }
}
