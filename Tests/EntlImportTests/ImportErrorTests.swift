import EntlImport
import EntlRuntime
import EntlTestSupport
import Testing

/// Bad input is refused with a clear, located error: invalid JSON, another vendor's payload or no
/// payload at all, a timestamp out of range, a JWS without the caller's word, a field of the wrong
/// type, a value entlc does not know.
@Suite struct ImportErrorTests {
    struct Case: CustomStringConvertible, Sendable {
        var vendor: Vendor
        var json: String
        var error: String
        var allowUnverifiedJWS = false
        var description: String { "\(vendor.rawValue): \(error)" }
    }

    static let cases: [Case] = [
        Case(vendor: .revenueCat, json: #"{"subscriber": {"subscriptions": {,}}}"#,
             error: "in.json: 1:35: invalid JSON: unexpected `,`, expected a string key"),
        Case(vendor: .stripe, json: "", error: "in.json: 1:1: invalid JSON: unexpected end of input, expected a value"),
        Case(vendor: .stripe, json: #"{"subscriber": {"original_app_user_id": "u1"}}"#,
             error: "in.json: expected a Stripe Subscription, Checkout Session or list of them; this looks like a "
                + "RevenueCat subscriber response: import it as `revenuecat`"),
        Case(vendor: .revenueCat, json: #"[{"object": "subscription", "id": "sub_1"}]"#,
             error: "in.json: expected a RevenueCat subscriber response; this looks like a Stripe Subscription, "
                + "Checkout Session or list of them: import it as `stripe`"),
        Case(vendor: .play, json: #"{"transactionId": "1", "type": "Consumable"}"#,
             error: "in.json: expected a Google Play SubscriptionPurchaseV2 or ProductPurchase; this looks like "
                + "App Store Server API transactions, renewal infos or subscription statuses: "
                + "import it as `app-store`"),
        // Seconds for milliseconds would date the purchase in 1970, before every `purchased before`.
        Case(vendor: .play, json: #"{"productId": "coins", "purchaseTimeMillis": "1700000000", "purchaseState": 0}"#,
             error: "in.json: purchaseTimeMillis: \"1700000000\" is 1970-01-20T16:13:20Z read as milliseconds since "
                + "1970, before any store sold anything: seconds? (2023-11-14T22:13:20Z)"),
        Case(vendor: .appStore, json: "42",
             error: "in.json: expected App Store Server API transactions, renewal infos or subscription statuses, "
                + "found a number"),
        Case(vendor: .revenueCat, json: rc(#""expires_date": "2026-13-01""#),
             error: "in.json: subscriber.subscriptions.annual.expires_date: \"2026-13-01\" is not an RFC 3339 instant"),
        Case(vendor: .revenueCat, json: rc(#""is_sandbox": "no""#),
             error: "in.json: subscriber.subscriptions.annual.is_sandbox: expected true or false, found a string"),
        Case(vendor: .revenueCat, json: rc(#""ownership_type": "SHARED""#),
             error: "in.json: subscriber.subscriptions.annual.ownership_type: unknown ownership type \"SHARED\" "
                + "(expected one of: PURCHASED, FAMILY_SHARED)"),
        Case(vendor: .revenueCat,
             json: #"{"subscriber": {"subscriptions": {"com.example.pro": {"store": "app_store"}}}}"#,
             error: "in.json: subscriber.subscriptions[\"com.example.pro\"]: missing \"is_sandbox\""),
        Case(vendor: .appStore, json: apple(#""expiresDate": 253402300800000"#),
             error: "in.json: expiresDate: 253402300800000 is out of range (milliseconds since 1970, "
                + "up to the year 9999)"),
        Case(vendor: .appStore, json: apple(#""purchaseDate": -1"#),
             error: "in.json: purchaseDate: -1 is out of range (milliseconds since 1970, up to the year 9999)"),
        Case(vendor: .appStore, json: apple(#""purchaseDate": 1.5e12"#),
             error: "in.json: purchaseDate: 1.5e12 is not a whole number that fits in 64 bits"),
        Case(vendor: .appStore, json: apple(#""environment": "Staging""#),
             error: "in.json: environment: unknown environment \"Staging\" (expected one of: Production, Sandbox, "
                + "Xcode, LocalTesting)"),
        Case(vendor: .appStore, json: apple(#""environment": null"#),
             error: "in.json: missing \"environment\" (Production or Sandbox)"),
        Case(vendor: .appStore, json: apple(#""type": "Subscription""#),
             error: "in.json: type: unknown type \"Subscription\" (expected one of: Auto-Renewable Subscription, "
                + "Non-Consumable, Consumable, Non-Renewing Subscription)"),
        Case(vendor: .appStore, json: #"["eyJhbGciOiJFUzI1NiJ9.eyJ0cmFuc2FjdGlvbklkIjoiMSJ9.c2ln"]"#,
             error: "in.json: [0]: a signed JWS, which entlc does not verify: import the payload you verified and "
                + "decoded, or allow unverified JWS (`--unverified-jws`) if it was verified elsewhere"),
        Case(vendor: .appStore, json: #"["eyJhbGciOiJFUzI1NiJ9.bm90IGpzb24.c2ln"]"#,
             error: "in.json: [0]: the JWS payload is not JSON: 1:1: unexpected `not`, expected a value",
             allowUnverifiedJWS: true),
        Case(vendor: .appStore,
             json: #"{"data": [{"lastTransactions": [{"status": 6, "signedTransactionInfo": "x"}]}]}"#,
             error: "in.json: data[0].lastTransactions[0].status: unknown subscription status 6 (expected 1 to 5)"),
        Case(vendor: .play, json: #"{"subscriptionState": "SUBSCRIPTION_STATE_FROZEN", "lineItems": []}"#,
             error: "in.json: subscriptionState: unknown subscription state \"SUBSCRIPTION_STATE_FROZEN\" "
                + "(expected one of: SUBSCRIPTION_STATE_UNSPECIFIED, SUBSCRIPTION_STATE_PENDING, "
                + "SUBSCRIPTION_STATE_ACTIVE, SUBSCRIPTION_STATE_PAUSED, SUBSCRIPTION_STATE_IN_GRACE_PERIOD, "
                + "SUBSCRIPTION_STATE_ON_HOLD, SUBSCRIPTION_STATE_CANCELED, SUBSCRIPTION_STATE_EXPIRED, "
                + "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED)"),
        Case(vendor: .play, json: #"{"subscriptionState": "SUBSCRIPTION_STATE_ACTIVE", "#
                + #""lineItems": [{"productId": "p", "expiryTime": "2023-11-24"}]}"#,
             error: "in.json: lineItems[0].expiryTime: \"2023-11-24\" is not an RFC 3339 instant"),
        Case(vendor: .play, json: #"{"purchaseTimeMillis": "1698148800000", "purchaseState": 0}"#,
             error: "in.json: missing \"productId\": purchases.products.get leaves it out; add the product id the "
                + "request named as \"productId\""),
        Case(vendor: .play, json: #"{"productId": "coins", "purchaseTimeMillis": "soon", "purchaseState": 0}"#,
             error: "in.json: purchaseTimeMillis: \"soon\" is not a whole number that fits in 64 bits"),
        Case(vendor: .play,
             json: #"{"productId": "coins", "purchaseTimeMillis": "1700000000000", "purchaseState": 0, "quantity": -2}"#,
             error: "in.json: quantity: -2 is not a count from 0 to 10^15"),
        Case(vendor: .stripe, json: stripe(#""current_period_end": 99999999999999"#),
             error: "in.json: items.data[0].current_period_end: 99999999999999 is out of range (seconds since 1970, "
                + "up to the year 9999)"),
        Case(vendor: .stripe, json: stripe(#""current_period_end": null"#),
             error: "in.json: items.data[0]: missing \"current_period_end\" (neither the item nor its subscription "
                + "has one)"),
        Case(vendor: .stripe, json: #"{"object": "subscription", "id": "sub_1", "status": "frozen"}"#,
             error: "in.json: status: unknown subscription status \"frozen\" (expected one of: incomplete, "
                + "incomplete_expired, trialing, active, past_due, canceled, unpaid, paused)"),
        Case(vendor: .stripe, json: #"{"object": "checkout.session", "id": "cs_1", "mode": "payment", "#
                + #""payment_status": "paid", "status": "complete", "livemode": true, "created": 1679600215}"#,
             error: "in.json: missing \"line_items\": retrieve the session with `expand[]=line_items`"),
        Case(vendor: .stripe, json: #"{"object": "checkout.session", "id": "cs_1", "mode": "payment", "#
                + #""payment_status": "paid", "livemode": true, "created": 1679600215, "line_items": {"#
                + #""object": "list", "data": [], "has_more": true}}"#,
             error: "in.json: line_items: more line items than this page holds: list them all "
                + "(GET /v1/checkout/sessions/cs_1/line_items)"),
    ]

    @Test(arguments: cases)
    func theErrorSaysWhereAndWhy(_ c: Case) throws {
        let document = ImportDocument(name: "in.json", bytes: Array(c.json.utf8))
        let error = #expect(throws: ImportIssue.self) {
            try StateImporter.importState(from: c.vendor, documents: [document],
                                          options: ImportOptions(allowUnverifiedJWS: c.allowUnverifiedJWS))
        }
        #expect(error?.description == c.error)
    }

    /// `members` (`"key": value` each) with `field`'s key given `field`'s value instead (or added):
    /// one value per key, as a vendor writes them (a key written twice is refused on its own).
    static func replacing(_ members: [String], with field: String) -> String {
        let key = field.prefix { $0 != ":" }
        return (members.filter { !$0.hasPrefix(key + ":") } + [field]).joined(separator: ", ")
    }

    /// RevenueCat's example subscription with one field replaced.
    static func rc(_ field: String) -> String {
        #"{"subscriber": {"subscriptions": {"annual": {"# + replacing([#""store": "app_store""#, #""is_sandbox": false"#,
            #""purchase_date": "2019-07-14T20:07:40Z""#, #""expires_date": "2019-08-14T21:07:40Z""#], with: field) + "}}}}"
    }

    /// Apple's example transaction (auto-renewable, production) with one field replaced.
    static func apple(_ field: String) -> String {
        "{" + replacing([#""transactionId": "23456""#, #""originalTransactionId": "12345""#,
                         #""productId": "com.example.product""#, #""type": "Auto-Renewable Subscription""#,
                         #""environment": "Production""#, #""purchaseDate": 1698148900000"#,
                         #""expiresDate": 1700827300000"#], with: field) + "}"
    }

    /// Stripe's example subscription (the period on its item) with one field of the item replaced.
    static func stripe(_ field: String) -> String {
        #"{"object": "subscription", "id": "sub_1", "status": "active", "livemode": true, "created": 1679609767, "#
            + #""items": {"object": "list", "data": [{"# + replacing([#""id": "si_1""#, #""price": {"id": "price_1"}"#,
                #""current_period_start": 1679609767"#, #""current_period_end": 1682288167"#], with: field) + "}]}}"
    }
}
