import EntlLanguageServer
import EntlRuntime
import Testing

/// Files in memory for the server under test.
final class MemoryFiles: WorkspaceFiles {
    var files: [String: [UInt8]] = [:]

    func ruleFiles(inDirectory directory: String) -> [String] {
        files.keys.filter { $0.hasPrefix(directory + "/") && !$0.dropFirst(directory.count + 1).contains("/") && $0.hasSuffix(".entl") }
    }

    func ruleFiles(under directory: String, limit: Int) -> [String] {
        Array(files.keys.filter { $0.hasPrefix(directory + "/") && $0.hasSuffix(".entl") }.sorted().prefix(limit))
    }

    func contents(of path: String) -> [UInt8]? { files[path] }
}

/// A client session with the server, through the LSP framing in both directions: requests are
/// framed, split at odd places and fed through a `MessageFramer` as the reader thread does;
/// everything the server sends is framed and read back the same way.
final class Session {
    let files = MemoryFiles()
    private(set) var server: LanguageServer!
    private var outgoing = MessageFramer()
    private var incoming = MessageFramer()
    private var nextID = 1
    /// Notifications received and not yet taken.
    var notifications: [JSONValue] = []
    /// Responses not yet taken by `response(_:_:)`.
    private(set) var responses: [JSONValue] = []

    init(files: [String: String] = [:], initialize: Bool = true) {
        for (path, text) in files { self.files.files[path] = Array(text.utf8) }
        server = LanguageServer(files: self.files, version: "test", now: { Instant(rfc3339: "2026-11-23T00:00:00Z")! }) {
            [unowned self] message in
            var body: [UInt8] = []
            message.write(into: &body, indent: false, level: 0)
            self.outgoing.append(MessageFramer.frame(body))
            while case .message(let bytes)? = self.outgoing.next() {
                let value = try! JSONParser.parse(bytes)
                if value["method"] != nil { self.notifications.append(value) } else { self.responses.append(value) }
            }
        }
        if initialize {
            _ = request("initialize", .object([("processId", .null), ("rootUri", .string("file:///w")), ("capabilities", .object([]))]))
            notify("initialized", .object([]))
        }
    }

    /// Feeds raw bytes, in chunks of 7 or of the sizes given, as they would arrive on standard
    /// input.
    func feed(_ bytes: [UInt8], chunkSize: () -> Int = { 7 }) {
        var i = 0
        while i < bytes.count {
            let n = max(1, chunkSize())
            incoming.append(bytes[i..<min(i + n, bytes.count)])
            i += n
            while let frame = incoming.next() {
                switch frame {
                case .message(let body): server.handle(body)
                case .error(let message): server.reportFramingError(message)
                }
            }
        }
    }

    /// Takes the responses received so far.
    func takeResponses() -> [JSONValue] {
        defer { responses.removeAll() }
        return responses
    }

    /// Takes the messages of the `window/logMessage` notifications received so far.
    func takeLogs() -> [String] {
        var logs: [String] = []
        notifications.removeAll { n in
            guard n["method"] == .string("window/logMessage") else { return false }
            if case .string(let m)? = n["params"]?["message"] { logs.append(m) }
            return true
        }
        return logs
    }

    func send(_ message: JSONValue) {
        var body: [UInt8] = []
        message.write(into: &body, indent: false, level: 0)
        feed(MessageFramer.frame(body))
    }

    /// The whole response (`result` or `error`) to a request.
    func response(_ method: String, _ params: JSONValue) -> JSONValue {
        let id = nextID
        nextID += 1
        send(.object([("jsonrpc", .string("2.0")), ("id", .int(Int64(id))), ("method", .string(method)), ("params", params)]))
        guard let index = responses.firstIndex(where: { $0["id"] == .int(Int64(id)) }) else {
            Issue.record("no response to \(method)")
            return .null
        }
        return responses.remove(at: index)
    }

    func request(_ method: String, _ params: JSONValue) -> JSONValue {
        let r = response(method, params)
        if let error = r["error"] { Issue.record("\(method) failed: \(error.compact)") }
        return r["result"] ?? .null
    }

    func notify(_ method: String, _ params: JSONValue) {
        send(.object([("jsonrpc", .string("2.0")), ("method", .string(method)), ("params", params)]))
    }

    func open(_ path: String, _ text: String? = nil, version: Int = 1) {
        let text = text ?? String(decoding: files.files[path]!, as: UTF8.self)
        notify("textDocument/didOpen", .object([("textDocument", .object([
            ("uri", .string("file://" + path)), ("languageId", .string("entl")), ("version", .int(Int64(version))),
            ("text", .string(text)),
        ]))]))
    }

    /// Checks what is pending and returns the diagnostics published, by URI.
    func publishedDiagnostics() -> [String: [JSONValue]] {
        server.publishPendingDiagnostics()
        var out: [String: [JSONValue]] = [:]
        for n in notifications where n["method"] == .string("textDocument/publishDiagnostics") {
            if case .string(let uri)? = n["params"]?["uri"], case .array(let list)? = n["params"]?["diagnostics"] { out[uri] = list }
        }
        notifications.removeAll()
        return out
    }
}

/// `{"textDocument": {"uri": …}, "position": {…}}`
func at(_ path: String, _ line: Int, _ character: Int) -> JSONValue {
    .object([("textDocument", .object([("uri", .string("file://" + path))])),
             ("position", .object([("line", .int(Int64(line))), ("character", .int(Int64(character)))]))])
}

func document(_ path: String) -> JSONValue {
    .object([("textDocument", .object([("uri", .string("file://" + path))]))])
}

/// `{"start": …, "end": …}` in the protocol's shape.
func range(_ l1: Int, _ c1: Int, _ l2: Int, _ c2: Int) -> JSONValue {
    .object([("start", .object([("line", .int(Int64(l1))), ("character", .int(Int64(c1)))])),
             ("end", .object([("line", .int(Int64(l2))), ("character", .int(Int64(c2)))]))])
}

func location(_ path: String, _ r: JSONValue) -> JSONValue {
    .object([("uri", .string("file://" + path)), ("range", r)])
}

let photos = """
    app "com.example.photos"

    /// Pro, monthly.
    product pro_monthly: subscription { name "Pro 📷"; period month; id appstore "pro.m" }
    product pro_annual: subscription {
      period year
      id app_store "pro.y"
    }

    /// Everything in Pro.
    entitlement pro = pro_monthly or pro_annual {
      grants export
      grants api_calls 100 per month
    }

    /// Export photos.
    feature export: boolean

    feature api_calls: metered {
      unit "call" / "calls"
    }

    """
