/// A use to replay: when, how much, its position in the state (ties keep state order), the
/// component member it names, and the reading of the state it is charged under (`UseReadings`).
struct UseEvent {
    var at: Instant
    var amount: Int64
    var index: Int
    var member: Int
    var reading: Int32 = 0
}

/// The replay of one credit component (§5): a credit system and every single-use feature its
/// schema lists (or a single-use feature alone), their uses in one time order. Each use takes from
/// its own feature's grants that were candidates at its instant; what they cannot cover, `rest`,
/// spills into the credit systems listing the feature (`spill`); only what nothing covers is
/// overage.
///
/// Its members and ledgers are plain values in the storage of the `ComponentReplays` that holds
/// it, and valid while that object lives.
struct ComponentReplay {
    /// A credit system that can pay for a member, linked with the graph.
    typealias Route = EnvironmentGraph.MemberRoute

    struct Member {
        var feature: Int
        /// The first in consumption order of its unlimited grants that pay at `t` (nil: none): it
        /// covers whatever the counted ones before it cannot, and those after it pay nothing.
        var unlimited: ConsumptionKey?
        /// Its ledgers, a range of `ledgers`.
        var ledgers: Range<Int> = 0..<0
        /// The caller's grants for it (its candidates), a range of what the ledgers' sources index.
        var candidates: Range<Int>
        var overage: Int64 = 0
        /// Whether an unlimited grant of it stands before `t` otherwise than at `t` (`Candidate.past`).
        var pastUnlimited = false
    }

    let members: UnsafeMutableBufferPointer<Member>
    let ledgers: UnsafeMutableBufferPointer<Ledger>
    /// The component's grant instances (what the ledgers' sources index).
    let candidates: UnsafeMutableBufferPointer<Candidate>
    /// Whether only certain candidates pay (the replay behind `low`).
    let certainOnly: Bool
    /// The readings other than `t`'s that uses are charged under; nil: none.
    let readings: UseReadings?
    /// `t`, the instant the replay is read at.
    let now: Instant

    /// Whether candidate `i` pays for a use at `instant` charged under `reading` (0: the state
    /// read at `t`; before `t`, as `Candidate.past` says).
    @inline(__always)
    func pays(_ i: Int, reading: Int32, at instant: Instant) -> Bool {
        if instant < now, let past = candidates[i].past, reading == 0 || past.own {
            return (past.rank == 2 || past.rank == 1 && !certainOnly) && past.from.map({ $0 <= instant }) ?? true
                && past.until.map({ instant < $0 }) ?? true
        }
        guard reading != 0, let readings else {
            return candidates[i].present && (candidates[i].certain || !certainOnly)
        }
        return readings.pays(i, reading: Int(reading), certainOnly: certainOnly)
    }

    /// Whether ledger `i` pays for a use at `instant` charged under `reading`: its candidate does,
    /// and it exists then.
    @inline(__always)
    private func counts(_ i: Int, reading: Int32, at instant: Instant) -> Bool {
        pays(ledgers[i].source, reading: reading, at: instant) && ledgers[i].exists(at: instant)
    }

    /// The first in consumption order of a member's unlimited grants that pay for a use at
    /// `instant` charged under `reading` (nil: none): it covers whatever the counted ones before it
    /// cannot.
    private func unlimited(_ m: Int, reading: Int32, at instant: Instant) -> ConsumptionKey? {
        if reading == 0, instant >= now || !members[m].pastUnlimited { return members[m].unlimited }
        var first: ConsumptionKey?
        for i in members[m].candidates
        where candidates[i].grant.amount == .unlimited && pays(i, reading: reading, at: instant) {
            first = min(first ?? candidates[i].consumptionKey, candidates[i].consumptionKey)
        }
        return first
    }

    /// Moves a member's ledgers that pay at `reading` and exist at `instant` to the window
    /// containing it.
    private func advance(_ m: Int, to instant: Instant, reading: Int32) {
        for i in members[m].ledgers where counts(i, reading: reading, at: instant) {
            ledgers[i].advance(to: instant)
        }
    }

    /// What a member has left for a use at `instant` charged under `reading`, its ledgers
    /// advanced there (nil: unlimited).
    private func available(_ m: Int, at instant: Instant, reading: Int32) -> Int64? {
        if unlimited(m, reading: reading, at: instant) != nil { return nil }
        var total: Int64 = 0
        for i in members[m].ledgers where counts(i, reading: reading, at: instant) {
            total = total.addingSaturating(ledgers[i].balance)
        }
        return total
    }

