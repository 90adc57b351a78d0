import EntlRuntime
import EntlSyntax

// Features (§4) and balances (§5) for the reference evaluator.

extension ReferenceEvaluator {
    struct Candidate {
        var grant: Grant
        var certain: Bool
        /// The purchase that anchors its windows and from which it exists.
        var purchase: Int?
        var quantity: Int64
        /// An entitlement's grant with no purchase (nor override) behind it: anchored at
        /// `customer_since` when the state has one.
        var noPurchase = false
    }

    /// Every grant of `feature` whose source counts at `t`, in declaration order (a product-level
    /// grant once per owned or unknown purchase, in state order).
    func candidates(of feature: String) -> [Candidate] {
        var out: [Candidate] = []
        for g in grants where g.feature == feature {
            switch g.source {
            case .product(let p):
                switch override(of: p) {
                case .purchased?: out.append(Candidate(grant: g, certain: true, purchase: nil, quantity: 1))
                case .unknown?: out.append(Candidate(grant: g, certain: false, purchase: nil, quantity: 1))
                case .notPurchased?: break
                case nil:
                    let consumable = product(named: p)!.kind == .consumable
                    for j in purchases(of: p) where standing(j) != .notOwned {
                        out.append(Candidate(grant: g, certain: standing(j) == .owned, purchase: j,
                                             quantity: consumable ? state.purchases[j].quantity : 1))
                    }
                }
            case .entitlement(let e):
                let truth = value(expression(ofEntitlement: e)!).0
                guard truth != .false else { continue }
                var purchase: Int?
                let representative = representative(ofEntitlement: e)
                if case .purchase(let j)? = representative { purchase = j }
                out.append(Candidate(grant: g, certain: truth == .true, purchase: purchase, quantity: 1,
                                     noPurchase: representative == nil))
            }
        }
        return out
    }

    /// A grant's allowance over time, walked one window at a time.
    struct Ledger {
        var allowance: Int64
        var windows: ReferenceWindows?
        /// Calendar-aligned windows wait for the first instant they see to pick their anchor.
        var alignedInterval: String?
        var carry: Bool
        var cap: Int64?
        var priority: Int64
        var order: Int
        var position: Int
        var existsFrom: Int64?
        var window = 0
        var balance: Int64 = 0
        var started = false

        func exists(at s: Int64) -> Bool { existsFrom.map { s >= $0 } ?? true }

        mutating func advance(to s: Int64, historyStart: Int64) {
            if !started {
                started = true
                let first = existsFrom ?? historyStart
                if let interval = alignedInterval {
                    windows = ReferenceWindows(anchor: ReferenceCalendar.alignedStart(interval, containing: first),
                                               step: ReferenceStep(interval: interval))
                }
                window = windows?.index(containing: first) ?? 0
                balance = allowance
            }
            guard let windows else { return }
            let target = windows.index(containing: s, from: window)
            while window < target {
                // One boundary: the unused balance is lost, or carried (capped) into the next window.
                let carried = carry ? min(balance, cap ?? .max) : 0
                balance = Self.add(allowance, carried)
                window += 1
            }
        }

        /// The end of the current window; nil for a lifetime allowance.
        var currentEnd: Int64? { windows?.start(window + 1) }

        static func add(_ a: Int64, _ b: Int64) -> Int64 {
            let (sum, overflow) = a.addingReportingOverflow(b)
            return overflow ? .max : sum
        }
    }

    func ledger(_ c: Candidate, position: Int) -> Ledger {
        let purchase = c.purchase.map { state.purchases[$0] }
        let (allowance, overflow) = c.grant.amount!.multipliedReportingOverflow(by: c.quantity)
        // Grants behind no purchase exist from `customer_since` and are anchored there.
        let since = c.noPurchase ? state.customerSince : nil
        var ledger = Ledger(allowance: overflow ? .max : allowance, carry: c.grant.carry, cap: c.grant.cap,
                            priority: c.grant.priority, order: c.grant.order, position: position,
                            existsFrom: since?.seconds ?? purchase?.purchasedAt?.seconds)
        if let interval = c.grant.per {
            if let anchor = since ?? purchase?.periodStart ?? purchase?.purchasedAt {
                ledger.windows = ReferenceWindows(anchor: anchor.seconds, step: ReferenceStep(interval: interval))
            } else {
                ledger.alignedInterval = interval
            }
        }
        return ledger
    }

