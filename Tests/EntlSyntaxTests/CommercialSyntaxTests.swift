import EntlSyntax
import EntlTestSupport
import Testing

/// Soft limits (`overage [up to N]`), lots (`expires after N UNIT`), a test's `grant` and
/// `expect … via overage`: their trees, their ranges, recovery from mistakes in them, and their
/// canonical layout.
@Suite struct CommercialSyntaxTests {
    func dump(_ text: String, ranges: Bool = false) -> String {
        ASTDump(includeRanges: ranges).dump(Parser.parse(text).file)
    }

    func diagnostics(_ text: String) -> [String] {
        Parser.parse(text).diagnostics.map { "\($0.code.id) \($0.range.start): \($0.message)" }
    }

    @Test func grantClausesInAnyOrder() {
        let text = """
            product pack: consumable { grants coins 1_000 expires after 12 months }
            entitlement api = plan {
              grants calls 10_000 per month overage up to 5_000 priority 1
              grants calls 500 overage expires after 1 year
              grants calls 5 priority 2 expires after 90 day overage carry
            }
            """
        #expect(diagnostics(text) == [])
        #expect(dump(text) == """
            RuleFile
            ├─ Product pack: consumable
            │  └─ Grant coins 1000 expires after 12 months
            └─ Entitlement api
               ├─ Ref plan
               ├─ Grant calls 10000 per month overage up to 5000 priority 1
               ├─ Grant calls 500 overage expires after 1 years
               └─ Grant calls 5 carry overage expires after 90 days priority 2

            """)
    }

    @Test func clauseRangesSpanTheirWords() throws {
        let text = "product p: consumable { grants c 5 overage up to 7 expires after 3 weeks }"
        guard case .product(let p) = Parser.parse(text).file.declarations[0], case .grant(let g) = p.items[0].kind
        else { Issue.record("no grant"); return }
        let overage = try #require(g.overage), expiry = try #require(g.expiresAfter)
        #expect(overage.range.start.column == 36 && overage.range.end.column == 51)
        #expect(overage.cap?.value == 7)
        #expect(expiry.range.start.column == 52 && expiry.range.end.column == 73)
        #expect((expiry.count.value, expiry.unit.value) == (3, .weeks))
        #expect(g.range.end.column == 73)
        #expect("\(g)" == "c 5 overage up to 7 expires after 3 weeks")
        #expect(expiry.text == "3 weeks")
    }

    @Test func testGrantsAndViaOverage() {
        let text = """
            test "t" {
              grant pro until "2026-12-01T00:00:00Z"
              grant calls 500 per month overage up to 100 from "2026-11-01T00:00:00Z"
              grant coins unlimited
              grant calls 5 until "2026-12-01T00:00:00Z" from "2026-11-01T00:00:00Z"
              expect calls allowed via overage
              expect calls 5 allowed balance 0 via overage
            }
            """
        #expect(diagnostics(text) == [])
        #expect(dump(text) == """
            RuleFile
            └─ Test "t"
               ├─ Grant pro until "2026-12-01T00:00:00Z"
               ├─ Grant calls 500 per month overage up to 100 from "2026-11-01T00:00:00Z"
               ├─ Grant coins unlimited
               ├─ Grant calls 5 from "2026-11-01T00:00:00Z" until "2026-12-01T00:00:00Z"
               ├─ Expect calls allowed via overage
               └─ Expect calls 5 allowed balance 0 via overage

            """)
    }

    /// One mistake, one error, on its line; the items after it still parse.
    @Test func mistakesStayOnTheirLine() {
        let text = """
            entitlement e = p {
              grants calls 5 overgae
              grants calls 5 expires 12 months
              grants calls 5 expires after twelve months
              grants calls 5 overage up 5
              grants calls 5 overage overage
              grants calls 5 expires after 2 fortnights
              grants calls 7
            }
            test "t" {
              grant calls 5 frmo "2026-11-01T00:00:00Z"
              grant calls 5 until 2026
              expect calls allowed via overdraft
              grant calls 1
            }
            """
        #expect(diagnostics(text) == [
            "E113 2:18: unknown clause `overgae` in `grants`",
            "E110 3:26: expected `after` after `expires` (`expires after 12 months`), found number `12`",
            "E110 4:32: expected a number after `expires after` (`expires after 12 months`), found `twelve`",
            "E110 5:29: expected `to` after `overage up`, found number `5`",
            "E118 6:26: `overage` is given twice in this grant",
            "E113 7:34: unknown duration unit `fortnights`",
            "E113 11:17: unknown clause `frmo` in `grant`",
            "E110 12:23: expected an instant string after `until`, found number `2026`",
            "E110 13:28: expected `direct`, `credits` or `overage` after `via`, found `overdraft`",
        ])
        #expect(dump(text).contains("Grant calls 7\n"))
        #expect(dump(text).contains("Grant calls 1\n"))
        #expect(diagnostics("entitlement e = p { grants calls 5 overgae }")
                == ["E113 1:36: unknown clause `overgae` in `grants`"])
        #expect(Parser.parse("entitlement e = p { grants calls 5 overgae }").diagnostics.first?.help
                == "did you mean `overage`?")
    }

    /// A name on the grant's line that is no misspelled clause still starts the next item.
    @Test func theNextItemOnTheLineIsNotAClause() {
        #expect(diagnostics("product p: consumable { grants calls 5 overage grants coins 3 name \"P\" }") == [])
    }

    @Test func fmtWritesTheClausesInOrderAndKeepsComments() {
        let text = """
            feature calls: metered
            product p: consumable { grants calls 10 priority 1 expires after 12 months overage /* soft */ up to 5 }
            test "t" {
              grant   calls 5  overage  up to 2   until "2026-02-01T00:00:00Z" from "2026-01-01T00:00:00Z"
              expect calls allowed   via  overage // billed
            }
            """
        let formatted = Printer.format(SourceFile(path: "x", text: text))
        #expect(formatted == """
            feature calls: metered

            product p: consumable {
              grants calls 10 overage /* soft */ up to 5 expires after 12 months priority 1
            }

            test "t" {
              grant calls 5 overage up to 2 from "2026-01-01T00:00:00Z" until "2026-02-01T00:00:00Z"
              expect calls allowed via overage // billed
            }

            """)
        #expect(roundTripProblem(Array(text.utf8)) == nil)
    }
}
