import EntlCompiler
import EntlRuntime
import EntlSyntax
import Foundation

// The in-process measurements: feature checks on examples/api.entl, and loading a built graph
// against compiling its source.

/// The example graph and state the in-process checks use, and the instant they are asked at.
struct APIExample {
    let graph: RuleGraph
    let state: PurchaseState
    let at = Instant(rfc3339: "2026-11-22T12:00:00Z")!

    init(examples: String) {
        let text = try! String(contentsOfFile: "\(examples)/api.entl", encoding: .utf8)
        guard let graph = Compiler.compile([SourceFile(path: "api.entl", text: text)]).graph else {
            fail("api.entl does not compile")
        }
        self.graph = graph
        let stateBytes = try! Data(contentsOf: URL(fileURLWithPath: "\(examples)/api.state.json"))
        state = try! PurchaseState(json: Array(stateBytes))
    }
}

/// Section 1: in-process checks on examples/api.entl (also `entlc-bench checks --examples DIR`),
/// beside their anchor in the same run: a lookup in a `[String: Int]` of eight short names (the
/// standard library's hashing of a name), which moves with the machine and not with entlc.
func inProcessChecks(examples: String, iterations: Int, runs: Int, report: inout Report, checksum: inout Int64) {
    func perCall(_ body: () -> Void) -> Double { measure(runs: runs, body) / Double(iterations) }
    let example = APIExample(examples: examples)
    let (graph, state, at) = (example.graph, example.state, example.at)
    let evaluator = Evaluator(graph: graph, tracker: JSONPurchaseTracker(state))
    let names = ["api_calls", "history_access", "storage_gb", "forecast_credits", "api_pro", "api_pro_monthly",
                 "call_pack", "credit_top_up"]
    let table = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
    let anchor = perCall { for i in 0..<iterations { checksum &+= Int64(table[names[i & 7]] ?? 0) } }
    // Repeated questions: answered from the evaluator's cache until the result's valid_until.
    let cachedMetered = perCall {
        for _ in 0..<iterations { checksum &+= (try? evaluator.entitled(feature: "api_calls", at: at).balance) ?? 0 }
    }
    let cachedBoolean = perCall {
        for _ in 0..<iterations {
            checksum &+= (try? evaluator.entitled(feature: "history_access", at: at).allowed) == true ? 1 : 0
        }
    }
    // The same through ids resolved once (`Evaluator.feature(named:)`, what `entlc gen swift` writes).
    let (callsID, historyID) = (evaluator.feature(named: "api_calls")!, evaluator.feature(named: "history_access")!)
    let typedMetered = perCall {
        for _ in 0..<iterations { checksum &+= (try? evaluator.entitled(callsID, at: at).balance) ?? 0 }
    }
    let typedBoolean = perCall {
        for _ in 0..<iterations { checksum &+= (try? evaluator.entitled(historyID, at: at).allowed) == true ? 1 : 0 }
    }
    // Cold questions: a fresh evaluation of the state every time (as after a tracker change).
    let coldMetered = perCall {
        for _ in 0..<iterations { checksum &+= coldCheck("metered", graph: graph, state: state, at: at) }
    }
    let coldBoolean = perCall {
        for _ in 0..<iterations { checksum &+= coldCheck("boolean", graph: graph, state: state, at: at) }
    }
    let evaluation = try! evaluator.evaluation(at: at)
    let historyIndex = graph.live.featureIndex["history_access"]!
    let reused = perCall {
        for _ in 0..<iterations { checksum &+= evaluation.feature(historyIndex, required: 1).allowed ? 1 : 0 }
    }
    func ns(_ seconds: Double) -> String { fmt(seconds * 1e9, 0) + " ns" }
    report.text("### In-process checks (examples/api.entl, examples/api.state.json)\n")
    report.row("query", "repeated (`Evaluator`, cached until `valid_until`)", "same, by `FeatureID`",
               "cold (fresh `Evaluation` each call)")
    report.row("---", "---", "---", "---")
    report.row("`entitled(feature: \"api_calls\")`: metered, credit fallback, 3 usage events",
               ns(cachedMetered), ns(typedMetered), ns(coldMetered))
    report.row("`entitled(feature: \"history_access\")`: boolean", ns(cachedBoolean), ns(typedBoolean),
               ns(coldBoolean))
    report.row("boolean query on one reused `Evaluation`", "—", "—", ns(reused))
    report.row("anchor: a `[String: Int]` lookup of a short name", ns(anchor), "", "")
    report.text("\nMedians of \(runs) runs of \(iterations.formatted()) calls each.")
    report.figure("anchor_lookup_ns", anchor * 1e9)
    report.figure("cached_metered_ns", cachedMetered * 1e9)
    report.figure("cached_boolean_ns", cachedBoolean * 1e9)
    report.figure("typed_metered_ns", typedMetered * 1e9)
    report.figure("typed_boolean_ns", typedBoolean * 1e9)
    report.figure("cold_metered_ns", coldMetered * 1e9)
    report.figure("cold_boolean_ns", coldBoolean * 1e9)
    report.figure("reused_boolean_ns", reused * 1e9)
}

