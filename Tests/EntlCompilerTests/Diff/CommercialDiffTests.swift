import EntlCompiler
import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Testing

/// `entlc diff` on soft limits and lots: a grant that loses `overage`, gets a lower `overage up
/// to`, a shorter `expires after`, or an `expires after` it did not have, takes something from
/// existing customers (D403); the reverse changes are gains (D102).
@Suite struct CommercialDiffTests {
    static let plans = """
        product monthly: subscription { period month }
        product annual: subscription { period year }
        feature calls: metered

        """

    /// "CODE line:column message" of the findings in the live environment.
    func diff(_ before: String, _ after: String) -> [String] {
        let old = check(Self.plans + "entitlement pro = monthly { grants \(before) }", path: "old.entl")
        let new = check(Self.plans + "entitlement pro = monthly { grants \(after) }", path: "new.entl")
        #expect(!old.hasErrors && !new.hasErrors, "\(old.diagnostics.map(\.message)) \(new.diagnostics.map(\.message))")
        return RuleDiff.compare(old: old, new: new, since: instant("2026-06-01T00:00:00Z"), environments: [.live])
            .findings.map { "\($0.code.id) \($0.range.start.line):\($0.range.start.column) \($0.message)" }
    }

    static let owner = "a customer who owns only `monthly`"

