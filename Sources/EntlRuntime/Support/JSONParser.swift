/// Parses JSON into a `JSONValue` tree (keys in order, numbers as written).
public enum JSONParser {
    public static let maxDepth = 256

    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        try JSONScanner.scan(bytes) { (scanner: inout JSONScanner) throws(JSONSyntaxError) -> JSONValue in
            let value = try parseValue(&scanner)
            try scanner.end()
            return value
        }
    }

    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    private static func parseValue(_ s: inout JSONScanner) throws(JSONSyntaxError) -> JSONValue {
        guard let b = s.peek() else { throw s.error("unexpected end of input, expected a value") }
        switch b {
        case UInt8(ascii: "{"):
            try s.enter()
            s.index += 1
            var members: [(key: String, value: JSONValue)] = []
            if s.peek() == UInt8(ascii: "}") {
                s.index += 1
            } else {
                repeat {
                    guard s.peek() == UInt8(ascii: "\"") else { throw s.unexpected(expected: "a string key") }
                    let key = try s.string()
                    try s.expect(UInt8(ascii: ":"), "`:` after the key")
                    members.append((key, try parseValue(&s)))
                } while try s.more(closing: UInt8(ascii: "}"), "}")
            }
            s.leave()
            return .object(members)
        case UInt8(ascii: "["):
            try s.enter()
            s.index += 1
            var items: [JSONValue] = []
            if s.peek() == UInt8(ascii: "]") {
                s.index += 1
            } else {
                repeat { items.append(try parseValue(&s)) } while try s.more(closing: UInt8(ascii: "]"), "]")
            }
            s.leave()
            return .array(items)
        case UInt8(ascii: "\""): return .string(try s.string())
        case UInt8(ascii: "t"): try s.literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try s.literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try s.literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let token = try s.numberToken()
            return .number(String(decoding: UnsafeBufferPointer(rebasing: s.bytes[token]), as: UTF8.self))
        default: throw s.unexpected(expected: "a value")
        }
    }
}
