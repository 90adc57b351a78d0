/// A metered feature's (or credit system's) balance at `t` (§5).
struct MeteredOutcome {
    /// The balance over certain candidates; nil when unlimited.
    var low: Int64?
    /// The balance over certain and uncertain candidates; nil when unlimited.
    var high: Int64?
    var overage: Int64 = 0
    /// A continuous feature's level above its certain allowances (`overage`) and above all of them:
    /// credits never pay a level (§5), so a check's shortfall counts it.
    var excess: Int64 = 0, excessHigh: Int64 = 0
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
    /// A soft limit's billable use in the current windows, over the certain candidates.
    var overdrawn: Int64 = 0
    /// Whether a candidate grant at `t` has `overage` (a soft limit), and whether a certain one
    /// does: only a certain soft limit allows a check (via overage); an uncertain one makes it
    /// undetermined.
    var hasOverage = false
    var hasCertainOverage = false
    /// What may still be overdrawn now, over the certain candidates (`low`) and all of them
    /// (`high`); nil: without limit.
    var overdraftLow: Int64? = 0
    var overdraftHigh: Int64? = 0
}

extension Evaluation {
    /// The balance of a metered feature or credit system at `t` (§5): over certain candidates
    /// (`low`) and over certain and uncertain ones (`high`), and what each grant contributes when
    /// `sources`. A single-use feature or credit system is read from the replays of its whole
    /// credit component (computed once per evaluation; a member's outcome is built when asked).
    func meteredBalance(_ f: Int, sources: Bool = true) -> MeteredOutcome {
        var held = HeldReplays()
        return meteredBalance(f, sources: sources, held: &held)
    }

    /// `meteredBalance(_:sources:)`, reading the component's replays from `held` when they are
    /// there (and holding them there).
    func meteredBalance(_ f: Int, sources: Bool = true, held: inout HeldReplays) -> MeteredOutcome {
        if graph.features[f].kind == .continuous { return continuousBalance(f, candidates(of: f)) }
        guard let replays = held.replays(ofComponentOf: f, in: self) else {
            // Nothing to replay (`hasNothingToReplay`): what the empty replays give every member.
            return MeteredOutcome(low: 0, high: 0)
        }
        return outcome(of: graph.componentMember[f], in: replays, sources: sources)
    }

    /// `meteredBalance(f).inputsChange`, without building the outcome.
    func meteredInputsChange(_ f: Int, held: inout HeldReplays) -> Instant? {
        if graph.features[f].kind == .continuous { return continuousBalance(f, candidates(of: f)).inputsChange }
        return held.replays(ofComponentOf: f, in: self)?.inputsChange
    }

    /// Credit system `s`'s balance at `t` over certain candidates and over all of them (nil:
    /// unlimited): `meteredBalance(s)`'s `low` and `high`, without the rest of its outcome (what
    /// a feature's decision reads of each system that can pay for it).
    func creditBalance(_ s: Int, held: inout HeldReplays) -> (low: Int64?, high: Int64?) {
        guard let replays = held.replays(ofComponentOf: s, in: self) else { return (0, 0) }
        return balances(of: graph.componentMember[s], in: replays)
    }

    /// Member `m`'s balance in its component's replays, over certain candidates and over all.
    private func balances(of m: Int, in replays: ComponentReplays) -> (low: Int64?, high: Int64?) {
        let low = replays.low.balance(m, at: at)
        return (low, replays.uncertain ? replays.high.balance(m, at: at) : low)
    }

    /// The replays of credit component `c`, computed once per evaluation. `mayBeEmpty`: false when
    /// the caller found that a member may have a candidate grant (not asked again).
    func replays(ofComponent c: Int, mayBeEmpty: Bool = true) -> ComponentReplays {
        if let known = tables.component(c) { return known }
        return tables.keep(replayComponent(c, mayBeEmpty: mayBeEmpty), component: c)
    }

