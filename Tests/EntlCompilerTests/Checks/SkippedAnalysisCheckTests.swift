import EntlCompiler
import EntlSyntax
import EntlTestSupport
import Testing

/// W315: each exact lint has a budget per constraint; a constraint past one is skipped with a note
/// naming the analysis and the declaration, and the rest of the rule set keeps its warnings.
@Suite struct SkippedAnalysisCheckTests {
    /// Products `a0`…`a19` then `b0`…`b19`: in this order the diagram of the pairs below would
    /// be exponential, so the analysis orders atoms as the constraints first name them.
    static let products = (0..<20).map { "product a\($0): non_consumable\n" }.joined()
        + (0..<20).map { "product b\($0): non_consumable\n" }.joined() + "feature f: boolean\n"
    static let pairs = (0..<20).map { "(a\($0) and b\($0))" }.joined(separator: " or ")

    /// The redundant term among 20 pairs is found (the constraint is far past the 64 terms the
    /// search once stopped at); `entlc-bench`'s neighbour `Benchmarks/lint_budget.sh` times it.
    @Test func twentyPairsFindTheRedundantTerm() {
        assertDiagnostics(Self.products + """
            entitlement pairs = (1️⃣a0 and b0 and a1) or \(Self.pairs) { grants f }
            """, [ExpectedDiagnostic("W305", "`a0 and b0 and a1` is redundant in entitlement `pairs`")])
    }

