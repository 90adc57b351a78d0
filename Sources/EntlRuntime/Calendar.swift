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
        let days = Instant.floorDiv(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (y, m, d) = CivilDate.fromDays(days)
        let totalMonths = (y.multipliedSaturating(by: 12) + Int64(m - 1)).addingSaturating(step.months.multipliedSaturating(by: k))
        // Years beyond ±10^11 are past anything an instant can mean here.
        guard abs(totalMonths) < 1_200_000_000_000 else {
            return totalMonths > 0 ? .distantFuture : Instant(seconds: -Instant.distantFuture.seconds)
        }
        let year = Instant.floorDiv(totalMonths, 12)
        let month = Int(totalMonths - year * 12) + 1
        let day = min(d, CivilDate.daysIn(year: year, month: month))
        let newDays = CivilDate.toDays(year: year, month: month, day: day)
        return Instant(seconds: newDays * 86_400 + secondOfDay, nanoseconds: nanoseconds).clamped
    }

    private var clamped: Instant {
        if seconds > Instant.distantFuture.seconds { return .distantFuture }
        if seconds < -Instant.distantFuture.seconds { return Instant(seconds: -Instant.distantFuture.seconds) }
        return self
    }

    /// Whole months from `self` to `other` by calendar month number (ignores day and time).
    func calendarMonths(to other: Instant) -> Int64 {
        let (y1, m1, _) = CivilDate.fromDays(Instant.floorDiv(seconds, 86_400))
        let (y2, m2, _) = CivilDate.fromDays(Instant.floorDiv(other.seconds, 86_400))
        return (y2 - y1) * 12 + Int64(m2 - m1)
    }
}

/// The reset windows of a grant: `[anchor + k·step, anchor + (k+1)·step)` for every integer k,
/// each computed from the anchor (never chained), found in O(1) whatever the number of windows.
public struct Windows: Sendable, Hashable {
    public var anchor: Instant
    public var step: CalendarStep

    public init(anchor: Instant, step: CalendarStep) {
        self.anchor = anchor
        self.step = step
    }

    /// Calendar-aligned windows, for grants with no purchase date: months (and quarters,
    /// half-years, years) start on the 1st of January/…, weeks on Monday, days at 00:00 UTC.
    public static func calendarAligned(_ interval: Interval) -> Windows {
        // 1970-01-05 was a Monday.
        Windows(anchor: Instant(seconds: interval == .week ? 4 * 86_400 : 0), step: interval.step)
    }

    public func start(_ k: Int64) -> Instant {
        anchor.adding(step, times: k)
    }

    /// The index of the window containing `t`.
    public func index(containing t: Instant) -> Int64 {
        if step.months == 0 {
            // floor((t - anchor) / length): the sub-second part cannot cross a whole-second boundary.
            var diff = t.seconds.subtractingSaturating(anchor.seconds)
            if t.nanoseconds < anchor.nanoseconds { diff = diff.subtractingSaturating(1) }
            return Instant.floorDiv(diff, step.seconds)
        }
        var k = Instant.floorDiv(anchor.calendarMonths(to: t), step.months)
        // Day clamping can shift a boundary by less than one step: settle on the right window.
        while start(k) > t { k -= 1 }
        while start(k + 1) <= t { k += 1 }
        return k
    }
}
