/// One candidate grant's allowance over time (§5): its windows, its balance in the current
/// window, and what was carried into it and used from it.
struct Ledger: Sendable {
    /// The allowance per window (× quantity for consumables), saturated.
    let allowance: Int64
    /// Nil: a lifetime allowance, one window forever.
    let windows: Windows?
    let carry: Grant.Carry?
    let priority: Int64
    let order: Int
    /// The grant exists from here (its purchase's `purchased_at`); nil when no purchase date is
    /// known: it then has no start, a full allowance in every window however early, and no carry.
    let existsFrom: Instant?
    /// What the caller made it from (its candidate grant).
    let source: Int

    private(set) var started = false
    private(set) var window: Int64 = 0
    /// The current window's start (nil for a lifetime allowance) and end (never for one).
    private(set) var currentStart: Instant?
    private(set) var currentEnd: End = .never
    private(set) var balance: Int64 = 0
    /// The balance the current window started with (allowance + carried).
    private(set) var opening: Int64 = 0
    private(set) var used: Int64 = 0

    init(allowance: Int64, windows: Windows?, carry: Grant.Carry?, priority: Int64, order: Int, existsFrom: Instant?,
         source: Int) {
        self.allowance = allowance
        self.windows = windows
        // §5: nothing piles up from an unknown past (an earlier use could otherwise add windows of
        // carry to a later balance).
        self.carry = existsFrom == nil ? nil : carry
        self.priority = priority
        self.order = order
        self.existsFrom = existsFrom
        self.source = source
    }

    func exists(at instant: Instant) -> Bool {
        existsFrom.map { instant >= $0 } ?? true
    }

    /// Moves to the window containing `instant` (instants only move forward). The first window
    /// of the grant's history is the one containing its start (without carry, the one containing
    /// the first `instant`: the windows before it leave nothing behind); it starts with the full
    /// allowance. An instant before the current window's end changes nothing, without calendar
    /// arithmetic.
    mutating func advance(to instant: Instant) {
        if !started {
            started = true
            // INVARIANT: a ledger with carry has a start (init drops carry without one).
            enter(carry == nil ? instant : existsFrom ?? instant)
            balance = allowance
            opening = allowance
            used = 0
        }
        guard case .at(var end) = currentEnd, instant >= end, let windows else { return }
        let before = window
        // The next few windows are stepped to (a boundary's arithmetic each), a later one searched for.
        repeat {
            let next = windows.start(after: end, index: window + 1)
            window += 1
            currentStart = end
            currentEnd = .at(next)
            end = next
        } while instant >= end && window - before < Ledger.steps
        if instant >= end { enter(instant) }
        balance = Ledger.carried(balance, windows: window - before, allowance: allowance, carry: carry)
        opening = balance
        used = 0
    }

    /// The most windows `advance` steps through before searching.
    private static let steps: Int64 = 3

    /// Makes the window containing `instant` the current one, with its bounds.
    private mutating func enter(_ instant: Instant) {
        guard let w = windows?.window(containing: instant) else { return }
        window = w.index
        currentStart = w.start
        currentEnd = .at(w.end)
    }

    /// The balance after `n ≥ 1` window boundaries with no use in between, in O(1): without
    /// carry the allowance; with carry each boundary makes it `allowance + min(cap, balance)`.
    static func carried(_ balance: Int64, windows n: Int64, allowance a: Int64, carry: Grant.Carry?) -> Int64 {
        switch carry {
        case nil:
            return a
        case .uncapped:
            return balance.addingSaturating(a.multipliedSaturating(by: n))
        case .upTo(let cap):
            if balance >= cap { return a.addingSaturating(cap) }
            // Below the cap the balance grows by `a` per boundary; after `s` boundaries it reaches
            // the cap, and one more boundary fixes it at `a + cap`.
            let s = a > 0 ? (cap - balance - 1) / a + 1 : Int64.max  // ceil((cap - balance) / a), no overflow
            return n <= s ? balance.addingSaturating(a.multipliedSaturating(by: n)) : a.addingSaturating(cap)
        }
    }

    mutating func consume(_ amount: Int64) -> Int64 {
        let taken = min(balance, amount)
        balance -= taken
        used = used.addingSaturating(taken)
        return taken
    }

    /// Whether the balance will differ after the next window boundary if nothing is used: not
    /// for a lifetime allowance, nor at a fixed point of the carry rule (without carry, a full
    /// window; with `carry up to N`, a balance of `allowance + N`). A fixed point stays fixed, so
    /// a ledger that does not change at its next boundary changes at no later one either.
    var changesAtNextBoundary: Bool {
        windows != nil && Ledger.carried(balance, windows: 1, allowance: allowance, carry: carry) != balance
    }

}

