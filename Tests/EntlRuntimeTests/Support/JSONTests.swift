import EntlRuntime
import EntlTestSupport
import Testing

@Suite struct JSONTests {
    @Test func parsesEveryKindOfValue() throws {
        let v = try JSONParser.parse(#"{"a": [1, -2.5e3, true, false, null], "b": "x\"\u00e9\ud83d\udc8e", "c": {}}"#)
        #expect(v == .object([
            ("a", .array([.number("1"), .number("-2.5e3"), .bool(true), .bool(false), .null])),
            ("b", .string("x\"é💎")),
            ("c", .object([])),
        ]))
    }

    @Test func bigIntegersKeepTheirDigits() throws {
        #expect(try JSONParser.parse("12345678901234567890123") == .number("12345678901234567890123"))
    }

    @Test(arguments: [
        ("{\"a\": 1,}", "1:9: unexpected `}`, expected a string key"),
        ("[1 2]", "1:4: unexpected `2`, expected `,` or `]`"),
        ("{\"a\"\n  1}", "2:3: unexpected `1`, expected `:` after the key"),
        ("\"abc", "1:1: unterminated string"),
        ("01", "1:1: invalid number: leading zero"),
        ("[1] x", "1:5: unexpected `x` after the JSON value"),
        ("", "1:1: unexpected end of input, expected a value"),
        ("\"\\x\"", "1:2: invalid escape `\\x`"),
        ("\"\\ud800\"", "1:8: unpaired surrogate in \\u escape"),
        ("tru", "1:1: unexpected `tru`, expected `true`"),
        ("nullx", "1:1: unexpected `nullx`, expected a value"),
    ])
    func syntaxErrorsAreLocated(_ input: String, _ message: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(input) }
        do {
            _ = try JSONParser.parse(input)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func nestingIsLimited() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(deep) }
        let ok = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(throws: Never.self) { try JSONParser.parse(ok) }
    }

    @Test func invalidUTF8InStrings() {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
    }

    @Test func writesCompactAndPretty() {
        let v: JSONValue = .object([("b", .int(1)), ("a", .array([.string("x\n\u{1}"), .null])), ("e", .array([]))])
        #expect(v.compact == #"{"b":1,"a":["x\n\u0001",null],"e":[]}"#)
        #expect(v.pretty == """
        {
          "b": 1,
          "a": [
            "x\\n\\u0001",
            null
          ],
          "e": []
        }
        """)
    }

    /// Strings are scanned eight bytes at a time: a byte that ends the plain run (a quote, a
    /// backslash, a control byte, non-ASCII) is found at every offset and before any number of
    /// bytes, written escaped and read back.
    @Test(arguments: ["\"", "\\", "\n", "\u{01}", "\u{1F}", "é", "💎"])
    func stringsRoundTripWithASpecialByteAtAnyOffset(special: String) throws {
        let escaped = ["\"": "\\\"", "\\": "\\\\", "\n": "\\n", "\u{01}": "\\u0001", "\u{1F}": "\\u001f"][special] ?? special
        // After it, the rest of a word or more (the last bytes are read as one padded word).
        for offset in 0..<20 {
            for rest in ["", "bcd", "bcdefghijklmnopq"] {
                let text = String(repeating: "a", count: offset) + special + rest
                var sink = JSONBytes()
                sink.string(text)
                let written = String(decoding: sink.bytes, as: UTF8.self)
                #expect(written == "\"" + String(repeating: "a", count: offset) + escaped + rest + "\"")
                #expect(try JSONParser.parse(sink.bytes) == .string(text))
            }
        }
    }

    @Test func integersAndInstantsAreWrittenWhole() throws {
        var sink = JSONBytes()
        sink.beginArray()
        for n: Int64 in [0, 7, -7, 1_000_000_000_000_000, .max, .min] { sink.int(n) }
        for seconds: Int64 in [0, -1, 253_402_300_800, -62_167_219_201] { sink.instant(Instant(seconds: seconds)) }
        sink.instant(Instant(seconds: 1, nanoseconds: 123_456_789))
        sink.instant(Instant(seconds: 1, nanoseconds: 500_000_000))
        sink.endArray()
        #expect(String(decoding: sink.bytes, as: UTF8.self) == "[0,7,-7,1000000000000000,9223372036854775807,-9223372036854775808,"
            + "\"1970-01-01T00:00:00Z\",\"1969-12-31T23:59:59Z\",\"10000-01-01T00:00:00Z\",\"-1-12-31T23:59:59Z\","
            + "\"1970-01-01T00:00:01.123456789Z\",\"1970-01-01T00:00:01.5Z\"]")
    }

    /// A string that needs no escape is copied a word at a time, its last word overlapping the one
    /// before: every length comes out whole, and the value after it intact.
    @Test func plainStringsOfEveryLengthAreWrittenWhole() {
        let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ")
        for n in 0...letters.count {
            let text = String(letters[..<n])
            var sink = JSONBytes(capacity: 1)
            sink.beginArray(); sink.string(text); sink.int(7); sink.string(nil); sink.endArray()
            #expect(String(decoding: sink.bytes, as: UTF8.self) == "[\"\(text)\",7,null]")
        }
    }

    /// Instants written again are copied from the text kept for them: in 64 slots, so many instants
    /// (with fractions, and years too long to keep) share slots and push one another out.
    @Test func instantsWrittenAgainReadAsWhenFirstWritten() {
        var random = SeededRandom(seed: 20_261_122)
        var pool = (0..<300).map { _ in
            Instant(seconds: random.int64(0...4_102_444_800), nanoseconds: random.chance(0.2) ? 250_000_000 : 0)
        }
        pool += [Instant(seconds: 9_000_000_000_000_000_000, nanoseconds: 123_456_789), Instant(seconds: -1)]
        let picks = (0..<3000).map { _ in random.pick(pool) }
        var sink = JSONBytes()
        sink.beginArray()
        for instant in picks { sink.instant(instant) }
        sink.endArray()
        let expected = "[" + picks.map { "\"\($0.rfc3339)\"" }.joined(separator: ",") + "]"
        #expect(String(decoding: sink.bytes, as: UTF8.self) == expected)
    }

    /// One sink holds many values, one per line: a line ends after a whole value and the next
    /// value starts without a comma, at any depth it reached before.
    @Test func oneSinkWritesManyLines() {
        var sink = JSONBytes(capacity: 1)
        sink.beginObject()
        sink.key("a"); sink.int(1)
        sink.key("b"); sink.beginArray(); sink.bool(true); sink.string(nil); sink.endArray()
        sink.endObject()
        sink.endLine()
        sink.int(2)
        sink.endLine()
        sink.beginArray(); sink.endArray()
        sink.endLine()
        #expect(String(decoding: sink.bytes, as: UTF8.self) == "{\"a\":1,\"b\":[true,null]}\n2\n[]\n")
        #expect(sink.count == 29)
    }

    /// Commas are right at every depth, past 64 levels too: each level holds a number, the next
    /// level, and a key after it.
    @Test(arguments: [1, 63, 64, 65, 130])
    func compactBytesSeparateValuesAtAnyDepth(levels: Int) throws {
        var sink = JSONBytes()
        for i in 0..<levels {
            sink.beginObject()
            sink.key("n"); sink.int(Int64(i))
            sink.key("next")
        }
        sink.beginArray(); sink.endArray()
        for _ in 0..<levels {
            sink.key("after"); sink.bool(true)
            sink.endObject()
        }
        var text = ""
        for i in 0..<levels { text += "{\"n\":\(i),\"next\":" }
        text += "[]" + String(repeating: ",\"after\":true}", count: levels)
        #expect(String(decoding: sink.bytes, as: UTF8.self) == text)
        #expect(try JSONParser.parse(sink.bytes) != .null)
    }

    /// Texts a sink keeps (`string(utf8:keepingAs:of:)`) are written again only for the same key
    /// and the same owner: over many picks of keys that share slots, owners that share keys, texts
    /// with escapes and texts too long to keep, every string reads as written the first time.
    @Test func keptTextsAreWrittenAgainOnlyForTheirKeyAndOwner() throws {
        final class Owner {}
        var random = SeededRandom(seed: 20_261_127)
        let owners = [Owner(), Owner(), Owner()]
        // A text per (key, owner): the same key names another text for another owner.
        func text(_ key: Int, _ owner: Int) -> String {
            key % 7 == 0 ? String(repeating: "long \(key)/\(owner) ", count: 20) : "t\"\(key)\\\(owner)\u{1}é"
        }
        var sink = JSONBytes()
        var expected: [String] = []
        sink.beginArray()
        for _ in 0..<3_000 {
            let (k, o) = (random.int(0...40), random.int(0...2))
            let key: TextKey = (UInt64(k), 0, 0, 0, UInt64(k % 3), 1)
            if !sink.string(keptAs: key, of: owners[o]) {
                Array(text(k, o).utf8).withUnsafeBufferPointer { sink.string(utf8: $0, keepingAs: key, of: owners[o]) }
            }
            expected.append(text(k, o))
        }
        sink.endArray()
        #expect(try JSONParser.parse(sink.bytes) == .array(expected.map { .string($0) }))
        // A kept text is found again, and a sink that keeps none finds none.
        let key: TextKey = (1, 2, 3, 4, 5, 6)
        var again = JSONBytes()
        again.beginArray()
        let before = again.string(keptAs: key, of: owners[0])
        Array("x".utf8).withUnsafeBufferPointer { again.string(utf8: $0, keepingAs: key, of: owners[0]) }
        let found = again.string(keptAs: key, of: owners[0]), other = again.string(keptAs: key, of: owners[1])
        #expect(!before && found && !other)
        again.endArray()
        #expect(String(decoding: again.bytes, as: UTF8.self) == "[\"x\",\"x\"]")
        var tree = JSONTree()
        let inTree = tree.string(keptAs: key, of: owners[0])
        #expect(!inTree)
    }
}
