@testable import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// The tables an evaluation resolves once, in one allocation.
@Suite struct EvaluationTablesTests {
    static let rules = """
    product a: non_consumable { id stripe "a_id" }
    product b: consumable
    product c: subscription { period month }
    entitlement one = a
    entitlement two = one and b >= 2
    entitlement three = two or c
    """

    @Test func theTablesHoldPlainValues() {
        // The tables are freed without deinitializing their elements: each type must be trivial.
        #expect(_isPOD(ProductStanding.self))
        #expect(_isPOD(PurchaseStanding.self))
        #expect(_isPOD((Truth, End)?.self))
        #expect(_isPOD(Int32.self))
    }

    @Test func purchasesAreGroupedByProductInStateOrder() throws {
        let graph = compileGraph(EvaluationTablesTests.rules)
        let e = try evaluate(graph, state("""
        {"purchases": [
          {"product": "c", "status": "active", "purchased_at": "2026-01-01T00:00:00Z", "expires_at": "2026-02-01T00:00:00Z"},
          {"product": "b", "quantity": 1},
          {"product": "nothing"},
          {"product": "a_id", "store": "stripe"},
          {"product": "b", "quantity": 2, "status": "revoked"},
          {"product": "c", "status": "unknown"},
          {"product": "b", "quantity": 3}
        ]}
        """), at: "2026-01-15T00:00:00Z")
        #expect(Array(e.purchaseProduct) == [2, 1, -1, 0, 1, 2, 1])
        #expect(Array(e.byProduct) == [3, 1, 4, 6, 0, 5])
        var runs: [[Int]] = []
        for p in 0..<3 { runs.append(Array(e.purchases(of: p))) }
        #expect(runs == [[3], [1, 4, 6], [0, 5]])
        #expect(e.standings[2] == .ignored(.noProduct))
        #expect(e.standings[4] == .notOwned(.status(.revoked)))
        #expect(e.products[1].ownedQuantity == 4 && e.products[1].ownedCount == 2)
        #expect(e.products[2].ownedCount == 1 && e.products[2].unknownCount == 1)
    }