    /// Takes up to `amount` from a member's ledgers in consumption order: lower priority first,
    /// then the window that ends soonest (lifetime last), then declaration order (one grant
    /// counted for several purchases in purchase order) — up to an unlimited grant that pays,
    /// which covers the rest (not when drawing on soft limits: nothing is overdrawn beside one).
    /// Returns what is left and, when `explain`, the parts.
    private func take(_ amount: Int64, from m: Int, at instant: Instant, reading: Int32, explain: Bool,
                      grantName: (Int) -> String, overdraft: Bool = false) -> (rest: Int64, parts: [String]) {
        // The ledgers to take from, sorted (on the stack when few; one needs no sort): with a
        // balance, or with overdraft left (`overdraft`).
        withUnsafeTemporaryAllocation(of: Int.self, capacity: members[m].ledgers.count) { buffer in
            var count = 0
            for i in members[m].ledgers
            where (overdraft ? ledgers[i].overdraftLeft != 0 : ledgers[i].balance > 0)
                && counts(i, reading: reading, at: instant) {
                buffer.initializeElement(at: count, to: i)
                count += 1
            }
            var eligible = UnsafeMutableBufferPointer(rebasing: buffer[..<count])
            if count > 1 {
                eligible.sort { a, b in
                    let (x, y) = (ledgers[a], ledgers[b])
                    if x.priority != y.priority { return x.priority < y.priority }
                    let (ex, ey) = (x.consumptionEnd, y.consumptionEnd)
                    if ex != ey { return ex < ey }
                    if x.order != y.order { return x.order < y.order }
                    return a < b
                }
            }
            var remaining = amount
            var parts: [String] = []
            let stop = overdraft ? nil : unlimited(m, reading: reading, at: instant)
            for i in eligible where remaining > 0 {
                if let stop, stop < ConsumptionKey(priority: ledgers[i].priority, end: ledgers[i].consumptionEnd,
                                                   order: ledgers[i].order) { break }
                let taken = overdraft ? ledgers[i].overdraw(remaining) : ledgers[i].consume(remaining)
                remaining -= taken
                if explain { parts.append("\(grantName(ledgers[i].source)) \(taken)") }
            }
            return (stop == nil ? remaining : 0, parts)
        }
    }

    /// Replays `events` (sorted by (at, index), all at or before `t`), then moves every ledger of a
    /// candidate at `t` to `t`. `routes`: per member, the credit systems that can pay for it, in
    /// declaration order. When `explain`, returns each member's trail, naming a ledger's source by
    /// `grantName`, a feature by `featureName` and an amount of a member by `systemUnit`; else
    /// nothing.
    func run(_ events: UnsafeBufferPointer<UseEvent>, routes: [[Route]], at t: Instant, explain: Bool,
             grantName: (Int) -> String, featureName: (Int) -> String,
             systemUnit: (Int, Int64) -> String) -> [[String]] {
        var trails: [[String]] = explain ? Array(repeating: [], count: members.count) : []
        for event in events {
            let m = event.member
            advance(m, to: event.at, reading: event.reading)
            var (rest, parts) = take(event.amount, from: m, at: event.at, reading: event.reading, explain: explain,
                                     grantName: grantName)
            var paid = ""
            if rest > 0, !routes[m].isEmpty {
                let payments = spill(rest, routes[m], at: event.at, reading: event.reading, explain: explain,
                                     grantName: grantName)
                rest = payments.rest
                if explain {
                    for p in payments.paid {
                        let systemName = featureName(members[p.system].feature)
                        paid += "; \(p.credits) \(systemUnit(p.system, p.credits)) from `\(systemName)`"
                        let feature = featureName(members[m].feature)
                        trails[p.system].append("  \(event.at): \(p.credits) for \(p.units) `\(feature)`"
                                                + (p.parts.isEmpty ? "" : " ← " + p.parts.joined(separator: ", ")))
                    }
                }
            }
            // A soft limit: what grants and credits leave is overdrawn on the grants declared with
            // `overage`, in consumption order, each up to its cap in its window.
            var overdrawn: [String] = []
            if rest > 0 {
                let drawn = take(rest, from: m, at: event.at, reading: event.reading, explain: explain,
                                 grantName: grantName, overdraft: true)
                rest = drawn.rest
                overdrawn = drawn.parts
            }
            members[m].overage = members[m].overage.addingSaturating(rest)
            if explain {
                var line = "  \(event.at): used \(event.amount)"
                line += parts.isEmpty ? "" : " ← " + parts.joined(separator: ", ")
                line += paid
                if !overdrawn.isEmpty { line += "; overdrawn on " + overdrawn.joined(separator: ", ") }
                if rest > 0 { line += " (overage \(rest))" }
                trails[m].append(line)
            }
        }
        advanceAll(to: t)
        return trails
    }

