import EntlLanguageServer
import EntlSyntax
import Testing

@Suite struct SymbolsFeatureTests {
    @Test func theOutlineNestsEnvironmentBlocks() {
        let r = MarkedRuleSet("""
            1️⃣app 2️⃣"com.example"3️⃣
            4️⃣environment 5️⃣test6️⃣ {
              7️⃣product 8️⃣sandbox9️⃣: non_consumable
            }
            """)
        let outline = Symbols.outline(r.source)
        #expect(outline.map(\.name) == ["app \"com.example\"", "environment test"])
        #expect(outline.map(\.kind) == [.app, .environment])
        #expect(outline[0].selectionRange.bytes == r.span("2️⃣", "3️⃣"))
        #expect(outline[1].range.bytes == r["4️⃣"]..<r.marked.text.utf8.count)
        #expect(outline[1].selectionRange.bytes == r.span("5️⃣", "6️⃣"))
        let sandbox = outline[1].children
        #expect(sandbox.map(\.name) == ["sandbox"])
        #expect(sandbox.map(\.detail) == ["non_consumable"])
        #expect(sandbox.first?.range.start.offset == r["7️⃣"])
        #expect(sandbox.first?.selectionRange.bytes == r.span("8️⃣", "9️⃣"))
    }

    @Test func detailsSayWhatEachDeclarationIs() {
        let r = MarkedRuleSet("""
            product p: consumable
            feature f: metered
            credits c
            entitlement e = p or everyone
            test "t" { at "2026-01-01T00:00:00Z" }
            """)
        let outline = Symbols.outline(r.source)
        #expect(outline.map(\.detail) == ["consumable", "metered feature", "credits", "= p or everyone", ""])
        #expect(outline.map(\.kind) == [.product, .feature, .credits, .entitlement, .test])
    }

    @Test func aSearchMatchesTheQuerysLettersInOrderIgnoringCase() {
        let r = MarkedRuleSet("""
            product pro_annual: subscription { period year }
            environment test { product 1️⃣PRO_trial2️⃣: non_consumable }
            feature export: boolean
            """)
        let found = Symbols.matching("prtr", in: Parser.parse(r.source).file)
        #expect(found == [WorkspaceSymbol(name: "PRO_trial", kind: .product,
                                          location: Location(file: MarkedRuleSet.path,
                                                             range: found.first!.location.range))])
        #expect(found.first?.location.range.bytes == r.span("1️⃣", "2️⃣"))
        let all = Symbols.matching("", in: Parser.parse(r.source).file)
        #expect(all.map(\.name) == ["pro_annual", "PRO_trial", "export"])
        #expect(Symbols.matching("xp", in: Parser.parse(r.source).file).map(\.name) == ["export"])
    }
}
