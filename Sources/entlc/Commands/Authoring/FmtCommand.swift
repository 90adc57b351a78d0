import EntlSyntax

/// `entlc fmt RULES [--check] [--stdout]`
enum FmtCommand {
    static let spec = CommandSpec(
        name: "fmt",
        summary: "rewrite rule files in the canonical layout",
        help: """
        USAGE: entlc fmt RULES... [--check | --diff | --stdout]

        Rewrites rule files in the one canonical layout: 2-space indent, one item per line, one
        blank line between declarations, comments kept where they were, literals as written.
        Idempotent. Writes are atomic (a temporary file, then rename). A file that does not parse
        is left untouched and reported. `-` formats standard input to standard output.

        OPTIONS:
          --check    change nothing; list the files that would change
          --diff     change nothing; print the unified diff `fmt` would apply (`patch -p0` applies it)
          --stdout   print the formatted text instead of writing files

        EXIT: 0 formatted (or already formatted), 1 files need formatting (--check, --diff),
              2 a file does not parse, or cannot be read or written.

        """,
        options: [OptionSpec(name: "--check"), OptionSpec(name: "--diff"), OptionSpec(name: "--stdout")],
        run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> ExitCode {
        let diff = args.has("--diff")
        let check = args.has("--check") || diff
        // In place, a file named that is not one to replace (a FIFO, a device) is refused before it
        // is read: reading a FIFO no one writes to waits forever.
        if !check, !args.has("--stdout") {
            for path in args.positionals where path != "-" && FileSystem.kind(path) == .other {
                _ = try FileSystem.writableTarget(path)
            }
        }
        let sources = try RuleLoader.load(args.positionals)
        if args.has("--stdout"), check {
            throw CLIError("--stdout writes the formatted text; it does not go with --check or --diff")
        }
        let toStdout = args.has("--stdout") || (sources.count == 1 && sources[0].path == "<stdin>")
        var unparsable: [SourceFile] = []
        var changed: [String] = []
        for source in sources {
            guard let formatted = Printer.format(source) else {
                unparsable.append(source)
                continue
            }
            let bytes = Array(formatted.utf8)
            if check {
                guard bytes != source.bytes else { continue }
                changed.append(source.path)
                if diff {
                    let old = String(decoding: source.bytes, as: UTF8.self)
                    Terminal.emit(UnifiedDiff.render(path: source.path, old: old, new: formatted))
                }
            } else if toStdout {
                Terminal.emit(formatted)
            } else if bytes != source.bytes {
                // In place: a regular file this process may replace (not a FIFO, not a read-only file).
                try FileSystem.writeAtomically(try FileSystem.writableTarget(source.path), bytes, rewriting: true)
            }
        }
        if check, !diff { Terminal.emit(changed.map { $0 + "\n" }.joined()) }
        if !unparsable.isEmpty {
            let diagnostics = unparsable.flatMap { Parser.parse($0).diagnostics }
            Terminal.emitError(DiagnosticOutput.text(diagnostics, sources: unparsable, color: false))
            throw CLIError(unparsable.count == 1 ? "`\(unparsable[0].path)` does not parse; left it untouched"
                : "\(unparsable.count) files do not parse; left them untouched")
        }
        return check && !changed.isEmpty ? .no : .success
    }
}
