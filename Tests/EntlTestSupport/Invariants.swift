import EntlCompiler
import EntlRuntime
import EntlSyntax

// The invariants the fuzz targets check, shared with `swift test` (regression inputs under
// Tests/Fixtures/fuzz/). This file imports only the entl modules: Fuzz/build.sh compiles it into
// the libFuzzer executables as it is.

/// What `fmt` and the front end promise for any input: a failure description, or nil.
///
/// Parsing and checking never trap. When the text parses, formatting it gives text that parses
/// to an equal tree, formats to itself again, and holds every comment of the original in order.
/// When it also checks without errors, its compiled graph evaluates an empty state.
public func roundTripProblem(_ bytes: [UInt8]) -> String? {
    let source = SourceFile(path: "fuzz.entl", bytes: bytes)
    let checked = Compiler.check([source])
    let parsed = Parser.parse(source)
    guard let formatted = Printer.format(source) else {
        return parsed.diagnostics.hasErrors ? nil : "a file without syntax errors was not formatted"
    }
    let again = Parser.parse(SourceFile(path: "fuzz.entl", text: formatted))
    if again.diagnostics.hasErrors {
        return "formatted text does not parse: \(again.diagnostics.first.map { "\($0.code.id) \($0.range.start): \($0.message)" } ?? "")"
    }
    if again.file != parsed.file { return "formatting changed the tree" }
    guard let twice = Printer.format(SourceFile(path: "fuzz.entl", text: formatted)) else { return "formatted text not formattable" }
    if twice != formatted { return "formatting is not idempotent" }
    // Every comment survives, in order, and keeps its attachment: one on a line of its own stays
    // on one; one after code stays after code.
    let before = commentPlaces(source, parsed.comments)
    let after = commentPlaces(SourceFile(path: "fuzz.entl", text: formatted), again.comments)
    if before.map(\.text) != after.map(\.text) { return "comments lost or reordered" }
    if let i = before.indices.first(where: { before[$0].ownLine != after[$0].ownLine }) {
        return "comment \(before[i].text) moved \(before[i].ownLine ? "onto a line with code" : "onto a line of its own")"
    }
    if !checked.hasErrors, let graph = Compiler.compile([source]).graph {
        for env in [Environment.live, .test] {
            guard let e = try? Evaluation(graph: graph, state: PurchaseState(), environment: env,
                                          at: Instant(seconds: 1_795_348_800)) else { return "evaluating an empty state failed" }
            _ = e.json(e.all()).compact
        }
    }
    return nil
}

/// Each comment's text, and whether only whitespace precedes it on its line.
func commentPlaces(_ source: SourceFile, _ comments: [Comment]) -> [(text: String, ownLine: Bool)] {
    comments.map { c in
        var i = c.range.start.offset - 1
        while i >= 0, source.bytes[i] == UInt8(ascii: " ") || source.bytes[i] == UInt8(ascii: "\t")
            || source.bytes[i] == UInt8(ascii: "\r") { i -= 1 }
        return (c.text, i < 0 || source.bytes[i] == UInt8(ascii: "\n") || (i == 2 && source.bytes.starts(with: [0xEF, 0xBB, 0xBF])))
    }
}

