import EntlRuntime
import EntlTestSupport
import Testing

/// Grants to one customer (docs/state.md `grants`): promotional entitlements, allowances with soft
/// limits, lots that lapse (docs/selling.md).
@Suite struct StateGrantTests {
    static let rules = """
    product pro: subscription { period month }
    feature calls: metered { unit "call" / "calls" }
    feature export: boolean
    feature seats: metered { usage continuous }
    credits coins { calls 1 = 2 }
    entitlement plan = pro { grants calls 100 per month; grants export }
    entitlement team = plan { grants seats 5 }
    """
    let graph = compileGraph(StateGrantTests.rules)

    func evaluation(_ body: String, at: String = "2026-11-20T00:00:00Z") throws -> Evaluation {
        try evaluate(graph, state("{\(body)}"), at: at)
    }

    /// An entitlement's grant: active over `[from, until)` whatever its constraint, reported as
    /// `promotional`; what names it sees it active; its grants anchored at `from`.
    @Test func aPromotionalEntitlement() throws {
        let grant = #""grants": [{"entitlement": "plan", "from": "2026-11-05T00:00:00Z", "until": "2026-12-05T00:00:00Z", "#
            + #""id": "promo-1", "reason": "Black Friday"}]"#
        let e = try evaluation(grant + #", "usage": [{"feature": "calls", "amount": 30, "at": "2026-11-10T00:00:00Z"}]"#)
        let plan = try e.entitlement("plan")
        #expect(plan.decision == .allowed)
        #expect(plan.status == .promotional)
        #expect(plan.product == nil)
        #expect(plan.expiresAt == instant("2026-12-05T00:00:00Z"))
        #expect(plan.reason == "active through a grant to this customer (`promo-1`, Black Friday) until 2026-12-05T00:00:00Z")
        #expect(try e.entitlement("team").decision == .allowed)
        #expect(try e.feature("export").allowed)
        let calls = try e.feature("calls")
        #expect(calls.balance == 70)
        #expect(calls.sources.map(\.windowStart) == [instant("2026-11-05T00:00:00Z")])
        #expect(calls.validUntil == instant("2026-12-05T00:00:00Z"))
        // Before `from` and from `until` on, it is not there.
        #expect(try evaluation(grant, at: "2026-11-04T23:59:59Z").entitlement("plan").status == .neverPurchased)
        #expect(try evaluation(grant, at: "2026-12-05T00:00:00Z").entitlement("plan").decision == .denied)
        // A purchase that makes it active still represents it.
        let bought = try evaluation(grant + #", "purchases": [{"product": "pro", "purchased_at": "2026-11-01T00:00:00Z", "#
                                    + #""expires_at": "2026-12-01T00:00:00Z"}]"#)
        #expect(try bought.entitlement("plan").status == .active)
        #expect(try bought.entitlement("plan").product == "pro")
        // Its end is the later of the two.
        #expect(try bought.entitlement("plan").expiresAt == instant("2026-12-05T00:00:00Z"))
    }

    /// A feature's grant: an allowance from `from`, after the rule set's grants in the order's last
    /// tie-break; it never pays for a use before its `from`.
    @Test func aSupportCredit() throws {
        let e = try evaluation(#"""
            "purchases": [{"product": "pro", "purchased_at": "2026-11-01T00:00:00Z", "expires_at": "2026-12-01T00:00:00Z"}],
            "grants": [{"feature": "calls", "amount": 50, "from": "2026-11-12T00:00:00Z", "id": "ticket-881",
                        "reason": "outage on Nov 11"}],
            "usage": [{"feature": "calls", "amount": 100, "at": "2026-11-10T00:00:00Z"},
                      {"feature": "calls", "amount": 20, "at": "2026-11-15T00:00:00Z"}]
            """#)
        let calls = try e.feature("calls")
        #expect(calls.balance == 30)
        #expect(calls.overage == 0)
        let credit = try #require(calls.sources.first { $0.kind == "state" })
        #expect((credit.grant, credit.id, credit.reason, credit.used, credit.remaining)
            == ("ticket-881", "ticket-881", "outage on Nov 11", 20, 30))
        #expect(credit.json["id"] == .string("ticket-881"))
        // The use of the 10th came before the credit: the plan paid all of it, nothing was left over.
        let before = try evaluation(#"""
            "grants": [{"feature": "calls", "amount": 50, "from": "2026-11-12T00:00:00Z"}],
            "usage": [{"feature": "calls", "amount": 20, "at": "2026-11-10T00:00:00Z"}]
            """#)
        #expect(try before.feature("calls").balance == 50)
        #expect(try before.feature("calls").overage == 20)
        // A boolean feature's grant allows it; a continuous feature's adds to its allowance.
        let boolean = try evaluation(#""grants": [{"feature": "export", "from": "2026-11-01T00:00:00Z"}]"#)
        #expect(try boolean.feature("export").reason == "granted to this customer (`grants[0]`)")
        let seats = try evaluation(#""grants": [{"feature": "seats", "amount": 3, "from": "2026-11-01T00:00:00Z"}], "#
                                   + #""usage": [{"feature": "seats", "level": 2}]"#)
        #expect(try seats.feature("seats").balance == 1)
    }

    /// `overage [up to N]`: use beyond the allowance is allowed and overdrawn (billable), up to N a
    /// window; credits pay first; `overage` stays what nothing could cover.
    @Test func aSoftLimit() throws {
        let grants = #""grants": [{"feature": "calls", "amount": 10, "per": "month", "overage": true, "overage_up_to": 5, "#
            + #""from": "2026-11-01T00:00:00Z", "id": "api"}, {"feature": "coins", "amount": 4, "from": "2026-11-01T00:00:00Z"}]"#
        let e = try evaluation(grants + #", "usage": [{"feature": "calls", "amount": 14, "at": "2026-11-10T00:00:00Z"}]"#)
        // 10 from the allowance, 2 from the coins (4 credits), 2 overdrawn.
        let calls = try e.feature("calls")
        #expect((calls.balance, calls.overdrawn, calls.overage) == (0, 2, 0))
        #expect(try e.feature("coins").balance == 0)
        let api = try #require(calls.sources.first)
        #expect((api.overdrawn, api.overdraftLeft) == (2, 3))
        // 3 more may be overdrawn: allowed via overage; 4 may not.
        #expect(try e.feature("calls", required: 3).via == .overage)
        let four = try e.feature("calls", required: 4)
        #expect(four.decision == .denied)
        // One more unit of allowance would let the four through (3 overdrawn): the shortfall is 1.
        #expect(four.shortfall == 1)
        #expect(try e.feature("calls", required: 9).shortfall == 6)
        // Recorded anyway, what the cap leaves is overage; the next window starts afresh.
        let over = try evaluation(grants + #", "usage": [{"feature": "calls", "amount": 20, "at": "2026-11-10T00:00:00Z"}]"#)
        #expect(try (over.feature("calls").overdrawn, over.feature("calls").overage) == (5, 3))
        let december = try evaluation(grants + #", "usage": [{"feature": "calls", "amount": 20, "at": "2026-11-10T00:00:00Z"}]"#,
                                      at: "2026-12-02T00:00:00Z")
        #expect(try (december.feature("calls").overdrawn, december.feature("calls").balance) == (0, 10))
        // Without a cap, no limit: `overdraft_left` is null.
        let unbounded = try evaluation(#""grants": [{"feature": "calls", "amount": 1, "overage": true, "from": "2026-11-01T00:00:00Z"}]"#)
        #expect(try unbounded.feature("calls", required: 1_000_000).via == .overage)
        #expect(try unbounded.feature("calls").sources.first?.overdraftLeft == nil)
        // The explanation says who paid for each use.
        let explained = try evaluate(graph, e.state, at: "2026-11-20T00:00:00Z", explain: true).feature("calls")
        #expect(explained.explanation.contains("  2026-11-10T00:00:00Z: used 14 ← api 10; 4 units from `coins`; overdrawn on api 2"))
    }

    /// When no one credit system can pay the rest but together they can (as a recorded use spills),
    /// a check on a feature with a soft limit is allowed via overage, and its reason says nothing
    /// goes over.
    @Test func severalCreditSystemsTogetherBeforeTheOverdraft() throws {
        let graph = compileGraph("""
            product plan: subscription { period month }
            product p1: non_consumable { grants c1 5 }
            product p2: non_consumable { grants c2 5 }
            feature calls: metered
            credits c1 { calls 1 = 1 }
            credits c2 { calls 1 = 1 }
            entitlement pro = plan { grants calls 10 per month overage up to 2 }
            """)
        let e = try evaluate(graph, state(#"""
            {"purchases": [{"product": "plan", "purchased_at": "2026-11-01T00:00:00Z", "expires_at": "2026-12-01T00:00:00Z"},
                           {"product": "p1", "purchased_at": "2026-11-15T00:00:00Z"},
                           {"product": "p2", "purchased_at": "2026-11-15T00:00:00Z"}],
             "usage": [{"feature": "calls", "amount": 12, "at": "2026-11-10T00:00:00Z"}]}
            """#), at: "2026-11-20T00:00:00Z")
        let eight = try e.feature("calls", required: 8)
        #expect((eight.decision, eight.via) == (.allowed, .overage))
        #expect(eight.reason == "0 units left, so credits from more than one system pay for 8 (nothing is overdrawn)")
        let eleven = try e.feature("calls", required: 11)
        #expect((eleven.decision, eleven.shortfall) == (.denied, 1))
    }

    /// A lot (a grant without `per`, with an `until`): spent before lifetime grants, earliest-expiring
    /// first; what is left lapses at its `until`.
    @Test func lotsThatExpire() throws {
        let grants = #""grants": [{"feature": "coins", "amount": 100, "from": "2026-01-01T00:00:00Z", "id": "forever"}, "#
            + #"{"feature": "coins", "amount": 30, "from": "2026-10-01T00:00:00Z", "until": "2027-01-01T00:00:00Z", "id": "late"}, "#
            + #"{"feature": "coins", "amount": 20, "from": "2026-09-01T00:00:00Z", "until": "2026-12-01T00:00:00Z", "id": "soon"}]"#
        let e = try evaluation(grants + #", "usage": [{"feature": "coins", "amount": 25, "at": "2026-11-10T00:00:00Z"}]"#)
        let coins = try e.feature("coins")
        #expect(coins.balance == 125)
        #expect(coins.sources.map { "\($0.grant) \($0.remaining ?? -1) \($0.expiresAt.map(\.description) ?? "-")" } == [
            "forever 100 -", "late 25 2027-01-01T00:00:00Z", "soon 0 2026-12-01T00:00:00Z",
        ])
        #expect(coins.validUntil == instant("2026-12-01T00:00:00Z"))
        // After December 1 the first lot is gone; after January 1 the second, with its 25.
        #expect(try evaluation(grants + #", "usage": [{"feature": "coins", "amount": 25, "at": "2026-11-10T00:00:00Z"}]"#,
                               at: "2027-01-01T00:00:00Z").feature("coins").balance == 100)
    }

    /// Names the rules lack, and terms a feature cannot have, are warnings (errors with `strict`).
    @Test func grantsTheRulesCannotPlaceAreWarnings() throws {
        let e = try evaluation(#"""
            "grants": [{"entitlement": "pln", "from": "2026-11-01T00:00:00Z"},
                       {"feature": "export", "amount": 3, "from": "2026-11-01T00:00:00Z"},
                       {"feature": "coins", "amount": 3, "overage": true, "from": "2026-11-01T00:00:00Z"},
                       {"feature": "calls", "from": "2026-11-01T00:00:00Z", "until": "2026-10-01T00:00:00Z"}]
            """#)
        #expect(e.warnings.map(\.description) == [
            #"grants[3].until: 2026-10-01T00:00:00Z is not after its "from" 2026-11-01T00:00:00Z: the grant never counts"#,
            #"grants[0].entitlement: no entitlement "pln" in the rules (did you mean `plan`?)"#,
            "grants[1].amount: `export` is a boolean feature: its grant has no amount",
            "grants[2].overage: `coins` is not a single-use feature: only those have soft limits (`overage`)",
            #"grants[3].amount: `calls` is metered: its grant needs an "amount" or "unlimited": true"#,
        ])
        // The warned `overage` means nothing: the credits are not overdrawn, by a check or a spill.
        #expect(try e.feature("coins", required: 4).decision == .denied)
        #expect(try e.feature("coins", required: 3).via == .direct)
        #expect(try e.feature("coins").overdrawn == 0)
    }

    /// An unlimited grant takes its place in the consumption order (§5) as a counted one does: by
    /// `priority`, then by when it ends (a lot's lapse; lifetime last), then declaration order. The
    /// uses it covers leave the grants after it untouched, and it covers nothing the grants before
    /// it can (an unlimited week had let the month's allowance be drained under it).
    @Test func anUnlimitedGrantTakesItsPlaceInTheConsumptionOrder() throws {
        let rules = """
        product trial: non_renewing { duration 4 days }
        feature calls: metered
        credits coins { calls 1 = 1 }
        entitlement free = everyone { grants calls 100 per month priority 1; grants coins 100 per month }
        entitlement t = trial { grants calls unlimited }
        """
        let graph = compileGraph(rules)
        func left(_ body: String, _ feature: String = "calls", at: String = "2026-11-06T00:00:00Z") throws -> Int64? {
            try evaluate(graph, state(#"{"customer_since": "2026-01-01T00:00:00Z", \#(body)}"#), at: at)
                .feature(feature).balance
        }
        let use = #""usage": [{"feature": "calls", "amount": 150, "at": "2026-11-03T00:00:00Z"}]"#
        // A state grant of a lower priority than the month's allowance, and one of the same
        // priority that lapses first: each covers the use.
        for priority in [0, 1] {
            #expect(try left(#""grants": [{"feature": "calls", "unlimited": true, "from": "2026-11-01T00:00:00Z", "#
                             + #""until": "2026-11-05T00:00:00Z", "priority": \#(priority)}], "# + use) == 100)
        }
        // With `per` (which an unlimited grant does not use), it still ends at its `until`.
        #expect(try left(#""grants": [{"feature": "calls", "unlimited": true, "per": "week", "#
                         + #""from": "2026-11-01T00:00:00Z", "until": "2026-11-05T00:00:00Z", "priority": 1}], "# + use)
                == 100)
        // Of a higher priority: the month's allowance first, the unlimited grant the rest.
        #expect(try left(#""grants": [{"feature": "calls", "unlimited": true, "from": "2026-11-01T00:00:00Z", "#
                         + #""until": "2026-11-05T00:00:00Z", "priority": 2}], "# + use) == 0)
        // The rules' own unlimited grant (priority 0, lifetime), while the trial lasts.
        #expect(try left(#""purchases": [{"product": "trial", "purchased_at": "2026-11-01T00:00:00Z"}], "# + use) == 100)
        // Credits alike: an unlimited day of coins pays the spill of that day.
        #expect(try left(#""grants": [{"feature": "coins", "unlimited": true, "from": "2026-11-06T00:00:00Z", "#
                         + #""until": "2026-11-07T00:00:00Z"}], "#
                         + #""usage": [{"feature": "calls", "amount": 130, "at": "2026-11-06T12:00:00Z"}]"#,
                         "coins", at: "2026-11-08T00:00:00Z") == 100)
    }

    /// A state grant whose `until` falls inside its window ends there for the consumption order
    /// (§5: the grant that ends soonest is spent first, what is left of it being lost then): a
    /// monthly grant until the 10th pays before a monthly allowance that runs to the 1st (it had
    /// been spent after it, and lapsed unused). So does an entitlement active through such a grant.
    @Test func aGrantThatEndsInsideItsWindowIsSpentFirst() throws {
        let graph = compileGraph("""
            feature calls: metered
            entitlement free = everyone { grants calls 50 per month }
            entitlement promo = free and not free { grants calls 50 per month }
            """)
        func left(_ grant: String) throws -> Int64? {
            try evaluate(graph, state(#"{"customer_since": "2026-01-01T00:00:00Z", "grants": [\#(grant)], "#
                                      + #""usage": [{"feature": "calls", "amount": 30, "at": "2026-11-05T00:00:00Z"}]}"#),
                         at: "2026-11-11T00:00:00Z").feature("calls").balance
        }
        #expect(try left(#"{"feature": "calls", "amount": 50, "per": "month", "from": "2026-11-01T00:00:00Z", "#
                         + #""until": "2026-11-10T00:00:00Z"}"#) == 50)
        #expect(try left(#"{"entitlement": "promo", "from": "2026-11-01T00:00:00Z", "until": "2026-11-10T00:00:00Z"}"#)
                == 50)
        // Unlimited, through an entitlement granted until the 10th: it ends then, and pays first.
        let unlimited = compileGraph("""
            feature calls: metered
            entitlement free = everyone { grants calls 50 per month }
            entitlement promo = free and not free { grants calls unlimited }
            """)
        #expect(try evaluate(unlimited, state(#"{"customer_since": "2026-01-01T00:00:00Z", "grants": [{"entitlement": "#
                                              + #""promo", "from": "2026-11-01T00:00:00Z", "until": "2026-11-10T00:00:00Z"}], "#
                                              + #""usage": [{"feature": "calls", "amount": 30, "at": "2026-11-05T00:00:00Z"}]}"#),
                             at: "2026-11-11T00:00:00Z").feature("calls").balance == 50)
        // Until after the month's end: the window ends first, and the rules' grant (declared
        // first) pays.
        #expect(try left(#"{"feature": "calls", "amount": 50, "per": "month", "from": "2026-11-01T00:00:00Z", "#
                         + #""until": "2026-12-10T00:00:00Z"}"#) == 70)
    }

    /// A soft limit of a grant that is not there yet at `t` (it starts at `customer_since`, still
    /// ahead) draws nothing: the use is not allowed by credits from two systems together, which
    /// only a soft limit allows (the runtime had taken the grant's `overage` as there, and allowed
    /// it; the reference evaluator's differential run found the shortfall differing, seed 9593555).
    @Test func aSoftLimitNotThereYetAllowsNothing() throws {
        let graph = compileGraph("""
            product pack: non_consumable
            feature calls: metered
            credits a { calls 1 = 1 }
            credits b { calls 1 = 1 }
            entitlement free = everyone { grants calls 10 overage up to 5 }
            entitlement paid = pack { grants a 3; grants b 3 }
            """)
        let e = try evaluate(graph, state(#"{"customer_since": "2026-12-01T00:00:00Z", "purchases": [{"product": "pack", "#
                                          + #""purchased_at": "2026-01-01T00:00:00Z"}]}"#), at: "2026-11-20T00:00:00Z")
        let calls = try e.feature("calls", required: 5)
        #expect(calls.decision == .denied)
        #expect(calls.via == nil)
        #expect(calls.shortfall == 2)
        // From `customer_since` on, the soft limit is there: allowed via overage.
        let later = try evaluate(graph, state(#"{"customer_since": "2026-12-01T00:00:00Z", "purchases": [{"product": "#
                                              + #""pack", "purchased_at": "2026-01-01T00:00:00Z"}]}"#),
                                 at: "2026-12-02T00:00:00Z")
        #expect(try later.feature("calls", required: 17).via == .overage)
    }

    /// A soft limit only an uncertain purchase gives (status `unknown`) does not allow a use that
    /// two credit systems pay together — only a soft limit allows that — it makes it undetermined
    /// (it had been allowed via overage, and `--consume` recorded it; a review).
    @Test func anUncertainSoftLimitAllowsNothing() throws {
        let graph = compileGraph("""
            product pro: subscription { period month }
            product pack: non_consumable
            feature calls: metered
            credits a { calls 1 = 1 }
            credits b { calls 1 = 1 }
            entitlement plan = pro { grants calls 10 per month overage up to 5 }
            entitlement paid = pack { grants a 3; grants b 3 }
            """)
        func calls(_ status: String) throws -> FeatureResult {
            try evaluate(graph, state(#"{"purchases": [{"product": "pro", "status": "\#(status)", "#
                                      + #""purchased_at": "2026-11-01T00:00:00Z", "expires_at": "2026-12-01T00:00:00Z"}, "#
                                      + #"{"product": "pack", "purchased_at": "2026-01-01T00:00:00Z"}]}"#),
                         at: "2026-11-20T00:00:00Z").feature("calls", required: 5)
        }
        #expect(try calls("active").via == .direct)
        #expect(try calls("unknown").decision == .undetermined)
        #expect(try calls("unknown").via == nil)
        #expect(try calls("expired").decision == .denied)
    }
}