/// A use to replay: when, how much, its position in the state (ties keep state order), the
/// component member it names, and the reading of the state it is charged under (`UseReadings`).
struct UseEvent {
    var at: Instant
    var amount: Int64
    var index: Int
    var member: Int
    var reading: Int32 = 0
}

/// §5 "what paid for a use stays paid": a use consumes from the grants that were candidates at its
/// instant. Reading 0 is the state as read at `t` (what most uses are charged under: nothing the
/// component watches started or stopped counting since); each other reading is the state as read
/// at the earlier instants of some uses. Per other reading, which grant instances (the
/// candidates of the component, `ComponentReplays.candidates`) were candidates then, and certain.
struct UseReadings {
    /// Words per reading in each bit set.
    let words: Int
    /// Per reading ≥ 1, a bit per instance.
    var candidate: [UInt64]
    var certain: [UInt64]

    init(readings: Int, instances: Int) {
        words = (instances + 63) / 64
        candidate = Array(repeating: 0, count: readings * words)
        certain = candidate
    }

    mutating func mark(_ instance: Int, reading: Int, certain isCertain: Bool) {
        let (w, bit) = ((reading - 1) * words + instance / 64, UInt64(1) << (instance % 64))
        candidate[w] |= bit
        if isCertain { certain[w] |= bit }
    }

    /// Whether `instance` pays at `reading` ≥ 1 (only when certain, in the replay over certain grants).
    func pays(_ instance: Int, reading: Int, certainOnly: Bool) -> Bool {
        let (w, bit) = ((reading - 1) * words + instance / 64, UInt64(1) << (instance % 64))
        return (certainOnly ? certain[w] : candidate[w]) & bit != 0
    }
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
    /// A credit system that can pay for a member: `amount` of the member cost `credits`.
    struct Route: Sendable {
        var member: Int
        var amount: Int64
        var credits: Int64
    }

    struct Member {
        var feature: Int
        /// An unlimited grant covers whatever the counted ones cannot.
        var unlimited = false
        /// Its ledgers, a range of `ledgers`.
        var ledgers: Range<Int> = 0..<0
        /// The caller's grants for it (its candidates), a range of what the ledgers' sources index.
        var candidates: Range<Int>
        var overage: Int64 = 0
    }

    let members: UnsafeMutableBufferPointer<Member>
    let ledgers: UnsafeMutableBufferPointer<Ledger>
    /// The component's grant instances (what the ledgers' sources index).
    let candidates: UnsafeMutableBufferPointer<Candidate>
    /// Whether only certain candidates pay (the replay behind `low`).
    let certainOnly: Bool
    /// The readings other than `t`'s that uses are charged under; nil: none.
    let readings: UseReadings?

    /// Whether candidate `i` pays for a use charged under `reading` (0: the state read at `t`).
    @inline(__always)
    func pays(_ i: Int, reading: Int32) -> Bool {
        guard reading != 0, let readings else { return candidates[i].present && (candidates[i].certain || !certainOnly) }
        return readings.pays(i, reading: Int(reading), certainOnly: certainOnly)
    }

    /// Whether one of a member's unlimited grants pays at `reading` (it covers whatever the
    /// counted ones cannot).
    private func unlimited(_ m: Int, reading: Int32) -> Bool {
        if reading == 0 { return members[m].unlimited }
        return members[m].candidates.contains { candidates[$0].grant.amount == .unlimited && pays($0, reading: reading) }
    }

    /// Moves a member's ledgers that pay at `reading` and exist at `instant` to the window
    /// containing it.
    private func advance(_ m: Int, to instant: Instant, reading: Int32) {
        for i in members[m].ledgers where pays(ledgers[i].source, reading: reading) && ledgers[i].exists(at: instant) {
            ledgers[i].advance(to: instant)
        }
    }

    /// What a member has left for a use at `instant` charged under `reading`, its ledgers
    /// advanced there (nil: unlimited).
    private func available(_ m: Int, at instant: Instant, reading: Int32) -> Int64? {
        if unlimited(m, reading: reading) { return nil }
        var total: Int64 = 0
        for i in members[m].ledgers where pays(ledgers[i].source, reading: reading) && ledgers[i].exists(at: instant) {
            total = total.addingSaturating(ledgers[i].balance)
        }
        return total
    }

