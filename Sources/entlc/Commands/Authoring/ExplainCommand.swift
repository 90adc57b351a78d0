import EntlSupport
import EntlCompiler
import EntlSyntax

/// `entlc explain [CODE]`: the long explanation of a diagnostic code, or the list of codes.
enum ExplainCommand {
    static let spec = CommandSpec(
        name: "explain",
        summary: "explain a diagnostic code, with an example and the fix",
        help: """
        USAGE: entlc explain [CODE]

        Prints what a diagnostic code means, a small rule set that produces it, and the fix.
        Without a code, lists every code with its title.

        EXIT: 0, or 2 for an unknown code.

        """,
        options: [],
        run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> ExitCode {
        guard let raw = args.positionals.first else {
            var out = ""
            for e in DiagnosticCatalog.all { out += "\(e.code.id)  \(e.code.title)\n" }
            Terminal.emit(out)
            return .success
        }
        guard args.positionals.count == 1 else { throw CLIError("explain takes one code") }
        let code = try known(raw, option: "explain")
        Terminal.emit(DiagnosticCatalog.explanation(code)!.text)
        return .success
    }

    /// The canonical spelling of a known code, or a clear error with the nearest one.
    static func known(_ raw: String, option: String) throws(CLIError) -> String {
        let code = raw.uppercased()
        if DiagnosticCatalog.explanation(code) != nil { return code }
        let hint = Suggestions.didYouMean(code, among: DiagnosticCatalog.codes.map(\.id))
        throw CLIError("\(option): unknown code `\(raw)`\(hint); `entlc explain` lists them")
    }
}
