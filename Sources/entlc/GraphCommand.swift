import EntlCompiler
import EntlRuntime

/// `entlc graph RULES [--format dot|mermaid|json] [--env live|test]`
enum GraphCommand {
    static let spec = CommandSpec(
        name: "graph",
        summary: "draw the compiled rule graph (Graphviz, Mermaid, JSON)",
        help: """
        USAGE: entlc graph RULES... [--format dot|mermaid|json] [--env live|test]

        Prints the compiled rule graph: products → entitlements → features and credit systems,
        `and`/`or`/`not` as small junction nodes, grant edges labelled with the allowance,
        interval and carry, credit edges with the conversion ratio. DOT for Graphviz (doc
        comments become tooltips), Mermaid for Markdown (renders on GitHub), JSON for tools.

            entlc graph examples/api.entl | dot -Tsvg -o api.svg

        OPTIONS:
          --format dot|mermaid|json   default dot
          --env live|test             which environment's graph (default live)

        EXIT: 0, or 2 for bad arguments or rules that do not compile.

        """,
        options: [RuleLoader.graphOption, OptionSpec(name: "--format", takesValue: true), OptionSpec(name: "--env", takesValue: true)],
        run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> ExitCode {
        let format = try args.choice("--format", in: ["dot", "mermaid", "json"]) ?? "dot"
        let environment = try args.choice("--env", in: ["live", "test"]).flatMap(Environment.init(rawValue:)) ?? .live
        let graph = try RuleLoader.graph(args)
        let picture = GraphPicture(graph, environment: environment)
        switch format {
        case "mermaid": Terminal.emit(picture.mermaid)
        case "json": Terminal.emit(picture.json.pretty + "\n")
        default: Terminal.emit(picture.dot)
        }
        return .success
    }
}
