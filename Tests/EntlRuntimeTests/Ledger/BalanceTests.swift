import EntlRuntime
import EntlTestSupport
import Testing

/// docs/semantics.md §5: balances.
@Suite struct BalanceTests {
    /// The Pro-plan seed: 10,000 API calls a month, no carry.
    static let pro = """
    product pro_monthly: subscription { period month }
    feature api_calls: metered { unit "call" / "calls" }
    entitlement pro = pro_monthly { grants api_calls 10_000 per month }
    """
    let proGraph = compileGraph(BalanceTests.pro)
    let proState = state(#"""
        {"purchases": [{"product": "pro_monthly", "purchased_at": "2026-10-05T09:00:00Z",
                        "period_start": "2026-11-05T09:00:00Z", "expires_at": "2026-12-05T09:00:00Z"}],
         "usage": [{"feature": "api_calls", "amount": 9000, "at": "2026-11-01T00:00:00Z"},
                   {"feature": "api_calls", "amount": 1200, "at": "2026-11-20T10:00:00Z"}]}
        """#)

    @Test func usageInThePreviousWindowDoesNotCount() throws {
        let r = try evaluate(proGraph, proState, at: "2026-11-22T12:00:00Z").feature("api_calls")
        #expect(r.balance == 8_800)
        #expect(r.sources.count == 1)
        let s = r.sources[0]
        #expect((s.allowance, s.carried, s.used, s.remaining) == (10_000, 0, 1_200, 8_800))
        #expect(s.windowStart == instant("2026-11-05T09:00:00Z"))  // anchored at period_start
        #expect(s.resetsAt == instant("2026-12-05T09:00:00Z"))
        // Within the previous window, its own use counts.
        #expect(try evaluate(proGraph, proState, at: "2026-11-04T00:00:00Z").feature("api_calls").balance == 1_000)
        #expect(try evaluate(proGraph, proState, at: "2026-11-22T12:00:00Z").feature("api_calls", required: 8_800).allowed)
        #expect(try !evaluate(proGraph, proState, at: "2026-11-22T12:00:00Z").feature("api_calls", required: 8_801).allowed)
    }

    @Test func eventsAfterTheInstantAreNotReplayed() throws {
        let r = try evaluate(proGraph, proState, at: "2026-11-20T09:59:59Z").feature("api_calls")
        #expect(r.balance == 10_000)
        #expect(r.validUntil == instant("2026-11-20T10:00:00Z"))  // the future use changes it
    }

    @Test func monthWindowsClampTheDay() {
        let w = Windows(anchor: instant("2028-01-31T10:00:00Z"), step: Interval.month.step)
        #expect(w.start(1) == instant("2028-02-29T10:00:00Z"))  // leap year
        #expect(w.start(2) == instant("2028-03-31T10:00:00Z"))  // from the anchor, not chained
        #expect(w.start(13) == instant("2029-02-28T10:00:00Z"))
        #expect(w.start(-1) == instant("2027-12-31T10:00:00Z"))
        #expect(w.index(containing: instant("2028-02-29T09:59:59Z")) == 0)
        #expect(w.index(containing: instant("2028-02-29T10:00:00Z")) == 1)
        #expect(w.index(containing: instant("2028-03-31T09:59:59.5Z")) == 1)
        #expect(w.index(containing: instant("2028-03-31T10:00:00Z")) == 2)
        #expect(w.index(containing: instant("2027-12-31T10:00:00Z")) == -1)
        let q = Windows(anchor: instant("2026-11-30T00:00:00Z"), step: Interval.quarter.step)
        #expect(q.start(1) == instant("2027-02-28T00:00:00Z"))
        #expect(q.start(2) == instant("2027-05-30T00:00:00Z"))
    }

    @Test func fixedWindowsWithSubSeconds() {
        let w = Windows(anchor: instant("2026-01-01T00:00:00.5Z"), step: Interval.minute.step)
        #expect(w.index(containing: instant("2026-01-01T00:01:00.4Z")) == 0)
        #expect(w.index(containing: instant("2026-01-01T00:01:00.5Z")) == 1)
        #expect(w.index(containing: instant("2026-01-01T00:00:00Z")) == -1)
    }

    @Test func windowsWithoutAPurchaseDateAreCalendarAligned() throws {
        let g = compileGraph("""
        product pro: subscription { period month }
        feature calls: metered
        feature daily: metered
        entitlement e = pro { grants calls 100 per month; grants daily 5 per week }
        """)
        let s = state(#"{"overrides": {"pro": "purchased"}, "usage": [{"feature": "calls", "amount": 30, "at": "2026-10-30T00:00:00Z"}, {"feature": "calls", "amount": 20, "at": "2026-11-02T00:00:00Z"}]}"#)
        let e = try evaluate(g, s, at: "2026-11-22T12:00:00Z")
        let calls = try e.feature("calls")
        #expect(calls.balance == 80)
        #expect(calls.sources[0].windowStart == instant("2026-11-01T00:00:00Z"))  // months start on the 1st
        #expect(calls.sources[0].resetsAt == instant("2026-12-01T00:00:00Z"))
        let daily = try e.feature("daily")
        #expect(daily.sources[0].windowStart == instant("2026-11-16T00:00:00Z"))  // weeks start on Monday
    }

    @Test func burnDownOrder() throws {
        // Priority first; then the window that ends soonest (lifetime last); then declaration order.
        let g = compileGraph("""
        product base: subscription { period month }
        product pack: consumable { grants calls 100 }
        feature calls: metered
        entitlement monthly = base { grants calls 1_000 per month }
        entitlement daily = base { grants calls 50 per day priority 1 }
        """)
        let s = state(#"""
            {"purchases": [{"product": "base", "purchased_at": "2026-06-01T00:00:00Z"},
                           {"product": "pack", "quantity": 1, "purchased_at": "2026-06-01T00:00:00Z"}],
             "usage": [{"feature": "calls", "amount": 1050, "at": "2026-06-10T08:00:00Z"},
                       {"feature": "calls", "amount": 80, "at": "2026-06-10T09:00:00Z"},
                       {"feature": "calls", "amount": 25, "at": "2026-06-10T10:00:00Z"}]}
            """#)
        let r = try evaluate(g, s, at: "2026-06-10T12:00:00Z", explain: true).feature("calls")
        // 1050: monthly 1000 (ends soonest among priority 0), pack 50. 80: pack 50, daily 30. 25: daily 20, overage 5.
        #expect(r.sources.map(\.grant) == ["pack", "monthly", "daily"])
        #expect(r.sources.map(\.remaining) == [0, 0, 0])
        #expect(r.sources.map(\.used) == [100, 1_000, 50])
        #expect(r.overage == 5)
        #expect(r.balance == 0)
        #expect(r.explanation.contains("  2026-06-10T08:00:00Z: used 1050 ← monthly 1000, pack 50"))
        #expect(r.explanation.contains("  2026-06-10T10:00:00Z: used 25 ← daily 20 (overage 5)"))
        // The next day the daily grant is back.
        #expect(try evaluate(g, s, at: "2026-06-11T00:00:00Z").feature("calls").balance == 50)
    }

    @Test func declarationOrderBreaksTies() throws {
        let g = compileGraph("""
        product a: non_consumable
        feature calls: metered
        entitlement second = a { grants calls 10 per month }
        entitlement first = a { grants calls 10 per month }
        """)
        let s = state(#"{"purchases": [{"product": "a", "purchased_at": "2026-01-01T00:00:00Z"}], "usage": [{"feature": "calls", "amount": 4}]}"#)
        let r = try evaluate(g, s, at: "2026-01-05T00:00:00Z").feature("calls")
        #expect(r.sources.map(\.grant) == ["second", "first"])
        #expect(r.sources.map(\.used) == [4, 0])
    }

    static let carry = """
    product sub: subscription { period month }
    feature credits_x: metered
    feature free: metered
    entitlement capped = sub { grants credits_x 500 per month carry up to 1_000 }
    entitlement open = sub { grants free 500 per month carry }
    """

    @Test func carryWithACap() throws {
        let g = compileGraph(BalanceTests.carry)
        let base = #"{"purchases": [{"product": "sub", "purchased_at": "2026-01-01T00:00:00Z"}]"#
        func balance(_ at: String, usage: String = "[]") throws -> (Int64?, Int64?) {
            let r = try evaluate(g, state(base + #", "usage": \#(usage)}"#), at: at).feature("credits_x")
            return (r.balance, r.sources.first?.carried)
        }
        #expect(try balance("2026-01-15T00:00:00Z") == (500, 0))
        #expect(try balance("2026-02-15T00:00:00Z") == (1_000, 500))
        #expect(try balance("2026-03-15T00:00:00Z") == (1_500, 1_000))  // carried amounts carry again, up to the cap
        #expect(try balance("2026-09-15T00:00:00Z") == (1_500, 1_000))
        let used = #"[{"feature": "credits_x", "amount": 200, "at": "2026-01-10T00:00:00Z"}]"#
        #expect(try balance("2026-02-15T00:00:00Z", usage: used) == (800, 300))
        #expect(try balance("2026-03-15T00:00:00Z", usage: used) == (1_300, 800))
    }

    @Test func carryWithoutACapKeepsEverything() throws {
        let g = compileGraph(BalanceTests.carry)
        let s = state(#"{"purchases": [{"product": "sub", "purchased_at": "2026-01-01T00:00:00Z"}]}"#)
        #expect(try evaluate(g, s, at: "2027-01-01T00:00:00Z").feature("free").balance == 6_500)  // 13 windows
    }

    @Test func aPerMinuteGrantBoughtFiveYearsAgo() throws {
        let g = compileGraph("""
        product sub: non_consumable
        feature pings: metered
        entitlement e = sub { grants pings 1 per minute carry }
        """)
        let s = state(#"""
            {"purchases": [{"product": "sub", "purchased_at": "2021-11-22T12:00:00Z"}],
             "usage": [{"feature": "pings", "amount": 1, "at": "2021-11-22T12:00:30Z"}]}
            """#)
        let clock = ContinuousClock()
        var result: FeatureResult?
        let elapsed = try clock.measure {
            result = try evaluate(g, s, at: "2026-11-22T12:00:00Z").feature("pings")
        }
        // 1,826 days (one leap day) of minutes; the first window's ping used its allowance.
        #expect(result?.balance == 2_629_440)
        // Not a benchmark: a guard that the cost does not grow with 2.6 million elapsed windows.
        #expect(elapsed < .milliseconds(200))
    }

    @Test func amountsNearTheLimitDoNotTrap() throws {
        let g = compileGraph("""
        product big: consumable { grants calls 1_000_000_000_000_000 }
        product more: consumable { grants calls 1_000_000_000_000_000 per minute carry }
        feature calls: metered
        credits c { calls 1 = 1_000_000_000_000_000 }
        """)
        let s = state(#"""
            {"purchases": [{"product": "big", "quantity": 1000000000000000},
                           {"product": "more", "quantity": 1000000000000000, "purchased_at": "2000-01-01T00:00:00Z"}],
             "usage": [{"feature": "calls", "amount": 1000000000000000}]}
            """#)
        let e = try evaluate(g, s, at: "2026-01-01T00:00:00Z")
        let r = try e.feature("calls", required: 1_000_000_000_000_000)
        #expect(r.decision == .allowed)
        #expect(r.balance == Int64.max)  // saturated, never wrapped
        let credits = try evaluate(g, state("{}"), at: "2026-01-01T00:00:00Z").feature("calls", required: 1_000_000_000_000_000)
        #expect(credits.decision == .denied)
        #expect(credits.creditsRequired == Int64.max)
    }

    @Test func consumableGrantsCountPerPurchaseTimesQuantityAndExistFromThePurchase() throws {
        let g = compileGraph("""
        product api_pack: consumable { grants api_calls 5_000 }
        feature api_calls: metered
        """)
        let s = state(#"""
            {"purchases": [{"product": "api_pack", "quantity": 2, "purchased_at": "2026-02-01T00:00:00Z"},
                           {"product": "api_pack", "quantity": 1, "purchased_at": "2026-03-01T00:00:00Z"}],
             "usage": [{"feature": "api_calls", "amount": 500, "at": "2026-01-15T00:00:00Z"},
                       {"feature": "api_calls", "amount": 12000, "at": "2026-02-15T00:00:00Z"}]}
            """#)
        let r = try evaluate(g, s, at: "2026-04-01T00:00:00Z").feature("api_calls")
        // January's 500: no grant existed yet. February's 12,000: the first purchase's 10,000.
        #expect(r.overage == 2_500)
        #expect(r.balance == 5_000)
        #expect(r.sources.map(\.allowance) == [10_000, 5_000])
    }

    @Test func continuousFeatures() throws {
        let g = compileGraph("""
        product team: subscription { period month }
        feature seats: metered { usage continuous }
        entitlement e = team { grants seats 10 }
        """)
        let s = state(#"""
            {"purchases": [{"product": "team"}],
             "usage": [{"feature": "seats", "level": 3, "at": "2026-05-01T00:00:00Z"},
                       {"feature": "seats", "level": 12, "at": "2026-05-31T23:00:00Z"},
                       {"feature": "seats", "level": 4, "at": "2026-05-31T23:00:00Z"},
                       {"feature": "seats", "level": 1, "at": "2026-06-01T01:00:00Z"}]}
            """#)
        let r = try evaluate(g, s, at: "2026-06-01T00:00:00Z").feature("seats")
        #expect(r.balance == 6)  // the latest level at or before t, ties to the later record: 4
        #expect(r.overage == 0)
        #expect(r.validUntil == instant("2026-06-01T01:00:00Z"))
        let over = state(#"{"purchases": [{"product": "team"}], "usage": [{"feature": "seats", "level": 13}]}"#)
        let o = try evaluate(g, over, at: "2026-06-01T00:00:00Z").feature("seats")
        #expect((o.balance, o.overage, o.decision) == (0, 3, .denied))
    }

    @Test func usageMayNameTheEvent() throws {
        let g = compileGraph("""
        product a: non_consumable
        feature api_calls: metered { event "api_call" }
        entitlement e = a { grants api_calls 10 }
        """)
        let s = state(#"{"purchases": [{"product": "a"}], "usage": [{"feature": "api_call", "amount": 3}, {"feature": "nothing", "amount": 1}]}"#)
        let e = try evaluate(g, s, at: "2026-01-01T00:00:00Z")
        #expect(try e.feature("api_calls").balance == 7)
        #expect(e.ignoredPurchases() == [#"usage[1] "nothing": ignored, no feature or event of that name"#])
    }
}
