import EntlLanguageServer
import EntlRuntime
import EntlSyntax
import Testing

@Suite struct FormattingFeatureTests {
    @Test func oneEditOfTheWholeDocumentOrNone() throws {
        let messy = SourceFile(path: "/w/a.entl", text: "product p:consumable{grants f 1}\nfeature f: metered\n")
        let edit = try Formatting.edit(messy)
        #expect(edit == TextEdit(file: "/w/a.entl", range: 0..<messy.bytes.count,
                                 newText: "product p: consumable {\n  grants f 1\n}\n\nfeature f: metered\n"))
        #expect(try Formatting.edit(SourceFile(path: "/w/a.entl", text: edit!.newText)) == nil)
    }

    @Test func refusedWithTheFirstSyntaxError() {
        let message = "cannot format a.entl: it has syntax errors "
            + "(E110 at 1:9: expected a product name, found `}`); fix them first"
        #expect(throws: FeatureError(message)) {
            try Formatting.edit(SourceFile(path: "/w/a.entl", text: "product }\n"))
        }
    }
}

@Suite struct SemanticTokenFeatureTests {
    @Test func namesByWhatTheyResolveToDeclarationsMarked() {
        let r = MarkedRuleSet("""
            1️⃣product 2️⃣p: consumable // 3️⃣note
            entitlement 4️⃣e = 5️⃣p and 6️⃣unknown and p >= 7️⃣2
            """, depth: .names)
        let tokens = r.analysis.semanticTokens(in: r.source)
        func token(_ marker: String) -> SemanticToken? { tokens.first { $0.range.lowerBound == r[marker] } }
        #expect(token("1️⃣") == SemanticToken(range: r["1️⃣"]..<r["1️⃣"] + 7, kind: .keyword, isDeclaration: false))
        #expect(token("2️⃣") == SemanticToken(range: r["2️⃣"]..<r["2️⃣"] + 1, kind: .name(.product),
                                              isDeclaration: true))
        #expect(token("3️⃣") == nil)  // the comment starts at `//`
        #expect(tokens.contains { $0.kind == .comment && $0.range.upperBound == r["3️⃣"] + 4 })
        #expect(token("4️⃣")?.kind == .name(.entitlement))
        #expect(token("4️⃣")?.isDeclaration == true)
        #expect(token("5️⃣") == SemanticToken(range: r["5️⃣"]..<r["5️⃣"] + 1, kind: .name(.product),
                                              isDeclaration: false))
        #expect(token("6️⃣") == nil)  // resolves to nothing
        #expect(token("7️⃣")?.kind == .number)
        #expect(tokens.map(\.range.lowerBound) == tokens.map(\.range.lowerBound).sorted())
    }
}

@Suite struct CodeActionFeatureTests {
    @Test func didYouMeanReplacesTheWord() {
        let r = MarkedRuleSet("""
            product pro_monthly: subscription { period month }
            entitlement pro = 1️⃣pro_montly2️⃣
            """, depth: .checked)
        let actions = r.analysis.codeActions(in: MarkedRuleSet.path, from: r["1️⃣"], to: r["1️⃣"], changes: [])
        #expect(actions.map(\.title) == ["Replace `pro_montly` with `pro_monthly`"])
        #expect(actions.first?.edits == [TextEdit(file: MarkedRuleSet.path, range: r.span("1️⃣", "2️⃣"),
                                                  newText: "pro_monthly")])
        #expect(actions.first?.diagnostic.code.id == "E201")
        #expect(actions.first?.isPreferred == true)
        #expect(r.analysis.codeActions(in: MarkedRuleSet.path, from: 0, to: 0, changes: []).isEmpty)
    }

    @Test func aWarningIsAllowedAboveItsDeclaration() {
        let r = MarkedRuleSet("""
            // entl-allow W3011️⃣
            product p: consumable { id 3️⃣appstore "p" }
            4️⃣  product q: consumable { id 5️⃣appstore "q" }
            entitlement e = p or q
            """)
        let extended = r.analysis.codeActions(in: MarkedRuleSet.path, from: r["3️⃣"], to: r["3️⃣"], changes: [])
        #expect(extended.map(\.title) == ["Replace `appstore` with `app_store`", "Allow W314 in `p` (// entl-allow)"])
        #expect(extended.last?.edits == [TextEdit(file: MarkedRuleSet.path, range: r["1️⃣"]..<r["1️⃣"],
                                                  newText: " W314")])
        let added = r.analysis.codeActions(in: MarkedRuleSet.path, from: r["5️⃣"], to: r["5️⃣"], changes: [])
        #expect(added.map(\.title) == ["Replace `appstore` with `app_store`", "Allow W314 in `q` (// entl-allow)"])
        #expect(added.last?.edits == [TextEdit(file: MarkedRuleSet.path, range: r["4️⃣"]..<r["4️⃣"],
                                               newText: "  // entl-allow W314\n")])
    }

    /// A declaration after code on its line moves to a line of its own under the comment: one above
    /// the line would cover the other declaration, not it (a review: the fix changed nothing).
    @Test func aDeclarationAfterCodeIsAllowedOnALineOfItsOwn() {
        let r = MarkedRuleSet("product old_a: consumable; 1️⃣product 2️⃣old_b: consumable\n")
        let actions = r.analysis.codeActions(in: MarkedRuleSet.path, from: r["2️⃣"], to: r["2️⃣"], changes: [])
        #expect(actions.map(\.title) == ["Allow W301 in `old_b` (// entl-allow)"])
        #expect(actions.last?.edits == [TextEdit(file: MarkedRuleSet.path, range: r["1️⃣"]..<r["1️⃣"],
                                                 newText: "\n// entl-allow W301\n")])
    }

    /// An edit that takes access away from existing customers: `diff` against the text as it
    /// was gives the rewrite that keeps it.
    @Test func aLostEntitlementIsKeptForExistingCustomers() {
        let before = "product a: non_consumable\nproduct b: non_consumable\nentitlement e = a or b\n"
        let r = MarkedRuleSet("product a: non_consumable\nproduct b: non_consumable\nentitlement 3️⃣e = 1️⃣a2️⃣\n",
                              depth: .checked)
        let since = Instant(rfc3339: "2026-06-01T00:00:00Z")!
        let changes = r.analysis.changesToKeep(from: [SourceFile(path: MarkedRuleSet.path, text: before)], since: since)
        #expect(changes.map(\.code.id) == ["D401"])
        let actions = r.analysis.codeActions(in: MarkedRuleSet.path, from: r["3️⃣"], to: r["3️⃣"], changes: changes)
        #expect(actions.map(\.title) == ["To keep it for what was bought before 2026-06-01T00:00:00Z (D401)"])
        #expect(actions.first?.edits == [TextEdit(file: MarkedRuleSet.path, range: r.span("1️⃣", "2️⃣"),
                                                  newText: #"a or b purchased before "2026-06-01T00:00:00Z""#)])
        #expect(r.analysis.changesToKeep(from: r.analysis.checked.sources, since: since).isEmpty)
    }
}
