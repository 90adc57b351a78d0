import EntlCompiler
import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Foundation
import Testing

/// The runtime against the deliberately simple reference evaluator (Tests/EntlTestSupport/
/// Differential/) over random rule sets, states and instants. `swift test` runs 2,000 cases;
/// a long run: `ENTLC_DIFF_CASES=100000 swift test -c release --filter Differential`
/// (`ENTLC_DIFF_SEED` picks other cases; a mismatch prints the seed that replays it).
@Suite struct DifferentialTests {
    static let environment = ProcessInfo.processInfo.environment
    static let cases = Int(environment["ENTLC_DIFF_CASES"] ?? "") ?? 2_000
    static let firstSeed = UInt64(environment["ENTLC_DIFF_SEED"] ?? "") ?? 1
    static let shards = 8

    @Test(arguments: 0..<shards)
    func runtimeAgreesWithTheReference(shard: Int) {
        var failures = 0
        for i in stride(from: shard, to: Self.cases, by: Self.shards) {
            let c = DifferentialCase(seed: Self.firstSeed &+ UInt64(i))
            let mismatches = differentialMismatches(c)
            guard !mismatches.isEmpty else { continue }
            failures += 1
            if failures <= 3 {
                Issue.record("\(c)--- mismatches\n\(mismatches.prefix(5).joined(separator: "\n"))")
            }
        }
        #expect(failures == 0, "\(failures) of the cases in shard \(shard) disagree")
    }

    /// A timeline steps only where something may change (`nextObservableChange`); stepping
    /// through every `valid_until` instead must report exactly the same events.
    @Test func timelinesSkipOnlyBoundariesThatChangeNothing() throws {
        var compared = 0
        for seed in UInt64(1)...150 {
            let c = DifferentialCase(seed: seed)
            guard let graph = Compiler.compile([SourceFile(path: "d.entl", text: c.rules)], lint: false).graph else { continue }
            let to = Instant(seconds: c.at.seconds + 86_400)
            guard let fast = try? Changes.timeline(graph: graph, state: c.state, environment: c.environment, from: c.at, to: to)
            else { continue }
            // Every valid_until, as long as that stays small.
            var slow: [ChangeEvent] = []
            var results = try Evaluation(graph: graph, state: c.state, environment: c.environment, at: c.at).all()
            var steps = 0
            while let next = Changes.nextChange(results), next <= to, steps < 1_500 {
                steps += 1
                let later = try Evaluation(graph: graph, state: c.state, environment: c.environment, at: next).all()
                slow += Changes.between(results, later, at: next)
                results = later
            }
            guard steps < 1_500 else { continue }
            compared += 1
            #expect(fast == slow, "seed \(seed)\n\(c)")
        }
        #expect(compared > 100)
    }

    @Test func theGeneratorCoversWhatItShould() {
        // A sample of cases exercises every feature kind, overrides, unknown statuses and usage.
        var rules = "", statuses: Set<PurchaseStatus> = [], overrides = 0, usage = 0
        for seed in UInt64(1)...200 {
            let c = DifferentialCase(seed: seed)
            rules += c.rules
            statuses.formUnion(c.state.purchases.map(\.status))
            overrides += c.state.overrides.count
            usage += c.state.usage.count
        }
        for construct in ["usage continuous", "credits cr0", "carry up to", " per minute", " per month", "priority", "not ",
                          " and ", " or ", " >= ", "requires", "environment test", "unlimited", "duration"] {
            #expect(rules.contains(construct), "no generated rule set uses \(construct)")
        }
        #expect(statuses == Set(PurchaseStatus.allCases))
        #expect(overrides > 10)
        #expect(usage > 200)
    }
}
