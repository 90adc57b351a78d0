@testable import EntlRuntime
import Testing

/// The common form `YYYY-MM-DDTHH:MM:SSZ` is read as three words; every other input goes to the
/// byte-by-byte parser. The two agree on every one-byte change of a valid instant, and the
/// word reader answers only for the common form.
@Suite struct InstantFormTests {
    static let bytes: [UInt8] = Array("0123456789-:TtZz.+ /\u{7F}".utf8) + [0x00, 0x2F, 0x3A, 0x40, 0xB0, 0xFF]

    @Test(arguments: ["2026-11-22T12:00:00Z", "2024-02-29t23:59:59z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z"])
    func wordReaderAgreesWithTheByteParserOnEveryOneByteChange(_ valid: String) {
        var accepted = 0
        for position in 0..<20 {
            for b in InstantFormTests.bytes {
                var text = Array(valid.utf8)
                text[position] = b
                text.withUnsafeBufferPointer { buffer in
                    let words = Instant.parseWholeSecondsUTC(buffer)
                    let general = Instant.parseAnyForm(buffer)
                    if let words {
                        accepted += 1
                        #expect(words == general, "\(String(decoding: text, as: UTF8.self))")
                    } else if general != nil {
                        // Only forms other than the common one may fall through to the byte parser.
                        #expect(!Self.isCommonForm(text), "\(String(decoding: text, as: UTF8.self))")
                    }
                }
            }
        }
        #expect(accepted > 20)
    }

    /// Every day of the years at the edges of the calendar's cycles (the first years, leap
    /// centuries and not, the epoch, the last years), at three times of day: the word reader
    /// reads each as the byte parser does.
    @Test func wordReaderAgreesWithTheByteParserOnEveryDayOfEdgeYears() {
        var wrong: [String] = []
        for year in [0, 1, 2, 3, 4, 99, 100, 101, 399, 400, 401, 1899, 1900, 1969, 1970, 1999, 2000, 2024, 2026, 2100,
                     2400, 9998, 9999] {
            for month in 1...12 {
                for day in 1...31 {
                    for time in ["00:00:00", "12:34:56", "23:59:59"] {
                        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
                        let text = String(repeating: "0", count: 4 - String(year).count) + "\(year)-\(two(month))-"
                            + "\(two(day))T\(time)Z"
                        Array(text.utf8).withUnsafeBufferPointer { b in
                            if Instant.parseWholeSecondsUTC(b) != Instant.parseAnyForm(b) { wrong.append(text) }
                        }
                    }
                }
            }
        }
        #expect(wrong == [])
    }

    @Test func otherFormsAreLeftToTheByteParser() {
        for text in ["2026-11-22T12:00:00.5Z", "2026-11-22T12:00:00+01:00", "2026-11-22T12:00:0Z", "2026-11-22T12:00:00ZZ"] {
            Array(text.utf8).withUnsafeBufferPointer { #expect(Instant.parseWholeSecondsUTC($0) == nil, "\(text)") }
        }
        #expect(Instant(rfc3339: "2026-11-22T12:00:00.5Z")?.nanoseconds == 500_000_000)
        #expect(Instant(rfc3339: "2026-02-29T00:00:00Z") == nil)
        #expect(Instant(rfc3339: "2026-11-22T24:00:00Z") == nil)
    }

    /// Digits where digits go, `-`, `-`, `T`/`t`, `:`, `:` and `Z`/`z` where they go.
    static func isCommonForm(_ t: [UInt8]) -> Bool {
        guard t.count == 20 else { return false }
        for i in [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18] where !(0x30...0x39).contains(t[i]) { return false }
        return t[4] == 0x2D && t[7] == 0x2D && (t[10] == 0x54 || t[10] == 0x74) && t[13] == 0x3A && t[16] == 0x3A
            && (t[19] == 0x5A || t[19] == 0x7A)
    }
}
