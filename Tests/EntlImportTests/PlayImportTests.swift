import EntlImport
import EntlRuntime
import EntlTestSupport
import Testing

/// Google Play resources (Tests/Fixtures/import/play/, after Google's documented representation):
/// every `subscriptionState`, purchase state and special case, through to the access decision.
@Suite struct PlayImportTests {
    // The subscriptions' period: 2023-10-24T12:00:00.123Z to 2023-11-24T12:00:00.123Z.
    static let during = "2023-11-10T00:00:00Z"
    static let late = "2023-12-15T00:00:00Z"

    @Test(arguments: [
        AccessCase("play/subscription-active.json", "play_premium", at: during, .allowed, .active),
        AccessCase("play/subscription-active.json", "play_premium", at: late, .denied, .expired),
        AccessCase("play/subscription-free-trial.json", "play_premium", at: "2023-10-28T00:00:00Z", .allowed,
                   .trialing),
        AccessCase("play/subscription-canceled.json", "play_premium", at: during, .allowed, .canceled),
        AccessCase("play/subscription-canceled.json", "play_premium", at: late, .denied, .expired),
        // IN_GRACE_PERIOD: access until the grace period's end (the item's expiry, 2023-12-01).
        AccessCase("play/subscription-in-grace-period.json", "play_premium", at: "2023-11-28T00:00:00Z", .allowed,
                   .pastDue),
        AccessCase("play/subscription-in-grace-period.json", "play_premium", at: "2023-12-02T00:00:00Z", .denied,
                   .expired),
        // ON_HOLD: no access, though the item's expiry is still ahead.
        AccessCase("play/subscription-on-hold.json", "play_premium", at: during, .denied, .billingRetry),
        AccessCase("play/subscription-paused.json", "play_premium", at: during, .denied, .expired),
        AccessCase("play/subscription-expired.json", "play_premium", at: during, .denied, .expired),
        AccessCase("play/subscription-pending.json", "play_premium", at: during, .denied, .billingRetry),
        AccessCase("play/subscription-pending-purchase-canceled.json", "play_premium", at: during, .denied, .expired),
        AccessCase("play/subscription-unspecified.json", "play_premium", at: during, .undetermined, .unknown),
        AccessCase("play/subscription-test-purchase.json", "play_premium", at: during, .denied, .neverPurchased),
        AccessCase("play/subscription-test-purchase.json", "play_premium", at: during, .allowed, .active,
                   environment: .test),
        AccessCase("play/subscription-prepaid.json", "play_premium", at: during, .allowed, .active),
        AccessCase("play/subscription-add-ons.json", "play_premium", at: during, .allowed, .active),
        AccessCase("play/subscription-add-ons.json", "storage", at: during, .allowed, .canceled),
        AccessCase("play/subscription-not-acknowledged.json", "play_premium", at: during, .allowed, .active),
        AccessCase("play/product-purchased.json", "play_coin_hoard", at: during, .allowed),
        AccessCase("play/product-canceled.json", "play_coin_hoard", at: during, .denied),
        AccessCase("play/product-pending.json", "play_coin_hoard", at: during, .denied),
        AccessCase("play/product-test.json", "play_coin_hoard", at: during, .denied),
        AccessCase("play/product-test.json", "play_coin_hoard", at: during, .allowed, environment: .test),
        AccessCase("play/product-promo.json", "no_ads", at: during, .allowed, .active),
        AccessCase("play/product-rewarded.json", "play_coin_hoard", at: during, .denied),
        AccessCase("play/product-partial-refund.json", "play_coin_hoard", at: during, .allowed),
        AccessCase("play/product-not-acknowledged.json", "no_ads", at: during, .allowed, .active),
    ])
    func accessDecisions(_ c: AccessCase) throws {
        try c.check(.play)
    }

    @Test func everySubscriptionStateHasItsStatus() throws {
        let expected = [
            "active": "active", "free-trial": "trialing", "canceled": "canceled", "in-grace-period": "past_due",
            "on-hold": "billing_retry", "paused": "expired", "expired": "expired", "pending": "billing_retry",
            "pending-purchase-canceled": "expired", "unspecified": "unknown",
        ]
        try expectStatuses(.play, expected) { "play/subscription-\($0).json" }
        let grace = try firstPurchase(.play, "play/subscription-in-grace-period.json")
        #expect(text(grace, "grace_until") == "2023-12-01T12:00:00.123Z")
        #expect(try firstPurchase(.play, "play/subscription-paused.json")?["will_renew"] == .bool(true))
        #expect(try firstPurchase(.play, "play/subscription-prepaid.json")?["will_renew"] == .bool(false))
    }

    @Test func unitsHeldAreTheQuantityLessRefunds() throws {
        let quantity = { (file: String) throws -> Int64? in
            try evaluate(importRules, try decodedState(try importFixtures(.play, ["play/" + file])), at: Self.during)
                .product("coins_100").quantity
        }
        #expect(try quantity("product-purchased.json") == 3)  // consumed: delivered, still counted
        #expect(try quantity("product-partial-refund.json") == 3)  // 5 bought, 2 refunded
        #expect(try quantity("product-rewarded.json") == 1)
    }

    @Test func unacknowledgedPurchasesAreWarnedAbout() throws {
        for file in ["subscription-not-acknowledged.json", "product-not-acknowledged.json"] {
            let result = try importFixtures(.play, ["play/" + file])
            #expect(result.warnings.map(\.message) == [
                "not acknowledged: Google refunds and revokes a purchase not acknowledged within three days",
            ], "\(file)")
        }
        #expect(try importFixtures(.play, ["play/subscription-pending.json"]).warnings.isEmpty)
    }

    @Test func theCustomerIsTheAppsAccountID() throws {
        let result = try importFixtures(.play, ["play/mixed.json"])
        #expect(text(result.state, "customer") == "user-1456")
        #expect(result.purchaseCount == 2)
    }

    @Test func theDeprecatedSubscriptionResourceIsRefused() throws {
        let json = #"{"kind": "androidpublisher#subscriptionPurchase", "expiryTimeMillis": "1509398029890"}"#
        let error = #expect(throws: ImportIssue.self) {
            try StateImporter.importState(from: .play,
                                          documents: [ImportDocument(name: "v1.json", bytes: Array(json.utf8))])
        }
        #expect(error?.description == "v1.json: a SubscriptionPurchase of the deprecated purchases.subscriptions.get: "
            + "read the subscription with purchases.subscriptionsv2.get")
    }
}
