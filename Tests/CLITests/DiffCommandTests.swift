import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// `entlc diff`: the output formats (goldens), exit codes, and the impact over a JSONL file.
@Suite struct DiffCommandTests {
    static let old = "Tests/Fixtures/diff/old.entl"
    static let new = "Tests/Fixtures/diff/new.entl"
    static let states = "Tests/Fixtures/diff/states.jsonl"
    static let since = ["--since", "2026-11-23T00:00:00Z"]

    @Test(arguments: [("text", "forecast.txt"), ("json", "forecast.json"), ("github", "forecast.github.txt"),
                      ("sarif", "forecast.sarif.json"), ("markdown", "forecast.md")])
    func everyFormat(_ format: String, _ golden: String) throws {
        let arguments = ["diff", Self.old, Self.new, "--format", format, "--states", Self.states] + Self.since
        let r = try runEntlc(arguments, environment: ["NO_COLOR": "1"])
        #expect(r.status == 1)
        #expect(r.stderr == "")
        assertGolden(r.stdout, named: "diff/" + golden)
    }

    /// docs/cli.md and docs/changing-rules.md show this fixture's impact: it is what diff prints.
    @Test func theDocumentationShowsTheRealImpact() throws {
        let r = try runEntlc(["diff", Self.old, Self.new, "--states", Self.states] + Self.since,
                             environment: ["NO_COLOR": "1"])
        let impact = try #require(r.stdout.range(of: "Impact on "))
        let shown = "```text\n"
            + r.stdout[impact.lowerBound...].replacingOccurrences(of: Self.states, with: "customers.jsonl") + "```\n"
        for file in ["docs/cli.md", "docs/changing-rules.md"] {
            #expect(try readRepoFile(file).contains(shown), "\(file)")
        }
    }

    @Test func theImpactCountsEveryCustomer() throws {
        let arguments = ["diff", Self.old, Self.new, "--format", "json", "--states", Self.states] + Self.since
        let r = try runEntlc(arguments + ["--jobs", "1"])
        let impact = try #require(try JSONParser.parse(r.stdout)["impact"])
        #expect(impact["customers"] == .number("5"))
        #expect(impact["errors"] == .number("1"))
        guard case .array(let changes)? = impact["changes"] else { Issue.record("no changes"); return }
        var summary: [String] = []
        for c in changes {
            guard case .string(let kind)? = c["kind"], case .string(let name)? = c["name"] else { continue }
            for key in ["gained", "lost", "balance_changed"] {
                guard case .number(let n)? = c[key]?["count"], n != "0",
                      case .array(let ids)? = c[key]?["customers"] else { continue }
                let names = ids.compactMap { if case .string(let s) = $0 { s } else { nil } }
                summary.append("\(kind) \(name) \(key) \(n): \(names.joined(separator: ","))")
            }
        }
        #expect(summary == [
            "entitlement pro lost 1: monthly_1",
            "feature api_calls lost 1: monthly_1",
            "feature api_calls balance_changed 2: annual_1,annual_2",
            "feature raw_export lost 3: monthly_1,annual_1,annual_2",
            "feature team_seats gained 2: annual_1,annual_2",
        ])
        // The same counts on any number of threads.
        let parallel = try runEntlc(arguments + ["--jobs", "3"])
        #expect(parallel.stdout == r.stdout)
    }

    /// `--states` reads JSONL as `eval --states` does: an overlong line is refused, the rest counted.
    @Test func anOverlongStateLineIsRefusedAndTheOthersCount() throws {
        let long = #"{"customer": ""# + String(repeating: "x", count: 16 * 1024 * 1024) + #""}"#
        let input = #"{"customer": "a", "purchases": []}"# + "\n" + long + "\n"
        let r = try runEntlc(["diff", Self.old, Self.new, "--format", "json", "--states", "-"] + Self.since,
                             stdin: input)
        let impact = try #require(try JSONParser.parse(r.stdout)["impact"])
        #expect(impact["customers"] == .number("1"))
        #expect(impact["errors"] == .number("1"))
        guard case .array(let errors)? = impact["first_errors"], let first = errors.first else {
            Issue.record("no errors"); return
        }
        #expect(first["line"] == .number("2"))
        #expect(first["error"] == .string("line is 16777232 bytes; the limit is 16777216 bytes"))
    }

    @Test func exitCodes() throws {
        let same = try runEntlc(["diff", Self.old, Self.old] + Self.since, environment: ["NO_COLOR": "1"])
        #expect(same.status == 0)
        #expect(same.stdout == "0 breaking changes, 0 other changes as of 2026-11-23T00:00:00Z\n")

        let allowed = try runEntlc(["diff", Self.old, Self.new, "--allow", "D402", "--allow", "d403",
                                    "--allow", "D405", "--allow", "D406",
                                    "--format", "json"] + Self.since)
        #expect(allowed.status == 0)
        #expect(try JSONParser.parse(allowed.stdout)["breaking"] == .number("0"))

        let onlyNotes = try runEntlc(["diff", Self.new, Self.new, "--format", "github"] + Self.since)
        #expect(onlyNotes.status == 0)
    }

    @Test func aSideThatDoesNotCompileStopsTheComparison() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "product p: non_consumable\nentitlement e = q\n".write(toFile: dir + "/broken.entl", atomically: true,
                                                                    encoding: .utf8)
        let r = try runEntlc(["diff", repoPath(Self.old), "broken.entl"], environment: ["NO_COLOR": "1"],
                             directory: dir)
        #expect(r.status == 2)
        #expect(r.stdout == "")
        #expect(r.stderr.hasPrefix("broken.entl:2:17: error[E201]: unknown product `q`"))
        #expect(r.stderr.hasSuffix("entlc: error: cannot compare: NEW (`broken.entl`) does not compile (1 error)\n"))
        // Nothing to post on a pull request: the diagnostics go with the error to standard error.
        let markdown = try runEntlc(["diff", repoPath(Self.old), "broken.entl", "--format", "markdown"],
                                    environment: ["NO_COLOR": "1"], directory: dir)
        #expect(markdown.status == 2)
        #expect(markdown.stdout == "")
        #expect(markdown.stderr == r.stderr)
    }

    @Test(arguments: [
        (["diff", old], "entlc: error: give the two versions to compare: entlc diff OLD NEW (files or directories)\n"),
        (["diff", old, new, "--since", "yesterday"],
         "entlc: error: --since: \"yesterday\" is not an RFC 3339 instant\n"),
        (["diff", old, new, "--allow", "W301"],
         "entlc: error: --allow W301: only breaking changes (D4xx) can be allowed\n"),
        (["diff", old, new, "--jobs", "2"], "entlc: error: --jobs goes with --states\n"),
        (["diff", old, "nothere.entl"], "entlc: error: cannot read `nothere.entl`: no such file or directory\n"),
    ])
    func badArguments(_ arguments: [String], _ message: String) throws {
        let r = try runEntlc(arguments)
        #expect(r.status == 2)
        #expect(r.stderr == message)
    }
}