    /// A long `or` of one term: each term found redundant rebuilds the combined terms around it,
    /// work counted against the budget — unbounded it cost n² (1.5 s for 4,000 terms, over a
    /// minute for 200,000). The search stops with a note after the terms it found.
    @Test func aLongChainOfRedundantTermsStopsAtTheBudget() {
        let chain = Array(repeating: "a", count: 4_000).joined(separator: " or ")
        let diagnostics = check("product a: non_consumable\nfeature f: boolean\nentitlement e = \(chain) { grants f }\n")
            .sortedDiagnostics
        let redundant = diagnostics.filter { $0.code.id == "W305" }.count
        #expect(redundant > 10 && redundant < 1_000, "\(redundant) found")
        #expect(diagnostics.filter { $0.code.id == "W315" }.map(\.message)
                == ["redundancy analysis of entitlement `e` skipped: too many combinations"])
    }

    /// Naming every `a` first forces the exponential order: the pairs' diagram spends its budget.
    /// Each skipped constraint gets one note (also those that name it); every other lint still
    /// reports, in this rule set and in the same environment.
    @Test func pastEveryBudgetTheOtherWarningsRemain() {
        let anyA = (0..<20).map { "a\($0)" }.joined(separator: " or ")
        let wide = (0..<700).map { "product w\($0): non_consumable\n" }.joined()
            + "entitlement 5️⃣wide = " + (0..<700).map { "w\($0)" }.joined(separator: " or ")
            + " or w3 { grants f }\n"
        assertDiagnostics(Self.products + """
            entitlement any_a = \(anyA) { grants f }
            entitlement 1️⃣pairs = \(Self.pairs) { grants f }
            entitlement 2️⃣more = pairs and a0 { grants f }
            feature 3️⃣gated: boolean requires more or b0
            entitlement never = 6️⃣a0 and not a0 { grants f }
            entitlement always = 7️⃣b1 or not b1 { grants f }
            entitlement dup = a2 or 8️⃣a2 { grants f }
            entitlement twin = a3 and b3 { grants f }
            entitlement 9️⃣twin2 = b3 and a3 { grants f }
            product 4️⃣unused: non_consumable

            """ + wide, [
            ExpectedDiagnostic("W315", "constraint analysis of entitlement `pairs` skipped: too many combinations",
                               at: "1️⃣", severity: .note),
            ExpectedDiagnostic("W315", "constraint analysis of entitlement `more` skipped: it names entitlement "
                               + "`pairs`, whose analysis was skipped", at: "2️⃣", severity: .note),
            ExpectedDiagnostic("W315", "constraint analysis of the requirement of feature `gated` skipped: it names "
                               + "entitlement `more`, whose analysis was skipped", at: "3️⃣", severity: .note),
            ExpectedDiagnostic("W303", "entitlement `never` can never hold", at: "6️⃣"),
            ExpectedDiagnostic("W304", "entitlement `always` always holds", at: "7️⃣"),
            ExpectedDiagnostic("W305", "`a2` is redundant in entitlement `dup`", at: "8️⃣"),
            ExpectedDiagnostic("W310", "entitlement `twin2` is active for exactly the purchases `twin` is", at: "9️⃣"),
            ExpectedDiagnostic("W301", "product `unused` is never used", at: "4️⃣"),
            ExpectedDiagnostic("W315", "redundancy analysis of entitlement `wide` skipped: too many combinations",
                               at: "5️⃣", severity: .note),
        ])
    }

    /// The note's label and help name what was not checked; `entl-allow W315` silences it.
    @Test func theNoteSaysWhichLintsDidNotRun() throws {
        let text = Self.products + "entitlement any_a = "
            + (0..<20).map { "a\($0)" }.joined(separator: " or ") + " { grants f }\n"
            + "entitlement pairs = \(Self.pairs) { grants f }\n"
        let note = try #require(check(text).diagnostics.first { $0.code.id == "W315" })
        #expect(note.severity == .note)
        #expect(note.label == "its constraint was not checked")
        #expect(note.help == "the impossible, always-true, redundant-term and equivalence lints "
                + "(W303, W304, W305, W310) did not check this constraint")
        #expect(!check(text.replacing("entitlement pairs", with: "// entl-allow W315\nentitlement pairs"))
            .diagnostics.contains { $0.code.id == "W315" })
    }

    /// A spent budget changes nothing else: random constraints (seeded) get the same diagnostics
    /// after constraints that spend their budgets as without them (the nodes a spent task made
    /// are dropped, the store stays canonical, and the others are analysed as usual).
    @Test(arguments: 0..<3)
    func aSpentBudgetChangesNothingElse(seed: Int) {
        var random = SeededRandom(seed: UInt64(seed) &+ 0x5B1D)
        func term(_ depth: Int, _ earlier: Int) -> String {
            switch random.int(0...(depth > 2 ? 1 : 5)) {
            case 0: return "p\(random.int(0...4))"
            case 1: return earlier > 0 ? "e\(random.int(0...earlier - 1))" : "z >= \(random.int(1...4))"
            case 2: return "not " + term(depth + 1, earlier)
            default:
                let op = random.pick([" and ", " or "])
                return "(" + (0..<random.int(2...3)).map { _ in term(depth + 1, earlier) }.joined(separator: op) + ")"
            }
        }
        let base = "product z: consumable\n" + (0..<5).map { "product p\($0): non_consumable\n" }.joined()
            + "feature f: boolean\n" + (0..<24).map { "entitlement e\($0) = \(term(0, $0)) { grants f }\n" }.joined()
        let heavy = Self.products.replacing("feature f: boolean\n", with: "")
            + "entitlement any_a = " + (0..<20).map { "a\($0)" }.joined(separator: " or ") + " { grants f }\n"
            + "entitlement pairs = \(Self.pairs) { grants f }\nentitlement more = pairs or a1 { grants f }\n"
        let heavyLines = heavy.split(separator: "\n").count
        let alone = check(base).sortedDiagnostics
            .map { "\($0.code.id) \($0.range.start.line):\($0.range.start.column) \($0.message)" }
        let afterSpent = check(heavy + base).sortedDiagnostics
        #expect(afterSpent.filter { $0.code.id == "W315" }.map(\.message) == [
            "constraint analysis of entitlement `pairs` skipped: too many combinations",
            "constraint analysis of entitlement `more` skipped: it names entitlement `pairs`, "
                + "whose analysis was skipped",
        ])
        let others = afterSpent.filter { $0.range.start.line > heavyLines }
            .map { "\($0.code.id) \($0.range.start.line - heavyLines):\($0.range.start.column) \($0.message)" }
        #expect(others == alone, "seed \(seed)")
        #expect(alone.contains { $0.hasPrefix("W30") }, "seed \(seed): the random rules draw no lint at all")
    }
}
