import EntlCompiler
import EntlRuntime
import EntlSyntax

/// RULES on the command line → source files → the checked rules or the graph a command runs.
/// The bytes come through `FileSystem`; `ArtifactLoading.swift` adds built graphs (`--graph FILE`).
enum RuleLoader {
    /// Turns the RULES arguments (files, directories, `-`) into source files in rule-set order:
    /// each argument in turn, a directory as its `*.entl` files in sorted path order, each file
    /// once.
    static func load(_ arguments: [String]) throws(CLIError) -> [SourceFile] {
        guard !arguments.isEmpty else { throw CLIError("no rule files given (pass files, directories or `-`)") }
        var sources: [SourceFile] = []
        var seen: Set<String> = []
        func add(_ path: String, _ bytes: [UInt8]) {
            if seen.insert(path).inserted { sources.append(SourceFile(path: path, bytes: bytes)) }
        }
        for argument in arguments {
            if argument == "-" {
                add("<stdin>", try FileSystem.contents(ofInput: "-", limit: Parser.maxFileSize))
                continue
            }
            switch FileSystem.kind(argument) {
            case nil:
                throw FileSystem.readError(argument)
            case .directory:
                let files = try FileSystem.ruleFiles(in: argument)
                guard !files.isEmpty else { throw CLIError("no `.entl` files in directory `\(argument)`") }
                for f in files { add(f, try FileSystem.contents(of: f, limit: Parser.maxFileSize)) }
            case .file, .other:
                add(argument, try FileSystem.contents(of: argument, limit: Parser.maxFileSize))
            }
        }
        return sources
    }

    /// Loads and compiles a rule set for the commands that run it. Rules with errors fail the
    /// job (exit 2): their diagnostics go to standard error.
    static func compile(_ arguments: [String]) throws(CLIError) -> (graph: RuleGraph, checked: CheckedRuleSet) {
        let sources = try load(arguments)
        // Running rules needs no lints (`entlc check` reports them).
        let compilation = Compiler.compile(sources, lint: false)
        guard let graph = compilation.graph else {
            let diagnostics = compilation.checked.sortedDiagnostics
            Terminal.emitError(DiagnosticOutput.text(diagnostics, sources: sources, color: false))
            throw CLIError("the rules do not compile (\(diagnostics.errorCount.counted("error")))")
        }
        return (graph, compilation.checked)
    }

    /// The option that names a built graph (`entlc build`) instead of rule files.
    static let graphOption = OptionSpec(name: "--graph", takesValue: true)

    /// The rule graph a running command evaluates: the artifact `--graph FILE` names (checked by
    /// the runtime's decoder, no compiler involved; with `--trusted-key`, only if signed), or the
    /// RULES compiled.
    static func graph(_ args: ParsedArguments) throws(CLIError) -> RuleGraph {
        guard let path = args.value("--graph") else {
            guard !args.has("--trusted-key"), !args.has("--signature") else {
                throw CLIError("--trusted-key and --signature apply to a built graph (--graph FILE), not to RULES")
            }
            return try compile(args.positionals).graph
        }
        guard args.positionals.isEmpty else { throw CLIError("give either RULES or --graph FILE, not both") }
        return try artifact(path, args).0.graph
    }
}
