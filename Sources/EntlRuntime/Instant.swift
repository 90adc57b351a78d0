/// A point in time: seconds and nanoseconds since 1970-01-01T00:00:00Z, proleptic Gregorian UTC.
///
/// Parsed from and printed as RFC 3339 (`2026-11-22T12:00:00Z`; fractional seconds printed only
/// when non-zero). Years 0000 … 9999 parse; arithmetic beyond stays exact in `Int64`.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var seconds: Int64
    /// 0 ..< 1_000_000_000
    public var nanoseconds: Int32

    public init(seconds: Int64, nanoseconds: Int32 = 0) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    public static func < (lhs: Instant, rhs: Instant) -> Bool {
        lhs.seconds != rhs.seconds ? lhs.seconds < rhs.seconds : lhs.nanoseconds < rhs.nanoseconds
    }

    public var description: String { rfc3339 }

    /// `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, the fraction without trailing zeros.
    public var rfc3339: String {
        let days = Instant.floorDiv(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (y, m, d) = CivilDate.fromDays(days)
        var out = y >= 0 && y <= 9999 ? Instant.pad(Int(y), 4) : String(y)
        out += "-" + Instant.pad(m, 2) + "-" + Instant.pad(d, 2) + "T"
        out += Instant.pad(Int(secondOfDay / 3600), 2) + ":" + Instant.pad(Int(secondOfDay % 3600 / 60), 2) + ":"
            + Instant.pad(Int(secondOfDay % 60), 2)
        if nanoseconds != 0 {
            var fraction = Instant.pad(Int(nanoseconds), 9)
            while fraction.hasSuffix("0") { fraction.removeLast() }
            out += "." + fraction
        }
        return out + "Z"
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let s = String(value)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// Parses an RFC 3339 date-time with a zone: `2026-11-22T12:00:00Z`, `…T12:00:00.250+02:00`.
    /// Returns nil for anything else (date only, no zone, out-of-range fields, leap seconds).
    public init?(rfc3339 text: String) {
        let b = Array(text.utf8)
        func digits(_ at: Int, _ count: Int) -> Int? {
            guard at + count <= b.count else { return nil }
            var v = 0
            for i in at..<(at + count) {
                let c = b[i]
                guard c >= 48, c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            return v
        }
        func byte(_ at: Int, _ options: String) -> Bool { at < b.count && options.utf8.contains(b[at]) }
        guard let year = digits(0, 4), byte(4, "-"), let month = digits(5, 2), byte(7, "-"), let day = digits(8, 2),
              byte(10, "Tt"), let hour = digits(11, 2), byte(13, ":"), let minute = digits(14, 2), byte(16, ":"),
              let second = digits(17, 2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= CivilDate.daysIn(year: Int64(year), month: month),
              hour <= 23, minute <= 59, second <= 59
        else { return nil }
        var i = 19
        var nanos = 0
        if byte(i, ".") {
            i += 1
            var count = 0
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                if count < 9 { nanos = nanos * 10 + Int(b[i] - 48) }
                count += 1
                i += 1
            }
            guard count >= 1, count <= 9 else { return nil }
            for _ in count..<9 { nanos *= 10 }
        }
        var offsetSeconds = 0
        if byte(i, "Zz") {
            i += 1
        } else if byte(i, "+-") {
            let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
            guard let oh = digits(i + 1, 2), byte(i + 3, ":"), let om = digits(i + 4, 2), oh <= 23, om <= 59 else { return nil }
            offsetSeconds = sign * (oh * 3600 + om * 60)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = CivilDate.toDays(year: Int64(year), month: month, day: day)
        self.seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetSeconds)
        self.nanoseconds = Int32(nanos)
    }
}

/// Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01), after
/// Howard Hinnant's `days_from_civil` / `civil_from_days`: exact for every Int64-sized year we use.
public enum CivilDate {
    public static func isLeap(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    public static func daysIn(year: Int64, month: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    public static func toDays(year: Int64, month: Int, day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64((month + 9) % 12)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    public static func fromDays(_ days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = Int(doy - (153 * mp + 2) / 5 + 1)
        let m = Int(mp < 10 ? mp + 3 : mp - 9)
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
