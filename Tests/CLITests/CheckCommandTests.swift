import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

@Suite struct CheckCommandTests {
    @Test func examplesCheckClean() throws {
        let r = try runEntlc(["check", "examples"])
        #expect(r.stdout == "0 errors, 0 warnings in 5 files\n")
        #expect(r.stderr == "")
        #expect(r.status == 0)
    }

    @Test func errorsAreRenderedAndExitOne() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try """
        product pro_monthly: subscription { period month }
        product pro_annual: subscription { period year }
        entitlement pro = pro_montly or pro_annual
        """.write(toFile: dir + "/photos.entl", atomically: true, encoding: .utf8)
        let r = try runEntlc(["check", "photos.entl"], directory: dir)
        #expect(r.stdout == """
        photos.entl:3:19: error[E201]: unknown product `pro_montly`
          |
        3 | entitlement pro = pro_montly or pro_annual
          |                   ^^^^^^^^^^ not declared in this rule set
          = help: did you mean `pro_monthly`?

        1 error, 0 warnings in 1 file

        """)
        #expect(r.status == 1)

        let json = try runEntlc(["check", "photos.entl", "--format", "json"], directory: dir)
        #expect(json.status == 1)
        let value = try JSONParser.parse(json.stdout)
        #expect(value["errors"] == .number("1"))
        #expect(value["warnings"] == .number("0"))
        guard case .array(let diagnostics)? = value["diagnostics"], case .object(let first)? = diagnostics.first else {
            Issue.record("no diagnostics array")
            return
        }
        #expect(first.map(\.key) == ["severity", "code", "message", "file", "line", "column", "end_line", "end_column", "help", "notes"])
        #expect(first.map(\.value) == [.string("error"), .string("E201"), .string("unknown product `pro_montly`"),
                                       .string("photos.entl"), .number("3"), .number("19"), .number("3"), .number("29"),
                                       .string("did you mean `pro_monthly`?"), .array([])])
    }

    @Test func standardInput() throws {
        let r = try runEntlc(["check", "-"], stdin: "product p: subscription {}\n")
        #expect(r.stdout.hasPrefix("<stdin>:1:9: error[E211]: subscription `p` has no `period`\n"))
        #expect(r.status == 1)
    }

    @Test func envOptionLimitsTheView() throws {
        let text = "environment test { product qa: non_consumable }\nentitlement e = qa\n"
        #expect(try runEntlc(["check", "-", "--env", "test"], stdin: text).status == 0)
        #expect(try runEntlc(["check", "-", "--env=live"], stdin: text).status == 1)
    }

    @Test func noColourWhenNotATerminal() throws {
        let r = try runEntlc(["check", "-"], stdin: "product p: subscription {}\n")
        #expect(!r.stdout.contains("\u{1B}["))
    }

    @Test(arguments: [
        (["check", "nope.entl"], "entlc: error: cannot read `nope.entl`: no such file or directory\n"),
        (["check"], "entlc: error: no rule files given (pass files, directories or `-`)\n"),
        (["check", "examples", "--formt", "json"], "entlc: error: unknown option `--formt` (did you mean `--format`?)\n"),
        (["check", "examples", "--format", "yaml"],
         "entlc: error: invalid value `yaml` for --format; expected one of: text, json, sarif, github\n"),
        (["check", "examples", "--env", "staging"],
         "entlc: error: invalid value `staging` for --env; expected one of: live, test\n"),
        (["check", "examples", "--format"], "entlc: error: option `--format` needs a value\n"),
        (["chekc", "examples"], "entlc: error: unknown command `chekc` (did you mean `check`?); run `entlc --help` for the list\n"),
        (["check", "Sources/entlc"], "entlc: error: no `.entl` files in directory `Sources/entlc`\n"),
    ])
    func badInvocationsExitTwo(_ arguments: [String], _ message: String) throws {
        let r = try runEntlc(arguments)
        #expect(r.stderr == message)
        #expect(r.stdout == "")
        #expect(r.status == 2)
    }

    @Test func unreadableFileExitsTwo() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/secret.entl"
        try "product p: consumable".write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: path)
        // Root can read anything; only assert when the file is really unreadable.
        if FileManager.default.isReadableFile(atPath: path) { return }
        let r = try runEntlc(["check", path])
        #expect(r.status == 2)
        #expect(r.stderr.contains("permission denied"))
    }

    /// A rule file, or a directory, whose name is not UTF-8 cannot be named in a diagnostic: it was
    /// skipped in silence (its errors left out of `check`, its declarations out of `build`). It is
    /// refused; a file of another kind so named is no rule file, and is passed over.
    @Test(arguments: [([0x62, 0xFE, 0x2E, 0x65, 0x6E, 0x74, 0x6C], false,
                       "a rule file whose name is not UTF-8 (`b\u{FFFD}.entl`)"),
                      ([0x73, 0x75, 0x62, 0xFF], true, "a directory whose name is not UTF-8 (`sub\u{FFFD}`)"),
                      ([0x6E, 0xFF, 0x2E, 0x74, 0x78, 0x74], false, nil)])
    func aRuleFileWhoseNameIsNotUTF8IsRefused(_ name: [UInt8], _ directory: Bool, _ what: String?) throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "product p: consumable".write(toFile: dir + "/a.entl", atomically: true, encoding: .utf8)
        let path = (Array(dir.utf8) + [UInt8(ascii: "/")] + name + [0]).map { CChar(bitPattern: $0) }
        if directory {
            #expect(mkdir(path, 0o755) == 0)
        } else {
            let fd = open(path, O_CREAT | O_WRONLY, 0o644)
            #expect(fd >= 0)
            close(fd)
        }
        let r = try runEntlc(["check", dir])
        if let what {
            #expect(r.status == 2)
            #expect(r.stderr == "entlc: error: `\(dir)` holds \(what): rename it (entlc reads every `.entl` file "
                    + "below a directory, and names it)\n")
        } else {
            #expect(r.status == 0)
        }
    }

    @Test func directoriesAreReadRecursivelyInSortedOrder() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/b", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/.hidden", withIntermediateDirectories: true)
        try "product x: consumable".write(toFile: dir + "/b/a.entl", atomically: true, encoding: .utf8)
        try "product x: consumable".write(toFile: dir + "/a.entl", atomically: true, encoding: .utf8)
        try "product x: consumable".write(toFile: dir + "/.hidden/z.entl", atomically: true, encoding: .utf8)
        try "not rules".write(toFile: dir + "/notes.txt", atomically: true, encoding: .utf8)
        let sorted = try runEntlc(["check", "."], directory: dir)
        // `./a.entl` comes first, so the duplicate is reported in `./b/a.entl`.
        #expect(sorted.stdout.hasPrefix("./b/a.entl:1:9: error[E202]: duplicate name `x`\n"))
        #expect(sorted.stdout.hasSuffix("1 error, 0 warnings in 2 files\n"))
    }
}

@Suite struct HelpTests {
    @Test func versionAndHelp() throws {
        let version = try runEntlc(["--version"])
        #expect(version.stdout == "entlc 0.1.0\n")
        #expect(version.status == 0)
        let help = try runEntlc(["--help"])
        #expect(help.stdout.contains("USAGE: entlc COMMAND"))
        #expect(help.stdout.contains("  check"))
        #expect(help.status == 0)
        let checkHelp = try runEntlc(["help", "check"])
        #expect(checkHelp.stdout.hasPrefix("USAGE: entlc check RULES..."))
        #expect(try runEntlc(["check", "--help"]).stdout == checkHelp.stdout)
        let helpHelp = try runEntlc(["help", "help"])
        #expect(helpHelp.status == 0)
        #expect(helpHelp.stdout.hasPrefix("USAGE: entlc help [COMMAND]\n"))
    }

    /// `check state.json`: one error that says what the file is, not one per line of JSON.
    @Test func aStateFileGivenToCheckIsOneError() throws {
        let r = try runEntlc(["check", "examples/api.state.json"])
        #expect(r.status == 1)
        #expect(r.stdout.hasPrefix("examples/api.state.json:1:1: error[E120]: this looks like JSON, not an .entl file\n"))
        #expect(r.stdout.hasSuffix("1 error, 0 warnings in 1 file\n"))
    }

    @Test func noArgumentsPrintsHelpAndExitsTwo() throws {
        let r = try runEntlc([])
        #expect(r.status == 2)
        #expect(r.stderr.contains("USAGE: entlc COMMAND"))
    }
}
