import EntlSyntax
import Testing

private func diagnostics(_ text: String) -> [String] {
    Parser.parse(text).diagnostics.map { "\($0.code.id) \($0.range.start): \($0.message)" }
}

private func names(_ text: String) -> [String] {
    Parser.parse(text).file.declarations.compactMap { $0.name?.name }
}

/// One typo gives one error, and the declarations after it are still parsed.
@Suite struct RecoveryTests {
    @Test func misspelledDeclarationKeyword() {
        let text = """
        product a: consumable
        prodcut b: consumable { name "B" }
        product c: consumable
        """
        #expect(diagnostics(text) == ["E110 2:1: expected a declaration, found `prodcut`"])
        #expect(Parser.parse(text).diagnostics[0].help == "did you mean `product`?")
        #expect(names(text) == ["a", "c"])
    }

    @Test func unknownItemSkipsOnlyItsLine() {
        let text = """
        product p: subscription {
          perod month
          period year
          id app_store "P"
        }
        """
        #expect(diagnostics(text) == ["E115 2:3: unknown item `perod` in product `p`"])
        guard case .product(let p) = Parser.parse(text).file.declarations[0] else { return }
        #expect(p.items.map(\.keyword) == ["period", "id"])
    }

    @Test func missingClosingBraceEndsAtTheNextDeclaration() {
        let text = """
        product p: consumable {
          name "P"
        product q: consumable
        """
        #expect(diagnostics(text) == ["E110 3:1: expected `}` to close product `p`, found keyword `product`"])
        #expect(names(text) == ["p", "q"])
    }

    @Test func badExpressionSkipsTheDeclarationOnly() {
        let text = """
        entitlement e = a or or b {
          grants x
        }
        entitlement f = a
        """
        #expect(diagnostics(text) == ["E110 1:22: expected a product or entitlement name, found keyword `or`"])
        #expect(names(text) == ["e", "f"])
    }

    @Test func unclosedParenthesis() {
        let text = "entitlement e = (a or b\nproduct p: consumable"
        #expect(diagnostics(text) == ["E110 2:1: expected `)` to close the parenthesis, found keyword `product`"])
        #expect(names(text) == ["e", "p"])
    }

    @Test func strayClosingBrace() {
        #expect(diagnostics("}\nproduct p: consumable") == ["E110 1:1: unexpected `}`"])
    }

    @Test func missingKindKeepsTheDeclaration() {
        let text = "product p { name \"P\" }\nproduct q: consumable"
        #expect(diagnostics(text) == ["E110 1:11: expected `:` and a product kind after product `p`, found `{`"])
        #expect(names(text) == ["p", "q"])
    }

    @Test func testItemErrorsStayOnTheirLine() {
        let text = """
        test "t" {
          given pro actve
          expect pro allowed extra
          expect premium maybe
          at "2026-11-22T12:00:00Z"
        }
        """
        #expect(diagnostics(text) == [
            "E113 2:13: unknown clause `actve` in `given`",
            "E113 3:22: unknown clause `extra` in `expect`",
            "E113 4:18: unknown decision `maybe`",
        ])
        guard case .test(let t) = Parser.parse(text).file.declarations[0] else { return }
        #expect(t.items.count == 1)
    }

    @Test func garbageLineInABlock() {
        let text = "product p: consumable {\n  5 6 7\n  name \"P\"\n}"
        #expect(diagnostics(text) == ["E110 2:3: expected an item of product `p` or `}`, found number `5`"])
    }

    @Test func manyErrorsStayLinear() {
        // 20,000 broken declarations, each followed by a good one: one error each, and every
        // good declaration is kept.
        let text = String(repeating: "prodcut x: y\nproduct ok: consumable\n", count: 20_000)
        let result = Parser.parse(text)
        #expect(result.diagnostics.count == 20_000)
        #expect(result.file.declarations.count == 20_000)
    }
}
