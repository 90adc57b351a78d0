import EntlRuntime
import EntlSyntax

/// What a customer gets of one metered feature (or credit system) in one purchase situation: the
/// grants of every source active in it. `entlc diff` compares two of them.
///
/// The comparison is a partial order, decided conservatively: the new allowance *covers* the old
/// one when it is unlimited, or when for every window length the new grants give at least as much
/// as the old ones within one window of that length (a grant resetting more often counts the
/// windows of its interval that surely fit: a month holds 4 weeks and 28 days; a grant with no
/// reset counts once in every window), and its carry-over caps add up to at least as much. So
/// `20,000 per month` → `1,000 per day` covers (28,000 in the shortest month), `20,000 per month`
/// → `20,000 per year` does not, `10,000 + 10,000 per month` covers `20,000 per month`, and
/// `5,000` (once) → `1,000 per year` does not.
struct Allowance: Equatable {
    /// The grants, as written (their features and priorities do not take part).
    var grants: [EntlSyntax.Grant]

    var isEmpty: Bool { grants.isEmpty }
    var isUnlimited: Bool { grants.contains { if case .unlimited? = $0.amount { true } else { false } } }

    /// Whether a customer is at least as well off with `self` as with `old`.
    func covers(_ old: Allowance) -> Bool {
        if old.isEmpty || isUnlimited { return true }
        if isEmpty || old.isUnlimited { return false }
        for window in Allowance.windows.indices where capacity(within: window) < old.capacity(within: window) {
            return false
        }
        return carryCapacity >= old.carryCapacity
    }

    /// Window lengths, shortest first.
    private static let windows = ResetInterval.allCases

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

    /// What the grants surely give within one window of `Allowance.windows[window]`: each
    /// grant whose interval is no longer, times the whole intervals that fit, and each grant with
    /// no reset once. Saturates at `Int64.max`.
    private func capacity(within window: Int) -> Int64 {
        var total: Int64 = 0
        for g in grants {
            guard case .count(let n)? = g.amount else { continue }
            let times: Int64
            if let i = g.per?.value {
                let w = Allowance.windows[window]
                guard ResetInterval.allCases.firstIndex(of: i)! <= window else { continue }
                times = Allowance.seconds(w).min / Allowance.seconds(i).max
            } else {
                times = 1
            }
            let (product, overflow) = n.value.multipliedReportingOverflow(by: times)
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
            return out
        }.joined(separator: " + ")
    }
}
