import EntlSyntax
import EntlRuntime

/// The compiler's entry point: parse every file, then check the rule set as a whole.
public enum Compiler {
    /// Parses, checks and lints a rule set. `sources` are in rule-set order (the CLI sorts
    /// directory contents by path). `environments` limits the checks to those environments' views
    /// (duplicates, names, kinds, cycles, lints and the tests that run there). Lints (`W3xx`) run
    /// only when there are no errors; `// entl-allow` comments silence them per declaration.
    public static func check(_ sources: [SourceFile], environments: [EnvironmentName] = EnvironmentName.allCases,
                             lint: Bool = true) -> CheckedRuleSet {
        let (files, comments, context) = parse(sources)
        var checker = Checker(files: files, context: context)
        checker.run(environments: environments)
        var checked = CheckedRuleSet(sources: sources, files: files, comments: comments,
                                     declarations: checker.declarations,
                                     tables: checker.tables, model: checker.model, diagnostics: context.diagnostics)
        // Lints need every name resolved: they run on rule sets without errors.
        if lint, !checked.hasErrors {
            Linter.run(checked, environments: environments, sink: context)
            let known = Set(Linter.codes.map(\.id))
            let suppressions = Suppressions(files: files, sources: sources, comments: comments, knownWarnings: known,
                                            report: context.report)
            checked.diagnostics = context.diagnostics.filter { !suppressions.isAllowed($0) }
        }
        return checked
    }

    /// Parses a rule set and declares its names, checking nothing else: the trees, the symbol
    /// tables, syntax errors and duplicate names. For a tool that resolves names between two full
    /// checks (an editor's requests while the user types); a small part of the cost of `check`.
    public static func declare(_ sources: [SourceFile]) -> CheckedRuleSet {
        let (files, comments, context) = parse(sources)
        var checker = Checker(files: files, context: context)
        checker.declareNames()
        return CheckedRuleSet(sources: sources, files: files, comments: comments, declarations: checker.declarations,
                              tables: checker.tables, model: checker.model, diagnostics: context.diagnostics)
    }

    private static func parse(_ sources: [SourceFile])
        -> (files: [RuleFile], comments: [[Comment]], context: CheckContext)
    {
        let context = CheckContext()
        var files: [RuleFile] = []
        var comments: [[Comment]] = []
        for source in sources {
            let parsed = Parser.parse(source)
            files.append(parsed.file)
            comments.append(parsed.comments)
            for d in parsed.diagnostics { context.report(d) }
        }
        return (files, comments, context)
    }
}

/// A checked rule set and, when it has no errors, its compiled graph.
public struct Compilation: Sendable {
    public var checked: CheckedRuleSet
    /// Nil when the rule set has errors.
    public var graph: RuleGraph?
}

extension Compiler {
    /// Checks every environment and, when there are no errors, lowers the rule set to a graph.
    /// `lint: false` skips the warnings, for tools that only run the rules.
    public static func compile(_ sources: [SourceFile], lint: Bool = true) -> Compilation {
        let checked = check(sources, lint: lint)
        return Compilation(checked: checked, graph: checked.hasErrors ? nil : Lowering.lower(checked))
    }

    /// The graph of a checked rule set without errors (for a tool that needs both, such as
    /// `entlc diff --states`, and lowers only when it runs the rules).
    public static func graph(of checked: CheckedRuleSet) -> RuleGraph {
        precondition(!checked.hasErrors, "only a rule set without errors has a graph")
        return Lowering.lower(checked)
    }
}
