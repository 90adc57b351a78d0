import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// `entlc eval --consume` and the state's unknown keys (`--strict`).
@Suite struct ConsumeCommandTests {
    static let rules = """
    product pro: subscription { period month }
    feature calls: metered { unit "call" / "calls" }
    feature seats: metered { usage continuous }
    credits coins { calls 1 = 2 }
    entitlement plan = pro {
      grants calls 10 per month
      grants coins 10 per month
      grants seats 3
    }
    """
    static let state = """
    {
      "now": "2026-06-10T00:00:00Z",
      "purchases": [{ "product": "pro", "purchased_at": "2026-06-01T00:00:00Z", "expires_at": "2026-07-01T00:00:00Z" }],
      "usage": [
        { "feature": "calls", "amount": 4 }
      ]
    }

    """

    func scratch() throws -> String {
        let dir = try makeTemporaryDirectory()
        try Self.rules.write(toFile: dir + "/rules.entl", atomically: true, encoding: .utf8)
        try Self.state.write(toFile: dir + "/state.json", atomically: true, encoding: .utf8)
        return dir
    }

    func consume(_ dir: String, _ amount: Int, id: String? = nil) throws -> CommandResult {
        try runEntlc(["eval", "rules.entl", "--state", "state.json", "--feature", "calls", "--amount", String(amount), "--consume"]
                     + (id.map { ["--id", $0] } ?? []), directory: dir)
    }

