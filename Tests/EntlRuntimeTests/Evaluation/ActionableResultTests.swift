import EntlRuntime
import EntlTestSupport
import Testing

/// The fields an app acts on (docs/semantics.md): an entitlement's `status`, `trial_end`,
/// `display_name` and `store_product_id`; a feature's `unit` and `display_name`; and, when not
/// allowed, `unlocked_by` and `shortfall`.
@Suite struct ActionableResultTests {
    let graph = compileGraph("""
        product monthly: subscription { name "Pro (monthly)"; period month; id app_store "com.x.pro.m"; id stripe "price_m" }
        product annual: subscription { name "Pro (annual)"; period year; id app_store "com.x.pro.y" }
        product pack: consumable { id app_store "com.x.pack"; grants calls 100 }
        product legacy: non_consumable
        feature calls: metered { name "API calls"; unit "call" / "calls" }
        feature export: boolean { name "Export" }
        feature vip_lounge: boolean requires pack >= 3
        credits tokens { unit "token" / "tokens"; calls 2 = 5 }
        entitlement pro = monthly or annual { grants calls 1_000 per month; grants export }
        entitlement old_timers = legacy and not annual { grants tokens 20 }
        """)
    let now = "2026-11-22T12:00:00Z"

    func pro(_ purchases: String) throws -> EntitlementResult {
        try evaluate(graph, state(#"{"purchases": [\#(purchases)]}"#), at: now, unlock: true).entitlement("pro")
    }

    @Test func statusIsTheRepresentativesWhileActive() throws {
        let trial = try pro(#"{"product": "com.x.pro.m", "status": "trialing", "expires_at": "2026-11-29T00:00:00Z"}"#)
        #expect(trial.status == .trialing)
        #expect(trial.trialEnd == instant("2026-11-29T00:00:00Z"))
        #expect(trial.displayName == "Pro (monthly)")
        #expect(trial.storeProductID == "com.x.pro.m")
        #expect(trial.store == "app_store")
        #expect(trial.unlockedBy == nil)

        let grace = try pro(#"{"product": "price_m", "store": "stripe", "status": "past_due", "expires_at": "2026-11-20T00:00:00Z", "grace_until": "2026-11-27T00:00:00Z"}"#)
        #expect(grace.status == .pastDue)
        #expect(grace.trialEnd == nil)
        #expect(grace.storeProductID == "price_m")

        let canceled = try pro(#"{"product": "annual", "status": "canceled", "expires_at": "2027-01-01T00:00:00Z"}"#)
        #expect(canceled.status == .canceled)
        #expect(canceled.storeProductID == nil)  // named by its rule name, no store given
        #expect(try pro(#"{"product": "annual"}"#).status == .active)
    }

    @Test func statusSaysWhyWhenInactiveInOrderOfPrecedence() throws {
        let retry = try pro(#"{"product": "monthly", "status": "billing_retry"}, {"product": "annual", "status": "revoked"}"#)
        #expect(retry.status == .billingRetry)
        let revoked = try pro(#"{"product": "annual", "status": "revoked", "expires_at": "2027-01-01T00:00:00Z"}"#)
        #expect(revoked.status == .revoked)
        let expired = try pro(#"{"product": "monthly", "status": "expired", "expires_at": "2026-11-01T00:00:00Z"}"#)
        #expect(expired.status == .expired)
        #expect(expired.displayName == "Pro (monthly)")
        #expect(try pro("").status == .neverPurchased)
        #expect(try pro(#"{"product": "monthly", "status": "unknown"}"#).status == .unknown)
    }

    @Test func unlockedByListsTheProductsThatWouldAllowIt() throws {
        let e = try evaluate(graph, state(#"{"purchases": [{"product": "pack"}]}"#), at: now, unlock: true)
        #expect(try e.entitlement("pro").unlockedBy == ["monthly", "annual"])
        #expect(e.feature(1, required: 1).unlockedBy == ["monthly", "annual"])  // export
        // `pack >= 3` with one held: buying one more is not enough, so nothing single unlocks it.
        let lounge = e.feature(2, required: 1)
        #expect(lounge.decision == .denied)
        #expect(lounge.unlockedBy == [])
        // `legacy and not annual`: buying legacy unlocks; annual never would.
        #expect(e.entitlement(graph.live.entitlementIndex["old_timers"]!).unlockedBy == ["legacy"])
        // Allowed results carry none, and nothing is computed without `unlock`.
        #expect(e.feature(0, required: 50).unlockedBy == nil)
        let plain = try evaluate(graph, state(#"{"purchases": [{"product": "pack"}]}"#), at: now)
        #expect(plain.feature(1, required: 1).unlockedBy == nil)
    }

    @Test func aMeteredShortfallCountsWhatCreditsCouldPay() throws {
        // 100 calls from the pack, 40 used: 60 left. 20 tokens from legacy pay for 8 calls (2 = 5).
        let e = try evaluate(graph, state(#"""
            {"purchases": [{"product": "pack"}, {"product": "legacy"}],
             "usage": [{"feature": "calls", "amount": 40, "at": "2026-11-20T00:00:00Z"}]}
            """#), at: now, unlock: true)
        let calls = e.feature(0, required: 100)
        #expect(calls.decision == .denied)
        #expect(calls.balance == 60)
        #expect(calls.shortfall == 32)  // 100 − 60 − 8
        #expect(calls.unit == "calls")
        #expect(calls.displayName == "API calls")
        // Buying a pack (+100) or a Pro plan (+1,000 this month) would allow it.
        #expect(calls.unlockedBy == ["monthly", "annual", "pack"])
        // 68 needed: 60 direct + 8 from credits (20 tokens) — allowed, no shortfall.
        #expect(e.feature(0, required: 68).via == .credits)
        #expect(e.feature(0, required: 68).shortfall == nil)
        #expect(e.feature(0, required: 69).shortfall == 1)
        let one = try evaluate(graph, state(#"{"purchases": [{"product": "pack"}], "usage": [{"feature": "calls", "amount": 99}]}"#),
                               at: now).feature(0, required: 1)
        #expect(one.unit == "call")
        #expect(e.feature(1, required: 1).unit == nil)
    }

    @Test func theJSONCarriesTheNewFieldsInTheirPlace() throws {
        let e = try evaluate(graph, state(#"{"purchases": [{"product": "com.x.pro.m", "status": "trialing", "expires_at": "2026-11-29T00:00:00Z"}]}"#),
                             at: now, unlock: true)
        #expect(try e.entitlement("pro").json.compact == #"""
            {"kind":"entitlement","name":"pro","decision":"allowed","allowed":true,"is_active":true,"status":"trialing",\#
            "product":"monthly","display_name":"Pro (monthly)","store":"app_store","store_product_id":"com.x.pro.m",\#
            "expires_at":"2026-11-29T00:00:00Z","trial_end":"2026-11-29T00:00:00Z","will_renew":true,"in_grace_period":false,\#
            "in_billing_retry":false,"is_revoked":false,"ownership":"purchased","period":"month","is_trial":true,\#
            "unlocked_by":null,"valid_until":"2026-11-29T00:00:00Z","reason":"active through `monthly` until 2026-11-29T00:00:00Z"}
            """#)
        let lounge = e.feature(2, required: 1).json.compact
        #expect(lounge.contains(#""credit_balance":null,"shortfall":null,"unlocked_by":[],"valid_until":null"#))
    }

    @Test func theEvaluatorAnswersWhatAPaywallShows() throws {
        let evaluator = Evaluator(graph: graph, tracker: JSONPurchaseTracker(state(#"{"purchases": [{"product": "pack"}]}"#)))
        #expect(try evaluator.unlockingProducts(feature: "export", at: instant(now)) == ["monthly", "annual"])
        #expect(try evaluator.unlockingProducts(feature: "calls", requiredBalance: 50, at: instant(now)) == nil)
        #expect(try evaluator.unlockingProducts(feature: "calls", requiredBalance: 150, at: instant(now)) == ["monthly", "annual", "pack"])
    }
}
