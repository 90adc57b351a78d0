import EntlCompiler
import EntlRuntime

/// `entlc graph RULES [--format dot|mermaid|json] [--env live|test]`
enum GraphCommand {
    static let spec = CommandSpec(
        name: "graph",
        summary: "draw the compiled rule graph (Graphviz, Mermaid, JSON)",
        help: """
        USAGE: entlc graph RULES... [--format dot|mermaid|json] [--env live|test]
               entlc graph --graph FILE [--trusted-key KEY.pub]... [--format …] [--env …]

        Prints the compiled rule graph: products → entitlements → features and credit systems,
        `and`/`or`/`not` as small junction nodes, grant edges labelled with the allowance,
        interval and carry, credit edges with the conversion ratio. DOT for Graphviz (doc
        comments become tooltips), Mermaid for Markdown (renders on GitHub), JSON for tools.

            entlc graph examples/api.entl | dot -Tsvg -o api.svg

        OPTIONS:
          --format dot|mermaid|json   default dot
          --env live|test             which environment's graph (default live)
          --graph FILE                a graph built by `entlc build` instead of RULES
        \(RuleLoader.trustHelp(column: 30))

        EXIT: 0, or 2 for bad arguments, rules that do not compile, or a graph that is not usable
              (or not signed by a trusted key).

        """,
        options: [RuleLoader.graphOption, OptionSpec(name: "--format", takesValue: true),
                  OptionSpec(name: "--env", takesValue: true)] + RuleLoader.trustOptions,
        run: run)

    static func run(_ args: ParsedArguments) throws(CLIError) -> ExitCode {
        let format = try args.choice("--format", in: ["dot", "mermaid", "json"]) ?? "dot"
        let environment = try args.environment() ?? .live
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
