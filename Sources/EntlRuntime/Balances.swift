/// One candidate grant's allowance over time (§5): its windows, its balance in the current
/// window, and what was carried into it and used from it.
struct Ledger {
    /// The allowance per window (× quantity for consumables), saturated.
    let allowance: Int64
    /// Nil: a lifetime allowance, one window forever.
    let windows: Windows?
    let carry: Grant.Carry?
    let priority: Int64
    let order: Int
    /// The grant exists from here (its purchase's `purchased_at`); nil when no purchase date is known.
    let existsFrom: Instant?

    private(set) var started = false
    private(set) var window: Int64 = 0
    private(set) var balance: Int64 = 0
    /// The balance the current window started with (allowance + carried).
    private(set) var opening: Int64 = 0
    private(set) var used: Int64 = 0

    init(allowance: Int64, windows: Windows?, carry: Grant.Carry?, priority: Int64, order: Int, existsFrom: Instant?) {
        self.allowance = allowance
        self.windows = windows
        self.carry = carry
        self.priority = priority
        self.order = order
        self.existsFrom = existsFrom
    }

    func exists(at instant: Instant) -> Bool {
        existsFrom.map { instant >= $0 } ?? true
    }

    func index(of instant: Instant) -> Int64 {
        windows?.index(containing: instant) ?? 0
    }

    /// Moves to the window containing `instant`. The first window of the grant's history is the
    /// one containing `historyStart`; it starts with the full allowance.
    mutating func advance(to instant: Instant, historyStart: Instant) {
        let target = index(of: instant)
        if !started {
            started = true
            window = index(of: existsFrom ?? historyStart)
            balance = allowance
            opening = allowance
            used = 0
        }
        guard target > window else { return }
        balance = Ledger.carried(balance, windows: target - window, allowance: allowance, carry: carry)
        opening = balance
        used = 0
        window = target
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

    /// Where the current window ends (lifetime grants: never).
    var currentEnd: End {
        guard let w = windows else { return .never }
        return .at(w.start(window + 1))
    }

    var currentStart: Instant? {
        windows?.start(window)
    }
}

/// A use to replay: when, how much, and its position in the state (ties keep state order).
struct UseEvent {
    var at: Instant
    var amount: Int64
    var index: Int
}

/// Replays single-use events against ledgers (§5) and reports the balance at `t`.
enum Replay {
    struct Outcome {
        var balance: Int64 = 0
        var overage: Int64 = 0
    }

    /// `events` must be sorted by (at, index) and at or before `t`.
    /// `trail` receives one line per event when explaining; `names` labels the ledgers there.
    static func run(_ ledgers: inout [Ledger], events: [UseEvent], at t: Instant,
                    trail: inout [String]?, names: [String]) -> Outcome {
        var outcome = Outcome()
        let historyStart = events.first?.at ?? t
        var eligible: [Int] = []
        for event in events {
            eligible.removeAll(keepingCapacity: true)
            for i in ledgers.indices where ledgers[i].exists(at: event.at) {
                ledgers[i].advance(to: event.at, historyStart: historyStart)
                if ledgers[i].balance > 0 { eligible.append(i) }
            }
            // Lower priority first, then the window that ends soonest (lifetime last), then
            // declaration order; one grant counted for several purchases goes in purchase order.
            eligible.sort { a, b in
                let (x, y) = (ledgers[a], ledgers[b])
                if x.priority != y.priority { return x.priority < y.priority }
                let (ex, ey) = (x.currentEnd, y.currentEnd)
                if ex != ey { return ex < ey }
                if x.order != y.order { return x.order < y.order }
                return a < b
            }
            var remaining = event.amount
            var parts: [String] = []
            for i in eligible where remaining > 0 {
                let taken = ledgers[i].consume(remaining)
                remaining -= taken
                if trail != nil { parts.append("\(names[i]) \(taken)") }
            }
            outcome.overage = outcome.overage.addingSaturating(remaining)
            if trail != nil {
                var line = "  \(event.at): used \(event.amount)"
                line += parts.isEmpty ? "" : " ← " + parts.joined(separator: ", ")
                if remaining > 0 { line += " (overage \(remaining))" }
                trail?.append(line)
            }
        }
        for i in ledgers.indices where ledgers[i].exists(at: t) {
            ledgers[i].advance(to: t, historyStart: historyStart)
            outcome.balance = outcome.balance.addingSaturating(ledgers[i].balance)
        }
        return outcome
    }
}
