@testable import entlc
import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// `entlc diff --states` as a reviewer reads it: balance deltas and the counts by the product that
/// represents each customer in every format, the Markdown summary for a pull request, and runs
/// that do not depend on the clock once `--since` is given.
@Suite struct DiffReviewTests {
    static let old = "Tests/Fixtures/diff/review/old.entl"
    static let new = "Tests/Fixtures/diff/review/new.entl"
    static let states = "Tests/Fixtures/diff/review/states.jsonl"
    /// The state on line 7 has no `now`: it is evaluated at this instant, while its subscription runs.
    static let since = ["--since", "2026-06-15T00:00:00Z"]

    static func diff(_ format: String, _ more: [String] = since) throws -> CommandResult {
        try runEntlc(["diff", old, new, "--states", states, "--format", format] + more, environment: ["NO_COLOR": "1"])
    }

    @Test(arguments: [("text", "review.txt"), ("json", "review.json"), ("github", "review.github.txt"),
                      ("markdown", "review.md")])
    func everyFormat(_ format: String, _ golden: String) throws {
        let r = try Self.diff(format)
        #expect(r.status == 1)
        #expect(r.stderr == "")
        assertGolden(r.stdout, named: "diff/" + golden)
    }

    /// SARIF carries `--since` and the same impact as JSON in its run's property bag.
    @Test func sarifCarriesTheImpact() throws {
        let sarif = try JSONParser.parse(try Self.diff("sarif").stdout)
        let json = try JSONParser.parse(try Self.diff("json").stdout)
        guard case .array(let runs)? = sarif["runs"], let run = runs.first else { Issue.record("no run"); return }
        #expect(run["properties"]?["since"] == .string("2026-06-15T00:00:00Z"))
        #expect(run["properties"]?["sinceFromClock"] == .bool(false))
        #expect(run["properties"]?["impact"] == json["impact"])
        #expect(json["impact"]?["customers"] == .number("10"))
    }

    @Test(arguments: ["text", "json", "markdown"])
    func theNumberOfThreadsChangesNothing(_ format: String) throws {
        let one = try Self.diff(format, Self.since + ["--jobs", "1"])
        let two = try Self.diff(format, Self.since + ["--jobs", "2"])
        #expect(one.status == 1 && two.status == 1)
        #expect(one.stdout == two.stdout)
    }

    /// With `--since`, two runs a clock second apart write the same bytes in every format; the
    /// instant also decides states without `now` (line 7's subscription has ended by August).
    @Test func withSinceNothingDependsOnTheClock() throws {
        let formats = ["text", "json", "github", "sarif", "markdown"]
        let first = try formats.map { try Self.diff($0) }
        let second = Int(Date().timeIntervalSince1970) + 1
        while Int(Date().timeIntervalSince1970) < second { usleep(20_000) }
        let again = try formats.map { try Self.diff($0) }
        for (format, (a, b)) in zip(formats, zip(first, again)) {
            #expect(a.stdout == b.stdout, "\(format)")
        }
        let august = try JSONParser.parse(try Self.diff("json", ["--since", "2026-08-01T00:00:00Z"]).stdout)
        let june = try JSONParser.parse(first[1].stdout)
        #expect(lost(june, "pro") == ["basic_1", "line 7"])
        #expect(lost(august, "pro") == ["basic_1"])
    }

    /// Without `--since`, the clock's instant (to the second) is the default, and every format says so.
    @Test func theDefaultInstantIsPrintedAsSuch() throws {
        let before = Int64(Date().timeIntervalSince1970)
        let json = try JSONParser.parse(try Self.diff("json", []).stdout)
        let after = Int64(Date().timeIntervalSince1970)
        #expect(json["since_from_clock"] == .bool(true))
        guard case .string(let text)? = json["since"], let since = Instant(rfc3339: text) else {
            Issue.record("no since"); return
        }
        #expect(since.seconds >= before && since.seconds <= after && since.nanoseconds == 0)
        for format in ["text", "github"] {
            #expect(try Self.diff(format, []).stdout.contains(" as of \(text.prefix(17))"))
            #expect(try Self.diff(format, []).stdout.contains("Z (now; pass --since to fix it)\n"))
        }
        #expect(try Self.diff("markdown", []).stdout.contains("Z (now; pass `--since` to fix it).\n"))
    }

    @Test(arguments: [
        ("yesterday", "entlc: error: --since: \"yesterday\" is not an RFC 3339 instant\n"),
        ("2026-02-30T00:00:00Z", "entlc: error: --since: \"2026-02-30T00:00:00Z\" is not an RFC 3339 instant\n"),
        ("2026-06-15", "entlc: error: --since: \"2026-06-15\" is not an RFC 3339 instant\n"),
    ])
    func aBadSinceIsAnError(_ value: String, _ message: String) throws {
        let r = try Self.diff("markdown", ["--since", value])
        #expect(r.status == 2)
        #expect(r.stdout == "")
        #expect(r.stderr == message)
    }

    func lost(_ output: JSONValue, _ entitlement: String) -> [String] {
        guard case .array(let changes)? = output["impact"]?["changes"] else { return [] }
        for c in changes where c["name"] == .string(entitlement) {
            guard case .array(let ids)? = c["lost"]?["customers"] else { return [] }
            return ids.compactMap { if case .string(let s) = $0 { s } else { nil } }
        }
        return []
    }

    // MARK: - Markdown text

    @Test(arguments: [
        ("monthly_1", false, "`monthly_1`"),
        ("a`b", false, "``a`b``"),
        ("`x``", false, "``` `x`` ```"),
        ("a|b", true, "`a\\|b`"),
        ("a|b", false, "`a|b`"),
        ("line\nbreak", true, "`line\u{FFFD}break`"),
    ])
    func codeSpans(_ text: String, _ inTable: Bool, _ expected: String) {
        #expect(Markdown.code(text, inTable: inTable) == expected)
    }

    @Test(arguments: [
        ("`pro_monthly` loses *all* <b>", "`pro_monthly` loses \\*all\\* \\<b\\>"),
        ("store id \"price_pro\" [x](y) | ~z~ & more", "store id \"price\\_pro\" \\[x\\](y) \\| \\~z\\~ \\& more"),
        ("code `a_b*` then `unpaired_", "code `a_b*` then \\`unpaired\\_"),
        ("two\nlines", "two\u{FFFD}lines"),
    ])
    func inlineText(_ text: String, _ expected: String) {
        #expect(Markdown.inline(text) == expected)
    }
}
