import EntlRuntime
import EntlTestSupport
import Testing

/// docs/semantics.md §1: three-valued logic.
@Suite struct LogicTests {
    static let all: [Truth] = [.false, .unknown, .true]

    @Test func kleeneTruthTables() {
        // and: false dominates, then unknown.
        let and: [[Truth]] = [[.false, .false, .false], [.false, .unknown, .unknown], [.false, .unknown, .true]]
        // or: true dominates, then unknown.
        let or: [[Truth]] = [[.false, .unknown, .true], [.unknown, .unknown, .true], [.true, .true, .true]]
        for (i, a) in LogicTests.all.enumerated() {
            for (j, b) in LogicTests.all.enumerated() {
                #expect((a && b) == and[i][j], "\(a) and \(b)")
                #expect((a || b) == or[i][j], "\(a) or \(b)")
            }
        }
        #expect(LogicTests.all.map { !$0 } == [.true, .unknown, .false])
    }

    static let rules = """
    product a: non_consumable
    product b: non_consumable
    entitlement both = a and b
    entitlement either = a or b
    entitlement neither = not a
    """

    @Test(arguments: [
        // (a, b) → (both, either, neither)
        ("unknown", "not_purchased", "denied", "undetermined", "undetermined"),
        ("unknown", "purchased", "undetermined", "allowed", "undetermined"),
        ("unknown", "unknown", "undetermined", "undetermined", "undetermined"),
        ("purchased", "not_purchased", "denied", "allowed", "denied"),
    ])
    func constraintsUseKleeneLogic(_ a: String, _ b: String, _ both: String, _ either: String, _ neither: String) throws {
        let graph = compileGraph(LogicTests.rules)
        let e = try evaluate(graph, state(#"{"overrides": {"a": "\#(a)", "b": "\#(b)"}}"#), at: "2026-01-01T00:00:00Z")
        #expect(try e.entitlement("both").decision.rawValue == both)
        #expect(try e.entitlement("either").decision.rawValue == either)
        #expect(try e.entitlement("neither").decision.rawValue == neither)
    }

    @Test func undeterminedIsNeverAccess() throws {
        let graph = compileGraph(LogicTests.rules)
        let e = try evaluate(graph, state(#"{"overrides": {"a": "unknown"}}"#), at: "2026-01-01T00:00:00Z")
        let r = try e.entitlement("either")
        #expect(r.decision == .undetermined)
        #expect(!r.allowed)
        #expect(r.reason == "it depends on `a`, whose status is unknown")
    }

    /// A purchase with no date under `purchased before`: undetermined for its date, not its status
    /// (a review: the reason had blamed an unknown status no purchase had).
    @Test func anUndatedPurchaseIsUndeterminedForItsDate() throws {
        let graph = compileGraph("""
            product a: non_consumable
            entitlement early = a purchased before "2026-06-01T00:00:00Z"
            """)
        let r = try evaluate(graph, state(#"{"purchases": [{"product": "a"}]}"#), at: "2026-07-01T00:00:00Z")
            .entitlement("early")
        #expect(r.decision == .undetermined)
        #expect(r.reason == "it depends on when `a` was bought: the state gives no `purchased_at`")
    }
}

/// docs/semantics.md §2: does the customer own a product at `t`?
@Suite struct OwnershipTests {
    static let rules = """
    product life: non_consumable { id app_store "LIFE" }
    product pro: subscription { period month; id app_store "com.x.pro"; id play_store "pro"; id stripe "price_pro" }
    product other: subscription { period month; id play_store "com.x.pro" }
    product coins: consumable { id app_store "COINS" }
    product pass: non_renewing { duration 90 days }
    environment test { product qa: non_consumable }
    """
    let graph = compileGraph(OwnershipTests.rules)

    func decision(_ product: String, _ purchases: String, at: String = "2026-06-01T00:00:00Z",
                  overrides: String = "{}", env: Environment? = nil) throws -> Decision {
        let s = state(#"{"purchases": \#(purchases), "overrides": \#(overrides)}"#)
        return try evaluate(graph, s, at: at, environment: env).product(product).decision
    }

    @Test func overridesDecideAlone() throws {
        let revoked = #"[{"product": "life", "status": "revoked"}]"#
        let active = #"[{"product": "life"}]"#
        #expect(try decision("life", revoked, overrides: #"{"life": "purchased"}"#) == .allowed)
        #expect(try decision("life", active, overrides: #"{"life": "not_purchased"}"#) == .denied)
        #expect(try decision("life", active, overrides: #"{"life": "unknown"}"#) == .undetermined)
    }

    @Test(arguments: ["revoked", "expired", "billing_retry"])
    func endedStatusesAreNotOwned(_ status: String) throws {
        #expect(try decision("pro", #"[{"product": "pro", "status": "\#(status)", "expires_at": "2027-01-01T00:00:00Z"}]"#) == .denied)
    }

    @Test func unknownStatusIsUnknownUnlessAnotherPurchaseIsOwned() throws {
        #expect(try decision("life", #"[{"product": "life", "status": "unknown"}]"#) == .undetermined)
        #expect(try decision("life", #"[{"product": "life", "status": "unknown"}, {"product": "life"}]"#) == .allowed)
        #expect(try decision("life", #"[{"product": "life", "status": "unknown"}, {"product": "life", "status": "revoked"}]"#)
            == .undetermined)
    }

    @Test func consumablesCountOwnedUnits() throws {
        let s = state(#"{"purchases": [{"product": "coins", "quantity": 3}, {"product": "coins", "quantity": 4},"#
            + #" {"product": "coins", "quantity": 9, "status": "revoked"}, {"product": "coins", "quantity": 0}]}"#)
        let r = try evaluate(graph, s, at: "2026-06-01T00:00:00Z").product("coins")
        #expect(r.decision == .allowed)
        #expect(r.quantity == 7)
        #expect(try decision("coins", #"[{"product": "coins", "quantity": 0}]"#) == .denied)
        // A consumable's status rules end at the quantity: an old expiry does not matter.
        #expect(try decision("coins", #"[{"product": "coins", "expires_at": "2020-01-01T00:00:00Z"}]"#) == .allowed)
    }

    @Test func anOverrideDecidesTheUnitsHeldToo() throws {
        // Found by differential testing: overrides decide alone, so purchases add no units.
        let held = #"[{"product": "coins", "quantity": 7}]"#
        for (value, decision, quantity): (String, Decision, Int64) in [("purchased", .allowed, 1), ("not_purchased", .denied, 0),
                                                                       ("unknown", .undetermined, 0)] {
            let s = state(#"{"purchases": \#(held), "overrides": {"coins": "\#(value)"}}"#)
            let r = try evaluate(graph, s, at: "2026-06-01T00:00:00Z").product("coins")
            #expect(r.decision == decision)
            #expect(r.quantity == quantity)
        }
    }

    @Test func pastDueIsOwnedDuringGrace() throws {
        let p = #"[{"product": "pro", "status": "past_due", "expires_at": "2026-05-01T00:00:00Z", "grace_until": "2026-06-10T00:00:00Z"}]"#
        #expect(try decision("pro", p, at: "2026-06-09T23:59:59Z") == .allowed)
        #expect(try decision("pro", p, at: "2026-06-10T00:00:00Z") == .denied)
        #expect(try decision("pro", #"[{"product": "pro", "status": "past_due"}]"#) == .allowed)
    }

    @Test(arguments: ["active", "trialing"])
    func activeAndTrialingRunToExpiry(_ status: String) throws {
        let p = #"[{"product": "pro", "status": "\#(status)", "expires_at": "2026-06-01T00:00:00Z"}]"#
        #expect(try decision("pro", p, at: "2026-05-31T23:59:59.999Z") == .allowed)
        #expect(try decision("pro", p, at: "2026-06-01T00:00:00Z") == .denied)
        #expect(try decision("pro", #"[{"product": "pro", "status": "\#(status)"}]"#) == .allowed)
    }

    @Test func canceledRunsToThePeriodEnd() throws {
        let p = #"[{"product": "pro", "status": "canceled", "expires_at": "2026-06-15T00:00:00Z"}]"#
        #expect(try decision("pro", p) == .allowed)
        #expect(try decision("pro", p, at: "2026-06-15T00:00:00Z") == .denied)
        #expect(try decision("pro", #"[{"product": "pro", "status": "canceled"}]"#) == .denied)
    }

    @Test func nonRenewingExpiresAfterItsDuration() throws {
        let p = #"[{"product": "pass", "purchased_at": "2026-03-01T00:00:00Z"}]"#
        #expect(try decision("pass", p, at: "2026-05-29T23:59:59Z") == .allowed)  // + 90 days = May 30
        #expect(try decision("pass", p, at: "2026-05-30T00:00:00Z") == .denied)
        let explicit = #"[{"product": "pass", "purchased_at": "2026-03-01T00:00:00Z", "expires_at": "2026-12-01T00:00:00Z"}]"#
        #expect(try decision("pass", explicit, at: "2026-11-30T00:00:00Z") == .allowed)
    }

    @Test func purchasesOfAnotherEnvironmentAreIgnored() throws {
        let p = #"[{"product": "life", "environment": "test"}]"#
        #expect(try decision("life", p) == .denied)
        #expect(try decision("life", p, env: .test) == .allowed)
        #expect(try decision("qa", #"[{"product": "qa", "environment": "test"}]"#, env: .test) == .allowed)
        let e = try evaluate(graph, state(#"{"purchases": \#(p)}"#), at: "2026-06-01T00:00:00Z")
        #expect(e.ignoredPurchases() == [#"purchase #0 "life": ignored, environment test, evaluating live"#])
    }

    @Test func storeIDsMapToProducts() throws {
        // With a store, only that store's ids match.
        #expect(try decision("pro", #"[{"product": "com.x.pro", "store": "app_store"}]"#) == .allowed)
        #expect(try decision("other", #"[{"product": "com.x.pro", "store": "play_store"}]"#) == .allowed)
        #expect(try decision("pro", #"[{"product": "pro", "store": "stripe"}]"#) == .denied)
        // Without a store: a rule-set name wins, then an id of any store.
        #expect(try decision("pro", #"[{"product": "pro"}]"#) == .allowed)
        #expect(try decision("pro", #"[{"product": "price_pro"}]"#) == .allowed)
        #expect(try decision("life", #"[{"product": "LIFE"}]"#) == .allowed)
    }

    @Test func anIDTwoStoresMapToDifferentProductsIsAnError() {
        let s = state(#"{"purchases": [{"product": "LIFE"}, {"product": "com.x.pro"}]}"#)
        #expect(throws: EvaluationError(
            "purchases[1].product: \"com.x.pro\" is the app_store id of product `pro` and the play_store id of product `other`; "
                + "add \"store\" to say which")) {
            try evaluate(graph, s, at: "2026-06-01T00:00:00Z")
        }
    }

    @Test func unknownIDsAreIgnoredAndReported() throws {
        let s = state(#"{"purchases": [{"product": "SOMETHING.ELSE", "store": "app_store"}, {"product": "nope"}]}"#)
        let e = try evaluate(graph, s, at: "2026-06-01T00:00:00Z")
        #expect(e.ignoredPurchases() == [
            #"purchase #0 "SOMETHING.ELSE" (app_store): ignored, no product has app_store id "SOMETHING.ELSE""#,
            #"purchase #1 "nope": ignored, no product is named or has a store id "nope""#,
        ])
    }

    @Test func overridesMustNameAProduct() {
        #expect(throws: EvaluationError("overrides.lief: no product `lief` in environment live")) {
            try evaluate(graph, state(#"{"overrides": {"lief": "purchased"}}"#), at: "2026-06-01T00:00:00Z")
        }
    }

    /// CHOICE (README): a purchase made after `t` did not exist at `t`.
    @Test func purchasesAfterTheInstantAreNotOwnedYet() throws {
        let p = #"[{"product": "life", "purchased_at": "2026-07-01T00:00:00Z"}]"#
        #expect(try decision("life", p) == .denied)
        #expect(try decision("life", p, at: "2026-07-01T00:00:00Z") == .allowed)
    }
}

/// docs/semantics.md §1: only a purchase's status can be unknown, never its quantity.
@Suite struct UnknownQuantityTests {
    static let rules = """
    product zb: consumable
    entitlement rich = zb >= 4
    """
    let graph = compileGraph(UnknownQuantityTests.rules)

    func rich(_ purchases: String, overrides: String = "{}") throws -> EntitlementResult {
        try evaluate(graph, state(#"{"purchases": \#(purchases), "overrides": \#(overrides)}"#), at: "2026-06-01T00:00:00Z")
            .entitlement("rich")
    }

    @Test func anUnknownPurchaseCountsOnlyItsOwnUnits() throws {
        // 2 owned units and one unknown purchase of 1 unit: at most 3, so `zb >= 4` is false.
        #expect(try rich(#"[{"product": "zb", "quantity": 2}, {"product": "zb", "quantity": 1, "status": "unknown"}]"#)
            .decision == .denied)
        // An unknown purchase of 3 units could make 5: undetermined.
        let r = try rich(#"[{"product": "zb", "quantity": 2}, {"product": "zb", "quantity": 3, "status": "unknown"}]"#)
        #expect(r.decision == .undetermined)
        // The product is owned, and its name is still in the reason.
        #expect(r.reason == "it depends on `zb`, whose status is unknown")
        // Exactly enough with the unknown units: undetermined; owned units enough: true.
        #expect(try rich(#"[{"product": "zb", "quantity": 2}, {"product": "zb", "quantity": 2, "status": "unknown"}]"#)
            .decision == .undetermined)
        #expect(try rich(#"[{"product": "zb", "quantity": 4}, {"product": "zb", "quantity": 2, "status": "unknown"}]"#)
            .decision == .allowed)
    }

    @Test func anUnknownPurchaseOfNoUnitsMakesNothingUnknown() throws {
        let purchases = #"[{"product": "zb", "quantity": 0, "status": "unknown"}]"#
        #expect(try rich(purchases).decision == .denied)
        let e = try evaluate(graph, state(#"{"purchases": \#(purchases)}"#), at: "2026-06-01T00:00:00Z")
        #expect(try e.product("zb").decision == .denied)
    }

    @Test func anOverrideDecidesAlone() throws {
        let held = #"[{"product": "zb", "quantity": 9}]"#
        #expect(try rich(held, overrides: #"{"zb": "unknown"}"#).decision == .undetermined)
        #expect(try rich(held, overrides: #"{"zb": "purchased"}"#).decision == .denied)  // one unit
        #expect(try rich("[]", overrides: #"{"zb": "purchased"}"#).decision == .denied)
    }
}
