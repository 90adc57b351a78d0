import EntlTestSupport
import Testing

@Suite struct DuplicateGrantCheckTests {
    @Test func theSecondGrantIsReportedWithANote() {
        assertDiagnostics("""
        product p: non_consumable
        feature calls: metered
        entitlement e = p {
          grants calls 10 per day
          grants 1️⃣calls 100 per month
        }
        """, [ExpectedDiagnostic("W306", "feature `calls` is granted twice in entitlement `e`")])
        let checked = check("product p: non_consumable { grants f; grants f }\nfeature f: boolean")
        #expect(checked.diagnostics.first?.notes.map(\.range.start.column) == [29])
    }

    @Test func differentBlocksMayGrantTheSameFeature() {
        assertDiagnostics("""
        product p: non_consumable { grants calls 5 }
        feature calls: metered
        entitlement e = p { grants calls 10 per day }
        """, [])
    }
}