    /// The feature or credit system a usage record names, nil when none or when it is a retry (its
    /// `id` is the `id` of an earlier record). Given as `event`, it names a feature by its event
    /// name only; given as `feature`, by name first, then by event name.
    func target(ofRecord i: Int) -> String? { recordTargets[i] }

    func findTarget(ofRecord i: Int) -> String? {
        let record = state.usage[i]
        if let id = record.id, state.usage[..<i].contains(where: { $0.id == id }) { return nil }
        if !record.isEvent, features.contains(where: { $0.name == record.name }) { return record.name }
        return features.first { $0.event == record.name }?.name
    }

    /// The usage records of a feature, in state order.
    func records(of feature: Feature) -> [(index: Int, record: UsageRecord, at: Int64)] {
        state.usage.indices.filter { target(ofRecord: $0) == feature.name }
            .map { ($0, state.usage[$0], state.usage[$0].at?.seconds ?? t) }
    }

    /// The features replayed with `name`: a credit system and every single-use feature its
    /// conversions list are replayed together, and so on through shared features.
    func component(of name: String) -> [String] {
        var found: Set<String> = [name]
        var changed = true
        while changed {
            changed = false
            for system in features where system.kind == .credits {
                let listed = features.filter { f in f.kind == .singleUse && f.routes.contains { $0.system == system.name } }.map(\.name)
                let group = Set(listed + [system.name])
                if !group.isDisjoint(with: found), !group.isSubset(of: found) {
                    found.formUnion(group)
                    changed = true
                }
            }
        }
        return features.map(\.name).filter(found.contains)
    }

    struct Balance {
        /// Nil: unlimited.
        var low: Int64?
        var high: Int64?
        var overage: Int64
        /// The next window boundary of a candidate grant, or the next future usage record.
        var nextChange: Int64?
    }

