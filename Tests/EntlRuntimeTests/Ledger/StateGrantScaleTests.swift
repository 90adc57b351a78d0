import EntlRuntime
import EntlTestSupport
import Testing

/// A customer given a grant every few days (top-ups) with a use every few hours: each use before
/// `t` is charged under the state as it read then (§5), so each new grant makes another reading.
/// A reading keeps no table of the state's records, and the grant instances of all readings are
/// found by identity, in room for the instances the state can have — not for every reading's
/// candidates side by side (2,000 grants and 5,000 uses had taken 240 MB and 0.7 s to answer in
/// a release build; 1,000 grants and 1,600 uses, 950 MB and 2.9 s).
///
/// Eight times the grants is measured against the grants, in turn in the same process, the best
/// of three runs each, with a wide margin: under 64× plus 0.1 s (about 30× in a debug build, where
/// each reading's look at every grant is dear; about 200× before).
@Suite(.serialized) struct StateGrantScaleTests {
    static let rules = """
    product plan: subscription { period month }
    feature calls: metered
    credits pool { calls 1 = 2 }
    entitlement e = plan { grants calls 1_000 per month; grants pool 100 per month }
    """

    /// `grants` grants of `calls` spread over 2026 (each for 30 days) and 1,000 uses over the year.
    static func state(grants: Int) throws -> PurchaseState {
        let day: Int64 = 86_400, start = instant("2026-01-01T00:00:00Z").seconds
        func at(_ seconds: Int64) -> String { Instant(seconds: start + seconds).description }
        let given = (0..<grants).map { i in
            let from = Int64(i) * 365 * day / Int64(grants)
            return #"{"feature": "calls", "amount": 40, "from": "\#(at(from))", "until": "\#(at(from + 30 * day))", "#
                + #""id": "top-up-\#(i)"}"#
        }
        let uses = (0..<1_000).map { k in #"{"feature": "calls", "amount": 3, "at": "\#(at(Int64(k) * 365 * day / 1_000))"}"# }
        let json = #"{"customer": "c", "purchases": [{"product": "plan", "purchased_at": "2025-12-01T00:00:00Z", "#
            + #""expires_at": "2027-12-01T00:00:00Z"}], "grants": [\#(given.joined(separator: ", "))], "#
            + #""usage": [\#(uses.joined(separator: ", "))]}"#
        return try PurchaseState(json: Array(json.utf8))
    }

    static let at = instant("2026-12-31T00:00:00Z")

    /// The answers are those of the reference evaluator, which reads the state afresh at each use.
    @Test func theAnswersAreTheReferences() throws {
        let mismatches = differentialMismatches(DifferentialCase(rules: StateGrantScaleTests.rules,
                                                                 state: try StateGrantScaleTests.state(grants: 30),
                                                                 at: StateGrantScaleTests.at))
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    @Test func eightTimesTheGrantsCostsAboutEightTimesAsMuch() throws {
        let graph = compileGraph(StateGrantScaleTests.rules)
        let states = [try StateGrantScaleTests.state(grants: 80), try StateGrantScaleTests.state(grants: 640)]
        let clock = ContinuousClock()
        var best = [Double.infinity, .infinity]
        for _ in 0..<3 {
            for (i, state) in states.enumerated() {
                let d = try clock.measure {
                    _ = try Evaluation(graph: graph, state: state, at: StateGrantScaleTests.at).feature("calls")
                }
                best[i] = min(best[i], Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
            }
        }
        #expect(best[1] < 64 * best[0] + 0.1, "80 grants: \(best[0]) s, 640 grants: \(best[1]) s")
    }
}