    /// Takes up to `amount` from a member's ledgers in consumption order: lower priority first,
    /// then the window that ends soonest (lifetime last), then declaration order (one grant
    /// counted for several purchases in purchase order). Returns what is left and, when
    /// `explain`, the parts.
    private func take(_ amount: Int64, from m: Int, at instant: Instant, reading: Int32, explain: Bool,
                      grantName: (Int) -> String) -> (rest: Int64, parts: [String]) {
        // The ledgers to take from, sorted (on the stack when few; one needs no sort).
        withUnsafeTemporaryAllocation(of: Int.self, capacity: members[m].ledgers.count) { buffer in
            var count = 0
            for i in members[m].ledgers
            where ledgers[i].balance > 0 && pays(ledgers[i].source, reading: reading) && ledgers[i].exists(at: instant) {
                buffer.initializeElement(at: count, to: i)
                count += 1
            }
            var eligible = UnsafeMutableBufferPointer(rebasing: buffer[..<count])
            if count > 1 {
                eligible.sort { a, b in
                    let (x, y) = (ledgers[a], ledgers[b])
                    if x.priority != y.priority { return x.priority < y.priority }
                    let (ex, ey) = (x.currentEnd, y.currentEnd)
                    if ex != ey { return ex < ey }
                    if x.order != y.order { return x.order < y.order }
                    return a < b
                }
            }
            var remaining = amount
            var parts: [String] = []
            for i in eligible where remaining > 0 {
                let taken = ledgers[i].consume(remaining)
                remaining -= taken
                if explain { parts.append("\(grantName(ledgers[i].source)) \(taken)") }
            }
            return (remaining, parts)
        }
    }

