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
    var ruleSets: [String: RuleSet] = [:]
    var stale: Set<String> = []
    var unpublished: Set<String> = []
    /// The diagnostics last published, per rule set and URI.
    var published: [String: [String: JSONValue]] = [:]
    var roots: [String] = []
    /// `entlc diff` findings (baseline → current) per rule set, for code actions; dropped when
    /// the rule set is checked again.
    var changes: [String: [Diagnostic]] = [:]

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
            respond(to: message["id"] ?? .null, error: ResponseError(.invalidRequest,
                                                                     "not a JSON-RPC request or notification"))
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
            case "textDocument/didSave", "workspace/didChangeWatchedFiles": rereadEveryRuleSet()
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
        if roots.isEmpty, let uri = params["rootUri"]?.stringValue,
        let path = DocumentURI.path(uri) { roots.append(path) }
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
                    "tokenTypes": .array(SemanticToken.Kind.legend.map { .string($0) }),
                    "tokenModifiers": .array([.string("declaration")]),
                ]),
                "full": .bool(true),
            ]),
        ])
        return .object([
            "capabilities": capabilities,
            "serverInfo": .object(["name": .string("entlc"), "version": .string(version)]),
        ])
    }
}
