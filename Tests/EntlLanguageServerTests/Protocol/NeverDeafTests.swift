import EntlLanguageServer
import EntlRuntime
import EntlTestSupport
import Testing

private let path = "/w/photos.entl"

/// Requests whose answers do not depend on what came before them.
private let requests: [(method: String, params: JSONValue)] = [
    ("textDocument/hover", at(path, 10, 14)),
    ("textDocument/definition", at(path, 10, 20)),
    ("textDocument/documentSymbol", document(path)),
    ("workspace/symbol", .object([("query", .string("pro"))])),
    ("textDocument/semanticTokens/full", document(path)),
]

/// Bytes that are not a message, and what the server must do about them: how many framing
/// errors it logs, how many error responses without an id it sends.
private struct Garbage {
    var bytes: [UInt8]
    var logs = 1
    var nullResponses = 0
    /// The next message must start with its `Content-Length` line (only such a line can cut a
    /// body that claims to be longer than it is).
    var lengthFirst = false
}

private func body(_ id: Int, _ request: (method: String, params: JSONValue)) -> [UInt8] {
    var out: [UInt8] = []
    JSONValue.object([("jsonrpc", .string("2.0")), ("id", .int(Int64(id))), ("method", .string(request.method)),
                      ("params", request.params)]).write(into: &out, indent: false, level: 0)
    return out
}

/// A message framed with one of the header spellings clients use.
private func framed(_ body: [UInt8], lengthFirst: Bool, _ r: inout SeededRandom) -> [UInt8] {
    let name = r.pick(["Content-Length: ", "content-length: ", "CONTENT-LENGTH:", "Content-Length:  "])
    let length = name + "\(body.count)"
    let type = "Content-Type: application/vscode-jsonrpc; charset=utf-8"
    let lines = lengthFirst || r.chance(0.5) ? [length] + (r.chance(0.3) ? [type] : []) : [type, length]
    return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + body
}

/// One piece of generated garbage to put before a message of `nextLength` bytes.
private func garbage(nextLength: Int, _ r: inout SeededRandom) -> Garbage {
    let request = body(99_999, r.pick(requests))
    func header(_ text: String) -> [UInt8] { Array(text.utf8) }
    func randomBytes(_ count: ClosedRange<Int>) -> [UInt8] {
        (0..<r.int(count)).map { _ in UInt8.random(in: 0...255, using: &r) }
    }
    switch r.int(0...9) {
    case 0:
        // Random bytes, the first of which cannot start a header.
        return Garbage(bytes: [r.pick([0x00, 0x0A, 0x20, 0x7B, 0xFF, 0xC3])] + randomBytes(0...40))
    case 1:
        // Stray line ends and blanks.
        return Garbage(bytes: (0..<r.int(1...4)).map { _ in r.pick([0x0D, 0x0A, 0x20, 0x09]) })
    case 2:
        // A header cut short.
        let line = header("Content-Length: 57\r\n")
        return Garbage(bytes: Array(line[..<r.int(1...(line.count - 1))]))
    case 3:
        // A length too large: cut at the next header.
        let length = request.count + r.int(1...200)
        return Garbage(bytes: header("Content-Length: \(length)\r\n\r\n") + request, lengthFirst: true)
    case 4:
        // A length too small: the start of the body is answered with a parse error.
        let length = r.int(0...(request.count - 1))
        return Garbage(bytes: header("Content-Length: \(length)\r\n\r\n") + request, nullResponses: 1)
    case 5:
        // A well-framed body that is not JSON-RPC.
        return Garbage(bytes: MessageFramer.frame(randomBytes(1...30)), logs: 0, nullResponses: 1)
    case 6:
        return Garbage(bytes: header("Content-Type: application/vscode-jsonrpc\r\n\r\n") + request)
    case 7:
        let value = r.pick(["-5", "abc", "1e3", "0x10", "", " ", "12 34", "1234567890123456789"])
        return Garbage(bytes: header("Content-Length: \(value)\r\n\r\n") + request)
    case 8:
        // Too large to buffer: reported, then cut at the next header.
        let length = r.int(MessageFramer.maxContentLength + 1 ... 999_999_999_999)
        return Garbage(bytes: header("Content-Length: \(length)\r\n\r\n") + request, logs: 2, lengthFirst: true)
    default:
        // A `Content-Length` line that disagrees with the message's own.
        return Garbage(bytes: header("Content-Length: \(nextLength + r.int(1...9))\r\n"))
    }
}