    /// Replays `events` (sorted by (at, index), all at or before `t`), then moves every ledger of a
    /// candidate at `t` to `t`. `routes`: per member, the credit systems that can pay for it, in
    /// declaration order. When `explain`, returns each member's trail, naming a ledger's source by
    /// `grantName`, a feature by `featureName` and an amount of a member by `systemUnit`; else
    /// nothing.
    func run(_ events: UnsafeBufferPointer<UseEvent>, routes: [[Route]], at t: Instant, explain: Bool,
             grantName: (Int) -> String, featureName: (Int) -> String, systemUnit: (Int, Int64) -> String) -> [[String]] {
        var trails: [[String]] = explain ? Array(repeating: [], count: members.count) : []
        for event in events {
            let m = event.member
            advance(m, to: event.at, reading: event.reading)
            var (rest, parts) = take(event.amount, from: m, at: event.at, reading: event.reading, explain: explain,
                                     grantName: grantName)
            if rest > 0, unlimited(m, reading: event.reading) { rest = 0 }
            var paid = ""
            if rest > 0, !routes[m].isEmpty {
                let payments = spill(rest, routes[m], at: event.at, reading: event.reading, explain: explain, grantName: grantName)
                rest = payments.rest
                if explain {
                    for p in payments.paid {
                        let systemName = featureName(members[p.system].feature)
                        paid += "; \(p.credits) \(systemUnit(p.system, p.credits)) from `\(systemName)`"
                        trails[p.system].append("  \(event.at): \(p.credits) for \(p.units) `\(featureName(members[m].feature))`"
                                                + (p.parts.isEmpty ? "" : " ← " + p.parts.joined(separator: ", ")))
                    }
                }
            }
            members[m].overage = members[m].overage.addingSaturating(rest)
            if explain {
                var line = "  \(event.at): used \(event.amount)"
                line += parts.isEmpty ? "" : " ← " + parts.joined(separator: ", ")
                line += paid
                if rest > 0 { line += " (overage \(rest))" }
                trails[m].append(line)
            }
        }
        for m in members.indices { advance(m, to: t, reading: 0) }
        return trails
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
            let parts = take(credits, from: system, at: instant, reading: reading, explain: explain, grantName: grantName).parts
            if explain { paid.append(Payment(system: system, credits: credits, units: units, parts: parts)) }
        }
        for route in routes {
            advance(route.member, to: instant, reading: reading)
            let need = rest.multipliedDividedRoundingUp(by: route.credits, dividedBy: route.amount)
            guard available(route.member, at: instant, reading: reading).map({ $0 >= need }) ?? true else { continue }
            pay(need, for: rest, from: route.member)
            return (0, paid)
        }
        // No system covers it all (so none is unlimited): each pays what it can.
        var left = rest
        for route in routes where left > 0 {
            let balance = available(route.member, at: instant, reading: reading) ?? 0
            let need = left.multipliedDividedRoundingUp(by: route.credits, dividedBy: route.amount)
            if balance >= need {
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

    /// The first boundary after `t` at which one of a member's ledgers of a candidate at `t`
    /// (replayed up to `t`) changes by itself.
    func nextBalanceChange(_ m: Int, at t: Instant) -> Instant? {
        var next: Instant?
        for i in members[m].ledgers
        where pays(ledgers[i].source, reading: 0) && ledgers[i].exists(at: t) && ledgers[i].changesAtNextBoundary {
            next = earliest(next, ledgers[i].currentEnd.instant)
        }
        return next
    }
}

/// A credit component's replays at `t` (§5), kept by an evaluation: each member's outcome is
/// read from them. Two allocations: the candidates and each replay's members are plain values in
/// the object's own storage, the ledgers in one block it owns (an array each cost an allocation
/// and a release; one block for all was past the sizes the allocator keeps at hand per thread).
final class ComponentReplays: ManagedBuffer<ComponentReplays.Header, UInt64> {
    struct Header {
        /// Every member's candidate grants, member after member (what the ledgers' sources index).
        var candidates: UnsafeMutableBufferPointer<Candidate>
        /// Over the certain candidates (`low`, overage, the trail), and over all of them (`high`:
        /// the same replay when every candidate is certain).
        var low: ComponentReplay
        var high: ComponentReplay
        /// Whether some candidate is uncertain (else `high` is `low`).
        var uncertain = false
        /// §6: the earliest instant after `t` at which an input of any member's balance changes by
        /// itself (a window boundary of a grant, a dated use, a grant starting at `customer_since`).
        var inputsChange: Instant?
        /// Each member's trail in `low`, when the evaluation explains.
        var trails: [[String]] = []
        /// Both replays' ledgers.
        fileprivate var ledgerBlock: UnsafeMutableRawPointer?
    }

    /// Room for up to `n` candidates and, for each of two replays, `m` members; the header's
    /// buffers span that room (the builder narrows them to what it fills), the ledgers none yet.
    static func allocate(members m: Int, candidates n: Int) -> ComponentReplays {
        var layout = StorageLayout()
        let candidatesAt = layout.place(Candidate.self, n)
        let membersAt = layout.place(ComponentReplay.Member.self, 2 * m)
        assert(layout.alignment <= MemoryLayout<UInt64>.alignment)
        let object = create(minimumCapacity: (layout.size + 7) / 8) { object in
            object.withUnsafeMutablePointerToElements { words in
                let raw = UnsafeMutableRawPointer(words)
                let members = (raw + membersAt).bindMemory(to: ComponentReplay.Member.self, capacity: 2 * m)
                let candidates = UnsafeMutableBufferPointer(start: (raw + candidatesAt).bindMemory(to: Candidate.self, capacity: n),
                                                            count: n)
                func replay(_ start: UnsafeMutablePointer<ComponentReplay.Member>, certainOnly: Bool) -> ComponentReplay {
                    ComponentReplay(members: UnsafeMutableBufferPointer(start: start, count: m), ledgers: .init(start: nil, count: 0),
                                    candidates: candidates, certainOnly: certainOnly, readings: nil)
                }
                return Header(candidates: candidates, low: replay(members, certainOnly: true),
                              high: replay(members + m, certainOnly: false))
            }
        }
        return unsafeDowncast(object, to: ComponentReplays.self)
    }

    /// Room for `low` ledgers of the first replay and `high` of the second, in one block.
    func placeLedgers(low: Int, high: Int) -> (low: UnsafeMutableBufferPointer<Ledger>, high: UnsafeMutableBufferPointer<Ledger>) {
        let block = UnsafeMutableRawPointer.allocate(byteCount: max(1, (low + high) * MemoryLayout<Ledger>.stride),
                                                     alignment: MemoryLayout<Ledger>.alignment)
        withUnsafeMutablePointerToHeader { $0.pointee.ledgerBlock = block }
        let ledgers = block.bindMemory(to: Ledger.self, capacity: low + high)
        return (UnsafeMutableBufferPointer(start: ledgers, count: low), UnsafeMutableBufferPointer(start: ledgers + low, count: high))
    }

    deinit {
        // Plain values: nothing to deinitialize.
        withUnsafeMutablePointerToHeader { $0.pointee.ledgerBlock?.deallocate() }
    }

    // The header read and written in place: `header` is a class property, and each access to it
    // was checked for exclusivity at run time.
    var candidates: UnsafeMutableBufferPointer<Candidate> { withUnsafeMutablePointerToHeader { $0.pointee.candidates } }
    var low: ComponentReplay { withUnsafeMutablePointerToHeader { $0.pointee.low } }
    var high: ComponentReplay { withUnsafeMutablePointerToHeader { $0.pointee.high } }
    var uncertain: Bool { withUnsafeMutablePointerToHeader { $0.pointee.uncertain } }
    var inputsChange: Instant? { withUnsafeMutablePointerToHeader { $0.pointee.inputsChange } }
    var trails: [[String]] { withUnsafeMutablePointerToHeader { $0.pointee.trails } }

    /// Sets what the replays found (the ledger block stays).
    func finish(candidates: UnsafeMutableBufferPointer<Candidate>, low: ComponentReplay, high: ComponentReplay,
                uncertain: Bool, inputsChange: Instant?, trails: [[String]]) {
        withUnsafeMutablePointerToHeader { header in
            header.pointee.candidates = candidates
            header.pointee.low = low
            header.pointee.high = high
            header.pointee.uncertain = uncertain
            header.pointee.inputsChange = inputsChange
            header.pointee.trails = trails
        }
    }
}
