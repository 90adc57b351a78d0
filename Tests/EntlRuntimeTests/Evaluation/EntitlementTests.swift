import EntlRuntime
import EntlTestSupport
import Testing

/// docs/semantics.md §3: entitlements and the merge of the purchases behind them.
@Suite struct EntitlementTests {
    /// Several products granting one `premium` entitlement (the subscription-app seed).
    static let rules = """
    product monthly: subscription { period month; id app_store "m"; id stripe "price_m" }
    product annual: subscription { period year; id app_store "y" }
    product lifetime: non_consumable { id app_store "l" }
    product coins: consumable
    product banned: non_consumable
    entitlement premium = monthly or annual or lifetime
    entitlement bundle = monthly and annual
    entitlement clean = premium and not banned
    entitlement rich = coins >= 5
    """
    let graph = compileGraph(EntitlementTests.rules)
    let t = "2026-06-01T00:00:00Z"

    func premium(_ purchases: String, _ name: String = "premium", at: String? = nil) throws -> EntitlementResult {
        try evaluate(graph, state(#"{"purchases": \#(purchases)}"#), at: at ?? t).entitlement(name)
    }

    /// The store reported is the one that matched: none for a purchase naming the rule name,
    /// even when some store's id happens to equal it.
    @Test func theStoreIsTheOneThatMatched() throws {
        let graph = compileGraph("""
            product plus_monthly: subscription { period month; id app_store "com.x.plus"; id play_store "plus_monthly" }
            entitlement plus = plus_monthly
            """)
        func plus(_ purchase: String) throws -> EntitlementResult {
            try evaluate(graph, state(#"{"purchases": [\#(purchase)]}"#), at: t).entitlement("plus")
        }
        #expect(try plus(#"{"product": "plus_monthly"}"#).store == nil)
        #expect(try plus(#"{"product": "plus_monthly", "store": "play_store"}"#).store == "play_store")
        #expect(try plus(#"{"product": "com.x.plus"}"#).store == "app_store")
    }

    @Test func activeWinsOverExpired() throws {
        let r = try premium(#"""
            [{"product": "annual", "status": "expired", "expires_at": "2026-05-01T00:00:00Z"},
             {"product": "monthly", "expires_at": "2026-06-20T00:00:00Z"}]
            """#)
        #expect(r.decision == .allowed)
        #expect(r.product == "monthly")
        #expect(r.expiresAt == instant("2026-06-20T00:00:00Z"))
    }

    @Test func laterExpiryWins() throws {
        let r = try premium(#"""
            [{"product": "m", "expires_at": "2026-06-20T00:00:00Z", "store": "app_store"},
             {"product": "y", "expires_at": "2027-01-10T00:00:00Z", "store": "app_store"}]
            """#)
        #expect(r.product == "annual")
        #expect(r.store == "app_store")
        #expect(r.period == "year")
        #expect(r.expiresAt == instant("2027-01-10T00:00:00Z"))
    }

    @Test func lifetimeBeatsAll() throws {
        let r = try premium(#"""
            [{"product": "annual", "expires_at": "2027-01-10T00:00:00Z"},
             {"product": "lifetime", "purchased_at": "2020-01-01T00:00:00Z"}]
            """#)
        #expect(r.product == "lifetime")
        #expect(r.period == "lifetime")
        #expect(r.expiresAt == nil)  // no end beats any end
        #expect(!r.willRenew)
    }

    @Test func tiesGoToTheEarlierPurchaseThenDeclarationOrder() throws {
        let r = try premium(#"""
            [{"product": "annual", "expires_at": "2027-01-10T00:00:00Z", "purchased_at": "2026-02-01T00:00:00Z"},
             {"product": "monthly", "expires_at": "2027-01-10T00:00:00Z", "purchased_at": "2026-01-01T00:00:00Z"}]
            """#)
        #expect(r.product == "monthly")
        let tie = try premium(#"""
            [{"product": "annual", "expires_at": "2027-01-10T00:00:00Z"},
             {"product": "monthly", "expires_at": "2027-01-10T00:00:00Z"}]
            """#)
        #expect(tie.product == "monthly")  // declared first
    }

    @Test func endsFollowTheExpression() throws {
        // `a and b` ends at the earliest end of its parts.
        let both = try premium(#"""
            [{"product": "monthly", "expires_at": "2026-06-20T00:00:00Z"},
             {"product": "annual", "expires_at": "2027-01-10T00:00:00Z"}]
            """#, "bundle")
        #expect(both.expiresAt == instant("2026-06-20T00:00:00Z"))
        // `x and not y`: `not y` has no end, so the end is x's.
        let clean = try premium(#"[{"product": "annual", "expires_at": "2027-01-10T00:00:00Z"}]"#, "clean")
        #expect(clean.decision == .allowed)
        #expect(clean.expiresAt == instant("2027-01-10T00:00:00Z"))
        // `x >= N` has no end.
        let rich = try premium(#"[{"product": "coins", "quantity": 5}]"#, "rich")
        #expect(rich.decision == .allowed)
        #expect(rich.expiresAt == nil)
    }

    @Test func reportedFieldsOfATrialOnTheWeb() throws {
        let r = try premium(#"[{"product": "price_m", "store": "stripe", "status": "trialing", "expires_at": "2026-06-08T00:00:00Z", "ownership": "family_shared"}]"#)
        #expect(r.decision == .allowed)
        #expect(r.product == "monthly")
        #expect(r.store == "stripe")
        #expect(r.isTrial)
        #expect(r.willRenew)  // default for a trialing subscription
        #expect(r.ownership == .familyShared)
        #expect(r.period == "month")
        #expect(!r.inGracePeriod && !r.inBillingRetry && !r.isRevoked)
    }

    @Test func pastDueInGraceOnTheWeb() throws {
        let r = try premium(#"""
            [{"product": "price_m", "store": "stripe", "status": "past_due",
              "expires_at": "2026-05-30T00:00:00Z", "grace_until": "2026-06-06T00:00:00Z"}]
            """#)
        #expect(r.decision == .allowed)
        #expect(r.inGracePeriod)
        #expect(r.expiresAt == instant("2026-06-06T00:00:00Z"))  // access runs to the grace end
        #expect(r.validUntil == instant("2026-06-06T00:00:00Z"))
    }

    @Test func canceledUntilPeriodEndDoesNotRenew() throws {
        let r = try premium(#"""
            [{"product": "price_m", "store": "stripe", "status": "canceled", "expires_at": "2026-06-15T00:00:00Z"}]
            """#)
        #expect(r.decision == .allowed)
        #expect(!r.willRenew)
        #expect(r.expiresAt == instant("2026-06-15T00:00:00Z"))
    }

    @Test func inactiveReportsTheMostRecentlyEndedPurchase() throws {
        let r = try premium(#"""
            [{"product": "monthly", "status": "expired", "expires_at": "2026-03-01T00:00:00Z"},
             {"product": "annual", "status": "expired", "expires_at": "2026-05-01T00:00:00Z", "will_renew": false}]
            """#)
        #expect(r.decision == .denied)
        #expect(!r.isActive)
        #expect(r.product == "annual")
        #expect(r.expiresAt == instant("2026-05-01T00:00:00Z"))
        #expect(r.reason == "expired 2026-05-01T00:00:00Z")
    }

    @Test func billingRetryAndRevocation() throws {
        let retry = try premium(#"[{"product": "monthly", "status": "billing_retry", "expires_at": "2026-05-28T00:00:00Z"}]"#)
        #expect(retry.decision == .denied)
        #expect(retry.inBillingRetry)
        #expect(retry.reason == "a payment failed (billing retry)")
        let revoked = try premium(#"[{"product": "lifetime", "status": "revoked"}]"#)
        #expect(revoked.isRevoked)
        let stillOwned = try premium(#"[{"product": "lifetime", "status": "revoked"}, {"product": "monthly"}]"#)
        #expect(!stillOwned.isRevoked)
    }

    /// A refund that leaves another purchase owned is not a revocation (`is_revoked`: none is owned)
    /// and nothing expired: `never_purchased`, the refunded purchase reported (a review: it said
    /// `expired` — to a customer whose purchase was refunded).
    @Test func aRefundBesideAnOwnedPurchaseIsNotAnExpiry() throws {
        let graph = compileGraph("""
            product coins: consumable
            product pro: subscription { period month }
            product life: non_consumable
            entitlement rich = coins >= 3
            entitlement duo = pro and life
            """)
        let s = state(#"{"purchases": [{"product": "coins", "quantity": 1}, {"product": "coins", "quantity": 5, "status": "revoked"}, "#
                      + #"{"product": "pro", "expires_at": "2026-12-01T00:00:00Z"}, {"product": "life", "status": "revoked"}]}"#)
        let e = try evaluate(graph, s, at: t)
        for name in ["rich", "duo"] {
            let r = try e.entitlement(name)
            #expect((r.decision, r.status, r.isRevoked) == (.denied, .neverPurchased, false), "\(name)")
        }
        #expect(try e.entitlement("rich").product == "coins")
        // With a purchase that did expire behind it, `expired`.
        let expired = try evaluate(graph, state(#"{"purchases": [{"product": "coins", "quantity": 1}, "#
                                                + #"{"product": "coins", "quantity": 5, "status": "expired"}]}"#), at: t)
        #expect(try expired.entitlement("rich").status == .expired)
    }

    @Test func negatedProductsAreNotBehindTheEntitlement() throws {
        // `banned` is named under `not`: its purchase never represents `clean`. The annual purchase
        // has not ended: inactive for another reason, nothing to report.
        let r = try premium(#"[{"product": "banned"}, {"product": "annual", "expires_at": "2027-01-10T00:00:00Z"}]"#, "clean")
        #expect(r.decision == .denied)
        #expect(r.product == nil)
        #expect(r.status == .neverPurchased)
        // Once it has ended, it is what `clean` reports.
        let ended = try premium(#"[{"product": "banned"}, {"product": "annual", "expires_at": "2026-01-10T00:00:00Z"}]"#, "clean")
        #expect(ended.product == "annual")
        #expect(ended.status == .expired)
        #expect(ended.expiresAt == Instant(rfc3339: "2026-01-10T00:00:00Z"))
    }

    @Test func overriddenProductRepresentsAsALifetimePurchase() throws {
        let s = state(#"{"overrides": {"annual": "purchased"}}"#)
        let r = try evaluate(graph, s, at: t).entitlement("premium")
        #expect(r.decision == .allowed)
        #expect(r.product == "annual")
        #expect(r.store == nil)
        #expect(r.period == "lifetime")
        #expect(r.expiresAt == nil)
    }

    @Test func productsUnderTwoNotsAreBehindTheEntitlement() throws {
        // Found by differential testing: `not lapsed` with `lapsed = not annual` names `annual`
        // positively, so its purchase represents `kept`.
        let g = compileGraph("""
        product annual: subscription { period year }
        entitlement lapsed = not annual
        entitlement kept = not lapsed
        """)
        let r = try evaluate(g, state(#"{"purchases": [{"product": "annual", "expires_at": "2027-01-10T00:00:00Z"}]}"#),
                             at: t).entitlement("kept")
        #expect(r.decision == .allowed)
        #expect(r.product == "annual")
        #expect(r.period == "year")
        #expect(r.expiresAt == nil)  // `not x` has no end (§3)
    }

    @Test func activeThroughANotAloneReportsNoPurchase() throws {
        // Found by differential testing: an expired purchase is not what keeps it active.
        let g = compileGraph("""
        product annual: subscription { period year }
        product banned: non_consumable
        entitlement open = annual or not banned
        """)
        let r = try evaluate(g, state(#"{"purchases": [{"product": "annual", "status": "expired", "expires_at": "2026-05-01T00:00:00Z"}]}"#),
                             at: t).entitlement("open")
        #expect(r.decision == .allowed)
        #expect(r.product == nil)
        #expect(r.ownership == nil)
        #expect(r.reason == "active")
    }
}
