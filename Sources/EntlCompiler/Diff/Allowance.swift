import EntlRuntime
import Synchronization
import EntlSyntax

/// What a customer gets of one metered feature (or credit system) in one purchase situation: the
/// grants of every source active in it. `entlc diff` compares two of them.
///
/// The comparison is a partial order, decided conservatively: the new allowance *covers* the old
/// one when it is unlimited, or when for every window length the new grants give at least as much
/// as the old ones within one window of that length (a grant resetting more often counts the
/// windows of its interval that surely fit: a month holds 4 weeks and 28 days; a grant with no
/// reset counts once in every window) *and* its grants that reset give at least as much there as
/// the old ones that reset (a grant with no reset is given once: window after window, only what
/// resets comes again), and its carry-over caps add up to at least as much. So `20,000 per month`
/// → `1,000 per day` covers (28,000 in the shortest month), `20,000 per month` → `20,000 per year`
/// does not, `10,000 + 10,000 per month` covers `20,000 per month`, `5,000` (once) → `1,000 per
/// year` does not, and neither does `1,000 per year` → `1,000` (once) nor `12,000`.
///
/// Soft limits compare the same way: what may be overdrawn within one window of every length
/// (`overage` without `up to`: without limit). Lots compare by how long they last: for each length
/// an old lot lasts (and for ever, when the new grants hold a lot), the grants without reset that
/// surely last that long give at least what the old ones may (a month is 28 to 31 days). So losing
/// `overage`, a lower `overage up to`, a shorter `expires after` and a new `expires after` are
/// losses.
struct Allowance: Equatable {
    /// The grants, as written (their features and priorities do not take part).
    var grants: [EntlSyntax.Grant]

    var isEmpty: Bool { grants.isEmpty }
    /// An unlimited grant is unlimited for good: it cannot lapse (E224).
    var isUnlimited: Bool { grants.contains { if case .unlimited? = $0.amount { true } else { false } } }

    /// Whether a customer is at least as well off with `self` as with `old`.
    func covers(_ old: Allowance) -> Bool {
        if old.isEmpty || isUnlimited { return true }
        if isEmpty || old.isUnlimited { return false }
        for window in Allowance.windows.indices {
            for measure in [Allowance.amount, Allowance.overdraft] {
                for resetting in [false, true]
                where capacity(within: window, of: measure, resetting: resetting)
                    < old.capacity(within: window, of: measure, resetting: resetting) {
                    return false
                }
            }
        }
        return carryCapacity >= old.carryCapacity && lastsAsLong(as: old)
    }

    private static func amount(_ g: EntlSyntax.Grant) -> Int64? {
        if case .count(let n)? = g.amount { n.value } else { nil }
    }

    /// What may be overdrawn on a grant per window (nil: nothing; `Int64.max`: without limit).
    private static func overdraft(_ g: EntlSyntax.Grant) -> Int64? {
        g.overage.map { $0.cap?.value ?? .max }
    }

    /// Window lengths, shortest first.
    private static let windows = ResetInterval.allCases

    /// The months of an interval made of whole months (nil: of seconds).
    private static func months(_ i: ResetInterval) -> Int64? {
        switch i {
        case .month: 1
        case .quarter: 3
        case .halfYear: 6
        case .year: 12
        default: nil
        }
    }

    /// Shortest and longest length of each interval in seconds (calendar months, quarters, half
    /// years and years vary; days are 86,400 s in the UTC calendar).
    private static func seconds(_ i: ResetInterval) -> (min: Int64, max: Int64) {
        let day: Int64 = 86_400
        return switch i {
        case .minute: (60, 60)
        case .hour: (3600, 3600)
        case .day: (day, day)
        case .week: (7 * day, 7 * day)
        case .month: (28 * day, 31 * day)
        case .quarter: (89 * day, 92 * day)
        case .halfYear: (181 * day, 184 * day)
        case .year: (365 * day, 366 * day)
        }
    }

