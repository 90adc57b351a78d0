/// §5 "Recording a use": check and consume, for `Evaluator.consume` and `entlc eval --consume`
/// alike. A pure decision on a state: whoever holds the state (a tracker's lock, a locked file)
/// records the returned use.
public enum Consumption {
    /// What to do with a request to use `amount` of a feature.
    public struct Decision: Sendable {
        /// The answer: the check at the instant of the use, or, for a retry, the first call's answer
        /// (`replayed`).
        public var result: FeatureResult
        /// The use to append to the state's `usage`; nil when nothing is to be recorded (denied,
        /// or a retry).
        public var record: UsageRecord?
        /// For a retry: the record it repeats.
        public var retryOf: Int?
    }

    /// Decides a request to use `amount` of `feature` at `at`, with an optional idempotency key.
    ///
    /// - With an `id` the state already holds (the first record with it): the same feature and
    ///   amount is a retry, answered with the first call's answer marked `replayed`, and nothing is
    ///   recorded; another feature or amount throws (`idempotency key "X" was used for usage[4]
    ///   (api_calls, amount 3)`).
    /// - Otherwise the use is recorded only when the check allows it and replaying the whole
    ///   state with it, later records included, adds no overage: a use dated before uses already
    ///   recorded never pushes one of them over the limit.
    /// `explain` and `unlock` as for `Evaluation`, for the check's result.
    public static func decide(graph: RuleGraph, state: PurchaseState, environment: Environment?, feature: String,
                              amount: Int64, id: String?, at: Instant, explain: Bool = false,
                              unlock: Bool = false) throws(EvaluationError) -> Decision {
        let env = environment ?? state.environment ?? .live
        guard let f = graph[env].featureIndex[feature] else { throw EvaluationError("unknown feature `\(feature)`") }
        if let id, let first = state.usage.firstIndex(where: { $0.id == id }) {
            let recorded = state.usage[first]
            let named = recorded.isEvent ? graph[env].eventIndex[recorded.name]
                : graph[env].featureIndex[recorded.name] ?? graph[env].eventIndex[recorded.name]
            guard named == f, recorded.kind == .amount(amount) else {
                throw EvaluationError("idempotency key \"\(id)\" was used for usage[\(first)] (\(recorded.name), "
                                      + recorded.kind.description + ")")
            }
            var answer = try recordedAnswer(graph: graph, state: state, environment: environment, record: first,
                                            feature: feature, amount: amount, clock: at)
            answer.replayed = true
            return Decision(result: answer, record: nil, retryOf: first)
        }
        var result = try Evaluation(graph: graph, state: state, environment: environment, at: at, explain: explain, unlock: unlock)
            .feature(feature, required: amount)
        guard result.allowed else { return Decision(result: result, record: nil) }
        let record = UsageRecord(feature: feature, kind: .amount(amount), at: at, id: id)
        if let pushed = try overLimit(by: record, graph: graph, state: state, environment: env, feature: f, at: at) {
            result.decision = .denied
            result.via = nil
            let recorded = state.usage[pushed]
            let units = graph[env].features[f].amount(amount)
            result.why = Reason(formed: {
                "recording \(units) at \(at) would leave usage[\(pushed)] (at \(recorded.at ?? at)) uncovered"
            })
            return Decision(result: result, record: nil)
        }
        return Decision(result: result, record: record)
    }

    /// The record dated after `at` that appending `record` would push into overage (the first in
    /// time order), or nil when replaying every record with it adds no overage.
    static func overLimit(by record: UsageRecord, graph: RuleGraph, state: PurchaseState, environment: Environment,
                          feature f: Int, at: Instant) throws(EvaluationError) -> Int? {
        let later = state.usage.indices.filter { (state.usage[$0].at ?? at) > at }
            .sorted { (state.usage[$0].at!, $0) < (state.usage[$1].at!, $1) }
        guard !later.isEmpty else { return nil }
        var with = state
        with.usage.append(record)
        let members = graph[environment].componentOf[f] >= 0 ? graph[environment].components[graph[environment].componentOf[f]] : [f]
        /// Whether the overage of some member of `f`'s component, read at `instant`, is larger with the record.
        func grows(at instant: Instant) throws(EvaluationError) -> Bool {
            let before = try Evaluation(graph: graph, state: state, environment: environment, at: instant)
            let after = try Evaluation(graph: graph, state: with, environment: environment, at: instant)
            for m in members where after.feature(m, required: 1).overage ?? 0 > before.feature(m, required: 1).overage ?? 0 {
                return true
            }
            return false
        }
        guard try grows(at: state.usage[later.last!].at!) else { return nil }
        // The first later record at whose instant the overage has grown (it only grows with time).
        var (low, high) = (0, later.count - 1)
        while low < high {
            let mid = (low + high) / 2
            if try grows(at: state.usage[later[mid]].at!) { high = mid } else { low = mid + 1 }
        }
        return later[low]
    }

    /// The answer a consumption recorded as `state.usage[record]` got: the check on the state as
    /// it was before that record was appended, at the record's instant (`clock` when it has none).
    public static func recordedAnswer(graph: RuleGraph, state: PurchaseState, environment: Environment?, record: Int,
                                      feature: String, amount: Int64, clock: Instant) throws(EvaluationError) -> FeatureResult {
        var before = state
        before.usage.removeSubrange(record...)
        return try Evaluation(graph: graph, state: before, environment: environment, at: state.usage[record].at ?? clock)
            .feature(feature, required: amount)
    }
}

extension UsageRecord.Kind: CustomStringConvertible {
    /// `amount 3`, `level 2`.
    public var description: String {
        switch self {
        case .amount(let n): "amount \(n)"
        case .level(let n): "level \(n)"
        }
    }
}
