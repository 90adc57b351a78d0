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
                if case .purchase(let j)? = representative(ofEntitlement: e) { purchase = j }
                out.append(Candidate(grant: g, certain: truth == .true, purchase: purchase, quantity: 1))
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
            let target = windows.index(containing: s)
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
        var ledger = Ledger(allowance: overflow ? .max : allowance, carry: c.grant.carry, cap: c.grant.cap,
                            priority: c.grant.priority, order: c.grant.order, position: position,
                            existsFrom: purchase?.purchasedAt?.seconds)
        if let interval = c.grant.per {
            if let anchor = purchase?.periodStart ?? purchase?.purchasedAt {
                ledger.windows = ReferenceWindows(anchor: anchor.seconds, step: ReferenceStep(interval: interval))
            } else {
                ledger.alignedInterval = interval
            }
        }
        return ledger
    }

    /// The usage records of `feature` (by name or event), in state order.
    func records(of feature: Feature) -> [(index: Int, record: UsageRecord, at: Int64)] {
        state.usage.enumerated().filter { $0.element.feature == feature.name || (feature.event != nil && $0.element.feature == feature.event) }
            .map { ($0.offset, $0.element, $0.element.at?.seconds ?? t) }
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
        let all = candidates(of: name)
        let counted = all.filter { $0.grant.amount != nil }
        let unlimitedCertain = all.contains { $0.grant.amount == nil && $0.certain }
        let unlimitedAny = all.contains { $0.grant.amount == nil }
        var changes = records(of: feature).map(\.at).filter { $0 > t }

        if feature.kind == .continuous {
            // The latest level at or before t; among records at that instant, the last in state order.
            var level: Int64 = 0
            var levelAt: Int64?
            for r in records(of: feature) where r.at <= t {
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
                           overage: unlimitedCertain ? 0 : max(0, level - certain), nextChange: changes.min())
        }

        let events = records(of: feature).compactMap { r -> (at: Int64, amount: Int64, index: Int)? in
            guard case .amount(let n) = r.record.kind, r.at <= t else { return nil }
            return (r.at, n, r.index)
        }.sorted { ($0.at, $0.index) < ($1.at, $1.index) }

        func replay(_ cs: [Candidate]) -> (balance: Int64, overage: Int64, ledgers: [Ledger]) {
            var ledgers = cs.enumerated().map { ledger($0.element, position: $0.offset) }
            let historyStart = events.first?.at ?? t
            var overage: Int64 = 0
            for event in events {
                var eligible: [Int] = []
                for i in ledgers.indices where ledgers[i].exists(at: event.at) {
                    ledgers[i].advance(to: event.at, historyStart: historyStart)
                    if ledgers[i].balance > 0 { eligible.append(i) }
                }
                eligible.sort { a, b in
                    let (x, y) = (ledgers[a], ledgers[b])
                    if x.priority != y.priority { return x.priority < y.priority }
                    let (ex, ey) = (x.currentEnd ?? .max, y.currentEnd ?? .max)
                    if ex != ey { return ex < ey }
                    if x.order != y.order { return x.order < y.order }
                    return x.position < y.position
                }
                var remaining = event.amount
                for i in eligible {
                    let taken = min(remaining, ledgers[i].balance)
                    ledgers[i].balance -= taken
                    remaining -= taken
                }
                overage = Ledger.add(overage, remaining)
            }
            var balance: Int64 = 0
            for i in ledgers.indices where ledgers[i].exists(at: t) {
                ledgers[i].advance(to: t, historyStart: historyStart)
                balance = Ledger.add(balance, ledgers[i].balance)
            }
            return (balance, overage, ledgers)
        }

        let certain = replay(counted.filter(\.certain))
        let everything = replay(counted.filter(\.certain) + counted.filter { !$0.certain })
        for l in everything.ledgers where l.exists(at: t) {
            if let end = l.currentEnd { changes.append(end) }
        }
        return Balance(low: unlimitedCertain ? nil : certain.balance, high: unlimitedAny ? nil : everything.balance,
                       overage: unlimitedCertain ? 0 : certain.overage, nextChange: changes.min())
    }

    public func feature(_ name: String, required: Int64 = 1) -> FeatureResult {
        var changes: [Int64] = nextChange(watching: watchedProducts(ofFeature: name)).map { [$0] } ?? []
        var r = decide(name, required: required, changes: &changes)
        r.validUntil = Self.instant(changes.min())
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
        var systems: [(name: String, need: Int64, balance: Balance)] = []
        for route in feature.routes {
            let need = Int128(required) * Int128(route.credits)
            let rounded = (need + Int128(route.amount) - 1) / Int128(route.amount)
            let system = balance(of: route.system)
            if let c = system.nextChange { changes.append(c) }
            systems.append((route.system, rounded > Int128(Int64.max) ? .max : Int64(rounded), system))
        }
        if direct.low.map({ $0 >= required }) ?? true {
            r.decision = .allowed
            r.via = .direct
            return r
        }
        func pays(_ s: (name: String, need: Int64, balance: Balance)) -> Bool { s.balance.low.map { $0 >= s.need } ?? true }
        if let paying = systems.first(where: pays) ?? systems.first {
            r.creditSystem = paying.name
            r.creditsRequired = paying.need
            r.creditBalance = paying.balance.low
            if pays(paying) {
                r.decision = .allowed
                r.via = .credits
                return r
            }
        }
        let maybe = direct.high.map { $0 >= required } ?? true
            || systems.contains { s in s.balance.high.map { $0 >= s.need } ?? true }
        r.decision = maybe ? .undetermined : .denied
        return r
    }
}
