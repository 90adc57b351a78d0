/// Per-customer grants (docs/state.md `grants`, SEMANTICS §3–§5): an entitlement's grant makes it
/// active over `[from, until)` whatever its constraint; a feature's or credit system's grant is an
/// allowance that counts from `from` like a rule set's grant, after them in the consumption
/// order's last tie-break.
extension Evaluation {
    /// The order of state grant `i` among all grants: after every grant of the rule set, in state order.
    static func stateGrantOrder(_ i: Int) -> Int { (1 << 40) + i }

    /// The indices of the state grants of entitlement `e` that cover `t`.
    func coveringGrants(ofEntitlement e: Int) -> [Int] {
        guard !state.grants.isEmpty else { return [] }
        let name = graph.entitlements[e].name, grants = state.grants  // the state read once, not per grant
        return grants.indices.filter { i in
            if case .entitlement(let n) = grants[i].target, n == name { return grants[i].covers(at) }
            return false
        }
    }

    /// Entitlement `e`'s value with its state grants: `EXPR or grant` (§3), ending at the later of
    /// the two when both hold.
    func withStateGrants(_ e: Int, _ value: (Truth, End)) -> (Truth, End) {
        guard !state.grants.isEmpty else { return value }  // most states: no list made and released
        let grants = coveringGrants(ofEntitlement: e)
        guard !grants.isEmpty else { return value }
        let end = grants.map { state.grants[$0].until.map(End.at) ?? .never }.max()!
        return (.true, value.0 == .true ? max(value.1, end) : end)
    }

    /// Of entitlement `e`'s covering state grants, the one that lasts longest (no `until` beats any,
    /// then the later `until`, then the earlier `from`, then state order): what represents it when
    /// no purchase does.
    func representingGrant(ofEntitlement e: Int) -> Int? {
        coveringGrants(ofEntitlement: e).min { a, b in
            let (x, y) = (state.grants[a], state.grants[b])
            if x.until != y.until { return (x.until.map(End.at) ?? .never) > (y.until.map(End.at) ?? .never) }
            if x.from != y.from { return x.from < y.from }
            return a < b
        }
    }

    /// Gives `body` the state grants of feature (or credit system) `f` that cover `t`, as
    /// candidates: certain, with no purchase behind them, anchored at their `from`. Only a
    /// single-use feature's grant keeps its `overage` (elsewhere a warning that means nothing: a
    /// credit system's credits are never overdrawn).
    func forEachStateGrant(of f: Int, _ body: (Candidate) -> Void) {
        guard !state.grants.isEmpty else { return }
        let name = graph.features[f].name
        for (i, g) in state.grants.enumerated() {
            guard case .feature(let n) = g.target, n == name, g.covers(at) else { continue }
            body(Candidate(grant: grant(ofStateGrant: i, of: f), certain: true, product: nil, purchase: nil,
                           quantity: 1, stateGrant: Int32(i)))
        }
    }

    /// State grant `i` (of feature or credit system `f`) as a grant, in the consumption order after
    /// the rules' grants; its `overage` only for a single-use feature.
    func grant(ofStateGrant i: Int, of f: Int) -> Grant {
        let g = state.grants[i]
        let softLimits = graph.features[f].kind == .singleUse
        return Grant(source: .state(i), amount: g.amount, interval: g.interval, carry: g.carry,
                     overage: softLimits ? g.overage : nil, priority: g.priority, order: Evaluation.stateGrantOrder(i))
    }

    /// Whether a state grant of boolean feature `f` covers `t`: its index, the first in state order.
    func grantingStateGrant(ofFeature f: Int) -> Int? {
        guard !state.grants.isEmpty else { return nil }
        let name = graph.features[f].name, grants = state.grants
        return grants.indices.first { i in
            if case .feature(let n) = grants[i].target, n == name { return grants[i].covers(at) }
            return false
        }
    }

    /// §6: the next instant after `t` at which a state grant starts or ends (conservatively, any of
    /// the state's: they are few, and each can change what an entitlement or a balance is).
    var nextStateGrantChange: Instant? {
        var next: Instant?
        for g in state.grants {
            if g.from > at { next = earliest(next, g.from) }
            if let until = g.until, until > at { next = earliest(next, until) }
        }
        return next
    }

    /// The name a state grant goes by in results.
    func stateGrantName(_ i: Int) -> String { state.grants[i].name(index: i) }
}
