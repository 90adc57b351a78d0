/// An evaluation's results as docs/cli.md JSON: the envelope (instant, environment, customer,
/// warnings) around each result's shape.
extension Evaluation {
    /// `{"at", "environment", "customer", "warnings"?, "results": [...]}`; `warnings` (the state's
    /// unknown keys, and what the rule set cannot make sense of) only when there are some.
    /// `warnings`: the evaluation's (`self.warnings`), when the caller has them already.
    public func encode<S: JSONSink & ~Copyable>(_ results: [EvaluationResult], warnings: [StateError]? = nil,
                                                to s: inout S) {
        encodeEnvelope(warnings: warnings ?? self.warnings, to: &s) { s in
            // Each result written where it is (a `for … in` would copy each one out of the array).
            results.withUnsafeBufferPointer { for i in $0.indices { $0[i].encode(to: &s) } }
        }
    }

    /// The envelope, with `results` writing the elements of its `results` array.
    private func encodeEnvelope<S: JSONSink & ~Copyable>(warnings: [StateError], to s: inout S,
                                                         results: (inout S) -> Void) {
        beginEnvelope(warnings: warnings, to: &s)
        results(&s)
        s.endArray()
        s.endObject()
    }

    /// The envelope up to its `results` array, opened.
    private func beginEnvelope<S: JSONSink & ~Copyable>(warnings: [StateError], to s: inout S) {
        s.beginObject()
        s.field("at", at)
        s.field("environment", word: environment.word)
        s.field("customer", state.customer)
        Evaluation.warningsThenResults(warnings, to: &s)
    }

    /// `"warnings": […]` when there are some, then the `results` array, opened.
    private static func warningsThenResults<S: JSONSink & ~Copyable>(_ warnings: [StateError], to s: inout S) {
        if !warnings.isEmpty {
            s.key("warnings")
            s.beginArray()
            for w in warnings { s.string(w.description) }
            s.endArray()
        }
        s.key("results")
        s.beginArray()
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

    /// The compact JSON of one result and a newline: the line `writeJSONLine([.entitlement(result)])`
    /// writes, without the array or the result's copy into an `EvaluationResult` (a batch line).
    public func writeJSONLine(_ result: EntitlementResult, warnings: [StateError], into sink: inout JSONBytes) {
        writeJSONLine(one: result, warnings: warnings, into: &sink)
    }

    /// The compact JSON of one feature's result and a newline (as above).
    public func writeJSONLine(_ result: FeatureResult, warnings: [StateError], into sink: inout JSONBytes) {
        writeJSONLine(one: result, warnings: warnings, into: &sink)
    }

    /// The compact JSON of one product's result and a newline (as above).
    public func writeJSONLine(_ result: ProductResult, warnings: [StateError], into sink: inout JSONBytes) {
        writeJSONLine(one: result, warnings: warnings, into: &sink)
    }

    /// The line `writeJSONLine(all(), warnings:into:)` writes, each result written as it is
    /// answered: no array of results, no result copied into an `EvaluationResult`.
    public func writeAllJSONLine(warnings: [StateError], into sink: inout JSONBytes) {
        var result = FeatureResult()
        writeAllJSONLine(warnings: warnings, feature: &result, into: &sink)
    }

    /// `writeAllJSONLine(warnings:into:)` with the features answered into `result`, a result the
    /// caller keeps from line to line (the batch's `--all`), emptied after each feature (its reason
    /// may hold this evaluation).
    package func writeAllJSONLine(warnings: [StateError], feature result: inout FeatureResult,
                                  into sink: inout JSONBytes) {
        beginLine(warnings: warnings, to: &sink)
        for p in graph.products.indices { product(p).write(to: &sink) }
        for e in graph.entitlements.indices { entitlement(e).write(to: &sink) }
        for f in graph.features.indices {
            feature(f, required: 1, into: &result)
            result.write(to: &sink)
            result.reset()
        }
        sink.endResultsLine()
    }

    /// Specialized here for each kind of result (a public generic would not be, across modules).
    private func writeJSONLine(one result: some EncodableResult, warnings: [StateError],
                               into sink: inout JSONBytes) {
        // The envelope around the result without a closure (one capturing the result copied it).
        beginLine(warnings: warnings, to: &sink)
        result.write(to: &sink)
        sink.endResultsLine()
    }

    /// `beginEnvelope`'s bytes in one run (`JSONBytes.beginRun`) up to the warnings, and with the
    /// `results` array opened when there are none (the batch path; `ResultBytesTests`).
    private func beginLine(warnings: [StateError], to s: inout JSONBytes) {
        var c = s.beginRun(reserving: 80 + JSONCursor.instantRoom + JSONCursor.room(state.customer))
        c.separator()
        c.write(#"{"at":"#)
        c.instant(at)
        switch environment {
        case .live: c.write(#","environment":"live","customer":"#)
        case .test: c.write(#","environment":"test","customer":"#)
        }
        c.string(state.customer)
        if warnings.isEmpty { c.write(#","results":["#) }
        s.endRun(c, endsInValue: !warnings.isEmpty)
        if !warnings.isEmpty { Evaluation.warningsThenResults(warnings, to: &s) }
    }
}
