import EntlTestSupport
import Testing

@Suite struct AlwaysTrueConstraintCheckTests {
    @Test func tautologiesAreReportedAtTheSmallestDisjunct() {
        assertDiagnostics("""
        product a: non_consumable
        product b: non_consumable
        product z: consumable
        entitlement e1 = 1️⃣a or not a
        entitlement e2 = b or (2️⃣z or not 4️⃣z >= 1)
        entitlement e3 = 3️⃣z >= 2 or not z >= 4
        """, [
            ExpectedDiagnostic("W304", "entitlement `e1` always holds", at: "1️⃣"),
            ExpectedDiagnostic("W304", "entitlement `e2` always holds", at: "2️⃣"),
            ExpectedDiagnostic("W305", "`z >= 1` is the same as `z`", at: "4️⃣"),
            ExpectedDiagnostic("W304", "entitlement `e3` always holds", at: "3️⃣"),
        ])
    }
}
