import EntlTestSupport
import Foundation
import Testing

/// What entlc writes arrives whole or the command fails (exit 2) saying why: standard output that
/// cannot take it, a file beside its companion (an artifact and its signature, a key pair), a path
/// that is not a regular file (written through, never replaced), a file's set-user-ID bit; standard
/// input is read once; an input has a size limit; an instant is one entlc can write back.
@Suite struct OutputSafetyTests {
    static let rules = "product pro: non_consumable\nfeature export: boolean\nentitlement e = pro { grants export }\n"

    func scratch() throws -> String {
        let dir = try makeTemporaryDirectory()
        try Self.rules.write(toFile: dir + "/rules.entl", atomically: true, encoding: .utf8)
        try "{}".write(toFile: dir + "/state.json", atomically: true, encoding: .utf8)
        return dir
    }

    func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    /// Runs entlc with its standard output on `/dev/full` (every write: "no space left on device").
    func runToFullDevice(_ arguments: [String], directory: String) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = entlcExecutable
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let err = Pipe()
        process.standardOutput = full
        process.standardError = err
        try process.run()
        let data = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test(arguments: [
        ["build", "rules.entl", "-o", "-"],
        ["eval", "rules.entl", "--state", "state.json", "--entitlement", "e", "--format", "json"],
        ["gen", "typescript", "rules.entl"],
    ])
    func standardOutputThatCannotTakeTheOutputFailsTheCommand(_ arguments: [String]) throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try runToFullDevice(arguments, directory: dir)
        #expect(r.status == 2)
        #expect(r.stderr.hasSuffix("entlc: error: cannot write standard output: no space left on device\n"),
                "\(r.stderr)")
    }

    @Test func aPathThatIsNotARegularFileIsWrittenThroughNotReplaced() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A FIFO keeps being a FIFO; its reader gets the artifact.
        #expect(mkfifo(dir + "/pipe", 0o644) == 0)
        nonisolated(unsafe) var received = Data()
        let reader = Thread {
            let fd = open(dir + "/pipe", O_RDONLY)
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while fd >= 0 {
                let n = read(fd, &buffer, buffer.count)
                if n <= 0 { break }
                received.append(contentsOf: buffer[0..<n])
            }
            close(fd)
        }
        reader.start()
        let r = try runEntlc(["build", "rules.entl", "-o", "pipe"], directory: dir)
        #expect(r.status == 0, "\(r.stderr)")
        while !reader.isFinished { usleep(1_000) }
        let built = try runEntlc(["build", "rules.entl", "-o", "-"], directory: dir)
        #expect(String(decoding: received, as: UTF8.self) == built.stdout)
        var info = stat()
        #expect(lstat(dir + "/pipe", &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        // `/dev/stdout` is the command's standard output, not a file to replace.
        let viaPath = try runEntlc(["build", "rules.entl", "-o", "/dev/stdout"], directory: dir)
        #expect(viaPath.status == 0, "\(viaPath.stderr)")
        #expect(viaPath.stdout == built.stdout)
        // A device that cannot take it: the write's own reason.
        let full = try runEntlc(["build", "rules.entl", "-o", "/dev/full"], directory: dir)
        #expect(full.status == 2)
        #expect(full.stderr == "entlc: error: cannot write `/dev/full`: no space left on device\n")
        let directory = try runEntlc(["build", "rules.entl", "-o", "."], directory: dir)
        #expect(directory.stderr == "entlc: error: cannot write `.`: it is a directory\n")
    }

    /// An output file with no write permission is refused (even for root, whom the system lets
    /// rename over it), as a file edited in place is: it stays as it was.
    @Test(arguments: [
        ["build", "rules.entl", "-o", "out"],
        ["gen", "typescript", "rules.entl", "-o", "out"],
        ["state", "import", "--from", "revenuecat", "rc.json", "-o", "out"],
        ["state", "compact", "rules.entl", "--state", "state.json", "--before", "2026-01-01T00:00:00Z", "-o", "out"],
    ])
    func aReadOnlyOutputFileIsRefused(_ arguments: [String]) throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try #"{"subscriber": {"subscriptions": {}}}"#.write(toFile: dir + "/rc.json", atomically: true, encoding: .utf8)
        try "kept".write(toFile: dir + "/out", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: dir + "/out")
        let r = try runEntlc(arguments, directory: dir)
        #expect(r.status == 2)
        #expect(r.stderr.hasSuffix("entlc: error: cannot write `out`: the file is read-only (nothing was changed)\n"),
                "\(r.stderr)")
        #expect(try String(contentsOfFile: dir + "/out", encoding: .utf8) == "kept")
        #expect(try mode(dir + "/out") == 0o444)
    }

    /// `fmt` in place refuses a FIFO before reading it (a review: reading one no one writes to
    /// waited forever).
    @Test func fmtInPlaceRefusesAFIFOWithoutWaitingForIt() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(mkfifo(dir + "/pipe.entl", 0o644) == 0)
        let r = try runEntlc(["fmt", "pipe.entl"], directory: dir)
        #expect(r.status == 2)
        #expect(r.stderr == "entlc: error: cannot write `pipe.entl`: not a regular file\n")
    }

    /// A file rewritten in place that is standard input on a pipe (`/dev/stdin`) is no regular
    /// file: said so (a review: "cannot read `/dev/stdin`: no such file or directory", read fine
    /// a moment before by `check`).
    @Test func standardInputOnAPipeIsNoFileToRewrite() throws {
        let r = try runEntlc(["fmt", "/dev/stdin"], stdin: "product p: consumable\n")
        #expect(r.status == 2)
        #expect(r.stderr == "entlc: error: cannot write `/dev/stdin`: not a regular file\n")
        let consume = try runEntlc(["eval", "examples/api.entl", "--state", "/dev/stdin", "--feature", "api_calls",
                                    "--consume"], stdin: "{}\n")
        #expect(consume.status == 2)
        #expect(consume.stderr == "entlc: error: cannot write `/dev/stdin`: not a regular file\n")
    }

    @Test func aRewrittenFileKeepsItsSetUserIDBit() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "product  pro: non_consumable\n".write(toFile: dir + "/f.entl", atomically: true, encoding: .utf8)
        #expect(chmod(dir + "/f.entl", 0o4755) == 0)
        let r = try runEntlc(["fmt", "f.entl"], directory: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try String(contentsOfFile: dir + "/f.entl", encoding: .utf8) == "product pro: non_consumable\n")
        #expect(try mode(dir + "/f.entl") == 0o4755)
    }

    @Test func anArtifactIsWrittenWithItsSignatureOrNotAtAll() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try runEntlc(["keygen", "k"], directory: dir).status == 0)
        try "old".write(toFile: dir + "/g.json", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: dir + "/g.json.sig", withIntermediateDirectories: false)
        let r = try runEntlc(["build", "rules.entl", "-o", "g.json", "--sign", "k"], directory: dir)
        #expect(r.status == 2)
        #expect(r.stderr == "entlc: error: cannot write `g.json.sig`: it is a directory\n")
        #expect(try String(contentsOfFile: dir + "/g.json", encoding: .utf8) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
                == ["g.json", "g.json.sig", "k", "k.pub", "rules.entl", "state.json"])
        // One path for both is refused before anything is written.
        let same = try runEntlc(["build", "rules.entl", "-o", "a.json", "--sign", "k", "--signature", "a.json"],
                                directory: dir)
        #expect(same.status == 2)
        #expect(same.stderr == "entlc: error: `a.json` and `a.json` are the same file: give each its own path\n")
        #expect(!FileManager.default.fileExists(atPath: dir + "/a.json"))
    }

    /// The review's cases: one new file under two spellings; a pair whose second file is written
    /// through (a link to a device) and fails; a link to `/dev/stdout` appended to by the shell.
    @Test func pairsAndLinksThatTookTwoTries() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try runEntlc(["keygen", "k"], directory: dir).status == 0)
        let spelled = try runEntlc(["build", "rules.entl", "-o", "out.bin", "--sign", "k", "--signature", "./out.bin"],
                                   directory: dir)
        #expect(spelled.stderr == "entlc: error: `out.bin` and `./out.bin` are the same file: give each its own path\n")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out.bin"))
        let old = try Data(contentsOf: URL(fileURLWithPath: dir + "/k"))
        try FileManager.default.removeItem(atPath: dir + "/k.pub")
        try FileManager.default.createSymbolicLink(atPath: dir + "/k.pub", withDestinationPath: "/dev/full")
        let full = try runEntlc(["keygen", "k", "--force"], directory: dir)
        #expect(full.stderr == "entlc: error: cannot write `k.pub`: no space left on device\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/k")) == old)
        // A link to /dev/stdout writes to the command's own standard output, here a file opened at
        // its end: appended to, not replaced.
        try FileManager.default.createSymbolicLink(atPath: dir + "/out", withDestinationPath: "/dev/stdout")
        try "hello\n".write(toFile: dir + "/log", atomically: false, encoding: .utf8)
        let log = try #require(FileHandle(forUpdatingAtPath: dir + "/log"))
        log.seekToEndOfFile()
        let process = Process()
        process.executableURL = entlcExecutable
        process.arguments = ["build", "rules.entl", "-o", "out"]
        process.currentDirectoryURL = URL(fileURLWithPath: dir)
        process.standardOutput = log
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let built = try runEntlc(["build", "rules.entl", "-o", "-"], directory: dir).stdout
        #expect(try String(contentsOfFile: dir + "/log", encoding: .utf8) == "hello\n" + built)
    }

    @Test func aReplacedKeyPairIsReplacedWholeOrNotAtAll() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try runEntlc(["keygen", "k"], directory: dir).status == 0)
        let old = try Data(contentsOf: URL(fileURLWithPath: dir + "/k"))
        try FileManager.default.removeItem(atPath: dir + "/k.pub")
        try FileManager.default.createDirectory(atPath: dir + "/k.pub", withIntermediateDirectories: false)
        let r = try runEntlc(["keygen", "k", "--force"], directory: dir)
        #expect(r.status == 2)
        #expect(r.stderr == "entlc: error: cannot write `k.pub`: it is a directory\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/k")) == old)
        #expect(try mode(dir + "/k") == 0o600)
    }

    @Test(arguments: [
        (["diff", "-", "-", "--since", "2026-01-01T00:00:00Z"], "2 arguments"),
        (["eval", "-", "--state", "-", "--all"], "an argument and --state"),
        (["eval", "rules.entl", "--state", "-", "--graph", "-", "--all"], "--state and --graph"),
    ])
    func standardInputIsReadOnce(_ arguments: [String], _ named: String) throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try runEntlc(arguments, stdin: Self.rules, directory: dir)
        #expect(r.status == 2)
        #expect(r.stderr == "entlc: error: standard input (`-`) can be read only once; it is given for \(named)\n")
    }

    @Test func aRuleFileOverItsLimitIsNotReadWhole() throws {
        let r = try runEntlc(["check", "-"], stdin: String(repeating: " ", count: 32 * 1024 * 1024 + 1))
        #expect(r.status == 2)
        #expect(r.stderr == "entlc: error: cannot read standard input: larger than 32 MiB, the most entlc reads from "
                + "such a file\n")
    }

    /// Text from an input reaches a message with its control characters escaped: no escape
    /// sequence reaches the terminal, no newline forges a line of entlc's own.
    @Test func controlCharactersInAnInputAreEscapedInMessages() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let state = #"{"usage": [{"feature": "\u001b[2Jx\r\nentlc: fake", "amount": 1}], "\u001b]0;title\u0007": 1}"#
        let r = try runEntlc(["eval", "rules.entl", "--state", "-", "--entitlement", "e"], stdin: state, directory: dir)
        #expect(r.stderr == "entlc: warning: <stdin>: \\u{1B}]0;title\\u{7}: unknown key\n"
                + "entlc: warning: <stdin>: usage[0].feature: no feature, credit system or event "
                + "\"\\u{1B}[2Jx\\u{D}\\u{A}entlc: fake\" in the rules\n", "\(r.stderr)")
        let option = try runEntlc(["eval", "rules.entl", "--state", "state.json", "--feature", "\u{1B}[31mx"],
                                  directory: dir)
        #expect(option.stderr == "entlc: error: unknown feature `\\u{1B}[31mx`\n")
        // A rule file's name, in a diagnostic's own line (it had forged `entlc: error: fake.entl`).
        let name = "x\u{1B}[31mred\nentlc: error: fake.entl"
        try "product p: non_consumable { nme \"x\" }\n".write(toFile: dir + "/" + name, atomically: true,
                                                                 encoding: .utf8)
        let check = try runEntlc(["check", name], directory: dir)
        #expect(check.status == 1)
        #expect(check.stdout.hasPrefix("x\\u{1B}[31mred\\u{A}entlc: error: fake.entl:1:29: error[E115]"),
                "\(check.stdout)")
        #expect(!check.stdout.contains("\u{1B}") && !check.stdout.contains("red\nentlc"))
    }

    /// An offset that carries an instant past the year 9999 (or before 0000) in UTC is refused: it
    /// could not be written back (a consume at it would leave a state entlc refuses).
    @Test func anInstantOutsideTheYearsEntlcWritesIsRefused() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let at = try runEntlc(["eval", "rules.entl", "--state", "state.json", "--entitlement", "e",
                               "--at", "9999-12-31T23:59:59-00:01"], directory: dir)
        #expect(at.status == 2)
        #expect(at.stderr == "entlc: error: --at: \"9999-12-31T23:59:59-00:01\" is outside the years 0000 … 9999 in UTC\n")
        let state = #"{"purchases": [{"product": "pro", "purchased_at": "0000-01-01T00:30:00+01:00"}]}"#
        let r = try runEntlc(["eval", "rules.entl", "--state", "-", "--entitlement", "e"], stdin: state, directory: dir)
        #expect(r.status == 2)
        #expect(r.stderr.contains(
            "purchases[0].purchased_at: \"0000-01-01T00:30:00+01:00\" is outside the years 0000 … 9999 in UTC"),
                "\(r.stderr)")
        let edge = try runEntlc(["eval", "rules.entl", "--state", "state.json", "--entitlement", "e",
                                 "--at", "9999-12-31T23:59:59+00:00", "--format", "json"], directory: dir)
        #expect(edge.status == 1, "\(edge.stderr)")
        #expect(edge.stdout.contains(#""at": "9999-12-31T23:59:59Z""#), "\(edge.stdout)")
    }
}
