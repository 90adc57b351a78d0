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

    /// A product and a feature both environments share, named and granted only by the test
    /// environment's entitlement, do nothing in live: each is checked in each environment (they
    /// had been taken as used everywhere).
    @Test func sharedButUsedOnlyInOneEnvironment() {
        assertDiagnostics("""
        product 1️⃣pro: non_consumable
        feature 2️⃣export: boolean
        environment test { entitlement qa = pro { grants export } }
        """, [
            ExpectedDiagnostic("W301", "product `pro` is never used in environment live", at: "1️⃣"),
            ExpectedDiagnostic("W302", "feature `export` is never granted in environment live", at: "2️⃣"),
        ])
    }
}
