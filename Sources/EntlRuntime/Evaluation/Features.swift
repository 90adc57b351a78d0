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
    /// Whether it is a candidate at `t` (a replay also keeps the grants that were candidates only
    /// at the instants of earlier uses, §5).
    var present = true

    /// §5: a grant instance is the grant together with the purchase (or override) behind it.
    func isSameInstance(as other: Candidate) -> Bool {
        grant.order == other.grant.order && purchase == other.purchase && behindNoPurchase == other.behindNoPurchase
            && (purchase != nil || product == other.product)
    }

    /// The counted allowance per window (nil: unlimited or none).
    var counted: Int64? {
        if case .count(let n) = grant.amount { return n }
        return nil
    }
}

/// A metered feature's (or credit system's) balance at `t` (§5).
struct MeteredOutcome {
    /// The balance over certain candidates; nil when unlimited.
    var low: Int64?
    /// The balance over certain and uncertain candidates; nil when unlimited.
    var high: Int64?
    var overage: Int64 = 0
    var sources: [BalanceSource] = []
    var trail: [String] = []
    var hasUncertain = false
    /// The first window boundary after `t` at which a grant's balance (certain or uncertain)
    /// differs if nothing more is used: what can change `low` or `high` by itself, as opposed to
    /// `inputsChange`, every boundary at which the result must be recomputed.
    var nextBalanceChange: Instant?
    /// §6: the earliest instant after `t` at which an input of the balance changes by itself: a
    /// window boundary of a grant, a dated use, a grant starting at `customer_since` — of any
    /// member of the credit component (uses spill into the systems).
    var inputsChange: Instant?
}

extension Evaluation {
    /// Every grant of feature `f` whose source counts at `t`.
    func candidates(of f: Int) -> [Candidate] {
        var out: [Candidate] = []
        var last: EntitlementSource?
        forEachCandidate(of: f, last: &last) { out.append($0) }
        return out
    }

    /// An entitlement behind a grant: its value and its representative's product and purchase.
    typealias EntitlementSource = (entitlement: Int, truth: Truth, product: Int?, purchase: Int?)

    /// Gives `body` every grant of feature `f` whose source counts at `t`. `last`: the entitlement
    /// found last (the features of a credit component are often granted by the same one).
    func forEachCandidate(of f: Int, last: inout EntitlementSource?, _ body: (Candidate) -> Void) {
        for g in graph.features[f].grants {
            switch g.source {
            case .product(let p):
                let consumable = graph.products[p].kind == .consumable
                switch products[p].override {
                case .purchased?: body(Candidate(grant: g, certain: true, product: p, purchase: nil, quantity: 1))
                case .unknown?: body(Candidate(grant: g, certain: false, product: p, purchase: nil, quantity: 1))
                case .notPurchased?: break
                case nil:
                    // A product-level grant counts once per owned purchase, with its anchor.
                    for j in purchases(of: p) where standings[j] == .owned || standings[j] == .unknown {
                        body(Candidate(grant: g, certain: standings[j] == .owned, product: p, purchase: j,
                                       quantity: consumable ? state.purchases[j].quantity : 1))
                    }
                }
            case .entitlement(let e):
                if last?.entitlement != e {
                    let truth = entitlementValue(e).0
                    switch truth == .false ? nil : representative(of: e) {
                    case .purchase(let j)?: last = (e, truth, Int(purchaseProduct[j]), j)
                    case .override(let p)?: last = (e, truth, p, nil)
                    case nil: last = (e, truth, nil, nil)
                    }
                }
                guard let source = last, source.truth != .false else { continue }
                body(Candidate(grant: g, certain: source.truth == .true, product: source.product, purchase: source.purchase,
                               quantity: 1, behindNoPurchase: source.product == nil))
            }
        }
    }

    /// The most candidates feature `f` can have: one per grant, or per matched purchase of a
    /// product-level grant's product.
    func candidateBound(of f: Int) -> Int {
        graph.features[f].grants.reduce(0) { n, g in
            guard case .product(let p) = g.source else { return n + 1 }
            return n + max(1, purchases(of: p).count)
        }
    }

