import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// `eval --consume` writes a user's state file as a careful editor does: atomically, through a
/// symbolic link, keeping its mode, its layout and its line endings, refusing a read-only file,
/// the new record the only change; concurrent consumers never spend the last unit twice.
@Suite struct ConsumeFileSafetyTests {
    static let rules = """
    feature calls: metered
    entitlement free = everyone { grants calls 5 }
    """
    static let at = "2026-06-10T00:00:00Z"

    func scratch(state: String) throws -> String {
        let dir = try makeTemporaryDirectory()
        try Self.rules.write(toFile: dir + "/rules.entl", atomically: true, encoding: .utf8)
        try state.write(toFile: dir + "/state.json", atomically: true, encoding: .utf8)
        return dir
    }

    func consume(_ dir: String, _ file: String = "state.json", at: String = ConsumeFileSafetyTests.at) throws -> CommandResult {
        try runEntlc(["eval", "rules.entl", "--state", file, "--feature", "calls", "--consume", "--at", at], directory: dir)
    }

    func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    static let record = #"{"feature": "calls", "amount": 1, "at": "2026-06-10T00:00:00Z"}"#

    /// Each layout keeps its own: the record is laid out like its neighbour, or like the state's
    /// own members in a new array.
    @Test(arguments: [
        // Minified stays minified.
        (#"{"usage":[{"feature":"calls","amount":1}]}"#,
         #"{"usage":[{"feature":"calls","amount":1},{"feature":"calls","amount":1,"at":"2026-06-10T00:00:00Z"}]}"#),
        (#"{"customer":"c"}"#, #"{"customer":"c","usage":[{"feature":"calls","amount":1,"at":"2026-06-10T00:00:00Z"}]}"#),
        // Pretty with a 4-space indent, one member per line.
        ("{\n    \"usage\": [\n        {\n            \"feature\": \"calls\",\n            \"amount\": 1\n        }\n    ]\n}\n",
         "{\n    \"usage\": [\n        {\n            \"feature\": \"calls\",\n            \"amount\": 1\n        },\n        {\n"
            + "            \"feature\": \"calls\",\n            \"amount\": 1,\n            \"at\": \"2026-06-10T00:00:00Z\"\n"
            + "        }\n    ]\n}\n"),
        // CRLF line endings stay CRLF.
        ("{\r\n  \"usage\": [\r\n    {\r\n      \"feature\": \"calls\",\r\n      \"amount\": 1\r\n    }\r\n  ]\r\n}\r\n",
         "{\r\n  \"usage\": [\r\n    {\r\n      \"feature\": \"calls\",\r\n      \"amount\": 1\r\n    },\r\n    {\r\n"
            + "      \"feature\": \"calls\",\r\n      \"amount\": 1,\r\n      \"at\": \"2026-06-10T00:00:00Z\"\r\n    }\r\n  ]\r\n}\r\n"),
        ("{\r\n  \"customer\": \"c\"\r\n}\r\n",
         "{\r\n  \"customer\": \"c\",\r\n  \"usage\": [" + record + "]\r\n}\r\n"),
        // One record per line.
        ("{\n  \"usage\": [\n    {\"feature\": \"calls\", \"amount\": 1}\n  ]\n}\n",
         "{\n  \"usage\": [\n    {\"feature\": \"calls\", \"amount\": 1},\n    " + record + "\n  ]\n}\n"),
    ])
    func theLayoutIsKept(_ before: String, _ after: String) throws {
        let dir = try scratch(state: before)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try consume(dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try read(dir + "/state.json") == after)
    }

    /// Through a symbolic link the target is rewritten and the link stays a link; the mode is kept.
    @Test func aSymlinkStaysALinkAndTheModeIsKept() throws {
        let dir = try scratch(state: #"{"usage": []}"#)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/data", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: dir + "/state.json", toPath: dir + "/data/real.json")
        try FileManager.default.createSymbolicLink(atPath: dir + "/state.json", withDestinationPath: "data/real.json")
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: dir + "/data/real.json")
        #expect(try consume(dir).status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/state.json") == "data/real.json")
        #expect(try read(dir + "/data/real.json") == #"{"usage": ["# + Self.record + "]}")
        let mode = try FileManager.default.attributesOfItem(atPath: dir + "/data/real.json")[.posixPermissions] as? Int
        #expect(mode == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/data") == ["real.json"])
    }

    /// A file with no write permission is refused (even for root), nothing decided or changed.
    @Test func aReadOnlyFileIsRefused() throws {
        let state = #"{"usage": []}"#
        let dir = try scratch(state: state)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: dir + "/state.json")
        let r = try consume(dir)
        #expect(r.status == 2)
        #expect(r.stdout == "")
        #expect(r.stderr == "entlc: error: cannot write `state.json`: the file is read-only (nothing was changed)\n")
        #expect(try read(dir + "/state.json") == state)
    }

    /// A file in a directory with no write permission is refused too (even for root, whom the
    /// system would let make the new file there), nothing decided or changed.
    @Test func aFileInAReadOnlyDirectoryIsRefused() throws {
        let state = #"{"usage": []}"#
        let dir = try scratch(state: state)
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir)
            try? FileManager.default.removeItem(atPath: dir)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: dir)
        let r = try consume(dir)
        #expect(r.status == 2)
        #expect(r.stdout == "")
        #expect(r.stderr == "entlc: error: cannot write `state.json`: its directory is not writable (nothing was changed)\n")
        #expect(try read(dir + "/state.json") == state)
    }

    /// 200 consumes on a minified file: it grows by the record alone, the same number of bytes each
    /// time (no indentation piles up).
    @Test func aMinifiedFileGrowsLinearly() throws {
        var bytes = Array(#"{"customer":"c","usage":[{"feature":"calls","amount":1}]}"#.utf8)
        let record = UsageRecord(feature: "calls", kind: .amount(1), at: instant(Self.at))
        var sizes: [Int] = []
        for _ in 0..<200 {
            bytes = try PurchaseState.appendingUsage(record, toJSON: bytes)
            sizes.append(bytes.count)
        }
        let steps = Set(zip(sizes.dropFirst(), sizes).map { $0 - $1 })
        #expect(steps == [Array(#",{"feature":"calls","amount":1,"at":"2026-06-10T00:00:00Z"}"#.utf8).count])
        #expect(try PurchaseState(json: bytes).usage.count == 201)
        // The command line writes the same bytes.
        let dir = try scratch(state: #"{"customer":"c","usage":[{"feature":"calls","amount":1}]}"#)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "feature calls: metered\nentitlement free = everyone { grants calls unlimited }"
            .write(toFile: dir + "/rules.entl", atomically: true, encoding: .utf8)
        for _ in 0..<200 { #expect(try consume(dir).status == 0) }
        #expect(Array(try read(dir + "/state.json").utf8) == bytes)
    }

    /// 8 processes consume one unit each from a balance of 5: exactly 5 are recorded.
    @Test func eightConcurrentConsumersRecordExactlyTheBalance() throws {
        let dir = try scratch(state: #"{"usage": []}"#)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let statuses = try runEntlcConcurrently(8, ["eval", "rules.entl", "--state", "state.json", "--feature", "calls",
                                                    "--consume", "--at", Self.at], directory: dir, lockedFile: "state.json")
        #expect(statuses.filter { $0 == 0 }.count == 5)
        #expect(statuses.filter { $0 == 1 }.count == 3)
        let state = try PurchaseState(json: Array(try read(dir + "/state.json").utf8))
        #expect(state.usage.count == 5)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["rules.entl", "state.json"])
    }

    /// The same id for another use: exit 2, the first record named, nothing written.
    @Test func aReusedIDForAnotherUseIsRefused() throws {
        let state = #"{"usage": [{"feature": "calls", "amount": 3, "id": "req-7"}]}"#
        let dir = try scratch(state: state)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try runEntlc(["eval", "rules.entl", "--state", "state.json", "--feature", "calls", "--amount", "2", "--consume",
                              "--id", "req-7", "--at", Self.at], directory: dir)
        #expect(r.status == 2)
        #expect(r.stdout == "")
        #expect(r.stderr == "entlc: error: state.json: idempotency key \"req-7\" was used for usage[0] (calls, amount 3)\n")
        #expect(try read(dir + "/state.json") == state)
    }
}

/// `entlc state check`: errors and warnings of state files, with or without rules.
@Suite struct StateCheckCommandTests {
    @Test func errorsAndWarningsWithAndWithoutRules() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try #"{"usage": [{"feature": "calls", "amount": 1.5}]}"#.write(toFile: dir + "/bad.json", atomically: true, encoding: .utf8)
        try #"{"usage": [{"feature": "cals", "amount": 1}], "purchases": [{"product": "p", "state": "x"}]}"#
            .write(toFile: dir + "/typo.json", atomically: true, encoding: .utf8)
        try "feature calls: metered\nentitlement free = everyone { grants calls 5 }\n"
            .write(toFile: dir + "/rules.entl", atomically: true, encoding: .utf8)
        let plain = try runEntlc(["state", "check", "bad.json", "typo.json"], directory: dir)
        #expect(plain.status == 1)
        #expect(plain.stderr == """
            entlc: error: bad.json: usage[0].amount: 1.5 is not a whole number
            entlc: warning: typo.json: purchases[0].state: unknown key (did you mean `status`?)

            """)
        let ruled = try runEntlc(["state", "check", "typo.json", "--rules", "rules.entl"], directory: dir)
        #expect(ruled.status == 0)
        #expect(ruled.stderr == """
            entlc: warning: typo.json: purchases[0].state: unknown key (did you mean `status`?)
            entlc: warning: typo.json: usage[0].feature: no feature, credit system or event "cals" in the rules (did you mean `calls`?)

            """)
        let strict = try runEntlc(["state", "check", "typo.json", "--rules", "rules.entl", "--strict", "--format", "json"],
                                  directory: dir)
        #expect(strict.status == 1)
        guard case .array(let reports) = try JSONParser.parse(strict.stdout) else { Issue.record("not an array"); return }
        #expect(reports[0]["valid"] == .bool(false))
        #expect(reports[0]["warnings"] == .array([
            .string("purchases[0].state: unknown key (did you mean `status`?)"),
            .string(#"usage[0].feature: no feature, credit system or event "cals" in the rules (did you mean `calls`?)"#),
        ]))
    }
}

/// Every warning of docs/state.md: on standard error in text, in JSON `warnings`, an error (exit 2)
/// with `--strict`, an error record in a `--strict` batch.
@Suite struct StateWarningCommandTests {
    static let rules = """
    product pro: subscription { period month; id app_store "com.x.pro" }
    product pack: consumable { grants calls 500 expires after 12 months }
    feature calls: metered { event "call" }
    feature seats: metered { usage continuous }
    entitlement plan = pro { grants calls 100 per month; grants seats 5 }
    """

    @Test(arguments: [
        (#"{"usage": [{"feature": "cals", "amount": 1}]}"#,
         #"usage[0].feature: no feature, credit system or event "cals" in the rules (did you mean `calls`?)"#),
        (#"{"usage": [{"event": "cal", "amount": 1}]}"#, #"usage[0].event: no event "cal" in the rules (did you mean `call`?)"#),
        (#"{"usage": [{"feature": "seats", "amount": 1}]}"#,
         "usage[0].amount: `seats` is a continuous feature: its usage is a `level`, not an `amount`"),
        (#"{"usage": [{"feature": "calls", "level": 1}]}"#,
         "usage[0].level: `calls` is used up, not held: its usage is an `amount`, not a `level`"),
        (#"{"usage": [{"feature": "calls", "amount": 1, "id": "k"}, {"feature": "calls", "amount": 2, "id": "k"}]}"#,
         #"usage[1].id: "k" was used for usage[0] (calls, amount 1); ids are unique per customer, so this record counts as another use"#),
        (#"{"purchases": [{"product": "com.x.pro", "store": "app_stor", "expires_at": "2026-12-01T00:00:00Z"}]}"#,
         "purchases[0].store: no product of the rules has an id at store `app_stor` (did you mean `app_store`?)"),
        (#"{"purchases": [{"product": "pro"}]}"#, "purchases[0].expires_at: a subscription `active` without an `expires_at` never ends"),
        (#"{"purchases": [{"product": "pro", "status": "canceled"}]}"#,
         "purchases[0].expires_at: a subscription `canceled` without an `expires_at` has no paid period: it is not owned"),
        (#"{"purchases": [{"product": "pro", "status": "past_due", "expires_at": "2026-12-01T00:00:00Z"}]}"#,
         "purchases[0].grace_until: a subscription `past_due` without a `grace_until` keeps access with no end"),
        (#"{"purchases": [{"product": "pro", "purchased_at": "2026-12-01T00:00:00Z", "expires_at": "2026-11-01T00:00:00Z"}]}"#,
         "purchases[0].purchased_at: 2026-12-01T00:00:00Z is after its own `expires_at` 2026-11-01T00:00:00Z"),
        // A lot counts from its purchase: without a date it would never lapse (a review).
        (#"{"purchases": [{"product": "pack"}, {"product": "pack", "status": "revoked"}]}"#,
         "purchases[0].purchased_at: a grant that `expires after` counts from the purchase that pays it: while "
            + "this `pack` does, without `purchased_at`, it never expires"),
    ])
    func eachWarningEverywhere(_ state: String, _ message: String) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.rules.write(toFile: dir + "/rules.entl", atomically: true, encoding: .utf8)
        let query = ["eval", "rules.entl", "--state", "-", "--entitlement", "plan", "--at", "2026-11-20T00:00:00Z"]
        let text = try runEntlc(query, stdin: state, directory: dir)
        #expect(text.stderr == "entlc: warning: <stdin>: \(message)\n")
        let json = try runEntlc(query + ["--format", "json"], stdin: state, directory: dir)
        #expect(try JSONParser.parse(json.stdout)["warnings"] == .array([.string(message)]))
        let strict = try runEntlc(query + ["--strict"], stdin: state, directory: dir)
        #expect(strict.status == 2)
        #expect(strict.stdout == "")
        #expect(strict.stderr == "entlc: error: <stdin>: \(message)\n")
        let batch = try runEntlc(["eval", "rules.entl", "--states", "-", "--entitlement", "plan", "--at", "2026-11-20T00:00:00Z",
                                  "--strict", "--fail-on-error"], stdin: state + "\n{}\n", directory: dir)
        #expect(batch.status == 1)
        #expect(batch.stdout.split(separator: "\n").first.map(String.init)
            == JSONValue.object([("line", .int(1)), ("error", .string(message))]).compact)
        #expect(batch.stderr == "2 lines, 1 error, 0 warnings\n")
    }

    @Test func aBatchSaysWhatItDidAndFailsOnlyWhenAsked() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.rules.write(toFile: dir + "/rules.entl", atomically: true, encoding: .utf8)
        let lines = "{}\n\n[1]\n" + #"{"usage": [{"feature": "cals", "amount": 1}]}"# + "\n"
        let plain = try runEntlc(["eval", "rules.entl", "--states", "-", "--feature", "calls"], stdin: lines, directory: dir)
        #expect(plain.status == 0)
        #expect(plain.stderr == "3 lines, 1 error, 1 warning\n")
        // One instant for the lines without `now`: the same `at` on each.
        let ats = Set(plain.stdout.split(separator: "\n").compactMap { try? JSONParser.parse(String($0))["at"]?.compact })
        #expect(ats.count == 1)
        let failing = try runEntlc(["eval", "rules.entl", "--states", "-", "--feature", "calls", "--fail-on-error"], stdin: lines,
                                   directory: dir)
        #expect(failing.status == 1)
        #expect(failing.stderr == "3 lines, 1 error, 1 warning\n")
        #expect(failing.stdout.split(separator: "\n").count == 3)
    }
}
