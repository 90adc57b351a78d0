import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// `entlc state compact`: the bytes it writes, where and how it writes them, that the result is a
/// valid state which evaluates as the history it replaces from `--before` on, and its errors.
@Suite struct StateCompactCommandTests {
    static let rules = """
    product pro: subscription { period month }
    product pack: consumable {
      grants coins 100
    }
    feature calls: metered { unit "call" / "calls" }
    credits coins { calls 1 = 2 }
    entitlement plan = pro {
      grants calls 10 per month carry up to 5
      grants coins 10 per month
    }
    """
    static let state = """
    {
      "now": "2026-06-10T00:00:00Z",
      "purchases": [
        { "product": "pro", "purchased_at": "2026-04-01T00:00:00Z", "period_start": "2026-06-01T00:00:00Z", \
    "expires_at": "2026-07-01T00:00:00Z" },
        { "product": "pack", "purchased_at": "2026-04-02T00:00:00Z" }
      ],
      "usage": [
        { "feature": "calls", "amount": 4, "at": "2026-04-05T00:00:00Z", "id": "a" },
        { "feature": "calls", "amount": 14, "at": "2026-05-05T00:00:00Z", "id": "b" },
        { "feature": "calls", "amount": 3, "at": "2026-06-01T10:00:00Z", "id": "c" },
        { "feature": "calls", "amount": 2, "at": "2026-06-03T00:00:00Z" }
      ]
    }

    """
    static let before = "2026-06-02T00:00:00Z"
    static let pro = #"{"product": "pro", "purchased_at": "2026-04-01T00:00:00Z"}"#
    static let pack = #"{"product": "pack", "purchased_at": "2026-04-02T00:00:00Z"}"#
    /// The state compacted before 2026-06-02: April's 4 calls left 6, 5 carried (the cap); May's 14
    /// of 15 left 1 to carry; June's 3 left 8 of 11. Only `c` is within a day before the cut.
    static var compacted: String {
        """
        {
          "now": "2026-06-10T00:00:00Z",
          "purchases": [
            { "product": "pro", "purchased_at": "2026-04-01T00:00:00Z", "period_start": "2026-06-01T00:00:00Z", \
        "expires_at": "2026-07-01T00:00:00Z" },
            { "product": "pack", "purchased_at": "2026-04-02T00:00:00Z" }
          ],
          "usage": [
            { "feature": "calls", "amount": 2, "at": "2026-06-03T00:00:00Z" }
          ],
          "ledger": {
            "before": "2026-06-02T00:00:00Z",
            "rules": "\(digest())",
            "grants": [
              {"feature": "calls", "grant": 0, "purchase": \(pro), "window_start": "2026-06-01T00:00:00Z", \
        "window_end": "2026-07-01T00:00:00Z", "balance": 8, "carried": 1, "used": 3, "overdrawn": 0},
              {"feature": "coins", "grant": 0, "purchase": \(pack), "balance": 100, "carried": 0, "used": 0, \
        "overdrawn": 0},
              {"feature": "coins", "grant": 1, "purchase": \(pro), "window_start": "2026-06-01T00:00:00Z", \
        "window_end": "2026-07-01T00:00:00Z", "balance": 10, "carried": 0, "used": 0, "overdrawn": 0}
            ],
            "ids": [
              {"id": "c", "feature": "calls", "amount": 3, "at": "2026-06-01T10:00:00Z"}
            ]
          }
        }

        """
    }
    static let summary = "entlc: state.json: folded 3 usage records dated before 2026-06-02T00:00:00Z into the ledger "
        + "(3 grant positions, 1 id remembered); 1 kept\n"

    /// The rules' digest, as the library computes it (the CLI must name the same).
    static func digest() -> String {
        compileGraph(rules).live.rulesDigest
    }

    func scratch(_ state: String = Self.state) throws -> String {
        let dir = try makeTemporaryDirectory()
        try Self.rules.write(toFile: dir + "/rules.entl", atomically: true, encoding: .utf8)
        try state.write(toFile: dir + "/state.json", atomically: true, encoding: .utf8)
        return dir
    }

    func compact(_ dir: String, _ extra: [String] = [], before: String = Self.before) throws -> CommandResult {
        try runEntlc(["state", "compact", "rules.entl", "--state", "state.json", "--before", before] + extra,
                     directory: dir)
    }

