import EntlCompiler
import EntlRuntime
import EntlSyntax
import Foundation

/// entlc-bench: generates large inputs and measures entlc (see Benchmarks/BENCHMARKS.md).
///
///   entlc-bench generate --lines N --out DIR [--states N] [--events K] [--seed S]
///   entlc-bench run --entlc PATH --examples DIR --out DIR [--quick]

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("entlc-bench: " + message + "\n").utf8))
    exit(2)
}

func option(_ name: String, in args: [String]) -> String? {
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
    return args[i + 1]
}

func write(_ text: String, to path: String) {
    do { try text.write(toFile: path, atomically: true, encoding: .utf8) } catch { fail("cannot write \(path): \(error)") }
}

/// The median of repeated timings, in seconds.
func median(_ samples: [Double]) -> Double {
    let s = samples.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

/// Times `body` `runs` times and returns the median in seconds.
func measure(runs: Int, _ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    return median((0..<runs).map { _ in seconds(clock.measure(body)) })
}

/// Runs a command as a shell would: elapsed seconds, timed by a shell around it (so neither the
/// size of this process nor Foundation's spawning counts), and peak RSS in KiB (/usr/bin/time).
func run(_ arguments: [String], stdoutTo path: String = "/dev/null", accepting statuses: Set<Int32> = [0]) -> (Double, Int) {
    let rss = NSTemporaryDirectory() + "entlc-bench-rss-\(getpid())"
    let script = #"out=$1 rss=$2; shift 2; s=$(date +%s%N); /usr/bin/time -f %M -o "$rss" "$@" > "$out"; status=$?; e=$(date +%s%N); echo $((e - s)); exit $status"#
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", script, "sh", path, rss] + arguments
    let pipe = Pipe()
    p.standardOutput = pipe
    do { try p.run() } catch { fail("cannot run \(arguments[0]): \(error)") }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    let nanoseconds = Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    let kib = (try? String(contentsOfFile: rss, encoding: .utf8)).flatMap { Int($0.split(separator: "\n").last ?? "") }
    guard statuses.contains(p.terminationStatus), let nanoseconds, let kib else {
        fail("cannot time \(arguments) (exit \(p.terminationStatus))")
    }
    return (nanoseconds / 1e9, kib)
}

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
        write(shape.states(count: states, events: events, seed: seed &+ 1), to: "\(out)/states-\(lines)-\(states)-\(events).jsonl")
    }
}

// MARK: - The benchmark run

struct Report {
    var lines: [String] = []
    mutating func row(_ cells: String...) { lines.append("| " + cells.joined(separator: " | ") + " |") }
    mutating func text(_ s: String) { lines.append(s) }
}

func coreCount() -> Int { ProcessInfo.processInfo.activeProcessorCount }

func fmt(_ x: Double, _ digits: Int = 2) -> String {
    String(format: "%.\(digits)f", x)
}

/// Section 1: in-process checks on examples/api.entl (also `entlc-bench checks --examples DIR`).
func inProcessChecks(examples: String, iterations: Int, runs: Int, report: inout Report, checksum: inout Int64) {
    func perCall(_ body: () -> Void) -> Double { measure(runs: runs, body) / Double(iterations) }
    let text = try! String(contentsOfFile: "\(examples)/api.entl", encoding: .utf8)
    guard let graph = Compiler.compile([SourceFile(path: "api.entl", text: text)]).graph else { fail("api.entl does not compile") }
    let state = try! PurchaseState(json: Array(try! Data(contentsOf: URL(fileURLWithPath: "\(examples)/api.state.json"))))
    let evaluator = Evaluator(graph: graph, tracker: JSONPurchaseTracker(state))
    let at = Instant(rfc3339: "2026-11-22T12:00:00Z")!
    // Repeated questions: answered from the evaluator's cache until the result's valid_until.
    let cachedMetered = perCall { for _ in 0..<iterations { checksum &+= (try? evaluator.entitled(feature: "api_calls", at: at).balance) ?? 0 } }
    let cachedBoolean = perCall { for _ in 0..<iterations { checksum &+= (try? evaluator.entitled(feature: "history_access", at: at).allowed) == true ? 1 : 0 } }
    // Cold questions: a fresh evaluation of the state every time (as after a tracker change).
    let coldMetered = perCall { for _ in 0..<iterations { checksum &+= (try? Evaluation(graph: graph, state: state, at: at).feature("api_calls").balance) ?? 0 } }
    let coldBoolean = perCall { for _ in 0..<iterations { checksum &+= (try? Evaluation(graph: graph, state: state, at: at).feature("history_access").allowed) == true ? 1 : 0 } }
    let evaluation = try! evaluator.evaluation(at: at)
    let historyIndex = graph.live.featureIndex["history_access"]!
    let reused = perCall { for _ in 0..<iterations { checksum &+= evaluation.feature(historyIndex, required: 1).allowed ? 1 : 0 } }
    report.text("### In-process checks (examples/api.entl, examples/api.state.json)\n")
    report.row("query", "repeated (`Evaluator`, cached until `valid_until`)", "cold (fresh `Evaluation` each call)")
    report.row("---", "---", "---")
    report.row("`entitled(feature: \"api_calls\")`: metered, credit fallback, 3 usage events", fmt(cachedMetered * 1e9, 0) + " ns", fmt(coldMetered * 1e9, 0) + " ns")
    report.row("`entitled(feature: \"history_access\")`: boolean", fmt(cachedBoolean * 1e9, 0) + " ns", fmt(coldBoolean * 1e9, 0) + " ns")
    report.row("boolean query on one reused `Evaluation`", "—", fmt(reused * 1e9, 0) + " ns")
}