    /// What the grants surely give (`amount`: of allowance, or of overdraft) within one window of
    /// `Allowance.windows[window]`: each grant whose interval is no longer, times the whole
    /// intervals that fit, and each grant with no reset once (unless `resetting`: what comes again
    /// in every window). Saturates at `Int64.max`.
    private func capacity(within window: Int, of amount: (EntlSyntax.Grant) -> Int64?, resetting: Bool) -> Int64 {
        var total: Int64 = 0
        for g in grants where !resetting || g.per != nil {
            guard let n = amount(g) else { continue }
            let times: Int64
            if let i = g.per?.value {
                let w = Allowance.windows[window]
                guard ResetInterval.allCases.firstIndex(of: i)! <= window else { continue }
                // Windows of whole months nest: a year holds 2 half years and 12 months (by their
                // lengths in seconds, 365 / 366 days had made it hold no year and 11 months, which
                // left every yearly grant out of every comparison).
                if let a = Allowance.months(i), let b = Allowance.months(w) {
                    times = b / a
                } else {
                    times = i == w ? 1 : Allowance.seconds(w).min / Allowance.seconds(i).max
                }
            } else {
                times = 1
            }
            let (product, overflow) = n.multipliedReportingOverflow(by: times)
            let (sum, overflow2) = total.addingReportingOverflow(product)
            if overflow || overflow2 { return .max }
            total = sum
        }
        return total
    }

    /// What may be carried over, summed (uncapped carry: unbounded).
    private var carryCapacity: Int64 {
        var total: Int64 = 0
        for g in grants where g.per != nil {
            guard let carry = g.carry else { continue }
            guard let cap = carry.cap?.value else { return .max }
            let (sum, overflow) = total.addingReportingOverflow(cap)
            if overflow { return .max }
            total = sum
        }
        return total
    }

    /// Whether the grants without reset last as long as `old`'s: at each length an old lot lasts
    /// (and for ever, when these grants hold a lot, so a lifetime allowance turned into a lot is a
    /// loss), the amounts that surely last at least that long are at least those that may.
    private func lastsAsLong(as old: Allowance) -> Bool {
        let once = grants.filter { $0.per == nil }, oldOnce = old.grants.filter { $0.per == nil }
        var lengths: [Length?] = oldOnce.compactMap(\.expiresAfter).map(Length.init)
        if once.contains(where: { $0.expiresAfter != nil }) { lengths.append(nil) }
        func total(_ gs: [EntlSyntax.Grant], lasting length: Length?, surely: Bool) -> Int64 {
            gs.filter { Length.lasts($0.expiresAfter.map(Length.init), atLeast: length, surely: surely) }
                .reduce(Int64(0)) { sum, g in
                    let (s, overflow) = sum.addingReportingOverflow(Allowance.amount(g) ?? 0)
                    return overflow ? .max : s
                }
        }
        return lengths.allSatisfy {
            total(once, lasting: $0, surely: true) >= total(oldOnce, lasting: $0, surely: false)
        }
    }

    /// How long a lot (or a non-renewing purchase) lasts: whole months, or whole days.
    struct Length {
        var months: Bool
        var count: Int64

        init(_ e: EntlSyntax.Grant.Expiry) { self.init(e.count.value, e.unit.value) }

        init(_ n: Int64, _ unit: DurationUnit) {
            switch unit {
            case .days: (months, count) = (false, n)
            case .weeks: (months, count) = (false, n.multipliedSaturating(by: 7))
            case .months: (months, count) = (true, n)
            case .years: (months, count) = (true, n.multipliedSaturating(by: 12))
            }
        }

        /// Its shortest and longest length in days (so 12 months is surely shorter than 53 weeks,
        /// and 2 years never longer than 731 days).
        var days: (min: Int64, max: Int64) {
            guard months else { return (count, count) }
            return Length.span(months: count)
        }

