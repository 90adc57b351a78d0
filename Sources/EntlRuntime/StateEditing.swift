extension UsageRecord {
    /// The record as state JSON (docs/state.md): `{"feature": "api_calls", "amount": 5, "at": "…", "id": "…"}`.
    public var json: [UInt8] {
        var out = Array("{".utf8)
        out += Array((isEvent ? "\"event\": " : "\"feature\": ").utf8)
        JSONValue.writeString(name, to: &out)
        switch kind {
        case .amount(let n): out += Array(", \"amount\": ".utf8); JSONValue.writeInteger(n, to: &out)
        case .level(let n): out += Array(", \"level\": ".utf8); JSONValue.writeInteger(n, to: &out)
        }
        if let at {
            out += Array(", \"at\": \"".utf8)
            at.writeRFC3339(into: &out)
            out.append(UInt8(ascii: "\""))
        }
        if let id {
            out += Array(", \"id\": ".utf8)
            JSONValue.writeString(id, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}

extension PurchaseState {
    /// State JSON with `record` appended to its `usage` array, every other byte as it was: the
    /// record goes after the last one, indented like it (or into a new `"usage"` member, after the
    /// last member, indented like that). This is how `entlc eval --consume` records a use
    /// without rewriting a user's file.
    public static func appendingUsage(_ record: UsageRecord, toJSON bytes: [UInt8]) throws(StateError) -> [UInt8] {
        let edit: (range: Range<Int>, text: [UInt8])
        do {
            edit = try JSONScanner.scan(bytes) { (s: inout JSONScanner) throws(JSONSyntaxError) -> (Range<Int>, [UInt8]) in
                try usageInsertion(record.json, &s)
            }
        } catch {
            throw StateError(path: "\(error.line):\(error.column)", message: "invalid JSON: " + error.message)
        }
        return Array(bytes[..<edit.range.lowerBound]) + edit.text + Array(bytes[edit.range.upperBound...])
    }

    /// The bytes to replace (an empty range: where to insert), and the text that goes there.
    private static func usageInsertion(_ record: [UInt8], _ s: inout JSONScanner) throws(JSONSyntaxError)
        -> (Range<Int>, [UInt8])
    {
        guard s.peek() == UInt8(ascii: "{") else { throw s.error("the state must be a JSON object") }
        s.index += 1
        /// The whitespace before the first member (or element) on its line, for indentation.
        func indentation(before offset: Int) -> [UInt8] {
            var i = offset
            while i > 0, s.bytes[i - 1] == 0x20 || s.bytes[i - 1] == 0x09 { i -= 1 }
            let newline = i > 0 && s.bytes[i - 1] == 0x0A
            return (newline ? [0x0A] : [0x20]) + Array(s.bytes[i..<offset])
        }
        var lastMemberEnd: Int?
        var lastMemberStart = s.index
        if s.peek() != UInt8(ascii: "}") {
            repeat {
                _ = s.peek()
                let keyStart = s.index
                let key = try s.stringBytes()
                try s.expect(UInt8(ascii: ":"), "`:` after the key")
                if s.matches(key, "usage"), s.peek() == UInt8(ascii: "[") {
                    s.index += 1
                    if s.peek() == UInt8(ascii: "]") { return (s.index..<s.index, record) }
                    var elementStart = s.index, elementEnd = s.index
                    repeat {
                        _ = s.peek()
                        elementStart = s.index
                        try s.skipValue()
                        elementEnd = s.index
                    } while try s.more(closing: UInt8(ascii: "]"), "]")
                    return (elementEnd..<elementEnd, [UInt8(ascii: ",")] + indentation(before: elementStart) + record)
                }
                if s.matches(key, "usage"), s.peek() == UInt8(ascii: "n") {
                    // `"usage": null` becomes an array holding the record.
                    let start = s.index
                    try s.literal("null")
                    return (start..<s.index, Array("[".utf8) + record + Array("]".utf8))
                }
                try s.skipValue()
                lastMemberStart = keyStart
                lastMemberEnd = s.index
            } while try s.more(closing: UInt8(ascii: "}"), "}")
        } else {
            return (s.index..<s.index, Array("\"usage\": [".utf8) + record + Array("]".utf8))
        }
        guard let end = lastMemberEnd else { throw s.error("the state must be a JSON object") }
        return (end..<end, [UInt8(ascii: ",")] + indentation(before: lastMemberStart) + Array("\"usage\": [".utf8) + record
            + Array("]".utf8))
    }
}
