import EntlTestSupport
import Testing

@Suite struct TestWithoutInstantCheckTests {
    /// Neither `at` nor `state`: `entlc test` could only ever report "cannot run".
    @Test func aTestThatCannotRun() {
        assertDiagnostics("""
        product p: non_consumable { grants f }
        feature f: boolean
        test 1️⃣"bought" { given p; expect f allowed }
        """, [ExpectedDiagnostic("W316", #"test "bought" has no `at` and no `state`: it has no instant to run at"#)])
    }

    /// An `at`, or a state file (whose `now` is the instant, checked when the test runs), is enough.
    @Test func anAtOrAStateFileGivesTheInstant() {
        assertDiagnostics("""
        product p: non_consumable { grants f }
        feature f: boolean
        test "at" { at "2026-11-22T12:00:00Z"; given p; expect f allowed }
        test "state" { state "customer.json"; expect f allowed }
        """, [])
    }
}