@Suite struct NeverDeafTests {
    /// Generated garbage between well-framed requests, the whole fed in random chunks: every
    /// request gets its own answer, each piece of garbage is logged (or answered without an
    /// id when it was framed), and nothing else comes back.
    @Test(arguments: Array(UInt64(1)...24))
    func everyRequestIsAnsweredWhateverComesBetween(seed: UInt64) {
        var expected: [String: JSONValue] = [:]
        let clean = Session(files: [path: photos])
        clean.open(path)
        for (method, params) in requests { expected[method] = clean.request(method, params) }

        var r = SeededRandom(seed: seed)
        let s = Session(files: [path: photos])
        s.open(path)
        _ = s.takeLogs()
        var stream: [UInt8] = []
        var methods: [Int: String] = [:]
        var logs = 0, nullResponses = 0
        var lengthFirst = false
        for id in 1...12 {
            let request = r.pick(requests)
            let bytes = body(id, request)
            methods[id] = request.method
            if id > 1 {
                let g = garbage(nextLength: bytes.count, &r)
                stream += g.bytes
                logs += g.logs
                nullResponses += g.nullResponses
                lengthFirst = g.lengthFirst
            }
            stream += framed(bytes, lengthFirst: lengthFirst, &r)
        }
        let sizes = r.pick([1...3, 1...64, 1...4096])
        s.feed(stream) { r.int(sizes) }

        let responses = s.takeResponses()
        for (id, method) in methods.sorted(by: { $0.key < $1.key }) {
            let answers = responses.filter { $0["id"] == .int(Int64(id)) }
            #expect(answers.count == 1, "seed \(seed): request \(id) (\(method)) answered \(answers.count) times")
            #expect(answers.first?["result"] == expected[method], "seed \(seed): request \(id) (\(method))")
        }
        #expect(responses.filter { $0["id"] == .null }.count == nullResponses, "seed \(seed)")
        #expect(responses.count == methods.count + nullResponses, "seed \(seed)")
        let logged = s.takeLogs()
        #expect(logged.count == logs, "seed \(seed): \(logged)")
        #expect(logged.allSatisfy { $0.hasPrefix("entlc lsp: skipped ") || $0.hasPrefix("entlc lsp: message of ") })
    }

    /// A stray newline, garbage and a lowercase header between requests, as an editor's pipe
    /// could carry them.
    @Test func theRequestAfterGarbageIsAnswered() {
        let s = Session(files: [path: photos])
        s.open(path)
        let symbols = s.request("workspace/symbol", .object([("query", .string("pro"))]))
        for garbage in ["\n", "\r\n", "garbage", "Content-Len", "Content-Type: text/plain\r\n\r\n{}"] {
            s.feed(Array(garbage.utf8))
            let r = s.response("workspace/symbol", .object([("query", .string("pro"))]))
            #expect(r["result"] == symbols, "after \(garbage)")
        }
        let request = #"{"jsonrpc":"2.0","id":"x","method":"workspace/symbol","params":{"query":"pro"}}"#
        s.feed(Array("content-length: \(request.utf8.count)\r\n\r\n\(request)".utf8))
        #expect(s.takeResponses() == [.object([("jsonrpc", .string("2.0")), ("id", .string("x")),
                                                 ("result", symbols)])])
        #expect(s.takeLogs() == [
            "entlc lsp: skipped 1 byte that is not an LSP message (not a `Name: value` header line): `\\n`",
            "entlc lsp: skipped 2 bytes that are not an LSP message (a blank line): `\\r\\n`",
            "entlc lsp: skipped 7 bytes that are not an LSP message (a header without `Content-Length`): `garbage`",
            "entlc lsp: skipped 11 bytes that are not an LSP message (a header without `Content-Length`): "
                + "`Content-Len`",
            "entlc lsp: skipped 30 bytes that are not an LSP message (a header without `Content-Length`): "
                + "`Content-Type: text/plain\\r\\n\\r\\n{}`",
        ])
    }
}
