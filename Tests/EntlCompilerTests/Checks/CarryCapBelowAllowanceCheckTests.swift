import EntlTestSupport
import Testing

@Suite struct CarryCapBelowAllowanceCheckTests {
    @Test func aCapBelowOneAllowance() {
        assertDiagnostics("""
        product p: non_consumable {
          grants calls 500 per month carry up to 1️⃣100
          grants other 500 per month carry up to 500
        }
        feature calls: metered
        feature other: metered
        """, [ExpectedDiagnostic("W308", "carry cap 100 is below one month's allowance of 500")])
    }

    @Test func silencedOnTheDeclaration() {
        assertDiagnostics("""
        // entl-allow W308
        product p: non_consumable { grants calls 500 per month carry up to 100 }
        feature calls: metered
        """, [])
    }
}
