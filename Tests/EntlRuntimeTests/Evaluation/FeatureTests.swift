import EntlRuntime
import EntlTestSupport
import Testing

/// docs/semantics.md §4: features.
@Suite struct FeatureTests {
    /// The photo-app seed: a conditional feature behind (A or B) and at least 5 credits held.
    static let photos = """
    product premium_lifetime: non_consumable
    product season_pass: non_renewing { duration 90 days }
    product zbucks: consumable
    feature premium_export: boolean
    entitlement premium = premium_lifetime { grants premium_export }
    feature attach_photos: boolean requires (premium or season_pass) and zbucks >= 5
    """
    let photos = compileGraph(FeatureTests.photos)
    let t = "2026-06-01T00:00:00Z"

    func attach(_ purchases: String, overrides: String = "{}") throws -> FeatureResult {
        try evaluate(photos, state(#"{"purchases": \#(purchases), "overrides": \#(overrides)}"#), at: t).feature("attach_photos")
    }

    @Test func requirementOfAOrBAndFiveCredits() throws {
        #expect(try attach(#"[{"product": "premium_lifetime"}, {"product": "zbucks", "quantity": 5}]"#).decision == .allowed)
        #expect(try attach(#"[{"product": "premium_lifetime"}, {"product": "zbucks", "quantity": 4}]"#).decision == .denied)
        #expect(try attach(#"[{"product": "season_pass", "purchased_at": "2026-05-01T00:00:00Z"},"#
            + #" {"product": "zbucks", "quantity": 3}, {"product": "zbucks", "quantity": 4}]"#).decision == .allowed)
        // The pass lasted 90 days from 2026-01-01: over by June.
        #expect(try attach(#"[{"product": "season_pass", "purchased_at": "2026-01-01T00:00:00Z"},"#
            + #" {"product": "zbucks", "quantity": 9}]"#).decision == .denied)
    }

    /// The reason a metered feature is allowed from its own balance: the balance in the feature's
    /// unit (singular for one), what was asked, or the unit alone when unlimited.
    @Test func meteredReasonsSayWhatIsLeftInTheFeaturesUnit() throws {
        let g = compileGraph("""
        product pro: non_consumable
        product max: non_consumable
        feature calls: metered { unit "call" / "calls" }
        feature seats: metered
        entitlement e = pro { grants calls 1_201; grants seats 2 }
        entitlement m = max { grants calls unlimited }
        """)
        let used = state(#"{"purchases": [{"product": "pro"}], "usage": [{"feature": "calls", "amount": 1200}]}"#)
        #expect(try evaluate(g, used, at: t).feature("calls").reason == "1 call left, 1 needed")
        #expect(try evaluate(g, used, at: t).feature("seats", required: 2).reason == "2 units left, 2 needed")
        #expect(try evaluate(g, state(#"{"purchases": [{"product": "pro"}]}"#), at: t).feature("calls").reason
                == "1,201 calls left, 1 needed")
        let unlimited = try evaluate(g, state(#"{"purchases": [{"product": "max"}]}"#), at: t).feature("calls")
        #expect(unlimited.reason == "unlimited calls")
        // Reasons compare by their text, whatever their form.
        #expect(unlimited.why == Reason("unlimited calls"))
    }

    @Test func requirementWithUnknowns() throws {
        let unknownPremium = try attach(#"[{"product": "zbucks", "quantity": 5}]"#, overrides: #"{"premium_lifetime": "unknown"}"#)
        #expect(unknownPremium.decision == .undetermined)
        #expect(unknownPremium.reason == "it depends on `premium_lifetime`, whose status is unknown")
        // false and unknown = false: no A or B, so unknown Z Bucks do not matter.
        #expect(try attach("[]", overrides: #"{"zbucks": "unknown"}"#).decision == .denied)
        // 3 known units plus an unknown purchase might reach 5.
        #expect(try attach(#"[{"product": "premium_lifetime"}, {"product": "zbucks", "quantity": 3},"#
            + #" {"product": "zbucks", "status": "unknown", "quantity": 2}]"#).decision == .undetermined)
    }

    @Test func booleanFeatureThroughAnEntitlement() throws {
        let e = try evaluate(photos, state(#"{"purchases": [{"product": "premium_lifetime"}]}"#), at: t)
        let r = try e.feature("premium_export", required: 7)
        #expect(r.decision == .allowed)
        #expect(r.required == nil && r.balance == nil)  // --amount is ignored for boolean features
        #expect(r.reason == "granted by entitlement `premium` (premium_lifetime)")
        #expect(r.validUntil == nil)
        let none = try evaluate(photos, state("{}"), at: t).feature("premium_export")
        #expect(none.decision == .denied)
        #expect(none.reason == "no owned product or active entitlement grants it")
    }

    /// The API-product seed: a credit table `api_calls 1 = 5`, `storage_gb 1 = 100`.
    static let api = """
    product pro: subscription { period month }
    product topup: consumable { grants universal_credits 1_000 }
    product extra: consumable { grants api_calls 10 }
    feature api_calls: metered { unit "call" / "calls" }
    feature storage_gb: metered { usage continuous }
    feature tokens: metered
    credits universal_credits { api_calls 1 = 5; storage_gb 1 = 100; tokens 1_000 = 1 }
    credits backup_credits { api_calls 1 = 1 }
    product backup: consumable { grants backup_credits 3 }
    entitlement p = pro {
      grants api_calls 10 per month
      grants storage_gb 2
    }
    """
    let api = compileGraph(FeatureTests.api)

    func apiEval(_ purchases: String, usage: String = "[]") throws -> Evaluation {
        try evaluate(api, state(#"{"purchases": \#(purchases), "usage": \#(usage)}"#), at: "2026-06-15T00:00:00Z")
    }

    let proAndTopup = #"[{"product": "pro", "purchased_at": "2026-06-01T00:00:00Z"}, {"product": "topup", "quantity": 1}]"#

    @Test func oneCallNeedsFiveCreditsWhenCallsRunOut() throws {
        let e = try apiEval(proAndTopup, usage: #"[{"feature": "api_calls", "amount": 10, "at": "2026-06-02T00:00:00Z"}]"#)
        let one = try e.feature("api_calls")
        #expect(one.decision == .allowed)
        #expect(one.via == .credits)
        #expect(one.balance == 0)
        #expect(one.creditSystem == "universal_credits")
        #expect(one.creditsRequired == 5)
        #expect(one.creditBalance == 1_000)
        #expect(try e.feature("api_calls", required: 200).decision == .allowed)  // 1,000 credits
        let tooMany = try e.feature("api_calls", required: 201)  // 1,005 credits
        #expect(tooMany.decision == .denied)
        #expect(tooMany.creditsRequired == 1_005)
        #expect(tooMany.via == nil)
    }

    @Test func directAllowanceComesFirst() throws {
        let r = try apiEval(proAndTopup).feature("api_calls", required: 10)
        #expect(r.via == .direct)
        #expect(r.creditSystem == nil && r.creditsRequired == nil && r.creditBalance == nil)
    }

    @Test func continuousFeaturesFallBackToCreditsToo() throws {
        let e = try apiEval(proAndTopup, usage: #"[{"feature": "storage_gb", "level": 2}]"#)
        let r = try e.feature("storage_gb", required: 3)
        #expect(r.decision == .allowed)
        #expect(r.via == .credits)
        #expect(r.creditsRequired == 300)
    }

    /// Credits never pay a level (§5): what a continuous level already exceeds its allowances is
    /// part of the shortfall they must cover (a review: 10 credits let a customer 90 seats over a
    /// 10-seat plan add one more — and another — and were never spent).
    @Test func aContinuousLevelOverTheAllowanceIsPartOfTheShortfall() throws {
        let graph = compileGraph("""
            product team: subscription { period month }
            feature seats: metered { usage continuous; unit "seat" / "seats" }
            credits cr { seats 1 = 10 }
            entitlement plan = team { grants seats 10 grants cr 15 }
            """)
        let team = #"{"product": "team", "purchased_at": "2026-06-01T00:00:00Z"}"#
        let over = try evaluate(graph, state(#"{"purchases": [\#(team)], "usage": [{"feature": "seats", "level": 100}]}"#),
                                at: "2026-06-15T00:00:00Z").feature("seats")
        #expect(over.decision == .denied)
        #expect((over.overage, over.creditsRequired, over.creditBalance) == (90, 910, 15))
        #expect(over.shortfall == 90)
        #expect(over.reason == "0 seats left (90 over the allowance), 1 needed; `cr` has 15 of the 910 credits needed")
        // Just over: the credits cover the seat over and the one more.
        let justOver = try evaluate(graph, state(#"{"purchases": [\#(team)], "usage": [{"feature": "seats", "level": 10}]}"#),
                                    at: "2026-06-15T00:00:00Z").feature("seats")
        #expect((justOver.decision, justOver.via, justOver.creditsRequired) == (.allowed, .credits, 10))
        let oneOver = try evaluate(graph, state(#"{"purchases": [\#(team)], "usage": [{"feature": "seats", "level": 11}]}"#),
                                   at: "2026-06-15T00:00:00Z").feature("seats")
        #expect(oneOver.decision == .denied && oneOver.creditsRequired == 20)
        // Without credits, the shortfall is the allowance that would allow one more.
        let noCredits = compileGraph("""
            product team: subscription { period month }
            feature seats: metered { usage continuous; unit "seat" / "seats" }
            entitlement plan = team { grants seats 10 }
            """)
        let alone = try evaluate(noCredits, state(#"{"purchases": [\#(team)], "usage": [{"feature": "seats", "level": 100}]}"#),
                                 at: "2026-06-15T00:00:00Z").feature("seats")
        #expect((alone.decision, alone.shortfall) == (.denied, 91))
        #expect(alone.reason == "0 seats left (90 over the allowance), 1 needed")
    }

    @Test func spentCreditsCount() throws {
        let usage = #"[{"feature": "api_calls", "amount": 10}, {"feature": "universal_credits", "amount": 996}]"#
        let e = try apiEval(proAndTopup, usage: usage)
        #expect(try e.feature("universal_credits").balance == 4)
        let r = try e.feature("api_calls")
        #expect(r.decision == .denied)
        #expect(r.reason == "0 calls left, 1 needed; `universal_credits` has 4 of the 5 credits needed")
    }

    @Test func creditsRoundUpExactly() throws {
        let e = try apiEval(proAndTopup)
        #expect(try e.feature("tokens", required: 1).creditsRequired == 1)
        #expect(try e.feature("tokens", required: 1_000).creditsRequired == 1)
        #expect(try e.feature("tokens", required: 1_001).creditsRequired == 2)
        #expect(try e.feature("tokens", required: 1_000_000_000_000_000).creditsRequired == 1_000_000_000_000)
    }

    @Test func theFirstCreditSystemThatCoversItWins() throws {
        let purchases = #"[{"product": "backup", "quantity": 1}, {"product": "topup", "quantity": 1}]"#
        let usage = #"[{"feature": "universal_credits", "amount": 998}]"#
        // universal (declared first) has 2 credits: not enough for 5; backup has 3 for 1 call.
        let r = try apiEval(purchases, usage: usage).feature("api_calls")
        #expect(r.decision == .allowed)
        #expect(r.creditSystem == "backup_credits")
        #expect(r.creditsRequired == 1)
    }

    @Test func undeterminedWhenUnknownPurchasesCouldCoverIt() throws {
        let e = try apiEval(#"[{"product": "extra", "status": "unknown", "quantity": 1}]"#)
        let r = try e.feature("api_calls", required: 5)
        #expect(r.decision == .undetermined)
        #expect(r.balance == 0)
        #expect(r.sources.map(\.certain) == [false])
        #expect(try e.feature("api_calls", required: 11).decision == .denied)  // even 10 more would not cover 11
    }

    @Test func unlimitedWins() throws {
        let g = compileGraph("""
        product a: non_consumable
        feature seats: metered { usage continuous }
        entitlement e = a { grants seats unlimited; grants seats 3 }
        """)
        let r = try evaluate(g, state(#"{"purchases": [{"product": "a"}], "usage": [{"feature": "seats", "level": 50}]}"#),
                             at: "2026-01-01T00:00:00Z").feature("seats", required: 1_000)
        #expect(r.decision == .allowed)
        #expect(r.unlimited)
        #expect(r.balance == nil)
        #expect(r.overage == 0)  // nothing exceeds an unlimited allowance (the level 50 is above the 3)
    }

    @Test func unknownNamesAndAmounts() throws {
        let e = try apiEval("[]")
        #expect(throws: EvaluationError("unknown feature `api_call`")) { try e.feature("api_call") }
        #expect(throws: EvaluationError("the required amount must be at least 1")) { try e.feature("api_calls", required: 0) }
    }
}
