/// A place in the consumption order (§5): lower `priority` first, then the grant whose current
/// window ends soonest (lifetime last), then declaration order.
struct ConsumptionKey: Comparable {
    var priority: Int64
    var end: End
    var order: Int

    static func < (a: ConsumptionKey, b: ConsumptionKey) -> Bool {
        (a.priority, a.end, a.order) < (b.priority, b.end, b.order)
    }
}

/// A grant that counts for a feature at `t` (§4.1): certain when its source is owned or active,
/// uncertain when its source's status is unknown.
struct Candidate: Sendable {
    var grant: Grant
    var certain: Bool
    /// The product behind it (the product itself, or the entitlement's representative).
    var product: Int?
    /// The purchase that anchors its windows, if any.
    var purchase: Int?
    /// Units of a consumable that multiply a product-level grant.
    var quantity: Int64
    /// No purchase is behind it (an entitlement true through `everyone` or a `not`): its windows
    /// are anchored at the state's `customer_since`, when given, and it exists from then.
    var behindNoPurchase = false
    /// The state grant it is (`grant.source` is `.state`), or the one behind it (an entitlement
    /// active through a state grant, its windows anchored at the grant's `from`); -1: none.
    var stateGrant: Int32 = -1
    /// Whether it is a candidate at `t` (a replay also keeps the grants that were candidates only
    /// at the instants of earlier uses, §5).
    var present = true
    /// §5, for a replay: how it stood for a use before `t`, a candidate from `from` until before
    /// `until`, certain when `rank` is 2, uncertain when 1. A product-level grant's purchase is
    /// read on its own at every use's instant (`own`); a lot that lapsed by `t` otherwise counts as
    /// at `t` until it lapsed, for the uses charged as the state reads at `t` (`UseReadings`).
    /// Nil: as at `t` (`present`, `certain`).
    var past: PastStanding?
    /// For an unlimited grant (it has no ledger): when it stops paying by itself, the `until` of
    /// the state grant it is or is active through (`.never`: lifetime) — its place in the
    /// consumption order, as a counted grant's window end is (`consumptionKey`). Set by the replay
    /// that keeps it.
    var ends: End = .never

    struct PastStanding {
        var from: Instant?
        var until: Instant?
        var rank: UInt8
        var own = false
    }

    /// §5: a grant instance is the grant together with the purchase (or override, or state grant)
    /// behind it.
    func isSameInstance(as other: Candidate) -> Bool { instance == other.instance }

    /// Its place in the consumption order (§5): lower `priority` first, then the grant that ends
    /// soonest, then declaration order.
    var consumptionKey: ConsumptionKey { ConsumptionKey(priority: grant.priority, end: ends, order: grant.order) }

    /// What makes an instance this one (`isSameInstance`): the grant, and what is behind it.
    struct Instance: Hashable {
        var order: Int
        var purchase: Int?
        var behindNoPurchase: Bool
        var stateGrant: Int32
        /// The product behind it, when no purchase is.
        var product: Int?
    }

    var instance: Instance {
        Instance(order: grant.order, purchase: purchase, behindNoPurchase: behindNoPurchase, stateGrant: stateGrant,
                 product: purchase == nil ? product : nil)
    }

    /// The counted allowance per window (nil: unlimited or none).
    var counted: Int64? {
        if case .count(let n) = grant.amount { return n }
        return nil
    }
}

extension Evaluation {
    /// Every grant of feature `f` whose source counts at `t`.
    func candidates(of f: Int) -> [Candidate] {
        var out: [Candidate] = []
        var last: EntitlementSource?
        forEachCandidate(of: f, last: &last) { out.append($0) }
        return out
    }

    /// An entitlement behind a grant: its value and its representative's product and purchase, or
    /// the state grant that represents it.
    typealias EntitlementSource = (entitlement: Int, truth: Truth, product: Int?, purchase: Int?,
                                   stateGrant: Int32)

