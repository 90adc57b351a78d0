/// A calendar length: months (day clamped at month ends) or seconds, never both.
public struct CalendarStep: Sendable, Hashable {
    public var months: Int64
    public var seconds: Int64

    public init(months: Int64, seconds: Int64) {
        self.months = months
        self.seconds = seconds
    }
}

/// Calendar arithmetic on instants (proleptic Gregorian, UTC) and reset windows.
extension Instant {
    /// The latest representable instant; arithmetic that would pass it stops there.
    public static let distantFuture = Instant(seconds: Int64.max / 4)

    /// `self + k × step`. Month steps keep the time of day and clamp the day to the target
    /// month's length, counted from `self` every time (Jan 31 + 1 month = Feb 28 or 29,
    /// + 2 months = Mar 31). Saturates at `distantFuture`.
    public func adding(_ step: CalendarStep, times k: Int64 = 1) -> Instant {
        if step.months == 0 {
            let delta = step.seconds.multipliedSaturating(by: k)
            return Instant(seconds: seconds.addingSaturating(delta), nanoseconds: nanoseconds).clamped
        }
        return CalendarParts(self).adding(months: step.months.multipliedSaturating(by: k))
    }

    var clamped: Instant {
        if seconds > Instant.distantFuture.seconds { return .distantFuture }
        if seconds < -Instant.distantFuture.seconds { return Instant(seconds: -Instant.distantFuture.seconds) }
        return self
    }
}

/// An instant as a calendar month (year × 12 + month − 1), a day of that month and a time of
/// day: what month steps count from. Windows keep their anchor's, so a window boundary costs one
/// conversion from the calendar, none to it.
struct CalendarParts: Sendable, Hashable {
    var months: Int64
    var day: Int
    var secondOfDay: Int64
    var nanoseconds: Int32

    init(_ instant: Instant) {
        let days = Instant.floorDiv(instant.seconds, 86_400)
        let (y, m, d) = CivilDate.fromDays(days)
        months = y.multipliedSaturating(by: 12) + Int64(m - 1)
        day = d
        secondOfDay = instant.seconds - days * 86_400
        nanoseconds = instant.nanoseconds
    }

    /// Month steps keep the time of day and clamp the day to the target month's length, counted
    /// from these parts every time (Jan 31 + 1 month = Feb 28 or 29, + 2 months = Mar 31).
    /// Saturates at `distantFuture`.
    func adding(months n: Int64) -> Instant {
        let totalMonths = months.addingSaturating(n)
        // Years beyond ±10^11 are past anything an instant can mean here.
        guard abs(totalMonths) < 1_200_000_000_000 else {
            return totalMonths > 0 ? .distantFuture : Instant(seconds: -Instant.distantFuture.seconds)
        }
        let year = Instant.floorDiv(totalMonths, 12)
        let month = Int(totalMonths - year * 12) + 1
        let newDays = CivilDate.toDays(year: year, month: month,
                                       day: min(day, CivilDate.daysIn(year: year, month: month)))
        return Instant(seconds: newDays * 86_400 + secondOfDay, nanoseconds: nanoseconds).clamped
    }
}

/// The reset windows of a grant: `[anchor + k·step, anchor + (k+1)·step)` for every integer k,
/// each computed from the anchor (never chained), found in O(1) whatever the number of windows.
public struct Windows: Sendable, Hashable {
    public var anchor: Instant {
        didSet { anchorParts = CalendarParts(anchor) }
    }
    public var step: CalendarStep
    private var anchorParts: CalendarParts

    public init(anchor: Instant, step: CalendarStep) {
        self.anchor = anchor
        self.step = step
        self.anchorParts = CalendarParts(anchor)
    }

    public func start(_ k: Int64) -> Instant {
        if step.months == 0 { return anchor.adding(step, times: k) }
        return anchorParts.adding(months: step.months.multipliedSaturating(by: k))
    }

    /// `start(k + 1)`, given `s == start(k)`. When the anchor's day is one every month has (the
    /// 28th or earlier), no boundary is clamped, so a window is its whole months long: the next
    /// start is `s` plus their days, with no conversion to or from the calendar.
    func start(after s: Instant, index k: Int64) -> Instant {
        guard (1...12).contains(step.months), anchorParts.day <= 28, abs(k) < 1_000_000,
              abs(s.seconds) < Instant.distantFuture.seconds / 2 else { return start(k + 1) }
        let first = anchorParts.months + k * step.months
        var days: Int64 = 0
        for month in first..<(first + step.months) {
            let year = Instant.floorDiv(month, 12)
            days += Int64(CivilDate.daysIn(year: year, month: Int(month - year * 12) + 1))
        }
        return Instant(seconds: s.seconds + days * 86_400, nanoseconds: s.nanoseconds)
    }

    /// The index of the window containing `t`.
    public func index(containing t: Instant) -> Int64 {
        window(containing: t).index
    }

    /// The window containing `t`: its index, start and end.
    func window(containing t: Instant) -> (index: Int64, start: Instant, end: Instant) {
        if step.months == 0 {
            // floor((t - anchor) / length): the sub-second part cannot cross a whole-second boundary.
            var diff = t.seconds.subtractingSaturating(anchor.seconds)
            if t.nanoseconds < anchor.nanoseconds { diff = diff.subtractingSaturating(1) }
            let k = Instant.floorDiv(diff, step.seconds)
            return (k, start(k), start(k + 1))
        }
        // By calendar month number first (ignoring day and time); day clamping can shift a
        // boundary by less than one step: settle on the right window.
        var k = Instant.floorDiv(CalendarParts(t).months - anchorParts.months, step.months)
        var lower = start(k)
        while lower > t {
            k -= 1
            lower = start(k)
        }
        var upper = start(after: lower, index: k)
        while upper <= t {
            k += 1
            lower = upper
            upper = start(after: lower, index: k)
        }
        return (k, lower, upper)
    }
}
