import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

@Suite struct EvalCommandTests {
    static let examples = ["photos", "api", "subscriptions", "crossplatform"]

    /// The README's main command, for every example, in both formats.
    @Test(arguments: examples)
    func examplesMatchTheirGoldens(_ name: String) throws {
        let text = try runEntlc(["eval", "examples/\(name).entl", "--state", "examples/\(name).state.json", "--all"])
        #expect(text.status == 0)
        #expect(text.stderr == "")
        assertGolden(text.stdout, named: "eval/\(name).txt")
        let json = try runEntlc(["eval", "examples/\(name).entl", "--state", "examples/\(name).state.json", "--all",
                                 "--format", "json"])
        #expect(json.status == 0)
        assertGolden(json.stdout, named: "eval/\(name).json")
    }

    /// What a state says (a grant's id and reason, the customer) and a unit of the rules reach the
    /// text output with their control characters escaped: a state could forge a line or send an
    /// escape sequence to the terminal of whoever reads the result.
    @Test func controlCharactersOfTheStateAreEscapedInText() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try #"feature calls: metered { unit "call\u{1B}[31m" / "calls\u{1B}[31m" }"#
            .write(toFile: dir + "/r.entl", atomically: true, encoding: .utf8)
        try #"{"customer": "c\nfake: allowed", "grants": [{"feature": "calls", "amount": 5, "from": "2026-11-01T00:00:00Z", "id": "g\u001b[2J", "reason": "why\nforged line\u009b\u2028"}]}"#
            .write(toFile: dir + "/s.json", atomically: true, encoding: .utf8)
        let r = try runEntlc(["eval", "r.entl", "--state", "s.json", "--feature", "calls", "--explain",
                              "--at", "2026-11-22T12:00:00Z"], directory: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stdout.unicodeScalars.contains { $0.value == 0x1B }, "\(r.stdout)")
        #expect(r.stdout.contains(#"customer c\u{A}fake: allowed"#), "\(r.stdout)")
        #expect(r.stdout.contains(#"via grant g\u{1B}[2J to this customer (why\u{A}forged line\u{9B}\u{2028})"#),
                "\(r.stdout)")
    }

    @Test func theCLIExampleLine() throws {
        let r = try runEntlc(["eval", "Tests/Fixtures/valid/tour.entl", "--state", "Tests/Fixtures/states/spec-example.state.json",
                              "--feature", "api_calls"])
        #expect(r.stdout == """
        api_calls: allowed — 8,800 of 10,000 calls left this month (1 needed)
          via entitlement pro ← pro_monthly (active until 2026-12-05T09:00:00Z, renews)
          valid until 2026-11-29T00:00:00Z

        """)
        #expect(r.status == 0)
    }

    @Test func exitCodesFollowTheDecision() throws {
        let rules = "Tests/Fixtures/valid/tour.entl", s = "Tests/Fixtures/states/spec-example.state.json"
        #expect(try runEntlc(["eval", rules, "--state", s, "--feature", "api_calls", "--amount", "8800"]).status == 0)
        #expect(try runEntlc(["eval", rules, "--state", s, "--feature", "api_calls", "--amount", "1000000"]).status == 1)
        #expect(try runEntlc(["eval", rules, "--state", s, "--feature", "attach_photos"]).status == 1)  // undetermined
        #expect(try runEntlc(["eval", rules, "--state", s, "--product", "zbucks", "--override", "zbucks=purchased"]).status == 0)
        #expect(try runEntlc(["eval", rules, "--state", s, "--entitlement", "pro", "--at", "2026-12-06T00:00:00Z"]).status == 1)
        #expect(try runEntlc(["eval", rules, "--state", s, "--all", "--override", "pro_monthly=not_purchased"]).status == 0)
    }

    @Test func stateFromStandardInputAndTheTestEnvironment() throws {
        let r = try runEntlc(["eval", "examples/subscriptions.entl", "--state", "-", "--env", "test", "--entitlement", "qa_premium",
                              "--format", "json", "--at", "2026-11-22T12:00:00Z"],
                             stdin: #"{"purchases": [{"product": "com.stillwater.qa.unlock", "environment": "test"}]}"#)
        #expect(r.status == 0)
        let v = try JSONParser.parse(r.stdout)
        #expect(v["environment"] == .string("test"))
        #expect(v["customer"] == .null)
    }

    @Test func explainShowsTheReasoning() throws {
        let r = try runEntlc(["eval", "examples/api.entl", "--state", "examples/api.state.json", "--feature", "storage_gb",
                              "--explain"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("  level 57 at 2026-11-22T00:00:00Z"))
        // The level (57) is 7 GB over the allowance (50): credits never pay a level, so they must
        // cover those 7 and the 1 more.
        #expect(r.stdout.contains("credits `forecast_credits`: 1 GB = 100 credits, so the 8 GB missing (7 over the "
                                  + "allowance) cost 800; balance 2200"), "\(r.stdout)")
        #expect(r.stdout.contains("2026-11-22T00:00:00Z: used 300 ← api_pro 300"))
        #expect(r.stdout.contains(#"product `api_pro_monthly` ← purchase #0 "price_forecast_pro_monthly" (stripe) active"#))
        let photos = try runEntlc(["eval", "examples/photos.entl", "--state", "examples/photos.state.json", "--product",
                                   "zbucks", "--explain"])
        #expect(photos.stdout.contains(#"purchase #4 "com.othergame.gems" (app_store): ignored, no product has app_store id "com.othergame.gems""#))
        let json = try runEntlc(["eval", "examples/photos.entl", "--state", "examples/photos.state.json", "--product", "zbucks",
                                 "--explain", "--format", "json"])
        #expect(json.stdout.contains("\"explanation\": ["))
    }

    @Test func batchesWriteOneLinePerInputLine() throws {
        let r = try runEntlc(["eval", "examples/api.entl", "--states", "Tests/Fixtures/states/api.states.jsonl", "--feature",
                              "api_calls", "--amount", "7500", "--at", "2026-11-22T12:00:00Z"])
        #expect(r.status == 0)
        // Six input lines, the fourth blank (skipped): five output lines.
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 6)
        #expect(lines[5] == "")
        let values = try lines.prefix(5).map { try JSONParser.parse($0) }
        #expect(values[0]["customer"] == .string("a"))
        if case .array(let results)? = values[0]["results"] {
            #expect(results.first?["decision"] == .string("allowed"))
            #expect(results.first?["balance"] == .number("7500"))
        } else {
            Issue.record("no results")
        }
        #expect(lines[1] == #"{"line":2,"error":"purchases[0].status: unknown status \"actve\" (expected one of: active, trialing, past_due, billing_retry, canceled, expired, revoked, unknown)"}"#)
        #expect(lines[2] == #"{"line":3,"error":"the state must be a JSON object, found an array"}"#)
        #expect(values[3]["customer"] == .string("c"))
        #expect(values[4]["at"] == .string("2026-11-22T12:00:00Z"))  // --at wins for every line
    }

    @Test func batchOutputIsTheSameBytesForAnyNumberOfThreads() throws {
        // 300 copies of the six fixture lines: several 512-line blocks, errors among them.
        let fixture = try readRepoFile("Tests/Fixtures/states/api.states.jsonl")
        let input = String(repeating: fixture, count: 300)
        var outputs: [String] = []
        for jobs in ["1", "2", "3"] {
            let r = try runEntlc(["eval", "examples/api.entl", "--states", "-", "--feature", "api_calls", "--at",
                                  "2026-11-22T12:00:00Z", "--jobs", jobs], stdin: input)
            #expect(r.status == 0)
            // Customer "a"'s subscription has no `expires_at` (a warning in its line).
            #expect(r.stderr == "1500 lines, 600 errors, 300 warnings\n")
            outputs.append(r.stdout)
        }
        #expect(outputs[1] == outputs[0])
        #expect(outputs[2] == outputs[0])
        let lines = outputs[0].split(separator: "\n").map(String.init)
        #expect(lines.count == 1_500)  // the blank line of each copy is skipped
        #expect(lines[1_496] == #"{"line":1796,"error":"purchases[0].status: unknown status \"actve\" (expected one of: active, trialing, past_due, billing_retry, canceled, expired, revoked, unknown)"}"#)
        #expect(lines[1_497] == #"{"line":1797,"error":"the state must be a JSON object, found an array"}"#)
        #expect(lines[1_498] == lines[3])
    }

    @Test func anOverlongLineIsRefusedAndTheOthersGoOn() throws {
        let long = #"{"customer": ""# + String(repeating: "x", count: 16 * 1024 * 1024) + #""}"#
        let input = #"{"customer": "a"}"# + "\n" + long + "\n" + #"{"customer": "b"}"# + "\n"
        let r = try runEntlc(["eval", "examples/api.entl", "--states", "-", "--product", "call_pack", "--at", "2026-11-22T12:00:00Z"],
                             stdin: input)
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix(#"{"at":"2026-11-22T12:00:00Z","environment":"live","customer":"a","#))
        #expect(lines[1] == #"{"line":2,"error":"line is 16777232 bytes; the limit is 16777216 bytes"}"#)
        #expect(lines[2].hasPrefix(#"{"at":"2026-11-22T12:00:00Z","environment":"live","customer":"b","#))
    }

    @Test func theSameInputsGiveTheSameBytes() throws {
        // Deterministic output, whatever the time zone, locale or run.
        let arguments = ["eval", "examples/photos.entl", "--state", "examples/photos.state.json", "--all", "--format", "json",
                         "--explain"]
        let first = try runEntlc(arguments)
        #expect(first.status == 0)
        #expect(first.stdout.count > 1_000)
        for environment in [[:], ["TZ": "Asia/Kathmandu", "LANG": "de_DE.UTF-8", "LC_ALL": "tr_TR.UTF-8"]] {
            #expect(try runEntlc(arguments, environment: environment).stdout == first.stdout)
        }
    }

    @Test(arguments: [
        (["eval", "examples/api.entl", "--states", "Tests/Fixtures/states/api.states.jsonl", "--all", "--jobs", "0"],
         "entlc: error: --jobs: \"0\" is not an integer from 1 to 256\n"),
        (["eval", "examples/api.entl", "--state", "examples/api.state.json", "--all", "--jobs", "2"],
         "entlc: error: --jobs goes with --states\n"),
        (["eval", "examples/api.entl", "--state", "examples/api.state.json", "--feature", "api_cals"],
         "entlc: error: unknown feature `api_cals` (did you mean `api_calls`?)\n"),
        (["eval", "examples/api.entl", "--state", "examples/api.state.json"],
         "entlc: error: give a query: --feature NAME, --product NAME, --entitlement NAME or --all\n"),
        (["eval", "examples/api.entl", "--state", "examples/api.state.json", "--all", "--product", "call_pack"],
         "entlc: error: give one query, not 2 (--feature, --product, --entitlement, --all)\n"),
        (["eval", "examples/api.entl", "--feature", "api_calls"],
         "entlc: error: give the customer state with --state FILE (or - for standard input), or --states FILE.jsonl\n"),
        (["eval", "examples/api.entl", "--state", "examples/api.state.json", "--feature", "api_calls", "--amount", "0"],
         "entlc: error: --amount: \"0\" is not an integer from 1 to 10^15\n"),
        (["eval", "examples/api.entl", "--state", "examples/api.state.json", "--all", "--at", "tomorrow"],
         "entlc: error: --at: \"tomorrow\" is not an RFC 3339 instant\n"),
        (["eval", "examples/api.entl", "--state", "examples/api.state.json", "--all", "--override", "call_pack=yes"],
         "entlc: error: --override: \"call_pack=yes\" is not PRODUCT=purchased|not_purchased|unknown\n"),
        // Two for one product: the last had won unseen (a review).
        (["eval", "examples/api.entl", "--state", "examples/api.state.json", "--all", "--override", "call_pack=purchased",
          "--override", "call_pack=not_purchased"],
         "entlc: error: --override: product `call_pack` is given twice (purchased, then not_purchased)\n"),
        // An override from the command line is reported as one, not as part of the state file.
        (["eval", "examples/api.entl", "--state", "examples/api.state.json", "--all", "--override", "call_pak=purchased"],
         "entlc: error: --override call_pak=purchased: unknown product `call_pak` (did you mean `call_pack`?)\n"),
        (["eval", "examples/subscriptions.entl", "--state", "examples/subscriptions.state.json", "--all", "--override",
          "qa_unlock=purchased"],
         "entlc: error: --override qa_unlock=purchased: no product `qa_unlock` in environment live\n"),
        // A name of another kind points to the option that fits.
        (["eval", "examples/api.entl", "--state", "examples/api.state.json", "--entitlement", "api_calls"],
         "entlc: error: `api_calls` is a feature, not an entitlement; ask with --feature api_calls\n"),
        (["eval", "examples/api.entl", "--state", "examples/api.state.json", "--feature", "api_pro"],
         "entlc: error: `api_pro` is an entitlement, not a feature; ask with --entitlement api_pro\n"),
        (["eval", "examples/api.entl", "--state", "-", "--all"], "entlc: error: <stdin>: 1:1: invalid JSON: unexpected `not`, expected a value\n"),
        (["eval", "examples/api.entl", "--state", "missing.json", "--all"],
         "entlc: error: cannot read `missing.json`: no such file or directory\n"),
        (["eval", "examples/api.entl", "--state", "Tests/Fixtures/states/api.states.jsonl", "--all"],
         "entlc: error: Tests/Fixtures/states/api.states.jsonl: 2:1: invalid JSON: unexpected `{` after the JSON value\n"),
    ])
    func jobsThatCannotBeDoneExitTwo(_ arguments: [String], _ message: String) throws {
        let r = try runEntlc(arguments, stdin: "not json")
        #expect(r.stderr == message)
        #expect(r.stdout == "")
        #expect(r.status == 2)
    }

    @Test func amountOnABooleanFeatureIsIgnoredAndSaidSo() throws {
        let r = try runEntlc(["eval", "examples/api.entl", "--state", "examples/api.state.json", "--feature", "history_access",
                              "--amount", "5"])
        #expect(r.status == 0)
        #expect(r.stderr == "entlc: note: --amount is ignored for boolean feature `history_access`: it is allowed or not\n")
        #expect(r.stdout.hasPrefix("history_access: allowed — granted by entitlement `api_pro` (api_pro_monthly)\n"))
    }

    /// A denied metered result says what is left and needed once, with grouped numbers.
    @Test func aDeniedMeteredResultGivesItsReasonOnce() throws {
        let r = try runEntlc(["eval", "examples/api.entl", "--state", "examples/api.state.json", "--feature", "api_calls",
                              "--amount", "100000"])
        #expect(r.status == 1)
        #expect(r.stdout == """
        api_calls: denied — 300 of 15,000 calls left (100,000 needed); forecast_credits has 2,200 of the 498,500 credits needed
          via product call_pack
          via entitlement api_pro ← api_pro_monthly (active until 2026-12-03T10:00:00Z, renews)
          short by 99,260 calls
          no single purchase unlocks it
          valid until 2026-12-03T10:00:00Z

        """)
        // Undetermined: what it depends on, once.
        let u = try runEntlc(["eval", "Tests/Fixtures/valid/tour.entl", "--state", "Tests/Fixtures/states/spec-example.state.json",
                              "--feature", "attach_photos"])
        #expect(u.stdout == "attach_photos: undetermined — it depends on `zbucks`, whose status is unknown\n  no single purchase unlocks it\n  valid until 2026-11-29T00:00:00Z\n")
    }

    /// A soft limit: what credits cannot pay goes over the allowance; the text says how the rest is
    /// paid, the reason how much is overdrawn.
    @Test func aCheckAllowedViaOverageSaysWhatGoesOver() throws {
        let state = #"{"purchases": [{"product": "relay_monthly", "purchased_at": "2026-11-05T09:00:00Z", "#
            + #""expires_at": "2026-12-05T09:00:00Z"}, {"product": "relay_credit_pack", "purchased_at": "2026-11-01T00:00:00Z"}], "#
            + #""usage": [{"feature": "relay_requests", "amount": 10400, "at": "2026-11-20T10:00:00Z"}]}"#
        let query = ["eval", "examples/selling.entl", "--state", "-", "--feature", "relay_requests", "--amount", "101",
                     "--at", "2026-11-22T12:00:00Z"]
        let r = try runEntlc(query, stdin: state)
        #expect(r.status == 0)
        #expect(r.stdout == """
        relay_requests: allowed via overage — 0 of 10,000 requests left this month (101 needed); the rest is paid by \
        credits first, then over the allowance (billable)
          via entitlement relay_api ← relay_monthly (active until 2026-12-05T09:00:00Z, renews)
          valid until 2026-12-05T09:00:00Z

        """)
        let json = try runEntlc(query + ["--format", "json"], stdin: state)
        #expect(json.stdout.contains(#""reason": "0 requests left, so 1 request goes over the allowance (overdrawn, billable)""#))
    }

    /// Blank lines (a JSONL file's last newline, or an empty line) hold no customer: skipped, and
    /// the line numbers of error records still count them.
    @Test func blankLinesAreSkippedAndLineNumbersStayTrue() throws {
        let input = #"{"customer": "a"}"# + "\n\n   \n" + #"{"customer": "b", "purchases": 3}"# + "\n\t\n\n"
        let r = try runEntlc(["eval", "examples/api.entl", "--states", "-", "--product", "call_pack", "--at", "2026-11-22T12:00:00Z"],
                             stdin: input)
        #expect(r.status == 0)
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix(#"{"at":"2026-11-22T12:00:00Z","environment":"live","customer":"a","#))
        #expect(lines[1] == #"{"line":4,"error":"purchases: expected an array, found a number"}"#)
        #expect(lines[2] == "")
    }

    @Test func rulesThatDoNotCompileExitTwoWithTheirDiagnostics() throws {
        let r = try runEntlc(["eval", "-", "--state", "examples/api.state.json", "--all"], stdin: "product p: subscription {}\n")
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("<stdin>:1:9: error[E211]: subscription `p` has no `period`\n"))
        #expect(r.stderr.hasSuffix("entlc: error: the rules do not compile (1 error)\n"))
    }
}