    /// A candidate's grant, by the name of its source, and the kind of that source.
    func sourceName(_ c: Candidate) -> (name: String, kind: String) {
        switch c.grant.source {
        case .product(let p): (graph.products[p].name, "product")
        case .entitlement(let e): (graph.entitlements[e].name, "entitlement")
        }
    }

    /// The ledger of a candidate: windows anchored at its purchase's `period_start` (else
    /// `purchased_at`), and it exists from `purchased_at`; with no purchase behind it, anchored at
    /// the state's `customer_since` and existing from then; calendar-aligned when there is no date.
    func ledger(_ c: Candidate, allowance: Int64, source: Int) -> Ledger {
        // The purchase's dates read in place (a copy of the purchase retains each of its strings).
        let existsFrom: Instant?, anchor: Instant?
        if c.behindNoPurchase {
            (existsFrom, anchor) = (state.customerSince, state.customerSince)
        } else if let j = c.purchase {
            existsFrom = state.purchases[j].purchasedAt
            anchor = state.purchases[j].periodStart ?? existsFrom
        } else {
            (existsFrom, anchor) = (nil, nil)
        }
        let windows = c.grant.interval.map { interval in
            anchor.map { Windows(anchor: $0, step: interval.step) } ?? .calendarAligned(interval)
        }
        return Ledger(allowance: allowance.multipliedSaturating(by: c.quantity), windows: windows, carry: c.grant.carry,
                      priority: c.grant.priority, order: c.grant.order, existsFrom: existsFrom, source: source)
    }

    func instant(of record: UsageRecord) -> Instant { record.at ?? at }

    /// The balance of a metered feature or credit system at `t` (§5): over certain candidates
    /// (`low`) and over certain and uncertain ones (`high`), and what each grant contributes when
    /// `sources`. A single-use feature or credit system is read from the replays of its whole
    /// credit component (computed once per evaluation; a member's outcome is built when asked).
    func meteredBalance(_ f: Int, sources: Bool = true) -> MeteredOutcome {
        if graph.features[f].kind == .continuous { return continuousBalance(f, candidates(of: f)) }
        return outcome(of: graph.componentMember[f], in: replays(ofComponentOf: f), sources: sources)
    }

    /// `meteredBalance(f).inputsChange`, without building the outcome.
    func meteredInputsChange(_ f: Int) -> Instant? {
        if graph.features[f].kind == .continuous { return continuousBalance(f, candidates(of: f)).inputsChange }
        return replays(ofComponentOf: f).inputsChange
    }

    /// The replays of the credit component of single-use feature or credit system `f`.
    private func replays(ofComponentOf f: Int) -> ComponentReplays {
        let c = graph.componentOf[f]
        return tables.component(c) { replayComponent(c) }
    }

    /// Replays a credit component twice: with certain candidates (`low`, overage, the trail) and
    /// with certain and uncertain ones (`high`).
    private func replayComponent(_ c: Int) -> ComponentReplays {
        let usageFeature = tables.usage(in: graph).features
        // The uses, gathered on the stack when few.
        return withUnsafeTemporaryAllocation(of: UseEvent.self, capacity: usageFeature.count) { buffer in
            replayComponent(c, usageFeature: usageFeature, events: buffer)
        }
    }

