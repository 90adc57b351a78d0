/// A compacted state's ledger (docs/state.md `ledger`) read against the rules and the state: each
/// entry names a grant instance by the feature, the grant's place among the feature's grants (or
/// the state grant), and what is behind it (a purchase by product, store and `purchased_at`, an
/// override, a state grant, or nothing); here those names become instances again, and instances
/// become names. An entry that names nothing any more (a purchase that left the state, other
/// rules) is a warning, and its ledger is dropped.
extension Evaluation {
    /// Component `c`'s position in `snapshot`: its entries that still name an instance, and its
    /// members' overage.
    func position(of c: Int, in snapshot: LedgerSnapshot) -> ComponentPosition? {
        let members = graph.components[c]
        var p = ComponentPosition(members: members.count)
        let names = StateGrantNames(state.grants, entries: snapshot.grants + snapshot.withUnknown)
        for (e, optimistic, ordinal) in names.ordinals(snapshot.grants).map({ ($0.0, false, $0.1) })
            + names.ordinals(snapshot.withUnknown).map({ ($0.0, true, $0.1) }) {
            guard case .instance(let instance, let f) = resolve(e, ordinal: ordinal, names: names),
                  graph.componentOf[f] == c else { continue }
            if let k = p.entry(of: instance) {
                if optimistic { p.entries[k].high = e.position }
                continue
            }
            p.entries.append(ComponentPosition.Entry(instance: instance, member: graph.componentMember[f],
                                                     low: optimistic ? nil : e.position, high: e.position))
        }
        p.diverged = p.entries.contains { $0.low != $0.high }
        for o in snapshot.overage {
            guard let f = graph.featureIndex[o.feature], graph.componentOf[f] == c else { continue }
            p.overage[graph.componentMember[f]] = o.amount
        }
        return p
    }

    /// What a snapshot entry names: a grant instance of feature `f`, or why it names none.
    enum Resolved {
        case instance(Candidate, feature: Int)
        case nothing(key: String, why: String)
    }

    /// The instance entry `e` names; `ordinal`: how many entries before it in its list name a state
    /// grant of the same feature and grant by the same name (`StateGrantNames.ordinals`).
    func resolve(_ e: LedgerSnapshot.Entry, ordinal: Int, names: StateGrantNames) -> Resolved {
        guard let f = graph.featureIndex[e.feature], graph.componentOf[f] >= 0 else {
            return .nothing(key: "feature", why: "no single-use feature or credit system `\(e.feature)` in the rules")
        }
        guard let k = e.grant else {
            // A grant to this customer of the feature itself.
            let target = StateGrant.Target.feature(graph.features[f].name)
            guard let i = e.stateGrant.flatMap({ names.grant(named: $0, target: target, ordinal: ordinal) }) else {
                return .nothing(key: "state_grant", why: "no grant of `\(e.feature)` in the state is named "
                                    + "`\(e.stateGrant ?? "")`")
            }
            return .instance(Candidate(grant: grant(ofStateGrant: i, of: f), certain: true, product: nil,
                                       purchase: nil, quantity: 1, stateGrant: Int32(i), present: false), feature: f)
        }
        guard k < graph.features[f].grants.count else {
            return .nothing(key: "grant", why: "`\(e.feature)` has \(graph.features[f].grants.count) grants in the "
                                + "rules, not a grant #\(k)")
        }
        let g = graph.features[f].grants[k]
        var c = Candidate(grant: g, certain: true, product: nil, purchase: nil, quantity: 1, present: false)
        let granting: Int? = if case .product(let p) = g.source { p } else { nil }
        if let key = e.purchase {
            // An entitlement's grant goes on through a row whose product changed since (an upgrade
            // within an App Store subscription group, a Stripe price change), as in the full history.
            let entitlement: Int? = if case .entitlement(let x) = g.source { x } else { nil }
            guard let j = purchase(key) ?? entitlement.flatMap({ purchase(changedFrom: key, behind: $0) }),
                  granting == nil || granting == Int(purchaseProduct[j]) else {
                return .nothing(key: "purchase", why: "no purchase of the state is `\(key.product)`"
                                    + (key.store.map { " at `\($0)`" } ?? "")
                                    + (key.purchasedAt.map { " bought \($0)" } ?? "")
                                    + (key.ordinal > 0 ? " (#\(key.ordinal))" : "")
                                    + ": what its ledger held is dropped")
            }
            c.purchase = j
            c.product = Int(purchaseProduct[j])
            if granting != nil, graph.products[Int(purchaseProduct[j])].kind == .consumable {
                c.quantity = state.purchases[j].quantity
            }
        } else if let name = e.override {
            guard let p = graph.productNames[name], granting == nil || granting == p else {
                return .nothing(key: "override", why: "no product `\(name)` behind this grant in the rules")
            }
            c.product = p
        } else if let name = e.stateGrant {
            guard case .entitlement(let x) = g.source,
                  let i = names.grant(named: name, target: .entitlement(graph.entitlements[x].name), ordinal: ordinal)
            else {
                return .nothing(key: "state_grant", why: "no grant in the state is named `\(name)`")
            }
            c.stateGrant = Int32(i)
        } else {
            guard granting == nil else {
                return .nothing(key: "grant", why: "a grant of a product has a purchase or an override behind it")
            }
            c.behindNoPurchase = true
        }
        return .instance(c, feature: f)
    }

