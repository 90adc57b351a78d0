import EntlCompiler
import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Foundation
import Testing

/// A batch writes its lines into one sink, which keeps the texts it wrote lately (a balance
/// reason under its parts, an instant): a line's bytes must not depend on the lines before it.
@Suite struct BatchLineTests {
    /// Each line's bytes, written after others into one sink, against the same state written into
    /// a sink of its own: for every feature and for `--all`, over generated rule sets with the
    /// states of twenty cases each (continuous features over their allowance, credits, soft
    /// limits, lots).
    @Test(arguments: [DifferentialCase.Focus.general, .credits, .commercial])
    func aLinesBytesDoNotDependOnTheLinesBeforeIt(_ focus: DifferentialCase.Focus) throws {
        let rounds = (Int(ProcessInfo.processInfo.environment["ENTLC_PROPERTY_CASES"] ?? "") ?? 300) / 30
        var compared = 0
        for seed in UInt64(1)...UInt64(rounds) {
            let cases = (0..<20).map { DifferentialCase(seed: seed &* 1_000 &+ $0, focus: focus) }
            let source = SourceFile(path: "b.entl", text: cases[0].rules)
            guard let graph = Compiler.compile([source], lint: false).graph else { continue }
            var shared = JSONBytes(), sharedAll = JSONBytes()
            var kept = FeatureResult()
            for c in cases {
                guard let e = try? Evaluation(graph: graph, state: c.state, environment: c.environment, at: c.at)
                else { continue }
                let warnings = e.warnings
                for f in graph[c.environment].features.indices {
                    var alone = JSONBytes()
                    let before = shared.bytes.count
                    e.writeJSONLine(e.feature(f, required: 1), warnings: warnings, into: &shared)
                    e.writeJSONLine(e.feature(f, required: 1), warnings: warnings, into: &alone)
                    #expect(String(decoding: shared.bytes[before...], as: UTF8.self) == String(decoding: alone.bytes, as: UTF8.self),
                            "seed \(c.seed), feature \(graph[c.environment].features[f].name)")
                    compared += 1
                }
                var alone = JSONBytes(), fresh = FeatureResult()
                let before = sharedAll.bytes.count
                e.writeAllJSONLine(warnings: warnings, feature: &kept, into: &sharedAll)
                e.writeAllJSONLine(warnings: warnings, feature: &fresh, into: &alone)
                #expect(String(decoding: sharedAll.bytes[before...], as: UTF8.self) == String(decoding: alone.bytes, as: UTF8.self),
                        "seed \(c.seed), --all")
            }
        }
        #expect(compared > 100)
    }

    /// The review's case: a continuous feature 60 over its allowance, then a state with none
    /// over — the second line had said "(60 over the allowance)" too.
    @Test func aLevelOverTheAllowanceIsNotWrittenOnTheNextLine() throws {
        let graph = try #require(Compiler.compile([SourceFile(path: "s.entl", text: """
            feature seats: metered { usage continuous }
            product team: non_consumable { grants seats 10 }
            """)], lint: false).graph)
        let at = try #require(Instant(rfc3339: "2026-11-22T12:00:00Z"))
        var over = PurchaseState()
        over.usage = [UsageRecord(feature: "seats", kind: .level(60), at: at)]
        var sink = JSONBytes()
        var texts: [String] = []
        for state in [over, PurchaseState()] {
            let e = try Evaluation(graph: graph, state: state, environment: .live, at: at)
            let before = sink.bytes.count
            e.writeJSONLine(e.feature(0, required: 1), warnings: e.warnings, into: &sink)
            let line = try JSONParser.parse(Array(sink.bytes[before...]).dropLast())
            guard case .array(let results)? = line["results"], case .string(let reason)? = results.first?["reason"]
            else { Issue.record("no reason in \(line)"); return }
            texts.append(reason)
        }
        #expect(texts == ["0 units left (60 over the allowance), 1 needed", "0 units left, 1 needed"])
    }
}
