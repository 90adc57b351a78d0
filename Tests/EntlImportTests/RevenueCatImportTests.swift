import EntlImport
import EntlRuntime
import EntlTestSupport
import Testing

/// RevenueCat subscriber responses (Tests/Fixtures/import/revenuecat/, from RevenueCat's documented
/// example): every status and special case, through to the access decision.
@Suite struct RevenueCatImportTests {
    static let before = "2019-07-26T17:40:10Z"  // the example's request date; the period ends 2019-08-14
    static let after = "2019-08-20T00:00:00Z"

    @Test(arguments: [
        AccessCase("revenuecat/active.json", "pro_cat", at: before, .allowed, .active),
        AccessCase("revenuecat/active.json", "pro_cat", at: after, .denied, .expired),
        AccessCase("revenuecat/trial.json", "pro_cat", at: before, .allowed, .trialing),
        AccessCase("revenuecat/intro.json", "pro_cat", at: before, .allowed, .active),
        AccessCase("revenuecat/unsubscribed.json", "pro_cat", at: before, .allowed, .canceled),
        AccessCase("revenuecat/unsubscribed.json", "pro_cat", at: after, .denied, .expired),
        // In the grace period a failed renewal still gives access, until the grace period ends.
        AccessCase("revenuecat/billing-issue-grace.json", "pro_cat", at: after, .allowed, .pastDue),
        AccessCase("revenuecat/billing-issue-grace.json", "pro_cat", at: "2019-08-30T21:07:40Z", .denied, .expired),
        AccessCase("revenuecat/billing-issue.json", "pro_cat", at: after, .denied, .billingRetry),
        // A refund is never access, whatever the expiry says.
        AccessCase("revenuecat/refunded.json", "pro_cat", at: before, .denied, .revoked),
        AccessCase("revenuecat/family-shared.json", "pro_cat", at: before, .allowed, .active),
        // A sandbox purchase counts in the test environment only.
        AccessCase("revenuecat/sandbox.json", "pro_cat", at: before, .denied, .neverPurchased),
        AccessCase("revenuecat/sandbox.json", "pro_cat", at: before, .allowed, .active, environment: .test),
        AccessCase("revenuecat/paused.json", "pro_cat", at: before, .allowed, .active),
        AccessCase("revenuecat/paused.json", "pro_cat", at: after, .denied, .expired),
        AccessCase("revenuecat/no-expiry.json", "pro_cat", at: before, .undetermined, .unknown),
        AccessCase("revenuecat/non-subscriptions.json", "gem_hoard", at: before, .allowed),
        AccessCase("revenuecat/non-subscriptions.json", "pro_cat", at: "2030-01-01T00:00:00Z", .allowed),
        AccessCase("revenuecat/other-stores.json", "pro_cat", at: before, .allowed, .active),
    ])
    func accessDecisions(_ c: AccessCase) throws {
        try c.check(.revenueCat)
    }

    @Test func theDocumentedExampleIsSandboxData() throws {
        let result = try importFixtures(.revenueCat, ["revenuecat/subscriber-example.json"])
        #expect(text(result.state, "customer") == "XXX-XXXXX-XXXXX-XX")
        #expect(text(result.state, "customer_since") == "2019-02-21T00:08:41Z")
        #expect(purchases(result).map { text($0, "environment") } == ["test", "test", "test"])
        // Its promotional grant is checked by PromotionalGrantAccessTests; a runtime that does not know
        // `grants` yet reads the rest with a warning about it.
        let state = try PurchaseState(json: result.json)
        #expect(state.warnings.allSatisfy { $0.path == "grants" })
        let test = try evaluate(importRules, state, at: Self.before, environment: .test)
        #expect(try test.product("annual").decision == .allowed)  // canceled, running to 2019-08-14
        #expect(try test.product("onemonth").decision == .denied)  // expired 2019-06-17
        #expect(try test.entitlement("pro_cat").decision == .allowed)
        #expect(try evaluate(importRules, state, at: Self.before).product("annual").decision == .denied)
    }

    @Test func aStatusFollowsTheMostDecisiveFact() throws {
        let expected = [
            "active": "active", "trial": "trialing", "intro": "active", "unsubscribed": "canceled",
            "billing-issue-grace": "past_due", "billing-issue": "billing_retry", "refunded": "revoked",
            "no-expiry": "unknown",
        ]
        try expectStatuses(.revenueCat, expected) { "revenuecat/\($0).json" }
        let grace = try firstPurchase(.revenueCat, "revenuecat/billing-issue-grace.json")
        #expect(text(grace, "grace_until") == "2019-08-30T21:07:40Z")
        let family = purchases(try importFixtures(.revenueCat, ["revenuecat/family-shared.json"]))
        #expect(text(family.first, "ownership") == "family_shared")
        let state = try decodedState(try importFixtures(.revenueCat, ["revenuecat/family-shared.json"]))
        #expect(try evaluate(importRules, state, at: Self.before).entitlement("pro_cat").ownership == .familyShared)
    }