    /// The purchase of this environment a key names: the `ordinal`-th one alike, in state order.
    func purchase(_ key: LedgerSnapshot.PurchaseKey) -> Int? {
        var seen = 0
        for j in state.purchases.indices where state.purchases[j].environment == environment
            && key.matches(state.purchases[j]) {
            if seen == key.ordinal { return purchaseProduct[j] >= 0 ? j : nil }
            seen += 1
        }
        return nil
    }

    /// The one purchase of this environment, of a product behind entitlement `e`, at the key's
    /// store and bought at its `purchased_at`: the key's purchase with another product now. Nil
    /// when there are none or several (which one it was is not known), and when its product now is
    /// behind another entitlement only (the grant no longer goes on through it).
    func purchase(changedFrom key: LedgerSnapshot.PurchaseKey, behind e: Int) -> Int? {
        guard let bought = key.purchasedAt else { return nil }
        let rows = state.purchases.indices.filter { j in
            state.purchases[j].environment == environment && state.purchases[j].store == key.store
                && state.purchases[j].purchasedAt == bought && purchaseProduct[j] >= 0
                && graph.entitlements[e].behind.contains { $0.product == Int(purchaseProduct[j]) }
        }
        return rows.count == 1 ? rows[0] : nil
    }

    /// The entry naming `instance` (a grant of feature `f`) at `position`.
    func snapshotEntry(_ instance: Candidate, feature f: Int, position: LedgerSnapshot.Position,
                       names: StateGrantNames) -> LedgerSnapshot.Entry {
        let name = graph.features[f].name
        if case .state(let i) = instance.grant.source {
            return LedgerSnapshot.Entry(feature: name, grant: nil, stateGrant: names.keys[i], position: position)
        }
        let k = graph.features[f].grants.firstIndex { $0.order == instance.grant.order } ?? 0
        var e = LedgerSnapshot.Entry(feature: name, grant: k, position: position)
        if let j = instance.purchase {
            let p = state.purchases[j]
            let alike = state.purchases[..<j].count { $0.environment == p.environment && $0.product == p.product
                && $0.store == p.store && $0.purchasedAt == p.purchasedAt }
            e.purchase = LedgerSnapshot.PurchaseKey(product: p.product, store: p.store, purchasedAt: p.purchasedAt,
                                                    ordinal: alike)
        } else if instance.stateGrant >= 0 {
            e.stateGrant = names.keys[Int(instance.stateGrant)]
        } else if let p = instance.product, !instance.behindNoPurchase {
            e.override = graph.products[p].name
        }
        return e
    }

    /// The error of an evaluation of a compacted state before its ledger's instant.
    static func beforeLedger(_ ledger: LedgerSnapshot, _ at: Instant) -> EvaluationError {
        EvaluationError("the state's uses before \(ledger.before) are folded into its ledger: it is evaluated at "
                        + "\(ledger.before) or later, not at \(at)")
    }

