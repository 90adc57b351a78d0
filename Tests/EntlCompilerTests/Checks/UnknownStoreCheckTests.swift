import EntlSyntax
import EntlTestSupport
import Testing

@Suite struct UnknownStoreCheckTests {
    @Test func aMisspelledStoreIsReportedWithTheClosestOne() {
        assertDiagnostics("""
        feature f: boolean
        product p: non_consumable {
          id 1️⃣appstore "com.x.p"
          id play_store "p"
          grants f
        }
        """, [ExpectedDiagnostic("W314", "unknown store `appstore`")])
        let d = check("feature f: boolean\nproduct p: non_consumable { id appstore \"x\"; grants f }").diagnostics
        #expect(d.map(\.help) == ["did you mean `app_store`? for a store of your own, put `// entl-allow W314` above the product"])
    }

    @Test func everyWellKnownStoreIsFine() {
        let ids = ["app_store", "mac_app_store", "play_store", "amazon", "stripe", "paddle", "web", "promotional"]
            .map { "id \($0) \"x.\($0)\"" }.joined(separator: "\n  ")
        assertDiagnostics("feature f: boolean\nproduct p: non_consumable {\n  \(ids)\n  grants f\n}", [])
    }

    @Test func aCustomStoreIsAllowedWithAComment() {
        assertDiagnostics("""
        feature f: boolean
        // entl-allow W314
        product p: non_consumable { id our_shop "p-1"; grants f }
        """, [])
        // Without a close match, the help lists the known stores.
        let d = check("feature f: boolean\nproduct p: non_consumable { id our_shop \"p-1\"; grants f }").diagnostics
        #expect(d.first?.help?.hasPrefix("the known stores are app_store, mac_app_store, play_store") == true)
    }
}
