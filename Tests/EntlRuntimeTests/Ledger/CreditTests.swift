import EntlRuntime
import EntlTestSupport
import Testing

/// docs/semantics.md §4.4–§4.5 and §5: credits pay the shortfall, and a use a feature's grants
/// cannot cover spills into a credit system.
@Suite struct CreditTests {
    static let rules = """
    product plan: subscription { period month }
    product top_up: consumable { grants coins 100 }
    product backup: consumable { grants spare 1_000 }
    feature calls: metered { event "api_call"; unit "call" / "calls" }
    feature uploads: metered { event "upload" }
    credits coins { calls 1 = 10; uploads 1 = 3 }
    credits spare { calls 1 = 1 }
    entitlement pro = plan {
      grants calls 100 per month
      grants coins 500 per month
    }
    """
    let graph = compileGraph(CreditTests.rules)
    let t = "2026-11-22T12:00:00Z"
    let plan = #"{"product": "plan", "purchased_at": "2026-11-01T00:00:00Z"}"#

    func evaluation(purchases: String? = nil, usage: String) throws -> Evaluation {
        try evaluate(graph, state(#"{"purchases": [\#(purchases ?? plan)], "usage": [\#(usage)]}"#), at: t)
    }

    /// The example of §4.4: 75 calls left, 80 needed, 1 call = 10 credits: allowed via credits,
    /// 50 credits required (for the 5 missing calls, not the 80).
    @Test func creditsPayTheShortfall() throws {
        let e = try evaluation(usage: #"{"feature": "calls", "amount": 25, "at": "2026-11-10T00:00:00Z"}"#)
        let r = try e.feature("calls", required: 80)
        #expect(r.balance == 75)
        #expect(r.decision == .allowed)
        #expect(r.via == .credits)
        #expect(r.creditSystem == "coins")
        #expect(r.creditsRequired == 50)
        #expect(r.creditBalance == 500)
        #expect(r.reason == "75 calls left, so 50 units from `coins` pay for the other 5")
        // 125 needed: 50 missing cost 500, exactly the balance; 126 would cost 510.
        #expect(try e.feature("calls", required: 125).via == .credits)
        #expect(try e.feature("calls", required: 126).decision == .denied)
        #expect(try e.feature("calls", required: 126).creditsRequired == 510)
    }

    /// §5: what the feature's grants cannot cover is charged to the first credit system listing it
    /// that covers it in full at that instant; only what nothing covers is overage.
    @Test func aUseBeyondTheAllowanceSpillsIntoCredits() throws {
        let e = try evaluation(usage: #"{"feature": "calls", "amount": 130, "at": "2026-11-10T00:00:00Z"}"#)
        let calls = try e.feature("calls")
        #expect(calls.balance == 0)
        #expect(calls.overage == 0)
        #expect(try e.feature("coins").balance == 200)  // 30 calls × 10 credits
        // 80 more: `coins` has 200 (needs 800) and `spare` (not owned) none: no system covers it all,
        // so `coins` pays all it has for the 20 calls that buys; the other 60 are overage.
        let more = try evaluation(usage: #"{"feature": "calls", "amount": 130, "at": "2026-11-10T00:00:00Z"}, "#
                                  + #"{"feature": "calls", "amount": 80, "at": "2026-11-11T00:00:00Z"}"#)
        #expect(try more.feature("calls").overage == 60)
        #expect(try more.feature("coins").balance == 0)
    }

    @Test func theFirstSystemThatCoversTheWholeRestPays() throws {
        // `coins` has 500 (50 calls' worth), `spare` 1,000: 60 missing calls go to `spare` whole.
        let purchases = plan + #", {"product": "backup"}"#
        let e = try evaluation(purchases: purchases, usage: #"{"feature": "calls", "amount": 160, "at": "2026-11-10T00:00:00Z"}"#)
        #expect(try e.feature("coins").balance == 500)
        #expect(try e.feature("spare").balance == 940)
        #expect(try e.feature("calls").overage == 0)
        // A check: `coins` first in declaration order when it covers the shortfall.
        let r = try e.feature("calls", required: 10)
        #expect((r.via, r.creditSystem, r.creditsRequired) == (.credits, "coins", 100))
    }

    /// A credit system and every feature its schema lists share one time order: a use of
    /// `uploads` that spills first leaves less for a later spill of `calls`.
    @Test func spillsOfSeveralFeaturesShareTheCredits() throws {
        let e = try evaluation(usage: #"""
            {"feature": "uploads", "amount": 100, "at": "2026-11-05T00:00:00Z"},
            {"feature": "calls", "amount": 120, "at": "2026-11-06T00:00:00Z"},
            {"feature": "calls", "amount": 10, "at": "2026-11-07T00:00:00Z"}
            """#)
        // uploads: 100 × 3 = 300 credits; calls: 20 × 10 = 200 → 0 left; then 10 calls: overage.
        #expect(try e.feature("coins").balance == 0)
        #expect(try e.feature("calls").overage == 10)
        #expect(try e.feature("uploads").overage == 0)
    }

    @Test func usageByEventNameAndRetries() throws {
        let e = try evaluate(graph, state(#"""
            {"purchases": [\#(plan)], "usage": [
              {"event": "api_call", "amount": 10, "at": "2026-11-05T00:00:00Z", "id": "req-1"},
              {"event": "api_call", "amount": 10, "at": "2026-11-05T00:00:01Z", "id": "req-1"},
              {"feature": "api_call", "amount": 5, "at": "2026-11-05T00:00:02Z"},
              {"event": "calls", "amount": 7, "at": "2026-11-05T00:00:03Z"},
              {"event": "no_such_event", "amount": 1}
            ]}
            """#), at: t, explain: true)
        // 10 by event, 5 by feature name naming the event; the retry and `event: calls` count not.
        #expect(try e.feature("calls").balance == 85)
        #expect(e.ignoredPurchases() == [
            #"usage[1] event "api_call": ignored, a retry of usage[0] (id "req-1")"#,
            #"usage[3] event "calls": ignored, no event of that name"#,
            #"usage[4] event "no_such_event": ignored, no event of that name"#,
        ])
    }

    /// Records in a row naming the same are each resolved as they say (a run of one name is
    /// looked up once): `calls` by name is the feature, `calls` by event is nothing.
    @Test func recordsInARowNamingTheSameAreEachResolvedAsTheySay() throws {
        let e = try evaluation(usage: #"""
            {"feature": "calls", "amount": 1, "at": "2026-11-05T00:00:00Z"},
            {"feature": "calls", "amount": 2, "at": "2026-11-05T00:00:01Z"},
            {"event": "calls", "amount": 4, "at": "2026-11-05T00:00:02Z"},
            {"event": "calls", "amount": 8, "at": "2026-11-05T00:00:03Z"},
            {"feature": "calls", "amount": 16, "at": "2026-11-05T00:00:04Z"},
            {"feature": "api_call", "amount": 32, "at": "2026-11-05T00:00:05Z"},
            {"event": "api_call", "amount": 64, "at": "2026-11-05T00:00:06Z"}
            """#)
        // 1 + 2 + 16 + 32 + 64 = 115 calls: the 100 of the plan, then 15 × 10 coins.
        #expect(try e.feature("calls").balance == 0)
        #expect(try e.feature("coins").balance == 350)
        #expect(e.ignoredPurchases() == [
            #"usage[2] event "calls": ignored, no event of that name"#,
            #"usage[3] event "calls": ignored, no event of that name"#,
        ])
    }
}

/// `everyone`: the free tier (docs/language.md, docs/semantics.md §2 and §5).
@Suite struct FreeTierTests {
    static let rules = """
    product pro: subscription { period month }
    feature ai: metered
    entitlement free = everyone { grants ai 3 per month }
    entitlement paid = pro { grants ai 100 per month }
    entitlement newcomer = everyone and not pro
    """
    let graph = compileGraph(FreeTierTests.rules)

    @Test func everyoneIsTrueAndNoPurchaseIsBehindIt() throws {
        let e = try evaluate(graph, state("{}"), at: "2026-11-22T12:00:00Z")
        let free = try e.entitlement("free")
        #expect(free.decision == .allowed)
        #expect(free.product == nil)
        #expect(free.expiresAt == nil)
        #expect(free.validUntil == nil)
        #expect(try e.feature("ai").balance == 3)
        #expect(try e.entitlement("newcomer").allowed)
        let paying = try evaluate(graph, state(#"{"purchases": [{"product": "pro"}]}"#), at: "2026-11-22T12:00:00Z")
        #expect(try !paying.entitlement("newcomer").allowed)
        #expect(try paying.feature("ai").balance == 103)
    }

    /// Windows anchored at `customer_since`, else calendar-aligned.
    @Test func windowsStartWhenTheCustomerDid() throws {
        let since = try evaluate(graph, state(#"{"customer_since": "2026-10-20T08:00:00Z", "usage": [{"feature": "ai", "amount": 2, "at": "2026-11-19T00:00:00Z"}]}"#),
                                 at: "2026-11-22T12:00:00Z")
        let ai = try since.feature("ai")
        #expect(ai.balance == 3)  // the use was in the window that ended on November 20
        #expect(ai.sources.first?.windowStart == instant("2026-11-20T08:00:00Z"))
        #expect(ai.validUntil == instant("2026-12-20T08:00:00Z"))
        let aligned = try evaluate(graph, state(#"{"usage": [{"feature": "ai", "amount": 2, "at": "2026-11-19T00:00:00Z"}]}"#),
                                   at: "2026-11-22T12:00:00Z")
        #expect(try aligned.feature("ai").balance == 1)  // November, from the 1st
        #expect(try aligned.feature("ai").sources.first?.windowStart == instant("2026-11-01T00:00:00Z"))
    }
}
