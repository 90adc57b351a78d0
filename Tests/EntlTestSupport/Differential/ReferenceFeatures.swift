import EntlRuntime
import EntlSyntax

// Features (§4) and balances (§5) for the reference evaluator.

extension ReferenceEvaluator {
    struct Candidate {
        var grant: Grant
        var certain: Bool
        /// The purchase that anchors its windows and from which it exists.
        var purchase: Int?
        /// The product overridden to `purchased` behind it, if that is what represents it.
        var overridden: String?
        var quantity: Int64
        /// An entitlement's grant with no purchase (nor override) behind it: anchored at
        /// `customer_since` when the state has one.
        var noPurchase = false
        /// The state grant it is, or that the entitlement granting it is active through: anchored
        /// at its `from`.
        var stateGrant: Int?

        /// §5: a grant instance is the grant together with the purchase behind it.
        var instance: String { "\(grant.order)|\(purchase ?? -1)|\(overridden ?? "")|\(noPurchase)|\(stateGrant ?? -1)" }
    }

    /// Every grant of `feature` whose source counts at `t`, in declaration order (a product-level
    /// grant once per owned or unknown purchase, in state order).
    func candidates(of feature: String) -> [Candidate] {
        var out: [Candidate] = []
        for g in grants where g.feature == feature {
            switch g.source {
            case .product(let p):
                switch override(of: p) {
                case .purchased?: out.append(Candidate(grant: g, certain: true, purchase: nil, overridden: p, quantity: 1))
                case .unknown?: out.append(Candidate(grant: g, certain: false, purchase: nil, overridden: p, quantity: 1))
                case .notPurchased?: break
                case nil:
                    let consumable = product(named: p)!.kind == .consumable
                    for j in purchases(of: p) where standing(j) != .notOwned {
                        out.append(Candidate(grant: g, certain: standing(j) == .owned, purchase: j,
                                             quantity: consumable ? state.purchases[j].quantity : 1))
                    }
                }
            case .entitlement(let e):
                let truth = entitlementValue(e).0
                guard truth != .false else { continue }
                var purchase: Int?, overridden: String?, stateGrant: Int?
                let representative = representative(ofEntitlement: e)
                switch representative {
                // §5 (changed): the entitlement's grants are paid through the owned purchase behind
                // it bought first (dated before undated), not the one lasting longest, which
                // changes as the renewals of two subscriptions leapfrog.
                case .purchase?: purchase = firstBought(behindEntitlement: e)
                case .override(let p)?: overridden = p
                case .stateGrant(let i)?: stateGrant = i
                case nil: break
                }
                out.append(Candidate(grant: g, certain: truth == .true, purchase: purchase, overridden: overridden, quantity: 1,
                                     noPurchase: representative == nil, stateGrant: stateGrant))
            case .state:
                break
            }
        }
        // The state grants of the feature covering `t`: certain, after the rule set's grants.
        for (i, sg) in state.grants.enumerated() {
            guard case .feature(let f) = sg.target, f == feature, grantCovers(i) else { continue }
            var g = Grant(source: .state(i), feature: f, amount: nil, per: sg.interval?.rawValue, carry: sg.carry != nil,
                          cap: nil, priority: sg.priority, order: (1 << 40) + i)
            if case .count(let n) = sg.amount { g.amount = n }
            if case .upTo(let n)? = sg.carry { g.cap = n }
            // Only a single-use feature's grant has a soft limit; elsewhere `overage` is a warning
            // and means nothing (a credit system's credits are never overdrawn).
            if let o = sg.overage, features.first(where: { $0.name == f })?.kind == .singleUse {
                g.overage = true
                if case .upTo(let n) = o { g.overageCap = n }
            }
            out.append(Candidate(grant: g, certain: true, purchase: nil, overridden: nil, quantity: 1, stateGrant: i))
        }
        return out
    }