    /// What a compacted state's ledger says that these rules and this state cannot use: it was made
    /// with other rules, an entry names nothing any more or a purchase refunded since (what it paid
    /// for before the ledger's instant stays paid), a use is dated before it (charged then).
    func ledgerWarnings(into found: inout [StateError]) {
        guard let ledger = state.ledger else { return }
        let own = state.environment ?? .live
        if environment != own {
            found.append(StateError(path: "ledger", message: "the ledger holds the state's uses as \(own.rawValue) "
                                        + "evaluates them: evaluated in \(environment.rawValue), its balances may not "
                                        + "be the whole history's"))
        }
        let digest = graph.rulesDigest
        if ledger.rules != digest {
            found.append(StateError(path: "ledger.rules", message: "the ledger was compacted with other rules "
                                        + "(\(ledger.rules.prefix(12))…, these are \(digest.prefix(12))…): its "
                                        + "balances may not be theirs"))
        }
        let names = StateGrantNames(state.grants, entries: ledger.grants + ledger.withUnknown)
        var placed = Set<Candidate.Instance>()  // the grant instances the ledger holds a position of
        for (list, entries) in [("grants", ledger.grants), ("with_unknown", ledger.withUnknown)] {
            for (i, (e, ordinal)) in names.ordinals(entries).enumerated() {
                switch resolve(e, ordinal: ordinal, names: names) {
                case .nothing(let key, let why):
                    found.append(StateError(path: "ledger.\(list)[\(i)].\(key)", message: why))
                case .instance(let c, _):
                    placed.insert(c.instance)
                    // A refund after the compaction does not reach back into the folded uses; nor does
                    // any change that makes the purchase not owned where it paid for them (canceled
                    // without an end, an end moved before them): the state now says it paid for
                    // nothing then, the ledger keeps what it paid for (a review: silent).
                    guard let j = c.purchase else { continue }
                    let product = e.purchase!.product, path = "ledger.\(list)[\(i)].purchase"
                    if state.purchases[j].status == .revoked {
                        found.append(StateError(path: path, message: "`\(product)` was refunded after the uses "
                                                + "before \(ledger.before) were folded: what it paid for then stays "
                                                + "paid (docs/ledger.md)"))
                    } else if e.position.used > 0 || e.position.carried > 0 || e.position.overdrawn > 0,
                              let paid = e.position.windowStart ?? state.purchases[j].purchasedAt,
                              pastRank(of: j, at: paid) == 0 {
                        found.append(StateError(path: path, message: "`\(product)` is, as the state now says, not "
                                                + "owned at \(paid), where its grant paid for uses folded before "
                                                + "\(ledger.before): what it paid for then stays paid "
                                                + "(docs/ledger.md)"))
                    }
                }
            }
        }
        backdatedGrantWarnings(ledger, placed: placed, into: &found)
        for o in ledger.overage where graph.featureIndex[o.feature].map({ graph.componentOf[$0] < 0 }) ?? true {
            found.append(StateError(path: "ledger.overage.\(o.feature)",
                                    message: "no single-use feature or credit system `\(o.feature)` in the rules"))
        }
        let features = tables.usageFeatures(in: graph)
        for i in state.usage.indices where features[i] >= 0 && graph.componentOf[Int(features[i])] >= 0 {
            guard case .amount = state.usage[i].kind, let when = state.usage[i].at, when < ledger.before else {
                continue
            }
            found.append(StateError(path: "usage[\(i)].at", message: "\(when) is before the ledger's \(ledger.before) "
                                        + "(its uses before then are folded): the use is charged at \(ledger.before)"))
        }
    }
}

extension Evaluation {
    /// A counted grant that counts at `t` and from before the ledger's `before` (or from no known
    /// start), of which the ledger holds no position (`placed`): given after the compaction (a
    /// grant or a purchase dated back, an override), it is not charged for the uses folded then, as
    /// the whole history would charge it — the customer may have more. (Compaction keeps a
    /// position of every counted grant then, used or not.) Not said when the ledger is another
    /// environment's or other rules' (its positions may not be these grants').
    private func backdatedGrantWarnings(_ ledger: LedgerSnapshot, placed: Set<Candidate.Instance>,
                                        into found: inout [StateError]) {
        guard ledger.rules == graph.rulesDigest, environment == state.environment ?? .live else { return }
        var warned = Set<String>()
        for members in graph.components {
            for f in members {
                var last: EntitlementSource?
                forEachCandidate(of: f, last: &last) { c in
                    guard c.counted != nil, !placed.contains(c.instance) else { return }
                    let from = anchorDates(c).existsFrom
                    guard from.map({ $0 < ledger.before }) ?? true else { return }
                    let (path, what) = c.stateGrant >= 0 ? ("grants[\(c.stateGrant)].from", "this grant")
                        : c.purchase.map { ("purchases[\($0)].purchased_at", "this purchase's grants") }
                        ?? ("ledger", "`\(sourceName(c).name)`'s grant of `\(graph.features[f].name)`")
                    guard warned.insert(path).inserted else { return }
                    let since = from.map { "\($0) is before the ledger's \(ledger.before), which" }
                        ?? "it has no known start, and the ledger of the uses before \(ledger.before)"
                    found.append(StateError(path: path, message: "\(since) holds no position of \(what): the uses "
                                            + "folded then are not charged to it, as the whole history would charge "
                                            + "them (docs/ledger.md)"))
                }
            }
        }
    }
}