    /// Member `m`'s outcome in its component's replays (its grants' sources when `sources`).
    func outcome(of m: Int, in replays: ComponentReplays, sources wanted: Bool) -> MeteredOutcome {
        let (low, high, candidates, uncertain) = (replays.low, replays.high, replays.candidates, replays.uncertain)
        let range = low.members[m].candidates
        var sources: [BalanceSource] = []
        if wanted, !range.isEmpty {
            sources.reserveCapacity(range.count)
            for l in low.members[m].ledgers where low.pays(low.ledgers[l].source, reading: 0, at: at) {
                sources.append(source(candidates[low.ledgers[l].source], low.ledgers[l]))
            }
            for l in high.members[m].ledgers
            where uncertain && candidates[high.ledgers[l].source].present
                && !candidates[high.ledgers[l].source].certain {
                sources.append(source(candidates[high.ledgers[l].source], high.ledgers[l]))
            }
            for i in range where candidates[i].present && candidates[i].grant.amount == .unlimited {
                sources.append(balanceSource(candidates[i], allowance: nil, remaining: nil,
                                             interval: candidates[i].grant.interval))
            }
        }
        // With every candidate certain, `high` is `low` (its figures are not computed twice). Built
        // in one expression, so the outcome is not copied when returned.
        let balance = balances(of: m, in: replays), lowChange = low.nextBalanceChange(m, at: at)
        var outcome = MeteredOutcome(
            low: balance.low, high: balance.high,
            // What no grant covered stays overage, also once an unlimited grant came.
            overage: low.members[m].overage, sources: sources,
            trail: explains ? replays.trails[m] : [],
            hasUncertain: uncertain && range.contains { candidates[$0].present && !candidates[$0].certain },
            nextBalanceChange: uncertain ? earliest(lowChange, high.nextBalanceChange(m, at: at)) : lowChange,
            inputsChange: replays.inputsChange)
        // A soft limit of a grant there at `t`: one that starts later (at `customer_since`, or a
        // purchase's date still ahead) has none to draw on yet, nor a lot that lapsed.
        func softLimit(_ i: Int) -> Bool {
            guard candidates[i].present, candidates[i].grant.overage != nil else { return false }
            guard candidates[i].counted != nil else { return true }
            return low.members[m].ledgers.contains { low.ledgers[$0].source == i && low.ledgers[$0].exists(at: at) }
        }
        if range.contains(where: softLimit) {
            outcome.hasOverage = true
            outcome.hasCertainOverage = range.contains { candidates[$0].certain && softLimit($0) }
            (outcome.overdrawn, outcome.overdraftLow) = low.overdraft(m, at: at)
            outcome.overdraftHigh = uncertain ? high.overdraft(m, at: at).left : outcome.overdraftLow
        }
        return outcome
    }

    /// What a replayed candidate contributes at `t` (nothing before its grant exists). Inlined,
    /// as `balanceSource`, so a source is built where it is appended, not returned and copied.
    @inline(__always)
    private func source(_ c: Candidate, _ l: Ledger) -> BalanceSource {
        let exists = l.exists(at: at)
        var s = balanceSource(c, allowance: l.allowance,
                              carried: exists ? max(0, l.opening.subtractingSaturating(l.allowance)) : 0,
                              used: exists ? l.used : 0, remaining: exists ? l.balance : 0,
                              windowStart: exists ? l.currentStart : nil,
                              resetsAt: exists && l.windows != nil ? l.currentEnd.instant : nil,
                              interval: c.grant.interval)
        s.expiresAt = l.expiry
        if l.overage != nil {
            s.overdrawn = exists ? l.overdrawn : 0
            s.overdraftLeft = exists ? l.overdraftLeft : l.overage?.cap
        }
        return s
    }

    @inline(__always)
    private func balanceSource(_ c: Candidate, allowance: Int64?, carried: Int64 = 0, used: Int64 = 0,
                               remaining: Int64?, windowStart: Instant? = nil, resetsAt: Instant? = nil,
                               interval: Interval?) -> BalanceSource {
        let (name, kind) = sourceName(c)
        var s = BalanceSource(grant: name, kind: kind, product: c.product.map { graph.products[$0].name },
                              allowance: allowance, carried: carried, used: used, remaining: remaining,
                              windowStart: windowStart, resetsAt: resetsAt, interval: interval, certain: c.certain)
        if case .state(let i) = c.grant.source {
            (s.id, s.reason) = (state.grants[i].id, state.grants[i].reason)
        }
        if c.grant.overage != nil { s.overdraftLeft = c.grant.overage?.cap }
        return s
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
        outcome.excess = outcome.overage
        if outcome.high != nil { outcome.excessHigh = max(0, level.subtractingSaturating(allTotal)) }
        for c in all where c.grant.amount == .unlimited {
            outcome.sources.append(balanceSource(c, allowance: nil, remaining: nil, interval: c.grant.interval))
        }
        return outcome
    }
}

/// The replays of the credit component read last, held by a caller that asks about several
/// members of one component (a feature, then the credit systems that can pay for it): each read
/// of the evaluation's tables takes their lock.
struct HeldReplays {
    private var component = -1
    /// Nil while `component` is -1, or when it has nothing to replay (`hasNothingToReplay`).
    private var replays: ComponentReplays?

    /// The replays of the credit component of single-use feature or credit system `f`, held; nil
    /// when it has nothing to replay (most customers have no grant in most components, and no
    /// use of them): its replays would be the empty ones, neither built nor looked up.
    mutating func replays(ofComponentOf f: Int, in evaluation: Evaluation) -> ComponentReplays? {
        let c = evaluation.graph.componentOf[f]
        if component == c { return replays }
        let found = evaluation.hasNothingToReplay(c) ? nil : evaluation.replays(ofComponent: c, mayBeEmpty: false)
        (component, replays) = (c, found)
        return found
    }
}