    func balance(of name: String) -> Balance {
        let feature = features.first { $0.name == name }!
        if feature.kind == .continuous { return continuousBalance(feature) }
        let members = component(of: name).map { m in features.first { $0.name == m }! }
        let me = members.firstIndex { $0.name == name }!
        let allCandidates = members.map { candidates(of: $0.name) }
        // The future uses that change this balance by themselves: those of every feature and
        // system replayed with it.
        var changes: [Int64] = []
        for (i, _) in state.usage.enumerated() {
            guard let target = target(ofRecord: i), members.contains(where: { $0.name == target }) else { continue }
            let at = state.usage[i].at?.seconds ?? t
            if at > t { changes.append(at) }
        }
        // Every use of the component, in one time order (ties: state order).
        var events: [(at: Int64, amount: Int64, index: Int, member: Int)] = []
        for i in state.usage.indices {
            guard let target = target(ofRecord: i), let m = members.firstIndex(where: { $0.name == target }),
                  case .amount(let n) = state.usage[i].kind else { continue }
            let at = state.usage[i].at?.seconds ?? t
            if at <= t { events.append((at, n, i, m)) }
        }
        events.sort { ($0.at, $0.index) < ($1.at, $1.index) }

        /// Replays the uses against the candidates `keep` selects.
        func replay(_ keep: (Candidate) -> Bool) -> (balances: [Int64?], overage: [Int64], ledgers: [[Ledger]]) {
            var ledgers = allCandidates.map { cs in
                cs.filter { keep($0) && $0.grant.amount != nil }.enumerated().map { ledger($0.element, position: $0.offset) }
            }
            let unlimited = allCandidates.map { cs in cs.contains { keep($0) && $0.grant.amount == nil } }
            var overage = [Int64](repeating: 0, count: members.count)
            // Moves a member's grants to the window of instant `s` (a grant without a purchase date
            // starts its history at the first instant it is looked at).
            func touch(_ m: Int, _ s: Int64) {
                for i in ledgers[m].indices where ledgers[m][i].exists(at: s) { ledgers[m][i].advance(to: s, historyStart: s) }
            }
            /// Takes `amount` from member m's grants in order; returns what they could not cover.
            func consume(_ m: Int, _ amount: Int64, _ s: Int64) -> Int64 {
                let order = ledgers[m].indices.filter { ledgers[m][$0].exists(at: s) && ledgers[m][$0].balance > 0 }.sorted { a, b in
                    let (x, y) = (ledgers[m][a], ledgers[m][b])
                    if x.priority != y.priority { return x.priority < y.priority }
                    let (ex, ey) = (x.currentEnd ?? .max, y.currentEnd ?? .max)
                    if ex != ey { return ex < ey }
                    if x.order != y.order { return x.order < y.order }
                    return x.position < y.position
                }
                var remaining = amount
                for i in order {
                    let taken = min(remaining, ledgers[m][i].balance)
                    ledgers[m][i].balance -= taken
                    remaining -= taken
                }
                return remaining
            }
            func available(_ m: Int, _ s: Int64) -> Int64? {
                if unlimited[m] { return nil }
                return ledgers[m].filter { $0.exists(at: s) }.reduce(Int64(0)) { Ledger.add($0, $1.balance) }
            }
            for event in events {
                let m = event.member
                touch(m, event.at)
                var rest = consume(m, event.amount, event.at)
                if unlimited[m] { rest = 0 }
                // What the feature's grants cannot cover goes to the first credit system listing it
                // that covers it in full at that instant.
                if rest > 0, members[m].kind != .credits {
                    for route in members[m].routes {
                        let need128 = (Int128(rest) * Int128(route.credits) + Int128(route.amount) - 1) / Int128(route.amount)
                        let need = need128 > Int128(Int64.max) ? Int64.max : Int64(need128)
                        let s = members.firstIndex { $0.name == route.system }!
                        touch(s, event.at)
                        guard available(s, event.at).map({ $0 >= need }) ?? true else { continue }
                        _ = consume(s, need, event.at)
                        rest = 0
                        break
                    }
                }
                overage[m] = Ledger.add(overage[m], rest)
            }
            for m in members.indices { touch(m, t) }
            return (members.indices.map { available($0, t) }, overage, ledgers)
        }

        let certain = replay { $0.certain }
        let everything = replay { _ in true }
        // The window boundaries of every grant replayed with it, and grants that start later (at
        // `customer_since`).
        for ledgers in everything.ledgers {
            for l in ledgers {
                if let from = l.existsFrom, from > t { changes.append(from) }
                if l.exists(at: t), let end = l.currentEnd { changes.append(end) }
            }
        }
        return Balance(low: certain.balances[me], high: everything.balances[me],
                       overage: certain.balances[me] == nil ? 0 : certain.overage[me], nextChange: changes.min())
    }

    func continuousBalance(_ feature: Feature) -> Balance {
        let all = candidates(of: feature.name)
        let counted = all.filter { $0.grant.amount != nil }
        let unlimitedCertain = all.contains { $0.grant.amount == nil && $0.certain }
        let unlimitedAny = all.contains { $0.grant.amount == nil }
        // The latest level at or before t; among records at that instant, the last in state order.
        var level: Int64 = 0
        var levelAt: Int64?
        let records = records(of: feature)
        for r in records where r.at <= t {
            if case .level(let n) = r.record.kind, levelAt.map({ r.at >= $0 }) ?? true {
                level = n
                levelAt = r.at
            }
        }
        let sum = { (cs: [Candidate]) in
            cs.reduce(Int64(0)) { total, c in
                let (a, o1) = c.grant.amount!.multipliedReportingOverflow(by: c.quantity)
                return Ledger.add(total, o1 ? .max : a)
            }
        }
        let certain = sum(counted.filter(\.certain)), any = sum(counted)
        return Balance(low: unlimitedCertain ? nil : max(0, certain - level),
                       high: unlimitedAny ? nil : max(0, any - level),
                       overage: unlimitedCertain ? 0 : max(0, level - certain),
                       nextChange: records.map(\.at).filter { $0 > t }.min())
    }

