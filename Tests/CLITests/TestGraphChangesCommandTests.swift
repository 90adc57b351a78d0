import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

@Suite struct TestCommandTests {
    @Test func examplesPass() throws {
        let r = try runEntlc(["test", "examples"])
        #expect(r.status == 0)
        #expect(r.stdout.hasSuffix("30 passed, 0 failed\n"))
        #expect(r.stdout.split(separator: "\n").dropLast().allSatisfy { $0.hasPrefix("PASS  ") })
    }

    @Test func failuresShowWhereExpectedAndActual() throws {
        let r = try runEntlc(["test", "Tests/Fixtures/tests/runner.entl"])
        #expect(r.status == 1)
        #expect(r.stdout == """
        PASS  passes
        FAIL  fails twice
              Tests/Fixtures/tests/runner.entl:21:3: expect export allowed
                expected: allowed
                actual:   denied (no owned product or active entitlement grants it, and its requirement does not hold)
              Tests/Fixtures/tests/runner.entl:22:3: expect calls allowed balance 5 via direct
                expected: allowed balance 5 via direct
                actual:   denied balance 0 via nothing (0 units left, 1 needed)
        FAIL  no instant
              Tests/Fixtures/tests/runner.entl:25:1: cannot run: the test has no `at` and its state has no `now`
        FAIL  missing state file
              Tests/Fixtures/tests/runner.entl:32:3: cannot run: cannot read state file `Tests/Fixtures/tests/nowhere.state.json`: no such file or directory
        PASS  state file and overrides
        2 passed, 3 failed

        """)
    }

    /// A test of a state file of the test environment runs there: an `expect` naming what that
    /// environment lacks fails (every one had passed, each answer that could not be had skipped),
    /// and a description's control characters are escaped (a `\n` in one had printed a line
    /// `PASS  …` of its own).
    @Test func aTestRunsWhereItsNamesWereChecked() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try #"{"now": "2026-11-22T12:00:00Z", "environment": "test", "purchases": [{"product": "p"}]}"#
            .write(toFile: dir + "/s.json", atomically: true, encoding: .utf8)
        try """
            product p: non_consumable
            environment live { entitlement le = p }
            test "denied\\nPASS  forged" {
              state "s.json"
              expect le denied
            }

            """.write(toFile: dir + "/rules.entl", atomically: true, encoding: .utf8)
        let r = try runEntlc(["test", "rules.entl"], directory: dir)
        #expect(r.status == 1)
        #expect(r.stdout == """
            FAIL  denied\\u{A}PASS  forged
                  rules.entl:5:3: expect le
                    expected: denied
                    actual:   no answer: `le` is not declared in environment test
            0 passed, 1 failed

            """)
    }

    /// A test's state file is strict also for what the rules cannot make sense of: a misspelled
    /// feature's uses would be left out and the balance expectation pass (a review).
    @Test func aStateFileTheRulesCannotMakeSenseOfCannotRun() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try #"{"now": "2026-11-22T12:00:00Z", "usage": [{"feature": "api_cals", "amount": 60}]}"#
            .write(toFile: dir + "/s.json", atomically: true, encoding: .utf8)
        try """
            feature api_calls: metered
            entitlement free = everyone { grants api_calls 100 }
            test "balance" {
              state "s.json"
              expect api_calls allowed balance 100
            }

            """.write(toFile: dir + "/rules.entl", atomically: true, encoding: .utf8)
        let r = try runEntlc(["test", "rules.entl"], directory: dir)
        #expect(r.status == 1)
        #expect(r.stdout == """
            FAIL  balance
                  rules.entl:4:3: cannot run: state file `s.json`: usage[0].feature: no feature, credit system or event \
            "api_cals" in the rules (did you mean `api_calls`?)
            0 passed, 1 failed

            """)
    }

    @Test func filterSelectsTests() throws {
        let r = try runEntlc(["test", "Tests/Fixtures/tests/runner.entl", "--filter", "pass"])
        #expect(r.stdout == "PASS  passes\n1 passed, 0 failed\n")
        #expect(r.status == 0)
    }

    @Test func junitReport() throws {
        let r = try runEntlc(["test", "Tests/Fixtures/tests/runner.entl", "--format", "junit"])
        #expect(r.status == 1)
        let xml = r.stdout
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"entlc\" tests=\"5\" failures=\"3\" errors=\"0\" time=\""))
        #expect(xml.contains("<testsuite name=\"Tests/Fixtures/tests/runner.entl\" tests=\"5\" failures=\"3\" errors=\"0\">"))
        #expect(xml.contains("<testcase name=\"passes\" classname=\"Tests/Fixtures/tests/runner.entl\" file=\"Tests/Fixtures/tests/runner.entl\" line=\"9\"/>"))
        #expect(xml.contains("<failure message=\"expected allowed, got denied (no owned product or active entitlement grants it, and its requirement does not hold)\" type=\"expectation\">"))
        #expect(xml.contains("<failure message=\"cannot run: the test has no `at` and its state has no `now`\" type=\"error\">"))
        #expect(xml.hasSuffix("</testsuites>\n"))
        #expect(xml.components(separatedBy: "<testcase ").count == 6)
    }

    /// XML 1.0 has no U+FFFE, U+FFFF or most control characters, not even as references: the
    /// report stays well-formed (a review: U+FFFE had gone through).
    @Test func aJUnitReportIsWellFormedWhateverATestIsCalled() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try """
            product p: non_consumable
            entitlement e = p
            test "a\\u{FFFE}b\\u{FFFF}c\\u{1}d\\te\\u{D}f" {
              at "2026-01-01T00:00:00Z"
              expect e denied
            }

            """.write(toFile: dir + "/rules.entl", atomically: true, encoding: .utf8)
        let r = try runEntlc(["test", "rules.entl", "--format", "junit"], directory: dir)
        #expect(r.status == 0)
        #expect(r.stdout.contains(#"<testcase name="a?b?c?d&#9;e&#13;f" classname="rules.entl""#), "\(r.stdout)")
    }

    /// Nothing ran is not a pass: a rule set without tests, or a filter that matches none.
    @Test func noTestsIsNotAPass() throws {
        let none = try runEntlc(["test", "-"], stdin: "product p: non_consumable\n")
        #expect(none.status == 1)
        #expect(none.stdout == "0 passed, 0 failed\n")
        #expect(none.stderr == "entlc: no tests ran: the rule set has no `test` blocks\n")
        let filtered = try runEntlc(["test", "Tests/Fixtures/tests/runner.entl", "--filter", "nothing like it"])
        #expect(filtered.status == 1)
        #expect(filtered.stderr == "entlc: no tests ran: no test description contains `nothing like it` (the rule set has 5 tests)\n")
    }

    @Test func rulesThatDoNotCompileExitTwo() throws {
        let r = try runEntlc(["test", "-"], stdin: "test \"t\" { expect nope allowed }\n")
        #expect(r.status == 2)
        #expect(r.stderr.contains("error[E201]: unknown name `nope`"))
    }
}

@Suite struct GraphCommandTests {
    @Test(arguments: ["dot", "mermaid", "json"])
    func apiGraphMatchesGolden(_ format: String) throws {
        let r = try runEntlc(["graph", "examples/api.entl", "--format", format])
        #expect(r.status == 0)
        assertGolden(r.stdout, named: "graph/api.\(format == "json" ? "json" : format == "dot" ? "dot" : "mmd")")
    }

    @Test func environmentsAndStructure() throws {
        let r = try runEntlc(["graph", "examples/subscriptions.entl", "--env", "test", "--format", "json"])
        let v = try JSONParser.parse(r.stdout)
        #expect(v["environment"] == .string("test"))
        #expect(r.stdout.contains("\"id\": \"product_qa_unlock\""))
        let live = try runEntlc(["graph", "examples/subscriptions.entl", "--format", "dot"])
        #expect(!live.stdout.contains("qa_unlock"))
        #expect(live.stdout.contains("tooltip=\"Stillwater Plus, billed monthly (with a 7-day free trial in the store).\""))
        let junctions = try runEntlc(["graph", "-", "--format", "mermaid"], stdin: """
            product a: non_consumable
            product b: non_consumable
            product z: consumable
            feature f: boolean requires a and not (b or z >= 3)
            """)
        #expect(junctions.stdout.contains("  j1((\"and\")):::junction\n  j2((\"not\")):::junction\n  j3((\"or\")):::junction\n"))
        #expect(junctions.stdout.contains("  product_z -->|\"≥ 3\"| j3\n"))
        #expect(junctions.stdout.contains("  j1 -->|\"requires\"| feature_f\n"))
    }

    /// Control characters in a unit or a doc comment (a NUL, a line break) stay inside their
    /// quoted label, one line of the file: a raw NUL had made Graphviz refuse the picture.
    @Test func controlCharactersStayInsideTheirLabels() throws {
        let rules = "/// Docs\u{0}with a NUL and\u{2028}a separator.\n"
            + #"feature calls: metered { unit "call\u{0}" / "calls\nmore" }"# + "\n"
            + "entitlement free = everyone { grants calls 5 per day }\n"
        let dot = try runEntlc(["graph", "-", "--format", "dot"], stdin: rules)
        #expect(dot.status == 0)
        #expect(dot.stdout.contains(#"tooltip="Docs with a NUL and a separator.""#), "\(dot.stdout)")
        #expect(dot.stdout.contains(##"[label="5 calls\nmore / day", color="#15803d"]"##), "\(dot.stdout)")
        let mermaid = try runEntlc(["graph", "-", "--format", "mermaid"], stdin: rules)
        #expect(mermaid.stdout.contains(#"-->|"5 calls<br/>more / day"| feature_calls"#), "\(mermaid.stdout)")
        for out in [dot.stdout, mermaid.stdout] {
            #expect(!out.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0.value == 0x2028 })
        }
    }

    /// A soft limit and a lot say so on their edges.
    @Test func softLimitsAndLotsAreLabelled() throws {
        let r = try runEntlc(["graph", "examples/selling.entl", "--format", "mermaid"])
        #expect(r.stdout.contains(
            "  entitlement_relay_api -->|\"10,000 requests / month · overage ≤ 5,000\"| feature_relay_requests\n"))
        #expect(r.stdout.contains("  product_relay_credit_pack -->|\"1,000 credits × units · expires after 12 "
                                  + "months\"| credits_relay_credits\n"))
    }
}

@Suite struct ChangesCommandTests {
    func scratch(_ files: [String: String]) throws -> String {
        let dir = try makeTemporaryDirectory()
        for (name, text) in files { try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8) }
        return dir
    }

    /// The store reports a cancellation: no access changes, the lifecycle event says what happened.
    @Test func aCancellationIsALifecycleEvent() throws {
        let purchase = #""product": "com.stillwater.plus.monthly", "store": "app_store", "purchased_at": "2026-11-01T00:00:00Z", "expires_at": "2026-12-01T00:00:00Z""#
        let dir = try scratch([
            "old.json": #"{"now": "2026-11-22T12:00:00Z", "purchases": [{\#(purchase)}]}"#,
            "new.json": #"{"now": "2026-11-22T12:00:00Z", "purchases": [{\#(purchase), "status": "canceled", "will_renew": false}]}"#,
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try runEntlc(["changes", "examples/subscriptions.entl", "--from", dir + "/old.json", "--to", dir + "/new.json"])
        #expect(r.status == 0)
        #expect(r.stdout == #"""
            {"event":"entitlement_canceled","name":"premium","at":"2026-11-22T12:00:00Z","status":"canceled","product":"plus_monthly","store_product_id":"com.stillwater.plus.monthly","expires_at":"2026-12-01T00:00:00Z","will_renew":false}

            """#)
    }

    @Test func betweenTwoStates() throws {
        let dir = try scratch([
            "old.json": #"{"now": "2026-11-22T12:00:00Z", "purchases": []}"#,
            "new.json": #"{"now": "2026-11-23T08:00:00Z", "purchases": [{"product": "com.stillwater.plus.monthly", "store": "app_store"}]}"#,
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try runEntlc(["changes", "examples/subscriptions.entl", "--from", dir + "/old.json", "--to", dir + "/new.json"])
        #expect(r.status == 0)
        #expect(r.stdout == """
        {"event":"entitlement_activated","name":"premium","at":"2026-11-23T08:00:00Z"}
        {"event":"feature_unlocked","name":"guided_courses","at":"2026-11-23T08:00:00Z"}
        {"event":"feature_unlocked","name":"sleep_stories","at":"2026-11-23T08:00:00Z"}
        {"event":"feature_unlocked","name":"offline_downloads","at":"2026-11-23T08:00:00Z"}
        {"event":"balance_changed","name":"offline_downloads","at":"2026-11-23T08:00:00Z","old_balance":0,"new_balance":50}

        """)
        let same = try runEntlc(["changes", "examples/subscriptions.entl", "--from", dir + "/old.json", "--to", dir + "/old.json"])
        #expect(same.stdout == "")
        #expect(same.status == 0)
    }

    /// Two states of two environments compare names of one with the other's (a review: the test
    /// environment's entitlement was dropped, its features' unlocks kept): one environment is asked for.
    @Test func twoEnvironmentsNeedEnv() throws {
        let dir = try scratch([
            "live.json": #"{"now": "2026-11-22T12:00:00Z", "purchases": []}"#,
            "test.json": #"{"now": "2026-11-22T12:00:00Z", "environment": "test", "purchases": []}"#,
        ])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rules = repoPath("examples/subscriptions.entl")
        let r = try runEntlc(["changes", rules, "--from", "live.json", "--to", "test.json"], directory: dir)
        #expect(r.status == 2)
        #expect(r.stderr == "entlc: error: live.json is evaluated in live and test.json in test: give --env to compare "
                + "both in one environment\n")
        let test = try runEntlc(["changes", rules, "--from", "live.json", "--to", "test.json", "--env", "test"],
                                directory: dir)
        #expect(test.status == 0 && test.stdout == "")
    }

    @Test func overTime() throws {
        let r = try runEntlc(["changes", "examples/subscriptions.entl", "--state", "examples/subscriptions.state.json",
                              "--from-time", "2026-11-22T12:00:00Z", "--to-time", "2026-12-31T00:00:00Z"])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix(#"{"event":"entitlement_deactivated","name":"premium","at":"2026-11-25T07:00:00Z"}"# + "\n"))
    }

    @Test(arguments: [
        (["--from", "a.json"], "entlc: error: give both --from and --to\n"),
        (["--state", "s.json"], "entlc: error: give --state, --from-time and --to-time together\n"),
        ([] as [String], "entlc: error: give --from OLD.json --to NEW.json, or --state S.json --from-time T1 --to-time T2\n"),
        (["--state", "examples/api.state.json", "--from-time", "2026", "--to-time", "2027-01-01T00:00:00Z"],
         "entlc: error: --from-time: \"2026\" is not an RFC 3339 instant\n"),
        (["--state", "examples/api.state.json", "--from-time", "2026-11-22T00:00:00Z", "--to-time",
          "2026-11-23T00:00:00Z", "--at", "2027-01-01T00:00:00Z"],
         "entlc: error: --at goes with --from/--to (--state is followed from T1 to T2)\n"),
    ])
    func badArgumentsExitTwo(_ options: [String], _ message: String) throws {
        let r = try runEntlc(["changes", "examples/api.entl"] + options)
        #expect(r.status == 2)
        #expect(r.stderr == message)
    }
}
