import EntlRuntime
import EntlTestSupport
import Testing

/// docs/language.md's grandfathering example and docs/semantics.md §2 rule 9: a rule change that
/// keeps what existing customers bought.
@Suite struct GrandfatheringTests {
    let graph = compileGraph(grandfatheringExample)
    let t = "2026-11-22T12:00:00Z"

    func evaluation(_ purchase: String, _ more: String = "") throws -> Evaluation {
        try evaluate(graph, state(#"{"purchases": [\#(purchase)\#(more)]}"#), at: t)
    }

    @Test func anOldCustomerKeepsWhatTheyBought() throws {
        let e = try evaluation(#"{"product": "pro_monthly", "purchased_at": "2026-03-14T10:00:00Z", "period_start": "2026-11-14T10:00:00Z", "expires_at": "2026-12-14T10:00:00Z"}"#)
        #expect(try e.entitlement("pro_legacy").decision == .allowed)
        #expect(try e.entitlement("pro").decision == .denied)
        #expect(try e.feature("raw_export").decision == .allowed)
        let calls = try e.feature("api_calls")
        #expect(calls.balance == 20_000)
        #expect(calls.sources.first?.windowStart == instant("2026-11-14T10:00:00Z"))
        #expect(try e.entitlement("pro_legacy").expiresAt == instant("2026-12-14T10:00:00Z"))
    }

    @Test func aNewCustomerGetsTheNewPlan() throws {
        let e = try evaluation(#"{"product": "pro_monthly", "purchased_at": "2026-09-01T00:00:00Z", "expires_at": "2026-12-01T00:00:00Z"}"#)
        #expect(try e.entitlement("pro_legacy").decision == .denied)
        #expect(try e.entitlement("pro").decision == .allowed)
        #expect(try e.entitlement("pro").product == "pro_monthly")
        #expect(try e.feature("raw_export").decision == .denied)
        #expect(try e.feature("api_calls").balance == 10_000)
    }

    /// A purchase without `purchased_at` might be either: undetermined, never a guess.
    @Test func aPurchaseWithoutADateIsUndetermined() throws {
        let e = try evaluation(#"{"product": "pro_monthly", "expires_at": "2026-12-01T00:00:00Z"}"#)
        #expect(try e.entitlement("pro_legacy").decision == .undetermined)
        #expect(try e.entitlement("pro").decision == .undetermined)
        #expect(try e.feature("raw_export").decision == .undetermined)
        #expect(try e.feature("api_calls").decision == .undetermined)
    }

    /// Only the qualifying purchases are behind the entitlement: an old purchase that lapsed and a
    /// new one that is active give the new plan, reported through the new purchase.
    @Test func onlyQualifyingPurchasesAreBehindTheEntitlement() throws {
        let e = try evaluation(#"{"product": "pro_monthly", "status": "expired", "purchased_at": "2026-02-01T00:00:00Z", "expires_at": "2026-05-01T00:00:00Z"}"#,
                               #", {"product": "pro_monthly", "purchased_at": "2026-10-02T00:00:00Z", "expires_at": "2026-12-02T00:00:00Z"}"#)
        let legacy = try e.entitlement("pro_legacy")
        #expect(legacy.decision == .denied)
        #expect(legacy.expiresAt == instant("2026-05-01T00:00:00Z"))  // the old purchase, the one behind it
        let pro = try e.entitlement("pro")
        #expect(pro.decision == .allowed)
        #expect(pro.expiresAt == instant("2026-12-02T00:00:00Z"))
        // Overrides decide alone.
        let overridden = try evaluate(graph, state(#"{"overrides": {"pro_monthly": "purchased"}}"#), at: t)
        #expect(try overridden.entitlement("pro_legacy").allowed && overridden.entitlement("pro").allowed)
    }
}
