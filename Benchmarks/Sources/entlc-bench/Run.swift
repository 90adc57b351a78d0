import EntlCompiler
import EntlRuntime
import EntlSyntax
import Foundation

/// `entlc-bench run`: every measurement of entlc itself, as Markdown tables on standard output
/// and (with `--figures FILE`) as JSON for the summary of Benchmarks/BENCHMARKS.md. Each figure
/// has its anchor from the same run beside it: a standard-library lookup for the in-process
/// checks, the day-old purchase for elapsed windows, decoding for heavy usage, the smaller rule
/// set for `check`, `check` for `diff`.
struct BenchmarkRun {
    let entlc: String, examples: String, out: String
    let quick: Bool
    var report = Report()
    /// Sums results so the optimizer cannot drop the loops; printed at the end.
    var checksum: Int64 = 0
    let at = Instant(rfc3339: "2026-11-22T12:00:00Z")!

    var iterations: Int { quick ? 20_000 : 200_000 }
    var runs: Int { quick ? 5 : 15 }

    init(_ args: [String]) {
        guard let entlc = option("--entlc", in: args), let examples = option("--examples", in: args),
              let out = option("--out", in: args) else {
            fail("run --entlc PATH --examples DIR --out DIR [--quick] [--figures FILE]")
        }
        (self.entlc, self.examples, self.out, quick) = (entlc, examples, out, args.contains("--quick"))
        try? FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    }

    mutating func perCall(_ body: (inout Int64) -> Void) -> Double {
        var sum: Int64 = 0
        let t = measure(runs: runs) { body(&sum) } / Double(iterations)
        checksum &+= sum
        return t
    }