    /// Gives `body` every grant of feature `f` whose source counts at `t`. `last`: the entitlement
    /// found last (the features of a credit component are often granted by the same one).
    ///
    /// `since`, for a replay whose first use is at that instant before `t`: also the grants that
    /// counted only between then and `t` as the state reads at `t` (§5) — a product-level grant's
    /// purchase that was owned at an earlier use's instant, a lot that lapsed since — not
    /// `present`, with how each stood before `t` (`Candidate.past`).
    func forEachCandidate(of f: Int, last: inout EntitlementSource?, since: Instant? = nil,
                          _ found: (Candidate) -> Void) {
        // A lot (`expires after`) counts until it lapses.
        func body(_ c: Candidate) {
            guard let lapses = lotExpiry(c), lapses <= at else { return found(c) }
            guard let since, since < lapses else { return }
            var lapsed = c
            lapsed.present = false
            if lapsed.past == nil { lapsed.past = .init(from: nil, until: lapses, rank: c.certain ? 2 : 1) }
            lapsed.past!.until = earliest(lapsed.past!.until, lapses)
            found(lapsed)
        }
        // By index: each grant read where the graph holds it (iterating the array would retain it).
        for i in graph.features[f].grants.indices {
            let g = graph.features[f].grants[i]
            switch g.source {
            case .product(let p):
                let consumable = graph.products[p].kind == .consumable
                switch products[p].override {
                case .purchased?: body(Candidate(grant: g, certain: true, product: p, purchase: nil, quantity: 1))
                case .unknown?: body(Candidate(grant: g, certain: false, product: p, purchase: nil, quantity: 1))
                case .notPurchased?: break
                case nil:
                    // A product-level grant counts once per owned purchase, with its anchor.
                    for j in purchases(of: p) {
                        let now = standings[j] == .owned || standings[j] == .unknown
                        var c = Candidate(grant: g, certain: standings[j] == .owned, product: p, purchase: j,
                                          quantity: consumable ? state.purchases[j].quantity : 1)
                        if let since {
                            // Read on its own at each earlier use: as from its purchase until its access ends
                            // (a status that is not known stays so), not owned after.
                            let (bought, end) = (state.purchases[j].purchasedAt, accessEnd(j).instant)
                            let rank = pastRank(of: j, at: bought ?? since)
                            let until = end.flatMap { pastRank(of: j, at: max($0, bought ?? $0)) == rank ? nil : $0 }
                            c.past = .init(from: bought, until: until, rank: rank, own: true)
                            let counted = rank > 0 && bought.map { $0 < at } ?? true && until.map { $0 > since } ?? true
                            guard now || counted else { continue }
                            c.present = now
                            c.certain = now ? c.certain : rank == 2
                        } else if !now {
                            continue
                        }
                        body(c)
                    }
                }
            case .entitlement(let e):
                if last?.entitlement != e {
                    let truth = entitlementValue(e).0
                    switch truth == .false ? nil : representative(of: e) {
                    case .purchase(let j)?:
                        let payer = payer(of: e, representedBy: j)
                        last = (e, truth, Int(purchaseProduct[payer]), payer, -1)
                    case .override(let p)?: last = (e, truth, p, nil, -1)
                    case .stateGrant(let i)?: last = (e, truth, nil, nil, Int32(i))
                    case nil: last = (e, truth, nil, nil, -1)
                    }
                }
                guard let source = last, source.truth != .false else { continue }
                body(Candidate(grant: g, certain: source.truth == .true, product: source.product,
                               purchase: source.purchase, quantity: 1,
                               behindNoPurchase: source.product == nil && source.stateGrant < 0,
                               stateGrant: source.stateGrant))
            case .state:
                continue  // INVARIANT: a graph holds no state grants
            }
        }
        forEachStateGrant(of: f, body)
    }

    /// When a lot lapses: a state grant with `until` and no `per`, or a rule set's grant with
    /// `expires after`, counted from the purchase behind it (or the state grant, or
    /// `customer_since`); nil when it does not, or its start is not known.
    func lotExpiry(_ c: Candidate) -> Instant? {
        if case .state(let i) = c.grant.source {
            return c.grant.interval == nil ? state.grants[i].until : nil
        }
        guard let step = c.grant.expiresAfter else { return nil }
        return anchorDates(c).existsFrom?.adding(step)
    }

    /// The most candidates feature `f` can have: one per grant, or per matched purchase of a
    /// product-level grant's product.
    func candidateBound(of f: Int) -> Int {
        graph.features[f].grants.reduce(state.grants.count) { n, g in
            guard case .product(let p) = g.source else { return n + 1 }
            return n + max(1, purchases(of: p).count)
        }
    }

    /// The most grant instances feature `f` can have at any instant, in this state: one per state
    /// grant, per matched purchase of a product-level grant's product (or its override), and per
    /// entitlement-level grant one for each thing that can represent the entitlement then (a
    /// purchase, an override, a state grant, or nothing).
    func instanceBound(of f: Int) -> Int {
        let representatives = state.purchases.count + state.overrides.count + state.grants.count + 1
        return graph.features[f].grants.reduce(state.grants.count) { n, g in
            guard case .product(let p) = g.source else { return n + representatives }
            return n + max(1, purchases(of: p).count)
        }
    }

    /// A candidate's grant, by the name of its source, and the kind of that source.
    func sourceName(_ c: Candidate) -> (name: String, kind: String) {
        switch c.grant.source {
        case .product(let p): (graph.products[p].name, "product")
        case .entitlement(let e): (graph.entitlements[e].name, "entitlement")
        case .state(let i): (stateGrantName(i), "state")
        }
    }

    /// When a candidate's grant exists from, and what anchors its windows: its purchase's
    /// `purchased_at`, both (else `period_start` anchors); a state grant's `from` (its own, or
    /// the one an entitlement is active through); with no purchase behind it, the state's
    /// `customer_since`; nil when no date is known.
    func anchorDates(_ c: Candidate) -> (existsFrom: Instant?, anchor: Instant?) {
        if c.stateGrant >= 0 {
            let from = state.grants[Int(c.stateGrant)].from
            return (from, from)
        } else if c.behindNoPurchase {
            return (state.customerSince, state.customerSince)
        } else if let j = c.purchase {
            // The purchase's dates read in place (a copy of the purchase retains each of its strings).
            let bought = state.purchases[j].purchasedAt
            // Anchored where it began, not where its current period did: a renewal that moved the
            // windows would give a yearly allowance anew every month, and charge uses already
            // recorded to other windows (§5).
            return (bought, bought ?? state.purchases[j].periodStart)
        }
        return (nil, nil)
    }

}
