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

    /// A subscription re-signed up for before it lapsed (or upgraded, downgraded): the new one's
    /// `linkedPurchaseToken` names the old one, which grants no more (Google: the old token
    /// "should not be used to grant users access"); it ends when the new one starts, in either
    /// file order, and is not counted twice in between (a review: both had granted to the old
    /// one's `expiryTime`).
    static func subscription(_ state: String, start: String, token: String? = nil, linked: String? = nil,
                             context: String = "") -> String {
        let tokens = (token.map { #""purchaseToken": "\#($0)", "# } ?? "")
            + (linked.map { #""linkedPurchaseToken": "\#($0)", "# } ?? "")
        return #"{"kind": "androidpublisher#subscriptionPurchaseV2", "startTime": "\#(start)", \#(tokens)"#
            + #""subscriptionState": "SUBSCRIPTION_STATE_\#(state)", \#(context)"#
            + #""lineItems": [{"productId": "monthly001", "expiryTime": "2023-11-24T12:00:00Z", "#
            + #""autoRenewingPlan": {"autoRenewEnabled": \#(state == "ACTIVE")}}]}"#
    }

    static let replacedContext = #""canceledStateContext": {"replacementCancellation": {}}, "#

    func importPlay(_ documents: [String]) throws -> ImportResult {
        try StateImporter.importState(from: .play, documents: documents.enumerated().map {
            ImportDocument(name: "s\($0.offset + 1).json", bytes: Array($0.element.utf8))
        })
    }

    @Test func aReplacedSubscriptionEndsWhenTheOneReplacingItStarts() throws {
        let old = Self.subscription("CANCELED", start: "2023-10-24T12:00:00Z", token: "tok-a",
                                    context: Self.replacedContext)
        let new = Self.subscription("ACTIVE", start: "2023-11-10T00:00:00Z", token: "tok-b", linked: "tok-a")
        for (documents, oldFile, newFile) in [([old, new], "s1.json", "s2.json"), ([new, old], "s2.json", "s1.json")] {
            let result = try importPlay(documents)
            let replaced = try #require(purchases(result).first { text($0, "purchased_at") == "2023-10-24T12:00:00Z" })
            #expect(text(replaced, "expires_at") == "2023-11-10T00:00:00Z")
            #expect(text(replaced, "status") == "canceled" && replaced["will_renew"] == .bool(false))
            #expect(result.warnings.map(\.description) == [
                "\(oldFile): replaced by the subscription of \(newFile) (its linkedPurchaseToken): access ends when "
                    + "that one starts, 2023-11-10T00:00:00Z",
            ])
            // Access runs on through the new one.
            let state = try decodedState(result)
            for at in ["2023-11-01T00:00:00Z", "2023-11-15T00:00:00Z"] {
                #expect(try evaluate(importRules, state, at: at).entitlement("play_premium").decision == .allowed)
            }
        }
    }

    /// A second review: a replacement still pending (or never paid) replaces nothing; one on hold
    /// when replaced is billed no more (it had kept `in_billing_retry` true for good); of two
    /// replacements of one token the earlier counts, whatever the order of the files.
    @Test func onlyAReplacementThatTookEffectEndsTheOldSubscription() throws {
        let old = Self.subscription("ACTIVE", start: "2023-10-24T12:00:00Z", token: "tok-a")
        for pending in ["PENDING", "PENDING_PURCHASE_CANCELED"] {
            let result = try importPlay([old, Self.subscription(pending, start: "2023-11-10T00:00:00Z", linked: "tok-a")])
            #expect(text(purchases(result).first, "expires_at") == "2023-11-24T12:00:00Z", "\(pending)")
            #expect(try evaluate(importRules, try decodedState(result), at: "2023-11-15T00:00:00Z")
                .entitlement("play_premium").decision == .allowed, "\(pending)")
        }
        let onHold = Self.subscription("ON_HOLD", start: "2023-10-24T12:00:00Z", token: "tok-a")
        let result = try importPlay([onHold, Self.subscription("ACTIVE", start: "2023-11-10T00:00:00Z", linked: "tok-a")])
        #expect(text(purchases(result).first, "status") == "expired")
        let premium = try evaluate(importRules, try decodedState(result), at: "2023-11-15T00:00:00Z")
            .entitlement("play_premium")
        #expect(premium.decision == .allowed && !premium.inBillingRetry)
        let early = Self.subscription("ACTIVE", start: "2023-11-05T00:00:00Z", linked: "tok-a")
        let late = Self.subscription("ACTIVE", start: "2023-11-10T00:00:00Z", linked: "tok-a")
        for documents in [[old, early, late], [old, late, early]] {
            #expect(text(purchases(try importPlay(documents)).first, "expires_at") == "2023-11-05T00:00:00Z")
        }
    }

    @Test func aReplacedSubscriptionNoDocumentLinksToGrantsNothing() throws {
        let old = Self.subscription("CANCELED", start: "2023-10-24T12:00:00Z", context: Self.replacedContext)
        let result = try importPlay([old])
        #expect(text(purchases(result).first, "status") == "expired")
        #expect(result.warnings.map(\.description) == [
            "s1.json: replaced by another subscription (canceledStateContext.replacementCancellation): it grants "
                + "nothing more; add each document's \"purchaseToken\" so that its access ends when the one "
                + "replacing it starts",
        ])
        #expect(try evaluate(importRules, try decodedState(result), at: Self.during).entitlement("play_premium")
            .decision == .denied)
        // A link to a token no document names, beside a document without one, is said.
        let linked = try importPlay([Self.subscription("ACTIVE", start: "2023-11-10T00:00:00Z", linked: "tok-x"),
                                     Self.subscription("ACTIVE", start: "2023-10-24T12:00:00Z")])
        #expect(linked.warnings.map(\.description) == [
            #"s1.json: replaces the subscription of purchase token "tok-x", which no document names in "#
                + #""purchaseToken": if it is among them, it keeps granting until its own expiry"#,
        ])
    }

    /// Two reports of one subscription across a renewal (its order id gains `..N` at each) are one
    /// purchase, the later renewal's whatever the order of the files (a review: both had counted,
    /// two allowances); and of two reports of one order, the one with fewer units held keeps its
    /// partial refund whatever their order (the later file's had been used).
    @Test func twoReportsAcrossARenewalOrARefundAreOnePurchase() throws {
        func report(order: String, expiry: String) -> String {
            #"{"kind": "androidpublisher#subscriptionPurchaseV2", "startTime": "2023-10-24T12:00:00Z", "#
                + #""subscriptionState": "SUBSCRIPTION_STATE_ACTIVE", "latestOrderId": "\#(order)", "#
                + #""lineItems": [{"productId": "monthly001", "expiryTime": "\#(expiry)", "#
                + #""autoRenewingPlan": {"autoRenewEnabled": true}}]}"#
        }
        let first = report(order: "GPA.3371-1234-5678-90123", expiry: "2023-11-24T12:00:00Z")
        let renewed = report(order: "GPA.3371-1234-5678-90123..0", expiry: "2023-12-24T12:00:00Z")
        for documents in [[first, renewed], [renewed, first]] {
            let result = try importPlay(documents)
            #expect(purchases(result).map { text($0, "expires_at") } == ["2023-12-24T12:00:00Z"])
        }
        // One report naming its order and token, another its token alone: one subscription too.
        let named = renewed.replacingOccurrences(of: #""startTime""#, with: #""purchaseToken": "tok1", "startTime""#)
        // The token-only one is older (its period ends a month before): the later expiry is kept,
        // whatever the order (a review: the stale one had won by coming last).
        let tokenOnly = Self.subscription("EXPIRED", start: "2023-10-24T12:00:00Z", token: "tok1")
        for documents in [[named, tokenOnly], [tokenOnly, named]] {
            let kept = purchases(try importPlay(documents))
            #expect(kept.map { text($0, "expires_at") } == ["2023-12-24T12:00:00Z"])
            #expect(kept.map { text($0, "status") } == ["active"])
        }
        func product(held: Int) -> String {
            #"{"kind": "androidpublisher#productPurchase", "productId": "coins_100", "orderId": "GPA.1", "#
                + #""purchaseTimeMillis": "1698148800000", "purchaseState": 0, "quantity": 5, "#
                + #""refundableQuantity": \#(held), "acknowledgementState": 1}"#
        }
        for documents in [[product(held: 1), product(held: 5)], [product(held: 5), product(held: 1)]] {
            let result = try importPlay(documents)
            #expect(purchases(result).map { $0["quantity"] } == [.int(1)])
        }
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
