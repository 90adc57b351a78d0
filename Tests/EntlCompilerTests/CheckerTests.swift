import EntlCompiler
import EntlSyntax
import EntlTestSupport
import Testing

@Suite struct CheckerTests {
    @Test func theTourChecksClean() throws {
        let checked = Compiler.check([SourceFile(path: "tour.entl", text: try readRepoFile("Tests/Fixtures/valid/tour.entl"))])
        #expect(checked.diagnostics.isEmpty)
    }

    @Test func everyExampleChecksCleanAloneAndTogether() throws {
        let paths = ["examples/api.entl", "examples/crossplatform.entl", "examples/photos.entl",
                     "examples/selling.entl", "examples/subscriptions.entl"]
        let sources = try paths.map { SourceFile(path: $0, text: try readRepoFile($0)) }
        for s in sources { #expect(Compiler.check([s]).diagnostics.isEmpty, "\(s.path)") }
        #expect(Compiler.check(sources).diagnostics.isEmpty)
    }

    @Test func testOnlyDeclarationsDoNotExistInLive() {
        assertDiagnostics("""
        environment test {
          product debug_unlock: non_consumable
        }
        entitlement e = 1️⃣debug_unlock
        """, [ExpectedDiagnostic("E201", "unknown product `debug_unlock`")])
        let checked = check("environment test { product debug_unlock: non_consumable }\nentitlement e = debug_unlock")
        let d = checked.diagnostics[0]
        #expect(d.label == "not declared in environment live")
        #expect(d.notes.map(\.message) == ["`debug_unlock` is declared only in environment test"])
        #expect(d.notes.first?.range.start.line == 1)
    }

    @Test func onlyTheRequestedEnvironmentIsChecked() {
        let text = "environment test { product debug_unlock: non_consumable }\nentitlement e = debug_unlock"
        #expect(Compiler.check([SourceFile(path: "t", text: text)], environments: [.test]).diagnostics.isEmpty)
        #expect(Compiler.check([SourceFile(path: "t", text: text)], environments: [.live]).diagnostics.count == 1)
    }

    /// Without an `environment` block both environments see the same declarations, and their
    /// checks run once: the same problems whichever environments are asked for.
    @Test func aRuleSetWithoutEnvironmentBlocksHasTheSameProblemsInEach() {
        let text = """
            product p: subscription { period month }
            entitlement a = b
            entitlement b = a
            entitlement c = nothere
            product p: non_consumable
            feature f: metered { grant p: 10 per month }
            """
        func problems(_ environments: [EnvironmentName]) -> [String] {
            Compiler.check([SourceFile(path: "t", text: text)], environments: environments).sortedDiagnostics
                .map { "\($0.code.id) \($0.range.start): \($0.message)" }
        }
        let both = problems([.live, .test])
        #expect(both.count >= 3, "\(both)")
        #expect(problems([.live]) == both)
        #expect(problems([.test]) == both)
    }

    @Test func liveAndTestBlocksMayReuseANameButNotTheSharedOnes() {
        assertDiagnostics("""
        environment live { product unlock: non_consumable { id app_store "U" } }
        environment test { product unlock: non_consumable { id app_store "U" } }
        product shared: consumable
        environment test { product 1️⃣shared: consumable }
        """, [ExpectedDiagnostic("E202", "duplicate name `shared`")])
    }

    @Test func duplicatesAcrossFilesPointAtTheFirstFile() {
        let a = SourceFile(path: "a.entl", text: "product pro: consumable { id app_store \"P\" }")
        let b = SourceFile(path: "b.entl", text: "product pro: consumable\nproduct other: consumable { id app_store \"P\" }")
        let diagnostics = Compiler.check([a, b]).sortedDiagnostics
        #expect(diagnostics.map { "\($0.file):\($0.range.start) \($0.code.id)" } == ["b.entl:1:9 E202", "b.entl:2:42 E203"])
        #expect(diagnostics.map { $0.notes.map { "\($0.file):\($0.range.start)" } } == [["a.entl:1:9"], ["a.entl:1:40"]])
    }

    @Test func declarationsAreOrderIndependent() {
        #expect(check("entitlement e = p { grants f }\nfeature f: boolean\nproduct p: consumable").diagnostics.isEmpty)
    }

    @Test func suggestionsPickTheRightKind() {
        let checked = check("""
        feature api_calls: metered
        product api_call: consumable
        entitlement e = api_cal { grants api_calss 5 }
        """)
        #expect(checked.sortedDiagnostics.map(\.message) == ["unknown product `api_cal`", "unknown feature `api_calss`"])
        #expect(checked.sortedDiagnostics.map(\.help) == ["did you mean `api_call`?", "did you mean `api_calls`?"])
    }

    @Test func kindErrorsInGrants() {
        assertDiagnostics("""
        product p: consumable
        feature seats: metered { usage continuous }
        feature flag: boolean
        entitlement e = p {
          grants 1️⃣p
          grants seats 5 2️⃣carry
          grants flag 3️⃣per month
          grants 4️⃣seats
        }
        """, [
            ExpectedDiagnostic("E204", "`p` is a consumable, not a feature or credit system", at: "1️⃣"),
            ExpectedDiagnostic("E208", "`carry` on continuous feature `seats`", at: "2️⃣"),
            ExpectedDiagnostic("E206", "boolean feature `flag` takes no `per`", at: "3️⃣"),
            ExpectedDiagnostic("E207", "continuous metered feature `seats` needs an amount or `unlimited`", at: "4️⃣"),
        ])
    }

    @Test func positiveNumbers() {
        assertDiagnostics("""
        feature calls: metered
        product z: consumable
        credits c { calls 1️⃣0 = 2️⃣0 }
        entitlement e = z >= 3️⃣0 { grants calls 4️⃣0 per day carry up to 5️⃣0 priority 0 }
        """, [
            ExpectedDiagnostic("E213", "a conversion amount must be at least 1", at: "1️⃣"),
            ExpectedDiagnostic("E213", "a conversion's credits must be at least 1", at: "2️⃣"),
            ExpectedDiagnostic("E213", "a quantity after `>=` must be at least 1", at: "3️⃣"),
            ExpectedDiagnostic("E213", "a grant amount must be at least 1", at: "4️⃣"),
            ExpectedDiagnostic("E213", "a carry cap must be at least 1", at: "5️⃣"),
        ])
    }

    @Test func selfReferenceAndLongChains() {
        assertDiagnostics("entitlement a = 1️⃣a", [ExpectedDiagnostic("E214", "entitlement `a` depends on itself: `a` → `a`")])
        // A 50,000-long chain of entitlements is not a cycle and checks without deep recursion.
        var text = "product p: consumable\nentitlement e0 = p\n"
        for i in 1..<50_000 { text += "entitlement e\(i) = e\(i - 1)\n" }
        #expect(check(text).diagnostics.isEmpty)
    }

    @Test func wrongKindItems() {
        assertDiagnostics("""
        product a: consumable { 1️⃣group g; 2️⃣duration 3 days }
        product b: subscription { period month; 3️⃣duration 3 days }
        feature f: boolean { 4️⃣usage continuous }
        """, [
            ExpectedDiagnostic("E212", "`group` applies only to subscriptions", at: "1️⃣"),
            ExpectedDiagnostic("E212", "`duration` applies only to non-renewing products", at: "2️⃣"),
            ExpectedDiagnostic("E212", "`duration` applies only to non-renewing products", at: "3️⃣"),
            ExpectedDiagnostic("E212", "`usage` applies only to metered features", at: "4️⃣"),
        ])
    }

    @Test func creditsEntriesNameMeteredFeatures() {
        assertDiagnostics("""
        product p: consumable
        credits other { }
        credits c {
          1️⃣p 1 = 5
          2️⃣other 1 = 5
          3️⃣nope 1 = 5
        }
        """, [
            ExpectedDiagnostic("E204", "`p` is a consumable, not a feature", at: "1️⃣"),
            ExpectedDiagnostic("E210", "credit system `c` converts `other`, a credit system", at: "2️⃣"),
            ExpectedDiagnostic("E201", "unknown feature `nope`", at: "3️⃣"),
        ])
    }

    @Test func testBlocksAreChecked() {
        assertDiagnostics("""
        product pro: subscription { period month }
        product zbucks: consumable
        feature calls: metered
        feature flag: boolean
        credits c { calls 1 = 5 }
        credits d { }
        test "t" {
          at "2026-11-22T12:00:00Z"
          1️⃣at "2026-11-23T12:00:00Z"
          given 2️⃣pr
          given pro quantity 3️⃣3 since 4️⃣"yesterday"
          level 5️⃣calls 4
          override 6️⃣calls unknown
          expect flag 7️⃣5 allowed
          expect calls allowed via credits 8️⃣d
          expect pro allowed 9️⃣via direct
        }
        """, [
            ExpectedDiagnostic("E216", "`at` is given twice in this test", at: "1️⃣"),
            ExpectedDiagnostic("E201", "unknown product `pr`", at: "2️⃣"),
            ExpectedDiagnostic("E205", "`pro` is a subscription; only consumables have a quantity", at: "3️⃣"),
            ExpectedDiagnostic("E217", "\"yesterday\" is not an RFC 3339 instant", at: "4️⃣"),
            ExpectedDiagnostic("E218", "`calls` is consumed in uses; it has no level", at: "5️⃣"),
            ExpectedDiagnostic("E204", "`calls` is a metered feature, not a product", at: "6️⃣"),
            ExpectedDiagnostic("E218", "a required amount applies only to metered features and credit systems", at: "7️⃣"),
            ExpectedDiagnostic("E218", "credit system `d` does not convert `calls`", at: "8️⃣"),
            ExpectedDiagnostic("E218", "`via` applies only to metered features", at: "9️⃣"),
        ])
    }

    /// `used` may name a feature by its event name; `customer since` takes an instant, once.
    @Test func usesByEventAndTheCustomersStart() {
        assertDiagnostics("""
        product pro: subscription { period month }
        feature calls: metered { event "api_call" }
        feature seats: metered { usage continuous; event "seat" }
        entitlement e = pro { grants calls 10; grants seats 2 }
        test "t" {
          at "2026-11-22T12:00:00Z"
          customer since 1️⃣"last year"
          2️⃣customer since "2026-01-01T00:00:00Z"
          used api_call 3 id "a"
          used 3️⃣seat 1
          used 4️⃣api_cal 1
          override pro purchased
          5️⃣override pro not_purchased
          expect calls allowed
        }
        """, [
            ExpectedDiagnostic("E217", "\"last year\" is not an RFC 3339 instant", at: "1️⃣"),
            ExpectedDiagnostic("E216", "`customer since` is given twice in this test", at: "2️⃣"),
            ExpectedDiagnostic("E218", "`seat` is continuous; it has a level, not uses", at: "3️⃣"),
            ExpectedDiagnostic("E201", "unknown feature `api_cal`", at: "4️⃣"),
            ExpectedDiagnostic("E216", "`override pro` is given twice in this test", at: "5️⃣"),
        ])
    }

    @Test func testsAreCheckedInTheirOwnEnvironment() {
        let text = """
        environment test { product qa: non_consumable }
        test "live" { expect 1️⃣qa allowed }
        test "test" { env test; expect qa allowed }
        """
        assertDiagnostics(text, [ExpectedDiagnostic("E201", "unknown product `qa`")])
    }

    @Test func oneTypoOneError() {
        // A misspelled period does not also make the subscription "period-less".
        assertDiagnostics("product a: subscription { period 1️⃣monthly }",
                          [ExpectedDiagnostic("E113", "unknown billing period `monthly`")])
        // A declaration whose constraint failed still declares its name.
        assertDiagnostics("entitlement e = a or 1️⃣)\nfeature f: boolean requires e",
                          [ExpectedDiagnostic("E110", "expected a product or entitlement name, found `)`")])
    }
}
