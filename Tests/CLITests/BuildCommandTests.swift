import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// `entlc build RULES -o FILE` and the commands that run a built graph (`--graph FILE`).
@Suite struct BuildCommandTests {
    @Test func buildWritesAnArtifactThatEvalAnswersFromAsTheSource() throws {
        let dir = try makeTemporaryDirectory()
        let artifact = dir + "/api.graph.json"
        let built = try runEntlc(["build", "examples/api.entl", "-o", artifact])
        #expect(built.status == 0)
        #expect(built.stdout == "")
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: artifact)))
        let digest = try RuleGraphArtifact(bytes: bytes).sha256
        #expect(built.stderr == "built \(artifact): sha256 \(digest)\n")
        // A new file gets ordinary permissions, not the temporary file's 0600.
        let mode = try FileManager.default.attributesOfItem(atPath: artifact)[.posixPermissions] as? Int
        #expect(mode.map { $0 & 0o044 } == 0o044)

        for query in [["--all"], ["--feature", "api_calls", "--amount", "500"], ["--entitlement", "api_pro"]] {
            let fromSource = try runEntlc(["eval", "examples/api.entl", "--state", "examples/api.state.json", "--format", "json"] + query)
            let fromGraph = try runEntlc(["eval", "--graph", artifact, "--state", "examples/api.state.json", "--format", "json"] + query)
            #expect(fromGraph.stdout == fromSource.stdout)
            #expect(fromGraph.status == fromSource.status)
        }
        let changes = try runEntlc(["changes", "--graph", artifact, "--state", "examples/api.state.json",
                                    "--from-time", "2026-11-01T00:00:00Z", "--to-time", "2027-01-01T00:00:00Z"])
        let changesFromSource = try runEntlc(["changes", "examples/api.entl", "--state", "examples/api.state.json",
                                              "--from-time", "2026-11-01T00:00:00Z", "--to-time", "2027-01-01T00:00:00Z"])
        #expect(changes.status == 0)
        #expect(changes.stdout == changesFromSource.stdout)
        #expect(try runEntlc(["graph", "--graph", artifact, "--format", "mermaid"]).stdout
                == runEntlc(["graph", "examples/api.entl", "--format", "mermaid"]).stdout)
    }

    @Test func buildToStandardOutputIsDeterministic() throws {
        let one = try runEntlc(["build", "examples/photos.entl", "--output", "-"])
        let two = try runEntlc(["build", "examples/photos.entl", "-o", "-"])
        #expect(one.status == 0)
        #expect(one.stdout == two.stdout)
        #expect(one.stdout.hasPrefix(#"{"format":"entl-rule-graph","format_version":1,"compiler":"entlc "#))
        #expect(one.stderr.hasPrefix("built <stdout>: sha256 "))
    }

    @Test func badInputsExitTwoWithAClearError() throws {
        let dir = try makeTemporaryDirectory()
        let noOutput = try runEntlc(["build", "examples/api.entl"])
        #expect(noOutput.status == 2)
        #expect(noOutput.stderr == "entlc: error: give the artifact's path with -o FILE\n")

        let broken = dir + "/broken.entl"
        try "product p: subscription {".write(toFile: broken, atomically: true, encoding: .utf8)
        let notCompiling = try runEntlc(["build", broken, "-o", dir + "/x.json"])
        #expect(notCompiling.status == 2)
        #expect(notCompiling.stderr.hasSuffix("entlc: error: the rules do not compile (2 errors)\n"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/x.json"))

        let corrupt = dir + "/corrupt.json"
        var text = try runEntlc(["build", "examples/api.entl", "-o", "-"]).stdout
        text = text.replacingOccurrences(of: "\"api_calls\"", with: "\"api_callz\"")
        try text.write(toFile: corrupt, atomically: true, encoding: .utf8)
        let refused = try runEntlc(["eval", "--graph", corrupt, "--state", "examples/api.state.json", "--all"])
        #expect(refused.status == 2)
        #expect(refused.stdout == "")
        #expect(refused.stderr.hasPrefix("entlc: error: `\(corrupt)` is not a usable rule graph: sha256: the digest does not match the content"))

        let both = try runEntlc(["eval", "examples/api.entl", "--graph", corrupt, "--state", "examples/api.state.json", "--all"])
        #expect(both.status == 2)
        #expect(both.stderr == "entlc: error: give either RULES or --graph FILE, not both\n")

        let missing = try runEntlc(["eval", "--graph", dir + "/none.json", "--state", "examples/api.state.json", "--all"])
        #expect(missing.status == 2)
        #expect(missing.stderr == "entlc: error: cannot read `\(dir)/none.json`: no such file or directory\n")
    }

    /// One state always says what would unlock a denied result; a batch only with `--unlock`.
    @Test func unlockedByInTextOneStateAndBatches() throws {
        let text = try runEntlc(["eval", "examples/api.entl", "--state", "examples/api.state.json", "--feature", "history_access",
                                 "--at", "2027-03-01T00:00:00Z"])
        #expect(text.status == 1)
        #expect(text.stdout == """
            history_access: denied — no owned product or active entitlement grants it
              unlock with: api_pro_monthly, api_pro_annual

            """)
        let line = #"{"purchases": [], "now": "2026-11-22T12:00:00Z"}"#
        let plain = try runEntlc(["eval", "examples/api.entl", "--states", "-", "--feature", "history_access"], stdin: line + "\n")
        #expect(plain.stdout.contains(#""unlocked_by":null"#))
        let unlock = try runEntlc(["eval", "examples/api.entl", "--states", "-", "--feature", "history_access", "--unlock"],
                                  stdin: line + "\n")
        #expect(unlock.stdout.contains(#""unlocked_by":["api_pro_monthly","api_pro_annual"]"#))
    }
}
