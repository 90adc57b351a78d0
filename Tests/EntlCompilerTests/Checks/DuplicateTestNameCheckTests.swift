import EntlTestSupport
import Testing

@Suite struct DuplicateTestNameCheckTests {
    @Test func twoTestsWithOneName() {
        assertDiagnostics("""
        product p: non_consumable { grants f }
        feature f: boolean
        test "p unlocks f" { at "2026-11-22T12:00:00Z"; given p; expect f allowed }
        test 1️⃣"p unlocks f" { at "2026-11-22T12:00:00Z"; expect f denied }
        """, [ExpectedDiagnostic("W312", #"two tests are named "p unlocks f""#)])
    }
}
