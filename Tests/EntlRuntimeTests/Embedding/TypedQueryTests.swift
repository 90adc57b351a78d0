import EntlCompiler
import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Testing

/// The typed identifiers `entlc gen swift examples/api.entl` wrote (Generated/APIIdentifiers.swift,
/// compiled into this test target) ask the same questions as the string names.
@Suite struct TypedQueryTests {
    @Test func typedQueriesAnswerAsStringQueries() throws {
        let graph = compileGraph(try readRepoFile("examples/api.entl"))
        let tracker = try JSONPurchaseTracker(json: Array(readRepoFile("examples/api.state.json").utf8))
        let evaluator = Evaluator(graph: graph, tracker: tracker)
        let at = instant("2026-11-22T12:00:00Z")
        #expect(EntlFeature.allCases.map(\.name) + EntlCreditSystem.allCases.map(\.name)
                == graph.live.features.filter { $0.kind != .credits }.map(\.name) + graph.live.features.filter { $0.kind == .credits }.map(\.name))
        for feature in EntlFeature.allCases {
            for amount: Int64 in [1, 5_000, 1_000_000] {
                #expect(try evaluator.entitled(feature, requiredBalance: amount, at: at)
                        == evaluator.entitled(feature: feature.name, requiredBalance: amount, at: at))
            }
        }
        for credits in EntlCreditSystem.allCases {
            #expect(try evaluator.entitled(credits: credits, requiredBalance: 10, at: at) == evaluator.entitled(feature: credits.name, requiredBalance: 10, at: at))
        }
        for product in EntlProduct.allCases {
            #expect(try evaluator.entitled(product: product, at: at) == evaluator.entitled(product: product.name, at: at))
            #expect(graph.live.products[graph.live.productIndex[product.name]!].storeIDs.map(\.id) == Array(product.storeIDs.values))
        }
        for entitlement in EntlEntitlement.allCases {
            #expect(try evaluator.entitlement(entitlement, at: at) == evaluator.entitlement(entitlement.name, at: at))
        }
        #expect(EntlFeature.apiCalls.kind == .singleUse)
        #expect(EntlFeature.apiCalls.unitPlural == "calls")
        #expect(EntlProduct.apiProMonthly.storeIDs == ["stripe": "price_forecast_pro_monthly"])
        #expect(try evaluator.unlockingProducts(.historyAccess, at: instant("2027-03-01T00:00:00Z")) == [.apiProMonthly, .apiProAnnual])
        let evaluation = try evaluator.evaluation(at: at)
        #expect(try evaluation.feature(.apiCalls, required: 3) == evaluation.feature("api_calls", required: 3))
    }
}
