import EntlCompiler
import EntlRuntime
import EntlSupport

/// `entlc build RULES -o FILE [--sign KEY]`: the artifact an app or server ships, and its signature.
enum BuildCommand {
    static let spec = CommandSpec(
        name: "build",
        summary: "compile rules into the graph artifact an app ships",
        help: """
        USAGE: entlc build RULES... -o FILE [--sign KEY [--signature PATH]]

        Compiles the rules (both environments) and writes the rule graph as one line of JSON with
        its format version, the compiler version and the SHA-256 of its content (docs/library.md).
        The runtime library loads it without the compiler (`RuleGraphArtifact(bytes:)`), and
        `entlc eval|changes|graph --graph FILE` evaluate it. The file is written atomically; `-o -`
        writes to standard output. Prints the digest on standard error.

        With --sign KEY (an Ed25519 private key in PEM, from `entlc keygen` or `openssl genpkey
        -algorithm ed25519`), also writes FILE.sig: one line, the base64 of the Ed25519 signature
        over the exact bytes of FILE. An app that trusts the public key loads only signed rules
        (`entlc verify`, `--trusted-key`, docs/signing.md).

        OPTIONS:
          -o, --output FILE   where to write the artifact (required)
          --sign KEY          sign the artifact with this private key
          --signature PATH    where to write the signature (default FILE.sig; required with -o -)

        EXIT: 0 built, 2 bad arguments, rules that do not compile, an unusable key, or a file that
              cannot be written.

        """,
        options: [OptionSpec(name: "--output", takesValue: true, short: "-o"),
                  OptionSpec(name: "--sign", takesValue: true), OptionSpec(name: "--signature", takesValue: true)],
        run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> ExitCode {
        guard let output = args.value("--output") else { throw CLIError("give the artifact's path with -o FILE") }
        // The key is read first: a bad key writes nothing.
        let key = try args.value("--sign").map { path throws(CLIError) in try RuleLoader.privateKey(path) }
        guard key != nil || !args.has("--signature") else { throw CLIError("--signature goes with --sign KEY") }
        let signaturePath = args.value("--signature") ?? (output == "-" ? nil : output + ".sig")
        if key != nil, signaturePath == nil {
            throw CLIError("give the signature's path with --signature PATH when the artifact goes to standard output")
        }
        let graph = try RuleLoader.compile(args.positionals).graph
        let (bytes, digest) = RuleGraphArtifact.build(graph, compiler: "entlc \(EntlCLI.version)")
        let signature = key.map { ArtifactSignature.file(signing: bytes, with: $0) }
        // Checked before anything is written: a signature that does not verify must never ship.
        if let key, let signature, (try? TrustedKeys([key.publicKey]).signer(of: bytes, signature: signature)) == nil {
            throw CLIError("the signature made with `\(args.value("--sign")!)` does not verify; nothing written")
        }
        // The artifact and its signature both, or neither (a new artifact beside an old signature
        // would not verify).
        var files: [FileSystem.NewFile] = output == "-" ? [] : [(output, bytes, nil)]
        if let signature, let signaturePath { files.append((signaturePath, signature, nil)) }
        try FileSystem.writeAtomically(files)
        if output == "-" { Terminal.emit(bytes: bytes) }
        // The digest, for a release note or a CDN's integrity check.
        Terminal.emitError("built \(output == "-" ? "<stdout>" : output.withControlsEscaped): sha256 \(digest)\n")
        if let signaturePath, signature != nil { Terminal.emitError("signed: \(signaturePath.withControlsEscaped)\n") }
        return .success
    }
}
