import EntlRuntime
import EntlSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `entlc keygen KEY [--force]`: a new Ed25519 key pair for signing built graphs.
enum KeygenCommand {
    static let spec = CommandSpec(
        name: "keygen",
        summary: "make an Ed25519 key pair for signing built graphs",
        help: """
        USAGE: entlc keygen KEY [--force]

        Writes a new Ed25519 key pair (RFC 8032) from 32 random bytes of the operating system:
        KEY, the private key (PKCS#8 PEM, mode 0600: keep it in your CI's secrets), and KEY.pub,
        the public key (SubjectPublicKeyInfo PEM: pin it in the app). These are the files
        `openssl genpkey -algorithm ed25519` and `openssl pkey -pubout` write; keys made by
        OpenSSL work everywhere entlc takes a key. Sign with `entlc build --sign KEY`; check with
        `entlc verify FILE --trusted-key KEY.pub` (docs/signing.md).

        Each file is written atomically; an existing KEY or KEY.pub is left alone (exit 2) unless
        --force replaces it.

        OPTIONS:
          --force   replace existing key files

        EXIT: 0 written, 2 bad arguments, an existing file, or a file that cannot be written.

        """,
        options: [OptionSpec(name: "--force")],
        run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> ExitCode {
        guard args.positionals.count == 1, let path = args.positionals.first, path != "-" else {
            throw CLIError("give the private key's path: entlc keygen KEY (the public key goes to KEY.pub)")
        }
        let replace = args.has("--force")
        let publicPath = path + ".pub"
        if !replace {
            for p in [path, publicPath] where FileSystem.kind(p) != nil {
                throw CLIError("`\(p)` already exists; give --force to replace it")
            }
        }
        let seed = try randomBytes(32)
        let key: Ed25519.PrivateKey
        do throws(KeyFormatError) {
            key = try Ed25519.PrivateKey(rawRepresentation: seed)
        } catch {
            throw CLIError("cannot make a key: \(error)")
        }
        // Both written or neither: a replaced private key never stays without its public key.
        try FileSystem.writeAtomically([(path, Array(key.pemRepresentation.utf8), 0o600),
                                        (publicPath, Array(key.publicKey.pemRepresentation.utf8), 0o644)],
                                       replace: replace)
        Terminal.emitError("wrote private key \(path.withControlsEscaped) (keep it secret) and public key "
                           + "\(publicPath.withControlsEscaped)\n")
        return .success
    }

    /// `count` bytes from the operating system's random source (`getentropy`, at most 256 a call).
    static func randomBytes(_ count: Int) throws(CLIError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let status = bytes.withUnsafeMutableBytes { getentropy($0.baseAddress, $0.count) }
        guard status == 0 else { throw CLIError("cannot read random bytes: \(FileSystem.lastError())") }
        return bytes
    }
}
