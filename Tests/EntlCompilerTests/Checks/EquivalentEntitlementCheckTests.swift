import EntlTestSupport
import Testing

@Suite struct EquivalentEntitlementCheckTests {
    @Test func sameFunctionDifferentSpelling() {
        assertDiagnostics("""
        product a: non_consumable
        product b: non_consumable
        product z: consumable
        entitlement first = a or b
        entitlement 1️⃣second = b or a
        entitlement alias = first
        entitlement rich = z >= 3
        entitlement 2️⃣also_rich = z >= 3 and 3️⃣z
        """, [
            ExpectedDiagnostic("W310", "entitlement `second` is active for exactly the purchases `first` is", at: "1️⃣"),
            ExpectedDiagnostic("W310", "entitlement `also_rich` is active for exactly the purchases `rich` is", at: "2️⃣"),
            ExpectedDiagnostic("W305", "`z` is redundant in entitlement `also_rich`", at: "3️⃣"),
        ])
    }
}
