import EntlTestSupport
import Testing

@Suite struct DuplicateTestNameCheckTests {
    @Test func twoTestsWithOneName() {
        assertDiagnostics("""
        product p: non_consumable { grants f }
        feature f: boolean
        test "p unlocks f" { given p; expect f allowed }
        test 1️⃣"p unlocks f" { expect f denied }
        """, [ExpectedDiagnostic("W312", #"two tests are named "p unlocks f""#)])
    }
}
