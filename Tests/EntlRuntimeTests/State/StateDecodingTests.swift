import EntlRuntime
import EntlTestSupport
import Testing

/// docs/state.md: decoding the purchase-tracker state, with located errors.
@Suite struct StateDecodingTests {
    @Test func theSpecExampleDecodes() throws {
        let s = try PurchaseState(json: readRepoFile("Tests/Fixtures/states/spec-example.state.json"))
        #expect(s.customer == "user_42")
        #expect(s.now == instant("2026-11-22T12:00:00Z"))
        #expect(s.environment == .live)
        #expect(s.purchases.count == 3)
        #expect(s.purchases[0] == Purchase(
            product: "com.example.pro.monthly", store: "app_store", status: .active,
            purchasedAt: instant("2026-10-05T09:00:00Z"), periodStart: instant("2026-11-05T09:00:00Z"),
            expiresAt: instant("2026-12-05T09:00:00Z"), willRenew: true, ownership: .purchased))
        #expect(s.purchases[1] == Purchase(product: "zbucks", quantity: 7))
        #expect(s.purchases[2].status == .trialing)
        #expect(s.usage == [
            UsageRecord(feature: "api_calls", kind: .amount(1200), at: instant("2026-11-20T10:00:00Z")),
            UsageRecord(feature: "seats", kind: .level(3), at: instant("2026-11-21T00:00:00Z")),
        ])
        #expect(s.overrides.map(\.product) == ["premium_lifetime", "zbucks"])
        #expect(s.overrides.map(\.value) == [.purchased, .unknown])
    }

    @Test func defaultsAndNulls() throws {
        let s = try PurchaseState(json: #"{"purchases": [{"product": "p", "expires_at": null, "store": null}], "unknown_key": [1, 2]}"#)
        #expect(s.purchases == [Purchase(product: "p")])
        #expect(s.customer == nil && s.now == nil && s.environment == nil)
        #expect(try PurchaseState(json: "{}") == PurchaseState())
    }

    @Test func fractionalSecondsAndOffsets() throws {
        let s = try PurchaseState(json: #"{"now": "2026-11-22T13:00:00.125+01:00"}"#)
        #expect(s.now?.rfc3339 == "2026-11-22T12:00:00.125Z")
    }

    /// Keys and instants in their common form are read straight from the bytes; every other form
    /// (an escape, a key of 16 bytes, a key or instant too near the end of the input to load 16
    /// bytes past its quote, fractional seconds) is read the general way, with the same result.
    @Test func keysAndInstantsReadInPlaceAgreeWithTheGeneralWay() throws {
        let expected = PurchaseState(now: instant("2026-11-22T12:00:00Z"), purchases: [
            Purchase(product: "p", store: "stripe", purchasedAt: instant("2026-10-01T00:00:00Z"),
                     periodStart: instant("2026-11-01T00:00:00Z"), expiresAt: instant("2026-12-01T00:00:00Z"),
                     willRenew: false),
        ])
        let forms = [
            #"{"now":"2026-11-22T12:00:00Z","purchases":[{"product":"p","store":"stripe","purchased_at":"2026-10-01T00:00:00Z","period_start":"2026-11-01T00:00:00Z","expires_at":"2026-12-01T00:00:00Z","will_renew":false}]}"#,
            // Escaped keys (`d`, `s`, `_`), fractional seconds, an offset, lower-case `t` and `z`.
            #"{"now":"2026-11-22T12:00:00.000Z","purchases":[{"pro\u0064uct":"p","\u0073tore":"stripe","purchased\u005fat":"2026-10-01t00:00:00z","period_start":"2026-11-01T01:00:00+01:00","expires_at":"2026-12-01T00:00:00Z","will_renew":false}]}"#,
            // The last key and instant end within 16 bytes of the input's end.
            #"{"purchases":[{"product":"p","store":"stripe","purchased_at":"2026-10-01T00:00:00Z","period_start":"2026-11-01T00:00:00Z","will_renew":false,"expires_at":"2026-12-01T00:00:00Z"}],"now":"2026-11-22T12:00:00Z"}"#,
        ]
        for json in forms { #expect(try PurchaseState(json: json) == expected, "\(json)") }
        // A duplicate is one whichever way each spelling was read.
        #expect(throws: StateError(path: "purchases[0].product", message: #"duplicate key "product""#)) {
            try PurchaseState(json: #"{"purchases":[{"product":"p","pro\u0064uct":"q","store":"stripe","status":"active"}]}"#)
        }
        #expect(throws: StateError(path: "café", message: #"duplicate key "café""#)) {
            try PurchaseState(json: #"{"caf\u00e9":1,"café":2}"#)
        }
        // Unknown keys of 8, 15 and 16 bytes, and one with a byte past ASCII, are warnings.
        let unknown = try PurchaseState(json: #"{"abcdefgh":1,"abcdefghijklmno":2,"abcdefghijklmnop":3,"café":4,"now":null}"#)
        #expect(unknown.warnings.map(\.path) == ["abcdefgh", "abcdefghijklmno", "abcdefghijklmnop", "café"])
    }

    @Test(arguments: [
        (#"{"purchases": [{"product": "a"}, {"product": "b"}, {"product": "c"}, {"product": "p", "expires_at": "2026-13-01"}]}"#,
         #"purchases[3].expires_at: "2026-13-01" is not an RFC 3339 instant"#),
        (#"{"purchases": [{"product": "p", "status": "actve"}]}"#,
         #"purchases[0].status: unknown status "actve" (expected one of: active, trialing, past_due, billing_retry, canceled, expired, revoked, unknown)"#),
        (#"{"usage": [{"feature": "a", "amount": 1}, {"feature": "a", "amount": 1}, {"feature": "a", "amount": -5}]}"#,
         "usage[2].amount: -5 is negative"),
        (#"{"usage": [{"feature": "a", "amount": 1000000000000001}]}"#, "usage[0].amount: 1000000000000001 is larger than 10^15"),
        (#"{"usage": [{"feature": "a", "amount": 99999999999999999999999}]}"#,
         "usage[0].amount: 99999999999999999999999 is larger than 10^15"),
        (#"{"usage": [{"feature": "a", "amount": "# + String(repeating: "9", count: 100_000) + "}]}",
         "usage[0].amount: " + String(repeating: "9", count: 40) + "… (100000 characters) is larger than 10^15"),
        (#"{"purchases": [{"product": "p", "quantity": 1.5}]}"#, "purchases[0].quantity: 1.5 is not a whole number"),
        (#"{"purchases": [{"product": "p", "quantity": "3"}]}"#, "purchases[0].quantity: expected an integer, found a string"),
        (#"{"purchases": [{"store": "x"}]}"#, #"purchases[0]: missing "product""#),
        (#"{"purchases": {"product": "p"}}"#, "purchases: expected an array, found an object"),
        (#"{"purchases": ["p"]}"#, "purchases[0]: expected an object, found a string"),
        (#"{"usage": [{"feature": "a"}]}"#, #"usage[0]: missing "amount" (a use) or "level" (a continuous level)"#),
        (#"{"usage": [{"feature": "a", "amount": 1, "level": 2}]}"#, #"usage[0]: give "amount" or "level", not both"#),
        (#"{"overrides": {"p": "yes"}}"#, #"overrides.p: unknown override "yes" (expected one of: purchased, not_purchased, unknown)"#),
        (#"{"environment": "staging"}"#, #"environment: unknown environment "staging" (expected one of: live, test)"#),
        (#"{"purchases": [{"product": "p", "will_renew": "yes"}]}"#, "purchases[0].will_renew: expected true or false, found a string"),
        (#"{"purchases": [{"product": "p", "status": "active", "status": "expired"}]}"#, #"purchases[0].status: duplicate key "status""#),
        ("[1, 2]", "the state must be a JSON object, found an array"),
        ("{\"customer\": \"x\",\n  \"now\": }", "2:10: invalid JSON: unexpected `}`, expected a value"),
        // Invalid JSON is reported as such, where it is, never classified by its first byte.
        ("not json", "1:1: invalid JSON: unexpected `not`, expected a value"),
        ("tru", "1:1: invalid JSON: unexpected `tru`, expected `true`"),
        (#"{"customer": tru}"#, "1:14: invalid JSON: unexpected `tru`, expected `true`"),
        ("{\"purchases\": [\n  {\"product\": \"p\",}\n]}", "2:19: invalid JSON: unexpected `}`, expected a string key"),
        (#"{"customer": {"a": }}"#, "1:20: invalid JSON: unexpected `}`, expected a value"),
    ])
    func badStatesSayWhereAndWhy(_ json: String, _ message: String) {
        do {
            _ = try PurchaseState(json: json)
            Issue.record("decoded: \(json)")
        } catch {
            #expect(error.description == message)
        }
    }

    /// A misspelled key would otherwise be skipped silently, and could grant access: each unknown
    /// key is a warning naming its place, with the key it most likely meant.
    @Test func unknownKeysAreWarningsWithTheirPlace() throws {
        let s = try PurchaseState(json: #"""
            {"Now": "2026-11-22T12:00:00Z", "customer": "c",
             "purchases": [{"product": "pro", "state": "expired", "expires": "2026-01-01T00:00:00Z"}],
             "usage": [{"feature": "calls", "amount": 1, "ammount": 2, "when": "2026-11-01T00:00:00Z"}],
             "overrides": {"anything": "purchased"}, "x-trace": {"ok": [1, 2]}}
            """#)
        #expect(s.warnings.map(\.description) == [
            "Now: unknown key (did you mean `now`?)",
            "purchases[0].state: unknown key (did you mean `status`?)",
            "purchases[0].expires: unknown key (did you mean `expires_at`?)",
            "usage[0].ammount: unknown key (did you mean `amount`?)",
            "usage[0].when: unknown key",
            "x-trace: unknown key",
        ])
        #expect(s.now == nil)  // keys match exactly: `Now` is not `now`
        #expect(s.purchases[0].status == .active)
        // The warnings are not part of the state.
        let same = try PurchaseState(json: #"{"customer": "c", "purchases": [{"product": "pro"}], "usage": [{"feature": "calls", "amount": 1}], "overrides": {"anything": "purchased"}}"#)
        #expect(s == same)
    }

    /// Keys are matched as words of their bytes: every known key is found whatever its length,
    /// and keys that differ only past the first eight bytes, or are one byte longer or shorter
    /// than a known key, or longer than any, are not.
    @Test func keysMatchOnEveryByte() throws {
        let s = try PurchaseState(json: #"""
            {"customer_since": "2026-01-01T00:00:00Z", "customer_sincf": 1, "customer_sinc": 1, "n": 1,
             "purchases": [{"product": "p", "purchased_at": "2026-02-01T00:00:00Z", "purchased_au": 1, "period_start": "2026-03-01T00:00:00Z",
                            "quantity": 2, "quantity_of_everything": 1}],
             "usage": [{"event": "e", "level": 3, "at": "2026-04-01T00:00:00Z", "id": "x", "ad": 1}]}
            """#)
        #expect(s.customerSince?.rfc3339 == "2026-01-01T00:00:00Z")
        #expect(s.purchases[0].purchasedAt?.rfc3339 == "2026-02-01T00:00:00Z")
        #expect(s.purchases[0].periodStart?.rfc3339 == "2026-03-01T00:00:00Z")
        #expect(s.purchases[0].quantity == 2)
        #expect(s.usage == [UsageRecord(event: "e", kind: .level(3), at: Instant(rfc3339: "2026-04-01T00:00:00Z"), id: "x")])
        #expect(s.warnings.map(\.description) == [
            "customer_sincf: unknown key (did you mean `customer_since`?)",
            "customer_sinc: unknown key (did you mean `customer_since`?)",
            "n: unknown key (did you mean `now`?)",
            "purchases[0].purchased_au: unknown key (did you mean `purchased_at`?)",
            "purchases[0].quantity_of_everything: unknown key (did you mean `quantity`?)",
            "usage[0].ad: unknown key (did you mean `at`?)",
        ])
    }

    @Test func strictDecodingRefusesUnknownKeys() {
        let options = StateDecodingOptions(strict: true)
        #expect(throws: StateError(path: "purchases[0].state", message: "unknown key (did you mean `status`?)")) {
            try PurchaseState(json: #"{"purchases": [{"product": "pro", "state": "expired"}]}"#, options: options)
        }
        #expect(throws: StateError(path: "Now", message: "unknown key (did you mean `now`?)")) {
            try PurchaseState(json: #"{"Now": "2026-11-22T12:00:00Z"}"#, options: options)
        }
        #expect(throws: Never.self) { try PurchaseState(json: #"{"now": "2026-11-22T12:00:00Z"}"#, options: options) }
    }

    @Test func usageByEventWithAnIDAndTheCustomersStart() throws {
        let s = try PurchaseState(json: #"""
            {"customer_since": "2025-03-01T00:00:00Z",
             "usage": [{"event": "api_call", "amount": 3, "id": "req-7"}, {"feature": "seats", "level": 2}]}
            """#)
        #expect(s.customerSince == instant("2025-03-01T00:00:00Z"))
        #expect(s.usage == [UsageRecord(event: "api_call", kind: .amount(3), id: "req-7"), UsageRecord(feature: "seats", kind: .level(2))])
        #expect(s.warnings.isEmpty)
        #expect(throws: StateError(path: "usage[0]", message: #"give "feature" or "event", not both"#)) {
            try PurchaseState(json: #"{"usage": [{"feature": "a", "event": "b", "amount": 1}]}"#)
        }
        #expect(throws: StateError(path: "usage[0]", message: #"missing "feature" (or "event")"#)) {
            try PurchaseState(json: #"{"usage": [{"amount": 1}]}"#)
        }
    }

    @Test func numbersAtTheLimitAreFine() throws {
        let s = try PurchaseState(json: #"{"purchases": [{"product": "p", "quantity": 1000000000000000}], "usage": [{"feature": "f", "level": 0}, {"feature": "f", "amount": -0}]}"#)
        #expect(s.purchases[0].quantity == 1_000_000_000_000_000)
        #expect(s.usage.map(\.kind) == [.level(0), .amount(0)])
    }

    /// A number with no fraction is that integer however it is written, as JSON Schema reads it.
    @Test(arguments: [("5", 5), ("5.0", 5), ("5e0", 5), ("0.5e1", 5), ("50E-1", 5), ("1e15", 1_000_000_000_000_000),
                      ("1000000000000000.000", 1_000_000_000_000_000), ("-0.0", 0), ("0e99999999999", 0)] as [(String, Int64)])
    func wholeNumbersInAnyNotation(_ written: String, _ value: Int64) throws {
        let s = try PurchaseState(json: #"{"usage": [{"feature": "f", "amount": \#(written)}]}"#)
        #expect(s.usage[0].kind == .amount(value))
    }

    /// A mantissa of millions of digits with an exponent to match is still that integer (the
    /// exponent had been read only up to about ten million).
    @Test func aLongMantissaWithAnExponentToMatch() throws {
        let zeros = String(repeating: "0", count: 12_000_000)
        for written in ["3" + zeros + "e-12000000", "0." + zeros + "3e12000001"] {
            let s = try PurchaseState(json: #"{"usage": [{"feature": "f", "amount": \#(written)}]}"#)
            #expect(s.usage[0].kind == .amount(3))
        }
    }

    @Test(arguments: [("2.5", "2.5 is not a whole number"), ("25e-1", "25e-1 is not a whole number"),
                      ("1e16", "1e16 is larger than 10^15"), ("-1.0", "-1.0 is negative"),
                      ("1e-99999999999", "1e-99999999999 is not a whole number")])
    func fractionsAndOutOfRangeNumbersAreRefused(_ written: String, _ message: String) {
        #expect(throws: StateError(path: "usage[0].amount", message: message)) {
            try PurchaseState(json: #"{"usage": [{"feature": "f", "amount": \#(written)}]}"#)
        }
    }

    /// A JSON array of `count` copies of `item`, as bytes.
    static func array(_ key: String, of item: String, count: Int) -> [UInt8] {
        var bytes = Array("{\"\(key)\": [".utf8)
        bytes.reserveCapacity(bytes.count + count * (item.utf8.count + 1) + 2)
        for i in 0..<count {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += item.utf8
        }
        bytes += Array("]}".utf8)
        return bytes
    }

    @Test func purchasesAreLimited() throws {
        let item = #"{"product": "p"}"#
        #expect(StateLimits.default == StateLimits(purchases: 100_000, usageRecords: 1_000_000))  // as the README says
        #expect(try PurchaseState(json: Self.array("purchases", of: item, count: 100_000)).purchases.count == 100_000)
        #expect(throws: StateError(path: "purchases", message: "more than 100000 purchases, the most a state may hold")) {
            try PurchaseState(json: Self.array("purchases", of: item, count: 100_001))
        }
    }

    @Test func usageRecordsAreLimited() throws {
        // The default (a million records) is enforced by the same code; a small limit keeps the test fast.
        let item = #"{"feature":"f","amount":1}"#
        let limits = StateLimits(usageRecords: 1_000)
        #expect(try PurchaseState(json: Self.array("usage", of: item, count: 1_000), limits: limits).usage.count == 1_000)
        #expect(throws: StateError(path: "usage", message: "more than 1000 usage records, the most a state may hold")) {
            try PurchaseState(json: Self.array("usage", of: item, count: 1_001), limits: limits)
        }
    }
}
