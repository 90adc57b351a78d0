import EntlSyntax
import EntlTestSupport
import Testing

@Suite struct AlwaysTrueConstraintCheckTests {
    @Test func tautologiesAreReportedAtTheSmallestDisjunct() {
        assertDiagnostics("""
        product a: non_consumable
        product b: non_consumable
        product z: consumable
        entitlement e1 = 1️⃣a or not a
        entitlement e2 = b or (2️⃣z or not 4️⃣z >= 1)
        entitlement e3 = 3️⃣z >= 2 or not z >= 4
        """, [
            ExpectedDiagnostic("W304", "entitlement `e1` always holds", at: "1️⃣"),
            ExpectedDiagnostic("W304", "entitlement `e2` always holds", at: "2️⃣"),
            ExpectedDiagnostic("W305", "`z >= 1` is the same as `z`", at: "4️⃣"),
            ExpectedDiagnostic("W304", "entitlement `e3` always holds", at: "3️⃣"),
        ])
    }
}

/// `everyone`: the free tier says on purpose what W304 reports as an accident.
@Suite struct EveryoneTests {
    @Test func everyoneIsNotAnAccident() {
        assertDiagnostics("""
        product pro: non_consumable
        feature ai: metered
        entitlement free = everyone { grants ai 3 per month }
        entitlement newcomer = 1️⃣everyone and not pro { grants ai 1 }
        entitlement also = free or 2️⃣pro
        """, [ExpectedDiagnostic("W305", "`everyone` is redundant in entitlement `newcomer`", at: "1️⃣"),
              ExpectedDiagnostic("W305", "`pro` is redundant in entitlement `also`", at: "2️⃣")])
    }

    @Test func theAlwaysTrueHelpSuggestsEveryone() {
        let d = check("product a: non_consumable\nfeature f: boolean\nentitlement e = a or not a { grants f }").diagnostics
        #expect(d.map(\.code.id) == ["W304"])
        #expect(d.first?.help == "every customer gets this without buying anything; for a free tier, say so: `entitlement free = everyone { … }`")
    }

    @Test func everyoneIsReservedAndFormats() {
        assertDiagnostics("product 1️⃣everyone: non_consumable",
                          [ExpectedDiagnostic("E111", "`everyone` is a reserved word and cannot be used as a product name")])
        let text = "entitlement  free=everyone  and not(p)\nproduct p: non_consumable\n"
        #expect(Printer.format(SourceFile(path: "x", text: text)) == "entitlement free = everyone and not p\n\nproduct p: non_consumable\n")
        #expect(ASTDump(includeRanges: false).dump(Parser.parse("entitlement f = everyone").file)
            == "RuleFile\n└─ Entitlement f\n   └─ Everyone\n")
    }
}
