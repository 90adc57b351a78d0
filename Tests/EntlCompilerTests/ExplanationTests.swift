import EntlCompiler
import EntlSyntax
import EntlTestSupport
import Testing

@Suite struct ExplanationTests {
    /// Every code the compiler can emit has an explanation, and nothing else does.
    @Test func everyCodeIsExplained() {
        #expect(DiagnosticCatalog.all.map(\.code.id) == DiagnosticCatalog.codes.map(\.id))
        #expect(Set(DiagnosticCatalog.codes.map(\.id)).count == DiagnosticCatalog.codes.count)
    }

    /// Each example really produces its code; each fix has no error and no longer that code
    /// (a minimal snippet may still draw unrelated lints, such as an unused product).
    @Test(arguments: DiagnosticCatalog.all.filter { $0.example != nil }.map(\.code.id))
    func examplesFailAndFixesPass(_ id: String) throws {
        let e = try #require(DiagnosticCatalog.explanation(id))
        let failing = check(e.example!).diagnostics.map(\.code.id)
        #expect(failing.contains(id), "example of \(id) gives \(failing)")
        let fixed = check(e.fix!).diagnostics.filter { $0.severity == .error || $0.code.id == id }
            .map { "\($0.code.id): \($0.message)" }
        #expect(fixed.isEmpty, "fix of \(id) gives \(fixed)")
    }

    @Test func onlyUnrepresentableCodesLackAnExample() {
        #expect(DiagnosticCatalog.all.filter { $0.example == nil }.map(\.code.id) == ["E101", "E119"])
    }

    @Test func lookupIgnoresCase() {
        #expect(DiagnosticCatalog.explanation("w301")?.code.id == "W301")
        #expect(DiagnosticCatalog.explanation("W999") == nil)
    }
}
