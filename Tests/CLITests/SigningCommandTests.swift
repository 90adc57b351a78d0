import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// `entlc keygen`, `entlc build --sign`, `entlc verify` and `--trusted-key` on the commands that
/// take `--graph`: exit codes, messages, file modes, and agreement with OpenSSL where it is installed.
@Suite struct SigningCommandTests {
    static let fixtureKey = "Tests/Fixtures/keys/openssl.pem"
    static let state = "examples/api.state.json"

    static func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    static var openssl: String? {
        ["/usr/bin/openssl", "/usr/local/bin/openssl", "/opt/homebrew/bin/openssl"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs a program other than entlc; its status.
    static func run(_ program: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test func keygenWritesAPrivateKeyOnlyItsOwnerReadsAndRefusesToOverwrite() throws {
        let dir = try makeTemporaryDirectory()
        let key = dir + "/release"
        let made = try runEntlc(["keygen", key])
        #expect(made.status == 0)
        #expect(made.stdout == "")
        #expect(made.stderr == "wrote private key \(key) (keep it secret) and public key \(key).pub\n")
        #expect(try Self.mode(key) == 0o600)
        #expect(try Self.mode(key + ".pub") == 0o644)
        let privateText = try String(contentsOfFile: key, encoding: .utf8)
        let publicText = try String(contentsOfFile: key + ".pub", encoding: .utf8)
        #expect(privateText.hasPrefix("-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEI"))
        #expect(try Ed25519.PrivateKey(pemRepresentation: privateText).publicKey.pemRepresentation == publicText)

        let again = try runEntlc(["keygen", key])
        #expect(again.status == 2)
        #expect(again.stderr == "entlc: error: `\(key)` already exists; give --force to replace it\n")
        #expect(try String(contentsOfFile: key, encoding: .utf8) == privateText)
        // Only the public key left over: still refused, and nothing half-written.
        try FileManager.default.removeItem(atPath: key)
        let half = try runEntlc(["keygen", key])
        #expect(half.stderr == "entlc: error: `\(key).pub` already exists; give --force to replace it\n")
        #expect(!FileManager.default.fileExists(atPath: key))

        try "old".write(toFile: key, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: key)
        let forced = try runEntlc(["keygen", key, "--force"])
        #expect(forced.status == 0)
        #expect(try Self.mode(key) == 0o600)
        let replaced = try String(contentsOfFile: key, encoding: .utf8)
        #expect(replaced != privateText && replaced.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(try Ed25519.PrivateKey(pemRepresentation: replaced).publicKey.pemRepresentation
            == String(contentsOfFile: key + ".pub", encoding: .utf8))

        for arguments in [["keygen"], ["keygen", "a", "b"], ["keygen", "-"]] {
            let bad = try runEntlc(arguments)
            #expect(bad.status == 2)
            #expect(bad.stderr
                == "entlc: error: give the private key's path: entlc keygen KEY (the public key goes to KEY.pub)\n")
        }
        let nowhere = try runEntlc(["keygen", dir + "/missing/key"])
        #expect(nowhere.status == 2)
        #expect(nowhere.stderr.hasPrefix("entlc: error: cannot write `\(dir)/missing/key`: "))
    }

    @Test func buildSignVerifyAndEvalWithATrustedKey() throws {
        let dir = try makeTemporaryDirectory()
        let artifact = dir + "/api.graph.json"
        let built = try runEntlc(["build", "examples/api.entl", "-o", artifact, "--sign", Self.fixtureKey])
        #expect(built.status == 0)
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: artifact)))
        let digest = try RuleGraphArtifact(bytes: bytes).sha256
        #expect(built.stderr == "built \(artifact): sha256 \(digest)\nsigned: \(artifact).sig\n")
        let signature = try String(contentsOfFile: artifact + ".sig", encoding: .utf8)
        #expect(signature.count == 89 && signature.hasSuffix("\n") && !signature.dropLast().contains("\n"))
        let key = try Ed25519.PrivateKey(pemRepresentation: readRepoFile(Self.fixtureKey))
        #expect(Array(signature.utf8) == ArtifactSignature.file(signing: bytes, with: key))

        let verified = try runEntlc(["verify", artifact, "--trusted-key", "Tests/Fixtures/keys/second.pem.pub",
                                     "--trusted-key", Self.fixtureKey + ".pub"])
        #expect(verified.status == 0)
        #expect(verified.stdout
            == "\(artifact): signed by \(Self.fixtureKey).pub, sha256 \(digest), built by entlc 0.1.0\n")

        let query = ["--state", Self.state, "--feature", "api_calls", "--format", "json"]
        let plain = try runEntlc(["eval", "--graph", artifact] + query)
        let trusted = try runEntlc(["eval", "--graph", artifact, "--trusted-key", Self.fixtureKey + ".pub"] + query)
        #expect(trusted.status == 0 && trusted.stdout == plain.stdout && trusted.stderr == "")
        let picture = try runEntlc(["graph", "--graph", artifact, "--trusted-key", Self.fixtureKey + ".pub"])
        #expect(picture.status == 0 && picture.stdout.hasPrefix("digraph"))
        let changes = try runEntlc(["changes", "--graph", artifact, "--trusted-key", Self.fixtureKey + ".pub",
                                    "--state", Self.state, "--from-time", "2026-11-01T00:00:00Z",
                                    "--to-time", "2027-01-01T00:00:00Z"])
        #expect(changes.status == 0 && changes.stdout.contains("\"event\""))

        // The signature elsewhere, and the artifact on standard input.
        try FileManager.default.moveItem(atPath: artifact + ".sig", toPath: dir + "/elsewhere.sig")
        let moved = try runEntlc(["eval", "--graph", "-", "--trusted-key", Self.fixtureKey + ".pub", "--signature",
                                  dir + "/elsewhere.sig"] + query, stdin: String(decoding: bytes, as: UTF8.self))
        #expect(moved.status == 0 && moved.stdout == plain.stdout)
        // The signature on standard input, the artifact a file.
        let piped = try runEntlc(["verify", artifact, "--trusted-key", Self.fixtureKey + ".pub", "--signature", "-"],
                                 stdin: try String(contentsOfFile: dir + "/elsewhere.sig", encoding: .utf8))
        #expect(piped.status == 0, "\(piped.stderr)")
    }

    /// An output never replaces one of the command's own inputs (a review: `build --sign release
    /// --signature release` wrote the signature over the private key, exit 0, and `build r.entl -o
    /// r.entl` the artifact over the rules), through another path or a link as well.
    @Test func anOutputNeverReplacesAnInputOfTheCommand() throws {
        let dir = try makeTemporaryDirectory()
        let key = dir + "/release", rules = dir + "/r.entl"
        #expect(try runEntlc(["keygen", key]).status == 0)
        let keyText = try String(contentsOfFile: key, encoding: .utf8)
        try "product a: non_consumable\nentitlement e = a\n".write(toFile: rules, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.entl", withDestinationPath: rules)
        for (arguments, input) in [(["-o", dir + "/a.json", "--sign", key, "--signature", key], key),
                                   (["-o", key, "--sign", key], key), (["-o", rules], rules),
                                   (["-o", dir + "/link.entl"], rules)] {
            let run = try runEntlc(["build", rules] + arguments)
            let output = arguments.contains("--signature") ? key : arguments[1]
            let which = output == input ? "it is" : "it is `\(input)`,"
            #expect(run.status == 2)
            #expect(run.stderr == "entlc: error: cannot write `\(output)`: \(which) an input of this command "
                    + "(nothing was written; give the output a path of its own)\n")
            #expect(try String(contentsOfFile: key, encoding: .utf8) == keyText)
            #expect(try String(contentsOfFile: rules, encoding: .utf8) == "product a: non_consumable\nentitlement e = a\n")
            #expect(!FileManager.default.fileExists(atPath: dir + "/a.json"))
        }
        // gen and state import alike; fmt rewrites its file on purpose.
        let gen = try runEntlc(["gen", "swift", rules, "-o", rules])
        #expect(gen.status == 2 && gen.stderr.contains("an input of this command"))
        #expect(try runEntlc(["fmt", rules]).status == 0)
    }

    /// `verify` prints what the artifact says escaped (a review: a signed artifact's `compiler`
    /// with a newline printed a line that passed for entlc's own).
    @Test func verifyEscapesTheArtifactsCompiler() throws {
        let dir = try makeTemporaryDirectory()
        let artifact = dir + "/a.json"
        #expect(try runEntlc(["build", "examples/api.entl", "-o", artifact]).status == 0)
        let text = try String(contentsOfFile: artifact, encoding: .utf8)
            .replacingOccurrences(of: #""compiler":"entlc 0.1.0""#, with: #""compiler":"entlc\u001b[2K\nentlc: note: approved""#)
        try text.write(toFile: artifact, atomically: false, encoding: .utf8)
        let key = try Ed25519.PrivateKey(pemRepresentation: readRepoFile(Self.fixtureKey))
        try Data(ArtifactSignature.file(signing: Array(text.utf8), with: key)).write(to: URL(fileURLWithPath: artifact + ".sig"))
        let verified = try runEntlc(["verify", artifact, "--trusted-key", Self.fixtureKey + ".pub"])
        #expect(verified.status == 0)
        #expect(verified.stdout.hasSuffix(#", built by entlc\u{1B}[2K\u{A}entlc: note: approved"# + "\n"), "\(verified.stdout)")
    }

    @Test func untrustedGraphsAreRefusedWithExitTwo() throws {
        let dir = try makeTemporaryDirectory()
        let artifact = dir + "/api.graph.json"
        #expect(try runEntlc(["build", "examples/api.entl", "-o", artifact, "--sign", Self.fixtureKey]).status == 0)
        let text = try String(contentsOfFile: artifact, encoding: .utf8)
        let trust = ["--trusted-key", Self.fixtureKey + ".pub"]
        let eval = ["--state", Self.state, "--all"]
        let notValid = "the signature is not valid for the trusted key: the artifact was changed after it was signed, "
            + "or signed with another key"

        let otherKey = try runEntlc(["verify", artifact, "--trusted-key", "Tests/Fixtures/keys/second.pem.pub"])
        #expect(otherKey.status == 2 && otherKey.stdout == "")
        #expect(otherKey.stderr == "entlc: error: `\(artifact)` is not trusted: \(notValid)\n")

        // Edited and resealed: the digest matches, so it loads without keys, never with them.
        let forged = dir + "/forged.json"
        try FileManager.default.copyItem(atPath: artifact + ".sig", toPath: forged + ".sig")
        let resealed = resealedArtifact(Array(text.utf8), replacing: #""amount":10000"#, with: #""amount":99999"#)
        try Data(resealed).write(to: URL(fileURLWithPath: forged))
        #expect(try runEntlc(["eval", "--graph", forged] + eval).status == 0)
        for command in [["eval", "--graph", forged] + eval + trust, ["verify", forged] + trust,
                        ["graph", "--graph", forged] + trust] {
            let refused = try runEntlc(command)
            #expect(refused.status == 2, "\(command)")
            #expect(refused.stdout == "", "\(command)")
            #expect(refused.stderr == "entlc: error: `\(forged)` is not trusted: \(notValid)\n", "\(command)")
        }

        try FileManager.default.removeItem(atPath: artifact + ".sig")
        let unsigned = try runEntlc(["eval", "--graph", artifact] + eval + trust)
        #expect(unsigned.status == 2)
        #expect(unsigned.stderr
            == "entlc: error: `\(artifact)` is not trusted: it is not signed (no `\(artifact).sig`)\n")
        // A signature or key file is a line or a few: one over 64 KiB is refused unread.
        try String(repeating: "A", count: 65 << 10).write(toFile: artifact + ".sig", atomically: true, encoding: .utf8)
        let huge = try runEntlc(["verify", artifact] + trust)
        #expect(huge.status == 2)
        #expect(huge.stderr == "entlc: error: cannot read `\(artifact).sig`: larger than 64 KiB, the most entlc reads "
                + "from such a file\n")
        try "abc!\n".write(toFile: artifact + ".sig", atomically: true, encoding: .utf8)
        let malformed = try runEntlc(["verify", artifact] + trust)
        #expect(malformed.status == 2)
        #expect(malformed.stderr
            == "entlc: error: `\(artifact)` is not trusted: not a signature: `!` at character 4 is not base64\n")

        let cases: [([String], String)] = [
            (["verify", artifact], "give at least one --trusted-key KEY.pub to verify against"),
            (["verify"] + trust, "give one built graph: entlc verify FILE --trusted-key KEY.pub"),
            (["verify", artifact, "--trusted-key", Self.fixtureKey],
             "`\(Self.fixtureKey)` is not an Ed25519 public key: this is a private key; give the public key "
                + "(`openssl pkey -in KEY -pubout`)"),
            (["verify", artifact, "--trusted-key", dir + "/none.pub"],
             "cannot read `\(dir)/none.pub`: no such file or directory"),
            (["eval", "examples/api.entl"] + eval + trust,
             "--trusted-key and --signature apply to a built graph (--graph FILE), not to RULES"),
            (["eval", "--graph", artifact, "--signature", artifact + ".sig"] + eval,
             "--signature needs --trusted-key KEY.pub (a signature is checked only against trusted keys)"),
            (["eval", "--graph", "-"] + eval + trust,
             "give the signature's path with --signature PATH when the graph is read from standard input"),
            (["build", "examples/api.entl", "-o", "-", "--sign", Self.fixtureKey],
             "give the signature's path with --signature PATH when the artifact goes to standard output"),
            (["build", "examples/api.entl", "-o", dir + "/x.json", "--signature", dir + "/x.sig"],
             "--signature goes with --sign KEY"),
            (["build", "examples/api.entl", "-o", dir + "/x.json", "--sign", Self.fixtureKey + ".pub"],
             "`\(Self.fixtureKey).pub` is not an Ed25519 private key: "
                + "this is a public key; signing needs the private key"),
        ]
        for (arguments, message) in cases {
            let r = try runEntlc(arguments, stdin: text)
            #expect(r.status == 2, "\(arguments)")
            #expect(r.stderr == "entlc: error: \(message)\n", "\(arguments)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/x.json"))  // a bad key writes nothing
    }

    /// A key pair made by OpenSSL signs, and what entlc signs and writes OpenSSL reads and verifies.
    @Test(.enabled(if: openssl != nil, "needs openssl")) func keysAndSignaturesAgreeWithOpenSSL() throws {
        let openssl = try #require(Self.openssl)
        let dir = try makeTemporaryDirectory()
        #expect(try Self.run(openssl, ["genpkey", "-algorithm", "ed25519", "-out", dir + "/o.pem"]) == 0)
        #expect(try Self.run(openssl, ["pkey", "-in", dir + "/o.pem", "-pubout", "-out", dir + "/o.pem.pub"]) == 0)
        let artifact = dir + "/rules.json"
        #expect(try runEntlc(["build", "examples/photos.entl", "-o", artifact, "--sign", dir + "/o.pem"]).status == 0)
        #expect(try runEntlc(["verify", artifact, "--trusted-key", dir + "/o.pem.pub"]).status == 0)
        let signature = try Data(base64Encoded: String(contentsOfFile: artifact + ".sig", encoding: .utf8)
            .trimmingCharacters(in: .newlines))
        try #require(signature).write(to: URL(fileURLWithPath: dir + "/raw.sig"))
        #expect(try Self.run(openssl, ["pkeyutl", "-verify", "-pubin", "-inkey", dir + "/o.pem.pub", "-rawin",
                                       "-in", artifact, "-sigfile", dir + "/raw.sig"]) == 0)
        // entlc's keys: OpenSSL derives the same public key file from the private one.
        #expect(try runEntlc(["keygen", dir + "/e"]).status == 0)
        #expect(try Self.run(openssl, ["pkey", "-in", dir + "/e", "-pubout", "-out", dir + "/e.openssl.pub"]) == 0)
        #expect(try String(contentsOfFile: dir + "/e.openssl.pub", encoding: .utf8)
            == String(contentsOfFile: dir + "/e.pub", encoding: .utf8))
        // OpenSSL signs the artifact with entlc's key: the same bytes as entlc's signature.
        #expect(try runEntlc(["build", "examples/photos.entl", "-o", artifact, "--sign", dir + "/e"]).status == 0)
        #expect(try Self.run(openssl, ["pkeyutl", "-sign", "-inkey", dir + "/e", "-rawin", "-in", artifact,
                                       "-out", dir + "/openssl.sig"]) == 0)
        let ours = try Data(base64Encoded: String(contentsOfFile: artifact + ".sig", encoding: .utf8)
            .trimmingCharacters(in: .newlines))
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/openssl.sig")) == ours)
    }
}
