import Dispatch
import Foundation
import EntlRuntime
import EntlTestSupport
import Testing

/// docs/semantics.md §7: change events, between two states and over time.
@Suite struct ChangesTests {
    static let rules = """
    product pro: subscription { period month }
    feature export: boolean
    feature calls: metered
    entitlement premium = pro {
      grants export
      grants calls 100 per month
    }
    """
    let graph = compileGraph(ChangesTests.rules)
    let t = "2026-11-22T12:00:00Z"

    func events(_ old: String, _ new: String) throws -> [String] {
        let at = instant(t)
        let before = try Evaluation(graph: graph, state: state(old), at: at).all()
        let after = try Evaluation(graph: graph, state: state(new), at: at).all()
        return Changes.between(before, after, at: at).map(\.description)
    }

    let active = #"{"purchases": [{"product": "pro", "purchased_at": "2026-11-05T00:00:00Z", "expires_at": "2026-12-05T00:00:00Z"}]}"#

    @Test func aPurchaseActivatesUnlocksAndSetsTheBalance() throws {
        #expect(try events("{}", active) == [
            #"{"event":"entitlement_activated","name":"premium","at":"2026-11-22T12:00:00Z"}"#,
            #"{"event":"feature_unlocked","name":"export","at":"2026-11-22T12:00:00Z"}"#,
            #"{"event":"feature_unlocked","name":"calls","at":"2026-11-22T12:00:00Z"}"#,
            #"{"event":"balance_changed","name":"calls","at":"2026-11-22T12:00:00Z","old_balance":0,"new_balance":100}"#,
        ])
    }

    @Test func aRefundLocksEverything() throws {
        let refunded = #"{"purchases": [{"product": "pro", "status": "revoked", "purchased_at": "2026-11-05T00:00:00Z"}]}"#
        let at = instant(t)
        let before = try Evaluation(graph: graph, state: state(active), at: at).all()
        let after = try Evaluation(graph: graph, state: state(refunded), at: at).all()
        let events = Changes.between(before, after, at: at)
        #expect(events.map { "\($0.kind.rawValue) \($0.name)" } == [
            "entitlement_deactivated premium", "entitlement_revoked premium", "feature_locked export", "feature_locked calls",
            "balance_changed calls",
        ])
        #expect((events[4].oldBalance, events[4].newBalance) == (100, 0))
    }

    @Test func usingABalance() throws {
        let used = #"{"purchases": [{"product": "pro", "purchased_at": "2026-11-05T00:00:00Z", "expires_at": "2026-12-05T00:00:00Z"}], "usage": [{"feature": "calls", "amount": 30}]}"#
        #expect(try events(active, used) == [
            #"{"event":"balance_changed","name":"calls","at":"2026-11-22T12:00:00Z","old_balance":100,"new_balance":70}"#,
        ])
    }

    /// A renewal changes no access and no balance: only the lifecycle event says it happened.
    @Test func aRenewalIsOnlyALifecycleEvent() throws {
        let renewed = #"{"purchases": [{"product": "pro", "purchased_at": "2026-11-05T00:00:00Z", "expires_at": "2027-01-05T00:00:00Z"}]}"#
        #expect(try events(active, renewed).map { String($0.prefix(31)) } == [#"{"event":"entitlement_renewed","#])
    }

    func timeline(_ json: String, _ from: String, _ to: String) throws -> [String] {
        try Changes.timeline(graph: graph, state: state(json), from: instant(from), to: instant(to)).map(\.description)
    }

    @Test func expiryAndResetOverTime() throws {
        let s = #"""
            {"purchases": [{"product": "pro", "status": "canceled", "purchased_at": "2026-10-05T00:00:00Z", "expires_at": "2026-12-05T00:00:00Z"}],
             "usage": [{"feature": "calls", "amount": 40, "at": "2026-10-20T00:00:00Z"}, {"feature": "calls", "amount": 10, "at": "2026-11-10T00:00:00Z"}]}
            """#
        #expect(try timeline(s, "2026-10-25T00:00:00Z", "2026-12-31T00:00:00Z") == [
            // The monthly reset on Nov 5 brings the balance back; the use on Nov 10 takes 10.
            #"{"event":"balance_changed","name":"calls","at":"2026-11-05T00:00:00Z","old_balance":60,"new_balance":100}"#,
            #"{"event":"balance_changed","name":"calls","at":"2026-11-10T00:00:00Z","old_balance":100,"new_balance":90}"#,
            // The canceled subscription runs to the end of its period.
            #"{"event":"entitlement_deactivated","name":"premium","at":"2026-12-05T00:00:00Z"}"#,
            #"{"event":"feature_locked","name":"export","at":"2026-12-05T00:00:00Z"}"#,
            #"{"event":"feature_locked","name":"calls","at":"2026-12-05T00:00:00Z"}"#,
            #"{"event":"balance_changed","name":"calls","at":"2026-12-05T00:00:00Z","old_balance":90,"new_balance":0}"#,
        ])
    }

    @Test func theGracePeriodEnds() throws {
        let s = #"{"purchases": [{"product": "pro", "status": "past_due", "expires_at": "2026-11-20T00:00:00Z", "grace_until": "2026-11-27T00:00:00Z"}]}"#
        let events = try timeline(s, "2026-11-22T00:00:00Z", "2026-11-30T00:00:00Z")
        #expect(events.first == #"{"event":"entitlement_deactivated","name":"premium","at":"2026-11-27T00:00:00Z"}"#)
        #expect(events.count == 4)
    }

    /// Grants no purchase is behind start at `customer_since`: a timeline across it reports what
    /// they give there (it had stepped over it, and every later event of them was off).
    @Test func theCustomersStartIsAChange() throws {
        let graph = compileGraph("feature summaries: metered\nentitlement free = everyone { grants summaries 3 per week }")
        let s = state(#"{"customer_since": "2026-11-10T04:00:00Z"}"#)
        let events = try Changes.timeline(graph: graph, state: s, from: instant("2026-11-09T00:00:00Z"),
                                          to: instant("2026-11-11T00:00:00Z")).map(\.description)
        #expect(events.contains(
            #"{"event":"balance_changed","name":"summaries","at":"2026-11-10T04:00:00Z","old_balance":0,"new_balance":3}"#),
                "\(events)")
    }

    @Test func aDatedPurchaseStartsByItself() throws {
        let s = #"{"purchases": [{"product": "pro", "purchased_at": "2026-12-01T00:00:00Z"}]}"#
        #expect(try timeline(s, "2026-11-22T00:00:00Z", "2026-12-02T00:00:00Z").first
            == #"{"event":"entitlement_activated","name":"premium","at":"2026-12-01T00:00:00Z"}"#)
    }

    /// Window boundaries that renew a balance to the same amount are not changes, and stepping
    /// over them costs nothing: ten weeks of a `per minute` grant (100,800 windows).
    @Test func boundariesThatChangeNothingAreSteppedOver() throws {
        let g = compileGraph("product p: non_consumable\nfeature f: metered\nentitlement e = p { grants f 5 per minute }")
        let bought = #"{"product": "p", "purchased_at": "2026-01-01T00:00:00Z"}"#
        let idle = state(#"{"purchases": [\#(bought)]}"#)
        #expect(try Changes.timeline(graph: g, state: idle, from: instant("2026-01-01T00:00:00Z"),
                                     to: instant("2026-03-12T00:00:00Z"), maxSteps: 3) == [])
        // A use inside the span: the balance drops, and the next boundary restores it, once.
        let used = state(#"{"purchases": [\#(bought)], "usage": [{"feature": "f", "amount": 2, "at": "2026-02-01T10:00:30Z"}]}"#)
        #expect(try Changes.timeline(graph: g, state: used, from: instant("2026-01-01T00:00:00Z"),
                                     to: instant("2026-03-12T00:00:00Z"), maxSteps: 3).map(\.description) == [
            #"{"event":"balance_changed","name":"f","at":"2026-02-01T10:00:30Z","old_balance":5,"new_balance":3}"#,
            #"{"event":"balance_changed","name":"f","at":"2026-02-01T10:01:00Z","old_balance":3,"new_balance":5}"#,
        ])
        // A capped carry grows to its cap, then renews itself.
        let capped = compileGraph("product p: non_consumable\nfeature f: metered\nentitlement e = p { grants f 5 per minute carry up to 10 }")
        #expect(try Changes.timeline(graph: capped, state: idle, from: instant("2026-01-01T00:00:00Z"),
                                     to: instant("2026-03-12T00:00:00Z"), maxSteps: 3).map(\.description) == [
            #"{"event":"balance_changed","name":"f","at":"2026-01-01T00:01:00Z","old_balance":5,"new_balance":10}"#,
            #"{"event":"balance_changed","name":"f","at":"2026-01-01T00:02:00Z","old_balance":10,"new_balance":15}"#,
        ])
    }

    @Test func spansAreBoundedAndOrdered() {
        // An uncapped carry changes the balance at every boundary: each one is a change.
        let g = compileGraph("product p: non_consumable\nfeature f: metered\nentitlement e = p { grants f 1 per minute carry }")
        let s = state(#"{"purchases": [{"product": "p", "purchased_at": "2020-01-01T00:00:00Z"}]}"#)
        #expect(throws: EvaluationError("more than 50 changes between 2020-01-01T00:00:00Z and 2021-01-01T00:00:00Z; choose a shorter span")) {
            try Changes.timeline(graph: g, state: s, from: instant("2020-01-01T00:00:00Z"), to: instant("2021-01-01T00:00:00Z"),
                                 maxSteps: 50)
        }
        #expect(throws: EvaluationError("the start 2021-01-01T00:00:00Z is after the end 2020-01-01T00:00:00Z")) {
            try Changes.timeline(graph: g, state: s, from: instant("2021-01-01T00:00:00Z"), to: instant("2020-01-01T00:00:00Z"))
        }
    }
}

/// The monitor: re-evaluates on tracker changes, delivers events, reports the next change.
@Suite struct EntitlementMonitorTests {
    let graph = compileGraph(ChangesTests.rules)

    /// A tracker whose first read lets another change land just after it: a refund made while the
    /// monitor is being built, between its first evaluation and its observation.
    final class RefundedWhileRead: PurchaseTracker, @unchecked Sendable {
        let base: JSONPurchaseTracker
        var reads = 0
        init(_ base: JSONPurchaseTracker) { self.base = base }
        var snapshot: PurchaseState {
            let state = base.snapshot
            reads += 1
            if reads == 1 { base.modify { $0.purchases[0].status = .revoked } }
            return state
        }
        func observe(_ handler: @escaping @Sendable (PurchaseState) -> Void) -> TrackerObservation {
            base.observe(handler)
        }
    }

    /// The refund is seen: the monitor reads the tracker again once it observes it (a review: it
    /// had shown the refunded access for good, no event delivered).
    @Test func aChangeWhileTheMonitorIsBuiltIsSeen() throws {
        let tracker = RefundedWhileRead(JSONPurchaseTracker(PurchaseState(purchases: [
            Purchase(product: "pro", purchasedAt: instant("2026-11-05T00:00:00Z"),
                     expiresAt: instant("2026-12-05T00:00:00Z")),
        ])))
        let evaluator = Evaluator(graph: graph, tracker: tracker)
        let monitor = try EntitlementMonitor(evaluator: evaluator, clock: { instant("2026-11-22T12:00:00Z") })
        let premium = monitor.results.compactMap { if case .entitlement(let e) = $0, e.name == "premium" { e } else { nil } }
        #expect(premium.map(\.allowed) == [false])
        #expect(try evaluator.entitlement("premium", at: instant("2026-11-22T12:00:00Z")).allowed == false)
    }

    @Test func deliversEventsToCallbacksAndTheStream() async throws {
        let tracker = JSONPurchaseTracker()
        let now = LockedBox(instant("2026-11-22T12:00:00Z"))
        let monitor = try EntitlementMonitor(evaluator: Evaluator(graph: graph, tracker: tracker), clock: { now.value })
        #expect(monitor.nextChange == nil)
        let seen = LockedBox<[[String]]>([])
        let observation = monitor.onChange { batch in seen.mutate { $0.append(batch.map { "\($0.kind.rawValue) \($0.name)" }) } }

        tracker.modify {
            $0.purchases.append(Purchase(product: "pro", purchasedAt: instant("2026-11-05T00:00:00Z"),
                                         expiresAt: instant("2026-12-05T00:00:00Z")))
        }
        #expect(seen.value.count == 1)
        #expect(seen.value.first?.prefix(2) == ["entitlement_activated premium", "feature_unlocked export"])
        #expect(monitor.nextChange == instant("2026-12-05T00:00:00Z"))

        tracker.modify { $0.usage.append(UsageRecord(feature: "calls", kind: .amount(25))) }
        #expect(seen.value.last == ["balance_changed calls"])

        // Time passes: the app refreshes at nextChange.
        now.mutate { $0 = instant("2026-12-05T00:00:00Z") }
        let expired = try monitor.refresh()
        #expect(expired.map(\.kind).first == .entitlementDeactivated)
        observation.cancel()
        tracker.update(PurchaseState())  // no callback after cancel
        #expect(seen.value.count == 3)

        var streamed: [String] = []
        for await event in monitor.events {
            streamed.append(event.kind.rawValue)
            if streamed.count == 9 { break }
        }
        #expect(streamed.first == "entitlement_activated")
        #expect(streamed.contains("balance_changed"))
    }

    /// Changes from several threads at once (consumes): once they are all made, the monitor shows
    /// the state as it is, and a handler that refreshes from inside its callback does not block.
    /// (Two refreshes at once had let the older evaluation be kept last: in 2–3 rounds of 200, a
    /// balance of 10 shown after it had reached 0.)
    @Test func concurrentChangesLeaveTheLatestResults() throws {
        let graph = compileGraph("product pack: consumable { grants calls 1 }\nfeature calls: metered")
        let at = instant("2026-11-10T00:00:00Z")
        for round in 0..<400 {
            let tracker = JSONPurchaseTracker(PurchaseState(purchases: [
                Purchase(product: "pack", purchasedAt: instant("2026-11-01T00:00:00Z"), quantity: 40)]))
            let evaluator = Evaluator(graph: graph, tracker: tracker)
            let monitor = try EntitlementMonitor(evaluator: evaluator, clock: { at })
            // In some rounds a handler refreshes from inside its callback: it must not block.
            let observation = round % 4 == 0 ? monitor.onChange { _ in _ = try? monitor.refresh() } : nil
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for _ in 0..<10 { _ = try? evaluator.consume(feature: "calls", amount: 1, at: at) }
            }
            observation?.cancel()
            let truth = try Evaluation(graph: graph, state: tracker.snapshot, at: at).feature("calls")
            #expect(truth.balance == 0)
            #expect(monitor.results.compactMap { if case .feature(let f) = $0 { f } else { nil } } == [truth])
        }
    }

    /// A pack of `units` calls.
    static func pack(_ units: Int64, override: String? = nil) -> PurchaseState {
        var state = PurchaseState(purchases: [Purchase(product: "pack", purchasedAt: instant("2026-11-01T00:00:00Z"),
                                                       quantity: units)])
        if let override { state.setOverride(override, .purchased) }
        return state
    }

    /// A monitor of a pack of 40 calls; then a refresh reads `first` and is held back, while the
    /// state becomes a pack of 38 and a second refresh is asked for (it returns nothing: the first
    /// makes it); then the first goes on. The monitor, once both are done.
    static func heldRefresh(first: PurchaseState) throws -> EntitlementMonitor {
        let graph = compileGraph("product pack: consumable { grants calls 1 }\nfeature calls: metered")
        let tracker = GatedTracker(pack(40))
        let monitor = try EntitlementMonitor(evaluator: Evaluator(graph: graph, tracker: tracker),
                                             clock: { instant("2026-11-10T00:00:00Z") })
        tracker.set(first)
        tracker.holdNextRead()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? monitor.refresh()
            done.signal()
        }
        tracker.waitUntilHeld()  // the first refresh has read `first`, and waits
        tracker.set(pack(38))
        #expect(try monitor.refresh().isEmpty)  // made by the first, after it
        tracker.release()
        done.wait()
        return monitor
    }

    static func balances(_ monitor: EntitlementMonitor) -> [Int64?] {
        monitor.results.compactMap { result -> Int64?? in
            if case .feature(let f) = result { return .some(f.balance) }
            return nil
        }
    }

    /// The order made certain: a refresh whose read of the state is held back while a later one
    /// is asked for. The later one is made by the first, after it, so the results are the newest
    /// state's (they had been the held-back evaluation's, kept last).
    @Test func aRefreshHeldBackDoesNotOverwriteALaterOne() throws {
        #expect(Self.balances(try Self.heldRefresh(first: Self.pack(39))) == [38])
    }

    /// A refresh asked for while one runs whose evaluation fails is still made: the failure is
    /// `lastError`, and the results are the later state's (the request had been left for no one).
    @Test func aRefreshAskedForWhileAFailingOneRunsIsMade() throws {
        let monitor = try Self.heldRefresh(first: Self.pack(39, override: "nope"))
        #expect(Self.balances(monitor) == [38])
        #expect(monitor.lastError == EvaluationError("overrides.nope: no product `nope` in environment live"))
    }

    @Test func evaluationErrorsFromTrackerChangesAreKept() throws {
        let tracker = JSONPurchaseTracker()
        let monitor = try EntitlementMonitor(evaluator: Evaluator(graph: graph, tracker: tracker), clock: { instant("2026-11-22T12:00:00Z") })
        tracker.modify { $0.setOverride("nope", .purchased) }
        #expect(monitor.lastError == EvaluationError("overrides.nope: no product `nope` in environment live"))
    }
}

/// A tracker whose next read of the state can be held back (after the state is read) until
/// released: two refreshes in a chosen order.
private final class GatedTracker: PurchaseTracker, @unchecked Sendable {
    private let lock = NSLock()
    private var state: PurchaseState
    private var hold = false
    private let held = DispatchSemaphore(value: 0), gate = DispatchSemaphore(value: 0)

    init(_ state: PurchaseState) { self.state = state }

    var snapshot: PurchaseState {
        lock.lock()
        let (value, wait) = (state, hold)
        hold = false
        lock.unlock()
        if wait {
            held.signal()
            gate.wait()
        }
        return value
    }

    func set(_ new: PurchaseState) { lock.withLock { state = new } }
    func holdNextRead() { lock.withLock { hold = true } }
    func waitUntilHeld() { held.wait() }
    func release() { gate.signal() }

    func observe(_ handler: @escaping @Sendable (PurchaseState) -> Void) -> TrackerObservation {
        TrackerObservation {}
    }
}
