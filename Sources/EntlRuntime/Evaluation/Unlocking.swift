/// §4.6: what would allow a result that is not allowed — found by evaluating, not by reading
/// the rules, so it is exact whatever the constraints, quantities, credits and usage.
extension Evaluation {
    /// A purchase of product `p` made at the evaluation instant: active, bought now, one unit; a
    /// subscription runs one billing period (a non-renewing product its `duration`).
    func boughtNow(_ p: Int) -> Purchase {
        let end = graph.products[p].kind == .subscription ? graph.products[p].period.map { at.adding($0.step) } : nil
        return Purchase(product: graph.products[p].name, status: .active, purchasedAt: at, expiresAt: end,
                        environment: environment)
    }

    /// The products among `candidates` (declaration order) any one of which, bought now on top of
    /// the state, makes `allows` true: one evaluation per candidate. A product with an override
    /// is skipped (the override decides alone, §2).
    func unlockingProducts(_ candidates: [Int], allows: (Evaluation) -> Bool) -> [String] {
        candidates.filter { p in
            guard products[p].override == nil else { return false }
            var state = self.state
            state.purchases.append(boughtNow(p))
            guard let e = try? Evaluation(graph, state: state, environment: environment, at: at, explain: false,
                                          unlock: false) else { return false }
            return allows(e)
        }.map { graph.products[$0].name }
    }

    /// The reported purchase's product id at its store: the store id it names its product by
    /// (with a `store`, a purchase always does); nil when it names the product by its rule name.
    func storeProductID(of j: Int) -> String? {
        let product = state.purchases[j].product  // the field alone, not the purchase copied
        return state.purchases[j].store != nil || graph.productNames[product] == nil ? product : nil
    }
}
