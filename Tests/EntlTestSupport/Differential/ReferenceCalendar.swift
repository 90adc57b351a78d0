// Civil time for the reference evaluator, by counting: deliberately simple and independent of
// EntlRuntime's calendar (no day-number formulas, no O(1) window search). Instants here are
// whole seconds after 1970.

/// A reset interval, billing period or duration: whole months (day clamped) or fixed seconds.
public enum ReferenceStep: Equatable {
    case seconds(Int64)
    case months(Int)

    public init(interval word: String) {
        switch word {
        case "minute": self = .seconds(60)
        case "hour": self = .seconds(3_600)
        case "day": self = .seconds(86_400)
        case "week": self = .seconds(7 * 86_400)
        case "month": self = .months(1)
        case "quarter": self = .months(3)
        case "half_year": self = .months(6)
        case "year": self = .months(12)
        default: fatalError("no interval \(word)")
        }
    }

    init(duration n: Int64, unit: String) {
        switch unit {
        case "days": self = .seconds(n * 86_400)
        case "weeks": self = .seconds(n * 7 * 86_400)
        case "months": self = .months(Int(n))
        case "years": self = .months(Int(n) * 12)
        default: fatalError("no duration unit \(unit)")
        }
    }
}

public enum ReferenceCalendar {
    struct Civil: Equatable {
        var year: Int
        var month: Int
        var day: Int
        var secondOfDay: Int64
    }

    static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    static func daysIn(month m: Int, year y: Int) -> Int {
        switch m {
        case 2: isLeap(y) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static func civil(_ seconds: Int64) -> Civil {
        precondition(seconds >= 0, "reference instants are after 1970")
        var days = Int(seconds / 86_400)
        var year = 1970
        while days >= (isLeap(year) ? 366 : 365) {
            days -= isLeap(year) ? 366 : 365
            year += 1
        }
        var month = 1
        while days >= daysIn(month: month, year: year) {
            days -= daysIn(month: month, year: year)
            month += 1
        }
        return Civil(year: year, month: month, day: days + 1, secondOfDay: seconds % 86_400)
    }

    static func seconds(_ c: Civil) -> Int64 {
        var days = 0
        for y in 1970..<c.year { days += isLeap(y) ? 366 : 365 }
        for m in 1..<c.month { days += daysIn(month: m, year: c.year) }
        days += c.day - 1
        return Int64(days) * 86_400 + c.secondOfDay
    }

    /// `s + k × step`; month steps clamp the day (Jan 31 + 1 month = Feb 28/29).
    public static func add(_ s: Int64, _ step: ReferenceStep, times k: Int = 1) -> Int64 {
        switch step {
        case .seconds(let n): return s + n * Int64(k)
        case .months(let n):
            let c = civil(s)
            let total = c.year * 12 + (c.month - 1) + n * k
            let year = total / 12, month = total % 12 + 1
            return seconds(Civil(year: year, month: month, day: min(c.day, daysIn(month: month, year: year)),
                                 secondOfDay: c.secondOfDay))
        }
    }

    /// The start of the calendar-aligned window of `interval` containing `s`: minutes, hours and
    /// days at their start, weeks on Monday, months on the 1st, quarters and half-years on the 1st
    /// of January/April/July/October (resp. January/July), years on January 1st.
    static func alignedStart(_ interval: String, containing s: Int64) -> Int64 {
        switch interval {
        case "minute": return s - s % 60
        case "hour": return s - s % 3_600
        case "day": return s - s % 86_400
        case "week":
            var day = s - s % 86_400
            while civilWeekday(day) != 1 { day -= 86_400 }
            return day
        default:
            let c = civil(s)
            let months: Int = switch interval {
            case "month": 1
            case "quarter": 3
            case "half_year": 6
            default: 12
            }
            let month = (c.month - 1) / months * months + 1
            return seconds(Civil(year: c.year, month: month, day: 1, secondOfDay: 0))
        }
    }

    /// 1 = Monday … 7 = Sunday, by counting days from a known Monday (1970-01-05).
    static func civilWeekday(_ s: Int64) -> Int {
        var day = (s / 86_400 - 4) % 7
        if day < 0 { day += 7 }
        return Int(day) + 1
    }
}

/// Windows `[anchor + k·step, anchor + (k+1)·step)`, each computed from the anchor, found by
/// walking one window at a time.
struct ReferenceWindows {
    var anchor: Int64
    var step: ReferenceStep

    func start(_ k: Int) -> Int64 { ReferenceCalendar.add(anchor, step, times: k) }

    /// The window containing `s`, walking from window `from` (0, or where a ledger already is).
    func index(containing s: Int64, from: Int = 0) -> Int {
        var k = from
        while start(k + 1) <= s { k += 1 }
        while start(k) > s { k -= 1 }
        return k
    }
}
