import EntlCompiler
import EntlSyntax
import EntlTestSupport
import Testing

/// One marked source per diagnostic code: the exact code, message and position of everything
/// it reports (so a cascade of extra errors fails the test too).
struct CodeCase: CustomTestStringConvertible, Sendable {
    let code: String
    let source: String
    let expected: [(String, String, String)]  // (code, message, marker)

    init(_ code: String, _ source: String, _ expected: [(String, String, String)]) {
        self.code = code
        self.source = source
        self.expected = expected
    }

    var testDescription: String { code }
}

let codeCases: [CodeCase] = [
    CodeCase("E100", "product a: consumable 1️⃣@@", [("E100", "unexpected characters `@@`", "1️⃣")]),
    CodeCase("E102", "product a: consumable 1️⃣/* never closed", [("E102", "unterminated block comment", "1️⃣")]),
    CodeCase("E103", "product a: consumable { name 1️⃣\"open\n}", [("E103", "unterminated string", "1️⃣")]),
    CodeCase("E104", #"product a: consumable { name "a1️⃣\q" }"#, [("E104", "unknown escape sequence `\\q`", "1️⃣")]),
    CodeCase("E105", """
        feature f: metered
        product a: consumable { grants f 1️⃣1_000_000_000_000_001 }
        """, [("E105", "number `1_000_000_000_000_001` is larger than 10^15", "1️⃣")]),
    CodeCase("E106", """
        feature f: metered
        product a: consumable { grants f 1️⃣10__0 }
        """, [("E106", "malformed number `10__0`", "1️⃣")]),
    CodeCase("E110", """
        product a: consumable
        entitlement e = a or 1️⃣
        """, [("E110", "expected a product or entitlement name, found end of file", "1️⃣")]),
    CodeCase("E111", "product 1️⃣test: consumable",
             [("E111", "`test` is a reserved word and cannot be used as a product name", "1️⃣")]),
    CodeCase("E112", "product a: 1️⃣subscriptin { period month }", [("E112", "unknown product kind `subscriptin`", "1️⃣")]),
    CodeCase("E113", "product a: subscription { period 1️⃣monthly }", [("E113", "unknown billing period `monthly`", "1️⃣")]),
    CodeCase("E114", "product a: consumable\nentitlement e = " + String(repeating: "(", count: 256) + "1️⃣("
             + "a" + String(repeating: ")", count: 257),
             [("E114", "constraint nesting too deep (more than 256 levels)", "1️⃣")]),
    CodeCase("E115", "product a: consumable { 1️⃣perod month }", [("E115", "unknown item `perod` in product `a`", "1️⃣")]),
    CodeCase("E116", "environment 1️⃣staging { }", [("E116", "unknown environment `staging`", "1️⃣")]),
    CodeCase("E117", "environment test { 1️⃣app \"x\" }",
             [("E117", "`app` declarations cannot appear inside an environment block", "1️⃣")]),
    CodeCase("E118", """
        feature f: metered
        product a: consumable { grants f 5 per month 1️⃣per day }
        """, [("E118", "`per` is given twice in this grant", "1️⃣")]),
    CodeCase("E201", """
        product pro_monthly: subscription { period month }
        product pro_annual: subscription { period year }
        entitlement pro = 1️⃣pro_montly or pro_annual
        """, [("E201", "unknown product `pro_montly`", "1️⃣")]),
    CodeCase("E202", """
        product pro: consumable
        feature 1️⃣pro: boolean
        """, [("E202", "duplicate name `pro`", "1️⃣")]),
    CodeCase("E203", """
        product a: consumable { id app_store "X" }
        product b: consumable { id app_store 1️⃣"X" }
        """, [("E203", "duplicate store id app_store \"X\"", "1️⃣")]),
    CodeCase("E204", """
        feature api_calls: metered
        entitlement e = 1️⃣api_calls
        """, [("E204", "`api_calls` is a metered feature; constraints name products and entitlements", "1️⃣")]),
    CodeCase("E205", """
        product pro: subscription { period month }
        entitlement e = 1️⃣pro >= 2
        """, [("E205", "`pro` is a subscription; `>= N` counts units of a consumable", "1️⃣")]),
    CodeCase("E206", """
        feature dark_mode: boolean
        product a: non_consumable { grants dark_mode 1️⃣5 }
        """, [("E206", "boolean feature `dark_mode` takes no amount", "1️⃣")]),
    CodeCase("E207", """
        feature api_calls: metered
        product a: non_consumable { grants 1️⃣api_calls per month }
        """, [("E207", "metered feature `api_calls` needs an amount or `unlimited`", "1️⃣")]),
    CodeCase("E208", """
        feature seats: metered { usage continuous }
        product a: non_consumable { grants seats 5 1️⃣per month }
        """, [("E208", "`per` on continuous feature `seats`", "1️⃣")]),
    CodeCase("E209", """
        product a: non_consumable
        feature f: metered requires 1️⃣a
        """, [("E209", "`requires` applies only to boolean features", "1️⃣")]),
    CodeCase("E210", """
        feature dark_mode: boolean
        credits c { 1️⃣dark_mode 1 = 5 }
        """, [("E210", "credit system `c` converts `dark_mode`, a boolean feature", "1️⃣")]),
    CodeCase("E211", "product 1️⃣pro: subscription { id app_store \"P\" }",
             [("E211", "subscription `pro` has no `period`", "1️⃣")]),
    CodeCase("E212", "product zbucks: consumable { 1️⃣period month }",
             [("E212", "`period` applies only to subscriptions", "1️⃣")]),
    CodeCase("E213", """
        product pass: non_renewing { duration 1️⃣0 days }
        """, [("E213", "a duration must be at least 1", "1️⃣")]),
    CodeCase("E214", """
        product p: consumable
        entitlement a = b or p
        entitlement b = 1️⃣a
        """, [("E214", "entitlement `a` depends on itself: `a` → `b` → `a`", "1️⃣")]),
    CodeCase("E215", """
        app "one"
        1️⃣app "two"
        """, [("E215", "more than one `app` declaration", "1️⃣")]),
    CodeCase("E216", """
        product a: consumable {
          name "A"
          1️⃣name "B"
        }
        """, [("E216", "`name` is given twice in product `a`", "1️⃣")]),
    CodeCase("E217", """
        test "t" {
          at 1️⃣"2026-13-01"
        }
        """, [("E217", "\"2026-13-01\" is not an RFC 3339 instant", "1️⃣")]),
    CodeCase("E218", """
        feature seats: metered { usage continuous }
        test "t" {
          used 1️⃣seats 3
        }
        """, [("E218", "`seats` is continuous; it has a level, not uses", "1️⃣")]),
    CodeCase("E219", """
        feature calls: metered
        credits c {
          calls 1 = 5
          1️⃣calls 1 = 6
        }
        """, [("E219", "`calls` is converted twice in credit system `c`", "1️⃣")]),
    CodeCase("E220", """
        feature calls: metered { event "call" }
        feature uploads: metered { event 1️⃣"call" }
        """, [("E220", "event \"call\" is already the event of feature `calls`", "1️⃣")]),
    // `check state.json`: one error, not one per line of JSON.
    CodeCase("E120", """
          1️⃣{
          "customer": "user_42",
          "purchases": [{ "product": "pro_monthly", "status": "active" }]
        }
        """, [("E120", "this looks like JSON, not an .entl file", "1️⃣")]),
    CodeCase("E106", "feature f: metered\nproduct a: consumable { grants f 1️⃣-5 }", [("E106", "negative number `-5`", "1️⃣")]),
    CodeCase("E106", "feature f: metered\nproduct a: consumable { grants f 1️⃣1.5 }",
             [("E106", "`1.5` is not a whole number", "1️⃣")]),
    // Purchase dates qualify products, not quantities or entitlements.
    CodeCase("E122", #"""
        product zbucks: consumable
        entitlement rich = zbucks >= 5 1️⃣purchased before "2026-06-01T00:00:00Z"
        """#, [("E122", "`purchased before` and `purchased since` qualify a product, not a quantity", "1️⃣")]),
    CodeCase("E221", #"""
        product pro: subscription { period month }
        entitlement paid = pro
        entitlement legacy = paid purchased 1️⃣before "2026-06-01T00:00:00Z"
        """#, [("E221", "`purchased before` qualifies a product; `paid` is an entitlement", "1️⃣")]),
    CodeCase("E222", """
        product pass: non_renewing { duration 1️⃣10_000 years }
        """, [("E222", "`10_000 years` is longer than 100 years", "1️⃣")]),
    CodeCase("E223", """
        credits coins
        product pack: consumable { grants coins 100 1️⃣overage up to 50 }
        """, [("E223", "`overage` on credit system `coins`", "1️⃣")]),
    CodeCase("E224", """
        feature calls: metered
        product plan: non_consumable { grants calls 100 per month 1️⃣expires after 1 year }
        """, [("E224", "`expires after` together with `per month`", "1️⃣")]),
    CodeCase("E217", #"""
        product pro: subscription { period month }
        entitlement legacy = pro purchased since 1️⃣"June 2026"
        """#, [("E217", "\"June 2026\" is not an RFC 3339 instant", "1️⃣")]),
    // An `at` under `used` would silently become the test's instant.
    CodeCase("E121", """
        feature calls: metered
        test "t" {
          used calls 30
          1️⃣at "2026-11-20T10:00:00Z"
          expect calls allowed
        }
        """, [("E121", "`at` on its own line sets the test's instant, not the time of the `used` above it", "1️⃣")]),
    // After a `;` on the same line, the same item: said as it is written.
    CodeCase("E121", """
        feature calls: metered
        test "t" {
          used calls 30; 1️⃣at "2026-11-20T10:00:00Z"
          expect calls allowed
        }
        """, [("E121", "`at` after `;` sets the test's instant, not the time of the `used` before it", "1️⃣")]),
]

@Suite struct DiagnosticCodeTests {
    @Test(arguments: codeCases)
    func reportsCodeMessageAndPosition(_ c: CodeCase) {
        assertDiagnostics(c.source, c.expected.map { ExpectedDiagnostic($0.0, $0.1, at: $0.2) })
    }

    /// E101 and E119 need bytes a Swift string cannot hold or a huge file; every other code the
    /// compiler can emit has a marked-source case above.
    @Test func everyCodeHasACase() {
        let covered = Set(codeCases.map(\.code)).union(["E101", "E119"])
        let all = Set((DiagnosticCode.syntaxCodes + DiagnosticCode.checkerCodes).map(\.id))
        #expect(covered == all)
    }

    @Test func invalidUTF8IsReportedAtTheByte() {
        var bytes = Array("product a: consumable\nproduct ".utf8)
        bytes += [0xC3, 0x28]  // a lead byte followed by a non-continuation byte
        bytes += Array(": consumable\n".utf8)
        let checked = Compiler.check([SourceFile(path: "bad.entl", bytes: bytes)])
        #expect(checked.diagnostics.map(\.code.id) == ["E101"])
        #expect(checked.diagnostics.first?.message == "invalid UTF-8 byte 0xC3")
        #expect(checked.diagnostics.first?.range.start == EntlSyntax.SourceLocation(line: 2, column: 9, offset: 30))
    }

    @Test func oversizedFileIsRefusedWithoutParsing() {
        let bytes = [UInt8](repeating: UInt8(ascii: " "), count: Parser.maxFileSize + 1)
        let checked = Compiler.check([SourceFile(path: "big.entl", bytes: bytes)])
        #expect(checked.diagnostics.map(\.code.id) == ["E119"])
        #expect(checked.diagnostics.first?.range.start.line == 1)
    }
}
