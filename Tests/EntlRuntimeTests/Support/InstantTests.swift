import EntlRuntime
import Testing

@Suite struct InstantTests {
    @Test func parsesAndPrintsRFC3339() {
        let i = Instant(rfc3339: "2026-11-22T12:00:00Z")!
        #expect(i.seconds == 1_795_348_800)
        #expect(i.rfc3339 == "2026-11-22T12:00:00Z")
        #expect(Instant(rfc3339: "2026-11-22T12:00:00.250Z")!.rfc3339 == "2026-11-22T12:00:00.25Z")
        #expect(Instant(rfc3339: "2026-11-22T12:00:00.123456789Z")!.nanoseconds == 123_456_789)
        #expect(Instant(rfc3339: "2026-11-22T14:30:00+02:30")!.rfc3339 == "2026-11-22T12:00:00Z")
        #expect(Instant(rfc3339: "2026-11-22t12:00:00z")!.rfc3339 == "2026-11-22T12:00:00Z")
        #expect(Instant(rfc3339: "1969-12-31T23:59:59Z")!.seconds == -1)
        #expect(Instant(rfc3339: "0000-01-01T00:00:00Z")!.rfc3339 == "0000-01-01T00:00:00Z")
        #expect(Instant(rfc3339: "9999-12-31T23:59:59Z")!.rfc3339 == "9999-12-31T23:59:59Z")
    }

    @Test(arguments: ["2026-13-01", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-11-22T24:00:00Z",
                      "2026-11-22T12:00:60Z", "2026-11-22T12:00:00", "2026-11-22 12:00:00Z", "2026-11-22T12:00:00.Z",
                      "2026-11-22T12:00:00.1234567890Z", "2026-11-22T12:00:00+2:00", "2026-11-22T12:00:00Zjunk", ""])
    func rejectsWhatIsNotAnInstant(_ text: String) {
        #expect(Instant(rfc3339: text) == nil)
    }

    /// Why a text is no instant: a leap second and a year past 0000 … 9999 in UTC are RFC 3339,
    /// and said to be (a review: "is not an RFC 3339 instant" was false of them).
    @Test(arguments: [
        ("2026-12-31T23:59:60Z", "is a leap second: entlc counts no second 60 (write :59, or the next minute)"),
        ("9999-12-31T23:59:59-01:00", "is outside the years 0000 … 9999 in UTC"),
        ("0000-01-01T00:00:00.5+01:00", "is outside the years 0000 … 9999 in UTC"),
        ("2026-11-22T12:00:00+24:00", "is not an RFC 3339 instant"),
        ("2026-13-01T00:00:00Z", "is not an RFC 3339 instant"), ("2026-11-22T12:00:61Z", "is not an RFC 3339 instant"),
        ("tomorrow", "is not an RFC 3339 instant"),
    ])
    func whyATextIsNoInstant(_ text: String, _ why: String) {
        #expect(Instant(rfc3339: text) == nil)
        #expect(Instant.rejection(of: text) == why)
    }

    @Test func leapYears() {
        #expect(Instant(rfc3339: "2024-02-29T00:00:00Z") != nil)
        #expect(Instant(rfc3339: "2000-02-29T00:00:00Z") != nil)
        #expect(Instant(rfc3339: "1900-02-29T00:00:00Z") == nil)
        #expect(CivilDate.daysIn(year: 2028, month: 2) == 29)
        #expect(CivilDate.daysIn(year: 2100, month: 2) == 28)
    }

    @Test func civilDaysRoundTrip() {
        for days: Int64 in stride(from: -800_000, through: 3_000_000, by: 997) {
            let (y, m, d) = CivilDate.fromDays(days)
            #expect(CivilDate.toDays(year: y, month: m, day: d) == days)
        }
        // Every day around year 1 (where the unsigned form starts) and from 1969 to 2101.
        for days: Int64 in Array(-720_000 ... -718_000) + Array(-366 ... 47_850) {
            let (y, m, d) = CivilDate.fromDays(days)
            if CivilDate.toDays(year: y, month: m, day: d) != days { Issue.record("\(days): \(y)-\(m)-\(d)") }
        }
        #expect(CivilDate.toDays(year: 1970, month: 1, day: 1) == 0)
        #expect(CivilDate.toDays(year: 1, month: 1, day: 1) == -719_162)
        #expect(CivilDate.toDays(year: 0, month: 12, day: 31) == -719_163)
    }

    @Test func ordering() {
        let a = Instant(rfc3339: "2026-01-01T00:00:00.5Z")!
        let b = Instant(rfc3339: "2026-01-01T00:00:01Z")!
        #expect(a < b)
        #expect(!(b < a))
    }
}
