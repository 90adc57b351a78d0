import EntlTestSupport
import Testing

@Suite struct CarryWithoutResetCheckTests {
    @Test func carryOnALifetimeAllowance() {
        assertDiagnostics("""
        product p: non_consumable { grants calls 5 1️⃣carry up to 10; grants other 5 per day carry }
        feature calls: metered
        feature other: metered
        """, [ExpectedDiagnostic("W307", "`carry` has no effect without `per`")])
    }
}