    @Test func theSnapshotIsWrittenEveryOtherByteKept() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try compact(dir)
        #expect(r.status == 0)
        #expect(r.stdout == Self.compacted)
        #expect(r.stderr == Self.summary)
        // To a file: the same bytes; the input untouched.
        let o = try compact(dir, ["-o", "out.json"])
        #expect(o.status == 0 && o.stdout == "")
        #expect(try String(contentsOfFile: dir + "/out.json", encoding: .utf8) == Self.compacted)
        #expect(try String(contentsOfFile: dir + "/state.json", encoding: .utf8) == Self.state)
        // A valid state: the schema, and `state check --strict` with the rules.
        let schema = JSONSchemaValidator(repoFile: "schema/state.schema.json")
        #expect(schema.errors(try JSONParser.parse(Self.compacted)) == [])
        let check = try runEntlc(["state", "check", "out.json", "--rules", "rules.entl", "--strict"], directory: dir)
        #expect(check.status == 0, "\(check.stderr)")
        // Its `now` moved before the ledger's instant, `eval` cannot read it there: nor is it valid
        // (`state check` had evaluated it at the ledger's instant instead, a review).
        try Self.compacted.replacingOccurrences(of: #""now": "2026-06-10T00:00:00Z""#, with: #""now": "2026-06-01T00:00:00Z""#)
            .write(toFile: dir + "/early.json", atomically: true, encoding: .utf8)
        let early = try runEntlc(["state", "check", "early.json", "--rules", "rules.entl"], directory: dir)
        #expect(early.status == 1)
        #expect(early.stderr.hasPrefix("entlc: error: early.json: the state's uses before 2026-06-02T00:00:00Z are folded"),
                "\(early.stderr)")
        // Compacting the result at the same instant changes nothing.
        let again = try runEntlc(["state", "compact", "rules.entl", "--state", "out.json", "--before", Self.before],
                                 directory: dir)
        #expect(again.status == 0)
        #expect(again.stdout == Self.compacted)
    }

    @Test func aMinifiedStateStaysMinified() throws {
        let minified = #"{"now":"2026-06-10T00:00:00Z","usage":[{"feature":"calls","amount":1,"#
            + #""at":"2026-06-01T00:00:00Z"}]}"#
        let dir = try scratch(minified)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try compact(dir)
        #expect(r.status == 0)
        let digest = Self.digest()
        #expect(r.stdout == #"{"now":"2026-06-10T00:00:00Z","usage":[],"ledger": {"before": "2026-06-02T00:00:00Z", "#
                + #""rules": "\#(digest)", "grants": [], "overage": {"calls": 1}}}"#)
    }

    /// At every instant from `--before` on, `eval --all` answers the same bytes for both files, also
    /// after a use recorded in both, and a retry of an id the snapshot remembers counts once.
    @Test func aCompactedStateEvaluatesAsItsHistory() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try compact(dir, ["-o", "short.json"]).status == 0)
        func eval(_ file: String, at: String, _ extra: [String] = []) throws -> CommandResult {
            try runEntlc(["eval", "rules.entl", "--state", file, "--all", "--at", at] + extra, directory: dir)
        }
        func same(at instants: [String]) throws {
            for at in instants {
                for format in [["--format", "json"], []] {
                    let full = try eval("state.json", at: at, format), short = try eval("short.json", at: at, format)
                    #expect(full.status == 0 && short.status == 0)
                    #expect(short.stdout == full.stdout, "at \(at) \(format)")
                    #expect(short.stderr == full.stderr)
                }
            }
        }
        let instants = [Self.before, "2026-06-02T12:00:00Z", "2026-06-10T00:00:00Z", "2026-06-30T23:59:59Z",
                        "2026-07-01T00:00:00Z", "2026-09-01T00:00:00Z"]
        try same(at: instants)
        // A retry of `c` (folded, remembered), then a new use: in both files.
        for file in ["state.json", "short.json"] {
            let retry = try runEntlc(["eval", "rules.entl", "--state", file, "--feature", "calls", "--amount", "3",
                                      "--id", "c", "--consume", "--at", "2026-06-04T00:00:00Z"], directory: dir)
            #expect(retry.status == 0)
            let first = file == "state.json" ? "usage[2]" : "folded into the state's ledger"
            #expect(retry.stderr == "entlc: id \"c\" is already recorded (\(first)); nothing recorded\n")
            let use = try runEntlc(["eval", "rules.entl", "--state", file, "--feature", "calls", "--amount", "9",
                                    "--id", "d", "--consume", "--at", "2026-06-05T00:00:00Z"], directory: dir)
            #expect(use.status == 0)
            #expect(use.stdout.hasPrefix("calls: allowed via credits — 6 of 11 calls left this month (9 needed); "
                                         + "6 credits from coins (110 held)\n"), "\(use.stdout)")
        }
        try same(at: Array(instants.dropFirst(2)))
        // Before the cut the compacted file no longer answers.
        let early = try eval("short.json", at: "2026-06-01T23:59:59Z")
        #expect(early.status == 2)
        #expect(early.stderr == "entlc: error: short.json: the state's uses before 2026-06-02T00:00:00Z are folded "
                + "into its ledger: it is evaluated at 2026-06-02T00:00:00Z or later, not at 2026-06-01T23:59:59Z\n")
    }

    @Test func inPlaceALinkStaysALinkAndTheModeIsKept() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/data", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: dir + "/state.json", toPath: dir + "/data/real.json")
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: dir + "/data/real.json")
        try FileManager.default.createSymbolicLink(atPath: dir + "/state.json", withDestinationPath: "data/real.json")
        let r = try compact(dir, ["-o", "state.json"])
        #expect(r.status == 0)
        #expect(r.stdout == "")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/state.json") == "data/real.json")
        #expect(try String(contentsOfFile: dir + "/data/real.json", encoding: .utf8) == Self.compacted)
        let mode = try FileManager.default.attributesOfItem(atPath: dir + "/data/real.json")[.posixPermissions] as? Int
        #expect(mode == 0o640)
        // No temporary file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/data") == ["real.json"])
    }

    /// A second name of the state (a hard link) is one of the command's inputs: refused before
    /// anything is folded or said (a review: the summary of what was folded came first).
    /// In place however the state is spelled: `-o ./state.json` had been refused as "an input of
    /// this command" while a link to it compacted in place (a review).
    @Test func inPlaceHoweverTheStateIsSpelled() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try compact(dir, ["-o", "./state.json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try String(contentsOfFile: dir + "/state.json", encoding: .utf8).contains("\"ledger\""))
    }

    @Test func aHardLinkToTheStateIsRefusedBeforeAnythingIsSaid() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.linkItem(atPath: dir + "/state.json", toPath: dir + "/other.json")
        let r = try compact(dir, ["-o", "other.json"])
        #expect(r.status == 2)
        #expect(r.stderr == "entlc: error: cannot write `other.json`: it is `state.json`, an input of this command "
                + "(nothing was written; give the output a path of its own)\n")
        #expect(try String(contentsOfFile: dir + "/other.json", encoding: .utf8) == Self.state)
    }

    /// What was folded is said once it is written: an output that cannot be written says only
    /// that (a review: "folded 3 usage records … into the ledger", then the write failed).
    @Test func nothingIsSaidFoldedWhenTheOutputCannotBeWritten() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try compact(dir, ["-o", "/dev/full"])
        #expect(r.status == 2)
        #expect(r.stderr == "entlc: error: cannot write `/dev/full`: no space left on device\n")
    }

    /// Compacting in place while uses are recorded: both take the file's lock, so no use is lost
    /// and none is recorded twice, whatever order they run in. (The history is long enough that a
    /// compaction without the lock, reading before a use is written and renaming after, loses it.)
    @Test func compactingInPlaceLosesNoConcurrentUse() throws {
        let records = (0..<30_000).map { k in
            #"{"feature": "calls", "amount": 1, "at": "\#(Instant(seconds: 1_777_593_600 + Int64(k) * 60))"}"#
        }
        let dir = try scratch(#"{"purchases": [{"product": "pro", "purchased_at": "2026-04-01T00:00:00Z", "#
                              + #""expires_at": "2026-07-01T00:00:00Z"}], "usage": [\#n"#
                              + records.joined(separator: ",\n") + "\n]}\n")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.rules.replacingOccurrences(of: "calls 10 per month", with: "calls 1_000_000 per month")
            .write(toFile: dir + "/rules.entl", atomically: true, encoding: .utf8)
        let consume = ["eval", "rules.entl", "--state", "state.json", "--feature", "calls", "--consume",
                       "--at", "2026-06-04T00:00:00Z"]
        let compact = ["state", "compact", "rules.entl", "--state", "state.json", "--before", Self.before,
                       "-o", "state.json"]
        let statuses = try runEntlcConcurrently([compact, consume, consume, consume, consume], directory: dir)
        #expect(statuses == [0, 0, 0, 0, 0])
        let json = try String(contentsOfFile: dir + "/state.json", encoding: .utf8)
        let state = try PurchaseState(json: Array(json.utf8))
        #expect(state.ledger?.before == Instant(rfc3339: Self.before))
        // Every record before the cut folded, the four uses kept.
        #expect(state.usage.count == 4)
        #expect(state.usage.allSatisfy { $0.at == Instant(rfc3339: "2026-06-04T00:00:00Z") })
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["rules.entl", "state.json"])
    }

    /// A refund after the compaction does not reach back: the folded uses it paid for stay paid (the
    /// full history moves them to other grants or to overage), and the evaluation says so.
    @Test func aLaterRefundKeepsTheFoldedUsesPaidAndWarns() throws {
        let state = """
        {"purchases": [{"product": "pro", "purchased_at": "2026-05-01T00:00:00Z", "expires_at": "2026-07-01T00:00:00Z"},
                       {"product": "pack", "purchased_at": "2026-05-02T00:00:00Z"}],
         "usage": [{"feature": "calls", "amount": 30, "at": "2026-05-05T00:00:00Z"}]}
        """
        let dir = try scratch(state)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try compact(dir, ["-o", "short.json"]).status == 0)
        let refund = #"{"product": "pack", "status": "revoked", "purchased_at""#
        for file in ["state.json", "short.json"] {
            let text = try String(contentsOfFile: dir + "/" + file, encoding: .utf8)
            // The purchase (the first mention; the ledger names it too).
            let purchase = try #require(text.range(of: #"{"product": "pack", "purchased_at""#))
            try text.replacingCharacters(in: purchase, with: refund)
                .write(toFile: dir + "/" + file, atomically: true, encoding: .utf8)
        }
        func eval(_ file: String, _ format: String) throws -> CommandResult {
            try runEntlc(["eval", "rules.entl", "--state", file, "--feature", "calls", "--at", "2026-06-05T00:00:00Z",
                          "--format", format], directory: dir)
        }
        #expect(try eval("state.json", "json").stdout.contains(#""overage": 15,"#))
        #expect(try eval("short.json", "json").stdout.contains(#""overage": 0,"#))
        #expect(try eval("state.json", "text").stderr == "")
        #expect(try eval("short.json", "text").stderr == "entlc: warning: short.json: ledger.grants[1].purchase: "
                + "`pack` was refunded after the uses before 2026-06-02T00:00:00Z were folded: what it paid for then stays "
                + "paid (docs/ledger.md)\n")
    }

    /// Any change after the compaction that makes a purchase not owned where its grant paid for
    /// folded uses warns as a refund does (a review: `canceled` without an end was silent, the
    /// compacted state 3 calls richer than the history).
    @Test func aPurchaseNoLongerOwnedWhereItPaidWarnsAsARefundDoes() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "product life: non_consumable\nfeature f1: metered\nentitlement e = life { grants f1 10 }\n"
            .write(toFile: dir + "/rules.entl", atomically: true, encoding: .utf8)
        try (#"{"purchases": [{"product": "life", "purchased_at": "2026-11-01T00:00:00Z"}], "#
             + #""usage": [{"feature": "f1", "amount": 3, "at": "2026-11-02T00:00:00Z"}]}"#)
            .write(toFile: dir + "/state.json", atomically: true, encoding: .utf8)
        #expect(try compact(dir, ["-o", "short.json"], before: "2026-11-03T00:00:00Z").status == 0)
        for file in ["state.json", "short.json"] {
            let text = try String(contentsOfFile: dir + "/" + file, encoding: .utf8)
            let purchase = try #require(text.range(of: #"{"product": "life", "purchased_at""#))
            try text.replacingCharacters(in: purchase, with: #"{"product": "life", "status": "canceled", "purchased_at""#)
                .write(toFile: dir + "/" + file, atomically: true, encoding: .utf8)
        }
        func eval(_ file: String, _ format: String = "text") throws -> CommandResult {
            try runEntlc(["eval", "rules.entl", "--state", file, "--feature", "f1", "--at", "2026-12-01T00:00:00Z",
                          "--format", format], directory: dir)
        }
        #expect(try eval("state.json", "json").stdout.contains(#""overage": 3,"#))
        #expect(try eval("short.json", "json").stdout.contains(#""overage": 0,"#))
        #expect(try eval("state.json").stderr == "")
        #expect(try eval("short.json").stderr == "entlc: warning: short.json: ledger.grants[0].purchase: `life` is, "
                + "as the state now says, not owned at 2026-11-01T00:00:00Z, where its grant paid for uses folded "
                + "before 2026-11-03T00:00:00Z: what it paid for then stays paid (docs/ledger.md)\n")
    }

    @Test func evaluatingWithOtherRulesWarnsAndCompactingWithThemIsRefused() throws {
        let dir = try scratch(Self.compacted)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let other = Self.rules.replacingOccurrences(of: "calls 10 per month", with: "calls 11 per month")
        try other.write(toFile: dir + "/other.entl", atomically: true, encoding: .utf8)
        let otherDigest = compileGraph(other).live.rulesDigest
        let mine = Self.digest()
        let eval = try runEntlc(["eval", "other.entl", "--state", "state.json", "--feature", "calls"], directory: dir)
        #expect(eval.status == 0)
        #expect(eval.stderr == "entlc: warning: state.json: ledger.rules: the ledger was compacted with other rules "
                + "(\(mine.prefix(12))…, these are \(otherDigest.prefix(12))…): its balances may not be theirs\n")
        let r = try runEntlc(["state", "compact", "other.entl", "--state", "state.json", "--before",
                              "2026-06-05T00:00:00Z"], directory: dir)
        #expect(r.status == 2)
        #expect(r.stdout == "")
        #expect(r.stderr == "entlc: error: state.json: the state's ledger was compacted with other rules "
                + "(`\(mine.prefix(12))…`, these are `\(otherDigest.prefix(12))…`): compact it with the rules it was "
                + "made with\n")
        // With its own rules, as a built graph: compacted again.
        #expect(try runEntlc(["build", "rules.entl", "-o", "rules.graph"], directory: dir).status == 0)
        let graph = try runEntlc(["state", "compact", "--graph", "rules.graph", "--state", "state.json", "--before",
                                  "2026-06-05T00:00:00Z"], directory: dir)
        #expect(graph.status == 0, "\(graph.stderr)")
        #expect(graph.stdout.contains(#""before": "2026-06-05T00:00:00Z""#))
    }

    @Test(arguments: [
        (["--state", "state.json", "--before", "yesterday"],
         "entlc: error: --before: \"yesterday\" is not an RFC 3339 instant\n"),
        (["--state", "state.json"],
         "entlc: error: give the instant to compact before with --before INSTANT (RFC 3339)\n"),
        (["--before", "2026-06-02T00:00:00Z"],
         "entlc: error: give the state to compact with --state FILE (or - for standard input)\n"),
        (["--state", "missing.json", "--before", "2026-06-02T00:00:00Z"],
         "entlc: error: cannot read `missing.json`: no such file or directory\n"),
        (["--state", "bad.json", "--before", "2026-06-02T00:00:00Z"],
         "entlc: error: bad.json: 1:12: invalid JSON: unexpected `}`, expected a value\n"),
        (["--state", "compacted.json", "--before", "2026-06-01T00:00:00Z"],
         "entlc: error: compacted.json: the state's uses before 2026-06-02T00:00:00Z are folded already: compact it "
            + "before that instant or a later one, not 2026-06-01T00:00:00Z\n"),
        (["--state", "typo.json", "--before", "2026-06-02T00:00:00Z", "--strict"],
         "entlc: error: typo.json: usage[0].amout: unknown key (did you mean `amount`?)\n"),
        // The ledger holds the uses as the state's own environment evaluates them.
        (["--state", "state.json", "--before", "2026-06-02T00:00:00Z", "--env", "test"],
         "entlc: error: state.json: the state's environment is live: its uses are folded as live evaluates them, "
            + "not test\n"),
    ])
    func badInputExitsTwoAndWritesNothing(_ arguments: [String], _ message: String) throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try #"{"usage": [}"#.write(toFile: dir + "/bad.json", atomically: true, encoding: .utf8)
        try Self.compacted.write(toFile: dir + "/compacted.json", atomically: true, encoding: .utf8)
        try #"{"usage": [{"feature": "calls", "amout": 1}]}"#.write(toFile: dir + "/typo.json", atomically: true,
                                                                     encoding: .utf8)
        let r = try runEntlc(["state", "compact", "rules.entl", "-o", "out.json"] + arguments, directory: dir)
        #expect(r.status == 2)
        #expect(r.stderr == message)
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.json"))
    }

    /// A window that runs past 9999 cannot be written so that it reads back: compaction refuses
    /// and writes nothing (it had written `"window_end": "10000-01-01T00:00:00Z"`, a state entlc
    /// then refused — in place, the customer's file was lost). A `null` folded overage is refused
    /// where it stands (it had read as none: the overage owed was gone, even under --strict).
    @Test func whatCouldNotBeReadBackIsRefused() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "feature calls: metered\nentitlement free = everyone { grants calls 10 per month }\n"
            .write(toFile: dir + "/rules.entl", atomically: true, encoding: .utf8)
        try #"{"customer_since": "9999-12-01T00:00:00Z", "usage": [{"feature": "calls", "amount": 5, "at": "9999-12-16T00:00:00Z"}]}"#
            .write(toFile: dir + "/state.json", atomically: true, encoding: .utf8)
        let r = try runEntlc(["state", "compact", "rules.entl", "--state", "state.json", "--before",
                              "9999-12-20T00:00:00Z", "-o", "out.json"], directory: dir)
        #expect(r.status == 2)
        #expect(r.stderr == "entlc: error: state.json: the window of `calls` at 9999-12-20T00:00:00Z ends after the "
                + "year 9999, which a state cannot hold: compact before an earlier instant\n")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.json"))

        let digest = String(repeating: "0", count: 64)
        try #"{"ledger": {"before": "2026-11-10T00:00:00Z", "rules": "\#(digest)", "overage": {"calls": null}}}"#
            .write(toFile: dir + "/nulled.json", atomically: true, encoding: .utf8)
        let eval = try runEntlc(["eval", "rules.entl", "--state", "nulled.json", "--feature", "calls"], directory: dir)
        #expect(eval.status == 2)
        #expect(eval.stderr == "entlc: error: nulled.json: ledger.overage.calls: null is no total: the ledger keeps "
                + "what was used and is owed here\n")
        // So is a null where an entry keeps what was overdrawn (it read as 0: billable use gone).
        try (#"{"ledger": {"before": "2026-11-10T00:00:00Z", "rules": "\#(digest)", "grants": [{"feature": "calls", "#
             + #""grant": 0, "window_start": "2026-11-01T00:00:00Z", "window_end": "2026-12-01T00:00:00Z", "#
             + #""balance": 0, "carried": 0, "used": 10, "overdrawn": null}]}}"#)
            .write(toFile: dir + "/entry.json", atomically: true, encoding: .utf8)
        let entry = try runEntlc(["eval", "rules.entl", "--state", "entry.json", "--feature", "calls"], directory: dir)
        #expect(entry.stderr == "entlc: error: entry.json: ledger.grants[0].overdrawn: null is no total: the ledger "
                + "keeps what was used and is owed here\n")
    }

    @Test func unknownRulesExitTwo() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try runEntlc(["state", "compact", "nope.entl", "--state", "state.json", "--before", Self.before],
                             directory: dir)
        #expect(r.status == 2)
        #expect(r.stderr == "entlc: error: cannot read `nope.entl`: no such file or directory\n")
    }

    /// A ledger position holds at most what its window can (the allowance and what was carried
    /// into it, within the carry's cap, less what was used from it): a balance edited to 10^18 reads
    /// as the allowance less the 2 used.
    @Test func aLedgerBalanceIsReadWithinTheRulesBounds() throws {
        let rules = "feature calls: metered\nentitlement free = everyone { grants calls 10 per month }\n"
        let state = #"{"usage": [], "ledger": {"before": "2026-11-10T00:00:00Z", "rules": "\#(String(repeating: "0", count: 64))", "grants": [{"feature": "calls", "#
            + #""grant": 0, "window_start": "2026-11-01T00:00:00Z", "window_end": "2026-12-01T00:00:00Z", "#
            + #""balance": 1000000000000000000, "carried": 0, "used": 2, "overdrawn": 0}]}}"#
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try rules.write(toFile: dir + "/rules.entl", atomically: true, encoding: .utf8)
        try state.write(toFile: dir + "/state.json", atomically: true, encoding: .utf8)
        let check = try runEntlc(["eval", "rules.entl", "--state", "state.json", "--feature", "calls",
                                  "--at", "2026-11-10T00:00:00Z"], directory: dir)
        #expect(check.stdout.hasPrefix("calls: allowed — 8 of 10 units left this month (1 needed)\n"), "\(check.stdout)")
    }
}
