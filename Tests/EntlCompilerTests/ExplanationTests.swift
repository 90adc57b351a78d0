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
    @Test(arguments: DiagnosticCatalog.all.filter { $0.example != nil && $0.before == nil }.map(\.code.id))
    func examplesFailAndFixesPass(_ id: String) throws {
        let e = try #require(DiagnosticCatalog.explanation(id))
        let failing = check(e.example!).diagnostics.map(\.code.id)
        #expect(failing.contains(id), "example of \(id) gives \(failing)")
        let fixed = check(e.fix!).diagnostics.filter { $0.severity == .error || $0.code.id == id }
            .map { "\($0.code.id): \($0.message)" }
        #expect(fixed.isEmpty, "fix of \(id) gives \(fixed)")
    }

    @Test func onlyUnrepresentableCodesLackAnExample() {
        #expect(DiagnosticCatalog.all.filter { $0.example == nil }.map(\.code.id) == ["D106", "E101", "E119"])
    }

    /// Each `entlc diff` example (before → after, compared as of 2026-06-01) finds its code, and
    /// the fixed version does not.
    @Test(arguments: DiagnosticCatalog.all.filter { $0.before != nil }.map(\.code.id))
    func diffExamplesFindTheirCode(_ id: String) throws {
        let e = try #require(DiagnosticCatalog.explanation(id))
        func codes(_ new: String) -> [String] {
            let old = check(e.before!), checked = check(new)
            #expect(!old.hasErrors && !checked.hasErrors)
            return RuleDiff.compare(old: old, new: checked, since: instant("2026-06-01T00:00:00Z")).findings.map(\.code.id)
        }
        #expect(codes(e.example!).contains(id), "example of \(id) gives \(codes(e.example!))")
        if let fix = e.fix { #expect(!codes(fix).contains(id), "fix of \(id) gives \(codes(fix))") }
    }

    @Test func lookupIgnoresCase() {
        #expect(DiagnosticCatalog.explanation("w301")?.code.id == "W301")
        #expect(DiagnosticCatalog.explanation("W999") == nil)
    }
}
