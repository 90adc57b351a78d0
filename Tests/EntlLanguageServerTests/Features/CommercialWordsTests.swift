import EntlLanguageServer
import EntlSyntax
import Testing

/// The editor on soft limits, lots and a test's grants: hover says what a clause word means,
/// completion offers the words a grant or a test's `grant` may go on with.
@Suite struct CommercialWordsTests {
    static let rules = """
        product plan: subscription { period month }
        credits coins
        feature calls: metered
        product pack: consumable { grants coins 1_000 1️⃣expires 2️⃣after 12 months }
        entitlement api = plan {
          grants calls 10_000 per month 3️⃣overage up 4️⃣to 5_000
          5️⃣grants calls 5 6️⃣priority 1
        }
        test "t" {
          7️⃣grant calls 5 8️⃣from "2026-01-01T00:00:00Z"
          expect calls allowed via 9️⃣overage
        }
        """

    func hover(_ r: MarkedRuleSet, _ marker: String) -> (markdown: String, range: Range<Int>)? {
        r.analysis.hover(in: MarkedRuleSet.path, at: r[marker]).map { ($0.markdown, $0.range.bytes) }
    }

    @Test func aClauseWordSaysWhatItMeans() throws {
        let r = MarkedRuleSet(Self.rules, depth: .names)
        let expires = try #require(hover(r, "1️⃣"))
        #expect(expires.markdown == """
            ```entl
            expires after N days|weeks|months|years
            ```

            (grant clause)

            A lot: the allowance is granted once, at the purchase, and what is left of it lapses N \
            units later (a credit pack valid for a year). Lots are spent earliest-expiring first. \
            Not with `per`; at most 100 years.
            """)
        #expect(expires.range == r["1️⃣"]..<(r["1️⃣"] + "expires".utf8.count))
        // `after` is part of the same clause.
        #expect(hover(r, "2️⃣")?.markdown == expires.markdown)
        let overage = try #require(hover(r, "3️⃣"))
        #expect(overage.markdown.hasPrefix("```entl\noverage [up to N]\n```\n\n(grant clause)\n\nA soft limit:"))
        #expect(hover(r, "4️⃣")?.markdown == overage.markdown)
        #expect(hover(r, "5️⃣")?.markdown.hasPrefix("```entl\ngrants FEATURE [AMOUNT | unlimited] [per INTERVAL]")
                == true)
        #expect(hover(r, "6️⃣")?.markdown.contains("(grant clause)\n\nThe order in which the grants") == true)
        #expect(hover(r, "7️⃣")?.markdown.hasPrefix("```entl\ngrant NAME [N | unlimited]") == true)
        #expect(hover(r, "7️⃣")?.markdown.contains("(test item)") == true)
        #expect(hover(r, "8️⃣")?.markdown.contains("When the grant starts to count.") == true)
        #expect(hover(r, "9️⃣")?.markdown.hasPrefix("```entl\nvia overage\n```\n\n(expected source)") == true)
    }

    /// A name is still a name, and a word outside a grant has no hover.
    @Test func namesWinAndOtherWordsHaveNone() {
        let r = MarkedRuleSet("""
            feature 1️⃣overage: metered
            product p: consumable { 2️⃣name "P"; grants 3️⃣overage 5 overage }
            test "t" { 4️⃣at "2026-01-01T00:00:00Z" }
            """, depth: .names)
        #expect(hover(r, "1️⃣")?.markdown.hasPrefix("```entl\nfeature overage: metered") == true)
        #expect(hover(r, "3️⃣")?.markdown.hasPrefix("```entl\nfeature overage: metered") == true)
        #expect(hover(r, "2️⃣") == nil)
        #expect(hover(r, "4️⃣") == nil)
    }

    func complete(_ text: String) -> [String] {
        let r = MarkedRuleSet(Self.rules, depth: .names)
        let source = SourceFile(path: MarkedRuleSet.path, text: r.marked.text + "\n" + text)
        return r.analysis.completions(in: source, at: source.bytes.count).map(\.label)
    }

    @Test func completionOffersTheClausesAGrantGoesOnWith() {
        let grant = "entitlement e = plan {\n  grants calls "
        #expect(complete(grant) == ["unlimited", "per", "carry", "overage", "expires", "priority"])
        #expect(complete(grant + "5 per month overage ") == ["up", "carry", "expires", "priority"])
        #expect(complete(grant + "5 overage up ") == ["to"])
        #expect(complete(grant + "5 expires ") == ["after"])
        #expect(complete(grant + "5 expires after 12 ") == ["days", "weeks", "months", "years"])
        #expect(complete(grant + "5 expires after 12 months ") == ["per", "carry", "overage", "priority"])
        #expect(complete(grant + "5 expires after ") == [])
    }

    @Test func completionInATestsGrantAndExpect() {
        #expect(complete("test \"u\" {\n  gra").contains("grant"))
        #expect(complete("test \"u\" {\n  grant ") == ["coins", "calls", "api"])
        #expect(complete("test \"u\" {\n  grant calls ") == ["unlimited", "per", "overage", "from", "until"])
        #expect(complete("test \"u\" {\n  grant calls 5 overage ") == ["up", "per", "from", "until"])
        #expect(complete("test \"u\" {\n  expect calls allowed via ") == ["direct", "credits", "overage"])
    }
}
