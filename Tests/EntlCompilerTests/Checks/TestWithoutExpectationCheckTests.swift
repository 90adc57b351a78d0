import EntlTestSupport
import Testing

@Suite struct TestWithoutExpectationCheckTests {
    @Test func aTestThatCannotFail() {
        assertDiagnostics("""
        product p: non_consumable { grants f }
        feature f: boolean
        test 1️⃣"nothing" { at "2026-11-22T12:00:00Z"; given p }
        """, [ExpectedDiagnostic("W313", #"test "nothing" expects nothing"#)])
    }
}