    private func replayComponent(_ c: Int, usageFeature: UnsafeBufferPointer<Int32>,
                                 events buffer: UnsafeMutableBufferPointer<UseEvent>) -> ComponentReplays {
        // The uses at or before `t`, in time order; §6: the inputs of every member change the
        // balances of all, so a dated use after `t` is an input change.
        var count = 0
        var inputsChange: Instant?
        for i in usageFeature.indices where usageFeature[i] >= 0 && graph.componentOf[Int(usageFeature[i])] == c {
            let when = state.usage[i].at ?? at
            if when > at {
                inputsChange = earliest(inputsChange, when)
            } else if case .amount(let n) = state.usage[i].kind {
                buffer.initializeElement(at: count, to: UseEvent(at: when, amount: n, index: i,
                                                                 member: graph.componentMember[Int(usageFeature[i])]))
                count += 1
            }
        }
        // Plain values: nothing to deinitialize. A constant once sorted and read (the replays capture it).
        var sorting = UnsafeMutableBufferPointer(rebasing: buffer[..<count])
        sorting.sort { ($0.at, $0.index) < ($1.at, $1.index) }
        let readings = pastReadings(of: sorting, component: c)
        let events = UnsafeBufferPointer(sorting)

        let members = graph.components[c]
        let replays = ComponentReplays.allocate(
            members: members.count, candidates: members.reduce(0) { $0 + candidateBound(of: $1) } * (1 + readings.count))
        // Every member's grant instances, member after member (a component has a few members): its
        // candidates at `t`, then those that were candidates only at earlier uses' instants. And
        // the members as both replays start them.
        let (found, low, high) = (replays.candidates, replays.low, replays.high)
        var foundCount = 0
        var last: EntitlementSource?
        var marks: [(instance: Int, reading: Int, certain: Bool)] = []
        for (m, f) in members.enumerated() {
            let first = foundCount
            forEachCandidate(of: f, last: &last) { found.initializeElement(at: foundCount, to: $0); foundCount += 1 }
            if !readings.isEmpty {
                addInstances(of: f, readings, into: found, first: first, count: &foundCount, marks: &marks)
            }
            low.members.initializeElement(at: m, to: ComponentReplay.Member(feature: f, candidates: first..<foundCount))
            high.members.initializeElement(at: m, to: low.members[m])
        }
        let candidates = UnsafeMutableBufferPointer(rebasing: found[..<foundCount])
        var marked: UseReadings?
        if !readings.isEmpty {
            var r = UseReadings(readings: readings.count, instances: candidates.count)
            for mark in marks { r.mark(mark.instance, reading: mark.reading, certain: mark.certain) }
            marked = r
        }
        let uncertain = candidates.contains { $0.present && !$0.certain } || marks.contains { !$0.certain }
        let counted = candidates.count { $0.counted != nil }
        let rooms = replays.placeLedgers(low: counted, high: uncertain ? counted : 0)

        /// The replay over the certain candidates, or over all of them: `start`'s members, and
        /// their ledgers made in `room`.
        func replay(_ start: ComponentReplay, in room: UnsafeMutableBufferPointer<Ledger>, certainOnly: Bool,
                    explain: Bool) -> (ComponentReplay, trails: [[String]]) {
            var made = 0
            for m in start.members.indices {
                let first = made
                for i in start.members[m].candidates {
                    if let n = candidates[i].counted {
                        room.initializeElement(at: made, to: ledger(candidates[i], allowance: n, source: i))
                        made += 1
                    } else if candidates[i].grant.amount == .unlimited, candidates[i].present,
                              candidates[i].certain || !certainOnly {
                        start.members[m].unlimited = true
                    }
                }
                start.members[m].ledgers = first..<made
            }
            let r = ComponentReplay(members: start.members, ledgers: room, candidates: candidates, certainOnly: certainOnly,
                                    readings: marked)
            let trails = r.run(events, routes: graph.componentRoutes[c], at: at, explain: explain,
                               grantName: { sourceName(candidates[$0]).name }, featureName: { graph.features[$0].name }) { m, n in
                graph.features[members[m]].unit(n)
            }
            return (r, trails)
        }

        let (certain, trails) = replay(low, in: rooms.low, certainOnly: true, explain: explains)
        let all = uncertain ? replay(high, in: rooms.high, certainOnly: false, explain: false).0 : certain
        // §6: a grant no purchase is behind starts at `customer_since`; every counted grant that
        // is a candidate and exists at `t` changes at its next window boundary (`all` replays
        // every candidate).
        if let since = state.customerSince, since > at,
           candidates.contains(where: { $0.present && $0.behindNoPurchase && $0.counted != nil }) {
            inputsChange = earliest(inputsChange, since)
        }
        for l in all.ledgers where candidates[l.source].present && l.exists(at: at) {
            if case .at(let end) = l.currentEnd { inputsChange = earliest(inputsChange, end) }
        }
        replays.finish(candidates: candidates, low: certain, high: all, uncertain: uncertain, inputsChange: inputsChange,
                       trails: trails)
        return replays
    }

