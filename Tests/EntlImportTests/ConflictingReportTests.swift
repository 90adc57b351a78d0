import EntlImport
import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// Payloads that say two things about one purchase: a key written twice, the same transaction in
/// two files, snapshots of one subscriber taken at different times, a page of a longer list. A
/// refund is never read as access whatever the order of the files, and what cannot be told apart
/// is refused.
@Suite struct ConflictingReportTests {
    static func document(_ name: String, _ json: String) -> ImportDocument {
        ImportDocument(name: name, bytes: Array(json.utf8))
    }

    static func run(_ vendor: Vendor, _ documents: [ImportDocument]) throws -> ImportResult {
        try StateImporter.importState(from: vendor, documents: documents, options: ImportOptions(allowUnverifiedJWS: true))
    }

    /// The message and place of the import's refusal.
    static func refusal(_ vendor: Vendor, _ documents: [ImportDocument]) -> String? {
        do {
            _ = try run(vendor, documents)
            return nil
        } catch let issue as ImportIssue {
            return "\(issue.place.document): \(issue.place.path): \(issue.message)"
        } catch {
            return "\(error)"
        }
    }

    static func statuses(_ result: ImportResult) -> [String] {
        purchases(result).compactMap { if case .string(let s)? = $0["status"] { s } else { nil } }
    }