/// One cold check of `kind` on examples/api.entl: `metered` (`api_calls`), `boolean`
/// (`history_access`) or `build` (only building and freeing the `Evaluation`).
@inline(__always)
func coldCheck(_ kind: String, graph: RuleGraph, state: PurchaseState, at: Instant) -> Int64 {
    switch kind {
    case "metered":
        (try? Evaluation(graph: graph, state: state, at: at).feature("api_calls").balance) ?? 0
    case "boolean":
        (try? Evaluation(graph: graph, state: state, at: at).feature("history_access").allowed) == true ? 1 : 0
    default:
        (try? Evaluation(graph: graph, state: state, at: at)) == nil ? 0 : 1
    }
}

/// `n` cold checks of one kind (for instruction counts under callgrind); returns a checksum.
func coldChecks(_ kind: String, _ n: Int, examples: String) -> Int64 {
    let example = APIExample(examples: examples)
    var checksum: Int64 = 0
    for _ in 0..<n { checksum &+= coldCheck(kind, graph: example.graph, state: example.state, at: example.at) }
    return checksum
}

/// `n` repeated checks through an `Evaluator` (for instruction counts under callgrind): `metered`
/// or `boolean`, by name or (`typed`) by `FeatureID`; returns a checksum.
func cachedChecks(_ kind: String, typed: Bool, _ n: Int, examples: String) -> Int64 {
    let example = APIExample(examples: examples)
    let evaluator = Evaluator(graph: example.graph, tracker: JSONPurchaseTracker(example.state))
    let name = kind == "metered" ? "api_calls" : "history_access"
    let id = evaluator.feature(named: name)!
    var checksum: Int64 = 0
    for _ in 0..<n {
        let result = typed ? try? evaluator.entitled(id, at: example.at) : try? evaluator.entitled(feature: name, at: example.at)
        checksum &+= result?.allowed == true ? 1 : 0
    }
    return checksum
}

/// What an app pays at start-up: loading the rules `entlc build` wrote (parse, check every
/// index, verify the digest, link) against compiling the source (the anchor, in the same run), per
/// rule set, median of 15 runs each.
func loading(_ files: [String], report: inout Report) {
    report.text("### Loading built rules against compiling the source\n")
    report.row("rules", "source", "artifact", "compile the source", "load the artifact", "ratio")
    report.row("---", "---", "---", "---", "---", "---")
    for path in files {
        let text = try! String(contentsOfFile: path, encoding: .utf8)
        let source = SourceFile(path: path, text: text)
        guard let graph = Compiler.compile([source], lint: false).graph else { fail("\(path) does not compile") }
        let bytes = RuleGraphArtifact.encode(graph, compiler: "entlc-bench")
        var loaded = 0
        let runs = 15
        let compile = measure(runs: runs) {
            loaded &+= Compiler.compile([source], lint: false).graph?.live.products.count ?? 0
        }
        let load = measure(runs: runs) {
            loaded &+= (try? RuleGraphArtifact(bytes: bytes))?.graph.live.products.count ?? 0
        }
        precondition(loaded > 0)
        let name = (path as NSString).lastPathComponent
        report.row(name, "\(text.utf8.count / 1024) KB", "\(bytes.count / 1024) KB", "\(fmt(compile * 1e3, 2)) ms",
                   "\(fmt(load * 1e3, 2)) ms", "\(fmt(load / compile))×")
        let key = name.replacingOccurrences(of: ".entl", with: "").replacingOccurrences(of: "-", with: "_")
        report.figure("load_\(key)_ms", load * 1e3)
        report.figure("compile_\(key)_ms", compile * 1e3)
    }
}
