import EntlCompiler
import EntlRuntime
import EntlSyntax

/// The `entlc lsp` server: LSP 3.17 requests and notifications in, responses and notifications
/// out, through `send`. It keeps the open documents, checks the rule set each belongs to (the
/// `.entl` files of its directory, open buffers winning over disk) and answers from that check.
///
/// Pure apart from what it is given: files come through `WorkspaceFiles`, the time through
/// `now`, and nothing is written but through `send`. Not thread-safe: one thread calls it. The
/// caller debounces: `didChange` only marks a rule set stale, `publishPendingDiagnostics()`
/// checks it and publishes. A request on a stale rule set first checks it only as far as it
/// needs (most need the names: parse and declare, a fraction of a full check), so answers are
/// never stale and stay fast on big files; the full check waits for the debounce.
public final class LanguageServer {
    public typealias Send = (JSONValue) -> Void

    enum Lifecycle { case starting, running, shutDown }

    let files: WorkspaceFiles
    let send: Send
    let now: () -> Instant
    let version: String
    var lifecycle = Lifecycle.starting
    /// Open documents by URI.
    var documents: [String: OpenDocument] = [:]
    /// Checked rule sets by key (a directory, or the URI of a document that is not a file).
    var analyses: [String: Analysis] = [:]
    var stale: Set<String> = []
    var unpublished: Set<String> = []
    /// The diagnostics last published, per rule set and URI.
    var published: [String: [String: JSONValue]] = [:]
    var roots: [String] = []
    /// `entlc diff` findings (baseline → current) per rule set, for code actions; dropped when
    /// the rule set is checked again.
    var diffs: [String: [Diagnostic]] = [:]

    /// Set by the `exit` notification: 0 after `shutdown`, 1 otherwise (LSP 3.17).
    public private(set) var exitCode: Int32?

    public init(files: WorkspaceFiles, version: String, now: @escaping () -> Instant, send: @escaping Send) {
        self.files = files
        self.version = version
        self.now = now
        self.send = send
    }

    public var hasPendingDiagnostics: Bool { !unpublished.isEmpty }

    // MARK: - Messages

    /// Handles one message body (the bytes between two frames).
    public func handle(_ body: [UInt8]) {
        do {
            handle(message: try JSONParser.parse(body))
        } catch {
            respond(to: .null, error: ResponseError(.parseError, "the message is not valid JSON: \(error)"))
        }
    }

    /// Reports a framing error to the client as a log message (there is no id to answer).
    public func reportFramingError(_ message: String) {
        log(.error, "entlc lsp: " + message)
    }

    func handle(message: JSONValue) {
        guard case .object = message, let method = message["method"]?.stringValue else {
            // A response to a request of ours (we send none that need one) or garbage.
            if message["id"] != nil, message["result"] != nil || message["error"] != nil { return }
            respond(to: message["id"] ?? .null, error: ResponseError(.invalidRequest, "not a JSON-RPC request or notification"))
            return
        }
        let params = message["params"] ?? .null
        guard let id = message["id"] else {
            notification(method, params)
            return
        }
        do throws(ResponseError) {
            respond(to: id, result: try request(method, params))
        } catch {
            respond(to: id, error: error)
        }
    }

    private func request(_ method: String, _ params: JSONValue) throws(ResponseError) -> JSONValue {
        switch lifecycle {
        case .starting where method != "initialize":
            throw ResponseError(.serverNotInitialized, "the server is not initialized yet")
        case .running where method == "initialize":
            throw ResponseError(.invalidRequest, "the server is already initialized")
        case .shutDown:
            throw ResponseError(.invalidRequest, "the server is shut down; only `exit` is accepted")
        default: break
        }
        switch method {
        case "initialize": return initialize(params)
        case "shutdown":
            lifecycle = .shutDown
            return .null
        case "textDocument/hover": return try hover(params)
        case "textDocument/definition": return try definition(params)
        case "textDocument/references": return try references(params)
        case "textDocument/prepareRename": return try prepareRename(params)
        case "textDocument/rename": return try rename(params)
        case "textDocument/completion": return try completion(params)
        case "textDocument/documentSymbol": return try documentSymbols(params)
        case "workspace/symbol": return workspaceSymbols(params)
        case "textDocument/formatting": return try formatting(params)
        case "textDocument/codeAction": return try codeActions(params)
        case "textDocument/semanticTokens/full": return try semanticTokens(params)
        default: throw ResponseError(.methodNotFound, "unknown method `\(method)`")
        }
    }