/// `n` cold checks of one kind on examples/api.entl: `metered` (`api_calls`), `boolean`
/// (`history_access`) or `build` (only building and freeing the `Evaluation`); returns a checksum.
func coldChecks(_ kind: String, _ n: Int, examples: String) -> Int64 {
    let text = try! String(contentsOfFile: "\(examples)/api.entl", encoding: .utf8)
    guard let graph = Compiler.compile([SourceFile(path: "api.entl", text: text)]).graph else { fail("api.entl does not compile") }
    let state = try! PurchaseState(json: Array(try! Data(contentsOf: URL(fileURLWithPath: "\(examples)/api.state.json"))))
    let at = Instant(rfc3339: "2026-11-22T12:00:00Z")!
    var checksum: Int64 = 0
    for _ in 0..<n {
        switch kind {
        case "metered": checksum &+= (try? Evaluation(graph: graph, state: state, at: at).feature("api_calls").balance) ?? 0
        case "boolean": checksum &+= (try? Evaluation(graph: graph, state: state, at: at).feature("history_access").allowed) == true ? 1 : 0
        default: checksum &+= (try? Evaluation(graph: graph, state: state, at: at)) == nil ? 0 : 1
        }
    }
    return checksum
}

func runAll(_ args: [String]) {
    guard let entlc = option("--entlc", in: args), let examples = option("--examples", in: args),
          let out = option("--out", in: args) else { fail("run --entlc PATH --examples DIR --out DIR [--quick]") }
    let quick = args.contains("--quick")
    try? FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    var report = Report()

    // 1. In-process feature checks on a compiled example graph.
    let iterations = quick ? 20_000 : 200_000
    let runs = quick ? 5 : 15
    var checksum: Int64 = 0
    func perCall(_ body: () -> Void) -> Double { measure(runs: runs, body) / Double(iterations) }
    inProcessChecks(examples: examples, iterations: iterations, runs: runs, report: &report, checksum: &checksum)
    let at = Instant(rfc3339: "2026-11-22T12:00:00Z")!

    // 2. Elapsed windows cost nothing.
    let minuteRules = "product sub: non_consumable\nfeature pings: metered\nentitlement e = sub { grants pings 1 per minute carry }\n"
    let minuteGraph = Compiler.compile([SourceFile(path: "m.entl", text: minuteRules)]).graph!
    func windowCost(_ bought: String) -> Double {
        let s = try! PurchaseState(json: "{\"purchases\": [{\"product\": \"sub\", \"purchased_at\": \"\(bought)\"}], \"usage\": [{\"feature\": \"pings\", \"amount\": 1, \"at\": \"\(bought)\"}]}")
        return perCall { for _ in 0..<iterations { checksum &+= (try? Evaluation(graph: minuteGraph, state: s, at: at).feature("pings").balance) ?? 0 } }
    }
    let yesterday = windowCost("2026-11-21T12:00:00Z"), fiveYears = windowCost("2021-11-22T12:00:00Z")
    report.text("\n### Elapsed windows (a `per minute` grant with carry)\n")
    report.row("bought", "windows elapsed", "median per cold check")
    report.row("---", "---", "---")
    report.row("yesterday", "1,440", fmt(yesterday * 1e9, 0) + " ns")
    report.row("five years ago", "2,629,440", fmt(fiveYears * 1e9, 0) + " ns")
    report.text("\nRatio five years / yesterday: **\(fmt(fiveYears / yesterday))×**.")

    // 2b. Heavy usage: one state with 100,000 usage records over a credit system and five
    // features that spill into it (docs/semantics.md §5: replayed together, in one time order).
    let heavyRules = """
        product plan: subscription { period month }
        feature f1: metered
        feature f2: metered
        feature f3: metered
        feature f4: metered
        feature f5: metered
        credits pool { f1 1 = 1; f2 1 = 2; f3 1 = 3; f4 2 = 1; f5 1 = 5 }
        entitlement e = plan {
          grants f1 2_000 per day
          grants f2 5_000 per week
          grants f3 20_000 per month carry up to 40_000
          grants f4 500 per hour
          grants f5 100_000
          grants pool 50_000 per month carry up to 100_000
        }
        """
    guard let heavyGraph = Compiler.compile([SourceFile(path: "heavy.entl", text: heavyRules)]).graph else { fail("heavy rules") }
    let records = 100_000
    var heavyJSON = #"{"purchases": [{"product": "plan", "purchased_at": "2025-11-22T12:00:00Z"}], "usage": ["#
    var generator = Random(state: 5)
    let yearStart: Int64 = 1_763_812_800  // 2025-11-22T12:00:00Z
    var stamps = (0..<records).map { _ in yearStart + Int64(generator.next() % 31_536_000) }
    stamps.sort()
    for (i, stamp) in stamps.enumerated() {
        let name = ["f1", "f2", "f3", "f4", "f5", "pool"][Int(generator.next() % 6)]
        heavyJSON += (i > 0 ? "," : "") + #"{"feature":"\#(name)","amount":\#(1 + generator.next() % 40),"at":"\#(Instant(seconds: stamp))"}"#
    }
    heavyJSON += "]}"
    let heavyBytes = Array(heavyJSON.utf8)
    let heavyRuns = quick ? 5 : 11
    let heavyDecode = measure(runs: heavyRuns) { checksum &+= Int64((try? PurchaseState(json: heavyBytes))?.usage.count ?? 0) }
    let heavyState = try! PurchaseState(json: heavyBytes)
    let heavyOne = measure(runs: heavyRuns) {
        checksum &+= (try? Evaluation(graph: heavyGraph, state: heavyState, at: at).feature("f3").balance) ?? 0
    }
    let heavyAll = measure(runs: heavyRuns) {
        checksum &+= Int64((try? Evaluation(graph: heavyGraph, state: heavyState, at: at).all().count) ?? 0)
    }
    let heavyEvaluation = try! Evaluation(graph: heavyGraph, state: heavyState, at: at)
    let overage = (1...5).compactMap { (try? heavyEvaluation.feature("f\($0)"))?.overage }.reduce(0, +)
    report.text("\n### Heavy usage (\(records.formatted()) usage records over a credit system and five features that spill into it)\n")
    report.row("step", "median")
    report.row("---", "---")
    report.row("decode the state (\(fmt(Double(heavyBytes.count) / 1e6, 1)) MB of JSON)", fmt(heavyDecode * 1000, 1) + " ms")
    report.row("evaluate one feature (`f3`), cold: the whole credit component replayed", fmt(heavyOne * 1000, 1) + " ms")
    report.row("evaluate everything (`all()`), cold: the component replayed once", fmt(heavyAll * 1000, 1) + " ms")
    report.text("\nTotal overage over the five features: \(overage.formatted()) (uses that neither the grants nor the pool covered).")

    // 3. Batch throughput, in process (decode vs evaluate) and end to end through the CLI.
    let batchLines = quick ? 2_000 : 20_000
    let shape = RuleSetShape(products: 200, seed: 7)
    let rules200 = "\(out)/batch-rules.entl"
    write(shape.entl(), to: rules200)
    write(shape.cedar(), to: "\(out)/batch-rules.cedar")
    guard let batchGraph = Compiler.compile([SourceFile(path: rules200, text: shape.entl())]).graph else { fail("batch rules do not compile") }
    var batchRows: [(events: String, decode: Double, evaluate: Double, cli: Double, cliSingle: Double, bytes: Double)] = []
    for events in [4, 8] {
        let jsonl = shape.states(count: batchLines, events: events, seed: 99)
        let path = "\(out)/states-\(events).jsonl"
        write(jsonl, to: path)
        let lines = jsonl.split(separator: "\n").map { Array($0.utf8) }
        let bytes = Double(jsonl.utf8.count)
        let decode = measure(runs: quick ? 3 : 7) {
            for l in lines { checksum &+= Int64((try? PurchaseState(json: l))?.purchases.count ?? 0) }
        }
        let states = lines.map { try! PurchaseState(json: $0) }
        let evaluate = measure(runs: quick ? 3 : 7) {
            for s in states {
                if let e = try? Evaluation(graph: batchGraph, state: s, at: at) { checksum &+= e.entitlement(0).allowed ? 1 : 0 }
            }
        }
        // End to end through the CLI: one thread per core (the default), and one thread.
        func cli(_ jobs: [String]) -> Double {
            median((0..<(quick ? 3 : 7)).map { _ in
                run([entlc, "eval", rules200, "--states", path, "--entitlement", "e0"] + jobs,
                    stdoutTo: "\(out)/entlc-decisions-\(events).jsonl").0
            })
        }
        batchRows.append(("\(events)", decode, evaluate, cli([]), cli(["--jobs", "1"]), bytes))
    }
    write(fmt(batchRows[0].cli, 4) + " " + fmt(batchRows[0].cliSingle, 4) + "\n", to: "\(out)/entlc-batch-seconds.txt")
    let n = Double(batchLines)
    report.text("\n### Batch evaluation (200 products, \(batchLines.formatted()) JSONL states, query `--entitlement e0`)\n")
    report.row("usage events per state", "decode, per state", "evaluate + query, per state",
               "`entlc eval --states` end to end", "states/s", "MB/s", "same with `--jobs 1`")
    report.row("---", "---", "---", "---", "---", "---", "---")
    for row in batchRows {
        report.row(row.events, fmt(row.decode / n * 1e6, 2) + " µs", fmt(row.evaluate / n * 1e6, 2) + " µs",
                   fmt(row.cli * 1000, 0) + " ms", fmt(n / row.cli, 0), fmt(row.bytes / row.cli / 1e6, 1),
                   fmt(row.cliSingle * 1000, 0) + " ms")
    }
    report.text("\n`eval --states` uses one thread per core (\(coreCount())) by default; the output is byte-identical for any `--jobs`.")
    report.text("Doubling the usage events per state: end-to-end time ×\(fmt(batchRows[1].cli / batchRows[0].cli)) (×\(fmt(batchRows[1].cliSingle / batchRows[0].cliSingle)) with `--jobs 1`).")

    // 4. check at 50k and 100k lines.
    report.text("\n### `entlc check` on generated rule sets\n")
    report.row("lines", "median time", "peak memory")
    report.row("---", "---", "---")
    var checkTimes: [Double] = []
    var largest = ""
    for lines in quick ? [5_000, 10_000] : [50_000, 100_000] {
        let shape = RuleSetShape(products: RuleSetShape.products(forLines: lines), seed: 42)
        let path = "\(out)/rules-\(lines).entl"
        let text = shape.entl()
        write(text, to: path)
        var samples: [(Double, Int)] = []
        for _ in 0..<(quick ? 3 : 5) { samples.append(run([entlc, "check", path])) }
        let t = median(samples.map(\.0))
        checkTimes.append(t)
        let actualLines = text.split(separator: "\n", omittingEmptySubsequences: false).count
        report.row(actualLines.formatted(), fmt(t, 2) + " s", "\(samples.map(\.1).max()! / 1024) MB")
        largest = path
    }
    report.text("\nDoubling the rule set: check time ×\(fmt(checkTimes[1] / checkTimes[0])).")

    // 5. diff of the largest rule set against a reviewed change of it.
    let changedPath = largest.replacingOccurrences(of: ".entl", with: "-changed.entl")
    let original = (try? String(contentsOfFile: largest, encoding: .utf8)) ?? ""
    write(changed(original), to: changedPath)
    var diffSamples: [(Double, Int)] = []
    for _ in 0..<(quick ? 3 : 5) {
        diffSamples.append(run([entlc, "diff", largest, changedPath, "--format", "json"], stdoutTo: "\(out)/diff.json", accepting: [1]))
    }
    let findings = (try? String(contentsOfFile: "\(out)/diff.json", encoding: .utf8))
        .map { $0.components(separatedBy: "\"code\":").count - 1 } ?? 0
    report.text("\n### `entlc diff` of the largest rule set against a change of it\n")
    report.text("Every 20th entitlement drops one of two products, every 10th halves its monthly grants, one store id goes: "
                + "\(findings.formatted()) findings, each with an example customer.\n")
    report.row("lines (each side)", "median time", "peak memory")
    report.row("---", "---", "---")
    report.row(original.split(separator: "\n", omittingEmptySubsequences: false).count.formatted(),
               fmt(median(diffSamples.map(\.0)), 2) + " s", "\(diffSamples.map(\.1).max()! / 1024) MB")
    report.text("\n<!-- checksum \(checksum) -->")
    print(report.lines.joined(separator: "\n"))
}

