import EntlTestSupport
import Testing

@Suite struct UnlimitedWindowCheckTests {
    @Test func windowsOnUnlimitedGrants() {
        assertDiagnostics("""
        product p: non_consumable { grants calls unlimited 1️⃣per month 2️⃣carry }
        feature calls: metered
        """, [
            ExpectedDiagnostic("W309", "`per` has no effect on an unlimited grant", at: "1️⃣"),
            ExpectedDiagnostic("W309", "`carry` has no effect on an unlimited grant", at: "2️⃣"),
        ])
    }
}
