import EntlLanguageServer
import Testing

@Suite struct HoverFeatureTests {
    @Test func aProductSaysWhatItsBlockSaysInOrderAndWhatItUnlocks() {
        let r = MarkedRuleSet("""
            /// Pro, monthly.
            product 1️⃣pro_monthly2️⃣: subscription { id stripe "p.m"; name "Pro"; period month; grants export }
            feature export: boolean
            entitlement pro = 3️⃣pro_monthly
            """)
        let hover = r.analysis.hover(in: MarkedRuleSet.path, at: r["1️⃣"])
        #expect(hover?.range.bytes == r.span("1️⃣", "2️⃣"))
        #expect(hover?.markdown == """
            ```entl
            product pro_monthly: subscription
            ```

            (subscription)

            Pro, monthly.

            - store id: stripe `p.m`
            - display name: "Pro"
            - period: `month`
            - grants `export`
            - unlocks: entitlement `pro`
            """)
        #expect(r.analysis.hover(in: MarkedRuleSet.path, at: r["3️⃣"])?.markdown == hover?.markdown)
    }

    /// What the rules' strings and doc comments hold is shown escaped, as the source writes it (a
    /// review: an ESC, a NUL and a NEL reached the editor raw).
    @Test func controlCharactersAreShownEscaped() {
        let r = MarkedRuleSet("/// Doc \u{1B}[31mred\u{7}\nproduct 1️⃣p: non_consumable { name \"N\\u{1B}\\u{0}\" "
                              + "id app_store \"a\\u{85}b\" }")
        let markdown = r.analysis.hover(in: MarkedRuleSet.path, at: r["1️⃣"])?.markdown ?? ""
        #expect(markdown.contains(#"Doc \u{1B}[31mred\u{7}"#))
        #expect(markdown.contains(#"- display name: "N\u{1B}\u{0}""#))
        #expect(markdown.contains(#"- store id: app_store `a\u{85}b`"#))
        #expect(!markdown.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) })
    }

    @Test func aFeatureSaysWhoGrantsItAndWhatPaysForIt() {
        let r = MarkedRuleSet("""
            feature 1️⃣api_calls: metered { unit "call" / "calls"; event "api.call" }
            credits tokens { api_calls 10 = 1 }
            entitlement pro = everyone { grants api_calls 1_000 per month carry up to 500 }
            environment test { product sandbox: non_consumable { grants api_calls unlimited } }
            """)
        #expect(r.analysis.hover(in: MarkedRuleSet.path, at: r["1️⃣"])?.markdown == """
            ```entl
            feature api_calls: metered
            ```

            (metered feature)

            - unit: "call" / "calls"
            - event: "api.call"
            - granted by entitlement `pro`: `api_calls 1_000 per month carry up to 500`
            - granted by product `sandbox` (environment `test`): `api_calls unlimited`
            - paid with `tokens`: 10 = 1 credits
            """)
    }

    @Test func aCreditSystemSaysWhatItPaysFor() {
        let r = MarkedRuleSet("""
            feature api_calls: metered
            credits 1️⃣tokens { unit "token"; api_calls 1_000 = 3 }
            product pack: consumable { grants tokens 100 }
            """)
        #expect(r.analysis.hover(in: MarkedRuleSet.path, at: r["1️⃣"])?.markdown == """
            ```entl
            credits tokens
            ```

            (credit system)

            - unit: "token"
            - pays for `api_calls`: 1_000 = 3 credits
            - granted by product `pack`: `tokens 100`
            """)
    }

    /// A name declared differently in each environment: one section per declaration.
    @Test func aNameOfEachEnvironmentShowsBoth() {
        let r = MarkedRuleSet("""
            environment live { entitlement pro = everyone }
            environment test { product pro: non_consumable }
            test "t" { env test; expect 1️⃣pro allowed }
            entitlement all = 2️⃣pro
            """)
        #expect(r.analysis.hover(in: MarkedRuleSet.path, at: r["1️⃣"])?.markdown == """
            ```entl
            product pro: non_consumable
            ```

            (non-consumable product, environment `test`)

            - unlocks: entitlement `all`
            """)
        #expect(r.analysis.hover(in: MarkedRuleSet.path, at: r["2️⃣"])?.markdown == """
            ```entl
            entitlement pro = everyone
            ```

            (entitlement, environment `live`)

            - required by: entitlement `all`

            ---

            ```entl
            product pro: non_consumable
            ```

            (non-consumable product, environment `test`)

            - unlocks: entitlement `all`
            """)
    }

    @Test func nothingWhereThereIsNoName() {
        let r = MarkedRuleSet("1️⃣product p: consumable { grants 2️⃣nothing }\n")
        #expect(r.analysis.hover(in: MarkedRuleSet.path, at: r["1️⃣"]) == nil)
        #expect(r.analysis.hover(in: MarkedRuleSet.path, at: r["2️⃣"]) == nil)
    }
}
