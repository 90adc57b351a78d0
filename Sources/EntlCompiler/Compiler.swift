import EntlSyntax
import EntlRuntime

/// The compiler's entry point: parse every file, then check the rule set as a whole.
public enum Compiler {
    /// Parses and checks a rule set. `sources` are in rule-set order (the CLI sorts directory
    /// contents by path). `environments` limits the checks to those environments' views
    /// (duplicates, names, kinds, cycles and the tests that run there).
    public static func check(_ sources: [SourceFile], environments: [EnvironmentName] = EnvironmentName.allCases)
        -> CheckedRuleSet
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
        var checker = Checker(files: files, context: context)
        checker.run(environments: environments)
        return CheckedRuleSet(sources: sources, files: files, comments: comments, declarations: checker.declarations,
                              tables: checker.tables, diagnostics: context.diagnostics)
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
    public static func compile(_ sources: [SourceFile]) -> Compilation {
        let checked = check(sources)
        return Compilation(checked: checked, graph: checked.hasErrors ? nil : Lowering.lower(checked))
    }
}
