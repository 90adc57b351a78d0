extension UsageRecord {
    /// The record as state JSON (docs/state.md): `{"feature": "api_calls", "amount": 5, "at": "…", "id": "…"}`.
    public var json: [UInt8] { json(in: JSONLayout()) }

    /// The record as state JSON laid out like `layout`'s neighbours.
    func json(in layout: JSONLayout) -> [UInt8] {
        var members: [[UInt8]] = []
        func member(_ key: String, _ value: [UInt8]) {
            members.append(Array("\"\(key)\":".utf8) + (layout.spaceAfterColon ? [0x20] : []) + value)
        }
        var name: [UInt8] = []
        JSONValue.writeString(self.name, to: &name)
        member(isEvent ? "event" : "feature", name)
        var number: [UInt8] = []
        switch kind {
        case .amount(let n): JSONValue.writeInteger(n, to: &number); member("amount", number)
        case .level(let n): JSONValue.writeInteger(n, to: &number); member("level", number)
        }
        if let at {
            var text: [UInt8] = [UInt8(ascii: "\"")]
            at.writeRFC3339(into: &text)
            text.append(UInt8(ascii: "\""))
            member("at", text)
        }
        if let id {
            var text: [UInt8] = []
            JSONValue.writeString(id, to: &text)
            member("id", text)
        }
        if let lines = layout.lines {
            var out: [UInt8] = [UInt8(ascii: "{")]
            for (i, m) in members.enumerated() {
                out += (i == 0 ? [] : [UInt8(ascii: ",")]) + lines.newline + lines.memberIndent + m
            }
            return out + lines.newline + lines.closingIndent + [UInt8(ascii: "}")]
        }
        let pad: [UInt8] = layout.spaceInsideBraces ? [0x20] : []
        let separator: [UInt8] = layout.spaceAfterComma ? [UInt8(ascii: ","), 0x20] : [UInt8(ascii: ",")]
        var out: [UInt8] = [UInt8(ascii: "{")] + pad
        for (i, m) in members.enumerated() { out += (i == 0 ? [] : separator) + m }
        return out + pad + [UInt8(ascii: "}")]
    }
}

extension StateGrant {
    /// The grant as state JSON (docs/state.md `grants[]`): the keys it has, in the documented order.
    public var json: [UInt8] {
        var members: [(String, JSONValue)] = []
        switch target {
        case .entitlement(let e): members.append(("entitlement", .string(e)))
        case .feature(let f): members.append(("feature", .string(f)))
        }
        switch amount {
        case .count(let n): members.append(("amount", .int(n)))
        case .unlimited: members.append(("unlimited", .bool(true)))
        case .none: break
        }
        if let interval { members.append(("per", .string(interval.rawValue))) }
        if let carry {
            members.append(("carry", .bool(true)))
            if case .upTo(let n) = carry { members.append(("carry_up_to", .int(n))) }
        }
        if let overage {
            members.append(("overage", .bool(true)))
            if let cap = overage.cap { members.append(("overage_up_to", .int(cap))) }
        }
        if priority != 0 { members.append(("priority", .int(priority))) }
        members.append(("from", .string(from.description)))
        if let until { members.append(("until", .string(until.description))) }
        if let id { members.append(("id", .string(id))) }
        if let reason { members.append(("reason", .string(reason))) }
        return Array(JSONValue.object(members).compact.utf8)
    }
}

/// How an object in a JSON text is laid out, read off a neighbour, so what is added looks like
/// what is there: a minified file stays minified, a pretty one keeps its indentation and its line
/// endings.
struct JSONLayout {
    var spaceAfterColon = true
    var spaceAfterComma = true
    var spaceInsideBraces = false
    /// One member per line: the line ending and the indentation of the members and of the `}`.
    var lines: (newline: [UInt8], memberIndent: [UInt8], closingIndent: [UInt8])?

    init() {}

    /// The layout of the object `text`.
    init(of text: [UInt8]) {
        guard text.first == UInt8(ascii: "{") else { return }
        spaceAfterColon = Self.follows(UInt8(ascii: ":"), in: text) ?? true
        spaceAfterComma = Self.follows(UInt8(ascii: ","), in: text) ?? spaceAfterColon
        spaceInsideBraces = text.count > 2 && text[1] == 0x20
        guard let firstBreak = text.firstIndex(of: 0x0A) else { return }
        let newline: [UInt8] = firstBreak > 0 && text[firstBreak - 1] == 0x0D ? [0x0D, 0x0A] : [0x0A]
        let indent = text[(firstBreak + 1)...].prefix { $0 == 0x20 || $0 == 0x09 }
        var close = text.count - 1
        while close > 0, text[close - 1] == 0x20 || text[close - 1] == 0x09 { close -= 1 }
        lines = (newline, Array(indent), Array(text[close..<(text.count - 1)]))
    }

