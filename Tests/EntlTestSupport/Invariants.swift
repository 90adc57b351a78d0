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
    if let i = parsed.comments.indices.first(where: { parsed.comments[$0].kind != again.comments[$0].kind }) {
        return "comment \(before[i].text) became a \(again.comments[i].kind == .doc ? "doc" : "ordinary") comment"
    }
    if let i = before.indices.first(where: { before[$0].ownLine != after[$0].ownLine }) {
        return "comment \(before[i].text) moved \(before[i].ownLine ? "onto a line with code" : "onto a line of its own")"
    }
    // What `check` reports stays what it reported, positions aside: a comment `fmt` moves must not
    // start or stop silencing a declaration (`entl-allow`), nor make or unmake docs.
    let reported = { (diagnostics: [Diagnostic]) in diagnostics.map { "\($0.code.id) \($0.message)" }.sorted() }
    let checkedAgain = Compiler.check([SourceFile(path: "fuzz.entl", text: formatted)])
    if reported(checked.diagnostics) != reported(checkedAgain.diagnostics) {
        let gone = Set(reported(checked.diagnostics)).symmetricDifference(reported(checkedAgain.diagnostics))
        return "formatting changed what check reports: \(gone.sorted().joined(separator: "; "))"
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

/// Each comment's text, and whether only whitespace (and `;`, which means nothing) precedes it on
/// its line.
func commentPlaces(_ source: SourceFile, _ comments: [Comment]) -> [(text: String, ownLine: Bool)] {
    comments.map { c in
        var i = c.range.start.offset - 1
        while i >= 0, source.bytes[i] == UInt8(ascii: " ") || source.bytes[i] == UInt8(ascii: "\t")
            || source.bytes[i] == UInt8(ascii: "\r") || source.bytes[i] == UInt8(ascii: ";") { i -= 1 }
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

/// The fuzz graph's names, as a batch decodes states with them (`StateDecodingOptions.names`).
let fuzzNames = fuzzGraph.map { StateNames($0) }

/// One scratch for every input, as a batch keeps one for its lines: each input is read into the
/// state of the one before (its purchases and usage records into their places) with the order of
/// keys learned from those before. `stateProblem` is called from one thread at a time (libFuzzer,
/// the regression test's loop). A failure of that comparison may depend on the inputs before the
/// one saved: replay the run's corpus in order to see it again.
nonisolated(unsafe) private var fuzzScratch = EvaluationScratch()

/// What decoding and evaluation promise for any state bytes: nil, or a failure description.
/// Decoding either throws a located error or gives a state, the same with the rule set's names
/// as without; every query then evaluates, explains and renders without trapping, identically
/// twice, and the evaluator's cache agrees.
public func stateProblem(_ bytes: [UInt8]) -> String? {
    guard let graph = fuzzGraph else { return "the fuzz graph does not compile" }
    let decoded = Result { () throws(StateError) in try PurchaseState(json: bytes) }
    if Result(catching: { () throws(StateError) in
        try PurchaseState(json: bytes, options: StateDecodingOptions(names: fuzzNames))
    }) != decoded {
        return "decoding with the rule set's names differs from decoding without"
    }
    let read = Result { () throws(StateError) in
        try fuzzScratch.read(json: bytes[...], options: StateDecodingOptions(names: fuzzNames))
        return fuzzScratch.state
    }
    if read != decoded || (try? read.get().warnings) != (try? decoded.get().warnings) {
        return "decoding into a scratch that read the inputs before differs from decoding afresh"
    }
    let state: PurchaseState
    switch decoded {
    case .success(let decoded): state = decoded
    case .failure(let error): return error.description.isEmpty ? "an empty state error" : nil
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
        var streamed = JSONBytes(), feature = FeatureResult()
        e.writeAllJSONLine(warnings: e.warnings, feature: &feature, into: &streamed)
        if streamed.withBytes({ String(decoding: $0, as: UTF8.self) }) != first + "\n" {
            return "the batch's --all line differs from the line of all()"
        }
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

/// What loading a built rule graph promises for any bytes (`entlc build`'s artifact): nil, or a
/// failure description. Decoding either refuses with a located, non-empty error or gives a graph
/// that writes back to an artifact loading to the same bytes; every query then evaluates,
/// explains and renders in both environments without trapping, for a few states (none, one that
/// buys every product with dates, quantities, a grace period and an unknown purchase and uses
/// every feature, one of lapsed, shared and overridden purchases) at a few instants.
///
/// Random bytes rarely carry the right digest, so the bytes are also tried resealed (their
/// `sha256` replaced by the digest of their `graph`): the checks behind the digest get fuzzed too.
public func artifactProblem(_ bytes: [UInt8]) -> String? {
    if let problem = loadedArtifactProblem(bytes) { return problem }
    guard let document = try? JSONParser.parse(bytes), let again = resealed(document) else { return nil }
    return loadedArtifactProblem(again)
}

/// An artifact document written with its `sha256` replaced by the digest of its `graph`, so a
/// loader gets past the digest to the checks behind it; nil when the document has neither.
public func resealed(_ document: JSONValue) -> [UInt8]? {
    guard case .object(var members) = document, let g = members.firstIndex(where: { $0.key == "graph" }),
          let s = members.firstIndex(where: { $0.key == "sha256" }) else { return nil }
    var content: [UInt8] = []
    members[g].value.write(into: &content, indent: false, level: 0)
    members[s].value = .string(SHA256.hexDigest(content))
    var bytes: [UInt8] = []
    JSONValue.object(members).write(into: &bytes, indent: false, level: 0)
    return bytes
}

/// `artifact` with `edit` applied to its JSON and resealed, loaded: the error that refuses it, or
/// nil when it loads.
public func refusal(of artifact: [UInt8], _ edit: (inout JSONValue) -> Void) -> RuleGraphArtifactError? {
    guard var document = try? JSONParser.parse(artifact) else {
        return RuleGraphArtifactError(path: "", message: "not JSON")
    }
    edit(&document)
    guard let bytes = resealed(document) else { return RuleGraphArtifactError(path: "", message: "no graph or sha256") }
    do {
        _ = try RuleGraphArtifact(bytes: bytes)
        return nil
    } catch {
        return error
    }
}

func loadedArtifactProblem(_ bytes: [UInt8]) -> String? {
    let artifact: RuleGraphArtifact
    do {
        artifact = try RuleGraphArtifact(bytes: bytes)
    } catch {
        return error.message.isEmpty ? "an empty artifact error" : nil
    }
    let graph = artifact.graph
    let written = RuleGraphArtifact.encode(graph, compiler: artifact.compiler)
    guard let again = try? RuleGraphArtifact(bytes: written) else { return "a loaded graph wrote an artifact that does not load" }
    if RuleGraphArtifact.encode(again.graph, compiler: artifact.compiler) != written { return "writing a loaded graph is not stable" }

    let at = Instant(seconds: 1_795_348_800)
    let day: Int64 = 86_400
    for env in Environment.allCases {
        let g = graph[env]
        for state in artifactStates(g, env, at: at) {
            for moment in [at, Instant(seconds: at.seconds + 45 * day), Instant(seconds: at.seconds + 36_600 * day)] {
                guard let e = try? Evaluation(graph: graph, state: state, environment: env, at: moment, explain: true,
                                              unlock: true) else { return "evaluating a loaded graph failed" }
                let all = e.all()
                _ = e.json(all).compact
                _ = Changes.nextChange(all)
                for f in g.features.indices {
                    for amount: Int64 in [1, 7, 1_000_000_000_000_000] { _ = e.feature(f, required: amount) }
                }
            }
        }
    }
    return nil
}

/// The states a loaded graph is evaluated on: none; one that buys every product (with dates,
/// quantities, a grace period, an unknown purchase) and uses every feature; one of lapsed,
/// shared, undated and overridden purchases, with retried uses.
func artifactStates(_ g: EnvironmentGraph, _ env: Environment, at: Instant) -> [PurchaseState] {
    let day: Int64 = 86_400
    var full = PurchaseState(customerSince: Instant(seconds: at.seconds - 400 * day), environment: env)
    for (i, p) in g.products.enumerated() {
        let start = Instant(seconds: at.seconds - Int64(i % 5 + 1) * 17 * day)
        full.purchases.append(Purchase(product: p.name, status: i % 4 == 3 ? .pastDue : .active, purchasedAt: start,
                                       expiresAt: i % 3 == 0 ? nil : Instant(seconds: at.seconds + Int64(i + 1) * day),
                                       graceUntil: Instant(seconds: at.seconds + 3 * day), quantity: Int64(i % 3 + 1),
                                       environment: env))
    }
    if let first = g.products.first {
        full.purchases.append(Purchase(product: first.name, status: .unknown, environment: env))
    }
    for (i, f) in g.features.enumerated() {
        let yesterday = Instant(seconds: at.seconds - day), before = Instant(seconds: at.seconds - 2 * day)
        full.usage.append(UsageRecord(feature: f.name, kind: .amount(Int64(i * 37 + 5)), at: yesterday))
        full.usage.append(UsageRecord(feature: f.name, kind: .level(Int64(i + 2)), at: before))
        if let event = f.event { full.usage.append(UsageRecord(event: event, kind: .amount(1_000_000), at: at)) }
    }

    var lapsed = PurchaseState(environment: env)
    let statuses: [PurchaseStatus] = [.expired, .canceled, .revoked, .billingRetry, .trialing]
    for (i, p) in g.products.enumerated() where i % 2 == 0 {
        lapsed.purchases.append(Purchase(product: p.name, status: statuses[i % statuses.count],
                                         purchasedAt: i % 4 == 0 ? nil : Instant(seconds: at.seconds - 3_000 * day),
                                         periodStart: Instant(seconds: at.seconds - 10 * day),
                                         expiresAt: Instant(seconds: at.seconds - day), willRenew: i % 3 == 0,
                                         ownership: .familyShared, quantity: i % 3 == 0 ? 0 : 1_000_000_000_000_000,
                                         environment: i % 5 == 4 ? .test : env))
    }
    if let last = g.products.last { lapsed.setOverride(last.name, .purchased) }
    for (i, f) in g.features.enumerated() {
        for id in ["a", "a", nil] {
            lapsed.usage.append(UsageRecord(feature: f.name, kind: .amount(1_000_000_000_000_000 - Int64(i)),
                                            at: Instant(seconds: at.seconds - 40 * day), id: id))
        }
    }
    return [PurchaseState(environment: env), full, lapsed]
}
