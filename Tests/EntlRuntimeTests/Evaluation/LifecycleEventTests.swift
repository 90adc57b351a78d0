import EntlRuntime
import EntlTestSupport
import Testing

/// §7 lifecycle events: what happened to the purchase behind an active entitlement, each from a
/// pair of states evaluated at the same instant.
@Suite struct LifecycleEventTests {
    let graph = compileGraph("""
        product monthly: subscription { period month; id app_store "com.x.m" }
        product annual: subscription { period year; id app_store "com.x.y" }
        feature export: boolean
        entitlement pro = monthly or annual { grants export }
        """)
    let now = "2026-11-22T12:00:00Z"

    func events(_ before: String, _ after: String) throws -> [String] {
        let old = try evaluate(graph, state(#"{"purchases": [\#(before)]}"#), at: now).all()
        let new = try evaluate(graph, state(#"{"purchases": [\#(after)]}"#), at: now).all()
        return Changes.between(old, new, at: instant(now)).map(\.json.compact)
    }

    static let monthly = #"{"product": "com.x.m", "store": "app_store", "purchased_at": "2026-10-05T00:00:00Z", "#

    /// From a purchase onto a grant of the state (a promotion) and back, active throughout: what
    /// represents it changed, and says so (a review: no event at all).
    @Test func fromAPurchaseOntoAPromotionAndBackIsAProductChange() throws {
        let promo = #""grants": [{"entitlement": "pro", "from": "2026-11-20T00:00:00Z", "until": "2026-11-28T00:00:00Z"}]"#
        let bought = try evaluate(graph, state(#"{"purchases": [\#(Self.monthly)"expires_at": "2026-12-05T00:00:00Z"}], "#
                                               + promo + "}"), at: now).all()
        let granted = try evaluate(graph, state("{" + promo + "}"), at: now).all()
        let kinds = { (events: [ChangeEvent]) in events.map { "\($0.kind.rawValue) \($0.oldProduct ?? "-")" } }
        #expect(kinds(Changes.between(bought, granted, at: instant(now))) == ["product_changed monthly"])
        #expect(kinds(Changes.between(granted, bought, at: instant(now))) == ["product_changed -"])
    }

    @Test func aRenewalMovesExpiresAtLater() throws {
        let e = try events(Self.monthly + #""expires_at": "2026-12-05T00:00:00Z"}"#, Self.monthly + #""period_start": "2026-12-05T00:00:00Z", "expires_at": "2027-01-05T00:00:00Z"}"#)
        #expect(e == [#"{"event":"entitlement_renewed","name":"pro","at":"2026-11-22T12:00:00Z","status":"active","product":"monthly","store_product_id":"com.x.m","expires_at":"2027-01-05T00:00:00Z","will_renew":true}"#])
    }

    @Test func cancellingAndUncancellingFlipWillRenew() throws {
        let active = Self.monthly + #""expires_at": "2026-12-05T00:00:00Z"}"#
        let canceled = Self.monthly + #""status": "canceled", "will_renew": false, "expires_at": "2026-12-05T00:00:00Z"}"#
        #expect(try events(active, canceled) == [#"{"event":"entitlement_canceled","name":"pro","at":"2026-11-22T12:00:00Z","status":"canceled","product":"monthly","store_product_id":"com.x.m","expires_at":"2026-12-05T00:00:00Z","will_renew":false}"#])
        #expect(try events(canceled, active).map { String($0.prefix(33)) } == [#"{"event":"entitlement_uncanceled""#])
    }

    @Test func enteringAndLeavingGraceIsABillingIssueAndRecovery() throws {
        let active = Self.monthly + #""status": "active", "expires_at": "2026-11-25T00:00:00Z"}"#
        let grace = Self.monthly + #""status": "past_due", "expires_at": "2026-11-20T00:00:00Z", "grace_until": "2026-11-27T00:00:00Z"}"#
        #expect(try events(active, grace) == [#"{"event":"billing_issue","name":"pro","at":"2026-11-22T12:00:00Z","status":"past_due","product":"monthly","store_product_id":"com.x.m","expires_at":"2026-11-27T00:00:00Z","will_renew":true}"#])
        #expect(try events(grace, Self.monthly + #""expires_at": "2026-12-20T00:00:00Z"}"#)
                == [#"{"event":"entitlement_renewed","name":"pro","at":"2026-11-22T12:00:00Z","status":"active","product":"monthly","store_product_id":"com.x.m","expires_at":"2026-12-20T00:00:00Z","will_renew":true}"#,
                    #"{"event":"billing_recovered","name":"pro","at":"2026-11-22T12:00:00Z","status":"active","product":"monthly","store_product_id":"com.x.m","expires_at":"2026-12-20T00:00:00Z","will_renew":true}"#])
        // Billing retry ends access: deactivated, and why.
        #expect(try events(active, Self.monthly + #""status": "billing_retry"}"#) == [
            #"{"event":"entitlement_deactivated","name":"pro","at":"2026-11-22T12:00:00Z"}"#,
            #"{"event":"billing_issue","name":"pro","at":"2026-11-22T12:00:00Z","status":"billing_retry","product":"monthly","store_product_id":"com.x.m","expires_at":null,"will_renew":false}"#,
            #"{"event":"feature_locked","name":"export","at":"2026-11-22T12:00:00Z"}"#,
        ])
    }

    /// Each flag on its own (a review): an annual purchase left in billing retry long ago keeps
    /// `in_billing_retry` true, and hid the monthly's renewal and its grace period.
    @Test func aBillingRetryLongAgoHidesNoRenewalNorGracePeriod() throws {
        let stale = #"{"product": "com.x.y", "store": "app_store", "status": "billing_retry", "#
            + #""purchased_at": "2025-01-01T00:00:00Z", "expires_at": "2026-01-01T00:00:00Z"}, "#
        let active = stale + Self.monthly + #""expires_at": "2026-12-05T00:00:00Z"}"#
        func kinds(_ events: [String]) -> [String] { events.map { String($0.split(separator: "\"")[3]) } }
        #expect(kinds(try events(active, stale + Self.monthly + #""expires_at": "2027-01-05T00:00:00Z"}"#))
                == ["entitlement_renewed"])
        let grace = stale + Self.monthly + #""status": "past_due", "expires_at": "2026-11-20T00:00:00Z", "#
            + #""grace_until": "2026-11-27T00:00:00Z"}"#
        #expect(kinds(try events(active, grace)) == ["billing_issue"])
        #expect(kinds(try events(grace, active)) == ["entitlement_renewed", "billing_recovered"])
    }

    /// A timeline steps to the instant a purchase behind an entitlement comes to exist, also one
    /// that owns nothing: a billing retry dated in the span is a billing issue then (a review: the
    /// span said nothing, two states at the two instants said `billing_issue`).
    @Test func aTimelineSeesABillingRetryComeToExist() throws {
        let s = state(#"{"purchases": [\#(Self.monthly)"expires_at": "2026-12-31T00:00:00Z"}, "#
                      + #"{"product": "com.x.y", "store": "app_store", "status": "billing_retry", "#
                      + #""purchased_at": "2026-12-05T00:00:00Z"}]}"#)
        let events = try Changes.timeline(graph: graph, state: s, from: instant("2026-12-04T00:00:00Z"),
                                          to: instant("2026-12-06T00:00:00Z"))
        #expect(events.map(\.json.compact) == [
            #"{"event":"billing_issue","name":"pro","at":"2026-12-05T00:00:00Z","status":"active","product":"monthly","store_product_id":"com.x.m","expires_at":"2026-12-31T00:00:00Z","will_renew":true}"#,
        ])
    }

    /// The refunded purchase's `expires_at` lies after `t`: an inactive entitlement never reports
    /// an end after `t`.
    @Test func aRefundRevokes() throws {
        let e = try events(Self.monthly + #""expires_at": "2026-12-05T00:00:00Z"}"#, Self.monthly + #""status": "revoked", "expires_at": "2026-12-05T00:00:00Z"}"#)
        #expect(e == [
            #"{"event":"entitlement_deactivated","name":"pro","at":"2026-11-22T12:00:00Z"}"#,
            #"{"event":"entitlement_revoked","name":"pro","at":"2026-11-22T12:00:00Z","status":"revoked","product":"monthly","store_product_id":"com.x.m","expires_at":null,"will_renew":false}"#,
            #"{"event":"feature_locked","name":"export","at":"2026-11-22T12:00:00Z"}"#,
        ])
    }

    @Test func anUpgradeChangesTheProduct() throws {
        let e = try events(Self.monthly + #""expires_at": "2026-12-05T00:00:00Z"}"#,
                           Self.monthly + #""status": "revoked", "expires_at": "2026-12-05T00:00:00Z"}, {"product": "com.x.y", "store": "app_store", "purchased_at": "2026-11-22T11:00:00Z", "expires_at": "2027-11-22T11:00:00Z"}"#)
        #expect(e == [#"{"event":"product_changed","name":"pro","at":"2026-11-22T12:00:00Z","old_product":"monthly","status":"active","product":"annual","store_product_id":"com.x.y","expires_at":"2027-11-22T11:00:00Z","will_renew":true}"#])
    }

    @Test func theMonitorDeliversLifecycleEventsToHandlersAndTheStream() async throws {
        let tracker = JSONPurchaseTracker(state(#"{"purchases": [\#(Self.monthly)"expires_at": "2026-12-05T00:00:00Z"}]}"#))
        let monitor = try EntitlementMonitor(evaluator: Evaluator(graph: graph, tracker: tracker), clock: { instant("2026-11-22T12:00:00Z") })
        let seen = LockedBox<[String]>([])
        let observation = monitor.onChange { batch in seen.mutate { $0 += batch.map(\.kind.rawValue) } }
        tracker.modify { $0.purchases[0].willRenew = false; $0.purchases[0].status = .canceled }
        tracker.modify { $0.purchases[0].status = .pastDue; $0.purchases[0].willRenew = true; $0.purchases[0].graceUntil = instant("2026-12-10T00:00:00Z") }
        #expect(seen.value == ["entitlement_canceled", "entitlement_uncanceled", "billing_issue"])
        var streamed: [String] = []
        for await event in monitor.events {
            streamed.append(event.kind.rawValue)
            if streamed.count == seen.value.count { break }
        }
        #expect(streamed == seen.value)
        observation.cancel()
    }
}