    /// Adds to feature `f`'s instances (`found[first..<count]`, its candidates at `t`) the grants
    /// that were candidates at the other `readings` only, keeps them in consumption-order ties
    /// (declaration order, then state order), and notes which instances were candidates (and
    /// certain) at each reading.
    private func addInstances(of f: Int, _ readings: [Evaluation], into found: UnsafeMutableBufferPointer<Candidate>,
                              first: Int, count: inout Int, marks: inout [(instance: Int, reading: Int, certain: Bool)]) {
        var then: [[Candidate]] = []
        for reading in readings {
            var seen: [Candidate] = []
            var last: EntitlementSource?
            reading.forEachCandidate(of: f, last: &last) { seen.append($0) }
            then.append(seen)
        }
        var added = false
        for seen in then {
            for c in seen where !found[first..<count].contains(where: { $0.isSameInstance(as: c) }) {
                var instance = c
                instance.present = false
                found.initializeElement(at: count, to: instance)
                count += 1
                added = true
            }
        }
        if added {
            var range = UnsafeMutableBufferPointer(rebasing: found[first..<count])
            range.sort { a, b in (a.grant.order, a.purchase ?? -1) < (b.grant.order, b.purchase ?? -1) }
        }
        for (r, seen) in then.enumerated() {
            for c in seen {
                let i = found[first..<count].firstIndex { $0.isSameInstance(as: c) }!
                marks.append((i, r + 1, c.certain))
            }
        }
    }

    /// §5 "what paid for a use stays paid": a use consumes from the grants that were candidates
    /// at its instant. Sets each use's reading — 0 when every purchase the component watches
    /// stood at the use's instant as it stands at `t` (so its candidates are those at `t`), else
    /// one of the returned readings: the state as read at the instant of the first use so read
    /// (uses between the same purchase dates share it). A use at `t` is read at `t`.
    private func pastReadings(of events: UnsafeMutableBufferPointer<UseEvent>, component c: Int) -> [Evaluation] {
        guard let first = events.first, first.at < at else { return [] }
        let watched = graph.features[graph.components[c][0]].watchedProducts
        return state.purchases.withUnsafeBufferPointer { dated -> [Evaluation] in
            /// 0 not owned, 1 unknown, 2 owned.
            func rank(_ s: PurchaseStanding) -> UInt8 { s == .owned ? 2 : s == .unknown ? 1 : 0 }
            func stood(_ j: Int, at e: Instant) -> UInt8 {
                let p = graph.products[Int(purchaseProduct[j])]
                return rank(OwnershipResolver.standing(dated.baseAddress! + j, p.kind, p.duration, at: e, past: true))
            }
            /// Where purchase `j`'s reading at past instants changes: its `purchased_at` and its access end.
            func cuts(_ j: Int) -> (Instant?, Instant?) { (dated[j].purchasedAt, accessEnd(j).instant) }
            // Most often every use is read as at `t`: nothing watched starts or ends between the
            // first use and `t`, and each purchase stood at the first use as it stands now.
            var same = true
            for p in watched where products[p].override == nil {
                for j in purchases(of: p) {
                    let (bought, end) = cuts(j)
                    if bought.map({ $0 > first.at && $0 <= at }) ?? false || end.map({ $0 > first.at && $0 <= at }) ?? false
                        || stood(j, at: first.at) != rank(standings[j]) {
                        same = false
                    }
                }
            }
            if same { return [] }
            var watchedPurchases: [Int] = []
            var instants: [Instant] = []
            for p in watched where products[p].override == nil {
                for j in purchases(of: p) {
                    watchedPurchases.append(j)
                    let (bought, end) = cuts(j)
                    if let bought { instants.append(bought) }
                    if let end { instants.append(end) }
                }
            }
            instants.sort()
            let present = watchedPurchases.map { rank(standings[$0]) }
            var seen: [(stood: [UInt8], reading: Evaluation)] = []
            var cut = 0, interval = -1, current: Int32 = 0
            for k in events.indices where events[k].at < at {
                let e = events[k].at
                while cut < instants.count, instants[cut] <= e { cut += 1 }
                if cut != interval {
                    interval = cut
                    let stood = watchedPurchases.map { stood($0, at: e) }
                    if stood == present {
                        current = 0
                    } else if let known = seen.firstIndex(where: { $0.stood == stood }) {
                        current = Int32(known + 1)
                    } else if let reading = try? Evaluation(graph, state: state, environment: environment, at: e,
                                                            explain: false, unlock: false, past: true) {
                        // INVARIANT: it does not throw: the state resolved at `t` resolves the same at `e`.
                        seen.append((stood, reading))
                        current = Int32(seen.count)
                    }
                }
                events[k].reading = current
            }
            return seen.map(\.reading)
        }
    }