    @Test(arguments: [
        ("calls 100 per month overage", "calls 100 per month", "100 per month overage → 100 per month"),
        ("calls 100 per month overage up to 50", "calls 100 per month overage up to 20",
         "100 per month overage up to 50 → 100 per month overage up to 20"),
        ("calls 100 per month overage", "calls 100 per month overage up to 1_000_000",
         "100 per month overage → 100 per month overage up to 1,000,000"),
        ("calls 100 expires after 12 months", "calls 100 expires after 6 months",
         "100 expires after 12 months → 100 expires after 6 months"),
        ("calls 100", "calls 100 expires after 10 years", "100 → 100 expires after 10 years"),
        // A year is 365 or 366 days; a month may have 31.
        ("calls 100 expires after 1 year", "calls 100 expires after 364 days",
         "100 expires after 1 year → 100 expires after 364 days"),
        ("calls 100 expires after 1 month", "calls 100 expires after 30 days",
         "100 expires after 1 month → 100 expires after 30 days"),
        // A month may have 28 days.
        ("calls 100 expires after 30 days", "calls 100 expires after 1 month",
         "100 expires after 30 days → 100 expires after 1 month"),
    ])
    func aSoftLimitOrALotThatShrinksIsBreaking(_ before: String, _ after: String, _ change: String) {
        #expect(diff(before, after).filter { $0.hasPrefix("D4") }
                == ["D403 4:29 `calls` shrinks for \(Self.owner): \(change)"])
    }

    /// A grant with no reset is given once; one that resets comes again window after window. Once
    /// had counted in every window: `1,000 per year` → `1,000` was a gain (D102).
    @Test(arguments: [
        ("calls 1_000 per year", "calls 1_000", "1,000 per year → 1,000"),
        ("calls 1_000 per month", "calls 12_000", "1,000 per month → 12,000"),
        ("calls 100 per year", "calls 100 expires after 1 year", "100 per year → 100 expires after 1 year"),
        ("calls 100 per month overage up to 50", "calls 100 per month overage up to 10; grants calls 1 overage up to 1_000",
         "100 per month overage up to 50 → 100 per month overage up to 10 + 1 overage up to 1,000"),
        ("calls 1_000 per month", "calls 500 per month; grants calls 100_000",
         "1,000 per month → 500 per month + 100,000"),
        // A yearly grant had been in no comparison at all: any cut of it passed unseen.
        ("calls 1_000 per year", "calls 10 per year", "1,000 per year → 10 per year"),
        ("calls 1_000 per half_year", "calls 999 per half_year", "1,000 per half_year → 999 per half_year"),
    ])
    func aRecurringGrantMadeOnceIsBreaking(_ before: String, _ after: String, _ change: String) {
        #expect(diff(before, after).filter { $0.hasPrefix("D4") }
                == ["D403 4:29 `calls` shrinks for \(Self.owner): \(change)"])
    }

    /// In a situation that holds at least 2 units, a per-unit grant counts twice: `100 for each
    /// pack + 500 at >= 2` → `400 for each pack` gives more for every quantity from 2 (it had been
    /// compared at one unit, and reported as a loss).
    @Test func aPerUnitGrantCountsTheUnitsTheSituationHolds() {
        let old = check("credits coins\nproduct pack: consumable { grants coins 100 }\n"
                        + "entitlement bulk = pack >= 2 { grants coins 500 }", path: "old.entl")
        let new = check("credits coins\nproduct pack: consumable { grants coins 400 }\n"
                        + "entitlement bulk = pack >= 2", path: "new.entl")
        let findings = RuleDiff.compare(old: old, new: new, since: instant("2026-06-01T00:00:00Z"), environments: [.live])
            .findings.filter { $0.code.id == "D403" || $0.code.id == "D402" }
        #expect(findings.isEmpty, "\(findings.map(\.message))")
        // Caps are not multiplied: one purchase of 2 units overdraws 50 + 15 before, 60 after.
        let capped = RuleDiff.compare(
            old: check("feature calls: metered\nproduct pack: consumable { grants calls 100 per month overage up to 50 }\n"
                       + "entitlement bulk = pack >= 2 { grants calls 1 per month overage up to 15 }", path: "old.entl"),
            new: check("feature calls: metered\nproduct pack: consumable { grants calls 100 per month overage up to 60 }\n"
                       + "entitlement bulk = pack >= 2 { grants calls 1 per month }", path: "new.entl"),
            since: instant("2026-06-01T00:00:00Z"), environments: [.live])
        #expect(capped.findings.map(\.code.id).contains("D403"), "\(capped.findings.map(\.message))")
    }

    /// A grant given once beside one that resets takes nothing; more that resets beside it neither.
    @Test func moreThatResetsOrAGrantBesideItTakesNothing() {
        #expect(diff("calls 1_000 per month", "calls 1_000 per month; grants calls 500").filter { $0.hasPrefix("D4") }
                .isEmpty)
        #expect(diff("calls 1_000 per month; grants calls 500", "calls 2_000 per month; grants calls 500")
                .filter { $0.hasPrefix("D4") }.isEmpty)
    }

    /// A consumable's own grant counts once per unit held, an entitlement's once: moving it to an
    /// entitlement, or splitting it between the two, takes from a customer with two units.
    @Test(arguments: [
        ("product pack: consumable { grants coins 100 }",
         "product pack: consumable\nentitlement packs = pack { grants coins 100 }", "100 for each `pack` → 100"),
        ("product pack: consumable { grants coins 100 }",
         "product pack: consumable { grants coins 50 }\nentitlement packs = pack { grants coins 50 }",
         "100 for each `pack` → 50 for each `pack` + 50"),
    ])
    func aPerUnitGrantMadeOnceIsBreaking(_ before: String, _ after: String, _ change: String) {
        let old = check("credits coins\n" + before, path: "old.entl"), new = check("credits coins\n" + after, path: "new.entl")
        let findings = RuleDiff.compare(old: old, new: new, since: instant("2026-06-01T00:00:00Z"), environments: [.live])
            .findings.filter { $0.code.id.hasPrefix("D4") }.map { "\($0.code.id) \($0.message)" }
        #expect(findings == ["D403 `coins` shrinks for a customer who owns only `pack`: \(change)"])
        // Back the other way, and the same grant on the product with more beside it: nothing lost.
        let back = RuleDiff.compare(old: new, new: old, since: instant("2026-06-01T00:00:00Z"), environments: [.live])
        #expect(back.findings.filter { $0.code.id.hasPrefix("D4") }.map(\.message) == ["entitlement `packs` is removed"])
    }

    @Test(arguments: [
        ("calls 100 per month", "calls 100 per month overage up to 50",
         "100 per month → 100 per month overage up to 50"),
        ("calls 100 per month overage up to 50", "calls 100 per month overage",
         "100 per month overage up to 50 → 100 per month overage"),
        ("calls 100 expires after 6 months", "calls 100 expires after 12 months",
         "100 expires after 6 months → 100 expires after 12 months"),
        ("calls 100 expires after 6 months", "calls 100", "100 expires after 6 months → 100"),
        ("calls 100 expires after 28 days", "calls 100 expires after 1 month",
         "100 expires after 28 days → 100 expires after 1 month"),
        // Twelve months are 365 or 366 days, never 371.
        ("calls 100 expires after 12 months", "calls 100 expires after 53 weeks",
         "100 expires after 12 months → 100 expires after 53 weeks"),
    ])
    func theReverseIsAGain(_ before: String, _ after: String, _ change: String) {
        #expect(diff(before, after) == ["D102 4:29 `calls` grows for \(Self.owner): \(change)"])
    }

    @Test(arguments: [
        ("calls 100 expires after 1 year", "calls 100 expires after 12 months"),
        ("calls 100 per month overage up to 50 priority 1", "calls 100 per month priority 2 overage up to 50"),
        ("calls 100 expires after 2 weeks", "calls 100 expires after 14 days"),
    ])
    func theSameTermsWrittenOtherwiseAreNoChange(_ before: String, _ after: String) {
        #expect(diff(before, after) == [])
    }

    /// Lots and lifetime allowances compare by what lasts at least as long: a lot split in two
    /// that last as long covers it, one that lapses sooner does not.
    @Test func lotsAddUpByHowLongTheyLast() {
        #expect(diff("calls 100 expires after 12 months",
                     "calls 60 expires after 12 months; grants calls 40 expires after 2 years").filter {
            $0.hasPrefix("D4")
        } == [])
        #expect(diff("calls 100 expires after 12 months",
                     "calls 60 expires after 12 months; grants calls 40 expires after 3 months")
                == ["D403 4:29 `calls` shrinks for \(Self.owner): 100 expires after 12 months → "
                    + "60 expires after 12 months + 40 expires after 3 months"])
    }

    /// Losing the soft limit is offered back to existing customers as a legacy entitlement with
    /// the old grant; with it, nothing breaks.
    @Test func aLostSoftLimitSuggestsTheOldGrantForExistingCustomers() throws {
        let old = check(Self.plans + "entitlement pro = monthly or annual { grants calls 100 per month overage }")
        let newText = Self.plans + "entitlement pro = monthly or annual { grants calls 100 per month }"
        let found = RuleDiff.compare(old: old, new: check(newText), since: instant("2026-06-01T00:00:00Z"),
                                     environments: [.live]).findings
        #expect(found.map(\.code.id) == ["D403"])
        let help = try #require(found.first?.help)
        #expect(help == "to keep it for what was bought before 2026-06-01T00:00:00Z: `entitlement pro_legacy = "
                + "monthly purchased before \"2026-06-01T00:00:00Z\" or annual purchased before "
                + "\"2026-06-01T00:00:00Z\" { grants calls 100 per month overage }`")
    }

    /// A pack's lot counts per purchase and unit; an entitlement's grant once: no legacy
    /// entitlement can give a shorter lot back, so none is suggested.
    @Test func aProductsShorterLotSuggestsNoLegacyEntitlement() throws {
        let rules = "product pack: consumable { grants cr 100 expires after %@ }\nfeature cr: metered\n"
        let old = check(rules.replacingOccurrences(of: "%@", with: "12 months"))
        let new = check(rules.replacingOccurrences(of: "%@", with: "6 months"))
        let found = RuleDiff.compare(old: old, new: new, since: instant("2026-06-01T00:00:00Z"),
                                     environments: [.live]).findings
        #expect(found.map(\.code.id) == ["D403"])
        #expect(found.first?.help == nil)
    }
}
