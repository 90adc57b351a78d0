import EntlCompiler
import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Testing

/// Lowering a checked rule set into the graph of each environment.
@Suite struct LoweringTests {
    /// The environment decides only which declarations are visible, so a rule set without an
    /// `environment` block has one graph, shared by both; one with a block has a graph each.
    @Test func environmentsShareTheGraphUnlessOneHasDeclarationsOfItsOwn() throws {
        let tour = try readRepoFile("Tests/Fixtures/valid/tour.entl")
        let both = try #require(Compiler.compile([SourceFile(path: "tour.entl", text: tour)]).graph)
        #expect(both.live !== both.test)
        #expect(both.live.productIndex["debug_unlock"] == nil)
        #expect(both.test.productIndex["debug_unlock"] != nil)

        let block = try #require(tour.range(of: "environment test {"))
        let shared = try #require(Compiler.compile([SourceFile(path: "tour.entl", text: String(tour[..<block.lowerBound]))]).graph)
        #expect(shared.live === shared.test)
        #expect(shared.live.productIndex == both.live.productIndex)
        #expect(shared.test.featureIndex == both.live.featureIndex)
    }
}
