import EntlTestSupport
import Testing

@Suite struct ImpossibleConstraintCheckTests {
    @Test func contradictionsThroughEntitlementsAndThresholds() {
        assertDiagnostics("""
        product a: non_consumable
        product b: non_consumable
        product z: consumable
        entitlement has_a = a
        entitlement e1 = 1️⃣has_a and not a
        entitlement e2 = 2️⃣z >= 5 and not z >= 3
        entitlement e3 = b and (3️⃣a and not has_a)
        feature f: boolean requires 4️⃣not z and z >= 2
        """, [
            ExpectedDiagnostic("W303", "entitlement `e1` can never hold", at: "1️⃣"),
            ExpectedDiagnostic("W303", "entitlement `e2` can never hold", at: "2️⃣"),
            ExpectedDiagnostic("W303", "entitlement `e3` can never hold", at: "3️⃣"),
            ExpectedDiagnostic("W303", "the requirement of feature `f` can never hold", at: "4️⃣"),
        ])
    }

    @Test func satisfiableConstraintsAreFine() {
        assertDiagnostics("""
        product a: non_consumable
        product z: consumable
        entitlement e1 = z >= 3 and not z >= 5
        entitlement e2 = a and not z
        """, [])
    }

    @Test func theLabelQuotesTheCulprit() {
        let checked = check("product a: non_consumable\nproduct b: non_consumable\nentitlement e = b and (a and not a)")
        #expect(checked.diagnostics.first?.label == "`a and not a` is false for every purchase state")
    }
}