/// How a compacted state's ledger names the state's grants, computed once for a state: grant `i`
/// is `keys[i]`, unique among the grants of its target — its `id` (else its target) and its start,
/// `promo from 2026-10-01T00:00:00Z`, `feature calls from 2026-10-01T00:00:00Z`, then ` #2` for
/// the second of grants alike (same target, `id` and start), or the next number free — not its
/// place, which a grant added or removed before it would hand to another (as a purchase is named
/// by its product, store and `purchased_at`). A ledger written before named a grant with an `id`
/// by the `id` alone: its entries that name one `id` name those grants in turn (`ordinal`).
struct StateGrantNames {
    let keys: [String]
    private let targets: [StateGrant.Target]
    private let hasID: [Bool]
    /// Per target and name, the grants so named in state order.
    private let named: [String: [Int]]
    /// Grants with an `id`, per target and `id`, in state order (a ledger written before the
    /// ordinals named every grant of an `id` by the `id` alone).
    private let byID: [String: [Int]]
    /// The names the ledger read gives: a grant named by its own is not another entry's by its `id`.
    private let referenced: Set<String>

    /// The names of `grants`, for a ledger whose entries are `entries` (none: one being written).
    init(_ grants: [StateGrant], entries: [LedgerSnapshot.Entry] = []) {
        var keys: [String] = [], alike: [String: Int] = [:], named: [String: [Int]] = [:], byID: [String: [Int]] = [:]
        keys.reserveCapacity(grants.count)
        for (i, g) in grants.enumerated() {
            let target = StateGrantNames.describe(g.target)
            let base = "\(g.id ?? target) from \(g.from)"
            // Alike: the same target, `id` (or none) and start.
            let kind = target + "\u{0}" + (g.id.map { "id " + $0 } ?? "") + "\u{0}\(g.from)"
            var seen = alike[kind, default: 0]
            var key = base + (seen > 0 ? " #\(seen + 1)" : "")
            // Unique among its target's: an `id` spelled `promo #2` takes the next number after it.
            while named[target + "\u{0}" + key] != nil {
                seen += 1
                key = base + " #\(seen + 1)"
            }
            alike[kind] = seen + 1
            keys.append(key)
            named[target + "\u{0}" + key, default: []].append(i)
            if let id = g.id { byID[target + "\u{0}" + id, default: []].append(i) }
        }
        (self.keys, targets, hasID, self.named, self.byID) = (keys, grants.map(\.target), grants.map { $0.id != nil },
                                                              named, byID)
        referenced = Set(entries.compactMap(\.stateGrant))
    }

    private static func describe(_ target: StateGrant.Target) -> String {
        switch target {
        case .feature(let name): "feature \(name)"
        case .entitlement(let name): "entitlement \(name)"
        }
    }

    /// The grant of `target` that the `ordinal`-th entry naming it `name` names; a snapshot made
    /// before these names read `grants[3]` for one without an `id`, still understood.
    func grant(named name: String, target: StateGrant.Target, ordinal: Int) -> Int? {
        let t = StateGrantNames.describe(target) + "\u{0}"
        if let found = named[t + name], ordinal < found.count { return found[ordinal] }
        if let found = byID[t + name]?.filter({ !referenced.contains(keys[$0]) }), ordinal < found.count {
            return found[ordinal]
        }
        guard name.hasPrefix("grants["), name.hasSuffix("]"), let i = Int(name.dropFirst(7).dropLast()),
              targets.indices.contains(i), targets[i] == target, !hasID[i] else { return nil }
        return i
    }

    /// `entries` with, for each, how many entries before it name a state grant of the same feature
    /// and grant by the same name.
    func ordinals(_ entries: [LedgerSnapshot.Entry]) -> [(LedgerSnapshot.Entry, Int)] {
        var seen: [String: Int] = [:]
        return entries.map { e in
            guard let name = e.stateGrant else { return (e, 0) }
            let key = "\(e.feature)\u{0}\(e.grant ?? -1)\u{0}\(name)"
            defer { seen[key, default: 0] += 1 }
            return (e, seen[key] ?? 0)
        }
    }
}
