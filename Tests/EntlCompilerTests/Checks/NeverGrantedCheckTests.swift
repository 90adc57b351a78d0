import EntlTestSupport
import Testing

@Suite struct NeverGrantedCheckTests {
    @Test func featuresAndCreditSystemsNothingReaches() {
        assertDiagnostics("""
        product p: non_consumable
        feature 1️⃣lonely: boolean
        feature 2️⃣calls: metered
        credits 3️⃣c { calls 1 = 5 }
        entitlement e = p
        """, [
            ExpectedDiagnostic("W302", "feature `lonely` is never granted", at: "1️⃣"),
            ExpectedDiagnostic("W302", "feature `calls` is never granted", at: "2️⃣"),
            ExpectedDiagnostic("W302", "credit system `c` is never granted", at: "3️⃣"),
        ])
    }

    @Test func aGrantedCreditSystemReachesItsSchema() {
        assertDiagnostics("""
        product p: non_consumable
        feature calls: metered
        feature gated: boolean requires p
        credits c { calls 1 = 5 }
        entitlement e = p { grants c 100 }
        """, [])
    }
}
