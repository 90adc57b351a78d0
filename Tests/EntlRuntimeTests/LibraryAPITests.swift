import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// The embedding API: trackers, the debug tracker, the evaluator, and a graph loaded without
/// the compiler.
@Suite struct LibraryAPITests {
    static let rules = """
    product pro: subscription { period month; id app_store "com.x.pro" }
    product lifetime: non_consumable
    feature api_calls: metered { unit "call" / "calls" }
    feature export: boolean
    entitlement premium = pro or lifetime {
      grants export
      grants api_calls 100 per month
    }
    """
    let graph = compileGraph(LibraryAPITests.rules)
    let at = instant("2026-06-10T00:00:00Z")

    @Test func evaluatorAnswersFromTheTrackersSnapshot() throws {
        let tracker = try JSONPurchaseTracker(json: Array(#"""
            {"purchases": [{"product": "com.x.pro", "store": "app_store", "purchased_at": "2026-06-01T00:00:00Z",
                            "expires_at": "2026-07-01T00:00:00Z"}],
             "usage": [{"feature": "api_calls", "amount": 30, "at": "2026-06-05T00:00:00Z"}]}
            """#.utf8))
        let evaluator = Evaluator(graph: graph, tracker: tracker)
        let calls = try evaluator.entitled(feature: "api_calls", requiredBalance: 70, at: at)
        #expect(calls.allowed)
        #expect(calls.balance == 70)
        #expect(calls.validUntil == instant("2026-07-01T00:00:00Z"))
        #expect(try evaluator.entitled(product: "pro", at: at).allowed)
        #expect(try evaluator.entitlement("premium", at: at).expiresAt == instant("2026-07-01T00:00:00Z"))
        #expect(try evaluator.evaluateAll(at: at).map(\.decision) == [.allowed, .denied, .allowed, .allowed, .allowed])
        #expect(throws: EvaluationError("unknown product `pr`")) { try evaluator.entitled(product: "pr", at: at) }
    }

    @Test func trackersNotifyObserversUntilCancelled() throws {
        let tracker = JSONPurchaseTracker()
        let seen = LockedBox<[Int]>([])
        let observation = tracker.observe { state in seen.mutate { $0.append(state.purchases.count) } }
        tracker.modify { $0.purchases.append(Purchase(product: "lifetime")) }
        try tracker.update(json: Array(#"{"purchases": [{"product": "pro"}, {"product": "lifetime"}]}"#.utf8))
        observation.cancel()
        tracker.update(PurchaseState())
        #expect(seen.value == [1, 2])
        let evaluator = Evaluator(graph: graph, tracker: tracker)
        #expect(try !evaluator.entitled(feature: "export", at: at).allowed)
    }

    @Test func debugTrackerOverridesProducts() throws {
        let base = JSONPurchaseTracker(PurchaseState(purchases: [Purchase(product: "pro", status: .expired)]))
        let debug = DebugPurchaseTracker(wrapping: base)
        let evaluator = Evaluator(graph: graph, tracker: debug)
        let changes = LockedBox(0)
        let observation = debug.observe { _ in changes.mutate { $0 += 1 } }
        #expect(try evaluator.entitlement("premium", at: at).decision == .denied)
        debug.override("lifetime", .purchased)
        #expect(try evaluator.entitlement("premium", at: at).decision == .allowed)
        debug.override("lifetime", .unknown)
        #expect(try evaluator.entitlement("premium", at: at).decision == .undetermined)
        base.modify { $0.purchases = [Purchase(product: "pro")] }  // the wrapped tracker changes too
        #expect(try evaluator.entitlement("premium", at: at).decision == .allowed)
        debug.clearOverrides()
        #expect(debug.currentOverrides.isEmpty)
        #expect(changes.value == 4)
        observation.cancel()
    }

    @Test func aCompiledGraphRoundTripsThroughJSON() throws {
        let data = try JSONEncoder().encode(graph)
        let loaded = try JSONDecoder().decode(RuleGraph.self, from: data)
        let s = state(#"{"purchases": [{"product": "com.x.pro"}], "usage": [{"feature": "api_calls", "amount": 5}]}"#)
        let a = try Evaluation(graph: graph, state: s, at: at).all()
        let b = try Evaluation(graph: loaded, state: s, at: at).all()
        #expect(a == b)
        #expect(loaded.live.productIndex == graph.live.productIndex)
        #expect(loaded.formatVersion == RuleGraph.formatVersion)
    }

    @Test func sameInputsGiveByteIdenticalJSON() throws {
        let s = state(#"{"customer": "c", "purchases": [{"product": "pro"}], "usage": [{"feature": "api_calls", "amount": 5}]}"#)
        let one = try Evaluation(graph: graph, state: s, at: at)
        let two = try Evaluation(graph: graph, state: s, at: at)
        #expect(one.json(one.all()).compact == two.json(two.all()).compact)
    }
}

/// A small thread-safe box for observer callbacks in tests.
final class LockedBox<T>: @unchecked Sendable {
    private var stored: T
    private let lock = NSLock()

    init(_ value: T) { stored = value }

    var value: T { lock.withLock { stored } }

    func mutate(_ body: (inout T) -> Void) { lock.withLock { body(&stored) } }
}