    /// 2. Elapsed windows cost nothing: a `per minute` grant bought yesterday (the anchor) and
    /// five years ago.
    mutating func windows() {
        let rules = "product sub: non_consumable\nfeature pings: metered\n"
            + "entitlement e = sub { grants pings 1 per minute carry }\n"
        let graph = Compiler.compile([SourceFile(path: "m.entl", text: rules)]).graph!
        let (at, iterations) = (at, iterations)
        func cost(_ run: inout BenchmarkRun, _ bought: String) -> Double {
            let s = try! PurchaseState(json: #"{"purchases": [{"product": "sub", "purchased_at": "\#(bought)"}], "#
                                       + #""usage": [{"feature": "pings", "amount": 1, "at": "\#(bought)"}]}"#)
            return run.perCall { sum in
                for _ in 0..<iterations {
                    sum &+= (try? Evaluation(graph: graph, state: s, at: at).feature("pings").balance) ?? 0
                }
            }
        }
        let yesterday = cost(&self, "2026-11-21T12:00:00Z"), fiveYears = cost(&self, "2021-11-22T12:00:00Z")
        report.text("\n### Elapsed windows (a `per minute` grant with carry)\n")
        report.row("bought", "windows elapsed", "median per cold check")
        report.row("---", "---", "---")
        report.row("yesterday (the anchor)", "1,440", fmt(yesterday * 1e9, 0) + " ns")
        report.row("five years ago", "2,629,440", fmt(fiveYears * 1e9, 0) + " ns")
        report.text("\nRatio five years / yesterday: **\(fmt(fiveYears / yesterday))×**.")
        report.figure("windows_yesterday_ns", yesterday * 1e9)
        report.figure("windows_five_years_ns", fiveYears * 1e9)
    }

    /// 2b. Heavy usage: one state with 100,000 usage records over a credit system and five
    /// features that spill into it (docs/semantics.md §5: replayed together, in one time order).
    /// Decoding the state is the anchor of evaluating it.
    mutating func heavyUsage() {
        let rules = """
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
        guard let graph = Compiler.compile([SourceFile(path: "heavy.entl", text: rules)]).graph else {
            fail("heavy rules")
        }
        let records = 100_000
        var json = #"{"purchases": [{"product": "plan", "purchased_at": "2025-11-22T12:00:00Z"}], "usage": ["#
        var generator = Random(state: 5)
        let yearStart: Int64 = 1_763_812_800  // 2025-11-22T12:00:00Z
        var stamps = (0..<records).map { _ in yearStart + Int64(generator.next() % 31_536_000) }
        stamps.sort()
        for (i, stamp) in stamps.enumerated() {
            let name = ["f1", "f2", "f3", "f4", "f5", "pool"][Int(generator.next() % 6)]
            json += (i > 0 ? "," : "")
                + #"{"feature":"\#(name)","amount":\#(1 + generator.next() % 40),"at":"\#(Instant(seconds: stamp))"}"#
        }
        json += "]}"
        let bytes = Array(json.utf8)
        let runs = quick ? 5 : 11
        var sum: Int64 = 0
        let decode = measure(runs: runs) { sum &+= Int64((try? PurchaseState(json: bytes))?.usage.count ?? 0) }
        let state = try! PurchaseState(json: bytes)
        let at = at
        let one = measure(runs: runs) {
            sum &+= (try? Evaluation(graph: graph, state: state, at: at).feature("f3").balance) ?? 0
        }
        let all = measure(runs: runs) {
            sum &+= Int64((try? Evaluation(graph: graph, state: state, at: at).all().count) ?? 0)
        }
        checksum &+= sum
        let evaluation = try! Evaluation(graph: graph, state: state, at: at)
        let overage = (1...5).compactMap { (try? evaluation.feature("f\($0)"))?.overage }.reduce(0, +)
        report.text("\n### Heavy usage (\(records.formatted()) usage records over a credit system and five features "
                    + "that spill into it)\n")
        report.row("step", "median")
        report.row("---", "---")
        report.row("decode the state (\(fmt(Double(bytes.count) / 1e6, 1)) MB of JSON; the anchor)",
                   fmt(decode * 1000, 1) + " ms")
        report.row("evaluate one feature (`f3`), cold: the whole credit component replayed", fmt(one * 1000, 1) + " ms")
        report.row("evaluate everything (`all()`), cold: the component replayed once", fmt(all * 1000, 1) + " ms")
        report.text("\nTotal overage over the five features: \(overage.formatted()) (uses that neither the grants "
                    + "nor the pool covered).")
        report.figure("heavy_decode_ms", decode * 1000)
        report.figure("heavy_one_ms", one * 1000)
        report.figure("heavy_all_ms", all * 1000)
    }

    /// 3. Batch throughput, in process (decode vs evaluate) and end to end through the CLI. The
    /// anchors (cedarpy, simdjson) are measured by Benchmarks/run.sh on the files written here.
    mutating func batch() {
        let lines = quick ? 2_000 : 20_000
        let shape = RuleSetShape(products: 200, seed: 7)
        let rules = "\(out)/batch-rules.entl"
        write(shape.entl(extras: true), to: rules)
        write(shape.cedar(), to: "\(out)/batch-rules.cedar")
        guard let graph = Compiler.compile([SourceFile(path: rules, text: shape.entl(extras: true))]).graph else {
            fail("batch rules do not compile")
        }
        typealias Row = (events: Int, decode: Double, evaluate: Double, cli: Double, cliSingle: Double, bytes: Double)
        var rows: [Row] = []
        let runs = quick ? 3 : 7
        var sum: Int64 = 0
        for events in [4, 8] {
            let jsonl = shape.states(count: lines, events: events, seed: 99)
            let path = "\(out)/states-\(events).jsonl"
            write(jsonl, to: path)
            let records = jsonl.split(separator: "\n").map { Array($0.utf8) }
            let decode = measure(runs: runs) {
                for l in records { sum &+= Int64((try? PurchaseState(json: l))?.purchases.count ?? 0) }
            }
            let states = records.map { try! PurchaseState(json: $0) }
            let at = at
            let evaluate = measure(runs: runs) {
                for s in states {
                    if let e = try? Evaluation(graph: graph, state: s, at: at) { sum &+= e.entitlement(0).allowed ? 1 : 0 }
                }
            }
            // End to end through the CLI: one thread per core (the default), and one thread.
            func cli(_ jobs: [String]) -> Double {
                median((0..<runs).map { _ in
                    run([entlc, "eval", rules, "--states", path, "--entitlement", "e0"] + jobs,
                        stdoutTo: "\(out)/entlc-decisions-\(events).jsonl").0
                })
            }
            rows.append((events, decode, evaluate, cli([]), cli(["--jobs", "1"]), Double(jsonl.utf8.count)))
        }
        checksum &+= sum
        let n = Double(lines)
        report.text("\n### Batch evaluation (200 products, \(lines.formatted()) JSONL states, query `--entitlement e0`)\n")
        report.row("usage events per state", "decode, per state", "evaluate + query, per state",
                   "`entlc eval --states` end to end", "states/s", "MB/s", "same with `--jobs 1`")
        report.row("---", "---", "---", "---", "---", "---", "---")
        for row in rows {
            report.row("\(row.events)", fmt(row.decode / n * 1e6, 2) + " µs", fmt(row.evaluate / n * 1e6, 2) + " µs",
                       fmt(row.cli * 1000, 0) + " ms", fmt(n / row.cli, 0), fmt(row.bytes / row.cli / 1e6, 1),
                       fmt(row.cliSingle * 1000, 0) + " ms")
            report.figure("batch_\(row.events)_ms", row.cli * 1000)
            report.figure("batch_\(row.events)_single_ms", row.cliSingle * 1000)
        }
        report.text("\n`eval --states` uses one thread per core (\(coreCount())) by default; the output is "
                    + "byte-identical for any `--jobs`.")
        report.text("Doubling the usage events per state: end-to-end time ×\(fmt(rows[1].cli / rows[0].cli)) "
                    + "(×\(fmt(rows[1].cliSingle / rows[0].cliSingle)) with `--jobs 1`).")
        report.figure("batch_states", n)
        report.figure("batch_4_mb", rows[0].bytes / 1e6)
    }

    /// 4. `check` at 50k and 100k lines (the smaller one the anchor of the larger); returns the
    /// larger rule set's path and its median time. The two sizes run in turn, and the doubling is
    /// the median of the ratios of the runs made one after the other (as `farm-bench` pairs them),
    /// so that a slow stretch of the machine weighs on both sides of a ratio, not on one.
    mutating func check() -> (path: String, seconds: Double) {
        report.text("\n### `entlc check` on generated rule sets\n")
        report.row("lines", "median time", "peak memory")
        report.row("---", "---", "---")
        let sizes = quick ? [5_000, 10_000] : [50_000, 100_000]
        let files = sizes.map { lines in
            let text = RuleSetShape(products: RuleSetShape.products(forLines: lines), seed: 42).entl()
            let path = "\(out)/rules-\(lines).entl"
            write(text, to: path)
            return (path: path, lines: text.split(separator: "\n", omittingEmptySubsequences: false).count)
        }
        var samples = [[(Double, Int)]](repeating: [], count: files.count)
        for _ in 0..<(quick ? 3 : 7) {
            for (i, file) in files.enumerated() { samples[i].append(run([entlc, "check", file.path])) }
        }
        let times = samples.map { median($0.map(\.0)) }
        for (i, file) in files.enumerated() {
            let peak = samples[i].map(\.1).max()! / 1024
            report.row(file.lines.formatted(), fmt(times[i], 2) + " s", "\(peak) MB")
            let size = i == 0 ? "small" : "large"
            report.figure("check_\(size)_lines", Double(file.lines))
            report.figure("check_\(size)_s", times[i])
            report.figure("check_\(size)_mb", Double(peak))
        }
        let doubling = median(zip(samples[1], samples[0]).map { $0.0 / $1.0 })
        report.figure("check_doubling", doubling)
        report.text("\nDoubling the rule set: check time ×\(fmt(doubling)), the median of the ratios of runs made "
                    + "one after the other (the ratio of the medians: ×\(fmt(times[1] / times[0]))).")
        return (files[1].path, times[1])
    }

    /// 5. `diff` of the largest rule set against a reviewed change of it; `check` of the same
    /// rule set is its anchor.
    mutating func diff(_ largest: String, checkSeconds: Double) {
        let changedPath = largest.replacingOccurrences(of: ".entl", with: "-changed.entl")
        let original = (try? String(contentsOfFile: largest, encoding: .utf8)) ?? ""
        write(changed(original), to: changedPath)
        let samples: [(Double, Int)] = (0..<(quick ? 3 : 5)).map { _ in
            run([entlc, "diff", largest, changedPath, "--format", "json"], stdoutTo: "\(out)/diff.json", accepting: [1])
        }
        let findings = (try? String(contentsOfFile: "\(out)/diff.json", encoding: .utf8))
            .map { $0.components(separatedBy: "\"code\":").count - 1 } ?? 0
        let t = median(samples.map(\.0)), peak = samples.map(\.1).max()! / 1024
        report.text("\n### `entlc diff` of the largest rule set against a change of it\n")
        report.text("Every 20th entitlement drops one of two products, every 10th halves its monthly grants, one store "
                    + "id goes: \(findings.formatted()) findings, each with an example customer.\n")
        report.row("lines (each side)", "median time", "peak memory", "anchor: `check` of one side")
        report.row("---", "---", "---", "---")
        report.row(original.split(separator: "\n", omittingEmptySubsequences: false).count.formatted(),
                   fmt(t, 2) + " s", "\(peak) MB", fmt(checkSeconds, 2) + " s")
        report.figure("diff_s", t)
        report.figure("diff_mb", Double(peak))
        report.figure("diff_findings", Double(findings))
    }
}

func runAll(_ args: [String]) {
    var run = BenchmarkRun(args)
    // 1. In-process feature checks on a compiled example graph.
    inProcessChecks(examples: run.examples, iterations: run.iterations, runs: run.runs, report: &run.report,
                    checksum: &run.checksum)
    run.windows()
    run.heavyUsage()
    run.batch()
    let (largest, checkSeconds) = run.check()
    run.diff(largest, checkSeconds: checkSeconds)
    run.report.finish(figuresTo: option("--figures", in: args))
    FileHandle.standardError.write(Data("checksum \(run.checksum)\n".utf8))
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

