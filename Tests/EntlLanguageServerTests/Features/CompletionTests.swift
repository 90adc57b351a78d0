import EntlLanguageServer
import EntlSyntax
import Testing

@Suite struct CompletionFeatureTests {
    static let rules = """
        /// Everything in Pro.
        entitlement pro = 1️⃣ {
          grants 2️⃣
        }
        product pro_monthly: subscription { period 3️⃣ }
        /// Export photos.
        feature export: boolean
        feature api_calls: metered { unit "4️⃣call" }
        environment test {
          product sandbox: non_consumable
        }
        environment live {
          entitlement trial = 5️⃣
        }
        // a comment 6️⃣
        """

    func complete(_ r: MarkedRuleSet, _ marker: String) -> [String] {
        r.analysis.completions(in: r.source, at: r[marker]).map(\.label)
    }

    @Test func wordsAndNamesValidAtTheCursor() {
        let r = MarkedRuleSet(Self.rules, depth: .names)
        #expect(complete(r, "1️⃣") == ["pro", "pro_monthly", "trial", "sandbox", "everyone", "not"])
        #expect(complete(r, "2️⃣") == ["export", "api_calls"])
        #expect(complete(r, "3️⃣") == ["week", "month", "quarter", "half_year", "year"])
        // Inside an environment block, only that environment's names.
        #expect(complete(r, "5️⃣") == ["pro", "pro_monthly", "trial", "everyone", "not"])
        // Inside a string or a comment: nothing.
        #expect(complete(r, "4️⃣") == [])
        #expect(complete(r, "6️⃣") == [])
    }

    /// Items need no `;` or line break between them: after a whole item on the same line, an item
    /// word starts the next (a review: `{ name "P" period ` completed nothing).
    @Test func itemsOnOneLineCompleteAsOnLinesOfTheirOwn() {
        let r = MarkedRuleSet("""
            feature m: metered
            product p: subscription { name "P" period 1️⃣ }
            entitlement e = everyone { name "x" grants 2️⃣ }
            entitlement f = everyone { name "x" grants m 5 per 3️⃣ }
            """, depth: .names)
        #expect(complete(r, "1️⃣") == ["week", "month", "quarter", "half_year", "year"])
        #expect(complete(r, "2️⃣") == ["m"])
        #expect(complete(r, "3️⃣").prefix(3) == ["minute", "hour", "day"])
    }

    @Test func namesCarryTheirKindDetailAndDocs() {
        let r = MarkedRuleSet(Self.rules, depth: .names)
        let items = r.analysis.completions(in: r.source, at: r["2️⃣"])
        #expect(items == [
            CompletionItem(label: "export", kind: .name(.feature), detail: "boolean feature",
                           documentation: "Export photos."),
            CompletionItem(label: "api_calls", kind: .name(.feature), detail: "metered feature"),
        ])
        #expect(r.analysis.completions(in: r.source, at: r["3️⃣"]).first == CompletionItem(label: "week", kind: .value))
    }

    /// The names come from the last analysis; the words from the text as it is now.
    @Test func theTextBeingTypedNeedNotParse() {
        let r = MarkedRuleSet(Self.rules, depth: .names)
        let typed = SourceFile(path: MarkedRuleSet.path, text: r.marked.text + "\nproduct extra: ")
        #expect(r.analysis.completions(in: typed, at: typed.bytes.count).map(\.label)
                == ["non_consumable", "consumable", "subscription", "non_renewing"])
    }
}
