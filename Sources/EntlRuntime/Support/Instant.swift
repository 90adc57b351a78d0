#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A point in time: seconds and nanoseconds since 1970-01-01T00:00:00Z, proleptic Gregorian UTC.
///
/// Parsed from and printed as RFC 3339 (`2026-11-22T12:00:00Z`; fractional seconds printed only
/// when non-zero). Years 0000 … 9999 parse (in UTC: an offset does not carry an instant past
/// them); arithmetic beyond stays exact in `Int64`.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible, Codable {
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

    /// Encoded as its RFC 3339 text.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let i = Instant(rfc3339: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "\"\(text)\" \(Instant.rejection(of: text))"))
        }
        self = i
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rfc3339)
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, the fraction without trailing zeros.
    public var rfc3339: String {
        var out: [UInt8] = []
        out.reserveCapacity(30)
        writeRFC3339(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// Parses an RFC 3339 date-time with a zone: `2026-11-22T12:00:00Z`, `…T12:00:00.250+02:00`.
    /// Returns nil for anything else (date only, no zone, out-of-range fields, leap seconds).
    public init?(rfc3339 text: String) {
        var text = text
        guard let parsed = text.withUTF8({ Instant.parse(rfc3339: $0) }) else { return nil }
        self = parsed
    }

    /// Parses RFC 3339 from UTF-8 bytes (no copy).
    static func parse(rfc3339 b: UnsafeBufferPointer<UInt8>) -> Instant? {
        parseWholeSecondsUTC(b) ?? parseAnyForm(b)
    }

    /// Any RFC 3339 form, byte by byte.
    static func parseAnyForm(_ b: UnsafeBufferPointer<UInt8>) -> Instant? {
        @inline(__always) func digits(_ at: Int, _ count: Int) -> Int? {
            guard at + count <= b.count else { return nil }
            var v = 0
            for i in at..<(at + count) {
                let c = b[i] &- 0x30
                guard c <= 9 else { return nil }
                v = v * 10 + Int(c)
            }
            return v
        }
        @inline(__always) func byte(_ at: Int, _ x: UInt8, _ y: UInt8 = 0) -> Bool {
            at < b.count && (b[at] == x || (y != 0 && b[at] == y))
        }
        guard let year = digits(0, 4), byte(4, 0x2D), let month = digits(5, 2), byte(7, 0x2D), let day = digits(8, 2),
              byte(10, 0x54, 0x74), let hour = digits(11, 2), byte(13, 0x3A), let minute = digits(14, 2),
              byte(16, 0x3A), let second = digits(17, 2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= CivilDate.daysIn(year: Int64(year), month: month),
              hour <= 23, minute <= 59, second <= 59
        else { return nil }
        var i = 19
        var nanos = 0
        if byte(i, 0x2E) {
            i += 1
            var count = 0
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                if count < 9 { nanos = nanos * 10 + Int(b[i] - 0x30) }
                count += 1
                i += 1
            }
            guard count >= 1, count <= 9 else { return nil }
            for _ in count..<9 { nanos *= 10 }
        }
        var offsetSeconds = 0
        if byte(i, 0x5A, 0x7A) {
            i += 1
        } else if byte(i, 0x2B, 0x2D) {
            let sign = b[i] == 0x2D ? -1 : 1
            guard let oh = digits(i + 1, 2), byte(i + 3, 0x3A), let om = digits(i + 4, 2), oh <= 23, om <= 59 else {
                return nil
            }
            offsetSeconds = sign * (oh * 3600 + om * 60)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = CivilDate.toDays(year: Int64(year), month: month, day: day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetSeconds)
        // In UTC too the year is 0000 … 9999: an offset does not carry it past them (it could not
        // be written back as it is read).
        guard (Instant.firstParsed...Instant.lastParsed).contains(seconds) else { return nil }
        return Instant(seconds: seconds, nanoseconds: Int32(nanos))
    }

    /// Why `text` is no instant, after "\"TEXT\" " in a message: a leap second and an instant
    /// past the years 0000 … 9999 in UTC are RFC 3339, but not instants entlc counts; anything else
    /// is not RFC 3339.
    public static func rejection(of text: String) -> String {
        var bytes = Array(text.utf8)
        let parses = { (b: [UInt8]) in b.withUnsafeBufferPointer { parseAnyForm($0) } != nil }
        if bytes.count > 19, bytes[17] == UInt8(ascii: "6"), bytes[18] == UInt8(ascii: "0") {
            bytes[17] = UInt8(ascii: "5")
            bytes[18] = UInt8(ascii: "9")
            if parses(bytes) { return "is a leap second: entlc counts no second 60 (write :59, or the next minute)" }
        }
        // A well-formed offset (`-01:00`) on a well-formed time: only the year in UTC can be wrong.
        if let zone = bytes.lastIndex(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }), zone >= 19,
           bytes.count == zone + 6, parses(Array(bytes[..<zone]) + [UInt8(ascii: "Z")]),
           parses(Array("2000-01-01T00:00:00".utf8) + bytes[zone...]) {
            return "is outside the years 0000 … 9999 in UTC"
        }
        return "is not an RFC 3339 instant"
    }

    /// The first and last second parsed: 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
    static let firstParsed: Int64 = -62_167_219_200, lastParsed: Int64 = 253_402_300_799

    /// Whether `i` is one a state can hold: in the years parsed, its nanoseconds a fraction.
    static func isInRange(_ i: Instant) -> Bool {
        (firstParsed...lastParsed).contains(i.seconds) && (0..<1_000_000_000).contains(i.nanoseconds)
    }

    /// Whether a state can be read at `i`: within 200 years of those a state holds (a consume reads
    /// it a nanosecond after a use, or at a window's end, past 9999-12-31 for one dated there; a
    /// lot lapses at most 100 years after its start, E222), its nanoseconds a fraction.
    static func isEvaluable(_ i: Instant) -> Bool {
        let margin: Int64 = 200 * 366 * 86_400
        return (firstParsed - margin...lastParsed + margin).contains(i.seconds)
            && (0..<1_000_000_000).contains(i.nanoseconds)
    }

    /// The largest amount a state or a rule set holds: 10^15.
    static let maxAmount: Int64 = 1_000_000_000_000_000

    /// The common form, `YYYY-MM-DDTHH:MM:SSZ` (20 bytes), read as three words rather than byte by
    /// byte; nil for anything else (the general parser then decides).
    @inline(__always)
    static func parseWholeSecondsUTC(_ b: UnsafeBufferPointer<UInt8>) -> Instant? {
        guard let base = b.baseAddress, b.count == 20 else { return nil }
        let raw = UnsafeRawPointer(base)
        // Bytes 0..<8 `YYYY-MM-`, 8..<16 `DDTHH:MM`, 16..<20 `:SSZ`, as little-endian words.
        let w0 = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
        let w1 = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        let w2 = UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt32.self)))
        /// The word with its digit bytes (where `digits` has 0xFF) made 0…9; nil unless each of
        /// them is a digit and each other byte is as in `punctuation` (`T` and `Z` in either case).
        @inline(__always)
        func digits(_ word: UInt64, _ digits: UInt64, _ punctuation: UInt64, caseless: UInt64) -> UInt64? {
            guard (word | caseless) & ~digits == punctuation else { return nil }
            let d = (word ^ (0x3030_3030_3030_3030 & digits)) & digits
            let sixes = 0x0606_0606_0606_0606 & digits
            guard d & 0xF0F0_F0F0_F0F0_F0F0 == 0, (d &+ sixes) & 0x1010_1010_1010_1010 == 0 else { return nil }
            return d
        }
        guard let a = digits(w0, 0x00FF_FF00_FFFF_FFFF, 0x2D00_002D_0000_0000, caseless: 0),
              let c = digits(w1, 0xFFFF_00FF_FF00_FFFF, 0x0000_3A00_0074_0000, caseless: 0x0000_0000_0020_0000),
              let e = digits(w2, 0x0000_0000_00FF_FF00, 0x0000_0000_7A00_003A, caseless: 0x0000_0000_2000_0000)
        else { return nil }
        // Each byte of `pairs(d)` is ten times a digit plus the next one (at most 99: no carry
        // between bytes), so every two-digit field is one byte of it.
        @inline(__always) func pairs(_ d: UInt64) -> UInt64 { d &* 10 &+ d >> 8 }
        @inline(__always) func byte(_ word: UInt64, _ at: UInt64) -> Int {
            Int(truncatingIfNeeded: word >> (8 &* at) & 0xFF)
        }
        let (date, time, seconds) = (pairs(a), pairs(c), pairs(e))
        let year = byte(date, 0) &* 100 &+ byte(date, 2), month = byte(date, 5), day = byte(time, 0)
        let hour = byte(time, 3), minute = byte(time, 6), second = byte(seconds, 1)
        guard month >= 1, month <= 12, day >= 1,
              day <= 28 || day <= CivilDate.daysIn(year: Int64(year), month: month),
              hour <= 23, minute <= 59, second <= 59
        else { return nil }
        // `CivilDate.toDays` for a year of four digits, taken 400 years later (so that a year
        // from March is never below 0: unsigned division by a constant needs no sign fix-up), then
        // those 400 years' 146,097 days taken off again.
        let y = UInt64(year) &+ (month > 2 ? 400 : 399), m = UInt64(month > 2 ? month &- 3 : month &+ 9)
        let days = 365 &* y &+ y / 4 &- y / 100 &+ y / 400 &+ (153 &* m &+ 2) / 5 &+ UInt64(day) &- 1
        return Instant(seconds: (Int64(days) &- 719_468 &- 146_097) &* 86_400
                           &+ Int64(hour &* 3600 &+ minute &* 60 &+ second))
    }

    /// Appends `rfc3339`'s UTF-8 bytes (no intermediate strings).
    public func writeRFC3339(into out: inout [UInt8]) {
        writeRFC3339(to: &out)
    }

    /// `writeRFC3339(to:)` for any instant, digit by digit.
    func writeAnyRFC3339<O: ByteOutput & ~Copyable>(to out: inout O) {
        let days = Instant.floorDiv(seconds, 86_400)
        // Unsigned 32-bit fields: a division by a constant is then a multiplication and a shift.
        // Wrapping: the difference is in 0 ..< 86,400 even where `days × 86,400` is past Int64's
        // reach (an instant built in code near `Int64.min`).
        let secondOfDay = UInt32(truncatingIfNeeded: seconds &- days &* 86_400)
        let (y, m, d) = CivilDate.fromDays(days)
        if !(0...9999).contains(y) {
            String(y).utf8.forEach { out.write($0) }
        }
        // `YYYY-MM-DDTHH:MM:SS` (the year's digits unused when it was written above), then the
        // fraction and `Z`.
        var text: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &text) { t in
            @inline(__always) func two(_ at: Int, _ v: UInt32) {
                let tens = v / 10
                t[at] = UInt8(truncatingIfNeeded: tens) &+ 0x30
                t[at + 1] = UInt8(truncatingIfNeeded: v &- tens &* 10) &+ 0x30
            }
            let year = (0...9999).contains(y) ? UInt32(truncatingIfNeeded: y) : 0
            two(0, year / 100); two(2, year % 100)
            t[4] = 0x2D; two(5, UInt32(truncatingIfNeeded: m)); t[7] = 0x2D; two(8, UInt32(truncatingIfNeeded: d))
            t[10] = 0x54
            two(11, secondOfDay / 3600); t[13] = 0x3A; two(14, secondOfDay % 3600 / 60); t[16] = 0x3A
            two(17, secondOfDay % 60)
            var end = 19
            if nanoseconds != 0 {
                t[end] = 0x2E
                var n = Int(nanoseconds)
                var width = 9
                while n % 10 == 0 {
                    n /= 10
                    width -= 1
                }
                for i in stride(from: end + width, through: end + 1, by: -1) {
                    t[i] = UInt8(0x30 + n % 10)
                    n /= 10
                }
                end += width + 1
            }
            t[end] = 0x5A
            let start = (0...9999).contains(y) ? 0 : 4
            out.write(UnsafeRawBufferPointer(rebasing: t[start...end]))
        }
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
        if year >= 1, year <= 1_000_000, month >= 1, month <= 12, day >= 1, day <= 31 {
            // The same count without eras for a year from 1 (a year from March, as below, then
            // from 0): unsigned division by a constant needs no sign fix-up.
            let y = UInt64(month <= 2 ? year - 1 : year), m = UInt64(month <= 2 ? month + 9 : month - 3)
            let days = 365 &* y &+ y / 4 &- y / 100 &+ y / 400 &+ (153 &* m &+ 2) / 5 &+ UInt64(day) &- 1
            return Int64(days) - 719_468
        }
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