    /// Whether a state grant of a boolean feature covers `t`.
    func stateGrantGrants(_ feature: String) -> Bool {
        state.grants.indices.contains { i in
            if case .feature(let f) = state.grants[i].target, f == feature { return grantCovers(i) }
            return false
        }
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
        /// A lot's lapse: the end of its single window.
        var expiry: Int64?
        /// The `until` of the state grant behind it: it pays nothing after, whatever its windows.
        var until: Int64?
        var overage = false
        var overageCap: Int64?
        var window = 0
        var balance: Int64 = 0
        /// What was overdrawn in the current window.
        var overdrawn: Int64 = 0
        var started = false

        /// From its start (when known), and until a lot lapses.
        func exists(at s: Int64) -> Bool { existsFrom.map { s >= $0 } ?? true && expiry.map { s < $0 } ?? true }

        /// Moves to the window containing `s`. A grant with no known start (no purchase date) has
        /// a full allowance in every window, however early, and never carries.
        mutating func advance(to s: Int64) {
            if !started {
                started = true
                let first = existsFrom ?? s
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
                let carried = carry && existsFrom != nil ? min(balance, cap ?? .max) : 0
                balance = Self.add(allowance, carried)
                overdrawn = 0
                window += 1
            }
        }

        /// The end of the current window; a lot's lapse; nil for a lifetime allowance.
        var currentEnd: Int64? { windows?.start(window + 1) ?? expiry }

        /// §5's "the grant whose current window ends soonest", read for a grant that ends inside
        /// a window (a state grant's `until`): the earlier of the two; `.max` for never.
        var orderEnd: Int64 { min(currentEnd ?? .max, until ?? .max) }

        /// What may still be overdrawn in this window: 0 without `overage`, nil without a cap.
        var overdraftLeft: Int64? {
            guard overage else { return 0 }
            return overageCap.map { max(0, $0 - overdrawn) }
        }

        static func add(_ a: Int64, _ b: Int64) -> Int64 {
            let (sum, overflow) = a.addingReportingOverflow(b)
            return overflow ? .max : sum
        }
    }

    func ledger(_ c: Candidate) -> Ledger {
        let purchase = c.purchase.map { state.purchases[$0] }
        let (allowance, overflow) = c.grant.amount!.multipliedReportingOverflow(by: c.quantity)
        // Grants behind no purchase exist from `customer_since` and are anchored there; state grants
        // (and entitlements active through one) from its `from`.
        let since = c.stateGrant.map { state.grants[$0].from } ?? (c.noPurchase ? state.customerSince : nil)
        var ledger = Ledger(allowance: overflow ? .max : allowance, carry: c.grant.carry, cap: c.grant.cap,
                            priority: c.grant.priority, order: c.grant.order, position: c.purchase ?? -1,
                            existsFrom: since?.seconds ?? purchase?.purchasedAt?.seconds)
        ledger.overage = c.grant.overage
        ledger.overageCap = c.grant.overageCap
        // A state grant without `per` and with an `until` is a lot that lapses then; a rule set's
        // grant with `expires after` lapses that long after it starts (its purchase's `purchased_at`,
        // the state grant an entitlement is active through, `customer_since`). With no known start,
        // when it would lapse is not known: it does not (as a grant with no start has every window).
        if case .state(let i) = c.grant.source, c.grant.per == nil { ledger.expiry = state.grants[i].until?.seconds }
        ledger.until = c.stateGrant.flatMap { state.grants[$0].until?.seconds }
        if let step = c.grant.expiresAfter, let start = ledger.existsFrom {
            ledger.expiry = ReferenceCalendar.add(start, step)
        }
        // Windows are anchored where the purchase began (§5, changed): a renewal moves its
        // `period_start`, never its `purchased_at`, so it never lays the windows anew.
        if let interval = c.grant.per {
            if let anchor = since ?? purchase?.purchasedAt ?? purchase?.periodStart {
                ledger.windows = ReferenceWindows(anchor: anchor.seconds, step: ReferenceStep(interval: interval))
            } else {
                ledger.alignedInterval = interval
            }
        }
        return ledger
    }