/// A change a reviewer might see: every 20th entitlement `= a or b {` becomes `= b {`, the
/// `per month` grants of every 10th entitlement are halved, and `p7` loses its Stripe id.
func changed(_ text: String) -> String {
    var entitlements = 0
    var lines: [String] = []
    var droppedStoreID = false
    for var line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
        if line.hasPrefix("entitlement ") {
            entitlements += 1
            let words = line.split(separator: " ")
            // entitlement NAME = A or B {
            if entitlements % 20 == 0, words.count == 7, words[4] == "or", words[6] == "{" {
                line = "entitlement \(words[1]) = \(words[5]) {"
            }
        } else if entitlements % 10 == 0, line.contains("per month"), line.hasPrefix("  grants ") {
            var words = line.split(separator: " ").map(String.init)
            if words.count > 2, let n = Int(words[2].filter { $0 != "_" }) { words[2] = String(max(1, n / 2)) }
            line = "  " + words.joined(separator: " ")
        } else if !droppedStoreID, line == "  id stripe \"price_p7\"" {
            droppedStoreID = true
            continue
        }
        lines.append(line)
    }
    return lines.joined(separator: "\n")
}

/// What an app pays at start-up: loading the rules `entlc build` wrote (parse, check every
/// index, verify the digest, link) against compiling the source, per rule set, median of runs.
func loading(_ args: [String]) {
    let files = Array(args.dropFirst())
    guard !files.isEmpty else { fail("load RULES.entl…") }
    print("| rules | source | artifact | compile the source | load the artifact | ratio |")
    print("| --- | --- | --- | --- | --- | --- |")
    for path in files {
        let text = try! String(contentsOfFile: path, encoding: .utf8)
        let source = SourceFile(path: path, text: text)
        guard let graph = Compiler.compile([source], lint: false).graph else { fail("\(path) does not compile") }
        let bytes = RuleGraphArtifact.encode(graph, compiler: "entlc-bench")
        var loaded = 0
        let runs = 15
        let compile = measure(runs: runs) { loaded &+= Compiler.compile([source], lint: false).graph?.live.products.count ?? 0 }
        let load = measure(runs: runs) { loaded &+= (try? RuleGraphArtifact(bytes: bytes))?.graph.live.products.count ?? 0 }
        precondition(loaded > 0)
        print("| \((path as NSString).lastPathComponent) | \(text.utf8.count / 1024) KB | \(bytes.count / 1024) KB | "
              + "\(fmt(compile * 1e3, 2)) ms | \(fmt(load * 1e3, 2)) ms | \(fmt(load / compile))× |")
    }
}

let args = Array(CommandLine.arguments.dropFirst())
switch args.first {
case "generate": generate(args)
case "run": runAll(args)
case "load": loading(args)
case "checks":
    guard let examples = option("--examples", in: args) else { fail("checks --examples DIR") }
    var report = Report(), checksum: Int64 = 0
    inProcessChecks(examples: examples, iterations: 200_000, runs: 15, report: &report, checksum: &checksum)
    print(report.lines.joined(separator: "\n"))
    if checksum == 42 { print("") } // keeps the checks from being optimized away
case "cold":
    // For instruction counts: run under callgrind with N and with 1, and divide the difference by
    // N − 1 (what is not the loop cancels out).
    guard args.count >= 3, let n = Int(args[2]), let examples = option("--examples", in: args),
          ["metered", "boolean", "build"].contains(args[1]) else { fail("cold metered|boolean|build N --examples DIR") }
    print(coldChecks(args[1], n, examples: examples))
default: fail("usage: entlc-bench generate … | run … | load RULES… | checks --examples DIR | cold KIND N --examples DIR")
}