    public func feature(_ name: String, required: Int64 = 1) -> FeatureResult {
        var changes: [Int64] = nextChange(watching: watchedProducts(ofFeature: name)).map { [$0] } ?? []
        var r = decide(name, required: required, changes: &changes)
        r.validUntil = Self.instant(changes.min())
        let feature = features.first { $0.name == name }!
        r.displayName = feature.displayName
        if feature.kind != .boolean, let unit = feature.unit { r.unit = r.balance == 1 ? unit.singular : unit.plural }
        if !r.allowed { r.unlockedBy = unlocking { $0.feature(name, required: required).allowed } }
        return r
    }

    private func decide(_ name: String, required: Int64, changes: inout [Int64]) -> FeatureResult {
        let feature = features.first { $0.name == name }!
        var r = FeatureResult(name: name, kind: feature.kind, decision: .denied, required: nil, balance: nil, unlimited: false,
                              overage: nil, via: nil, creditSystem: nil, creditsRequired: nil, creditBalance: nil,
                              validUntil: nil, reason: "", sources: [], explanation: [])
        if feature.kind == .boolean {
            var truths = grants.filter { $0.feature == name }.map { g -> Truth in
                switch g.source {
                case .product(let p): truth(ofProduct: p)
                case .entitlement(let e): value(expression(ofEntitlement: e)!).0
                }
            }
            if let requires = feature.requires { truths.append(value(requires).0) }
            if truths.contains(.true) {
                r.decision = .allowed
                r.via = .direct
            } else if truths.contains(.unknown) {
                r.decision = .undetermined
            }
            return r
        }
        let direct = balance(of: name)
        r.required = required
        r.balance = direct.low
        r.unlimited = direct.low == nil
        r.overage = direct.overage
        if let c = direct.nextChange { changes.append(c) }
        var systems: [(name: String, amount: Int64, credits: Int64, balance: Balance)] = []
        for route in feature.routes {
            let system = balance(of: route.system)
            if let c = system.nextChange { changes.append(c) }
            systems.append((route.system, route.amount, route.credits, system))
        }
        guard let low = direct.low, low < required else {
            r.decision = .allowed
            r.via = .direct
            return r
        }
        /// `ceil(units × credits / amount)` in integers.
        func cost(_ units: Int64, _ s: (name: String, amount: Int64, credits: Int64, balance: Balance)) -> Int64 {
            let c = (Int128(units) * Int128(s.credits) + Int128(s.amount) - 1) / Int128(s.amount)
            return c > Int128(Int64.max) ? .max : Int64(c)
        }
        // Credits pay the shortfall: the first system whose certain balance covers its cost.
        let shortfall = required - low
        func pays(_ s: (name: String, amount: Int64, credits: Int64, balance: Balance)) -> Bool {
            s.balance.low.map { $0 >= cost(shortfall, s) } ?? true
        }
        if let paying = systems.first(where: pays) ?? systems.first {
            r.creditSystem = paying.name
            r.creditsRequired = cost(shortfall, paying)
            r.creditBalance = paying.balance.low
            if pays(paying) {
                r.decision = .allowed
                r.via = .credits
                return r
            }
        }
        // Undetermined when the optimistic balances could make it.
        var maybe = direct.high.map { $0 >= required } ?? true
        if let high = direct.high, high < required {
            maybe = maybe || systems.contains { s in s.balance.high.map { $0 >= cost(required - high, s) } ?? true }
        }
        r.decision = maybe ? .undetermined : .denied
        // The fewest more units that allow it: the rest must be what one system can pay in full.
        let payable = systems.map { s -> Int128 in
            s.balance.low.map { Int128($0) * Int128(s.amount) / Int128(s.credits) } ?? Int128(Int64.max)
        }.max() ?? 0
        r.shortfall = Int64(max(1, Int128(shortfall) - payable))
        return r
    }
}