    /// Member `m`'s outcome in its component's replays (its grants' sources when `sources`).
    private func outcome(of m: Int, in replays: ComponentReplays, sources wanted: Bool) -> MeteredOutcome {
        let (low, high, candidates, uncertain) = (replays.low, replays.high, replays.candidates, replays.uncertain)
        let range = low.members[m].candidates
        var sources: [BalanceSource] = []
        if wanted {
            sources.reserveCapacity(range.count)
            for l in low.members[m].ledgers where low.pays(low.ledgers[l].source, reading: 0) {
                sources.append(source(candidates[low.ledgers[l].source], low.ledgers[l]))
            }
            for l in high.members[m].ledgers
            where uncertain && candidates[high.ledgers[l].source].present && !candidates[high.ledgers[l].source].certain {
                sources.append(source(candidates[high.ledgers[l].source], high.ledgers[l]))
            }
            for i in range where candidates[i].present && candidates[i].grant.amount == .unlimited {
                sources.append(balanceSource(candidates[i], allowance: nil, remaining: nil,
                                             interval: candidates[i].grant.interval))
            }
        }
        // With every candidate certain, `high` is `low` (its figures are not computed twice). Built
        // in one expression: filled in field by field, the outcome was copied when returned.
        let lowBalance = low.balance(m, at: at), lowChange = low.nextBalanceChange(m, at: at)
        return MeteredOutcome(
            low: lowBalance, high: uncertain ? high.balance(m, at: at) : lowBalance,
            // Nothing exceeds an unlimited allowance.
            overage: lowBalance == nil ? 0 : low.members[m].overage, sources: sources,
            trail: explains ? replays.trails[m] : [],
            hasUncertain: uncertain && range.contains { candidates[$0].present && !candidates[$0].certain },
            nextBalanceChange: uncertain ? earliest(lowChange, high.nextBalanceChange(m, at: at)) : lowChange,
            inputsChange: replays.inputsChange)
    }

    /// What a replayed candidate contributes at `t` (nothing before its grant exists). Inlined,
    /// as `balanceSource`: a source returned by a call was copied into its array, then destroyed.
    @inline(__always)
    private func source(_ c: Candidate, _ l: Ledger) -> BalanceSource {
        let exists = l.exists(at: at)
        return balanceSource(c, allowance: l.allowance, carried: exists ? max(0, l.opening.subtractingSaturating(l.allowance)) : 0,
                             used: exists ? l.used : 0, remaining: exists ? l.balance : 0,
                             windowStart: exists ? l.currentStart : nil, resetsAt: exists ? l.currentEnd.instant : nil,
                             interval: c.grant.interval)
    }