extension Instant {
    /// The system clock (UTC).
    public static func now() -> Instant {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Instant(seconds: Int64(ts.tv_sec), nanoseconds: Int32(ts.tv_nsec))
    }
}

extension Instant {
    /// "00" to "99", each two-digit number's text at twice its value.
    private static var digitPairs: StaticString {
        """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """
    }

    /// The two digits of `v` (below 100) as the low two bytes of a word, in memory order.
    @inline(__always)
    static func digitPair(_ v: UInt32) -> UInt64 {
        UInt64(UnsafeRawPointer(digitPairs.utf8Start).loadUnaligned(fromByteOffset: Int(truncatingIfNeeded: v) &* 2,
                                                                    as: UInt16.self))
    }

    /// `rfc3339`'s UTF-8 bytes. The common form (whole seconds from 1970 to 9999) is built in
    /// three words with unsigned arithmetic, whose divisions by constants are multiplications
    /// (`CivilDate.fromDays`'s signed ones cost about four times as much); any other instant is
    /// written by `writeAnyRFC3339`. `ResultBytesTests` compares the two over days of every year
    /// and random instants.
    func writeRFC3339<O: ByteOutput & ~Copyable>(to out: inout O) {
        #if !_endian(little)
        return writeAnyRFC3339(to: &out)  // the words below are built in little-endian memory order
        #else
        let days = seconds / 86_400
        guard nanoseconds == 0, seconds >= 0, days <= 2_932_896 else { return writeAnyRFC3339(to: &out) }
        let secondOfDay = UInt32(truncatingIfNeeded: seconds &- days &* 86_400)
        // Days from 0000-03-01 (a year that ends with February), as `CivilDate.fromDays`.
        let z = UInt32(truncatingIfNeeded: days) &+ 719_468
        let era = z / 146_097
        let doe = z &- era &* 146_097
        let yoe = (doe &- doe / 1460 &+ doe / 36_524 &- doe / 146_096) / 365
        let doy = doe &- (365 &* yoe &+ yoe / 4 &- yoe / 100)
        let mp = (5 &* doy &+ 2) / 153
        let day = doy &- (153 &* mp &+ 2) / 5 &+ 1
        let month = mp < 10 ? mp &+ 3 : mp &- 9
        let year = yoe &+ era &* 400 &+ (month <= 2 ? 1 : 0)
        // `YYYY-MM-DDTHH:MM:SSZ` as three words of two-digit pairs (in memory order).
        let two = Instant.digitPair
        let hours = secondOfDay / 3600, rest = secondOfDay &- hours &* 3600
        let minutes = rest / 60, secs = rest &- minutes &* 60
        let century = year / 100
        var text: (UInt64, UInt64, UInt64) = (
            two(century) | two(year &- century &* 100) << 16 | 0x2D << 32 | two(month) << 40 | 0x2D << 56,
            two(day) | 0x54 << 16 | two(hours) << 24 | 0x3A << 40 | two(minutes) << 48,
            0x3A | two(secs) << 8 | 0x5A << 24)
        withUnsafeBytes(of: &text) { out.write(UnsafeRawBufferPointer(rebasing: $0[..<20])) }
        #endif
    }
}
