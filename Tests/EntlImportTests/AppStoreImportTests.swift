import EntlImport
import EntlRuntime
import EntlTestSupport
import Testing

/// App Store Server API payloads (Tests/Fixtures/import/app-store/, from the examples of Apple's App
/// Store Server Library): every status and special case, through to the access decision.
@Suite struct AppStoreImportTests {
    // The derived subscription's period: 2023-10-24T12:01:40Z to 2023-11-24T12:01:40Z.
    static let during = "2023-11-10T00:00:00Z"
    static let after = "2023-12-01T00:00:00Z"  // before the grace period's end, 2023-12-10
    static let late = "2023-12-15T00:00:00Z"

    @Test(arguments: [
        AccessCase("app-store/active.json", "premium", at: during, .allowed, .active),
        AccessCase("app-store/active.json", "premium", at: late, .denied, .expired),
        AccessCase("app-store/auto-renew-off.json", "premium", at: during, .allowed, .canceled),
        AccessCase("app-store/auto-renew-off.json", "premium", at: late, .denied, .expired),
        AccessCase("app-store/free-trial.json", "premium", at: "2023-10-28T00:00:00Z", .allowed, .trialing),
        AccessCase("app-store/free-trial.json", "premium", at: during, .denied, .expired),
        // The billing grace period gives access until it ends; a billing retry without one does not.
        AccessCase("app-store/grace-period.json", "premium", at: after, .allowed, .pastDue),
        AccessCase("app-store/grace-period.json", "premium", at: late, .denied, .expired),
        AccessCase("app-store/billing-retry.json", "premium", at: after, .denied, .billingRetry),
        AccessCase("app-store/expired.json", "premium", at: during, .denied, .expired),
        // A refunded transaction is never access, whatever its expiry says.
        AccessCase("app-store/refund.json", "premium", at: during, .denied, .revoked),
        AccessCase("app-store/family-shared.json", "premium", at: during, .allowed, .active),
        AccessCase("app-store/sandbox.json", "premium", at: during, .denied, .neverPurchased),
        AccessCase("app-store/sandbox.json", "premium", at: during, .allowed, .active, environment: .test),
        AccessCase("app-store/no-renewal-info.json", "premium", at: during, .allowed, .active),
        AccessCase("app-store/upgrade.json", "premium", at: during, .allowed, .active),
        AccessCase("app-store/renewals.json", "premium", at: during, .allowed, .active),
        AccessCase("app-store/consumables.json", "apple_coin_hoard", at: during, .allowed),
        AccessCase("app-store/non-consumable.json", "premium", at: "2030-01-01T00:00:00Z", .allowed, .active),
        // A non-renewing purchase has no expiry at Apple: the rules' `duration` (90 days) ends it.
        AccessCase("app-store/non-renewing.json", "premium", at: during, .allowed, .active),
        AccessCase("app-store/non-renewing.json", "premium", at: "2024-02-01T00:00:00Z", .denied, .expired),
        AccessCase("app-store/transaction-example.json", "premium", at: "2023-10-24T12:02:00Z", .denied, .revoked,
                   environment: .test),
        AccessCase("app-store/jws-token.jws", "premium", at: during, .allowed, .active),
        AccessCase("app-store/transaction-history.json", "apple_coin_hoard", at: during, .denied),
        AccessCase("app-store/transaction-history.json", "premium", at: during, .allowed, .active),
    ])
    func accessDecisions(_ c: AccessCase) throws {
        try c.check(.appStore)
    }

    /// Apple's own status word in the "Get All Subscription Statuses" response: one subscription
    /// per status 1 to 5.
    @Test func everySubscriptionStatus() throws {
        let state = try decodedState(try importFixtures(.appStore, ["app-store/subscription-statuses.json"]))
        let evaluation = try evaluate(importRules, state, at: Self.after)
        let during = try evaluate(importRules, state, at: Self.during)
        #expect(try during.product("apple_monthly").decision == .allowed)  // 1 active
        #expect(try during.product("apple_monthly_plus").decision == .denied)  // 5 revoked
        #expect(try during.product("apple_video").decision == .denied)  // 2 expired
        #expect(try evaluation.product("apple_music").decision == .denied)  // 3 billing retry
        #expect(try evaluation.product("apple_news").decision == .allowed)  // 4 billing grace period
        #expect(try evaluate(importRules, state, at: Self.late).product("apple_news").decision == .denied)
        #expect(state.purchases.map(\.status) == [.active, .revoked, .expired, .billingRetry, .pastDue])
    }

    @Test func theLatestTransactionOfASubscriptionIsItsPeriod() throws {
        let renewals = try importFixtures(.appStore, ["app-store/renewals.json"])
        #expect(renewals.purchaseCount == 1)
        #expect(text(purchases(renewals).first, "period_start") == "2023-10-24T12:01:40Z")
        let upgrade = try decodedState(try importFixtures(.appStore, ["app-store/upgrade.json"]))
        #expect(upgrade.purchases.map(\.product) == ["com.example.product.2"])
        let premium = try evaluate(importRules, upgrade, at: Self.during).entitlement("premium")
        #expect(premium.product == "apple_monthly_plus")
    }