    /// Moves every ledger of a candidate at `t` to the window containing `t` (instants only move
    /// forward: what a later replay of later uses does first anyway).
    func advanceAll(to t: Instant) {
        for m in members.indices { advance(m, to: t, reading: 0) }
    }

    /// A credit system's payment toward a use: `credits` for `units` of the use's feature.
    struct Payment {
        var system: Int
        var credits: Int64
        var units: Int64
        var parts: [String]
    }

    /// §5: what a use's feature could not cover, `rest`, spills into the credit systems listing it.
    /// First as a check would pay it: the first system (declaration order) whose balance covers
    /// `ceil(rest × credits / amount)` pays that. Else each system in declaration order pays the
    /// full cost of what is left of `rest` when it covers it (and the spill ends), or else all it
    /// has, `b`, for the `floor(b × amount / credits)` whole units that buys. Returns what no
    /// system covered (overage) and the payments.
    private func spill(_ rest: Int64, _ routes: [Route], at instant: Instant, reading: Int32, explain: Bool,
                       grantName: (Int) -> String) -> (rest: Int64, paid: [Payment]) {
        var paid: [Payment] = []
        func pay(_ credits: Int64, for units: Int64, from system: Int) {
            let parts = take(credits, from: system, at: instant, reading: reading, explain: explain,
                             grantName: grantName).parts
            if explain { paid.append(Payment(system: system, credits: credits, units: units, parts: parts)) }
        }
        for route in routes {
            advance(route.member, to: instant, reading: reading)
            let need = rest.multipliedDividedRoundingUp(by: route.credits, dividedBy: route.amount)
            guard available(route.member, at: instant, reading: reading).map({ $0.covers(need) }) ?? true else {
                continue
            }
            pay(need, for: rest, from: route.member)
            return (0, paid)
        }
        // No system covers it all (so none is unlimited): each pays what it can.
        var left = rest
        for route in routes where left > 0 {
            let balance = available(route.member, at: instant, reading: reading) ?? 0
            let need = left.multipliedDividedRoundingUp(by: route.credits, dividedBy: route.amount)
            if balance.covers(need) {
                pay(need, for: left, from: route.member)
                left = 0
            } else if balance > 0 {
                let units = balance.multipliedDividedRoundingDown(by: route.amount, dividedBy: route.credits)
                pay(balance, for: units, from: route.member)
                left -= units
            }
        }
        return (left, paid)
    }

    /// The balance of a member at `t`, after `run`: what is left in the windows containing `t` of
    /// its candidates at `t` (nil: unlimited).
    func balance(_ m: Int, at t: Instant) -> Int64? { available(m, at: t, reading: 0) }

    /// A member's soft limits at `t`: what is overdrawn in the windows containing `t`, and what may
    /// still be overdrawn (nil: without limit), over its ledgers of candidates at `t`.
    func overdraft(_ m: Int, at t: Instant) -> (overdrawn: Int64, left: Int64?) {
        var overdrawn: Int64 = 0
        var left: Int64? = 0
        for i in members[m].ledgers
        where ledgers[i].overage != nil && counts(i, reading: 0, at: t) {
            overdrawn = overdrawn.addingSaturating(ledgers[i].overdrawn)
            left = ledgers[i].overdraftLeft.flatMap { l in left.map { $0.addingSaturating(l) } }
        }
        return (overdrawn, left)
    }

    /// The first boundary after `t` at which one of a member's ledgers of a candidate at `t`
    /// (replayed up to `t`) changes by itself.
    func nextBalanceChange(_ m: Int, at t: Instant) -> Instant? {
        var next: Instant?
        for i in members[m].ledgers
        where counts(i, reading: 0, at: t) && ledgers[i].changesAtNextBoundary {
            next = earliest(next, ledgers[i].currentEnd.instant)
        }
        return next
    }
}
