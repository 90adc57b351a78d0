import EntlRuntime
import EntlTestSupport
import Testing

/// docs/semantics.md §6: every result says until when it holds.
@Suite struct ValidUntilTests {
    static let rules = """
    product annual: subscription { period year }
    product life: non_consumable
    product pass: non_renewing { duration 30 days }
    product banned: non_consumable
    product topup: consumable { grants credits_x 100 }
    feature calls: metered
    feature flag: boolean
    feature gated: boolean requires life and not banned
    credits credits_x { calls 1 = 1 }
    entitlement pro = annual { grants calls 10 per month; grants flag }
    entitlement short = pass { grants flag }
    """
    let graph = compileGraph(ValidUntilTests.rules)
    let t = "2026-11-22T12:00:00Z"

    func eval(_ purchases: String) throws -> Evaluation {
        try evaluate(graph, state(#"{"purchases": \#(purchases)}"#), at: t)
    }

    /// Another feature's use at `t` (a level, replayed with nothing of this one's) does not bring
    /// this result's `valid_until` to a nanosecond after `t`: the result is byte for byte the one a
    /// moment before (a review: a cached result and a fresh one differed in it alone).
    @Test func anotherFeaturesUseAtTheInstantChangesNothingOfThisOne() throws {
        let graph = compileGraph("""
            product pro: subscription { period month }
            feature api: metered
            feature seats: metered { usage continuous }
            entitlement plan = pro { grants api 10 per month; grants seats 5 }
            """)
        for status in [PurchaseStatus.unknown, .active] {
            var state = PurchaseState(purchases: [Purchase(product: "pro", status: status,
                                                           purchasedAt: instant("2026-11-01T00:00:00Z"),
                                                           expiresAt: instant("2026-12-01T00:00:00Z"))])
            state.usage = [UsageRecord(feature: "seats", kind: .level(4), at: instant("2026-11-22T12:30:00Z")),
                           UsageRecord(feature: "seats", kind: .level(2))]
            let before = try evaluate(graph, state, at: "2026-11-22T12:00:00Z").feature("api")
            let at = try evaluate(graph, state, at: "2026-11-22T12:30:00Z").feature("api")
            #expect(before.validUntil == instant("2026-12-01T00:00:00Z"))
            #expect(at.validUntil == before.validUntil, "\(status)")
        }
    }

    /// A use at `t` of a credit system that can pay for a continuous feature is one replayed with
    /// it: read a nanosecond later, what paid for that use can differ, and the feature's result
    /// with it (the differential run found the filter above had left it out).
    @Test func aUseOfACreditSystemThatCanPayIsOneOfTheFeatures() throws {
        let graph = compileGraph("""
            product pro: subscription { period month; grants cr 10 per month }
            feature seats: metered { usage continuous }
            credits cr { seats 1 = 1 }
            """)
        var state = PurchaseState(purchases: [Purchase(product: "pro", status: .unknown,
                                                       purchasedAt: instant("2026-11-01T00:00:00Z"),
                                                       expiresAt: instant("2026-12-01T00:00:00Z"))])
        state.usage = [UsageRecord(feature: "cr", kind: .amount(3), at: instant("2026-11-22T12:00:00Z"))]
        let seats = try evaluate(graph, state, at: "2026-11-22T12:00:00Z").feature("seats")
        #expect(seats.validUntil == Instant(seconds: instant("2026-11-22T12:00:00Z").seconds, nanoseconds: 1))
    }

    @Test func theNextWindowBoundaryComesBeforeTheExpiry() throws {
        let e = try eval(#"[{"product": "annual", "purchased_at": "2026-06-01T00:00:00Z", "expires_at": "2027-06-01T00:00:00Z"}]"#)
        #expect(try e.feature("calls").validUntil == instant("2026-12-01T00:00:00Z"))
        #expect(try e.entitlement("pro").validUntil == instant("2027-06-01T00:00:00Z"))
        #expect(try e.product("annual").validUntil == instant("2027-06-01T00:00:00Z"))
        #expect(try e.feature("flag").validUntil == instant("2027-06-01T00:00:00Z"))
    }

    @Test func aNonRenewingPurchaseEndsAfterItsDuration() throws {
        let e = try eval(#"[{"product": "pass", "purchased_at": "2026-11-10T00:00:00Z"}]"#)
        #expect(try e.entitlement("short").validUntil == instant("2026-12-10T00:00:00Z"))
    }

    @Test func aGracePeriodEnds() throws {
        let e = try eval(#"[{"product": "annual", "status": "past_due", "grace_until": "2026-11-25T00:00:00Z"}]"#)
        #expect(try e.product("annual").validUntil == instant("2026-11-25T00:00:00Z"))
    }

    @Test func nothingChangesByItself() throws {
        let e = try eval(#"[{"product": "life"}]"#)
        #expect(try e.product("life").validUntil == nil)
        #expect(try e.feature("gated").validUntil == nil)
        #expect(try e.product("banned").validUntil == nil)
    }

    @Test func productsNamedInRequirementsAreWatched() throws {
        // `banned`, named under `not`, is bought later: that changes `gated` by itself.
        let e = try eval(#"[{"product": "life"}, {"product": "banned", "purchased_at": "2026-12-24T00:00:00Z"}]"#)
        #expect(try e.feature("gated").decision == .allowed)
        #expect(try e.feature("gated").validUntil == instant("2026-12-24T00:00:00Z"))
    }

    @Test func creditSystemsThatPayForAFeatureCount() throws {
        // The credit system's grant comes from a consumable (no end); the direct grant's window does.
        // The system is replayed with the feature it lists (uses spill into it), so it counts that
        // window too: a reset changes what later uses cost it.
        let e = try eval(#"""
            [{"product": "topup", "quantity": 1},
             {"product": "annual", "purchased_at": "2026-06-15T00:00:00Z", "expires_at": "2027-06-15T00:00:00Z"}]
            """#)
        #expect(try e.feature("calls").validUntil == instant("2026-12-15T00:00:00Z"))
        #expect(try e.feature("credits_x").validUntil == instant("2026-12-15T00:00:00Z"))
    }

    @Test func creditSystemWindowsCountEvenWhenTheDirectBalanceSuffices() throws {
        // Found by differential testing; §6: a feature counts the inputs of every credit system
        // whose schema lists it, needed now or not.
        let g = compileGraph("""
        product life: non_consumable
        product daily: non_consumable { grants credits_y 5 per day }
        feature calls: metered
        credits credits_y { calls 1 = 1 }
        entitlement pro = life { grants calls 100 }
        """)
        let s = state(#"{"purchases": [{"product": "life"}, {"product": "daily", "purchased_at": "2026-11-01T06:00:00Z"}]}"#)
        let r = try evaluate(g, s, at: t).feature("calls")
        #expect(r.via == .direct)
        #expect(r.validUntil == instant("2026-11-23T06:00:00Z"))
    }

    /// A use dated at `t` is one of now; a nanosecond later a past one, which an `expired`
    /// purchase still within its dates pays (§5): the result changes then, and says so (it had
    /// said it never would, and a cache kept an overage of 30 that was 0 a nanosecond later).
    @Test func aUseAtTheInstantIsPaidDifferentlyANanosecondLater() throws {
        let graph = compileGraph("product lifetime: non_consumable\nfeature calls: metered\n"
                                 + "entitlement pro = lifetime { grants calls 100 }")
        let s = state(#"{"purchases": [{"product": "lifetime", "status": "expired", "purchased_at": "2026-11-01T00:00:00Z"}], "usage": [{"feature": "calls", "amount": 30, "at": "2026-11-22T12:00:00Z"}]}"#)
        let now = try evaluate(graph, s, at: t).feature("calls")
        let later = try evaluate(graph, s, at: "2026-11-22T12:00:00.000000001Z").feature("calls")
        #expect(now.overage != later.overage)
        #expect(now.validUntil == instant("2026-11-22T12:00:00.000000001Z"))
        #expect(later.validUntil == nil)
    }

    /// An undated use is read as dated at the evaluation's instant: at `t` it ties with a use
    /// dated at `t`, a nanosecond later it is the later one — a continuous feature's latest
    /// reading changes then (found by differential testing: level 2 at `t`, 4 a nanosecond later,
    /// while `valid_until` said never).
    @Test func anUndatedUseOvertakesAUseAtTheInstantANanosecondLater() throws {
        let graph = compileGraph("product p: non_consumable { grants calls 1 }\n"
                                 + "feature calls: metered { usage continuous }")
        let s = state(#"{"usage": [{"feature": "calls", "level": 4}, {"feature": "calls", "level": 2, "at": "2026-11-22T12:00:00Z"}]}"#)
        let now = try evaluate(graph, s, at: t).feature("calls")
        let later = try evaluate(graph, s, at: "2026-11-22T12:00:00.000000001Z").feature("calls")
        #expect(now.overage == 2)
        #expect(later.overage == 4)
        #expect(now.validUntil == instant("2026-11-22T12:00:00.000000001Z"))
        #expect(later.validUntil == nil)
    }
}