    @inline(__always)
    private func balanceSource(_ c: Candidate, allowance: Int64?, carried: Int64 = 0, used: Int64 = 0, remaining: Int64?,
                               windowStart: Instant? = nil, resetsAt: Instant? = nil, interval: Interval?) -> BalanceSource {
        let (name, kind) = sourceName(c)
        return BalanceSource(grant: name, kind: kind, product: c.product.map { graph.products[$0].name }, allowance: allowance,
                             carried: carried, used: used, remaining: remaining, windowStart: windowStart, resetsAt: resetsAt,
                             interval: interval, certain: c.certain)
    }

    /// §5 continuous: the sum of allowances minus the latest level at or before `t`.
    private func continuousBalance(_ f: Int, _ all: [Candidate]) -> MeteredOutcome {
        var outcome = MeteredOutcome(low: 0, high: 0)
        outcome.hasUncertain = all.contains { !$0.certain }
        if all.contains(where: { $0.certain && $0.grant.amount == .unlimited }) { outcome.low = nil }
        if all.contains(where: { $0.grant.amount == .unlimited }) { outcome.high = nil }
        let counted = all.filter { $0.counted != nil }
        var level: Int64 = 0
        var levelAt: Instant?
        for i in usage(of: f) {
            let record = state.usage[i]
            guard case .level(let n) = record.kind else { continue }
            let when = instant(of: record)
            // The latest at or before t; ties go to the later record in the state.
            if when <= at, levelAt.map({ when >= $0 }) ?? true {
                level = n
                levelAt = when
            }
        }
        var certainTotal: Int64 = 0, allTotal: Int64 = 0
        for c in counted {
            let a = (c.counted ?? 0).multipliedSaturating(by: c.quantity)
            allTotal = allTotal.addingSaturating(a)
            if c.certain { certainTotal = certainTotal.addingSaturating(a) }
        }
        if outcome.low != nil { outcome.low = max(0, certainTotal.subtractingSaturating(level)) }
        if outcome.high != nil { outcome.high = max(0, allTotal.subtractingSaturating(level)) }
        outcome.overage = max(0, level.subtractingSaturating(certainTotal))
        // Attribute the level to the grants in consumption order, for the sources.
        var remainingLevel = level
        let ordered = counted.sorted { ($0.grant.priority, $0.grant.order) < ($1.grant.priority, $1.grant.order) }
        for c in ordered {
            let a = (c.counted ?? 0).multipliedSaturating(by: c.quantity)
            let used = c.certain ? min(a, remainingLevel) : 0
            if c.certain { remainingLevel -= used }
            outcome.sources.append(balanceSource(c, allowance: a, used: used, remaining: a - used, interval: nil))
        }
        if explains, let levelAt { outcome.trail.append("  level \(level) at \(levelAt)") }
        for i in usage(of: f) where instant(of: state.usage[i]) > at {
            outcome.inputsChange = earliest(outcome.inputsChange, instant(of: state.usage[i]))
        }
        // Nothing exceeds an unlimited allowance.
        if outcome.low == nil { outcome.overage = 0 }
        for c in all where c.grant.amount == .unlimited {
            outcome.sources.append(balanceSource(c, allowance: nil, remaining: nil, interval: c.grant.interval))
        }
        return outcome
    }

    // MARK: - Decisions

    public func feature(_ f: Int, required: Int64) -> FeatureResult {
        var result = FeatureResult()
        feature(f, required: required, into: &result)
        return result
    }

    private func feature(_ f: Int, required: Int64, into result: inout FeatureResult) {
        result.name = graph.features[f].name
        result.kind = graph.features[f].kind
        result.displayName = graph.features[f].displayName
        result.validUntil = nextChange(watching: graph.features[f].watchedProducts)
        if graph.features[f].kind == .boolean {
            decideBoolean(f, &result)
        } else {
            decideMetered(f, required: required, &result)
            if graph.features[f].unitSingular != nil || graph.features[f].unitPlural != nil {
                result.unit = graph.features[f].unit(result.balance ?? 2)
            }
        }
        if unlocks, !result.allowed {
            result.unlockedBy = unlockingProducts(graph.features[f].unlockCandidates) {
                $0.feature(f, required: required).allowed
            }
        }
    }

