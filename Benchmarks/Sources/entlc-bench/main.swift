import Foundation

/// entlc-bench: generates large inputs and measures entlc (see Benchmarks/BENCHMARKS.md;
/// Benchmarks/run.sh runs it with everything else).
///
///   entlc-bench generate --lines N --out DIR [--states N] [--events K] [--seed S]
///   entlc-bench run --entlc PATH --examples DIR --out DIR [--quick] [--figures FILE]
///   entlc-bench matrix-inputs --out DIR [--quick]
///   entlc-bench load RULES.entl… [--figures FILE]
///   entlc-bench ledger --entlc PATH --out DIR [--quick] [--figures FILE]
///   entlc-bench checks --examples DIR
///   entlc-bench cold metered|boolean|build N --examples DIR
///   entlc-bench cached metered|boolean N [--typed] --examples DIR
///   entlc-bench phases RULES STATES.jsonl (--entitlement NAME | --feature NAME) [--runs N]

func generate(_ args: [String]) {
    guard let lines = option("--lines", in: args).flatMap(Int.init), let out = option("--out", in: args) else {
        fail("generate --lines N --out DIR [--states N] [--events K] [--seed S]")
    }
    let seed = option("--seed", in: args).flatMap(UInt64.init) ?? 42
    let shape = RuleSetShape(products: RuleSetShape.products(forLines: lines), seed: seed)
    try? FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    write(shape.entl(), to: "\(out)/rules-\(lines).entl")
    write(shape.cedar(), to: "\(out)/rules-\(lines).cedar")
    if let states = option("--states", in: args).flatMap(Int.init) {
        let events = option("--events", in: args).flatMap(Int.init) ?? 4
        write(shape.states(count: states, events: events, seed: seed &+ 1),
              to: "\(out)/states-\(lines)-\(states)-\(events).jsonl")
    }
}

/// The inputs of the batch matrix (Benchmarks/batch_matrix.py): an app-sized rule set (10 products,
/// 20 features, 5 entitlements, a credit system and a feature with `requires`), short states (1 to
/// 3 purchases, no usage: about 330 bytes a line) and long ones (1 to 4 purchases, 4 usage events).
func matrixInputs(_ args: [String]) {
    guard let out = option("--out", in: args) else { fail("matrix-inputs --out DIR [--quick]") }
    let quick = args.contains("--quick")
    let shape = RuleSetShape(products: 10, seed: 7)
    try? FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    write(shape.entl(extras: true), to: "\(out)/app-rules.entl")
    write(shape.states(count: quick ? 20_000 : 200_000, events: 0, seed: 12, purchases: 1..<4),
          to: "\(out)/app-states-short.jsonl")
    write(shape.states(count: quick ? 5_000 : 50_000, events: 4, seed: 13), to: "\(out)/app-states-long.jsonl")
}

let args = Array(CommandLine.arguments.dropFirst())
switch args.first {
case "generate": generate(args)
case "run": runAll(args)
case "matrix-inputs": matrixInputs(args)
case "ledger": ledgerBenchmark(args)
case "consume": consumeLoop(args.count > 1 ? Int(args[1]) ?? 1 : 1)
case "phases": phases(args)
case "load":
    let figures = option("--figures", in: args)
    let files = args.dropFirst().filter { $0 != "--figures" && $0 != figures }
    guard !files.isEmpty else { fail("load RULES.entl… [--figures FILE]") }
    var report = Report()
    loading(Array(files), report: &report)
    report.finish(figuresTo: figures)
case "checks":
    guard let examples = option("--examples", in: args) else { fail("checks --examples DIR") }
    var report = Report(), checksum: Int64 = 0
    inProcessChecks(examples: examples, iterations: 200_000, runs: 15, report: &report, checksum: &checksum)
    report.finish(figuresTo: nil)
    if checksum == 42 { print("") }  // keeps the checks from being optimized away
case "cold":
    // For instruction counts: run under callgrind with N and with 1, and divide the difference by
    // N − 1 (what is not the loop cancels out).
    guard args.count >= 3, let n = Int(args[2]), let examples = option("--examples", in: args),
          ["metered", "boolean", "build"].contains(args[1]) else { fail("cold metered|boolean|build N --examples DIR") }
    print(coldChecks(args[1], n, examples: examples))
case "cached":
    // For instruction counts, as `cold`: repeated checks answered from an `Evaluator`'s cache.
    guard args.count >= 3, let n = Int(args[2]), let examples = option("--examples", in: args),
          ["metered", "boolean"].contains(args[1]) else { fail("cached metered|boolean N [--typed] --examples DIR") }
    print(cachedChecks(args[1], typed: args.contains("--typed"), n, examples: examples))
default:
    fail("usage: entlc-bench generate … | run … | matrix-inputs … | load RULES… | ledger … | checks … | cold … | cached … | phases …")
}
