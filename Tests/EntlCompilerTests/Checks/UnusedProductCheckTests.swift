import EntlTestSupport
import Testing

@Suite struct UnusedProductCheckTests {
    @Test func aProductNothingNamesAndThatGrantsNothing() {
        assertDiagnostics("""
        product 1️⃣spare: non_consumable { id app_store "S" }
        product used: non_consumable
        entitlement e = used
        """, [ExpectedDiagnostic("W301", "product `spare` is never used", severity: .warning)])
    }

    @Test func namedInARequirementGrantingOrOnlyInTheTestEnvironmentIsUsed() {
        assertDiagnostics("""
        product a: non_consumable
        product b: consumable { grants calls 10 }
        environment test { product qa: non_consumable }
        environment test { entitlement e = qa }
        feature f: boolean requires a
        feature calls: metered
        """, [])
    }
}