    /// A subscriber back after a lapse of 60 days or more (Apple's measure) bought anew: one
    /// original transaction, but the service before the lapse is a purchase that ended, and the
    /// current one starts at the return — else a `carry` grant piled up over the unpaid months (a
    /// review: 600 calls on the day after the return, 500 of them carried from February to May).
    /// Seen in the history, or in the renewal info's `recentSubscriptionStartDate` alone; a
    /// shorter lapse is none.
    @Test func aSubscriberBackAfterALapseBoughtAnew() throws {
        let graph = compileGraph("""
            product pro: subscription { period month; id app_store "com.example.product" }
            feature calls: metered
            entitlement plan = pro { grants calls 100 per month carry }
            """)
        // The first period refunded (a review: no paid service before the return, and no lapse seen).
        for (fixture, rows) in [("app-store/lapse.json", 2), ("app-store/lapse-renewal-info.json", 1),
                                ("app-store/lapse-refunded-first.json", 1)] {
            let state = try decodedState(try importFixtures(.appStore, [fixture]))
            #expect(state.purchases.count == rows)
            #expect(state.purchases.last?.purchasedAt == instant("2026-06-01T10:00:00Z"))
            let calls = try evaluate(graph, state, at: "2026-06-02T00:00:00Z").feature("calls")
            #expect(calls.balance == 100, "\(fixture)")
        }
        let lapse = try decodedState(try importFixtures(.appStore, ["app-store/lapse.json"]))
        #expect(lapse.purchases.first?.status == .expired)
        #expect(lapse.purchases.first?.purchasedAt == instant("2026-01-01T10:00:00Z"))
        #expect(lapse.purchases.first?.expiresAt == instant("2026-02-01T10:00:00Z"))
        // A refunded first period followed within 60 days by a paid one is no lapse: the purchase
        // keeps its first date (a review: it had moved to the paid period, and the windows with it).
        let refunded = try String(contentsOfFile: repoPath("Tests/Fixtures/import/app-store/lapse-refunded-first.json"),
                                  encoding: .utf8)
            .replacingOccurrences(of: "1780308000000", with: "1772359200000")  // June 1 → March 1
        let soon = try decodedState(try StateImporter.importState(
            from: .appStore, documents: [ImportDocument(name: "soon.json", bytes: Array(refunded.utf8))],
            options: ImportOptions(allowUnverifiedJWS: true)))
        #expect(soon.purchases.map(\.purchasedAt) == [instant("2026-01-01T10:00:00Z")])
        let short = try decodedState(try importFixtures(.appStore, ["app-store/short-lapse.json"]))
        #expect(short.purchases.map(\.purchasedAt) == [instant("2026-01-01T10:00:00Z")])
    }

    @Test func renewalInfosPairAcrossDocuments() throws {
        let state = try decodedState(try importFixtures(
            .appStore, ["app-store/split-transactions.json", "app-store/split-renewal-infos.json"]))
        let premium = try evaluate(importRules, state, at: Self.after).entitlement("premium")
        #expect(premium.decision == .allowed)
        #expect(premium.inGracePeriod)
        #expect(state.purchases.first?.graceUntil == instant("2023-12-10T12:01:40Z"))
    }

    @Test func withoutRenewalInfoTheImportSaysWhatItCannotSee() throws {
        let result = try importFixtures(.appStore, ["app-store/no-renewal-info.json"])
        #expect(result.warnings.map(\.message) == [
            "no renewal info for original transaction 12345: whether it renews, and a billing retry or grace period, "
                + "cannot be seen",
        ])
        #expect(purchases(result).first?["will_renew"] == nil)
    }

    @Test func consumablesHoldTheirQuantity() throws {
        let state = try decodedState(try importFixtures(.appStore, ["app-store/consumables.json"]))
        #expect(try evaluate(importRules, state, at: Self.during).product("apple_coins").quantity == 7)
    }

    @Test func familySharingAndEnvironmentsAreKept() throws {
        let family = try decodedState(try importFixtures(.appStore, ["app-store/family-shared.json"]))
        #expect(family.purchases.first?.ownership == .familyShared)
        // Apple's examples are local-testing (Xcode) payloads: the test environment.
        let example = try importFixtures(
            .appStore, ["app-store/transaction-example.json", "app-store/renewal-info-example.json"])
        #expect(text(purchases(example).first, "environment") == "test")
        #expect(text(purchases(example).first, "status") == "revoked")
    }

    @Test func signedPayloadsNeedTheCallersWord() throws {
        let signed = ["app-store/subscription-statuses.json", "app-store/jws-token.jws",
                      "app-store/transaction-history.json"]
        for path in signed {
            #expect(throws: ImportIssue.self) {
                try StateImporter.importState(from: .appStore, documents: [try fixture(path)])
            }
        }
        #expect(throws: Never.self) {
            try StateImporter.importState(from: .appStore, documents: [try fixture("app-store/active.json")])
        }
    }
}