    @Test func anAllowedUseIsAppendedAndEveryOtherByteKept() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try consume(dir, 5, id: "req-1")
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("calls: allowed — 6 of 10 calls left this month (5 needed)\n"))
        #expect(r.stderr == #"entlc: recorded usage[1] in state.json: {"feature": "calls", "amount": 5, "at": "2026-06-10T00:00:00Z", "id": "req-1"}"# + "\n")
        let expected = Self.state.replacingOccurrences(of: #"{ "feature": "calls", "amount": 4 }"#, with: #"""
            { "feature": "calls", "amount": 4 },
                { "feature": "calls", "amount": 5, "at": "2026-06-10T00:00:00Z", "id": "req-1" }
            """#)
        #expect(try String(contentsOfFile: dir + "/state.json", encoding: .utf8) == expected)
        // A retry: the first answer, nothing recorded.
        let retry = try consume(dir, 5, id: "req-1")
        #expect(retry.status == 0)
        #expect(retry.stdout == r.stdout)
        let json = try runEntlc(["eval", "rules.entl", "--state", "state.json", "--feature", "calls", "--amount", "5",
                                 "--consume", "--id", "req-1", "--format", "json"], directory: dir)
        #expect(json.stdout.contains(#""allowed": true,\#n      "replayed": true,"#))
        #expect(retry.stderr == "entlc: id \"req-1\" is already recorded (usage[1]); nothing recorded\n")
        #expect(try String(contentsOfFile: dir + "/state.json", encoding: .utf8) == expected)
        // 1 call is left, so 3 needs 2 calls of credits (4 coins): allowed via credits, recorded.
        #expect(try consume(dir, 3).status == 0)
        // 10 more: nothing left, 20 coins needed of 6: denied, the file untouched (exit 1).
        let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/state.json"))
        let denied = try consume(dir, 10)
        #expect(denied.status == 1)
        #expect(denied.stdout.hasPrefix("calls: denied"))
        #expect(denied.stderr == "")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/state.json")) == before)
    }

    @Test(arguments: [
        (["--state", "-", "--feature", "calls"],
         "entlc: error: --consume records the use in the state file; it cannot write to standard input\n"),
        (["--state", "state.json", "--feature", "seats"],
         "entlc: error: --consume records a use of a single-use feature or credit system; `seats` is not one\n"),
        (["--state", "state.json", "--entitlement", "plan"], "entlc: error: --consume goes with --feature F [--amount N]\n"),
        (["--states", "state.json", "--feature", "calls"],
         "entlc: error: --consume records a use in one state file; it does not go with --states\n"),
        (["--state", "state.json", "--feature", "calls", "--override", "pro=purchased"],
         "entlc: error: --override does not go with --consume: the recorded state would not say why the use was allowed\n"),
    ])
    func whatCannotBeConsumedExitsTwo(_ arguments: [String], _ message: String) throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try runEntlc(["eval", "rules.entl", "--consume"] + arguments, stdin: Self.state, directory: dir)
        #expect(r.stderr == message)
        #expect(r.status == 2)
        #expect(try String(contentsOfFile: dir + "/state.json", encoding: .utf8) == Self.state)
        #expect(try runEntlc(["eval", "rules.entl", "--state", "state.json", "--all", "--id", "x"], directory: dir).stderr
            == "entlc: error: --id goes with --consume\n")
    }

    /// Concurrent processes consuming from one file: the lock serializes them, so exactly the
    /// allowance plus what the credits pay for is recorded, and the file stays valid JSON.
    @Test func concurrentProcessesNeverSpendTheLastUnitTwice() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let statuses = try runEntlcConcurrently(14, ["eval", "rules.entl", "--state", "state.json", "--feature", "calls", "--consume"],
                                                directory: dir)
        // 6 calls left, then 10 coins at 2 a call: 11 of the 14 are allowed.
        #expect(statuses.filter { $0 == 0 }.count == 11)
        #expect(statuses.filter { $0 == 1 }.count == 3)
        let state = try PurchaseState(json: Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/state.json"))))
        #expect(state.usage.count == 12)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["rules.entl", "state.json"])
    }

    @Test func unknownKeysAreWarningsOrWithStrictErrors() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let misspelled = #"{"now": "2026-06-10T00:00:00Z", "purchases": [{"product": "pro", "state": "expired", "expires_at": "2026-07-01T00:00:00Z"}]}"#
        let text = try runEntlc(["eval", "rules.entl", "--state", "-", "--entitlement", "plan"], stdin: misspelled, directory: dir)
        #expect(text.status == 0)
        #expect(text.stderr == "entlc: warning: <stdin>: purchases[0].state: unknown key (did you mean `status`?)\n")
        let json = try runEntlc(["eval", "rules.entl", "--state", "-", "--entitlement", "plan", "--format", "json"],
                                stdin: misspelled, directory: dir)
        #expect(json.stderr == "")
        let v = try JSONParser.parse(json.stdout)
        #expect(v["warnings"] == .array([.string("purchases[0].state: unknown key (did you mean `status`?)")]))
        let strict = try runEntlc(["eval", "rules.entl", "--state", "-", "--entitlement", "plan", "--strict"],
                                  stdin: misspelled, directory: dir)
        #expect(strict.status == 2)
        #expect(strict.stderr == "entlc: error: <stdin>: purchases[0].state: unknown key (did you mean `status`?)\n")
        // Batch lines carry their warnings; with --strict the line is an error record.
        let lines = misspelled + "\n" + #"{"customer": "b"}"# + "\n"
        let batch = try runEntlc(["eval", "rules.entl", "--states", "-", "--entitlement", "plan"], stdin: lines, directory: dir)
        let first = try JSONParser.parse(String(batch.stdout.split(separator: "\n")[0]))
        #expect(first["warnings"] == .array([.string("purchases[0].state: unknown key (did you mean `status`?)")]))
        #expect(!batch.stdout.split(separator: "\n")[1].contains("warnings"))
        let strictBatch = try runEntlc(["eval", "rules.entl", "--states", "-", "--entitlement", "plan", "--strict"], stdin: lines,
                                       directory: dir)
        #expect(strictBatch.stdout.split(separator: "\n")[0]
            == #"{"line":1,"error":"purchases[0].state: unknown key (did you mean `status`?)"}"#)
    }
}
