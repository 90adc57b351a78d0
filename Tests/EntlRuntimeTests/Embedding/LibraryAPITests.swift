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

    @Test func aReasonIsFormedWhenReadAndComparedByItsText() throws {
        let fixed: Reason = "no purchase"
        let text = Reason("no purchase")
        let formed = Reason(formed: { "no " + "purchase" })
        #expect(fixed == text && text == formed && formed.description == "no purchase")
        #expect(Reason("no purchase") != Reason("no purchases"))
        let e = try evaluate(graph, state(#"{"purchases": [{"product": "lifetime"}]}"#), at: "2026-06-10T00:00:00Z")
        var r = try e.feature("export")
        #expect(r.reason == "granted by entitlement `premium` (lifetime)")
        #expect(r.why == Reason("granted by entitlement `premium` (lifetime)"))
        r.reason = "changed"
        #expect(r.why.description == "changed" && r.reason == "changed")
    }

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

    /// A use recorded through `Evaluator.consume` reaches the state's observers (with the record)
    /// and the evaluator's own cache (its next answer counts the use); a retry changes nothing.
    @Test func aRecordedUseReachesEveryObserver() throws {
        let tracker = JSONPurchaseTracker(state(#"{"purchases": [{"product": "pro"}]}"#))
        let evaluator = Evaluator(graph: graph, tracker: tracker)
        let before = try #require(try evaluator.entitled(feature: "api_calls", at: at).balance)
        let seen = LockedBox<[Int]>([])
        let observation = tracker.observe { state in seen.mutate { $0.append(state.usage.count) } }
        #expect(try evaluator.consume(feature: "api_calls", amount: 5, id: "a", at: at).allowed)
        #expect(try evaluator.consume(feature: "api_calls", amount: 5, id: "a", at: at).replayed)
        observation.cancel()
        #expect(try evaluator.consume(feature: "api_calls", amount: 1, at: at).allowed)
        #expect(seen.value == [1])
        #expect(try evaluator.entitled(feature: "api_calls", at: at).balance == before - 6)
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

/// The evaluator's cache answers exactly what a fresh evaluation would.
@Suite struct EvaluatorCacheTests {
    static let rules = """
    product pro: subscription { period month }
    feature calls: metered
    entitlement e = pro { grants calls 10 per day }
    """

    @Test func cachedAnswersEqualFreshOnesAtEveryInstant() throws {
        let graph = compileGraph(EvaluatorCacheTests.rules)
        let tracker = JSONPurchaseTracker(state(#"""
            {"purchases": [{"product": "pro", "purchased_at": "2026-11-01T00:00:00Z", "expires_at": "2026-11-05T06:00:00Z"}],
             "usage": [{"feature": "calls", "amount": 4, "at": "2026-11-03T10:00:00Z"}]}
            """#))
        let evaluator = Evaluator(graph: graph, tracker: tracker)
        // Walk forward and back over the days, every 97 minutes: cache hits and misses alike.
        var t = instant("2026-11-02T00:00:00Z").seconds
        let times = (0..<120).map { i in i % 7 == 6 ? t - 86_400 : { t += 97 * 60; return t }() }
        for seconds in times {
            let at = Instant(seconds: seconds)
            let fresh = try Evaluation(graph: graph, state: tracker.snapshot, at: at)
            #expect(try evaluator.entitled(feature: "calls", at: at) == fresh.feature("calls"))
            #expect(try evaluator.entitlement("e", at: at) == fresh.entitlement("e"))
            #expect(try evaluator.entitled(product: "pro", at: at) == fresh.product("pro"))
        }
    }

    @Test func aTrackerChangeDropsTheCache() throws {
        let graph = compileGraph(EvaluatorCacheTests.rules)
        let tracker = JSONPurchaseTracker()
        let evaluator = Evaluator(graph: graph, tracker: tracker)
        let at = instant("2026-11-02T00:00:00Z")
        #expect(try !evaluator.entitled(feature: "calls", at: at).allowed)
        tracker.modify { $0.purchases.append(Purchase(product: "pro")) }
        #expect(try evaluator.entitled(feature: "calls", at: at).balance == 10)
        tracker.modify { $0.usage.append(UsageRecord(feature: "calls", kind: .amount(3))) }
        #expect(try evaluator.entitled(feature: "calls", at: at).balance == 7)
        #expect(try evaluator.entitled(feature: "calls", requiredBalance: 8, at: at).allowed == false)
    }
}

/// Ids resolved once (`Evaluator.feature(named:)`, `entlc gen swift`) answer as names do, stale or not.
@Suite struct FeatureIDTests {
    static let rules = """
    product pro: subscription { period month }
    feature calls: metered
    feature export: boolean
    entitlement e = pro { grants calls 10 per day
      grants export }
    """

    @Test func idsAnswerAsTheirNamesEvenWhenMadeForOtherRules() throws {
        let graph = compileGraph(FeatureIDTests.rules)
        let tracker = JSONPurchaseTracker(state(#"""
            {"purchases": [{"product": "pro", "purchased_at": "2026-11-01T00:00:00Z", "expires_at": "2026-12-01T00:00:00Z"}],
             "usage": [{"feature": "calls", "amount": 4, "at": "2026-11-03T10:00:00Z"}]}
            """#))
        let evaluator = Evaluator(graph: graph, tracker: tracker)
        let at = instant("2026-11-03T12:00:00Z")
        let calls = try #require(evaluator.feature(named: "calls"))
        #expect(calls == FeatureID(name: "calls", index: 0))
        #expect(evaluator.feature(named: "export") == FeatureID(name: "export", index: 1))
        #expect(evaluator.feature(named: "nothing") == nil)
        // An index naming another feature, or none: resolved by the name.
        for id in [calls, FeatureID(name: "calls", index: 1), FeatureID(name: "calls", index: 7),
                   FeatureID(name: "calls", index: -3)] {
            for amount: Int64 in [1, 6, 7] {
                let typed = try evaluator.entitled(id, requiredBalance: amount, at: at)
                #expect(typed == (try evaluator.entitled(feature: "calls", requiredBalance: amount, at: at)))
                #expect(typed.allowed == (amount <= 6))
            }
        }
        #expect(try evaluator.entitled(FeatureID(name: "export", index: 0), at: at).allowed)
        #expect(throws: EvaluationError.self) { try evaluator.entitled(FeatureID(name: "nothing", index: 0), at: at) }
    }

    @Test func manyAmountsOfOneFeatureStayExact() throws {
        let graph = compileGraph(FeatureIDTests.rules)
        let tracker = JSONPurchaseTracker(state(#"{"purchases": [{"product": "pro", "expires_at": "2026-12-01T00:00:00Z"}]}"#))
        let evaluator = Evaluator(graph: graph, tracker: tracker)
        let at = instant("2026-11-03T12:00:00Z")
        let fresh = try Evaluation(graph: graph, state: tracker.snapshot, at: at)
        // More amounts than a cache slot keeps, asked over and over in turn.
        for round in 0..<3 {
            for amount in Int64(1)...Int64(20) {
                let cached = try evaluator.entitled(feature: "calls", requiredBalance: amount, at: at)
                #expect(cached == (try fresh.feature("calls", required: amount)), "round \(round), amount \(amount)")
            }
        }
    }
}

/// The two renderings of a result shape (tree and direct bytes) are the same bytes.
@Suite struct ResultRenderingTests {
    @Test(arguments: ["photos", "api", "subscriptions", "crossplatform"])
    func bytesEqualTheCompactTree(_ name: String) throws {
        let graph = compileGraph(try readRepoFile("examples/\(name).entl"))
        let s = try PurchaseState(json: Array(try readRepoFile("examples/\(name).state.json").utf8))
        let e = try Evaluation(graph: graph, state: s, at: s.now!, explain: true)
        let results = e.all()
        var bytes: [UInt8] = []
        e.writeJSONLine(results, into: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == e.json(results).compact)
    }

    /// The batch's line of one product, entitlement or feature (no array, no `EvaluationResult`) is
    /// the line of that result alone in an array, warnings and all; its `--all` line, each result
    /// written as it is answered, is the line of the array `all()`.
    @Test(arguments: ["photos", "api", "subscriptions", "crossplatform"])
    func batchLinesEqualTheArrayLines(_ name: String) throws {
        let graph = compileGraph(try readRepoFile("examples/\(name).entl"))
        let s = try PurchaseState(json: Array(try readRepoFile("examples/\(name).state.json").utf8))
        let e = try Evaluation(graph: graph, state: s, at: s.now!, explain: true)
        var checked = 0
        for result in e.all() {
            var one = JSONBytes(), array = JSONBytes()
            switch result {
            case .entitlement(let r): e.writeJSONLine(r, warnings: e.warnings, into: &one)
            case .feature(let r): e.writeJSONLine(r, warnings: e.warnings, into: &one)
            case .product(let r): e.writeJSONLine(r, warnings: e.warnings, into: &one)
            }
            e.writeJSONLine([result], warnings: e.warnings, into: &array)
            let (a, b) = (one.withBytes { Array($0) }, array.withBytes { Array($0) })
            #expect(a == b, "\(name): \(String(decoding: a, as: UTF8.self))")
            #expect(a.last == UInt8(ascii: "\n"))
            checked += 1
        }
        #expect(checked >= 3)
        var streamed = JSONBytes(), array = JSONBytes()
        e.writeAllJSONLine(warnings: e.warnings, into: &streamed)
        e.writeJSONLine(e.all(), warnings: e.warnings, into: &array)
        #expect(streamed.withBytes { Array($0) } == array.withBytes { Array($0) })
    }
}
