import EntlTestSupport
import Testing

@Suite struct RedundantTermCheckTests {
    @Test func absorptionDuplicatesAndContext() {
        assertDiagnostics("""
        product a: non_consumable
        product b: non_consumable
        product c: non_consumable
        product d: non_consumable
        product z: consumable
        entitlement e1 = a or (1️⃣a and b)
        entitlement e2 = d and b2
        entitlement b2 = c and 2️⃣c
        entitlement e3 = z >= 5 and 3️⃣z >= 3
        entitlement e4 = b and (d or 4️⃣not b)
        """, [
            ExpectedDiagnostic("W305", "`a and b` is redundant in entitlement `e1`", at: "1️⃣"),
            ExpectedDiagnostic("W305", "`c` is redundant in entitlement `b2`", at: "2️⃣"),
            ExpectedDiagnostic("W305", "`z >= 3` is redundant in entitlement `e3`", at: "3️⃣"),
            ExpectedDiagnostic("W305", "`not b` is redundant in entitlement `e4`", at: "4️⃣"),
        ])
    }

    @Test func spellingsThatMeanSomethingSimpler() {
        assertDiagnostics("""
        product a: non_consumable
        product z: consumable
        entitlement e = 1️⃣z >= 1 or 2️⃣not not a
        """, [
            ExpectedDiagnostic("W305", "`z >= 1` is the same as `z`", at: "1️⃣"),
            ExpectedDiagnostic("W305", "double negation", at: "2️⃣"),
        ])
    }

    @Test func everyTermMatters() {
        assertDiagnostics("""
        product a: non_consumable
        product b: non_consumable
        product c: non_consumable
        entitlement e1 = (a or b) and (a or c)
        entitlement e2 = a and not b or c
        """, [])
    }
}
