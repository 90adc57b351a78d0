import EntlRuntime
import EntlTestSupport
import Testing

/// A state built in code can hold what its JSON cannot: an instant outside the years 0000 … 9999,
/// an amount outside 0 … 10^15. Evaluating, consuming or compacting it is an error naming the
/// value's place, never a trap in arithmetic on it (an API review: `Instant(seconds: .min)`, a
/// level of `Int64.min` and a grant of -1 had each stopped the process).
@Suite struct CodeBuiltStateTests {
    let graph = compileGraph("""
        product pro: subscription { period month }
        feature calls: metered
        feature storage: metered { usage continuous }
        credits coins { calls 1 = 1 }
        entitlement e = pro { grants calls 10 per day; grants storage 5 }
        """)
    let now = instant("2026-11-10T00:00:00Z")

    func error(_ state: PurchaseState, at: Instant? = nil) -> String? {
        do {
            _ = try Evaluation(graph: graph, state: state, at: at ?? now).all()
            return nil
        } catch {
            return error.message
        }
    }

    @Test func valuesOutOfRangeAreErrorsWithTheirPlace() {
        let pro = Purchase(product: "pro", purchasedAt: now)
        #expect(error(PurchaseState(purchases: [pro]), at: Instant(seconds: .min))
                == "at: -9223372036854775808 seconds since 1970 is outside the years 0000 … 9999")
        #expect(error(PurchaseState(purchases: [Purchase(product: "pro", purchasedAt: Instant(seconds: .max))]))
                == "purchases[0].purchased_at: 9223372036854775807 seconds (and 0 ns) since 1970 is outside the "
                + "years 0000 … 9999 a state holds")
        #expect(error(PurchaseState(purchases: [pro], usage: [UsageRecord(feature: "storage", kind: .level(.min),
                                                                           at: now)]))
                == "usage[0].amount: -9223372036854775808 is outside 0 … 10^15")
        #expect(error(PurchaseState(grants: [StateGrant(target: .feature("coins"), amount: .count(-1), from: now)]))
                == "grants[0].amount: -1 is outside 0 … 10^15")
        #expect(error(PurchaseState(purchases: [Purchase(product: "pro", purchasedAt: now, quantity: -3)]))
                == "purchases[0].quantity: -3 is outside 0 … 10^15")
        // At the edges of the range: answered.
        #expect(error(PurchaseState(purchases: [Purchase(product: "pro", purchasedAt: instant("0000-01-01T00:00:00Z"),
                                                         expiresAt: instant("9999-12-31T23:59:59Z"))])) == nil)
    }

    @Test func theEvaluatorAndCompactionSayTheSame() throws {
        let bad = PurchaseState(usage: [UsageRecord(feature: "calls", kind: .amount(-5), at: now)])
        let evaluator = Evaluator(graph: graph, tracker: JSONPurchaseTracker(bad))
        #expect(throws: EvaluationError("usage[0].amount: -5 is outside 0 … 10^15")) {
            try evaluator.entitled(feature: "calls", at: now)
        }
        #expect(throws: EvaluationError("usage[0].amount: -5 is outside 0 … 10^15")) {
            try evaluator.consume(feature: "calls", amount: 1, at: now)
        }
        let fine = Evaluator(graph: graph, tracker: JSONPurchaseTracker())
        #expect(throws: EvaluationError("at: -9223372036854775808 seconds since 1970 is outside the years 0000 … 9999")) {
            try fine.unlockingProducts(feature: "calls", at: Instant(seconds: .min))
        }
        #expect(throws: EvaluationError("before: -9223372036854775808 seconds since 1970 is outside the years "
                                        + "0000 … 9999")) {
            try LedgerCompaction.compact(graph: graph, state: PurchaseState(), before: Instant(seconds: .min))
        }
        // An instant built in code describes itself, whatever it is.
        #expect(Instant(seconds: .min).description.hasSuffix("Z"))
        #expect(Instant(seconds: .max).description.hasSuffix("Z"))
    }

    /// What the JSON holds at the edges of its years evaluates and consumes: a consume reads the
    /// state a nanosecond after a use, or at a window's end, past 9999-12-31T23:59:59.999999999Z
    /// for a record dated there (the range check had refused those readings).
    @Test func statesAtTheEdgesOfTheYearsAreRead() throws {
        let json = #"{"purchases": [{"product": "pro", "purchased_at": "0000-01-01T00:00:00Z", "#
            + #""expires_at": "9999-12-31T23:59:59Z"}], "usage": [{"feature": "calls", "amount": 1, "#
            + #""at": "9999-12-31T23:59:59.999999999Z"}]}"#
        let state = try PurchaseState(json: Array(json.utf8))
        let tracker = JSONPurchaseTracker(state)
        let evaluator = Evaluator(graph: graph, tracker: tracker)
        #expect(try evaluator.consume(feature: "calls", amount: 1, at: now).allowed)
        #expect(try evaluator.consume(feature: "calls", amount: 1, at: instant("0000-01-01T00:00:00Z")).allowed)
        let decided = try Consumption.decide(graph: graph, state: state, environment: nil, feature: "calls", amount: 1,
                                             id: nil, at: instant("9999-12-31T23:59:58Z"))
        #expect(decided.result.allowed)
    }
}
