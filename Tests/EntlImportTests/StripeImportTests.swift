import EntlImport
import EntlRuntime
import EntlTestSupport
import Testing

/// Stripe objects (Tests/Fixtures/import/stripe/, from Stripe's API reference examples): every
/// subscription status, cancellation, trial, both placements of the billing period, and Checkout
/// Sessions, through to the access decision.
@Suite struct StripeImportTests {
    // The example's period: 2023-03-23T22:16:07Z to 2023-04-23T22:16:07Z.
    static let during = "2023-04-05T00:00:00Z"
    static let late = "2023-05-01T00:00:00Z"

    @Test(arguments: [
        // Stripe's examples are test-mode objects: the test environment only.
        AccessCase("stripe/subscription-example.json", "stripe_pro", at: during, .allowed, .active, environment: .test),
        AccessCase("stripe/subscription-example.json", "stripe_pro", at: during, .denied, .neverPurchased),
        AccessCase("stripe/subscription-example-legacy.json", "stripe_pro", at: during, .allowed, .active,
                   environment: .test),
        AccessCase("stripe/subscription-example-legacy.json", "stripe_pro", at: late, .denied, .expired,
                   environment: .test),
        AccessCase("stripe/subscription-active.json", "stripe_pro", at: during, .allowed, .active),
        AccessCase("stripe/subscription-active.json", "stripe_pro", at: late, .denied, .expired),
        AccessCase("stripe/subscription-trialing.json", "stripe_pro", at: "2023-03-30T00:00:00Z", .allowed, .trialing),
        AccessCase("stripe/subscription-trialing.json", "stripe_pro", at: "2023-04-10T00:00:00Z", .denied, .expired),
        AccessCase("stripe/subscription-cancel-at-period-end.json", "stripe_pro", at: during, .allowed, .canceled),
        AccessCase("stripe/subscription-cancel-at-period-end.json", "stripe_pro", at: late, .denied, .expired),
        // `cancel_at` within the period ends access then (2023-04-02T22:16:07Z).
        AccessCase("stripe/subscription-cancel-at.json", "stripe_pro", at: "2023-03-30T00:00:00Z", .allowed, .canceled),
        AccessCase("stripe/subscription-cancel-at.json", "stripe_pro", at: during, .denied, .expired),
        AccessCase("stripe/subscription-past-due.json", "stripe_pro", at: during, .allowed, .pastDue),
        AccessCase("stripe/subscription-past-due.json", "stripe_pro", at: late, .denied, .expired),
        AccessCase("stripe/subscription-unpaid.json", "stripe_pro", at: during, .denied, .billingRetry),
        AccessCase("stripe/subscription-incomplete.json", "stripe_pro", at: during, .denied, .billingRetry),
        AccessCase("stripe/subscription-incomplete-expired.json", "stripe_pro", at: during, .denied, .expired),
        // Stripe's `canceled` is the end: no access, although the period it was in runs on.
        AccessCase("stripe/subscription-canceled.json", "stripe_pro", at: during, .denied, .expired),
        AccessCase("stripe/subscription-paused.json", "stripe_pro", at: during, .denied, .expired),
        AccessCase("stripe/subscription-items.json", "team", at: during, .allowed, .active),
        AccessCase("stripe/subscriptions-list.json", "stripe_pro", at: during, .allowed, .active),
        AccessCase("stripe/checkout-session-paid.json", "coin_hoard", at: during, .allowed),
        AccessCase("stripe/checkout-session-processing.json", "coin_hoard", at: during, .denied),
        AccessCase("stripe/checkout-session-no-payment-required.json", "coin_hoard", at: during, .allowed),
        AccessCase("stripe/checkout-session-test-mode.json", "coin_hoard", at: during, .denied),
        AccessCase("stripe/checkout-session-test-mode.json", "coin_hoard", at: during, .allowed, environment: .test),
    ])
    func accessDecisions(_ c: AccessCase) throws {
        try c.check(.stripe)
    }

    @Test func bothAPIVersionsGiveTheSameState() throws {
        let new = try importFixtures(.stripe, ["stripe/subscription-example.json"])
        let legacy = try importFixtures(.stripe, ["stripe/subscription-example-legacy.json"])
        #expect(new.json == legacy.json)
        #expect(text(purchases(new).first, "period_start") == "2023-03-23T22:16:07Z")
        #expect(text(purchases(new).first, "expires_at") == "2023-04-23T22:16:07Z")
        #expect(text(new.state, "customer") == "cus_Na6dX7aXxi11N4")
    }

    @Test func everyStatusHasItsStatus() throws {
        let expected = [
            "active": "active", "trialing": "trialing", "past-due": "past_due", "unpaid": "billing_retry",
            "incomplete": "billing_retry", "incomplete-expired": "expired", "canceled": "expired", "paused": "expired",
            "cancel-at-period-end": "canceled", "cancel-at": "canceled",
        ]
        try expectStatuses(.stripe, expected) { "stripe/subscription-\($0).json" }
        let canceled = try firstPurchase(.stripe, "stripe/subscription-canceled.json")
        #expect(text(canceled, "expires_at") == "2023-03-28T22:16:07Z")  // ended_at
        let pastDue = try firstPurchase(.stripe, "stripe/subscription-past-due.json")
        #expect(text(pastDue, "grace_until") == "2023-04-23T22:16:07Z")
    }

    @Test func itemsAreOnePurchaseEach() throws {
        let result = try importFixtures(.stripe, ["stripe/subscription-items.json"])
        #expect(purchases(result).map { text($0, "product") ?? "" }
            == ["price_1MowQULkdIwHu7ixraBm864M", "price_1MowSeatsLkdIwHu7ix0001"])
        #expect(purchases(result).map { $0["quantity"] } == [nil, .int(5)])
    }

    @Test func sessionsThatAreNotPurchasesAreSaidSo() throws {
        let session = "checkout session cs_test_a11YYufWQzNY63zpQ6QSNRQhkUpVph4WRmzW0zWJO2znZKdVujZ0N0S22u"
        let cases = [
            "checkout-session-example.json": "\(session) is open, not complete: no purchase",
            "checkout-session-expired.json": "\(session) is expired, not complete: no purchase",
            "checkout-session-subscription-mode.json": "a checkout session in subscription mode is not a purchase of "
                + "its own: import the subscription it created",
        ]
        for (file, warning) in cases {
            let result = try importFixtures(.stripe, ["stripe/" + file])
            #expect(result.purchaseCount == 0, "\(file)")
            #expect(result.warnings.map(\.message) == [warning], "\(file)")
        }
        let paid = try decodedState(try importFixtures(.stripe, ["stripe/checkout-session-paid.json"]))
        #expect(try evaluate(importRules, paid, at: Self.during).product("coin_pack").quantity == 2)
    }

    @Test func subscriptionsAndSessionsMergeIntoOneCustomer() throws {
        let state = try decodedState(try importFixtures(
            .stripe, ["stripe/subscription-active.json", "stripe/checkout-session-paid.json"]))
        #expect(state.customer == "cus_Na6dX7aXxi11N4")
        let evaluation = try evaluate(importRules, state, at: Self.during)
        #expect(try evaluation.entitlement("stripe_pro").decision == .allowed)
        #expect(try evaluation.entitlement("coin_hoard").decision == .allowed)
    }
}
