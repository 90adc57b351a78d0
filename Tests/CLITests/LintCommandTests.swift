import EntlCompiler
import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// `check` in CI: warnings, silencing, SARIF and GitHub output, `explain`.
@Suite struct LintCommandTests {
    static let rules = """
    product spare: non_consumable
    product pro: subscription { period month }
    feature export: boolean
    entitlement e = pro or not pro { grants export }

    """

    @Test func warningsExitZeroUnlessDenied() throws {
        let r = try runEntlc(["check", "-"], stdin: LintCommandTests.rules)
        #expect(r.status == 0)
        #expect(r.stdout.hasSuffix("0 errors, 2 warnings in 1 file\n"))
        #expect(r.stdout.contains("<stdin>:1:9: warning[W301]: product `spare` is never used\n"))
        #expect(try runEntlc(["check", "-", "--deny-warnings"], stdin: LintCommandTests.rules).status == 1)
        let denied = try runEntlc(["check", "-", "--deny", "w301"], stdin: LintCommandTests.rules)
        #expect(denied.status == 1)
        #expect(denied.stdout.contains("error[W301]"))
        let allowed = try runEntlc(["check", "-", "--allow", "W301", "--allow", "W304", "--deny-warnings"], stdin: LintCommandTests.rules)
        #expect(allowed.stdout == "0 errors, 0 warnings in 1 file\n")
        #expect(allowed.status == 0)
    }

    @Test(arguments: [
        (["--allow", "W399"], "entlc: error: --allow: unknown code `W399` (did you mean `W309`?); `entlc explain` lists them\n"),
        (["--deny", "X1"], "entlc: error: --deny: unknown code `X1`; `entlc explain` lists them\n"),
        (["--allow", "E201"], "entlc: error: --allow E201: only warnings can be allowed; errors must be fixed\n"),
        (["--allow", "W301", "--deny", "W301"],
         "entlc: error: W301 is given to both --allow and --deny: drop it or make it an error, not both\n"),
    ])
    func badCodesExitTwo(_ options: [String], _ message: String) throws {
        let r = try runEntlc(["check", "examples"] + options)
        #expect(r.status == 2)
        #expect(r.stderr == message)
    }

