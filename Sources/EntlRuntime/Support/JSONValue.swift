/// A JSON value with object keys in order, so output is byte-identical for identical inputs.
///
/// Numbers keep their literal text (`.number`) when parsed, so integers above 2^53 are never
/// rounded through a `Double`; `.int` is for writing.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    /// A number as written in the input (validated against the JSON grammar).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.int(let a), .number(let b)), (.number(let b), .int(let a)): String(a) == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    /// The value of `key` in an object (the last one, if repeated).
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// `Optional<String>` → string or null; convenience for building output.
    public static func string(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
    public static func int(_ n: Int64?) -> JSONValue { n.map(JSONValue.int) ?? .null }

    // MARK: - Writing

    /// Compact, one line: `{"a":1,"b":[true,null]}`.
    public var compact: String {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(into: &out, indent: false, level: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// Indented by two spaces per level, keys in order, `"key": value`.
    public var pretty: String {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        write(into: &out, indent: true, level: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// `open`, then `count` items separated by commas (one per line, indented, when `indent`), then
    /// `close`; an empty container on one line.
    private static func writeContainer(_ open: UInt8, _ close: UInt8, count: Int, into out: inout [UInt8],
                                       indent: Bool, level: Int, item: (Int, inout [UInt8]) -> Void) {
        out.append(open)
        guard count > 0 else { return out.append(close) }
        for i in 0..<count {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            newline(&out, indent, level + 1)
            item(i, &out)
        }
        newline(&out, indent, level)
        out.append(close)
    }

    /// Appends the UTF-8 bytes of this value.
    public func write(into out: inout [UInt8], indent: Bool, level: Int) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let n): JSONValue.writeInteger(n, to: &out)
        case .number(let raw): out.append(contentsOf: raw.utf8)
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let items):
            JSONValue.writeContainer(UInt8(ascii: "["), UInt8(ascii: "]"), count: items.count, into: &out,
                                     indent: indent, level: level) { i, out in
                items[i].write(into: &out, indent: indent, level: level + 1)
            }
        case .object(let members):
            JSONValue.writeContainer(UInt8(ascii: "{"), UInt8(ascii: "}"), count: members.count, into: &out,
                                     indent: indent, level: level) { i, out in
                JSONValue.writeString(members[i].key, to: &out)
                out.append(UInt8(ascii: ":"))
                if indent { out.append(UInt8(ascii: " ")) }
                members[i].value.write(into: &out, indent: indent, level: level + 1)
            }
        }
    }

    private static func newline(_ out: inout [UInt8], _ indent: Bool, _ level: Int) {
        guard indent else { return }
        out.append(UInt8(ascii: "\n"))
        for _ in 0..<(level * 2) { out.append(UInt8(ascii: " ")) }
    }

    static func writeInteger<O: ByteOutput & ~Copyable>(_ n: Int64, to out: inout O) {
        if n == 0 { return out.write(UInt8(ascii: "0")) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var start = 24
        var v = n.magnitude
        withUnsafeMutableBytes(of: &digits) { buffer in
            while v > 0 {
                start -= 1
                buffer[start] = UInt8(truncatingIfNeeded: v % 10) + UInt8(ascii: "0")
                v /= 10
            }
            if n < 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            out.write(UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// A JSON string: runs of bytes that need no escape are copied whole.
    static func writeString<O: ByteOutput & ~Copyable>(_ s: String, to out: inout O) {
        var s = s
        s.withUTF8 { writeString(utf8: $0, to: &out) }
    }

    /// `writeString` of UTF-8 bytes (a `StaticString`'s, say: no `String` is made).
    static func writeString<O: ByteOutput & ~Copyable>(utf8 bytes: UnsafeBufferPointer<UInt8>, to out: inout O) {
        out.write(UInt8(ascii: "\""))
        if let base = bytes.baseAddress {
            var start = 0
            while true {
                let end = JSONScanner.plainRun(base, from: start, to: bytes.count, nonASCII: true)
                out.write(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start..<end])))
                guard end < bytes.count else { break }
                let b = bytes[end]
                switch b {
                case UInt8(ascii: "\""): out.write("\\\"")
                case UInt8(ascii: "\\"): out.write("\\\\")
                case UInt8(ascii: "\n"): out.write("\\n")
                case UInt8(ascii: "\r"): out.write("\\r")
                case UInt8(ascii: "\t"): out.write("\\t")
                default:
                    let hex: StaticString = "0123456789abcdef"
                    out.write("\\u00")
                    out.write(hex.utf8Start[Int(b >> 4)])
                    out.write(hex.utf8Start[Int(b & 0xF)])
                }
                start = end + 1
            }
        }
        out.write(UInt8(ascii: "\""))
    }
}
