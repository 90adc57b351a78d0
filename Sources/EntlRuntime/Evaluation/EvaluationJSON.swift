/// An evaluation's results as docs/cli.md JSON: the envelope (instant, environment, customer,
/// warnings) around each result's shape.
extension Evaluation {
    /// `{"at", "environment", "customer", "warnings"?, "results": [...]}`; `warnings` (the state's
    /// unknown keys, and what the rule set cannot make sense of) only when there are some.
    /// `warnings`: the evaluation's (`self.warnings`), when the caller has them already.
    public func encode<S: JSONSink & ~Copyable>(_ results: [EvaluationResult], warnings: [StateError]? = nil,
                                                to s: inout S) {
        s.beginObject()
        s.key("at")
        s.instant(at)
        s.key("environment")
        s.string(environment.rawValue)
        s.key("customer")
        s.string(state.customer)
        let warnings = warnings ?? self.warnings
        if !warnings.isEmpty {
            s.key("warnings")
            s.beginArray()
            for w in warnings { s.string(w.description) }
            s.endArray()
        }
        s.key("results")
        s.beginArray()
        for r in results { r.encode(to: &s) }
        s.endArray()
        s.endObject()
    }

    public func json(_ results: [EvaluationResult]) -> JSONValue {
        var tree = JSONTree()
        encode(results, to: &tree)
        return tree.value
    }

    /// The compact JSON of `results` appended to `bytes`.
    public func writeJSONLine(_ results: [EvaluationResult], into bytes: inout [UInt8]) {
        var sink = JSONBytes()
        encode(results, to: &sink)
        sink.withBytes { bytes.append(contentsOf: $0) }
    }

    /// The compact JSON of `results` and a newline, written to `sink` (the batch path: no
    /// intermediate tree, no copy).
    public func writeJSONLine(_ results: [EvaluationResult], warnings: [StateError]? = nil,
                              into sink: inout JSONBytes) {
        encode(results, warnings: warnings, to: &sink)
        sink.endLine()
    }
}
