import EntlRuntime

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Built graphs with trust: `--trusted-key KEY.pub` (repeatable) and `--signature PATH` on every
/// command that takes `--graph FILE`, and the key files of `keygen`, `build --sign` and `verify`.
extension RuleLoader {
    static let trustOptions = [
        OptionSpec(name: "--trusted-key", takesValue: true, repeatable: true),
        OptionSpec(name: "--signature", takesValue: true),
    ]

    /// The help lines of `trustOptions`, descriptions starting at `column` like the rest of a
    /// command's options (on the next line when the option is too long for it).
    static func trustHelp(column: Int) -> String {
        let rows = [
            ("--trusted-key KEY.pub", ["load --graph FILE only if one of these public keys signed it",
                                       "(repeatable: the old and the new key while rotating keys)"]),
            ("--signature PATH", ["the signature of --graph FILE (default FILE.sig)"]),
        ]
        let indent = String(repeating: " ", count: column)
        var lines: [String] = []
        for (option, description) in rows {
            let head = "  " + option
            if head.count + 2 <= column {
                lines.append(head.padding(column) + description[0])
                lines += description.dropFirst().map { indent + $0 }
            } else {
                lines.append(head)
                lines += description.map { indent + $0 }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// A built graph as `--graph FILE` names it: when `--trusted-key` is given, only if one of those
    /// keys signed its exact bytes; then checked by the runtime's decoder. Also says which key.
    static func artifact(_ path: String, _ args: ParsedArguments)
        throws(CLIError) -> (RuleGraphArtifact, signer: String?) {
        let bytes = try FileSystem.contents(ofInput: path)
        let keyPaths = args.all("--trusted-key")
        var signer: String?
        if keyPaths.isEmpty {
            guard !args.has("--signature") else { throw CLIError(Text.signatureWithoutKeys) }
        } else {
            var keys: [Ed25519.PublicKey] = []
            for keyPath in keyPaths { keys.append(try publicKey(keyPath)) }
            guard let signaturePath = args.value("--signature") ?? (path == "-" ? nil : path + ".sig") else {
                throw CLIError(Text.signatureOfStandardInput)
            }
            // `-`: the signature from standard input (the graph is then a file: `-` is read once).
            if signaturePath != "-", FileSystem.kind(signaturePath) == nil, errno == ENOENT {
                throw CLIError(Text.unsigned(path, signaturePath))
            }
            let signature = try FileSystem.contents(ofInput: signaturePath, limit: maxKeyFileBytes)
            do throws(RuleGraphArtifactError) {
                let key = try TrustedKeys(keys).signer(of: bytes, signature: signature)
                signer = keyPaths[keys.firstIndex(of: key)!]
            } catch {
                throw CLIError(Text.notTrusted(path, error.message))
            }
        }
        do throws(RuleGraphArtifactError) {
            return (try RuleGraphArtifact(bytes: bytes), signer)
        } catch {
            throw CLIError("`\(path)` is not a usable rule graph: \(error)")
        }
    }

    /// The most a key or a signature file may hold: each is a line or a few (a PEM key is about
    /// 120 bytes, a signature 89); what is larger is not one, and is not read whole.
    static let maxKeyFileBytes = 64 << 10

    /// The public key in a PEM file (`KEY.pub`, as `entlc keygen` or `openssl pkey -pubout` writes it).
    static func publicKey(_ path: String) throws(CLIError) -> Ed25519.PublicKey {
        try key(path, "public") { text throws(KeyFormatError) in try Ed25519.PublicKey(pemRepresentation: text) }
    }

    /// The private key in a PEM file (`KEY`, as `entlc keygen` or `openssl genpkey` writes it).
    static func privateKey(_ path: String) throws(CLIError) -> Ed25519.PrivateKey {
        try key(path, "private") { text throws(KeyFormatError) in try Ed25519.PrivateKey(pemRepresentation: text) }
    }

    private static func key<Key>(_ path: String, _ kind: String,
                                 _ parse: (String) throws(KeyFormatError) -> Key) throws(CLIError) -> Key {
        let text = String(decoding: try FileSystem.contents(of: path, limit: maxKeyFileBytes), as: UTF8.self)
        do throws(KeyFormatError) {
            return try parse(text)
        } catch {
            throw CLIError(Text.notAKey(path, kind, error.message))
        }
    }

    private enum Text {
        static let signatureWithoutKeys =
            "--signature needs --trusted-key KEY.pub (a signature is checked only against trusted keys)"
        static let signatureOfStandardInput =
            "give the signature's path with --signature PATH when the graph is read from standard input"
        static func unsigned(_ path: String, _ signature: String) -> String {
            "`\(path)` is not trusted: it is not signed (no `\(signature)`)"
        }
        static func notTrusted(_ path: String, _ reason: String) -> String { "`\(path)` is not trusted: \(reason)" }
        static func notAKey(_ path: String, _ kind: String, _ reason: String) -> String {
            "`\(path)` is not an Ed25519 \(kind) key: \(reason)"
        }
    }
}
