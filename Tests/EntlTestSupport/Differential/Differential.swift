import EntlCompiler
import EntlRuntime
import EntlSyntax

/// Runs one differential case: compiles the rules, evaluates every product, entitlement and
/// feature (metered ones at several required amounts) with EntlRuntime and with the reference
/// evaluator, and compares every field but the prose (`reason`, `explanation`, `sources`). Then
/// checks `valid_until` from the reference's side: at instants strictly between `t` and
/// `valid_until`, the reference gives the same answers.
/// Returns the mismatches, empty when they agree.
public func differentialMismatches(_ c: DifferentialCase) -> [String] {
    let source = SourceFile(path: "diff.entl", text: c.rules)
    let compiled = Compiler.compile([source], lint: false)
    guard let graph = compiled.graph else {
        return ["the generated rules do not compile: "
                + compiled.checked.diagnostics.filter { $0.severity == .error }.map { "\($0.code.id) \($0.message)" }.joined(separator: "; ")]
    }
    let file = Parser.parse(source).file
    var reference = ReferenceEvaluator(file: file, state: c.state, environment: c.environment, at: c.at)
    // `unlocked_by` costs an evaluation per product on each side: compared on every other case.
    let unlock = c.seed % 2 == 0
    reference.unlocks = unlock
    let evaluation: Evaluation
    do {
        evaluation = try Evaluation(graph: graph, state: c.state, environment: c.environment, at: c.at, unlock: unlock)
    } catch {
        return ["the runtime could not evaluate: \(error)"]
    }

    var mismatches: [String] = []
    func compare<T: Equatable>(_ what: String, _ actual: T, _ expected: T) {
        // A result prints as its JSON (a feature's fields live behind one reference).
        func shown(_ value: T) -> String {
            if let f = value as? FeatureResult { return f.json.compact }
            if let f = value as? FeatureResult? { return f.map(\.json.compact) ?? "nil" }
            return "\(value)"
        }
        if actual != expected { mismatches.append("\(what):\n  runtime   \(shown(actual))\n  reference \(shown(expected))") }
    }
    for p in reference.products.map(\.name) {
        compare("product \(p)", stripped(try? evaluation.product(p)), reference.product(p))
    }
    var r = SeededRandom(seed: c.seed ^ 0xD1FF)
    /// An instant strictly between `t` and `validUntil` (or within 400 days when there is none).
    func before(_ validUntil: Instant?) -> [ReferenceEvaluator] {
        let horizon = validUntil?.seconds ?? c.at.seconds + 400 * 86_400
        guard horizon - c.at.seconds > 1 else { return [] }
        return (0..<1).map { _ in
            var later = ReferenceEvaluator(file: file, state: c.state, environment: c.environment,
                                           at: Instant(seconds: r.int64((c.at.seconds + 1)...(horizon - 1))))
            later.unlocks = false
            return later
        }
    }
    for e in reference.entitlements.map(\.name) {
        let expected = reference.entitlement(e)
        compare("entitlement \(e)", stripped(try? evaluation.entitlement(e)), expected)
        for later in before(expected.validUntil) {
            var again = later.entitlement(e)
            again.validUntil = expected.validUntil
            again.unlockedBy = expected.unlockedBy  // what buying does is a question of its instant
            compare("entitlement \(e) at \(Instant(seconds: later.t)), before its valid_until", again, expected)
        }
    }
    var quiet = reference
    quiet.unlocks = false
    for f in reference.features {
        let amounts: [Int64] = f.kind == .boolean ? [1] : [1, 2, r.int64(3...60), 1_000_000_000_000_000]
        for (k, required) in amounts.enumerated() {
            // And at the first amount only.
            let expected = (k == 0 ? reference : quiet).feature(f.name, required: required)
            var actual = stripped(try? evaluation.feature(f.name, required: required))
            if k > 0 { actual?.unlockedBy = nil }
            compare("feature \(f.name) required \(required)", actual, expected)
            // valid_until: nothing changes strictly before it.
            for later in before(expected.validUntil) {
                compare("feature \(f.name) required \(required) at \(Instant(seconds: later.t)), before its valid_until",
                        decisionFields(later.feature(f.name, required: required)), decisionFields(expected))
            }
        }
    }
    return mismatches
}

private func stripped(_ r: ProductResult?) -> ProductResult? {
    guard var r else { return nil }
    r.reason = ""
    r.explanation = []
    return r
}

private func stripped(_ r: EntitlementResult?) -> EntitlementResult? {
    guard var r else { return nil }
    r.reason = ""
    r.explanation = []
    return r
}

private func stripped(_ r: FeatureResult?) -> FeatureResult? {
    guard var r else { return nil }
    r.reason = ""
    r.explanation = []
    r.sources = []
    return r
}

/// What must not change before `valid_until`.
private func decisionFields(_ r: FeatureResult) -> String {
    "\(r.decision) balance \(r.balance.map(String.init) ?? "-") unlimited \(r.unlimited) overage \(r.overage.map(String.init) ?? "-") "
        + "via \(r.via?.rawValue ?? "-") \(r.creditSystem ?? "-") \(r.creditsRequired.map(String.init) ?? "-") \(r.creditBalance.map(String.init) ?? "-")"
}