    @Test func githubAnnotations() throws {
        let r = try runEntlc(["check", "-", "--format", "github"], stdin: "product p: subscription {}\n" + LintCommandTests.rules)
        #expect(r.status == 1)
        #expect(r.stdout == """
        ::error file=<stdin>,line=1,col=9,endLine=1,endColumn=10,title=E211::subscription `p` has no `period` (add `period month` (or week, quarter, half_year, year))
        0 errors, 0 warnings in 1 file

        """.replacingOccurrences(of: "0 errors", with: "1 error"))
    }

    /// A control character a message quotes: escaped for a terminal in the text and GitHub formats,
    /// and JSON's own escape in SARIF and JSON, as any string there (a review: SARIF had the
    /// terminal's escape inside its JSON string).
    @Test func aControlCharacterIsEscapedAsEachFormatEscapes() throws {
        let input = "product p: consumable \u{1B}\n"
        let text = try runEntlc(["check", "-"], stdin: input)
        #expect(text.stdout.hasPrefix("<stdin>:1:23: error[E100]: unexpected character `\\u{1B}`\n"))
        let github = try runEntlc(["check", "-", "--format", "github"], stdin: input)
        #expect(github.stdout.hasPrefix("::error file=<stdin>,line=1,col=23,endLine=1,endColumn=24,title=E100::"
                                        + "unexpected character `\\u{1B}`"))
        for format in ["sarif", "json"] {
            let out = try runEntlc(["check", "-", "--format", format], stdin: input)
            #expect(out.stdout.contains(#"unexpected character `\u001b`"#), "\(format): \(out.stdout)")
        }
    }

    @Test func sarifIsValidAndComplete() throws {
        let r = try runEntlc(["check", "-", "--format", "sarif"], stdin: LintCommandTests.rules)
        #expect(r.status == 0)
        let log = try JSONParser.parse(r.stdout)
        #expect(log["version"] == .string("2.1.0"))
        guard case .array(let runs)? = log["runs"], let run = runs.first,
              case .array(let rules)? = run["tool"]?["driver"]?["rules"],
              case .array(let results)? = run["results"] else {
            Issue.record("not a SARIF log")
            return
        }
        #expect(run["tool"]?["driver"]?["name"] == .string("entlc"))
        #expect(run["columnKind"] == .string("unicodeCodePoints"))
        #expect(rules.count == DiagnosticCatalog.all.count)
        let w301 = try #require(rules.first { $0["id"] == .string("W301") })
        #expect(w301["shortDescription"]?["text"] == .string("unused product"))
        #expect(w301["defaultConfiguration"]?["level"] == .string("warning"))
        if case .string(let full)? = w301["fullDescription"]?["text"] { #expect(full.hasPrefix("No constraint names the product")) }
        #expect(results.count == 2)
        let first = results[0]
        #expect(first["ruleId"] == .string("W301"))
        #expect(first["level"] == .string("warning"))
        let region = first["locations"].flatMap { v -> JSONValue? in
            if case .array(let l) = v { return l.first?["physicalLocation"]?["region"] }
            return nil
        }
        #expect(region == .object([("startLine", .number("1")), ("startColumn", .number("9")), ("endLine", .number("1")),
                                   ("endColumn", .number("14"))]))
        #expect(rules[Int(first["ruleIndex"].flatMap { if case .number(let n) = $0 { Int(n) } else { nil } } ?? -1)]["id"]
            == .string("W301"))
    }

    @Test func explainEveryCode() throws {
        let list = try runEntlc(["explain"])
        #expect(list.status == 0)
        #expect(list.stdout.split(separator: "\n").count == DiagnosticCatalog.all.count)
        // E100–E106, E110–E122, E201–E224, W301–W316, D101–D106, D401–D407
        #expect(DiagnosticCatalog.all.count == 73)
        let one = try runEntlc(["explain", "e201"])
        #expect(one.stdout.hasPrefix("E201: unknown name\n\n"))
        #expect(one.stdout.contains("Example:\n\n    product pro_monthly: subscription { period month }\n    entitlement pro = pro_montly\n"))
        #expect(one.stdout.contains("Fix:\n"))
        let bad = try runEntlc(["explain", "E2O1"])
        #expect(bad.status == 2)
        #expect(bad.stderr == "entlc: error: explain: unknown code `E2O1` (did you mean `E201`?); `entlc explain` lists them\n")
    }

    /// A constraint past its budget: a note (W315) in every format, which `--deny-warnings` lets
    /// pass, `--deny W315` makes an error and `--allow W315` drops; the other warning stays.
    @Test func skippedAnalysesAreNotesThatPolicyCanRaise() throws {
        let rules = (0..<16).map { "product a\($0): non_consumable\n" }.joined()
            + (0..<16).map { "product b\($0): non_consumable\n" }.joined() + "feature f: boolean\n"
            + "entitlement any_a = " + (0..<16).map { "a\($0)" }.joined(separator: " or ") + " { grants f }\n"
            + "entitlement pairs = " + (0..<16).map { "(a\($0) and b\($0))" }.joined(separator: " or ")
            + " { grants f }\n"
            + "product spare: non_consumable\n"
        let r = try runEntlc(["check", "-"], stdin: rules)
        #expect(r.status == 0)
        #expect(r.stdout.contains("""
            <stdin>:35:13: note[W315]: constraint analysis of entitlement `pairs` skipped: too many combinations
               |
            35 | entitlement pairs = (a0 and b0) or (a1 and b1) or (a2 and b2) or (a3 and b3) or (a4 and b4) \
            or (a5 and b5) or (a6 and b6…
               |             ^^^^^ its constraint was not checked
               = help: the impossible, always-true, redundant-term and equivalence lints (W303, W304, W305, W310) \
            did not check this constraint

            """))
        #expect(r.stdout.contains("<stdin>:36:9: warning[W301]: product `spare` is never used\n"))
        #expect(r.stdout.hasSuffix("0 errors, 1 warning in 1 file\n"))
        let json = try runEntlc(["check", "-", "--format", "json", "--allow", "W301", "--deny-warnings"], stdin: rules)
        #expect(json.status == 0)
        #expect(json.stdout.contains(#""severity": "note",\#n      "code": "W315","#))
        let denied = try runEntlc(["check", "-", "--deny", "W315"], stdin: rules)
        #expect(denied.status == 1)
        #expect(denied.stdout.contains("error[W315]: constraint analysis of entitlement `pairs` skipped"))
        let allowed = try runEntlc(["check", "-", "--allow", "W315"], stdin: rules)
        #expect(!allowed.stdout.contains("W315"))
    }
}

@Suite struct FmtCommandTests {
    func scratch(_ files: [String: String]) throws -> String {
        let dir = try makeTemporaryDirectory()
        for (name, text) in files { try text.write(toFile: dir + "/" + name, atomically: true, encoding: .utf8) }
        return dir
    }

    @Test func examplesAreFormatted() throws {
        let r = try runEntlc(["fmt", "--check", "examples"])
        #expect(r.stdout == "")
        #expect(r.status == 0)
    }

    @Test func checkListsFilesAndChangesNothing() throws {
        let dir = try scratch(["a.entl": "product a: consumable\n", "b.entl": "product  b :consumable"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try runEntlc(["fmt", "--check", "."], directory: dir)
        #expect(r.stdout == "./b.entl\n")
        #expect(r.status == 1)
        #expect(try String(contentsOfFile: dir + "/b.entl", encoding: .utf8) == "product  b :consumable")
    }

    @Test func writesInPlaceKeepingPermissions() throws {
        let dir = try scratch(["b.entl": "product  b :consumable // keep me"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: dir + "/b.entl")
        let r = try runEntlc(["fmt", "b.entl"], directory: dir)
        #expect(r.status == 0)
        #expect(try String(contentsOfFile: dir + "/b.entl", encoding: .utf8) == "product b: consumable // keep me\n")
        let mode = try FileManager.default.attributesOfItem(atPath: dir + "/b.entl")[.posixPermissions] as? Int
        #expect(mode == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["b.entl"])  // no temporary left behind
        #expect(try runEntlc(["fmt", "--check", "b.entl"], directory: dir).status == 0)
    }

    @Test func aFileThatDoesNotParseIsLeftUntouched() throws {
        let bad = "product b: consumable {\n  name \"B\"\n"
        let dir = try scratch(["bad.entl": bad, "good.entl": "product  g: consumable"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try runEntlc(["fmt", "bad.entl", "good.entl"], directory: dir)
        #expect(r.status == 2)
        #expect(r.stderr.contains("bad.entl:3:1: error[E110]: expected `}` to close product `b`, found end of file"))
        #expect(r.stderr.hasSuffix("entlc: error: `bad.entl` does not parse; left it untouched\n"))
        #expect(try String(contentsOfFile: dir + "/bad.entl", encoding: .utf8) == bad)
        #expect(try String(contentsOfFile: dir + "/good.entl", encoding: .utf8) == "product g: consumable\n")
    }

    /// `--diff` prints what `fmt` would change as a unified diff, changes nothing, exits 1;
    /// `patch -p0` applies it.
    @Test func diffShowsTheChangeAndChangesNothing() throws {
        let original = "product a: consumable\nproduct  b :consumable // keep me\n"
        let dir = try scratch(["a.entl": "product a: consumable\n", "b.entl": original])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try runEntlc(["fmt", "--diff", "a.entl", "b.entl"], directory: dir)
        #expect(r.status == 1)
        #expect(r.stdout == """
            --- b.entl
            +++ b.entl
            @@ -1,2 +1,3 @@
             product a: consumable
            -product  b :consumable // keep me
            +
            +product b: consumable // keep me

            """)
        #expect(try String(contentsOfFile: dir + "/b.entl", encoding: .utf8) == original)
        let patch = Process()
        patch.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        patch.arguments = ["patch", "-s", "-p0"]
        patch.currentDirectoryURL = URL(fileURLWithPath: dir)
        let input = Pipe()
        patch.standardInput = input
        try patch.run()
        input.fileHandleForWriting.write(Data(r.stdout.utf8))
        try input.fileHandleForWriting.close()
        patch.waitUntilExit()
        #expect(patch.terminationStatus == 0)
        #expect(try runEntlc(["fmt", "--diff", "b.entl"], directory: dir).status == 0)
        #expect(try runEntlc(["fmt", "--diff", "--stdout", "b.entl"], directory: dir).status == 2)
    }

    @Test func standardInputToStandardOutput() throws {
        let r = try runEntlc(["fmt", "-"], stdin: "app \"x\";product p:consumable")
        #expect(r.stdout == "app \"x\"\n\nproduct p: consumable\n")
        #expect(r.status == 0)
    }
}
