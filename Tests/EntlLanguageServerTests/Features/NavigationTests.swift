import EntlLanguageServer
import Testing

@Suite struct NavigationFeatureTests {
    static let rules = """
        product pro_monthly: subscription { period month }
        entitlement 1️⃣pro2️⃣ = pro_monthly { grants 3️⃣export }
        feature 4️⃣export5️⃣: boolean
        test "t" { at "2026-01-01T00:00:00Z"; expect 6️⃣export allowed }
        """

    @Test func definitionIsTheDeclaration() {
        let r = MarkedRuleSet(Self.rules)
        #expect(r.analysis.definition(in: MarkedRuleSet.path, at: r["3️⃣"])
                == [Location(file: MarkedRuleSet.path, range: r.analysis.checked.tables[.live]!["export"]!.range)])
        let definition = r.analysis.definition(in: MarkedRuleSet.path, at: r["3️⃣"])
        #expect(definition?.map(\.range.bytes) == [r.span("4️⃣", "5️⃣")])
        #expect(r.analysis.definition(in: MarkedRuleSet.path, at: 0) == nil)
    }

    @Test func referencesInFileOrderAcrossFiles() {
        let r = MarkedRuleSet(Self.rules, others: ["/w/more.entl": "entitlement all = pro { grants export }\n"])
        let all = r.analysis.references(in: MarkedRuleSet.path, at: r["6️⃣"], includeDeclaration: true)
        #expect(all?.map { "\($0.file) \($0.range.bytes)" } == [
            "/w/more.entl 31..<37", "\(MarkedRuleSet.path) \(r["3️⃣"]..<r["3️⃣"] + 6)",
            "\(MarkedRuleSet.path) \(r.span("4️⃣", "5️⃣"))", "\(MarkedRuleSet.path) \(r["6️⃣"]..<r["6️⃣"] + 6)",
        ])
        let uses = r.analysis.references(in: MarkedRuleSet.path, at: r["4️⃣"], includeDeclaration: false)
        #expect(uses?.count == 3)
        #expect(uses?.contains { $0.range.bytes == r.span("4️⃣", "5️⃣") } == false)
    }

    @Test func renameEditsEveryUse() throws {
        let r = MarkedRuleSet(Self.rules, others: ["/w/more.entl": "entitlement all = pro { grants export }\n"])
        #expect(try r.analysis.prepareRename(in: MarkedRuleSet.path, at: r["2️⃣"]).name == "pro")
        #expect(try r.analysis.prepareRename(in: MarkedRuleSet.path, at: r["2️⃣"]).range.bytes == r.span("1️⃣", "2️⃣"))
        let edits = try r.analysis.rename(in: MarkedRuleSet.path, at: r["1️⃣"], to: "premium")
        #expect(edits == [
            TextEdit(file: "/w/more.entl", range: 18..<21, newText: "premium"),
            TextEdit(file: MarkedRuleSet.path, range: r.span("1️⃣", "2️⃣"), newText: "premium"),
        ])
        #expect(try r.analysis.rename(in: MarkedRuleSet.path, at: r["1️⃣"], to: "pro") == [])
    }

    @Test func renameRefusesWhatCannotBeAName() {
        let r = MarkedRuleSet(Self.rules)
        func refusal(_ name: String, at marker: String = "1️⃣") -> String? {
            do throws(FeatureError) {
                _ = try r.analysis.rename(in: MarkedRuleSet.path, at: r[marker], to: name)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(refusal("everyone") == "`everyone` is a reserved word and cannot name anything")
        #expect(refusal("export") == "`export` is already the name of a feature (rules.entl:3:9)")
        #expect(refusal("9lives") == "`9lives` is not a name: use letters, digits and `_`, "
                                     + "starting with a letter or `_`")
        let notAName = "only the name of a product, entitlement, feature or credit system can be renamed"
        #expect(throws: FeatureError(notAName)) {
            try r.analysis.prepareRename(in: MarkedRuleSet.path, at: 0)
        }
    }
}
