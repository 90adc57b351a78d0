import EntlCompiler
import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Testing

/// The checker on soft limits (`overage [up to N]`), lots (`expires after N UNIT`), a test's
/// `grant` and `expect … via overage`: each refusal with its code, message and place, and the
/// lowering of what it accepts.
@Suite struct CommercialCheckTests {
    static let declarations = """
        product plan: subscription { period month }
        feature export: boolean
        feature seats: metered { usage continuous }
        feature calls: metered
        credits coins { calls 1 = 2 }
        entitlement pro = plan

        """

    @Test func overageOnlyOnSingleUseFeatures() {
        assertDiagnostics(Self.declarations + """
            entitlement e = plan {
              grants export 1️⃣overage
              grants seats 5 2️⃣overage up to 3
              grants coins 10 3️⃣overage
              grants calls 10 per month overage up to 4️⃣0
              grants calls 10 overage up to 1_000_000_000_000_000
            }
            """, [
            ExpectedDiagnostic("E223", "`overage` on boolean feature `export`", at: "1️⃣"),
            ExpectedDiagnostic("E223", "`overage` on continuous metered feature `seats`", at: "2️⃣"),
            ExpectedDiagnostic("E223", "`overage` on credit system `coins`", at: "3️⃣"),
            ExpectedDiagnostic("E213", "an overage cap must be at least 1", at: "4️⃣"),
        ])
        let d = check(Self.declarations + "entitlement e = plan { grants coins 10 overage }").diagnostics
        #expect(d.map(\.label) == ["credits are prepaid"])
        #expect(d.map(\.help) == ["only single-use features (API calls, exports) have soft limits; remove `overage`"])
    }

    @Test func lotsAreCountedLifetimeGrantsOfWhatIsUsedUp() {
        assertDiagnostics(Self.declarations + """
            product pack: consumable {
              grants coins 1_000 expires after 12 months
              grants calls 10 per month 1️⃣expires after 1 month
              grants calls unlimited 2️⃣expires after 3 days
              grants seats 5 3️⃣expires after 2 weeks
              grants export 4️⃣expires after 1 year
              grants calls 10 expires after 5️⃣0 days
              grants calls 10 expires after 6️⃣101 years
              grants calls 10 expires after 1_200 months
              grants calls 10 expires after 7️⃣36_526 days
            }
            """, [
            ExpectedDiagnostic("E224", "`expires after` together with `per month`", at: "1️⃣"),
            ExpectedDiagnostic("E224", "an unlimited grant cannot expire", at: "2️⃣"),
            ExpectedDiagnostic("E224", "`expires after` on continuous metered feature `seats`", at: "3️⃣"),
            ExpectedDiagnostic("E224", "`expires after` on boolean feature `export`", at: "4️⃣"),
            ExpectedDiagnostic("E213", "the time after which a grant expires must be at least 1", at: "5️⃣"),
            ExpectedDiagnostic("E222", "`101 years` is longer than 100 years", at: "6️⃣"),
            ExpectedDiagnostic("E222", "`36_526 days` is longer than 100 years", at: "7️⃣"),
        ])
        let long = check(Self.declarations + "product p: consumable { grants calls 1 expires after 101 years }")
        #expect(long.diagnostics.map(\.help) == ["a grant without `expires after` never lapses"])
    }

