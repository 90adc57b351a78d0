import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// Check and consume (`Evaluator.consume`): the check and the recording of the use happen in one
/// critical section of the tracker.
@Suite struct ConsumeTests {
    static let rules = """
    product pro: subscription { period month }
    feature calls: metered
    feature export: boolean
    credits coins { calls 1 = 2 }
    entitlement plan = pro {
      grants calls 100 per month
      grants coins 50 per month
      grants export
    }
    """
    let graph = compileGraph(ConsumeTests.rules)
    let at = instant("2026-06-10T00:00:00Z")

    func tracker() -> JSONPurchaseTracker {
        JSONPurchaseTracker(state(#"{"purchases": [{"product": "pro", "purchased_at": "2026-06-01T00:00:00Z"}]}"#))
    }

    @Test func anAllowedUseIsRecordedADeniedOneIsNot() throws {
        let t = tracker()
        let evaluator = Evaluator(graph: graph, tracker: t)
        let r = try evaluator.consume(feature: "calls", amount: 30, at: at)
        #expect(r.allowed)
        #expect(r.balance == 100)  // the answer of the check, before the use
        #expect(t.snapshot.usage == [UsageRecord(feature: "calls", kind: .amount(30), at: at)])
        #expect(try evaluator.entitled(feature: "calls", at: at).balance == 70)
        // 80 more: 70 left, the 10 missing cost 20 coins: allowed via credits, and charged.
        let viaCredits = try evaluator.consume(feature: "calls", amount: 80, at: at)
        #expect((viaCredits.via, viaCredits.creditsRequired) == (.credits, 20))
        #expect(try evaluator.entitled(feature: "coins", at: at).balance == 30)
        // 16 more would need 32 coins of the 30 left: denied, nothing recorded.
        let denied = try evaluator.consume(feature: "calls", amount: 16, at: at)
        #expect(denied.decision == .denied)
        #expect(t.snapshot.usage.count == 2)
    }

    @Test func aRetryWithTheSameIDReturnsTheFirstAnswerAndRecordsNothing() throws {
        let t = tracker()
        let evaluator = Evaluator(graph: graph, tracker: t)
        let first = try evaluator.consume(feature: "calls", amount: 30, id: "req-1", at: at)
        let retry = try evaluator.consume(feature: "calls", amount: 30, id: "req-1", at: instant("2026-06-10T00:05:00Z"))
        #expect(retry.replayed)
        var unmarked = retry
        unmarked.replayed = false
        #expect(first == unmarked)
        #expect(t.snapshot.usage == [UsageRecord(feature: "calls", kind: .amount(30), at: at, id: "req-1")])
        // Another id is another use.
        #expect(try evaluator.consume(feature: "calls", amount: 30, id: "req-2", at: at).balance == 70)
        #expect(t.snapshot.usage.count == 2)
    }

    /// Many concurrent consumers of one unit each: exactly the allowance plus what the credits pay
    /// for is allowed and recorded — never more, and nothing is lost.
    @Test func concurrentConsumersNeverSpendTheLastUnitTwice() async throws {
        let t = tracker()
        let evaluator = Evaluator(graph: graph, tracker: t)
        let at = self.at
        let allowed = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<400 {
                group.addTask { try evaluator.consume(feature: "calls", amount: 1, at: at).allowed }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        // 100 calls, then 50 coins at 2 coins a call: 125.
        #expect(allowed == 125)
        #expect(t.snapshot.usage.count == 125)
        let after = try Evaluation(graph: graph, state: t.snapshot, at: at)
        #expect(try after.feature("calls").balance == 0)
        #expect(try after.feature("coins").balance == 0)
        #expect(try after.feature("calls").overage == 0)
        // Concurrent retries of one request: recorded once, every answer allowed.
        let fresh = tracker()
        let again = Evaluator(graph: graph, tracker: fresh)
        let retries = try await withThrowingTaskGroup(of: FeatureResult.self) { group in
            for _ in 0..<50 {
                group.addTask { try again.consume(feature: "calls", id: "once", at: at) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(retries.map(\.decision)) == [.allowed])
        #expect(retries.filter(\.replayed).count == 49)
        #expect(fresh.snapshot.usage.filter { $0.id == "once" }.count == 1)
    }

    @Test func aTrackerThatCannotRecordSaysSo() throws {
        final class ReadOnly: PurchaseTracker {
            var snapshot: PurchaseState { PurchaseState() }
            func observe(_ handler: @escaping @Sendable (PurchaseState) -> Void) -> TrackerObservation { TrackerObservation {} }
        }
        let evaluator = Evaluator(graph: graph, tracker: ReadOnly())
        #expect(throws: EvaluationError("the tracker cannot record usage (it does not conform to UsageRecording)")) {
            try evaluator.consume(feature: "calls", at: at)
        }
        #expect(throws: EvaluationError("unknown feature `cals`")) {
            try Evaluator(graph: graph, tracker: tracker()).consume(feature: "cals", at: at)
        }
        // Through a debug tracker: not while its overrides are set (the real state would not say
        // why a use was allowed); without them, the wrapped tracker records.
        let base = tracker()
        let debug = DebugPurchaseTracker(wrapping: base)
        debug.override("pro", .purchased)
        #expect(throws: EvaluationError("a debug tracker with overrides cannot record usage: the recorded state would "
                                        + "not say why the use was allowed; clear the overrides first")) {
            try Evaluator(graph: graph, tracker: debug).consume(feature: "calls", at: at)
        }
        debug.clearOverrides()
        #expect(try Evaluator(graph: graph, tracker: debug).consume(feature: "calls", at: at).allowed)
        #expect(base.snapshot.usage.count == 1)
        // Only a use of a single-use feature or credit system, of 1 to 10^15 units.
        #expect(throws: EvaluationError("only a use of a single-use feature or credit system is recorded; "
                                        + "`export` is a boolean feature")) {
            try Evaluator(graph: graph, tracker: tracker()).consume(feature: "export", at: at)
        }
        #expect(throws: EvaluationError("the amount of a use is from 1 to 10^15, not 5000000000000000")) {
            try Evaluator(graph: graph, tracker: tracker()).consume(feature: "calls", amount: 5_000_000_000_000_000, at: at)
        }
    }

    /// The state JSON of a recorded use: appended to `usage`, every other byte as it was.
    @Test func appendingAUseKeepsEveryOtherByte() throws {
        let record = UsageRecord(feature: "calls", kind: .amount(5), at: at, id: "req \"7\"")
        let pretty = """
            {
              "customer": "c",
              "usage": [
                { "feature": "calls", "amount": 1 }
              ]
            }
            """
        #expect(String(decoding: try PurchaseState.appendingUsage(record, toJSON: Array(pretty.utf8)), as: UTF8.self) == """
            {
              "customer": "c",
              "usage": [
                { "feature": "calls", "amount": 1 },
                { "feature": "calls", "amount": 5, "at": "2026-06-10T00:00:00Z", "id": "req \\"7\\"" }
              ]
            }
            """)
        func appended(_ json: String) throws -> String {
            String(decoding: try PurchaseState.appendingUsage(UsageRecord(event: "call", kind: .amount(1)), toJSON: Array(json.utf8)),
                   as: UTF8.self)
        }
        #expect(try appended("{}") == #"{"usage": [{"event": "call", "amount": 1}]}"#)
        #expect(try appended(#"{"usage": []}"#) == #"{"usage": [{"event": "call", "amount": 1}]}"#)
        #expect(try appended(#"{"usage": null}"#) == #"{"usage": [{"event": "call", "amount": 1}]}"#)
        #expect(try appended("{\n  \"customer\": \"c\"\n}\n") == "{\n  \"customer\": \"c\",\n  \"usage\": [{\"event\": \"call\", \"amount\": 1}]\n}\n")
        #expect(throws: StateError(path: "1:1", message: "invalid JSON: the state must be a JSON object")) { try appended("[]") }
        // What it wrote decodes to the state with the record appended.
        let bytes = try PurchaseState.appendingUsage(record, toJSON: Array(pretty.utf8))
        #expect(try PurchaseState(json: bytes).usage.last == record)
    }
}