    /// Whether the first `byte` outside strings is followed by a space; nil when there is none.
    private static func follows(_ byte: UInt8, in text: [UInt8]) -> Bool? {
        var inString = false, escaped = false
        for (i, b) in text.enumerated() {
            if inString {
                if escaped {
                    escaped = false
                } else if b == UInt8(ascii: "\\") {
                    escaped = true
                } else if b == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if b == UInt8(ascii: "\"") {
                inString = true
            } else if b == byte {
                return i + 1 < text.count && (text[i + 1] == 0x20 || text[i + 1] == 0x0A || text[i + 1] == 0x0D)
            }
        }
        return nil
    }
}

extension PurchaseState {
    /// State JSON with `record` appended to its `usage` array, every other byte as it was: the
    /// record goes after the last one, laid out like it (minified, on one line, or one member per
    /// line with its indentation and line endings), or into a new `"usage"` member after the last
    /// member, laid out like that. This is how `entlc eval --consume` records a use without
    /// rewriting a user's file; the file grows by the record alone.
    public static func appendingUsage(_ record: UsageRecord, toJSON bytes: [UInt8]) throws(StateError) -> [UInt8] {
        let edit: (range: Range<Int>, text: [UInt8])
        do {
            edit = try JSONScanner.scan(bytes) {
                (s: inout JSONScanner) throws(JSONSyntaxError) -> (Range<Int>, [UInt8]) in
                try usageInsertion(record, &s)
            }
        } catch {
            throw StateError(path: "\(error.line):\(error.column)", message: "invalid JSON: " + error.message)
        }
        return Array(bytes[..<edit.range.lowerBound]) + edit.text + Array(bytes[edit.range.upperBound...])
    }

    /// The bytes to replace (an empty range: where to insert), and the text that goes there.
    private static func usageInsertion(_ record: UsageRecord, _ s: inout JSONScanner) throws(JSONSyntaxError)
        -> (Range<Int>, [UInt8])
    {
        guard s.peek() == UInt8(ascii: "{") else { throw s.error("the state must be a JSON object") }
        let objectStart = s.index
        s.index += 1
        func spacing(before offset: Int) -> [UInt8] { s.whiteSpace(before: offset) }
        /// The layout of the state object's own members, for a record in a new or empty array.
        func outerLayout() -> JSONLayout {
            var layout = JSONLayout(of: Array(s.bytes[objectStart..<min(s.bytes.count, objectStart + 4_096)]))
            layout.lines = nil
            layout.spaceInsideBraces = false
            return layout
        }
        var lastMemberEnd: Int?
        var lastMemberStart = s.index
        if s.peek() != UInt8(ascii: "}") {
            repeat {
                let (keyStart, key) = try s.memberKey()
                if s.matches(key, "usage"), s.peek() == UInt8(ascii: "[") {
                    s.index += 1
                    if s.peek() == UInt8(ascii: "]") { return (s.index..<s.index, record.json(in: outerLayout())) }
                    var elementStart = s.index, elementEnd = s.index
                    repeat {
                        _ = s.peek()
                        elementStart = s.index
                        try s.skipValue()
                        elementEnd = s.index
                    } while try s.more(closing: UInt8(ascii: "]"), "]")
                    let neighbour = JSONLayout(of: Array(s.bytes[elementStart..<elementEnd]))
                    return (elementEnd..<elementEnd,
                            [UInt8(ascii: ",")] + spacing(before: elementStart) + record.json(in: neighbour))
                }
                if s.matches(key, "usage"), s.peek() == UInt8(ascii: "n") {
                    // `"usage": null` becomes an array holding the record.
                    let start = s.index
                    try s.literal("null")
                    return (start..<s.index, [UInt8(ascii: "[")] + record.json(in: outerLayout()) + [UInt8(ascii: "]")])
                }
                try s.skipValue()
                lastMemberStart = keyStart
                lastMemberEnd = s.index
            } while try s.more(closing: UInt8(ascii: "}"), "}")
        } else {
            let layout = outerLayout()
            return (s.index..<s.index, Array("\"usage\":".utf8) + (layout.spaceAfterColon ? [0x20] : [])
                + [UInt8(ascii: "[")] + record.json(in: layout) + [UInt8(ascii: "]")])
        }
        guard let end = lastMemberEnd else { throw s.error("the state must be a JSON object") }
        let layout = outerLayout()
        return (end..<end, [UInt8(ascii: ",")] + spacing(before: lastMemberStart) + Array("\"usage\":".utf8)
            + (layout.spaceAfterColon ? [0x20] : []) + [UInt8(ascii: "[")] + record.json(in: layout)
            + [UInt8(ascii: "]")])
    }
}

extension PurchaseState {
    /// State JSON compacted (`LedgerCompaction`): its `usage` keeps the records at `keeping` (places
    /// in it, ascending) with the white space that stood before each, and its `ledger` member is
    /// `ledger` (rewritten in place, or added after the last member, laid out like the members: one
    /// per line in a pretty file, one line in a minified one). Every other byte is kept.
    public static func compactedJSON(_ bytes: [UInt8], keeping: [Int], ledger: LedgerSnapshot) throws(StateError)
        -> [UInt8]
    {
        let edits: [(range: Range<Int>, text: [UInt8])]
        do {
            edits = try JSONScanner.scan(bytes) {
                (s: inout JSONScanner) throws(JSONSyntaxError) -> [(range: Range<Int>, text: [UInt8])] in
                try compactionEdits(&s, keeping: keeping, ledger: ledger)
            }
        } catch {
            throw StateError(path: "\(error.line):\(error.column)", message: "invalid JSON: " + error.message)
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var copied = 0
        for edit in edits.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) {
            out += bytes[copied..<edit.range.lowerBound]
            out += edit.text
            copied = edit.range.upperBound
        }
        out += bytes[copied...]
        return out
    }

