import EntlSyntax
import EntlTestSupport
import Foundation
import Testing

/// Golden AST dumps (with `@line:col` ranges) of every example and the docs/language.md tour.
@Suite struct ASTGoldenTests {
    static let files = ["examples/photos.entl", "examples/api.entl", "examples/subscriptions.entl",
                        "examples/crossplatform.entl", "examples/selling.entl", "Tests/Fixtures/valid/tour.entl"]

    @Test(arguments: files)
    func dumpMatchesGolden(_ path: String) throws {
        let result = Parser.parse(SourceFile(path: path, text: try readRepoFile(path)))
        #expect(result.diagnostics.isEmpty)
        let name = (path as NSString).lastPathComponent.replacingOccurrences(of: ".entl", with: ".ast.txt")
        assertGolden(ASTDump().dump(result.file), named: "ast/" + name)
    }
}
