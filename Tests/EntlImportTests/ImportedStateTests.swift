import EntlImport
import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// What every import gives: a valid state (the strict decoder and the JSON Schema accept it), the
/// same bytes every time (Tests/Fixtures/import/expected/), and one customer; with the rules' catalog,
/// warnings for what the rules would ignore.
@Suite struct ImportedStateTests {
    static let schema = JSONSchemaValidator(repoFile: "schema/state.schema.json")

    /// Every fixture but the refused ones, with its vendor.
    static let fixtures: [(vendor: Vendor, path: String)] = Vendor.allCases.flatMap { vendor in
        let directory = repoPath("Tests/Fixtures/import/" + vendor.rawValue)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return files.sorted().map { (vendor, vendor.rawValue + "/" + $0) }
    }

    @Test func everyVendorHasFixtures() {
        for vendor in Vendor.allCases { #expect(Self.fixtures.filter { $0.vendor == vendor }.count >= 10, "\(vendor)") }
    }

    @Test(arguments: fixtures.map(\.path))
    func theStateIsTheExpectedOneAndValid(_ path: String) throws {
        let vendor = Vendor(rawValue: String(path.prefix { $0 != "/" }))!
        let result = try importFixtures(vendor, [path])
        let name = (path as NSString).deletingPathExtension + ".state.json"
        assertGolden(String(decoding: result.json, as: UTF8.self), at: "Tests/Fixtures/import/expected/" + name)
        #expect(try importFixtures(vendor, [path]).json == result.json)
        #expect(Self.schema.errors(result.state) == [])
        let decoded = try PurchaseState(json: result.json, options: StateDecodingOptions(strict: true))
        #expect(decoded.purchases.count == result.purchaseCount)
        #expect(stateProblem(ofImport: result) == nil)
        // What the fixtures' rules cannot make sense of would be a warning: there is none, so an
        // imported state passes `eval --strict` (in each environment it has purchases of).
        for environment in Set(decoded.purchases.map(\.environment)).union([.live]) {
            #expect(throws: Never.self) {
                try Evaluation(graph: importRules, state: decoded, environment: environment, at: instant("2026-06-01T00:00:00Z"),
                               strict: true)
            }
        }
    }

    @Test func productIDsTheRulesDoNotMapAreWarningsNamingIDAndStore() throws {
        let catalog = ProductCatalog(graph: importRules)
        let doc = ImportDocument(name: "sub.json", bytes: Array(#"""
            {"object": "subscription", "id": "sub_1", "status": "active", "livemode": true, "created": 1679609767,
             "customer": "cus_1", "items": {"object": "list", "data": [
               {"id": "si_1", "price": {"id": "price_1MowQULkdIwHu7ixraBm864M"}, "current_period_start": 1679609767,
                "current_period_end": 1682288167},
               {"id": "si_2", "price": {"id": "price_unknown"}, "current_period_start": 1679609767,
                "current_period_end": 1682288167}]}}
            """#.utf8))
        let result = try StateImporter.importState(from: .stripe, documents: [doc],
                                                   options: ImportOptions(catalog: catalog))
        #expect(result.warnings.map(\.description) == [
            "sub.json: items.data[1]: no product of the rules has id stripe \"price_unknown\": the purchase is ignored",
        ])
        let liveOnly = ProductCatalog(productIDs: [.live: [StoreID(store: "app_store", id: "com.example.product")]])
        let sandbox = try importFixtures(.appStore, ["app-store/sandbox.json"], catalog: liveOnly)
        #expect(sandbox.warnings.map(\.message) == [
            "no product of the rules has id app_store \"com.example.product\" in the test environment: "
                + "the purchase is ignored",
        ])
        #expect(try importFixtures(.appStore, ["app-store/active.json"], catalog: catalog).warnings == [])
    }

    @Test func grantsOfEntitlementsTheRulesLackAreWarnings() throws {
        let catalog = ProductCatalog(productIDs: [:], entitlements: [.live: ["pro_cat", "photos_pro"]])
        let result = try importFixtures(.revenueCat, ["revenuecat/promotional.json"], catalog: catalog)
        #expect(result.warnings.map(\.message).contains("no entitlement `support` in the rules: the grant is ignored"))
        #expect(!result.warnings.map(\.message).contains { $0.contains("`pro_cat`") })
    }

    @Test func twoCustomersAreRefused() throws {
        let other = ImportDocument(name: "other.json", bytes: Array(#"""
            {"subscriber": {"original_app_user_id": "someone-else", "subscriptions": {}}}
            """#.utf8))
        let error = #expect(throws: ImportIssue.self) {
            try StateImporter.importState(from: .revenueCat, documents: [try fixture("revenuecat/active.json"), other])
        }
        #expect(error?.description == "other.json: subscriber.original_app_user_id: customer \"someone-else\" is "
            + "not the customer \"XXX-XXXXX-XXXXX-XX\" of Tests/Fixtures/import/revenuecat/active.json: "
            + "subscriber.original_app_user_id: one state holds one customer")
    }

    @Test func theSamePurchaseReportedTwiceCountsOnce() throws {
        let result = try importFixtures(.play, ["play/product-purchased.json", "play/product-purchased.json"])
        #expect(result.purchaseCount == 1)
        #expect(result.warnings.map(\.message) == [
            "play_store order GPA.3371-1234-5678-10001 was already reported at "
                + "Tests/Fixtures/import/play/product-purchased.json; the later report is used",
        ])
        let state = try decodedState(result)
        #expect(try evaluate(importRules, state, at: "2023-11-10T00:00:00Z").product("coins_100").quantity == 3)
        let rc = try importFixtures(.revenueCat, Array(repeating: "revenuecat/non-subscriptions.json", count: 2))
        #expect(rc.purchaseCount == 5)
    }

    /// The fuzz target's invariants (Tests/EntlTestSupport/ImportInvariants.swift) over every fixture
    /// read as every vendor with every option, and over every input the fuzzer found
    /// (Tests/Fixtures/fuzz/import/).
    @Test func theFuzzInvariantsHoldForEveryFixtureAndFind() throws {
        var inputs: [[UInt8]] = []
        for (_, path) in Self.fixtures {
            let bytes = try fixture(path).bytes
            for flags in UInt8(0)..<16 { inputs.append([flags] + bytes) }
        }
        let finds = repoPath("Tests/Fixtures/fuzz/import")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: finds)) ?? [] {
            inputs.append(Array(try Data(contentsOf: URL(fileURLWithPath: finds + "/" + name))))
        }
        #expect(inputs.count >= 16 * 80)
        for input in inputs {
            if let problem = importProblem(input) {
                Issue.record("\(problem): \(String(decoding: input.prefix(200), as: UTF8.self))")
            }
        }
    }

    @Test func theOutputIsPrettyAndEndsInANewline() throws {
        let result = try importFixtures(.stripe, ["stripe/subscription-active.json"])
        let text = String(decoding: result.json, as: UTF8.self)
        #expect(text.hasPrefix(
            "{\n  \"customer\": \"cus_Na6dX7aXxi11N4\",\n  \"purchases\": [\n    {\n      \"product\": "))
        #expect(text.hasSuffix("}\n"))
    }
}
