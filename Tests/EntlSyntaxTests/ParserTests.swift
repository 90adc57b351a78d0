import EntlSyntax
import Testing

/// The tree without ranges, and the parse diagnostics.
private func parse(_ text: String) -> (dump: String, diagnostics: [String]) {
    let result = Parser.parse(text)
    return (ASTDump(includeRanges: false).dump(result.file),
            result.diagnostics.map { "\($0.code.id) \($0.range.start): \($0.message)" })
}

private func expectTree(_ text: String, _ expected: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    let (dump, diagnostics) = parse(text)
    #expect(diagnostics == [], sourceLocation: sourceLocation)
    #expect(dump == expected + "\n", sourceLocation: sourceLocation)
}

@Suite struct ParserTests {
    @Test func app() {
        expectTree(#"app "com.example.photos""#, """
        RuleFile
        └─ App "com.example.photos"
        """)
    }

    @Test func productWithEveryItem() {
        expectTree("""
        /// Doc line one.
        /// Doc line two.
        product pro: subscription {
          name "Pro"; period month; group pro_group
          id app_store "com.x.pro"
          id stripe "price_1"
          grants api_calls 10_000 per month carry up to 1_000 priority 2
        }
        product pass: non_renewing { duration 90 days }
        product life: non_consumable
        product pack: consumable { grants api_calls 5_000 }
        """, """
        RuleFile
        ├─ Product pro: subscription
        │  ├─ Doc "Doc line one."
        │  ├─ Doc "Doc line two."
        │  ├─ Name "Pro"
        │  ├─ Period month
        │  ├─ Group pro_group
        │  ├─ StoreID app_store "com.x.pro"
        │  ├─ StoreID stripe "price_1"
        │  └─ Grant api_calls 10000 per month carry up to 1000 priority 2
        ├─ Product pass: non_renewing
        │  └─ Duration 90 days
        ├─ Product life: non_consumable
        └─ Product pack: consumable
           └─ Grant api_calls 5000
        """)
    }

    @Test func durationUnitsAcceptSingularForms() {
        expectTree("product p: non_renewing { duration 1 year }", """
        RuleFile
        └─ Product p: non_renewing
           └─ Duration 1 years
        """)
    }

    @Test func features() {
        expectTree("""
        feature dark: boolean
        feature export: boolean { name "Export" }
        feature attach: boolean requires (premium or pass) and zbucks >= 5
        feature calls: metered { usage single_use; event "api_call"; unit "call" / "calls" }
        feature gb: metered { usage continuous; unit "GB" }
        """, """
        RuleFile
        ├─ Feature dark: boolean
        ├─ Feature export: boolean
        │  └─ Name "Export"
        ├─ Feature attach: boolean
        │  └─ Requires
        │     └─ And
        │        ├─ Or
        │        │  ├─ Ref premium
        │        │  └─ Ref pass
        │        └─ AtLeast zbucks >= 5
        ├─ Feature calls: metered
        │  ├─ Usage single_use
        │  ├─ Event "api_call"
        │  └─ Unit "call" / "calls"
        └─ Feature gb: metered
           ├─ Usage continuous
           └─ Unit "GB"
        """)
    }

    @Test func creditsWithConversionsNamedLikeItems() {
        expectTree("""
        credits c {
          name "Credits"
          unit "credit" / "credits"
          api_calls 1 = 5
          tokens 1_000 = 1
          unit 2 = 3
        }
        """, """
        RuleFile
        └─ Credits c
           ├─ Name "Credits"
           ├─ Unit "credit" / "credits"
           ├─ Conversion api_calls 1 = 5
           ├─ Conversion tokens 1000 = 1
           └─ Conversion unit 2 = 3
        """)
    }

    @Test func entitlementsAndGrantsOfEveryShape() {
        expectTree("""
        entitlement e = a or b and not c {
          grants flag
          grants calls unlimited
          grants calls 5 carry
          grants credits_x 500 per month carry up to 1_000
          grants seats 3 priority 1
        }
        entitlement bare = a
        """, """
        RuleFile
        ├─ Entitlement e
        │  ├─ Or
        │  │  ├─ Ref a
        │  │  └─ And
        │  │     ├─ Ref b
        │  │     └─ Not
        │  │        └─ Ref c
        │  ├─ Grant flag
        │  ├─ Grant calls unlimited
        │  ├─ Grant calls 5 carry
        │  ├─ Grant credits_x 500 per month carry up to 1000
        │  └─ Grant seats 3 priority 1
        └─ Entitlement bare
           └─ Ref a
        """)
    }

    @Test func precedenceAndParenthesesSurviveFlattening() {
        expectTree("entitlement e = (a or b) or c and (d and e) or not not f", """
        RuleFile
        └─ Entitlement e
           └─ Or
              ├─ Or
              │  ├─ Ref a
              │  └─ Ref b
              ├─ And
              │  ├─ Ref c
              │  └─ And
              │     ├─ Ref d
              │     └─ Ref e
              └─ Not
                 └─ Not
                    └─ Ref f
        """)
    }

    @Test func purchaseDatesAndEveryone() {
        expectTree(#"""
        entitlement legacy = pro purchased before "2026-06-01T00:00:00Z" or not p purchased since "2026-01-01T00:00:00+02:00" and everyone
        """#, """
        RuleFile
        └─ Entitlement legacy
           └─ Or
              ├─ Purchased pro before "2026-06-01T00:00:00Z"
              └─ And
                 ├─ Not
                 │  └─ Purchased p since "2026-01-01T00:00:00+02:00"
                 └─ Everyone
        """)
        // `purchased` with no relation, or no instant, is one error.
        #expect(parse("entitlement e = p purchased after \"2026-06-01T00:00:00Z\"").1
            == ["E110 1:29: expected `before` or `since` after `purchased` (`p purchased before \"2026-06-01T00:00:00Z\"`), found `after`"])
        #expect(parse("entitlement e = p purchased before").1
            == ["E110 1:35: expected an instant string after `purchased before`, found end of file"])
        // The formatter keeps it; `purchased` is contextual: a product may be called `purchased`.
        #expect(Printer.format(SourceFile(path: "x", text: "entitlement e=p   purchased  before \"2026-06-01T00:00:00Z\" or purchased"))
            == "entitlement e = p purchased before \"2026-06-01T00:00:00Z\" or purchased\n")
    }

    @Test func environments() {
        expectTree("""
        environment test {
          product debug: non_consumable { id app_store "D" }
          entitlement debug_premium = debug { grants x }
        }
        environment live { }
        """, """
        RuleFile
        ├─ Environment test
        │  ├─ Product debug: non_consumable
        │  │  └─ StoreID app_store "D"
        │  └─ Entitlement debug_premium
        │     ├─ Ref debug
        │     └─ Grant x
        └─ Environment live
        """)
    }

    @Test func testBlocksWithEveryItem() {
        expectTree("""
        test "pro gets calls" {
          at "2026-11-22T12:00:00Z"
          env test
          state "fixtures/s.json"
          given pro active since "2026-11-05T09:00:00Z" until "2026-12-05T09:00:00Z"
          given pro past_due grace_until "2026-12-01T00:00:00Z" family_shared
          given zbucks quantity 7
          used api_calls 1_200 at "2026-11-20T10:00:00Z"
          used api_calls 5
          used api_call 3 id "req-1" at "2026-11-21T10:00:00Z"
          level seats 3
          customer since "2026-01-01T00:00:00Z"
          override premium_lifetime unknown
          at "2026-11-23T00:00:00Z"
          expect api_calls allowed balance 8_800
          expect api_calls 9_000 denied
          expect api_calls 10 allowed via credits universal balance unlimited
          expect storage_gb allowed via direct
          expect attach_photos undetermined
        }
        """, """
        RuleFile
        └─ Test "pro gets calls"
           ├─ At "2026-11-22T12:00:00Z"
           ├─ Env test
           ├─ State "fixtures/s.json"
           ├─ Given pro active since "2026-11-05T09:00:00Z" until "2026-12-05T09:00:00Z"
           ├─ Given pro past_due grace_until "2026-12-01T00:00:00Z" family_shared
           ├─ Given zbucks quantity 7
           ├─ Used api_calls 1200 at "2026-11-20T10:00:00Z"
           ├─ Used api_calls 5
           ├─ Used api_call 3 at "2026-11-21T10:00:00Z" id "req-1"
           ├─ Level seats 3
           ├─ CustomerSince "2026-01-01T00:00:00Z"
           ├─ Override premium_lifetime unknown
           ├─ At "2026-11-23T00:00:00Z"
           ├─ Expect api_calls allowed balance 8800
           ├─ Expect api_calls 9000 denied
           ├─ Expect api_calls 10 allowed balance unlimited via credits universal
           ├─ Expect storage_gb allowed via direct
           └─ Expect attach_photos undetermined
        """)
    }

    @Test func semicolonsAndWhitespaceAreInsignificant() {
        let a = Parser.parse("product p: subscription { period month; id app_store \"P\" };;")
        let b = Parser.parse("product\np\n:\nsubscription\n{\nperiod\nmonth\nid\napp_store\n\"P\"\n}")
        #expect(a.diagnostics.isEmpty && b.diagnostics.isEmpty)
        #expect(a.file == b.file)  // equality ignores ranges
        #expect(Parser.parse("product p: consumable").file != Parser.parse("product q: consumable").file)
    }

    @Test func rangesPointAtTheSource() {
        let result = Parser.parse("entitlement pro = pro_monthly or zbucks >= 5 {\n  grants x 5 per month\n}")
        guard case .entitlement(let e) = result.file.declarations[0], case .or(let terms) = e.expression,
              case .grant(let g) = e.items[0].kind else {
            Issue.record("unexpected tree")
            return
        }
        #expect(e.range.description == "1:1-3:2")
        #expect(e.name.range.description == "1:13-1:16")
        #expect(terms[0].range.description == "1:19-1:30")
        #expect(terms[1].range.description == "1:34-1:45")
        #expect(e.items[0].range.description == "2:3-2:23")
        #expect(g.per?.range.description == "2:14-2:23")
    }

    @Test func emptyFileIsFine() {
        #expect(parse("").dump == "RuleFile\n")
        #expect(parse("  \n// only a comment\n").diagnostics == [])
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let deep = "product a: consumable\nentitlement x = " + String(repeating: "(", count: 100_000) + "a"
            + String(repeating: ")", count: 100_000) + "\nproduct b: consumable"
        let (dump, diagnostics) = parse(deep)
        #expect(diagnostics == ["E114 2:273: constraint nesting too deep (more than 256 levels)"])
        #expect(dump.contains("Product b: consumable"))  // recovered after the bad declaration
        let nots = "entitlement x = " + String(repeating: "not ", count: 100_000) + "a"
        #expect(parse(nots).diagnostics.map { String($0.prefix(4)) } == ["E114"])
    }
}