    @Test func theDatesAreThePurchaseTheCurrentPeriodAndItsEnd() throws {
        let purchase = purchases(try importFixtures(.revenueCat, ["revenuecat/active.json"])).first
        #expect(text(purchase, "purchased_at") == "2019-02-21T00:42:05Z")  // original_purchase_date
        #expect(text(purchase, "period_start") == "2019-07-14T20:07:40Z")  // purchase_date: this period
        #expect(text(purchase, "expires_at") == "2019-08-14T21:07:40Z")
        #expect(purchase?["will_renew"] == .bool(true))
    }

    @Test func otherStoresKeepRevenueCatsNames() throws {
        let result = try importFixtures(.revenueCat, ["revenuecat/other-stores.json"])
        #expect(purchases(result).map { text($0, "store") ?? "" }
            == ["amazon", "stripe", "rc_billing", "mac_app_store"])
    }

    @Test func consumablesCountOneUnitPerPurchase() throws {
        let state = try decodedState(try importFixtures(.revenueCat, ["revenuecat/non-subscriptions.json"]))
        let gems = try evaluate(importRules, state, at: Self.before).product("gems")
        #expect(gems.decision == .allowed)
        #expect(gems.quantity == 3)
    }

    @Test func promotionalGrantsBecomeStateGrants() throws {
        let result = try importFixtures(.revenueCat, ["revenuecat/promotional.json"])
        #expect(result.purchaseCount == 0)
        #expect(result.state["grants"] == (try JSONParser.parse("""
            [
              {"entitlement": "pro_cat", "from": "2019-07-26T01:02:16Z", "until": "2019-08-26T01:02:16Z",
               "id": "rc_promo_pro_cat_monthly", "reason": "RevenueCat promotional grant"},
              {"entitlement": "photos_pro", "from": "2019-07-26T01:02:16Z", "until": "2219-07-26T01:02:16Z",
               "id": "rc_promo_photos_pro_lifetime", "reason": "RevenueCat promotional grant"},
              {"entitlement": "support", "from": "2019-07-26T01:02:16Z", "until": "2019-08-01T00:00:00Z",
               "id": "rc_promo_support_custom", "reason": "RevenueCat promotional grant"}
            ]
            """)))
        #expect(result.warnings.map(\.description) == [
            "Tests/Fixtures/import/revenuecat/promotional.json: subscriber.subscriptions.rc_promo_beta_weekly: "
                + "a sandbox promotional grant is left out: a state grant counts in every environment",
        ])
    }

    /// A promotion that ends when or before it starts (found by the fuzzer) would be a state grant
    /// that never counts: it is left out with a warning, and the state stays valid.
    @Test func aPromotionEndingBeforeItStartsIsLeftOut() throws {
        let json = #"{"subscriber": {"subscriptions": {"rc_promo_pro_monthly": {"store": "promotional", "#
            + #""is_sandbox": false, "purchase_date": "2019-07-26T01:02:16Z", "expires_date": "2018-08-26T01:02:16Z"}}}}"#
        let result = try StateImporter.importState(from: .revenueCat,
                                                   documents: [ImportDocument(name: "rc.json", bytes: Array(json.utf8))])
        #expect(result.grantCount == 0)
        #expect(result.warnings.map(\.description) == [
            "rc.json: subscriber.subscriptions.rc_promo_pro_monthly: a promotional grant that ends "
                + "(2018-08-26T01:02:16Z) when or before it starts (2019-07-26T01:02:16Z) is left out: it never gives access",
        ])
    }

    @Test func aPromotionNamingNoEntitlementIsAnError() throws {
        let json = #"{"subscriber": {"subscriptions": {"free_month": {"store": "promotional", "is_sandbox": false,"#
            + #" "purchase_date": "2019-07-26T01:02:16Z"}}}}"#
        let issue = #expect(throws: ImportIssue.self) {
            try StateImporter.importState(from: .revenueCat,
                                          documents: [ImportDocument(name: "rc.json", bytes: Array(json.utf8))])
        }
        #expect(issue?.description == "rc.json: subscriber.subscriptions.free_month: a promotional grant whose "
            + "entitlement is unknown: no entry of `entitlements` names product \"free_month\", and its id is not "
            + "`rc_promo_ENTITLEMENT_DURATION`")
    }
}
