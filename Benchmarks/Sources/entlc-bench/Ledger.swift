import EntlCompiler
import EntlRuntime
import EntlSyntax
import Foundation

/// `entlc-bench ledger`: the ledger at scale, each figure beside its anchor in the same run.
///
/// 1. Check-and-consume with an idempotency id (`Evaluator.consume` on a `JSONPurchaseTracker`),
///    on a customer with 1,000,000 earlier usage records and on one with none (the anchor),
///    measured in alternating runs: uses per second of the thread's CPU time (one core, whatever
///    else the machine runs), medians.
/// 2. `entlc state compact` of a state with 1,000,000 usage records, end to end (decoding, the
///    replay, writing), beside `entlc state check` of the same file (decoding it alone).
struct LedgerBenchmark {
    static let rules = """
        product pro: subscription { period month }
        feature api_calls: metered { event "api_call"; unit "call" / "calls" }
        credits coins { api_calls 1 = 5 }
        entitlement plan = pro {
          grants api_calls 100_000_000 per month
          grants coins 500 per month carry up to 1_000
        }
        """
    /// 2025-11-22T12:00:00Z: the plan's purchase; the history runs a year from there.
    static let start: Int64 = 1_763_812_800
    static let year: Int64 = 31_536_000

    let quick: Bool
    let graph: RuleGraph
    var report = Report()
    var checksum: Int64 = 0

    init(quick: Bool) {
        self.quick = quick
        guard let graph = Compiler.compile([SourceFile(path: "ledger.entl", text: LedgerBenchmark.rules)]).graph else {
            fail("the ledger benchmark's rules do not compile")
        }
        self.graph = graph
    }

    /// A customer of the plan with `records` uses of one call each over the year, every one with an
    /// id, as state JSON.
    static func stateJSON(records: Int) -> [UInt8] {
        var json = #"{"customer": "c1", "purchases": [{"product": "pro", "status": "active", "#
            + #""purchased_at": "2025-11-22T12:00:00Z", "expires_at": "2030-11-22T12:00:00Z"}], "usage": ["#
        json.reserveCapacity(records * 90 + 256)
        for i in 0..<records {
            let at = Instant(seconds: start + Int64(i) * (year - 86_400) / Int64(max(records, 1)))
            json += (i > 0 ? ",\n  " : "\n  ")
                + #"{"feature": "api_calls", "amount": 1, "at": "\#(at)", "id": "prior-\#(i)"}"#
        }
        json += "\n]}\n"
        return Array(json.utf8)
    }

    /// Uses per second of `Evaluator.consume` on each state, in alternating runs of `perRun`
    /// consumes (ids never seen, instants a microsecond apart after the last record), after one
    /// consume each that builds the evaluator's position.
    mutating func consumeThroughput(_ states: [PurchaseState], perRun: Int, runs: Int) -> [Double] {
        let trackers = states.map { JSONPurchaseTracker($0) }
        let evaluators = trackers.map { Evaluator(graph: graph, tracker: $0) }
        var clock = Instant(seconds: LedgerBenchmark.start + LedgerBenchmark.year - 3_600)
        var samples = [[Double]](repeating: [], count: states.count)
        // The requests' ids, made before the clock runs (a caller has its request id at hand).
        var ids = (0..<perRun).map { "use-\($0)" }, n = 0
        func consume(_ evaluator: Evaluator, _ id: String) -> Bool {
            clock = Instant(seconds: clock.seconds + (clock.nanoseconds >= 999_999_000 ? 1 : 0),
                            nanoseconds: clock.nanoseconds >= 999_999_000 ? 0 : clock.nanoseconds + 1_000)
            return (try? evaluator.consume(feature: "api_calls", amount: 1, id: id, at: clock))?.allowed == true
        }
        for e in evaluators where !consume(e, "first") { fail("the first consume was denied") }
        for _ in 0..<runs {
            for (k, e) in evaluators.enumerated() {
                n += 1
                ids = (0..<perRun).map { "use-\(n)-\($0)" }
                var allowed = 0
                let elapsed = cpuSeconds { for id in ids where consume(e, id) { allowed += 1 } }
                guard allowed == perRun else { fail("\(perRun - allowed) consumes were denied") }
                samples[k].append(Double(perRun) / elapsed)
            }
        }
        checksum &+= Int64(trackers.map { $0.snapshot.usage.count }.reduce(0, +))
        return samples.map(median)
    }