    /// The feature or credit system a usage record names, nil when none or when it is a retry.
    /// Given as `event`, it names a feature by its event name only; given as `feature`, by name
    /// first, then by event name.
    func target(ofRecord i: Int) -> String? { recordTargets[i] }

    func findTarget(ofRecord i: Int) -> String? {
        let record = state.usage[i]
        // §5: a record repeating the `id` of the first record with it, for the same feature and
        // amount, is a retry; for another use it is a conflict and counts.
        if let id = record.id, let first = state.usage[..<i].firstIndex(where: { $0.id.map { Array($0.utf8) } == Array(id.utf8) }),
           named(by: first) == named(by: i), state.usage[first].kind == record.kind {
            return nil
        }
        return named(by: i)
    }

    func named(by i: Int) -> String? {
        let record = state.usage[i]
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

    /// A place in §5's consumption order: lower `priority` first, then the grant whose current
    /// window ends soonest (lifetime last), then declaration order.
    struct OrderKey: Comparable {
        var priority: Int64
        var end: Int64
        var order: Int

        static func < (a: OrderKey, b: OrderKey) -> Bool { (a.priority, a.end, a.order) < (b.priority, b.end, b.order) }
    }

    struct Balance {
        /// Nil: unlimited.
        var low: Int64?
        var high: Int64?
        var overage: Int64
        /// The next window boundary of a candidate grant, or the next future usage record.
        var nextChange: Int64?
        /// Soft limits: what is overdrawn now, whether a candidate has `overage`, and what may still
        /// be overdrawn over the certain candidates and over all (nil: without limit).
        var overdrawn: Int64 = 0
        var hasOverage = false
        /// A certain candidate has it: only that allows a check via overage (an uncertain one can
        /// make it undetermined).
        var hasCertainOverage = false
        var overdraftLow: Int64? = 0
        var overdraftHigh: Int64? = 0
        /// A continuous feature's level above its allowances, certain ones (`overage`) and all:
        /// credits never pay a level (§5), so a check's shortfall counts it.
        var excess: Int64 = 0
        var excessHigh: Int64 = 0
    }

    func balance(of name: String) -> Balance {
        let feature = features.first { $0.name == name }!
        if feature.kind == .continuous { return continuousBalance(feature) }
        let members = component(of: name).map { m in features.first { $0.name == m }! }
        let me = members.firstIndex { $0.name == name }!
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

        // The candidates of a member at an instant, asked for often (every use, both replays).
        var seen: [String: [Candidate]] = [:]
        func candidates(_ m: Int, at s: Int64) -> [Candidate] {
            let key = "\(members[m].name)@\(s)"
            if let known = seen[key] { return known }
            let found = reading(at: s).candidates(of: members[m].name)
            seen[key] = found
            return found
        }

        /// Replays the uses, each against the grants that were candidates at its instant (only
        /// the certain ones when `certainOnly`): what paid for a use stays paid.
        func replay(certainOnly: Bool) -> (balances: [Int64?], overage: [Int64], ledgers: [Ledger],
                                           overdraft: [(overdrawn: Int64, left: Int64?)]) {
            // Per member, the ledger of each grant instance met, by instance.
            var ledgers: [[String: Ledger]] = members.map { _ in [:] }
            var overage = [Int64](repeating: 0, count: members.count)
            /// Member m's candidates at instant `s` (their instances, counted ones only), and the place
            /// in the consumption order of the first unlimited one (nil: none). Their ledgers are moved
            /// to the window of `s`.
            func eligible(_ m: Int, _ s: Int64) -> (instances: [String], unlimited: OrderKey?) {
                let cs = candidates(m, at: s).filter { !certainOnly || $0.certain }
                var instances: [String] = []
                for c in cs where c.grant.amount != nil {
                    if ledgers[m][c.instance] == nil { ledgers[m][c.instance] = ledger(c) }
                    if ledgers[m][c.instance]!.exists(at: s) {
                        ledgers[m][c.instance]!.advance(to: s)
                        instances.append(c.instance)
                    }
                }
                // §5's order, read for a grant with no balance to run out: an unlimited grant of the
                // state, or active through one, ends at its `until`, any other never.
                let unlimited = cs.filter { $0.grant.amount == nil }.map { c in
                    let lapse = c.stateGrant.flatMap { state.grants[$0].until?.seconds }
                    return OrderKey(priority: c.grant.priority, end: lapse ?? .max, order: c.grant.order)
                }.min()
                return (instances, unlimited)
            }
            /// Member m's instances in consumption order: lower priority first, then the window
            /// that ends soonest (lifetime last), then declaration order, then state order.
            func inOrder(_ m: Int, _ instances: [String]) -> [String] {
                instances.sorted { a, b in
                    let (x, y) = (ledgers[m][a]!, ledgers[m][b]!)
                    if x.priority != y.priority { return x.priority < y.priority }
                    let (ex, ey) = (x.orderEnd, y.orderEnd)
                    if ex != ey { return ex < ey }
                    if x.order != y.order { return x.order < y.order }
                    return x.position < y.position
                }
            }
            /// Takes `amount` from member m's grants in order, up to an unlimited one, which covers
            /// the rest; returns what they could not cover.
            func consume(_ m: Int, _ amount: Int64, _ e: (instances: [String], unlimited: OrderKey?)) -> Int64 {
                let order = inOrder(m, e.instances.filter { ledgers[m][$0]!.balance > 0 })
                var remaining = amount
                for i in order {
                    let l = ledgers[m][i]!
                    if let stop = e.unlimited, stop < OrderKey(priority: l.priority, end: l.orderEnd, order: l.order) {
                        break
                    }
                    let taken = min(remaining, l.balance)
                    ledgers[m][i]!.balance -= taken
                    remaining -= taken
                }
                return e.unlimited == nil ? remaining : 0
            }
            func available(_ m: Int, _ e: (instances: [String], unlimited: OrderKey?)) -> Int64? {
                if e.unlimited != nil { return nil }
                return e.instances.reduce(Int64(0)) { Ledger.add($0, ledgers[m][$1]!.balance) }
            }
            /// `ceil(units × credits / amount)` in integers.
            func cost(_ units: Int64, _ route: (system: String, amount: Int64, credits: Int64)) -> Int64 {
                let c = (Int128(units) * Int128(route.credits) + Int128(route.amount) - 1) / Int128(route.amount)
                return c > Int128(Int64.max) ? .max : Int64(c)
            }
            for event in events {
                let m = event.member
                let own = eligible(m, event.at)
                var rest = consume(m, event.amount, own)
                if rest > 0, members[m].kind != .credits {
                    let systems = members[m].routes.map { route in
                        (route: route, s: members.firstIndex { $0.name == route.system }!)
                    }
                    // As a check would: the first system that covers the rest in full pays it.
                    for (route, s) in systems {
                        let pay = eligible(s, event.at)
                        guard available(s, pay).map({ creditsPay($0, cost(rest, route)) }) ?? true else { continue }
                        _ = consume(s, cost(rest, route), pay)
                        rest = 0
                        break
                    }
                    // Else each system in declaration order: the full cost of what is left when it
                    // covers it, or all it has for the whole units that buys.
                    for (route, s) in systems where rest > 0 {
                        let pay = eligible(s, event.at)
                        let balance = available(s, pay)!
                        if creditsPay(balance, cost(rest, route)) {
                            _ = consume(s, cost(rest, route), pay)
                            rest = 0
                        } else {
                            _ = consume(s, balance, pay)
                            rest -= Int64(Int128(balance) * Int128(route.amount) / Int128(route.credits))
                        }
                    }
                }
                // Soft limits: what is left is overdrawn on the grants with `overage` (consumption
                // order), each up to its cap in its window.
                if rest > 0 {
                    for i in inOrder(m, own.instances.filter { ledgers[m][$0]!.overage }) where rest > 0 {
                        let taken = min(rest, ledgers[m][i]!.overdraftLeft ?? rest)
                        ledgers[m][i]!.overdrawn += taken
                        rest -= taken
                    }
                }
                overage[m] = Ledger.add(overage[m], rest)
            }
            // The balance at `t`: what is left in the windows containing `t` of the candidates at `t`.
            var balances: [Int64?] = []
            var present: [Ledger] = []
            var overdraft: [(overdrawn: Int64, left: Int64?)] = []
            for m in members.indices {
                let now = eligible(m, t)
                balances.append(available(m, now))
                let all = candidates(m, at: t).filter { !certainOnly || $0.certain }
                for c in all where c.grant.amount != nil { present.append(ledgers[m][c.instance]!) }
                var drawn: (overdrawn: Int64, left: Int64?) = (0, 0)
                for i in now.instances where ledgers[m][i]!.overage {
                    drawn.overdrawn += ledgers[m][i]!.overdrawn
                    drawn.left = ledgers[m][i]!.overdraftLeft.flatMap { l in drawn.left.map { $0 + l } }
                }
                overdraft.append(drawn)
            }
            return (balances, overage, present, overdraft)
        }

        let certain = replay(certainOnly: true)
        let everything = replay(certainOnly: false)
        // The window boundaries of every grant that counts at `t` replayed with it, and grants that
        // start later (at `customer_since`).
        for l in everything.ledgers {
            if let from = l.existsFrom, from > t { changes.append(from) }
            if l.exists(at: t), let end = l.currentEnd { changes.append(end) }
        }
        // A soft limit of a grant that counts at `t`: a lot that lapsed has none left to draw on.
        let softLimits = candidates(me, at: t).filter { c in
            c.grant.overage && (c.grant.amount == nil || ledger(c).exists(at: t))
        }
        let (hasOverage, hasCertainOverage) = (!softLimits.isEmpty, softLimits.contains { $0.certain })
        return Balance(low: certain.balances[me], high: everything.balances[me],
                       overage: certain.overage[me], nextChange: changes.min(),
                       overdrawn: certain.overdraft[me].overdrawn, hasOverage: hasOverage,
                       hasCertainOverage: hasCertainOverage,
                       overdraftLow: certain.overdraft[me].left, overdraftHigh: everything.overdraft[me].left)
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
        var b = Balance(low: unlimitedCertain ? nil : max(0, certain - level),
                        high: unlimitedAny ? nil : max(0, any - level),
                        overage: unlimitedCertain ? 0 : max(0, level - certain),
                        nextChange: records.map(\.at).filter { $0 > t }.min())
        b.excess = b.overage
        b.excessHigh = unlimitedAny ? 0 : max(0, level - any)
        return b
    }

    public func feature(_ name: String, required: Int64 = 1) -> FeatureResult {
        var changes: [Int64] = nextChange(watching: watchedProducts(ofFeature: name)).map { [$0] } ?? []
        changes += stateGrantChanges()
        var r = decide(name, required: required, changes: &changes)
        r.validUntil = Self.instant(changes.min())
        let feature = features.first { $0.name == name }!
        // §6: a use dated at t is a past one a nanosecond later, which a purchase whose status
        // ended it (expired, billing_retry, or unknown) pays if, read as past at t, it was or may
        // have been owned; and an undated use, read at t as dated at t, is then later than it (a
        // continuous feature's latest reading, the order in which uses are charged): a metered
        // result may change then.
        let past = readingAsPast()
        // Uses that count: a retry, or a record naming nothing, is none; and only those replayed
        // with this feature or with a credit system that can pay for it (its own, their
        // components'): another's changes nothing here.
        let replayed = Set(component(of: name) + feature.routes.flatMap { component(of: $0.system) })
        let uses = state.usage.indices.filter { target(ofRecord: $0).map(replayed.contains) ?? false }
            .map { state.usage[$0] }
        if feature.kind != .boolean, uses.contains(where: { $0.at == Instant(seconds: t) }),
           uses.contains(where: { $0.at == nil }) || state.purchases.indices.contains(where: { j in
               [.expired, .billingRetry, .unknown].contains(state.purchases[j].status) && purchaseTargets[j] != nil
                   && past.standing(j) != .notOwned
           }) {
            r.validUntil = Instant(seconds: t, nanoseconds: 1)
        }
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
                case .entitlement(let e): entitlementValue(e).0
                case .state: .false
                }
            }
            if let requires = feature.requires { truths.append(value(requires).0) }
            if stateGrantGrants(name) { truths.append(.true) }
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
        r.overdrawn = direct.overdrawn
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
        // Credits pay the shortfall: the first system whose certain balance covers its cost. A
        // continuous level above the allowances is part of it: credits never pay a level, so the
        // rest of what they would allow stands on them alone (a review: 10 credits let a customer
        // 90 seats over add one more, and another, never spent).
        let shortfall = Ledger.add(required - low, direct.excess)
        func pays(_ s: (name: String, amount: Int64, credits: Int64, balance: Balance)) -> Bool {
            s.balance.low.map { creditsPay($0, cost(shortfall, s)) } ?? true
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
        /// What the systems leave of `rest` when they pay as a recorded use's spill does: the first
        /// that covers it all, else each in declaration order what it can (§5).
        func spillLeft(_ rest: Int64, optimistic: Bool) -> Int64 {
            func balance(_ s: (name: String, amount: Int64, credits: Int64, balance: Balance)) -> Int64? {
                optimistic ? s.balance.high : s.balance.low
            }
            if systems.contains(where: { s in balance(s).map { creditsPay($0, cost(rest, s)) } ?? true }) { return 0 }
            var left = rest
            for s in systems where left > 0 {
                let b = balance(s)!
                if creditsPay(b, cost(left, s)) { return 0 }
                left -= Int64(Int128(b) * Int128(s.amount) / Int128(s.credits))
            }
            return left
        }
        // Soft limits: allowed via overage when the balance, the credits as the spill pays them and
        // the overdraft cover it all.
        if direct.hasCertainOverage,
           direct.overdraftLow.map({ $0 >= spillLeft(shortfall, optimistic: false) }) ?? true {
            r.decision = .allowed
            r.via = .overage
            return r
        }
        // Undetermined when the optimistic balances could make it.
        var maybe = direct.high.map { $0 >= required } ?? true
        if let high = direct.high, high < required {
            let rest = Ledger.add(required - high, direct.excessHigh)
            maybe = maybe || systems.contains { s in s.balance.high.map { creditsPay($0, cost(rest, s)) } ?? true }
            if direct.hasOverage {
                maybe = maybe || direct.overdraftHigh.map { $0 >= spillLeft(required - high, optimistic: true) } ?? true
            }
        }
        r.decision = maybe ? .undetermined : .denied
        // The fewest more units that allow it: the rest must be what one system can pay in full.
        let payable = systems.map { s -> Int128 in
            s.balance.low.map { Int128($0) * Int128(s.amount) / Int128(s.credits) } ?? Int128(Int64.max)
        }.max() ?? 0
        r.shortfall = Int64(max(1, Int128(shortfall) - payable))
        // With a soft limit, it is allowed once the spill and the overdraft cover what the balance
        // leaves: the fewest more units u with spillLeft(shortfall - u) <= overdraft, searched for.
        if direct.hasCertainOverage, let overdraft = direct.overdraftLow {
            var (low, high) = (Int64(1), r.shortfall!)  // `high` allows it (or is the old answer)
            while low < high {
                let u = low + (high - low) / 2
                if spillLeft(shortfall - u, optimistic: false) <= overdraft { high = u } else { low = u + 1 }
            }
            r.shortfall = low
        }
        return r
    }
}

/// Whether a credit balance pays a cost (docs/ledger.md): a cost of 2^63 - 1 credits or more (past
/// 64 bits, saturated) is paid by no finite balance, whose own saturation says only "at least".
func creditsPay(_ balance: Int64, _ cost: Int64) -> Bool { cost < Int64.max && balance >= cost }
