import EntlCompiler
import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Foundation
import Testing

/// The other half of "the loader accepts only what the compiler emits": everything the compiler
/// emits loads. The checker refuses what the loader would (E222 for a duration longer than 100
/// years, E114 for nesting), so no rule set compiles to a graph that cannot be shipped.
@Suite struct CompiledGraphsLoadTests {
    /// The built artifact of `sources`, loaded: nil when it loads, else the compile or load error.
    func loadProblem(_ sources: [SourceFile]) -> String? {
        let compiled = Compiler.compile(sources, lint: false)
        guard let graph = compiled.graph else {
            let first = compiled.checked.diagnostics.first.map { "\($0.code.id) \($0.message)" }
            return "does not compile: " + (first ?? "")
        }
        do {
            _ = try RuleGraphArtifact(bytes: RuleGraphArtifact.encode(graph, compiler: "entlc test"))
            return nil
        } catch {
            return "does not load: \(error)"
        }
    }

    /// Every rule set the differential generator writes compiles, and its artifact loads.
    @Test func everyGeneratedRuleSetLoads() {
        for seed in UInt64(1)...150 {
            for focus in [DifferentialCase.Focus.general, .credits, .purchaseDates] {
                let c = DifferentialCase(seed: seed, focus: focus)
                let problem = loadProblem([SourceFile(path: "d.entl", text: c.rules)])
                #expect(problem == nil, "seed \(seed) \(focus): \(problem ?? "")\n\(c.rules)")
            }
        }
    }

    /// Every example (alone and as the one rule set they are together) and every valid fixture,
    /// `limits.entl` among them: every number and length at the largest the language allows.
    @Test func everyExampleAndFixtureLoads() throws {
        let paths = FileManager.default.enumerator(atPath: repoPath("Tests/Fixtures"))!.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".entl") }.map { "Tests/Fixtures/" + $0 }
        let examples = try FileManager.default.contentsOfDirectory(atPath: repoPath("examples"))
            .filter { $0.hasSuffix(".entl") }.sorted().map { "examples/" + $0 }
        var loaded = 0
        for path in examples + paths {
            let source = SourceFile(path: path, text: try readRepoFile(path))
            // Fixtures of errors are not rule sets to ship; everything that compiles must load.
            guard Compiler.compile([source], lint: false).graph != nil else { continue }
            #expect(loadProblem([source]) == nil, "\(path)")
            loaded += 1
        }
        #expect(loaded >= examples.count + 2)
        #expect(loadProblem(try examples.map { SourceFile(path: $0, text: try readRepoFile($0)) }) == nil)
        #expect(paths.contains("Tests/Fixtures/valid/limits.entl"))
    }

    /// A `duration` of up to 100 years in any unit compiles and loads; one unit more is E222.
    @Test(arguments: [("100 years", "101 years"), ("1_200 months", "1_201 months"), ("5_217 weeks", "5_218 weeks"),
                      ("36_525 days", "36_526 days")])
    func durationsUpTo100YearsCompileAndLoad(_ longest: String, _ longer: String) {
        func rules(_ d: String) -> [SourceFile] {
            [SourceFile(path: "d.entl", text: "product pass: non_renewing { duration \(d) }")]
        }
        #expect(loadProblem(rules(longest)) == nil)
        #expect(loadProblem(rules(longer)) == "does not compile: E222 `\(longer)` is longer than 100 years")
    }

    /// Parentheses and `not` nest 256 levels deep in the source; such a constraint loads (its tree
    /// is twice as deep), and one level more does not parse.
    @Test func theDeepestConstraintTheParserAllowsLoads() {
        func rules(_ levels: Int) -> [SourceFile] {
            var e = "not a"
            for _ in 0..<(levels - 1) { e = "a or b and (\(e))" }
            return [SourceFile(path: "n.entl", text: """
                product a: non_consumable
                product b: non_consumable
                entitlement e = \(e)
                """)]
        }
        #expect(loadProblem(rules(256)) == nil)
        #expect(loadProblem(rules(257))?.hasPrefix("does not compile: E114 ") == true)
        func nots(_ n: Int) -> [SourceFile] {
            let e = String(repeating: "not ", count: n) + "a"
            return [SourceFile(path: "n.entl", text: "product a: non_consumable\nentitlement e = \(e)")]
        }
        #expect(loadProblem(nots(256)) == nil)
        #expect(loadProblem(nots(257))?.hasPrefix("does not compile: E114 ") == true)
    }
}