    private func notification(_ method: String, _ params: JSONValue) {
        if method == "exit" {
            exitCode = lifecycle == .shutDown ? 0 : 1
            return
        }
        guard lifecycle == .running else { return }
        do throws(ResponseError) {
            switch method {
            case "initialized", "$/cancelRequest", "$/setTrace", "workspace/didChangeConfiguration": break
            case "textDocument/didOpen": try didOpen(params)
            case "textDocument/didChange": try didChange(params)
            case "textDocument/didClose": try didClose(params)
            case "textDocument/didSave", "workspace/didChangeWatchedFiles":
                // Files on disk may have changed: every rule set is read again.
                stale.formUnion(analyses.keys)
                unpublished.formUnion(analyses.keys)
            default:
                if !method.hasPrefix("$/") { log(.info, "entlc lsp: ignored notification `\(method)`") }
            }
        } catch {
            log(.error, "entlc lsp: \(method): \(error.message)")
        }
    }

    func respond(to id: JSONValue, result: JSONValue) {
        send(.object(["jsonrpc": .string("2.0"), "id": id, "result": result]))
    }

    func respond(to id: JSONValue, error: ResponseError) {
        send(.object(["jsonrpc": .string("2.0"), "id": id,
                      "error": .object(["code": .int(error.code.rawValue), "message": .string(error.message)])]))
    }

    func notify(_ method: String, _ params: JSONValue) {
        send(.object(["jsonrpc": .string("2.0"), "method": .string(method), "params": params]))
    }

    enum LogLevel: Int { case error = 1, warning, info, log }

    func log(_ level: LogLevel, _ message: String) {
        notify("window/logMessage", .object(["type": .int(level.rawValue), "message": .string(message)]))
    }

    // MARK: - Lifecycle

    private func initialize(_ params: JSONValue) -> JSONValue {
        lifecycle = .running
        for folder in params["workspaceFolders"]?.arrayValue ?? [] {
            if let uri = folder["uri"]?.stringValue, let path = DocumentURI.path(uri) { roots.append(path) }
        }
        if roots.isEmpty, let uri = params["rootUri"]?.stringValue, let path = DocumentURI.path(uri) { roots.append(path) }
        let capabilities: JSONValue = .object([
            "positionEncoding": .string("utf-16"),
            "textDocumentSync": .object([
                "openClose": .bool(true), "change": .int(2), "save": .object(["includeText": .bool(false)]),
            ]),
            "hoverProvider": .bool(true),
            "definitionProvider": .bool(true),
            "referencesProvider": .bool(true),
            "renameProvider": .object(["prepareProvider": .bool(true)]),
            "completionProvider": .object(["triggerCharacters": .array([.string(":"), .string("=")])]),
            "documentSymbolProvider": .bool(true),
            "workspaceSymbolProvider": .bool(true),
            "documentFormattingProvider": .bool(true),
            "codeActionProvider": .object(["codeActionKinds": .array([.string("quickfix")])]),
            "semanticTokensProvider": .object([
                "legend": .object([
                    "tokenTypes": .array(SemanticTokens.types.map { .string($0) }),
                    "tokenModifiers": .array(SemanticTokens.modifiers.map { .string($0) }),
                ]),
                "full": .bool(true),
            ]),
        ])
        return .object([
            "capabilities": capabilities,
            "serverInfo": .object(["name": .string("entlc"), "version": .string(version)]),
        ])
    }

