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
    /// A lot's lapse: its single window ends then, and it exists no more (nil: a lifetime
    /// allowance never lapses).
    let expiry: Instant?
    /// A soft limit: what nothing else covers may be overdrawn on it, up to a cap per window.
    let overage: Grant.Overage?
    /// When it stops paying by itself inside its windows: the `until` of the state grant it is, or
    /// that the entitlement granting it is active through (nil: none) — its place in the
    /// consumption order (`consumptionEnd`), a window cut short ending there.
    let until: Instant?

    private(set) var started = false
    private(set) var window: Int64 = 0
    /// The current window's start (nil for a lifetime allowance) and end (never for one).
    private(set) var currentStart: Instant?
    private(set) var currentEnd: End = .never
    private(set) var balance: Int64 = 0
    /// The balance the current window started with (allowance + carried).
    private(set) var opening: Int64 = 0
    private(set) var used: Int64 = 0
    /// What was overdrawn on it in the current window (a soft limit's billable use).
    private(set) var overdrawn: Int64 = 0
    /// The current window was resumed from a position that is not one of `windows` (its anchor
    /// moved since: a purchase without `purchased_at` whose `period_start` moved, a ledger edited by
    /// hand): the next boundary is the window's own end, and the windows after it are `windows`'
    /// again.
    private var realign = false

    init(allowance: Int64, windows: Windows?, carry: Grant.Carry?, priority: Int64, order: Int, existsFrom: Instant?,
         source: Int, expiry: Instant? = nil, overage: Grant.Overage? = nil, until: Instant? = nil) {
        self.allowance = allowance
        self.windows = windows
        // §5: nothing piles up from an unknown past (an earlier use could otherwise add windows of
        // carry to a later balance).
        self.carry = existsFrom == nil ? nil : carry
        self.priority = priority
        self.order = order
        self.existsFrom = existsFrom
        self.source = source
        self.expiry = expiry
        self.overage = overage
        self.until = until
        if windows == nil, let expiry { currentEnd = .at(expiry) }
    }

    /// §5's "the grant whose current window ends soonest": its current window's end, or its `until`
    /// when that comes first (what is left then is lost, as a lot's is when it lapses).
    var consumptionEnd: End { until.map { min(currentEnd, .at($0)) } ?? currentEnd }

    /// Whether the grant is there at `instant`: from its start, and until a lot lapses.
    func exists(at instant: Instant) -> Bool {
        existsFrom.map { instant >= $0 } ?? true && expiry.map { instant < $0 } ?? true
    }

    /// Moves to the window containing `instant` (instants only move forward). The first window
    /// of the grant's history is the one containing its start (without carry, the one containing
    /// the first `instant`: the windows before it leave nothing behind); it starts with the full
    /// allowance. An instant before the current window's end changes nothing, without calendar
    /// arithmetic.
    mutating func advance(to instant: Instant) {
        let fresh = !started
        if !started {
            started = true
            // INVARIANT: a ledger with carry has a start (init drops carry without one).
            enter(carry == nil ? instant : existsFrom ?? instant)
            balance = allowance
            opening = allowance
            used = 0
        }
        guard case .at(var end) = currentEnd, instant >= end, let windows else { return }
        if realign {
            // The resumed window ends at `end`; then the windows of `windows` up to `instant`'s.
            let w = windows.window(containing: instant)
            let crossed = 1 + w.index - windows.window(containing: end).index
            realign = false
            window = w.index
            currentStart = w.start
            currentEnd = .at(w.end)
            balance = Ledger.carried(balance, windows: crossed, allowance: allowance, carry: carry)
            opening = balance
            used = 0
            overdrawn = 0
            return
        }
        let before = window
        if fresh {
            // From the grant's first window (its start, with carry): most often many windows
            // back, searched for at once rather than stepped through first.
            enter(instant)
        } else {
            // The next few windows are stepped to (a boundary's arithmetic each), a later one searched for.
            repeat {
                let next = windows.start(after: end, index: window + 1)
                window += 1
                currentStart = end
                currentEnd = .at(next)
                end = next
            } while instant >= end && window - before < Ledger.steps
            if instant >= end { enter(instant) }
        }
        balance = Ledger.carried(balance, windows: window - before, allowance: allowance, carry: carry)
        opening = balance
        used = 0
        overdrawn = 0
    }

    /// Where it stands, to resume from (nil before its first window: a fresh ledger).
    var position: LedgerSnapshot.Position? {
        guard started else { return nil }
        let windowed = windows != nil
        return LedgerSnapshot.Position(windowStart: windowed ? currentStart : nil,
                                       windowEnd: windowed ? currentEnd.instant : nil, balance: balance,
                                       carried: max(0, opening.subtractingSaturating(allowance)), used: used,
                                       overdrawn: overdrawn)
    }

    /// Continues from `p`, where the same grant instance stood after the uses before some instant
    /// (a compacted state's ledger, or a consume session's). Its windows are this ledger's: a
    /// window of `p` that is not one of them (the anchor moved) lasts to its own end. Returns false
    /// (and stays fresh) when `p` cannot be this ledger's: a window without windows or none with.
    @discardableResult
    mutating func resume(_ p: LedgerSnapshot.Position) -> Bool {
        if let windows {
            guard let start = p.windowStart, let end = p.windowEnd, start < end else { return false }
            let w = windows.window(containing: start)
            window = w.index
            realign = w.start != start || w.end != end
            currentStart = start
            currentEnd = .at(end)
        } else if p.windowStart != nil {
            return false
        }
        started = true
        // A window holds at most its allowance and what was carried into it, within the carry's
        // cap, less what was used from it: a ledger edited by hand or damaged is read within the
        // rules' bounds, never as more — nor one whose grant is smaller now than when it was written
        // (a consumable's quantity lowered by a partial refund, a state grant's amount): it keeps
        // what the new allowance leaves after its uses (its balance is its opening less its uses).
        let carried = switch carry {
        case nil: Int64(0)
        case .uncapped: p.carried
        case .upTo(let cap): min(p.carried, cap)
        }
        opening = allowance.addingSaturating(carried)
        balance = max(0, min(p.balance, opening, opening.subtractingSaturating(p.used)))
        used = p.used
        overdrawn = p.overdrawn
        return true
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

    /// What may still be overdrawn in the current window: 0 without `overage`, nil without a cap.
    var overdraftLeft: Int64? {
        guard let overage else { return 0 }
        return overage.cap.map { max(0, $0 - overdrawn) }
    }

    /// Overdraws up to `amount` (what its soft limit still allows in this window); returns how much.
    mutating func overdraw(_ amount: Int64) -> Int64 {
        let taken = min(amount, overdraftLeft ?? amount)
        overdrawn = overdrawn.addingSaturating(taken)
        return taken
    }

    /// Whether the balance will differ after the next window boundary if nothing is used: not
    /// for a lifetime allowance, nor at a fixed point of the carry rule (without carry, a full
    /// window; with `carry up to N`, a balance of `allowance + N`). A fixed point stays fixed, so
    /// a ledger that does not change at its next boundary changes at no later one either.
    var changesAtNextBoundary: Bool {
        // A lot lapses at its end with what it has left.
        guard windows != nil else { return expiry != nil && balance > 0 }
        return overdrawn > 0 || Ledger.carried(balance, windows: 1, allowance: allowance, carry: carry) != balance
    }

}