    private static func compactionEdits(_ s: inout JSONScanner, keeping: [Int],
                                        ledger: LedgerSnapshot) throws(JSONSyntaxError)
        -> [(range: Range<Int>, text: [UInt8])]
    {
        guard s.peek() == UInt8(ascii: "{") else { throw s.error("the state must be a JSON object") }
        s.index += 1
        func spacing(before offset: Int, _ s: JSONScanner) -> [UInt8] { s.whiteSpace(before: offset) }
        var edits: [(range: Range<Int>, text: [UInt8])] = []
        var ledgerValue: Range<Int>?
        var last: (start: Int, end: Int)?
        if s.peek() != UInt8(ascii: "}") {
            repeat {
                let (keyStart, key) = try s.memberKey()
                _ = s.peek()
                let valueStart = s.index
                if s.matches(key, "usage"), s.peek() == UInt8(ascii: "[") {
                    let open = s.index
                    s.index += 1
                    var elements: [Range<Int>] = []
                    if s.peek() == UInt8(ascii: "]") {
                        s.index += 1
                    } else {
                        repeat {
                            _ = s.peek()
                            let start = s.index
                            try s.skipValue()
                            elements.append(start..<s.index)
                        } while try s.more(closing: UInt8(ascii: "]"), "]")
                    }
                    if keeping.isEmpty {
                        edits.append((open + 1..<s.index - 1, []))
                    } else if let first = elements.first, let end = elements.last?.upperBound {
                        var text: [UInt8] = []
                        for (n, k) in keeping.enumerated() {
                            if n > 0 { text += [UInt8(ascii: ",")] + spacing(before: elements[k].lowerBound, s) }
                            text += s.bytes[elements[k]]
                        }
                        edits.append((first.lowerBound..<end, text))
                    }
                } else {
                    try s.skipValue()
                    if s.matches(key, "ledger") { ledgerValue = valueStart..<s.index }
                }
                last = (keyStart, s.index)
            } while try s.more(closing: UInt8(ascii: "}"), "}")
        } else {
            s.index += 1
        }
        // The snapshot laid out like the members: on their lines, or on one line.
        let before = last.map { spacing(before: $0.start, s) } ?? []
        var text: [UInt8]
        if let lineStart = before.lastIndex(of: 0x0A) {
            let newline: [UInt8] = lineStart > 0 && before[lineStart - 1] == 0x0D ? [0x0D, 0x0A] : [0x0A]
            text = ledger.json(indent: Array(before[(lineStart + 1)...]), newline: newline)
        } else {
            text = ledger.json()
        }
        if let ledgerValue {
            edits.append((ledgerValue, text))
        } else if let last {
            edits.append((last.end..<last.end, [UInt8(ascii: ",")] + before + Array("\"ledger\": ".utf8) + text))
        } else {
            edits.append((s.index - 1..<s.index - 1, Array("\"ledger\": ".utf8) + text))
        }
        return edits
    }
}

extension JSONScanner {
    /// The next member's key and where it starts, the `:` after it read.
    mutating func memberKey() throws(JSONSyntaxError) -> (start: Int, key: StringBytes) {
        _ = peek()
        let start = index
        let key = try stringBytes()
        try expect(UInt8(ascii: ":"), "`:` after the key")
        return (start, key)
    }

    /// The white space before `offset`, back to the previous token: what separates an element (or
    /// member) from the one before it.
    func whiteSpace(before offset: Int) -> [UInt8] {
        var i = offset
        while i > 0, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i - 1]) { i -= 1 }
        return Array(bytes[i..<offset])
    }
}