    // MARK: - Documents

    private func didOpen(_ params: JSONValue) throws(ResponseError) {
        guard let item = params["textDocument"], let uri = item["uri"]?.stringValue,
              let text = item["text"]?.stringValue
        else { throw ResponseError(.invalidParams, "didOpen without a text document") }
        let bytes = Array(text.utf8)
        let path = DocumentURI.path(uri) ?? uri
        documents[uri] = OpenDocument(uri: uri, path: path, version: item["version"]?.intValue, bytes: bytes, openedBytes: bytes)
        touch(ruleSetKey(uri))
    }

    private func didChange(_ params: JSONValue) throws(ResponseError) {
        guard let uri = params["textDocument", "uri"]?.stringValue, var document = documents[uri] else {
            throw ResponseError(.invalidParams, "didChange for a document that is not open")
        }
        try document.apply(params["contentChanges"]?.arrayValue ?? [])
        document.version = params["textDocument", "version"]?.intValue
        documents[uri] = document
        touch(ruleSetKey(uri))
    }

    private func didClose(_ params: JSONValue) throws(ResponseError) {
        guard let uri = params["textDocument", "uri"]?.stringValue, documents.removeValue(forKey: uri) != nil else {
            throw ResponseError(.invalidParams, "didClose for a document that is not open")
        }
        let key = ruleSetKey(uri)
        if documents.keys.contains(where: { ruleSetKey($0) == key }) {
            touch(key)
        } else {
            // The last open file of the rule set: forget it and withdraw its diagnostics.
            for (uri, diagnostics) in published[key] ?? [:] where diagnostics != .array([]) {
                notify("textDocument/publishDiagnostics", .object(["uri": .string(uri), "diagnostics": .array([])]))
            }
            published[key] = nil
            analyses[key] = nil
            diffs[key] = nil
            stale.remove(key)
            unpublished.remove(key)
        }
    }

    private func touch(_ key: String) {
        stale.insert(key)
        unpublished.insert(key)
    }

    /// A file's rule set: its directory, or the document alone when it is not a file.
    func ruleSetKey(_ uri: String) -> String {
        DocumentURI.path(uri).map(DocumentURI.directory) ?? uri
    }

    /// The URI to publish for a path: the client's own spelling for an open document.
    func uri(forPath path: String) -> String {
        documents.values.first { $0.path == path }?.uri ?? (path.hasPrefix("/") ? DocumentURI.uri(path) : path)
    }

    /// The sources of a rule set: open buffers first-class, the other files from disk.
    func sources(of key: String, baseline: Bool = false) -> [SourceFile] {
        var texts: [String: [UInt8]] = [:]
        if key.hasPrefix("/") {
            for path in files.ruleFiles(inDirectory: key) {
                if let bytes = files.contents(of: path) { texts[path] = bytes }
            }
        }
        for d in documents.values where ruleSetKey(d.uri) == key { texts[d.path] = baseline ? d.openedBytes : d.bytes }
        return texts.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { SourceFile(path: $0, bytes: texts[$0]!) }
    }

    /// The rule set of a key checked at least to `depth`, checked again first when stale.
    func analysis(ofKey key: String, depth: Analysis.Depth = .names) -> Analysis {
        if let a = analyses[key], !stale.contains(key), a.depth >= depth { return a }
        let a = Analysis(sources: sources(of: key), depth: depth)
        analyses[key] = a
        diffs[key] = nil
        stale.remove(key)
        return a
    }

    /// The analysis and path of a request's `textDocument`: an open document, or a file of a
    /// rule set on disk.
    func target(_ params: JSONValue, depth: Analysis.Depth = .names) throws(ResponseError)
        -> (analysis: Analysis, path: String, lines: TextLines)
    {
        let uri = try uri(params)
        let path = documents[uri]?.path ?? DocumentURI.path(uri) ?? uri
        let analysis = analysis(ofKey: ruleSetKey(uri), depth: depth)
        guard let lines = analysis.lines[path] else {
            throw ResponseError(.invalidParams, "unknown document `\(uri)`: open it first")
        }
        return (analysis, path, lines)
    }

