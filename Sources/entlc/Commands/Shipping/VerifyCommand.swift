import EntlRuntime
import EntlSupport

/// `entlc verify FILE --trusted-key KEY.pub…`: would an app that trusts these keys load FILE?
enum VerifyCommand {
    static let spec = CommandSpec(
        name: "verify",
        summary: "check that a trusted key signed a built graph",
        help: """
        USAGE: entlc verify FILE --trusted-key KEY.pub... [--signature PATH]

        Checks a graph built by `entlc build --sign KEY` the way an app that trusts the given
        public keys loads it: FILE.sig must be an Ed25519 signature by one of the keys over the
        exact bytes of FILE, and FILE must then be a usable rule graph (format, digest and
        consistency). Prints which key signed it, the digest and the compiler (docs/signing.md).

        OPTIONS:
          --trusted-key KEY.pub  a public key (PEM) to accept signatures of (repeatable, at least one)
          --signature PATH       the signature file (default FILE.sig)

        EXIT: 0 signed by a trusted key and usable; 2 otherwise (not signed, a signature no trusted
              key made, an altered file, an unusable graph) or bad arguments: an app would refuse it.

        """,
        options: RuleLoader.trustOptions,
        run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> ExitCode {
        guard args.positionals.count == 1, let path = args.positionals.first else {
            throw CLIError("give one built graph: entlc verify FILE --trusted-key KEY.pub")
        }
        guard args.has("--trusted-key") else {
            throw CLIError("give at least one --trusted-key KEY.pub to verify against")
        }
        let (artifact, signer) = try RuleLoader.artifact(path, args)
        let signedBy = (signer ?? "?").withControlsEscaped
        Terminal.emit("\(path.withControlsEscaped): signed by \(signedBy), sha256 \(artifact.sha256), "
                      + "built by \(artifact.compiler.withControlsEscaped)\n")
        return .success
    }
}