    private func decideBoolean(_ f: Int, _ result: inout FeatureResult) {
        let requirement = graph.features[f].requires.map(truth(of:))
        // A grant counts when its product is owned (once is enough) or its entitlement active.
        var granting: Grant.Source?
        var uncertain = false
        for g in graph.features[f].grants {
            let t: Truth = switch g.source {
            case .product(let p): products[p].truth
            case .entitlement(let e): entitlementValue(e).0
            }
            if t == .true, granting == nil { granting = g.source }
            if t == .unknown { uncertain = true }
        }
        switch granting {
        case .product(let p)?:
            result.decision = .allowed
            result.via = .direct
            let name = graph.products[p].name
            result.why = Reason(formed: { "granted by product `\(name)`" })
        case .entitlement(let e)?:
            result.decision = .allowed
            result.via = .direct
            // The product behind it is found only if the reason is read (most checks never do).
            result.why = Reason(formed: { [self] in
                let behind: String? = switch representative(of: e) {
                case .purchase(let j)?: graph.products[Int(purchaseProduct[j])].name
                case .override(let p)?: graph.products[p].name
                case nil: nil
                }
                return "granted by entitlement `\(graph.entitlements[e].name)`" + (behind.map { " (\($0))" } ?? "")
            })
        case nil:
            if requirement == .true {
                result.decision = .allowed
                result.via = .direct
                result.why = "its requirement holds"
            } else if uncertain || requirement == .unknown {
                result.decision = .undetermined
                result.reason = "it depends on \(unknownProducts(graph.features[f].watchedProducts))"
            } else {
                result.why = graph.features[f].requires == nil
                    ? "no owned product or active entitlement grants it"
                    : "no owned product or active entitlement grants it, and its requirement does not hold"
            }
        }
        if explains {
            result.explanation = ["feature `\(graph.features[f].name)`: \(result.decision.rawValue)"]
            for c in candidates(of: f) {
                let (name, kind) = sourceName(c)
                result.explanation.append("  granted by \(kind) `\(name)`" + (c.certain ? "" : " (uncertain)"))
            }
            if let requirement { result.explanation.append("  requirement: \(requirement.rawValue)") }
            result.explanation += explainProducts(graph.features[f].watchedProducts)
        }
    }

    /// "`zbucks`, whose status is unknown": the products among `ps` with something unknown.
    func unknownProducts(_ ps: [Int]) -> String {
        let names = ps.filter { products[$0].hasUnknown }.map { "`\(graph.products[$0].name)`" }
        if names.isEmpty { return "purchases whose status is unknown" }
        return "\(names.prefix(3).joined(separator: ", ")), whose status is unknown"
    }