    mutating func consume() {
        let prior = quick ? 100_000 : 1_000_000
        let history = try! PurchaseState(json: LedgerBenchmark.stateJSON(records: prior))
        let fresh = try! PurchaseState(json: LedgerBenchmark.stateJSON(records: 0))
        let perRun = quick ? 20_000 : 200_000, runs = quick ? 5 : 11
        let rates = consumeThroughput([fresh, history], perRun: perRun, runs: runs)
        // What the position saves: `Consumption.decide` on the whole state, which replays it all.
        let timer = ContinuousClock()
        let at = Instant(seconds: LedgerBenchmark.start + LedgerBenchmark.year)
        let whole = median((0..<(quick ? 3 : 5)).map { k in
            seconds(timer.measure {
                let d = try? Consumption.decide(graph: graph, state: history, environment: nil, feature: "api_calls",
                                                amount: 1, id: "whole-\(k)", at: at)
                checksum &+= d?.result.balance ?? 0
            })
        })
        report.text("### Check and consume (`Evaluator.consume` with an id, `JSONPurchaseTracker`)\n")
        report.row("earlier usage records", "consumes per second", "per consume")
        report.row("---", "---", "---")
        report.row("none (the anchor)", fmt(rates[0], 0), fmt(1e9 / rates[0], 0) + " ns")
        report.row(prior.formatted(), fmt(rates[1], 0), fmt(1e9 / rates[1], 0) + " ns")
        report.text("\nMedians of \(runs) runs of \(perRun.formatted()) consumes on each customer, alternating, one "
                    + "thread, per second of its CPU time; every consume allowed and recorded. Ratio none / \(prior.formatted()): "
                    + "**\(fmt(rates[0] / rates[1]))×**. `Consumption.decide` on the whole state of "
                    + "\(prior.formatted()) records (one replay of it, what the evaluator does once, and after a "
                    + "change it did not make): \(fmt(whole * 1000, 0)) ms.")
        report.figure("consume_prior_records", Double(prior))
        report.figure("consume_none_per_s", rates[0])
        report.figure("consume_history_per_s", rates[1])
        report.figure("consume_whole_ms", whole * 1000)
    }

    /// `entlc state compact` of a file with `records` usage records, beside `entlc state check` of it.
    mutating func compact(entlc: String, out: String) {
        let records = quick ? 100_000 : 1_000_000
        let statePath = "\(out)/ledger-state-\(records).json", rulesPath = "\(out)/ledger.entl"
        write(LedgerBenchmark.rules, to: rulesPath)
        guard FileManager.default.createFile(atPath: statePath, contents: Data(LedgerBenchmark.stateJSON(records: records)))
        else { fail("cannot write \(statePath)") }
        let before = Instant(seconds: LedgerBenchmark.start + LedgerBenchmark.year - 30 * 86_400).description
        let runs = quick ? 3 : 5
        let compacted = "\(out)/ledger-compacted.json"
        let compact = (0..<runs).map { _ in
            run([entlc, "state", "compact", rulesPath, "--state", statePath, "--before", before, "-o", compacted])
        }
        let check = (0..<runs).map { _ in run([entlc, "state", "check", statePath]) }
        let size = (try? FileManager.default.attributesOfItem(atPath: statePath)[.size] as? Int) ?? 0
        let compactedSize = (try? FileManager.default.attributesOfItem(atPath: compacted)[.size] as? Int) ?? 0
        let (t, peak) = (median(compact.map(\.0)), compact.map(\.1).max()! / 1024)
        let anchor = median(check.map(\.0))
        report.text("\n### `entlc state compact` (\(records.formatted()) usage records)\n")
        report.row("command", "median time", "peak memory", "file")
        report.row("---", "---", "---", "---")
        report.row("`state check` of the state (decoding it; the anchor)", fmt(anchor, 2) + " s",
                   "\(check.map(\.1).max()! / 1024) MB", "\(size / 1_000_000) MB")
        report.row("`state compact --before` a month before the last record", fmt(t, 2) + " s", "\(peak) MB",
                   "\(compactedSize / 1_000_000) MB after")
        report.text("\nMedians of \(runs) runs.")
        report.figure("compact_records", Double(records))
        report.figure("compact_s", t)
        report.figure("compact_mb", Double(peak))
        report.figure("compact_check_s", anchor)
    }
}

func ledgerBenchmark(_ args: [String]) {
    guard let entlc = option("--entlc", in: args), let out = option("--out", in: args) else {
        fail("ledger --entlc PATH --out DIR [--quick] [--figures FILE]")
    }
    try? FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    var bench = LedgerBenchmark(quick: args.contains("--quick"))
    bench.consume()
    bench.compact(entlc: entlc, out: out)
    bench.report.finish(figuresTo: option("--figures", in: args))
    FileHandle.standardError.write(Data("checksum \(bench.checksum)\n".utf8))
}

/// `entlc-bench consume N`: N consumes on a customer without history (for instruction counts).
func consumeLoop(_ n: Int) {
    var bench = LedgerBenchmark(quick: true)
    let fresh = try! PurchaseState(json: LedgerBenchmark.stateJSON(records: 0))
    _ = bench.consumeThroughput([fresh], perRun: n, runs: 1)
}

/// The CPU time of the calling thread `body` takes, in seconds.
func cpuSeconds(_ body: () -> Void) -> Double {
    func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
    let start = now()
    body()
    return now() - start
}
