import EntlImport
import EntlRuntime
import EntlTestSupport
import Testing

/// RevenueCat's promotional grants (Tests/Fixtures/import/revenuecat/promotional.json and the
/// documented example) become state grants that make their entitlement active over their period.
@Suite struct PromotionalGrantAccessTests {
    static let schema = JSONSchemaValidator(repoFile: "schema/state.schema.json")

    @Test(arguments: ["revenuecat/promotional.json", "revenuecat/subscriber-example.json"])
    func theStateWithGrantsIsValid(_ path: String) throws {
        let result = try importFixtures(.revenueCat, [path])
        #expect(Self.schema.errors(result.state) == [])
        #expect(try decodedState(result).warnings == [])
    }

    @Test func aGrantIsAccessOverItsPeriod() throws {
        let state = try decodedState(try importFixtures(.revenueCat, ["revenuecat/promotional.json"]))
        let during = try evaluate(importRules, state, at: "2019-07-30T12:00:00Z")
        let proCat = try during.entitlement("pro_cat")
        #expect(proCat.decision == .allowed)
        #expect(proCat.status.rawValue == "promotional")
        #expect(proCat.expiresAt == instant("2019-08-26T01:02:16Z"))
        #expect(try during.feature("pro_features").decision == .allowed)
        #expect(try evaluate(importRules, state, at: "2019-08-26T01:02:16Z").entitlement("pro_cat").decision == .denied)
        // Lifetime: RevenueCat's end two hundred years on.
        let lifetime = try evaluate(importRules, state, at: "2100-01-01T00:00:00Z")
        #expect(try lifetime.entitlement("photos_pro").decision == .allowed)
        // A refunded grant ends at its refund.
        #expect(try during.entitlement("support").decision == .allowed)
        #expect(try evaluate(importRules, state, at: "2019-08-01T00:00:00Z").entitlement("support").decision == .denied)
        // Before a grant's start there is nothing.
        #expect(try evaluate(importRules, state, at: "2019-07-25T00:00:00Z").entitlement("pro_cat").decision == .denied)
    }

    @Test func theDocumentedExamplesGrantCountsLiveWhereItsSandboxPurchasesDoNot() throws {
        let state = try decodedState(try importFixtures(.revenueCat, ["revenuecat/subscriber-example.json"]))
        let live = try evaluate(importRules, state, at: "2019-07-26T17:40:10Z")
        #expect(try live.entitlement("pro_cat").decision == .allowed)
        #expect(try live.entitlement("pro_cat").status.rawValue == "promotional")
        #expect(try live.product("annual").decision == .denied)
    }
}