    @Test func clausesParseInAnyOrderOnceEachAndMisspellingsAreNamed() {
        assertDiagnostics(Self.declarations + """
            entitlement e = plan {
              grants calls 10 expires after 2 years overage priority 1
              grants calls 10 overage 1️⃣overage
              grants calls 10 expires after 2 years 2️⃣expires after 1 year
              grants calls 10 3️⃣overgae
              grants calls 10 expires 4️⃣12 months
              grants calls 10 expires after 12 5️⃣moons
            }
            """, [
            ExpectedDiagnostic("E118", "`overage` is given twice in this grant", at: "1️⃣"),
            ExpectedDiagnostic("E118", "`expires` is given twice in this grant", at: "2️⃣"),
            ExpectedDiagnostic("E113", "unknown clause `overgae` in `grants`", at: "3️⃣"),
            ExpectedDiagnostic("E110",
                               "expected `after` after `expires` (`expires after 12 months`), found number `12`",
                               at: "4️⃣"),
            ExpectedDiagnostic("E113", "unknown duration unit `moons`", at: "5️⃣"),
        ])
        #expect(check(Self.declarations + "entitlement e = plan { grants calls 10 overgae }").diagnostics
            .map(\.help) == ["did you mean `overage`?"])
    }

    @Test func aTestGrantNamesAnEntitlementOrAnAllowance() {
        assertDiagnostics(Self.declarations + """
            test "grants" {
              at "2026-11-22T12:00:00Z"
              grant pro from "2026-11-01T00:00:00Z" until "2026-12-01T00:00:00Z"
              grant calls 500 per month overage up to 100 from "2026-11-01T00:00:00Z"
              grant coins unlimited
              grant export
              grant pro 1️⃣5 2️⃣overage
              grant 3️⃣calsl 5
              grant 4️⃣plan
              grant export 5️⃣3
              grant 6️⃣calls
              expect calls allowed via overage
            }
            """, [
            ExpectedDiagnostic("E218", "an entitlement's grant takes no amount", at: "1️⃣"),
            ExpectedDiagnostic("E218", "an entitlement's grant takes no `overage`", at: "2️⃣"),
            ExpectedDiagnostic("E201", "unknown entitlement, feature or credit system `calsl`", at: "3️⃣"),
            ExpectedDiagnostic("E204", "`plan` is a subscription, not an entitlement, feature or credit system",
                               at: "4️⃣"),
            ExpectedDiagnostic("E206", "boolean feature `export` takes no amount", at: "5️⃣"),
            ExpectedDiagnostic("E207", "metered feature `calls` needs an amount or `unlimited`", at: "6️⃣"),
        ])
        let d = check(Self.declarations + "test \"t\" {\n  grant calsl 5\n  grant calls\n}").diagnostics
        #expect(d.map(\.help) == ["did you mean `calls`?",
                                  "write e.g. `grant calls 10_000 per month` or `grant calls unlimited`"])
    }

    @Test func aTestGrantsTermsFitItsFeature() {
        assertDiagnostics(Self.declarations + """
            test "terms" {
              at "2026-11-22T12:00:00Z"
              grant coins 4 1️⃣overage
              grant seats 2 2️⃣per day
              grant calls 4 3️⃣foo
              grant calls 4 per month 4️⃣per day
              grant calls 1 from "2026-02-01T00:00:00Z" until 5️⃣"2026-01-01T00:00:00Z"
              grant calls 1 from 6️⃣"tomorrow"
            }
            """, [
            ExpectedDiagnostic("E223", "`overage` on credit system `coins`", at: "1️⃣"),
            ExpectedDiagnostic("E208", "`per` on continuous feature `seats`", at: "2️⃣"),
            ExpectedDiagnostic("E113", "unknown clause `foo` in `grant`", at: "3️⃣"),
            ExpectedDiagnostic("E118", "`per` is given twice in this item", at: "4️⃣"),
            ExpectedDiagnostic("E218", "the grant ends before it starts", at: "5️⃣"),
            ExpectedDiagnostic("E217", "\"tomorrow\" is not an RFC 3339 instant", at: "6️⃣"),
        ])
    }

    @Test func viaOverageAppliesToSingleUseFeatures() {
        assertDiagnostics(Self.declarations + """
            test "via" {
              at "2026-11-22T12:00:00Z"
              expect calls allowed via overage
              expect seats allowed 1️⃣via overage
              expect coins allowed 2️⃣via overage
              expect calls allowed via 3️⃣overdraft
            }
            """, [
            ExpectedDiagnostic("E218", "`via overage` applies only to single-use features", at: "1️⃣"),
            ExpectedDiagnostic("E218", "`via` applies only to metered features", at: "2️⃣"),
            ExpectedDiagnostic("E110", "expected `direct`, `credits` or `overage` after `via`, found `overdraft`",
                               at: "3️⃣"),
        ])
    }

    /// Lowering fills the runtime grant's soft limit and lot; the graph survives its artifact.
    @Test func lowersOverageAndExpiry() throws {
        let graph = compileGraph(Self.declarations + """
            product pack: consumable { grants coins 1_000 expires after 12 months }
            product pass: consumable { grants calls 50 expires after 2 weeks }
            entitlement e = plan { grants calls 10_000 per month overage up to 5_000 }
            entitlement f = plan { grants calls 10 overage }
            """)
        // calls: pass, e, f; coins: pack (features in declaration order, grants in declaration order).
        let grants = graph.live.features.flatMap(\.grants)
        #expect(grants.map(\.overage) == [nil, .upTo(5_000), .unbounded, nil])
        #expect(grants.map(\.expiresAfter) == [CalendarStep(months: 0, seconds: 14 * 86_400), nil, nil,
                                                CalendarStep(months: 12, seconds: 0)])
        let loaded = try RuleGraphArtifact(bytes: RuleGraphArtifact.encode(graph, compiler: "test")).graph
        #expect(loaded.live.features.flatMap(\.grants).map(\.overage) == grants.map(\.overage))
        #expect(loaded.live.features.flatMap(\.grants).map(\.expiresAfter) == grants.map(\.expiresAfter))
    }
}
