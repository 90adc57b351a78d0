import EntlLanguageServer
import EntlRuntime
import Testing

@Suite struct ProtocolTests {
    @Test func initializeAnnouncesTheFeaturesAndUTF16() {
        let s = Session(initialize: false)
        let result = s.request("initialize", .object([("processId", .null), ("capabilities", .object([]))]))
        let capabilities = result["capabilities"]!
        #expect(capabilities["positionEncoding"] == .string("utf-16"))
        #expect(capabilities["textDocumentSync"]?["change"] == .int(2))
        for provider in ["hoverProvider", "definitionProvider", "referencesProvider", "documentSymbolProvider",
                         "workspaceSymbolProvider", "documentFormattingProvider"] {
            #expect(capabilities[provider] == .bool(true), "\(provider)")
        }
        #expect(capabilities["renameProvider"]?["prepareProvider"] == .bool(true))
        #expect(result["serverInfo"]?["name"] == .string("entlc"))
    }

    @Test func requestsBeforeInitializeAreRefused() {
        let s = Session(initialize: false)
        let r = s.response("textDocument/hover", at("/w/a.entl", 0, 0))
        #expect(r["error"]?["code"] == .int(-32002))
    }

    @Test func malformedJSONGetsAParseErrorAndTheServerKeepsServing() {
        let s = Session()
        s.feed(MessageFramer.frame(Array("{\"jsonrpc\": \"2.0\", \"id\": 5, ".utf8)))
        s.feed(MessageFramer.frame(Array("[1, 2]".utf8)))
        s.feed(MessageFramer.frame([0xFF, 0xFE]))
        // A message cut short, an array, bytes that are not UTF-8: each answered with id null.
        #expect(s.responses.map { $0["id"] } == [.null, .null, .null])
        #expect(s.responses.map { $0["error"]?["code"] } == [.int(-32700), .int(-32600), .int(-32700)])
        // A request afterwards is answered.
        let r = s.response("workspace/symbol", .object([("query", .string(""))]))
        #expect(r["result"] == .array([]))
    }

    @Test func errorsForBadMessagesAreResponsesWithTheRightCodes() {
        var responses: [JSONValue] = []
        let files = MemoryFiles()
        let server = LanguageServer(files: files, version: "t", now: { Instant(seconds: 0, nanoseconds: 0) }) { responses.append($0) }
        server.handle(Array("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}".utf8))
        server.handle(Array("not json".utf8))
        server.handle(Array("[1,2]".utf8))
        server.handle(Array("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"textDocument/teleport\",\"params\":{}}".utf8))
        server.handle(Array("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"textDocument/hover\",\"params\":{}}".utf8))
        server.handle(Array("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"textDocument/hover\",\"params\":{\"textDocument\":{\"uri\":\"file:///nowhere/x.entl\"},\"position\":{\"line\":0,\"character\":0}}}".utf8))
        let errors = responses.dropFirst().map { ($0["id"]!, $0["error"]?["code"] ?? .null) }
        #expect(errors.map(\.0) == [.null, .null, .int(2), .int(3), .int(4)])
        #expect(errors.map(\.1) == [.int(-32700), .int(-32600), .int(-32601), .int(-32602), .int(-32602)])
        #expect(responses[3]["error"]?["message"] == .string("unknown method `textDocument/teleport`"))
        #expect(responses[5]["error"]?["message"] == .string("unknown document `file:///nowhere/x.entl`: open it first"))
    }

    @Test func shutdownThenExitIsZeroAndExitAloneIsOne() {
        let s = Session()
        #expect(s.request("shutdown", .null) == .null)
        #expect(s.response("textDocument/hover", at("/w/a.entl", 0, 0))["error"]?["code"] == .int(-32600))
        s.notify("exit", .null)
        #expect(s.server.exitCode == 0)

        let t = Session()
        t.notify("exit", .null)
        #expect(t.server.exitCode == 1)
    }
}