/// The graph state-decoding fuzzing evaluates against (examples/api.entl, embedded so the
/// fuzzer needs no files).
public let fuzzGraph: RuleGraph? = Compiler.compile([SourceFile(path: "fuzz.entl", text: """
    product api_pro_monthly: subscription { period month; id stripe "price_forecast_pro_monthly" }
    product api_pro_annual: subscription { period year; id stripe "price_forecast_pro_annual" }
    product call_pack: consumable { id stripe "price_forecast_pack_5k"; grants api_calls 5_000 }
    product credit_top_up: consumable { id stripe "price_forecast_credits_1k"; grants forecast_credits 1_000 }
    product lifetime: non_consumable { id app_store "lifetime"; id play_store "lifetime" }
    product pass: non_renewing { duration 30 days }
    feature api_calls: metered { usage single_use; event "api_call" }
    feature storage_gb: metered { usage continuous }
    feature history_access: boolean
    feature gated: boolean requires (lifetime or pass) and call_pack >= 2 and not api_pro_annual
    credits forecast_credits { api_calls 1 = 5; storage_gb 1 = 100 }
    entitlement api_pro = api_pro_monthly or api_pro_annual or lifetime {
      grants api_calls 10_000 per month
      grants storage_gb 50
      grants history_access
      grants forecast_credits 500 per day carry up to 1_000 priority 1
    }
    entitlement minute = pass { grants api_calls 3 per minute carry }
    entitlement free = everyone { grants api_calls 3 per day; grants forecast_credits 10 per week carry }
    environment test { product qa: non_consumable; entitlement qa_all = qa { grants history_access } }
    """)]).graph

/// What decoding and evaluation promise for any state bytes: nil, or a failure description.
/// Decoding either throws a located error or gives a state; every query then evaluates, explains
/// and renders without trapping, identically twice, and the evaluator's cache agrees.
public func stateProblem(_ bytes: [UInt8]) -> String? {
    guard let graph = fuzzGraph else { return "the fuzz graph does not compile" }
    let state: PurchaseState
    do {
        state = try PurchaseState(json: bytes)
    } catch {
        return error.description.isEmpty ? "an empty state error" : nil
    }
    let at = state.now ?? Instant(seconds: 1_795_348_800)
    for env in [Environment.live, .test] {
        guard let e = try? Evaluation(graph: graph, state: state, environment: env, at: at, explain: true) else { continue }
        let first = e.json(e.all()).compact
        guard let again = try? Evaluation(graph: graph, state: state, environment: env, at: at, explain: true) else {
            return "a second evaluation failed"
        }
        if again.json(again.all()).compact != first { return "evaluation is not deterministic" }
        var bytes: [UInt8] = []
        e.writeJSONLine(e.all(), into: &bytes)
        if String(decoding: bytes, as: UTF8.self) != first { return "the two JSON renderings differ" }
        for amount: Int64 in [1, 7, 1_000_000_000_000_000] {
            _ = e.feature(0, required: amount)
        }
    }
    // Check, then record: an allowed use, recorded at the same instant, leaves exactly the balances
    // the check implied (the feature's own grants give what they had, the credits what it required).
    if let before = try? Evaluation(graph: graph, state: state, at: at) {
        let check = before.feature(0, required: 7)
        if check.allowed, let calls = check.balance {
            var after = state
            after.usage.append(UsageRecord(feature: "api_calls", kind: .amount(7), at: at))
            guard let e = try? Evaluation(graph: graph, state: after, at: at) else { return "recording an allowed use failed" }
            if e.feature(0, required: 1).balance != calls - min(calls, 7) { return "recording an allowed use left the wrong balance" }
            let credits = before.graph.featureIndex["forecast_credits"]!
            if let held = before.feature(credits, required: 1).balance,
               e.feature(credits, required: 1).balance != held - (check.via == .credits ? check.creditsRequired ?? 0 : 0) {
                return "recording a use allowed via credits charged the wrong credits"
            }
        }
    }
    let evaluator = Evaluator(graph: graph, tracker: JSONPurchaseTracker(state))
    for name in ["api_calls", "storage_gb", "history_access", "gated", "forecast_credits"] {
        guard let cached = try? evaluator.entitled(feature: name, at: at),
              let later = try? evaluator.entitled(feature: name, at: Instant(seconds: at.seconds + 1)),
              let fresh = try? Evaluation(graph: graph, state: state, at: Instant(seconds: at.seconds + 1)).feature(name)
        else { continue }
        _ = cached
        if later != fresh { return "the evaluator's cache disagrees with a fresh evaluation for \(name)" }
    }
    return nil
}
