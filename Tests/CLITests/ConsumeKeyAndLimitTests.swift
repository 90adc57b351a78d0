import EntlTestSupport
import Foundation
import Testing

/// Idempotency keys are compared byte for byte (two spellings of one text are two keys), and a
/// consume never writes a state past the most a state may hold.
@Suite struct ConsumeKeyAndLimitTests {
    static let rules = "feature calls: metered\nentitlement free = everyone { grants calls 10000000 per month }\n"

    func scratch(_ state: String) throws -> String {
        let dir = try makeTemporaryDirectory()
        try Self.rules.write(toFile: dir + "/rules.entl", atomically: true, encoding: .utf8)
        try state.write(toFile: dir + "/state.json", atomically: true, encoding: .utf8)
        return dir
    }

    /// `--id "$REQUEST_ID"` with the variable unset: the first use was recorded under "", and
    /// every later one taken for its retry — allowed, exit 0, nothing recorded (a review).
    @Test func anEmptyKeyIsRefused() throws {
        let state = #"{"usage": []}"# + "\n"
        let dir = try scratch(state)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try runEntlc(["eval", "rules.entl", "--state", "state.json", "--feature", "calls", "--consume",
                              "--id", "", "--at", "2026-11-10T00:00:00Z"], directory: dir)
        #expect(r.status == 2)
        #expect(r.stderr == "entlc: error: state.json: an idempotency key (`id`) cannot be empty\n")
        #expect(try String(contentsOfFile: dir + "/state.json", encoding: .utf8) == state)
    }

    @Test func keysThatOnlyLookAlikeAreTwoKeys() throws {
        // "café" with a precomposed é, then with e and a combining accent: Swift's `==` finds them
        // equal; the second use was taken for a retry and lost.
        let dir = try scratch(#"{"usage": [{"feature": "calls", "amount": 1, "at": "2026-11-01T00:00:00Z", "id": "caf\u00e9"}]}"#)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try runEntlc(["eval", "rules.entl", "--state", "state.json", "--feature", "calls", "--consume",
                              "--id", "cafe\u{301}", "--at", "2026-11-10T00:00:00Z"], directory: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("entlc: recorded usage[1] in state.json"), "\(r.stderr)")
        let check = try runEntlc(["eval", "rules.entl", "--state", "state.json", "--feature", "calls",
                                  "--at", "2026-11-10T00:00:01Z"], directory: dir)
        #expect(check.stdout.hasPrefix("calls: allowed — 9,999,998 of 10,000,000 units left this month"), "\(check.stdout)")
        #expect(check.stderr == "", "\(check.stderr)")
        // The same bytes again is a retry.
        let retry = try runEntlc(["eval", "rules.entl", "--state", "state.json", "--feature", "calls", "--consume",
                                  "--id", "cafe\u{301}", "--at", "2026-11-10T00:00:02Z"], directory: dir)
        #expect(retry.stderr == "entlc: id \"cafe\u{301}\" is already recorded (usage[1]); nothing recorded\n")
        // A quote or a backslash in the id is escaped as in JSON (a review: the quotes were ambiguous).
        let quoted = (0..<2).map { _ in
            try? runEntlc(["eval", "rules.entl", "--state", "state.json", "--feature", "calls", "--consume",
                           "--id", #"a"b\c"#, "--at", "2026-11-10T00:00:03Z"], directory: dir)
        }
        #expect(quoted[0]?.stderr.hasPrefix("entlc: recorded usage[2]") == true)
        #expect(quoted[1]?.stderr == #"entlc: id "a\"b\\c" is already recorded (usage[2]); nothing recorded"# + "\n")
    }

    /// An argument that is not UTF-8 is refused (exit 2), not repaired: `req-\xFF` and `req-\xFE`
    /// both became `req-\u{FFFD}`, and the second use was answered as a retry of the first and lost.
    @Test func anIdThatIsNotUTF8IsRefused() throws {
        let dir = try scratch(#"{"usage": []}"#)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        // The shell passes printf's byte as it is (Process takes Strings, which are UTF-8).
        shell.arguments = ["-c", #"exec "$0" eval rules.entl --state state.json --feature calls --consume "#
                            + #"--id "$(printf 'req-\377')" --at 2026-11-10T00:00:00Z"#, entlcExecutable.path]
        shell.currentDirectoryURL = URL(fileURLWithPath: dir)
        let errors = Pipe()
        (shell.standardOutput, shell.standardError) = (FileHandle.nullDevice, errors)
        try shell.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 2)
        #expect(stderr == "entlc: error: argument 9 is not UTF-8 (byte 5 of it): entlc reads its arguments as UTF-8\n")
        #expect(try String(contentsOfFile: dir + "/state.json", encoding: .utf8) == #"{"usage": []}"#)
    }

    /// A retry sent late with its first instant, which a compaction has since folded: answered
    /// from what was recorded (it was refused, exit 2, as a use before the ledger); a new use then
    /// still is.
    @Test func aLateRetryOfAFoldedUseIsAnsweredAsARetry() throws {
        let dir = try scratch(#"{"usage": [{"feature": "calls", "amount": 2, "at": "2026-11-09T12:00:00Z", "id": "r1"}]}"#)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let compact = try runEntlc(["state", "compact", "rules.entl", "--state", "state.json",
                                    "--before", "2026-11-10T00:00:00Z", "-o", "state.json"], directory: dir)
        #expect(compact.status == 0, "\(compact.stderr)")
        func consume(_ id: String) throws -> CommandResult {
            try runEntlc(["eval", "rules.entl", "--state", "state.json", "--feature", "calls", "--amount", "2",
                          "--consume", "--id", id, "--at", "2026-11-09T12:00:00Z"], directory: dir)
        }
        let retry = try consume("r1")
        #expect(retry.status == 0)
        #expect(retry.stderr == "entlc: id \"r1\" is already recorded (folded into the state's ledger); nothing recorded\n")
        let new = try consume("r2")
        #expect(new.status == 2)
        #expect(new.stderr.hasSuffix("a use at 2026-11-09T12:00:00Z can no longer be recorded "
                                     + "(record it at 2026-11-10T00:00:00Z or later)\n"), "\(new.stderr)")
    }

    @Test func aFullStateIsNotWrittenPastItsLimit() throws {
        let record = #"{"feature":"calls","amount":1,"at":"2026-11-01T00:00:00Z"}"#
        let state = #"{"usage":["# + Array(repeating: record, count: 1_000_000).joined(separator: ",") + "]}"
        let dir = try scratch(state)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try runEntlc(["eval", "rules.entl", "--state", "state.json", "--feature", "calls", "--consume",
                              "--at", "2026-11-10T00:00:00Z"], directory: dir)
        #expect(r.status == 2)
        #expect(r.stderr == "entlc: error: state.json: it holds 1000000 usage records, the most a state may hold; "
                + "compact it (entlc state compact) to record more; nothing recorded\n")
        #expect(try String(contentsOfFile: dir + "/state.json", encoding: .utf8) == state)
    }
}