        /// The shortest and longest number of days `months` calendar months span from any day, the
        /// day kept and clamped at a month's end as the runtime adds months (Jan 31 + 1 month =
        /// Feb 28 or 29): over the 400 years after which the Gregorian calendar repeats. Past 100
        /// years (longer than any duration or lot, E222), a year is 365 to 366 days.
        static func span(months: Int64) -> (min: Int64, max: Int64) {
            if let known = spans.withLock({ $0[months] }) { return known }
            let found = computeSpan(months: months)
            spans.withLock { $0[months] = found }
            return found
        }

        /// `span(months:)` as computed (a scan of 19,200 starts; a diff compares lengths in every
        /// purchase situation).
        private static let spans = Mutex<[Int64: (min: Int64, max: Int64)]>([:])

        private static func computeSpan(months: Int64) -> (min: Int64, max: Int64) {
            guard months <= 1_200 else {
                let (years, rest) = months.quotientAndRemainder(dividingBy: 12)
                return (years.multipliedSaturating(by: 365).addingSaturating(rest * 28),
                        years.multipliedSaturating(by: 366).addingSaturating(rest * 31))
            }
            func length(_ y: Int64, _ m: Int64) -> Int64 {
                m == 2 ? (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) ? 29 : 28) : [4, 6, 9, 11].contains(m) ? 30 : 31
            }
            /// Days since 0000-03-01 (a civil-from-days count; only differences matter).
            func day(_ y: Int64, _ m: Int64, _ d: Int64) -> Int64 {
                let y = m <= 2 ? y - 1 : y, mp = (m + 9) % 12
                return y * 365 + y / 4 - y / 100 + y / 400 + (153 * mp + 2) / 5 + d - 1
            }
            var shortest = Int64.max, longest = Int64.min
            for y in Int64(2000)..<2400 {
                for m in Int64(1)...12 {
                    let total = y * 12 + m - 1 + months, (y2, m2) = (total / 12, total % 12 + 1)
                    // Up to the 28th no day is clamped: the 1st stands for them.
                    for d: Int64 in [1, 29, 30, 31] where d <= length(y, m) {
                        let span = day(y2, m2, min(d, length(y2, m2))) - day(y, m, d)
                        (shortest, longest) = (min(shortest, span), max(longest, span))
                    }
                }
            }
            return (shortest, longest)
        }

        /// Whether `a` lasts at least as long as `b` (nil: for ever), surely or possibly.
        static func lasts(_ a: Length?, atLeast b: Length?, surely: Bool) -> Bool {
            guard let a else { return true }
            guard let b else { return false }
            if a.months == b.months { return a.count >= b.count }
            return surely ? a.days.min >= b.days.max : a.days.max >= b.days.min
        }
    }

    /// "20,000 per month carry up to 40,000 + 5,000", "unlimited", "nothing".
    var text: String {
        if grants.isEmpty { return "nothing" }
        return grants.map { g in
            var out: String
            switch g.amount {
            case .count(let n)?: out = n.value.grouped
            case .unlimited?: out = "unlimited"
            case nil: out = "on"
            }
            if let per = g.per { out += " per " + per.value.rawValue }
            if let carry = g.carry { out += " carry" + (carry.cap.map { " up to " + $0.value.grouped } ?? "") }
            if let overage = g.overage { out += " overage" + (overage.cap.map { " up to " + $0.value.grouped } ?? "") }
            if let expiry = g.expiresAfter { out += " expires after \(expiry.count.value.grouped) \(expiry.unitWord)" }
            return out
        }.joined(separator: " + ")
    }
}

extension EntlSyntax.Grant {
    /// The grant as `units` units of a product give it: its amount times `units` (saturating).
    /// Its carry and overage caps stay as written: one purchase of many units has them once (the
    /// runtime's ledger), and a situation that holds 2 units may be that one purchase.
    func scaled(by units: Int64) -> EntlSyntax.Grant {
        guard units > 1, case .count(let n)? = amount else { return self }
        var g = self
        g.amount = .count(Located(n.value.multipliedSaturating(by: units), range: n.range))
        return g
    }
}
