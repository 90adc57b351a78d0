@testable import EntlRuntime
import EntlSupport
import EntlTestSupport
import Testing

/// A reason is written as UTF-8 bytes, once for both readers (`description` and the JSON of the
/// batch path); numbers are grouped digit by digit on the stack. The texts are the ones the
/// string formatting gave, and the JSON reads back as the text.
@Suite struct ReasonTextTests {
    /// The digits of `n` with `separator` between groups of three, a character at a time.
    static func reference(_ n: Int64, _ separator: Character) -> String {
        let digits = String(n.magnitude)
        var out = n < 0 ? "-" : ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(separator) }
            out.append(c)
        }
        return out
    }

    /// Every number of digits and sign, the extremes, and the edges of a group.
    static func numbers(count: Int, seed: UInt64) -> [Int64] {
        var random = SeededRandom(seed: seed)
        var numbers: [Int64] = [0, 1, -1, 9, 10, -10, 999, 1_000, -999, -1_000, 999_999, 1_000_000, -1_000_000,
                                .max, .min, .min + 1, .max - 1]
        for _ in 0..<count { numbers.append(Int64(bitPattern: random.next()) >> random.int(0...63)) }
        return numbers
    }

    @Test func groupedAgreesWithGroupingACharacterAtATime() {
        for n in Self.numbers(count: 20_000, seed: 7) {
            #expect(n.grouped == Self.reference(n, ","), "\(n)")
            #expect(n.grouped(by: "_") == Self.reference(n, "_"), "\(n)")
            // A separator wider than a byte.
            #expect(n.grouped(by: "·") == Self.reference(n, "·"), "\(n)")
            #expect(n.withGroupedUTF8(separator: UInt8(ascii: " ")) { String(decoding: $0, as: UTF8.self) }
                    == Self.reference(n, " "), "\(n)")
        }
    }

    static let rules = """
    product plan: subscription { period month }
    feature calls: metered { event "api_call"; unit "call" / "calls" }
    feature seats: metered { usage continuous }
    credits coins { calls 1 = 10; seats 1 = 3 }
    credits gold { calls 1 = 1 }
    """

    /// The balance reasons read as the string formatting wrote them, over generated amounts, units
    /// (declared, or none) and credit systems.
    @Test func balanceReasonsReadAsTheStringFormattingWroteThem() throws {
        let graph = compileGraph(Self.rules)[.live]
        let unit: [String: (String, String)] = ["calls": ("call", "calls"), "seats": ("unit", "units")]
        var random = SeededRandom(seed: 11)
        let amounts = Self.numbers(count: 300, seed: 12).map(\.magnitude).map { Int64($0 >> 1) } + [0, 1, 2]
        for _ in 0..<3_000 {
            let name = random.pick(["calls", "seats"])
            let f = try #require(graph.featureIndex[name])
            let (one, many) = try #require(unit[name])
            func amount(_ n: Int64) -> String { Self.reference(n, ",") + " " + (n == 1 ? one : many) }
            let left: Int64? = random.chance(0.1) ? nil : random.pick(amounts)
            let required = random.pick(amounts)
            var credits: BalanceReason.Credits?
            var expected = left.map { "\(amount($0)) left, \(Self.reference(required, ",")) needed" }
                ?? "unlimited \(many)"
            if left != nil, random.chance(0.7) {
                let system = random.pick(["coins", "gold"])
                let need = random.pick(amounts), balance: Int64? = random.chance(0.1) ? nil : random.pick(amounts)
                credits = BalanceReason.Credits(system: Int32(try #require(graph.featureIndex[system])), need: need,
                                                balance: balance)
                expected += "; `\(system)` has \(balance.map { Self.reference($0, ",") } ?? "unlimited") of the "
                    + "\(Self.reference(need, ",")) credits needed"
            }
            let reason = Reason(BalanceReason(feature: Int32(f), left: left, required: required, credits: credits),
                                of: graph)
            #expect(reason.description == expected)
            #expect(try Self.jsonReason(reason) == expected)
        }
        #expect(graph.features[try #require(graph.featureIndex["calls"])].amount(1_234_567) == "1,234,567 calls")
        #expect(graph.features[try #require(graph.featureIndex["seats"])].amount(1) == "1 unit")
    }

    /// Balance reasons written in a row into one sink, as a batch writes them, read as their texts:
    /// the texts kept for reasons written before are written again only for the same reason of the
    /// same rules. The reasons come from few values, so most are written again and many differ
    /// from one kept in the same place by one part only (an amount, unlimited against 0, another
    /// credit system); and from two rule sets whose features share indices and units differ.
    @Test func balanceReasonsWrittenInARowReadAsTheirTexts() throws {
        let graphs = [compileGraph(Self.rules)[.live],
                      compileGraph(Self.rules.replacingOccurrences(of: "\"call\" / \"calls\"",
                                                                   with: "\"ping\" / \"pings\""))[.live]]
        var random = SeededRandom(seed: 13)
        var sink = JSONBytes()
        var expected: [JSONValue] = []
        sink.beginArray()
        for _ in 0..<5_000 {
            let graph = random.pick(graphs)
            let f = try #require(graph.featureIndex[random.pick(["calls", "seats"])])
            let left: Int64? = random.chance(0.2) ? nil : random.int64(0...2)
            var credits: BalanceReason.Credits?
            if random.chance(0.6) {
                let system = try #require(graph.featureIndex[random.pick(["coins", "gold"])])
                credits = .init(system: Int32(system), need: random.int64(0...2),
                                balance: random.chance(0.3) ? nil : random.int64(0...1))
            }
            let reason = Reason(BalanceReason(feature: Int32(f), left: left, required: random.int64(0...2),
                                              credits: credits), of: graph)
            sink.reason(reason)
            expected.append(.string(reason.description))
        }
        sink.endArray()
        #expect(try JSONParser.parse(sink.bytes) == .array(expected))
    }

    /// The reason of a feature result as the batch path writes it (compact bytes), read back; the
    /// bytes are the tree's rendering too.
    static func jsonReason(_ why: Reason) throws -> String? {
        var result = FeatureResult()
        result.why = why
        var sink = JSONBytes()
        EvaluationResult.feature(result).encode(to: &sink)
        #expect(String(decoding: sink.bytes, as: UTF8.self) == result.json.compact)
        guard case .string(let text)? = try JSONParser.parse(sink.bytes)["reason"] else { return nil }
        return text
    }

    /// Every form of reason, with text that needs escapes, text longer than the stack buffer a
    /// reason is formed in, and text formed in many pieces.
    @Test func everyFormReadsBackFromItsJSONAsItsText() throws {
        let awkward = "a \"quoted\" `name`, a back\\slash, a\nnew line, a \u{1} control, é and 💎"
        let long = String(repeating: "0123456789", count: 70)
        let reasons: [(Reason, String)] = [
            ("its requirement holds", "its requirement holds"),
            (Reason(awkward), awkward),
            (Reason(long), long),
            (Reason(formed: { "formed: " + awkward }), "formed: " + awkward),
            (Reason { text in
                for i in 0..<300 { text.write(grouped: Int64(i) * 1_001) }
            }, (0..<300).map { Self.reference(Int64($0) * 1_001, ",") }.joined()),
            (Reason { text in
                text.write("granted by product ")
                text.write(code: awkward)
            }, "granted by product `\(awkward)`"),
        ]
        for (reason, text) in reasons {
            #expect(reason.description == text)
            #expect(try Self.jsonReason(reason) == text)
            #expect(reason == Reason(text))
        }
    }

    /// One sink writes the same instant again as it wrote it first, and others between them:
    /// those with nanoseconds, years past 9999, and one too long to be kept.
    @Test func instantsAreWrittenTheSameWhenTheyRepeat() throws {
        let pool = [Instant(seconds: 1_795_348_800), Instant(seconds: 0), Instant(seconds: -1),
                    Instant(seconds: 1, nanoseconds: 123_456_789), Instant(seconds: 253_402_300_800),
                    Instant(seconds: 253_402_300_800, nanoseconds: 1), Instant(seconds: -1_000_000_000_000_000),
                    Instant(seconds: -1_000_000_000_000_000, nanoseconds: 999_999_999)]
        #expect(pool.contains { $0.rfc3339.utf8.count > 32 })
        var random = SeededRandom(seed: 3)
        var sink = JSONBytes()
        var expected = "["
        sink.beginArray()
        for i in 0..<2_000 {
            let t = random.chance(0.5) ? pool[0] : random.pick(pool)
            let n = Int64(bitPattern: random.next()) >> random.int(0...63)
            sink.instant(t)
            sink.int(n)
            expected += (i > 0 ? "," : "") + "\"\(t.rfc3339)\",\(n)"
        }
        sink.endArray()
        #expect(String(decoding: sink.bytes, as: UTF8.self) == expected + "]")
    }
}