    /// Few touched products of many are kept sorted (the others read as the default standing);
    /// more than `sparseLimit` touched (or a graph of at most that many products) take one standing
    /// per product. Both read the same.
    @Test(arguments: [2, 17])
    func productStandingsReadTheSameSparseOrDense(extraPurchases: Int) throws {
        let rules = (0..<40).map { "product p\($0): consumable" }.joined(separator: "\n")
        let graph = compileGraph(rules)
        var purchases = [#"{"product": "p30", "quantity": 2}"#, #"{"product": "p7", "status": "unknown", "quantity": 5}"#,
                         #"{"product": "p30", "quantity": 3}"#]
        purchases += (0..<extraPurchases).map { #"{"product": "p\#(20 + $0 % 3)", "status": "revoked"}"# }
        let e = try evaluate(graph, state(#"{"purchases": [\#(purchases.joined(separator: ", "))], "overrides": {"p12": "purchased"}}"#),
                             at: "2026-01-15T00:00:00Z")
        for p in 0..<40 {
            let s = e.products[p]
            #expect(s.ownedCount == (p == 30 ? 2 : 0) && s.ownedQuantity == (p == 30 ? 5 : 0), "p\(p)")
            #expect(s.unknownCount == (p == 7 ? 1 : 0) && s.unknownQuantity == (p == 7 ? 5 : 0), "p\(p)")
            #expect(s.override == (p == 12 ? .purchased : nil), "p\(p)")
            #expect(s.truth == (p == 30 || p == 12 ? .true : p == 7 ? .unknown : .false), "p\(p)")
        }
    }

    @Test func anEntitlementAskedFirstComputesItsDependenciesFirst() throws {
        let graph = compileGraph(EvaluationTablesTests.rules)
        let s = state(#"{"purchases": [{"product": "a"}, {"product": "b", "quantity": 2}]}"#)
        let e = try evaluate(graph, s, at: "2026-01-15T00:00:00Z")
        #expect(e.entitlementValue(2).0 == .true)
        #expect(e.entitlementValue(1).0 == .true && e.entitlementValue(0).0 == .true)
        let without = try evaluate(graph, state(#"{"purchases": [{"product": "b", "quantity": 2}]}"#), at: "2026-01-15T00:00:00Z")
        #expect(without.entitlementValue(2).0 == .false)
    }

    @Test func concurrentFirstQueriesAgree() async throws {
        let graph = compileGraph(EvaluationTablesTests.rules)
        let s = state(#"{"purchases": [{"product": "a"}, {"product": "b", "quantity": 2, "status": "unknown"}]}"#)
        let e = try evaluate(graph, s, at: "2026-01-15T00:00:00Z")
        let answers = await withTaskGroup(of: [Decision].self) { group in
            for _ in 0..<8 {
                group.addTask { ["one", "two", "three"].map { try! e.entitlement($0).decision } }
            }
            var all: [[Decision]] = []
            for await a in group { all.append(a) }
            return all
        }
        for a in answers { #expect(a == [.allowed, .undetermined, .undetermined]) }
    }

    /// `fill` tells whether any purchase may warn, and the warnings read the purchases again only
    /// then. A state's warnings are those of the same state with a last purchase that surely warns
    /// (a store the rules name no id of, so the purchases are read again), less that purchase's
    /// own: for every state of one purchase (each product, status, store or none, and each of four
    /// values of each date: one purchase, so no other sets the flag for it), and for generated
    /// states of up to three.
    @Test func noPurchaseWarningIsLostByTheFlagFromFill() throws {
        let graph = compileGraph(EvaluationTablesTests.rules)
        let products = ["a", "a_id", "b", "c", "nothing"]
        let statuses = ["active", "trialing", "past_due", "canceled", "expired", "billing_retry", "revoked", "unknown"]
        let stores: [String?] = [nil, "stripe", "nowhere", "app_store"]
        let dates = [nil, "2026-01-01T00:00:00Z", "2026-01-10T00:00:00Z", "2026-02-01T00:00:00Z"]
        func purchase(_ product: String, _ status: String, _ store: String?, _ dates: [String?]) -> String {
            var fields = [#""product": "\#(product)""#, #""status": "\#(status)""#]
            if let store { fields.append(#""store": "\#(store)""#) }
            for (key, date) in zip(["purchased_at", "expires_at", "grace_until"], dates) {
                if let date { fields.append(#""\#(key)": "\#(date)""#) }
            }
            return "{" + fields.joined(separator: ", ") + "}"
        }
        var (warned, silent) = (0, 0)
        func compare(_ purchases: [String], _ label: String) throws {
            let sentinel = #"{"product": "nothing", "store": "nowhere"}"#
            let plain = try evaluate(graph, state(#"{"purchases": [\#(purchases.joined(separator: ", "))]}"#),
                                     at: "2026-01-15T00:00:00Z")
            let all = (purchases + [sentinel]).joined(separator: ", ")
            let flagged = try evaluate(graph, state(#"{"purchases": [\#(all)]}"#), at: "2026-01-15T00:00:00Z")
            let own = "purchases[\(purchases.count)]"
            #expect(flagged.warnings.contains { $0.path.hasPrefix(own) }, "\(label): the sentinel warns")
            #expect(plain.warnings == flagged.warnings.filter { !$0.path.hasPrefix(own) }, "\(label): \(purchases)")
            if plain.warnings.isEmpty { silent += 1 } else { warned += 1 }
        }
        for product in products {
            for status in statuses {
                for store in stores {
                    for bought in dates {
                        for expiry in dates {
                            for grace in dates {
                                try compare([purchase(product, status, store, [bought, expiry, grace])], "one purchase")
                            }
                        }
                    }
                }
            }
        }
        let cases = Int(ProcessInfo.processInfo.environment["ENTLC_PROPERTY_CASES"] ?? "") ?? 300
        var random = SeededRandom(seed: 2026_11_26)
        for k in 0..<cases {
            let purchases = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                purchase(random.pick(products), random.pick(statuses), random.pick(stores),
                         [random.pick(dates), random.pick(dates), random.pick(dates)])
            }
            try compare(purchases, "case \(k)")
        }
        // Both kinds of state came up: the comparison is not of empty lists alone.
        #expect(warned > 1000 && silent > 1000, "\(warned) warned, \(silent) silent")
    }
}