    /// For requests that need the names of the rule set but not its latest check (completion):
    /// the last analysis even when stale, with the document's current text.
    func namesAndText(_ params: JSONValue) throws(ResponseError) -> (analysis: Analysis, path: String, lines: TextLines) {
        let uri = try uri(params)
        guard let document = documents[uri], let analysis = analyses[ruleSetKey(uri)] else { return try target(params) }
        return (analysis, document.path, TextLines(document.bytes))
    }

    private func uri(_ params: JSONValue) throws(ResponseError) -> String {
        guard let uri = params["textDocument", "uri"]?.stringValue else {
            throw ResponseError(.invalidParams, "missing `textDocument.uri`")
        }
        return uri
    }

    /// A request's `position` as a byte offset in its document.
    func offset(_ params: JSONValue, in lines: TextLines) throws(ResponseError) -> Int {
        guard let position = Position(params["position"]) else {
            throw ResponseError(.invalidParams, "missing or invalid `position`")
        }
        return lines.offset(of: position)
    }

    func location(_ path: String, _ range: SourceRange, in analysis: Analysis) -> JSONValue {
        .object(["uri": .string(uri(forPath: path)), "range": analysis.lines[path]?.range(range) ?? .null])
    }

    // MARK: - Diagnostics

    /// Checks every stale rule set and publishes what changed since the last publication.
    public func publishPendingDiagnostics() {
        for key in unpublished.sorted() {
            let analysis = analysis(ofKey: key, depth: .linted)
            var byFile: [String: [JSONValue]] = [:]
            for s in analysis.checked.sources { byFile[s.path] = [] }
            for d in analysis.checked.sortedDiagnostics { byFile[d.file, default: []].append(diagnostic(d, analysis)) }
            var current: [String: JSONValue] = [:]
            for (path, list) in byFile.sorted(by: { $0.key < $1.key }) {
                let uri = uri(forPath: path)
                let value = JSONValue.array(list)
                current[uri] = value
                // Published when it changed; a closed file without diagnostics is left alone.
                let before = published[key]?[uri]
                if before == value || (before == nil && list.isEmpty && documents[uri] == nil) { continue }
                var params: [(key: String, value: JSONValue)] = [("uri", .string(uri))]
                if let version = documents[uri]?.version { params.append(("version", .int(version))) }
                params.append(("diagnostics", value))
                notify("textDocument/publishDiagnostics", .object(params))
            }
            for (uri, value) in published[key] ?? [:] where current[uri] == nil && value != .array([]) {
                notify("textDocument/publishDiagnostics", .object(["uri": .string(uri), "diagnostics": .array([])]))
            }
            published[key] = current
            computeKeepActions(ruleSetKey: key)
        }
        unpublished.removeAll()
    }

    /// A diagnostic as LSP shows it: the same code, message and range as `entlc check`; its
    /// notes and help as related information.
    private func diagnostic(_ d: Diagnostic, _ analysis: Analysis) -> JSONValue {
        let severity = switch d.severity {
        case .error: 1
        case .warning: 2
        case .note: 3
        }
        var related: [JSONValue] = d.notes.map { note in
            .object(["location": location(note.file, note.range, in: analysis), "message": .string(note.message)])
        }
        if let help = d.help {
            related.append(.object(["location": location(d.file, d.range, in: analysis), "message": .string("help: " + help)]))
        }
        var members: [(key: String, value: JSONValue)] = [
            ("range", analysis.lines[d.file]?.range(d.range) ?? .null),
            ("severity", .int(severity)),
            ("code", .string(d.code.id)),
            ("source", .string("entlc")),
            ("message", .string(d.message)),
        ]
        if !related.isEmpty { members.append(("relatedInformation", .array(related))) }
        return .object(members)
    }
}
