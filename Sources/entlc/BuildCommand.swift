import EntlCompiler
import EntlRuntime

/// `entlc build RULES -o FILE`: the artifact an app or server ships.
enum BuildCommand {
    static let spec = CommandSpec(
        name: "build",
        summary: "compile rules into the graph artifact an app ships",
        help: """
        USAGE: entlc build RULES... -o FILE

        Compiles the rules (both environments) and writes the rule graph as one line of JSON with
        its format version, the compiler version and the SHA-256 of its content (docs/library.md).
        The runtime library loads it without the compiler (`RuleGraphArtifact(bytes:)`), and
        `entlc eval|changes|graph --graph FILE` evaluate it. The file is written atomically; `-o -`
        writes to standard output. Prints the digest on standard error.

        OPTIONS:
          -o, --output FILE   where to write the artifact (required)

        EXIT: 0 built, 2 bad arguments, rules that do not compile, or a file that cannot be written.

        """,
        options: [OptionSpec(name: "--output", takesValue: true, short: "-o")],
        run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> ExitCode {
        guard let output = args.value("--output") else { throw CLIError("give the artifact's path with -o FILE") }
        let graph = try RuleLoader.compile(args.positionals).graph
        let (bytes, digest) = RuleGraphArtifact.build(graph, compiler: "entlc \(EntlCLI.version)")
        try FileSystem.writeOutput(output, bytes)
        // The digest, for a release note or a CDN's integrity check.
        Terminal.emitError("built \(output == "-" ? "<stdout>" : output): sha256 \(digest)\n")
        return .success
    }
}