    private func decideMetered(_ f: Int, required: Int64, _ result: inout FeatureResult) {
        let direct = meteredBalance(f)
        result.required = required
        result.balance = direct.low
        result.unlimited = direct.low == nil
        result.overage = direct.overage
        result.sources = direct.sources
        // §6: the inputs of the feature's balance, and those of every credit system that can pay
        // for it (whether or not it is needed now).
        result.validUntil = earliest(result.validUntil, direct.inputsChange)
        for route in graph.features[f].creditRoutes {
            result.validUntil = earliest(result.validUntil, meteredInputsChange(route.system))
        }
        var trail: [String] = []
        if explains {
            trail.append("feature `\(graph.features[f].name)` (\(graph.features[f].kind.rawValue)), \(required) needed")
            for s in direct.sources {
                let amount = s.allowance.map(String.init) ?? "unlimited"
                let per = s.interval.map { " per \($0.rawValue)" } ?? (graph.features[f].kind == .continuous ? "" : " once")
                trail.append("  grant from \(s.kind) `\(s.grant)`\(s.product.map { $0 == s.grant ? "" : " (\($0))" } ?? ""): "
                             + "\(amount)\(per)\(s.certain ? "" : " (uncertain)")"
                             + (s.windowStart.map { ", window \($0) – \(s.resetsAt.map(\.description) ?? "")" } ?? ""))
            }
            trail += direct.trail
            trail.append("  balance: \(direct.low.map(String.init) ?? "unlimited")"
                         + (direct.hasUncertain ? " (up to \(direct.high.map(String.init) ?? "unlimited") if unknown purchases count)" : ""))
        }
        // The reasons capture the graph (one reference) and numbers, never the evaluation.
        let graph = self.graph
        guard let low = direct.low, low < required else {
            result.decision = .allowed
            result.via = .direct
            result.why = Reason(left: direct.low, required: required, feature: f, of: graph)
            if explains {
                trail.append("  → allowed via direct")
                result.explanation = trail + explainProducts(graph.features[f].watchedProducts)
            }
            return
        }
        // §4.4: credits pay the shortfall, in the declaration order of the systems.
        let shortfall = required - low
        var uncertain = direct.high.map { $0 >= required } ?? true
        for route in graph.features[f].creditRoutes {
            let need = shortfall.multipliedDividedRoundingUp(by: route.credits, dividedBy: route.amount)
            let system = meteredBalance(route.system, sources: false)
            let systemFeature = graph.features[route.system]
            let covers = system.low.map { $0 >= need } ?? true
            if explains {
                trail.append("  credits `\(systemFeature.name)`: \(route.amount) \(graph.features[f].unit(route.amount)) = "
                             + "\(route.credits) credits, so the \(shortfall) \(graph.features[f].unit(shortfall)) missing cost \(need); "
                             + "balance \(system.low.map(String.init) ?? "unlimited")")
                trail += system.trail
            }
            if result.creditSystem == nil || covers {
                result.creditSystem = systemFeature.name
                result.creditsRequired = need
                result.creditBalance = system.low
            }
            if covers {
                result.decision = .allowed
                result.via = .credits
                let payer = route.system
                result.why = Reason(formed: {
                    "\(graph.features[f].amount(low)) left, so \(graph.features[payer].amount(need)) from "
                        + "`\(graph.features[payer].name)` pay for " + (low > 0 ? "the other \(shortfall.grouped)" : shortfall.grouped)
                })
                break
            }
            // §4.5: the optimistic balances, with the shortfall after the optimistic direct one.
            if let high = direct.high, high < required {
                let optimisticNeed = (required - high).multipliedDividedRoundingUp(by: route.credits, dividedBy: route.amount)
                if system.high.map({ $0 >= optimisticNeed }) ?? true { uncertain = true }
            }
        }
        if result.decision != .allowed {
            result.decision = uncertain ? .undetermined : .denied
            // §4.6: the fewest more units that would allow it, with what the best credit system
            // could pay (credits pay a whole shortfall or nothing, so it must cover the rest).
            var payable: Int64 = 0
            for route in graph.features[f].creditRoutes {
                let credits = meteredBalance(route.system, sources: false).low ?? .max
                payable = max(payable, credits.multipliedDividedRoundingDown(by: route.amount, dividedBy: route.credits))
            }
            result.shortfall = max(1, shortfall.subtractingSaturating(payable))
            let system = result.creditSystem, need = result.creditsRequired, balance = result.creditBalance
            let depends = uncertain ? "; it depends on \(unknownProducts(graph.features[f].watchedProducts))" : ""
            result.why = Reason(formed: {
                var reason = "\(graph.features[f].amount(low)) left, \(required.grouped) needed"
                if let system, let need {
                    reason += "; `\(system)` has \(balance.map(\.grouped) ?? "unlimited") of the \(need.grouped) credits needed"
                }
                return reason + depends
            })
        }
        if explains {
            trail.append("  → \(result.decision.rawValue)" + (result.via.map { " via \($0.rawValue)" } ?? ""))
            result.explanation = trail + explainProducts(graph.features[f].watchedProducts)
        }
    }
}
