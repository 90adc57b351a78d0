@testable import EntlRuntime
import EntlTestSupport
import Testing

/// `NameTable` answers exactly as the dictionary it replaces, canonical equivalence included.
@Suite struct NameTableTests {
    static let keys = [
        "pro", "pro_monthly", "a_rather_long_product_name_beyond_the_small_string_limit", "", "x",
        "caf\u{E9}", "\u{212A}elvin", "price_forecast_pro_monthly",
    ]
    static let dictionary = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })

    @Test(arguments: [
        "pro", "pro_monthly", "a_rather_long_product_name_beyond_the_small_string_limit", "", "x", "price_forecast_pro_monthly",
        "pr", "prox", "Pro", "a_rather_long_product_name_beyond_the_small_string_limiT",
        "caf\u{E9}", "cafe\u{301}", "cafe", "Kelvin", "\u{212A}elvin", "k",
    ])
    func answersAsTheDictionary(query: String) {
        let table = NameTable(NameTableTests.dictionary)
        #expect(table[query] == NameTableTests.dictionary[query])
    }

    @Test func onlyASCIIKeysAnswerWithoutTheDictionary() {
        let ascii = ["one": 1, "two": 2, "three": 3]
        let table = NameTable(ascii)
        #expect(table["one"] == 1 && table["three"] == 3 && table["four"] == nil && table["t"] == nil)
        // A query that is not ASCII goes to the dictionary (here: a miss).
        #expect(table["\u{F6}ne"] == nil)
    }

    /// With every key ASCII, a query that is not still goes to the dictionary: KELVIN SIGN is
    /// canonically equal to `K`, so it finds the key `K` there.
    @Test func aQueryThatIsNotASCIIAsksTheDictionaryEvenWhenEveryKeyIsASCII() {
        let ascii = ["K": 1, "Kb": 2]
        let table = NameTable(ascii)
        #expect(ascii["\u{212A}"] == 1)
        #expect(table["\u{212A}"] == 1)
        #expect(table["\u{212A}b"] == 2)
        let pairs = NameTable(pairs: ["stripe": ["K": 3]])
        #expect(pairs["stripe", "\u{212A}"] == 3)
    }

    @Test func pairsMatchBothPartsAndNothingElse() {
        let table = NameTable(pairs: ["stripe": ["price_a": 0, "b": 1], "app_store": ["price_a": 2], "caf\u{E9}": ["\u{212A}": 3], "a\u{0}b": ["c": 4], "a": ["b\u{0}c": 5]])
        #expect(table["stripe", "price_a"] == 0)
        #expect(table["app_store", "price_a"] == 2)
        #expect(table["stripe", "b"] == 1)
        #expect(table["stripe", "price_b"] == nil)
        #expect(table["stripeprice_a", ""] == nil)
        #expect(table["stripe\u{0}price_a", ""] == nil)
        #expect(table["stripe\u{0}price", "a"] == nil)
        #expect(table["play", "price_a"] == nil)
        // Canonically equal parts, as the nested dictionary of the graph finds them.
        #expect(table["cafe\u{301}", "K"] == 3)
        #expect(table["caf\u{E9}", "\u{212A}"] == 3)
        // A 0 byte inside a part does not blur where the parts meet.
        #expect(table["a\u{0}b", "c"] == 4)
        #expect(table["a", "b\u{0}c"] == 5)
    }

    /// The hash reads eight bytes at a time and the rest as one word: keys of every length up to
    /// 200 (beyond 127, where a length is no longer an ASCII byte), each prefix of the others, are
    /// found, and a non-ASCII byte at any offset, in a whole word or in the rest, sends the query
    /// to the dictionary.
    @Test func keysOfEveryLengthAndANonASCIIByteAtEveryOffset() {
        let long = String(repeating: "abcdefghij", count: 20)
        let keys = (0...200).map { String(long.prefix($0)) }
        let table = NameTable(Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) }))
        var wrong: [Int] = []
        for (i, key) in keys.enumerated() where table[key] != i { wrong.append(i) }
        #expect(wrong == [])
        #expect(table[long + "x"] == nil)
        let withE = NameTable(["price_forecast_pro_monthly": 0, "caf\u{E9}": 1])
        let base = Array("price_forecast_pro_monthly".utf8)
        var answered: [Int] = []
        for offset in base.indices {
            var bytes = base
            bytes[offset] = 0xC3
            bytes.insert(0xA9, at: offset + 1)  // é, so the query is valid UTF-8 and not ASCII
            let query = String(decoding: bytes, as: UTF8.self)
            if withE[query] != nil { answered.append(offset) }
        }
        #expect(answered == [])
        #expect(withE["cafe\u{301}"] == 1)
        // What the table keeps: every ASCII key (of any length) and none other.
        var misjudged: [Int] = []
        for n in 0...200 {
            var ascii = Array(long.utf8.prefix(n))
            if !hash(ascii).ascii { misjudged.append(n) }
            for offset in ascii.indices {
                ascii[offset] |= 0x80
                if hash(ascii).ascii { misjudged.append(-n) }
                ascii[offset] &= 0x7F
            }
        }
        #expect(misjudged == [])
        let pairs = NameTable(pairs: ["stripe": ["\(long)": 7, "é": 8]])
        #expect(pairs["stripe", long] == 7)
        #expect(pairs["strip", "e" + long] == nil)
        #expect(pairs["stripe", "e\u{301}"] == 8)
    }

    /// Pairs with parts of every length from 0 to 18 (each side of the two-word short path), and
    /// queries that move bytes between the parts or add one: the table answers as the nested
    /// dictionary does, for keys and non-keys alike. Once with ASCII parts without a 0 byte (the
    /// table holds every pair, and answers a miss itself), once with a 0 byte in some parts.
    @Test func pairsOfEveryPartLengthAnswerAsTheNestedDictionary() {
        var rng = SeededRandom(seed: 35)
        for zeros in [false, true] {
            func part(_ n: Int) -> String {
                let bytes = (0..<n).map { _ in zeros && rng.next() % 9 == 0 ? 0 : UInt8(0x61 + rng.next() % 3) }
                return String(decoding: bytes, as: UTF8.self)
            }
            var nested: [String: [String: Int]] = [:]
            var queries: [(String, String)] = []
            for m in 0...18 {
                for n in 0...18 {
                    let (a, b) = (part(m), part(n))
                    nested[a, default: [:]][b] = m * 100 + n
                    queries.append((a, b))
                    queries.append((a + String(b.prefix(1)), String(b.dropFirst())))  // the meeting point moved
                    queries.append((String(a.dropLast()), String(a.suffix(1)) + b))
                    queries.append((a, b + "a"))
                }
            }
            let table = NameTable(pairs: nested)
            var wrong: [String] = []
            for (a, b) in queries where table[a, b] != nested[a]?[b] { wrong.append("\(Array(a.utf8)) \(Array(b.utf8))") }
            #expect(wrong == [], "zeros: \(zeros)")
        }
    }

    private func hash(_ bytes: [UInt8]) -> NameTable.Hash {
        var h = NameTable.Hash()
        bytes.withUnsafeBufferPointer { h.combine($0) }
        return h
    }

    @Test func manyKeysStillFindEachOne() {
        let many = Dictionary(uniqueKeysWithValues: (0..<5_000).map { ("product_\($0)", $0) })
        let table = NameTable(many)
        var misses: [Int] = []
        for i in 0..<5_000 where table["product_\(i)"] != i { misses.append(i) }
        #expect(misses == [])
        #expect(table["product_5000"] == nil)
    }

    @Test func aPurchaseNamedByACanonicallyEqualStoreIDIsMatched() throws {
        let graph = compileGraph("""
            product pro: non_consumable { id stripe "caf\u{E9}" }
            feature f: boolean
            entitlement e = pro { grants f }
            """)
        let state = PurchaseState(purchases: [Purchase(product: "cafe\u{301}", store: "stripe")])
        let evaluation = try Evaluation(graph: graph, state: state, at: Instant(rfc3339: "2026-01-01T00:00:00Z")!)
        #expect(try evaluation.feature("f").decision == .allowed)
    }
}