    /// Two reports of one Play order, refunded and not, with no date to order them: the refund is
    /// kept whichever file comes first (a review: the later file won, a refunded purchase read as
    /// owned).
    @Test func aPlayRefundIsKeptWhateverTheOrderOfTheFiles() throws {
        func report(_ state: Int) -> String {
            #"{"kind": "androidpublisher#productPurchase", "purchaseTimeMillis": "1698148800000", "purchaseState": "#
                + "\(state)" + #", "consumptionState": 1, "orderId": "GPA.3", "acknowledgementState": 1, "#
                + #""productId": "coins_100", "quantity": 5, "obfuscatedExternalAccountId": "u1", "refundableQuantity": 3}"#
        }
        let (refunded, bought) = (Self.document("refunded.json", report(1)), Self.document("bought.json", report(0)))
        #expect(try Self.statuses(Self.run(.play, [refunded, bought])) == ["revoked"])
        #expect(try Self.statuses(Self.run(.play, [bought, refunded])) == ["revoked"])
        #expect(try Self.run(.play, [refunded, bought]).warnings.map(\.description)
                == ["bought.json: play_store order GPA.3 was already reported at refunded.json, refunded; the refund is kept"])
    }

    /// Stripe's `canceled` is final: a stale `active` copy of the subscription does not bring it
    /// back, whatever the order of the files (a review: the later file won).
    @Test func aCanceledStripeSubscriptionStaysCanceledWhateverTheOrderOfTheFiles() throws {
        func report(_ status: String, item: String = "si_9") -> String {
            #"{"object": "subscription", "id": "sub_9", "status": "\#(status)", "start_date": 1680000000, "#
                + #""livemode": true, "current_period_end": 1682000000, "ended_at": 1681000000, "#
                + #""items": {"object": "list", "data": [{"id": "\#(item)", "price": {"id": "price_a"}}]}}"#
        }
        let (canceled, active) = (Self.document("canceled.json", report("canceled")),
                                  Self.document("active.json", report("active")))
        #expect(try Self.statuses(Self.run(.stripe, [canceled, active])) == ["expired"])
        #expect(try Self.statuses(Self.run(.stripe, [active, canceled])) == ["expired"])
        #expect(try Self.run(.stripe, [canceled, active]).warnings.map(\.description)
                == ["active.json: items.data[0]: stripe sub_9 si_9 was already reported at canceled.json: "
                    + "items.data[0], ended for good; that end is kept"])
        // An item only the stale copy names (replaced before the cancellation) ends with it too (a
        // review: it had kept granting).
        let other = Self.document("other-item.json", report("active", item: "si_1"))
        for documents in [[canceled, other], [other, canceled]] {
            let result = try Self.run(.stripe, documents)
            #expect(Self.statuses(result) == ["expired", "expired"])
            #expect(purchases(result).map { text($0, "expires_at") } == ["2023-04-09T00:26:40Z", "2023-04-09T00:26:40Z"])
        }
    }

    /// Apple's status is its word on the transaction it came with: a later renewal decoded from
    /// another document is read without it, with a warning (a review: October's `expired` status
    /// denied the November renewal the customer paid for).
    @Test func anAppStoreStatusDoesNotSpeakForALaterTransaction() throws {
        let october = Self.document("statuses-oct.json", #"{"environment":"Production","bundleId":"com.example","data":[{"subscriptionGroupIdentifier":"g","lastTransactions":[{"status":2,"originalTransactionId":"O1","signedTransactionInfo":"eyJhbGciOiAiRVMyNTYiLCAieDVjIjogWyJhIiwgImIiLCAiYyJdfQ.eyJ0cmFuc2FjdGlvbklkIjogIlQyIiwgIm9yaWdpbmFsVHJhbnNhY3Rpb25JZCI6ICJPMSIsICJwcm9kdWN0SWQiOiAiY29tLmV4YW1wbGUucHJvZHVjdCIsICJwdXJjaGFzZURhdGUiOiAxNjk4MTQ4OTAwMDAwLCAib3JpZ2luYWxQdXJjaGFzZURhdGUiOiAxNjk4MTQ4ODAwMDAwLCAiZXhwaXJlc0RhdGUiOiAxNzAwODI3MzAwMDAwLCAicXVhbnRpdHkiOiAxLCAidHlwZSI6ICJBdXRvLVJlbmV3YWJsZSBTdWJzY3JpcHRpb24iLCAiYXBwQWNjb3VudFRva2VuIjogInUxIiwgImluQXBwT3duZXJzaGlwVHlwZSI6ICJQVVJDSEFTRUQiLCAic2lnbmVkRGF0ZSI6IDE2OTgxNDg5MDAwMDAsICJlbnZpcm9ubWVudCI6ICJQcm9kdWN0aW9uIn0.c2ln","signedRenewalInfo":"eyJhbGciOiAiRVMyNTYiLCAieDVjIjogWyJhIiwgImIiLCAiYyJdfQ.eyJvcmlnaW5hbFRyYW5zYWN0aW9uSWQiOiAiTzEiLCAiYXV0b1JlbmV3UHJvZHVjdElkIjogImNvbS5leGFtcGxlLnByb2R1Y3QiLCAicHJvZHVjdElkIjogImNvbS5leGFtcGxlLnByb2R1Y3QiLCAiYXV0b1JlbmV3U3RhdHVzIjogMSwgInNpZ25lZERhdGUiOiAxNjk4MTQ4OTAwMDAwLCAiZW52aXJvbm1lbnQiOiAiUHJvZHVjdGlvbiJ9.c2ln"}]}]}"#)
        let november = Self.document("renewal-tx-nov.json", #"[{"transactionId":"T3","originalTransactionId":"O1","productId":"com.example.product","purchaseDate":1700827300000,"originalPurchaseDate":1698148800000,"expiresDate":1703419300000,"quantity":1,"type":"Auto-Renewable Subscription","appAccountToken":"u1","inAppOwnershipType":"PURCHASED","signedDate":1700827300000,"environment":"Production"}]"#)
        for documents in [[october, november], [november, october]] {
            let result = try Self.run(.appStore, documents)
            #expect(Self.statuses(result) == ["active"], "\(documents.map(\.name))")
            #expect(result.warnings.contains { $0.message.hasPrefix("the status at ") && $0.message.hasSuffix(
                "is Apple's word on transaction T2; this later transaction is read without it") })
        }
        // The status alone still speaks for its own transaction.
        #expect(Self.statuses(try Self.run(.appStore, [october])) == ["expired"])
    }

    // MARK: A key written twice

    @Test func aKeyWrittenTwiceIsRefusedWhereItIs() {
        let revenueCat = #"{"subscriber": {"subscriptions": {"annual": {"store": "app_store", "#
            + #""purchase_date": "2023-06-01T00:00:00Z", "expires_date": "2024-06-01T00:00:00Z", "#
            + #""refunded_at": "2023-07-01T00:00:00Z", "refunded_at": null}}}}"#
        #expect(ConflictingReportTests.refusal(.revenueCat, [ConflictingReportTests.document("rc.json", revenueCat)])
                == #"rc.json: subscriber.subscriptions.annual.refunded_at: duplicate key "refunded_at": "#
                + "which one holds is not known")
        let play = #"{"kind": "androidpublisher#productPurchase", "purchaseTimeMillis": "1700000000000", "#
            + #""purchaseState": 1, "purchaseState": 0, "productId": "coins"}"#
        #expect(ConflictingReportTests.refusal(.play, [ConflictingReportTests.document("play.json", play)])
                == #"play.json: purchaseState: duplicate key "purchaseState": which one holds is not known"#)
        // In a list, and inside a JWS payload (read unverified), the place is the item's.
        let payload = #"{"transactionId": "1", "transactionId": "2"}"#
        let token = "eyJhbGciOiJFUzI1NiJ9." + base64URL(payload) + ".c2ln"
        #expect(ConflictingReportTests.refusal(.appStore, [ConflictingReportTests.document(
            "history.json", #"{"signedTransactions": ["\#(token)"]}"#)])
                == #"history.json: signedTransactions[0].transactionId: duplicate key "transactionId": "#
                + "which one holds is not known")
        // Keys that differ only in case, or alike in different objects, are not repeated.
        let alike = #"{"subscriber": {"subscriptions": {"a": {"store": "app_store", "is_sandbox": false, "#
            + #""purchase_date": "2023-06-01T00:00:00Z"}, "b": {"store": "app_store", "is_sandbox": false, "#
            + #""purchase_date": "2023-06-01T00:00:00Z", "Store": "x"}}}}"#
        #expect(ConflictingReportTests.refusal(.revenueCat, [ConflictingReportTests.document("ok.json", alike)]) == nil)
    }

    // MARK: The same App Store transaction twice

    /// A transaction of an auto-renewable subscription as the App Store signs it at `signed`
    /// (milliseconds), refunded then when `revoked`.
    static func transaction(id: String = "23456", signed: Int64, revoked: Bool,
                            type: String = "Auto-Renewable Subscription") -> String {
        #"{"transactionId": "\#(id)", "originalTransactionId": "12345", "productId": "com.example.product", "#
            + #""purchaseDate": 1698148900000, "expiresDate": 1700827300000, "type": "\#(type)", "#
            + #""environment": "Production", "signedDate": \#(signed)"#
            + (revoked ? #", "revocationDate": \#(1_698_829_200_000 + signed), "revocationReason": 0}"# : "}")
    }

    @Test func theSameTransactionTwiceIsReadFromTheReportSignedLater() throws {
        let refunded = ConflictingReportTests.document("refunded.json",
                                                       ConflictingReportTests.transaction(signed: 1698829200000, revoked: true))
        let stale = ConflictingReportTests.document("stale.json",
                                                    ConflictingReportTests.transaction(signed: 1698148900000, revoked: false))
        for documents in [[refunded, stale], [stale, refunded]] {
            let result = try ConflictingReportTests.run(.appStore, documents)
            #expect(ConflictingReportTests.statuses(result) == ["revoked"], "\(documents.map(\.name))")
            #expect(result.warnings.map(\.message).contains {
                $0.hasPrefix("transaction 23456 was already reported at ") && $0.hasSuffix("; the one signed later is "
                    + "used (when both were signed at once, a revoked one)")
            })
        }
        // Signed at the same instant: the revoked one; the same for a non-consumable.
        for type in ["Auto-Renewable Subscription", "Non-Consumable"] {
            let a = ConflictingReportTests.document("a.json", ConflictingReportTests.transaction(signed: 5, revoked: true, type: type))
            let b = ConflictingReportTests.document("b.json", ConflictingReportTests.transaction(signed: 5, revoked: false, type: type))
            #expect(ConflictingReportTests.statuses(try ConflictingReportTests.run(.appStore, [a, b])) == ["revoked"])
            #expect(ConflictingReportTests.statuses(try ConflictingReportTests.run(.appStore, [b, a])) == ["revoked"])
        }
    }

    /// Property: copies of one transaction, each signed at some instant, the refund signed at or
    /// after every copy that is not refunded, given in any order: the import says revoked.
    @Test func aRefundIsNeverReadAsAccessWhateverTheOrder() throws {
        var r = SeededRandom(seed: 77)
        for _ in 0..<ConflictingReportTests.cases {
            let copies = Int(r.next() % 4) + 1
            let refundSigned = Int64(r.next() % 1_000) + 1_000
            var documents = (0..<copies).map { k in
                ConflictingReportTests.document("copy-\(k).json", ConflictingReportTests.transaction(
                    signed: refundSigned - Int64(r.next() % 1_001), revoked: false))
            }
            documents.insert(ConflictingReportTests.document("refund.json", ConflictingReportTests.transaction(
                signed: refundSigned, revoked: true)), at: Int(r.next() % UInt64(copies + 1)))
            let result = try ConflictingReportTests.run(.appStore, documents)
            #expect(ConflictingReportTests.statuses(result) == ["revoked"], "\(documents.map { $0.name })")
        }
    }

    static let cases = Int(ProcessInfo.processInfo.environment["ENTLC_PROPERTY_CASES"] ?? "") ?? 200

    // MARK: Snapshots of one RevenueCat subscriber

    static func subscriber(requested: String, refunded: Bool) -> String {
        #"{"request_date": "\#(requested)", "subscriber": {"subscriptions": {"annual": {"store": "app_store", "#
            + #""is_sandbox": false, "purchase_date": "2023-06-01T00:00:00Z", "expires_date": "2024-06-01T00:00:00Z", "#
            + #""refunded_at": \#(refunded ? #""2024-01-15T00:00:00Z""# : "null")}}}}"#
    }

    @Test func theLatestSnapshotOfASubscriberIsUsedWhateverTheOrderOfTheFiles() throws {
        let january = ConflictingReportTests.document("2024-01.json",
                                                      ConflictingReportTests.subscriber(requested: "2024-01-01T00:00:00Z", refunded: false))
        let february = ConflictingReportTests.document("2024-02.json",
                                                       ConflictingReportTests.subscriber(requested: "2024-02-01T00:00:00Z", refunded: true))
        for documents in [[january, february], [february, january]] {
            let result = try ConflictingReportTests.run(.revenueCat, documents)
            #expect(ConflictingReportTests.statuses(result) == ["revoked"], "\(documents.map(\.name))")
            #expect(result.warnings.map(\.message) == ["revenuecat app_store annual was already reported at 2024-01.json: "
                                                        + "subscriber.subscriptions.annual; the later report is used"])
        }
        // A snapshot without `request_date`: the files' order decides, as the warning says — except
        // that a refund is never lost to it (a review: the undated later file had won).
        let undated = ConflictingReportTests.document("undated.json", #"{"subscriber": {"subscriptions": {"annual": "#
            + #"{"store": "app_store", "is_sandbox": false, "purchase_date": "2023-06-01T00:00:00Z", "expires_date": "2024-06-01T00:00:00Z"}}}}"#)
        #expect(ConflictingReportTests.statuses(try ConflictingReportTests.run(.revenueCat, [february, undated])) == ["revoked"])
        #expect(ConflictingReportTests.statuses(try ConflictingReportTests.run(.revenueCat, [undated, february])) == ["revoked"])
    }

    // MARK: Quantities and pages

    @Test func moreUnitsNotRefundedThanBoughtIsRefused() {
        let play = #"{"kind": "androidpublisher#productPurchase", "purchaseTimeMillis": "1700000000000", "#
            + #""purchaseState": 0, "productId": "coins", "quantity": 1, "refundableQuantity": 1000}"#
        #expect(ConflictingReportTests.refusal(.play, [ConflictingReportTests.document("play.json", play)])
                == "play.json: : refundableQuantity 1000 is more than quantity 1")
    }

    @Test func aPageOfALongerListIsImportedWithAWarning() throws {
        let stripe = #"{"object": "list", "has_more": true, "data": []}"#
        let result = try ConflictingReportTests.run(.stripe, [ConflictingReportTests.document("page-1.json", stripe)])
        #expect(result.warnings.map(\.message) == ["the list goes on past this page (`has_more`): what later pages hold is "
                                                    + "not imported unless they are given too"])
        let history = #"{"hasMore": true, "signedTransactions": []}"#
        let apple = try ConflictingReportTests.run(.appStore, [ConflictingReportTests.document("history.json", history)])
        #expect(apple.warnings.map(\.message) == ["the history goes on past this page (`hasMore`): what later pages hold "
                                                   + "is not imported unless they are given too"])
        // A subscription's own items too (a review: its later prices were dropped, unsaid).
        let items = #"{"object": "subscription", "id": "sub_1", "status": "active", "start_date": 1680000000, "#
            + #""livemode": true, "current_period_end": 1682000000, "items": {"object": "list", "has_more": true, "#
            + #""data": [{"id": "si_1", "price": {"id": "price_a"}}]}}"#
        let subscription = try ConflictingReportTests.run(.stripe, [ConflictingReportTests.document("sub.json", items)])
        #expect(subscription.warnings.map(\.message) == ["the items go on past this page (`has_more`): the prices of "
                                                          + "later pages are not imported; expand the subscription's "
                                                          + "items in full"])
    }
}

/// Base64url without padding (RFC 4648 §5), for a JWS part.
private func base64URL(_ text: String) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    let bytes = Array(text.utf8)
    var out = ""
    var i = 0
    while i < bytes.count {
        let chunk = bytes[i..<min(i + 3, bytes.count)]
        var n = 0
        for (k, b) in chunk.enumerated() { n |= Int(b) << (16 - 8 * k) }
        for k in 0...chunk.count { out.append(alphabet[(n >> (18 - 6 * k)) & 63]) }
        i += 3
    }
    return out
}
