import EntlCompiler
import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Testing

/// `entlc test` with a test's `grant` items (state grants) and `expect … via overage`: what each
/// builds, and the exact failure when an expectation does not hold.
@Suite struct TestGrantRunnerTests {
    static let rules = """
        product plan: subscription { period month }
        feature calls: metered
        entitlement pro = plan { grants calls 100 per month overage up to 50 }

        """

    /// The outcome of each test of `tests` (added to the rules), by name: "pass", or its failures
    /// as "expectation: actual".
    func run(_ tests: String) -> [String: [String]] {
        let compiled = Compiler.compile([SourceFile(path: "t.entl", text: Self.rules + tests)])
        guard let graph = compiled.graph else {
            Issue.record("\(compiled.checked.diagnostics.map(\.message))")
            return [:]
        }
        let outcomes = TestRunner(checked: compiled.checked, graph: graph) { _ in [] }.run()
        return Dictionary(uniqueKeysWithValues: outcomes.map { o in
            (o.name, o.passed ? ["pass"] : o.failures.map { "\($0.expectation): \($0.actual)" } + [o.error ?? ""])
        })
    }

    @Test func anEntitlementGrantMakesItActiveFromFromToUntil() {
        #expect(run("""
            test "during" {
              at "2026-11-22T12:00:00Z"
              grant pro from "2026-11-20T00:00:00Z" until "2026-12-20T00:00:00Z"
              expect pro allowed
              expect calls 150 allowed via overage
              expect calls 151 denied
            }
            test "after" {
              at "2026-12-20T00:00:00Z"
              grant pro from "2026-11-20T00:00:00Z" until "2026-12-20T00:00:00Z"
              expect pro denied
            }
            """) == ["during": ["pass"], "after": ["pass"]])
    }

    /// Without `from` a grant counts from 1970: it pays for every use, and its `per month`
    /// windows start on the 1st.
    @Test func withoutFromAGrantCountsForEveryUse() {
        #expect(run("""
            test "an old use is charged to it" {
              at "2026-11-22T12:00:00Z"
              grant calls 10
              used calls 10 at "2020-01-01T00:00:00Z"
              expect calls denied balance 0
            }
            test "not before its from" {
              at "2026-11-22T12:00:00Z"
              grant calls 10 from "2026-01-01T00:00:00Z"
              used calls 10 at "2020-01-01T00:00:00Z"
              expect calls allowed balance 10
            }
            test "a month starts on the 1st" {
              at "2026-11-01T01:00:00Z"
              grant calls 10 per month
              used calls 10 at "2026-10-31T23:00:00Z"
              expect calls 10 allowed
            }
            """) == ["an old use is charged to it": ["pass"], "not before its from": ["pass"],
                     "a month starts on the 1st": ["pass"]])
    }

    @Test func aGrantWithUntilAndNoPerIsALot() {
        #expect(run("""
            test "before" {
              at "2026-11-30T23:59:59Z"
              grant calls 10 until "2026-12-01T00:00:00Z"
              expect calls 10 allowed
            }
            test "after" {
              at "2026-12-01T00:00:00Z"
              grant calls 10 until "2026-12-01T00:00:00Z"
              expect calls denied balance 0
            }
            """) == ["before": ["pass"], "after": ["pass"]])
    }

    @Test func viaOverageIsCheckedAndAFailureSaysWhatPaid() {
        #expect(run("""
            test "soft limit of a state grant" {
              at "2026-11-22T12:00:00Z"
              grant calls 5 overage up to 3 from "2026-11-01T00:00:00Z"
              used calls 6
              expect calls 2 allowed via overage
              expect calls 3 denied
            }
            test "wrong source" {
              at "2026-11-22T12:00:00Z"
              given plan since "2026-11-05T00:00:00Z" until "2026-12-05T00:00:00Z"
              expect calls allowed via overage
              expect calls 120 allowed via direct
            }
            """) == [
            "soft limit of a state grant": ["pass"],
            "wrong source": [
                "expect calls allowed via overage: allowed via direct (100 units left, 1 needed)",
                "expect calls 120 allowed via direct: allowed via overage (100 units left, so 20 units go over the "
                    + "allowance (overdrawn, billable))",
                "",
            ],
        ])
    }
}
