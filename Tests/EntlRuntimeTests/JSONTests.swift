import EntlRuntime
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

    /// Commas are right at every depth, past the 64 levels kept in one word too: each level holds
    /// a number, the next level, and a key after it.
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
}

