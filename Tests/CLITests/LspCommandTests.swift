import EntlTestSupport
import Foundation
import Testing

/// `entlc lsp` as an editor runs it: framed messages on standard input, framed answers on
/// standard output, the exit code of the protocol.
@Suite struct LspCommandTests {
    private func frame(_ json: String) -> String { "Content-Length: \(json.utf8.count)\r\n\r\n" + json }

    /// The bodies of the framed messages in `output`, in order.
    private func bodies(_ output: String) -> [String] {
        var out: [String] = []
        var rest = Substring(output)
        while let header = rest.firstRange(of: "\r\n\r\n") {
            let length = Int(rest[..<header.lowerBound].split(separator: " ").last!)!
            let body = rest[header.upperBound...].utf8.prefix(length)
            out.append(String(decoding: body, as: UTF8.self))
            rest = Substring(String(decoding: rest[header.upperBound...].utf8.dropFirst(length), as: UTF8.self))
        }
        return out
    }

    @Test func aSessionOverStandardInputAndOutput() throws {
        let root = packageRoot.appendingPathComponent("examples").path
        let uri = "file://" + root + "/photos.entl"
        let input = [
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"capabilities":{}}}"#,
            #"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
            #"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"\#(uri)","languageId":"entl","version":1,"text":"product p: consumable\n"}}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"textDocument/definition","params":{"textDocument":{"uri":"\#(uri)"},"position":{"line":0,"character":8}}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"shutdown"}"#,
            #"{"jsonrpc":"2.0","method":"exit"}"#,
        ].map(frame).joined()
        let result = try runEntlc(["lsp", "--stdio"], stdin: input)
        #expect(result.status == 0)
        let messages = bodies(result.stdout)
        #expect(messages.count == 3)
        #expect(messages.first?.hasPrefix(#"{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"positionEncoding":"utf-16","#) == true)
        #expect(messages.dropFirst().first == #"{"jsonrpc":"2.0","id":2,"result":[{"uri":"\#(uri)","range":{"start":{"line":0,"character":8},"end":{"line":0,"character":9}}}]}"#)
        #expect(messages.last == #"{"jsonrpc":"2.0","id":3,"result":null}"#)
        #expect(result.stderr == "")
    }

    @Test func endOfInputWithoutShutdownExitsOne() throws {
        let result = try runEntlc(["lsp"], stdin: frame("garbage") + frame("{}"))
        #expect(result.status == 1)
        let messages = bodies(result.stdout)
        #expect(messages == [
            #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"the message is not valid JSON: 1:1: unexpected `g`, expected a value"}}"#,
            #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"not a JSON-RPC request or notification"}}"#,
        ])
    }

    private let initialize = #"{"jsonrpc":"2.0","id":1,"method":"initialize","#
        + #""params":{"processId":null,"capabilities":{}}}"#

    /// The messages the server logged, in order.
    private func logs(_ messages: [String]) throws -> [String] {
        try messages.compactMap { body in
            let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
            guard object?["method"] as? String == "window/logMessage" else { return nil }
            return (object?["params"] as? [String: Any])?["message"] as? String
        }
    }

    /// Garbage between requests on the real pipes: a stray newline, blank lines, bytes that are
    /// not a header, a header cut short, lengths too large and too small; and headers as clients
    /// write them (lowercase, with a `Content-Type`). Every request is answered, in order, every
    /// piece of garbage logged, and the session ends normally.
    @Test func requestsAfterGarbageAreAnswered() throws {
        func request(_ id: Int) -> String {
            #"{"jsonrpc":"2.0","id":\#(id),"method":"workspace/symbol","params":{"query":"x"}}"#
        }
        let type = "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n"
        let input = frame(initialize)
            + "\n" + frame(request(2))
            + "\r\n\r\n" + frame(request(3))
            + "garbage 💥" + "content-length: \(request(4).utf8.count)\r\n\r\n" + request(4)
            + "Content-Len" + type + "Content-Length: \(request(5).utf8.count)\r\n\r\n" + request(5)
            + "Content-Length: 999\r\n\r\n" + #"{"jsonrpc":"2.0","id":99}"# + frame(request(6))
            + "Content-Length: 3\r\n\r\n" + #"{"id":98}"# + frame(request(7))
            + frame(#"{"jsonrpc":"2.0","id":8,"method":"shutdown"}"#) + frame(#"{"jsonrpc":"2.0","method":"exit"}"#)
        let result = try runEntlc(["lsp"], stdin: input)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let messages = bodies(result.stdout)
        let answers = messages.filter { $0.hasPrefix(#"{"jsonrpc":"2.0","id":"#) }
        let ids = answers.map { String($0.dropFirst(#"{"jsonrpc":"2.0","id":"#.count).prefix { $0 != "," }) }
        #expect(ids == ["1", "2", "3", "4", "5", "6", "null", "7", "8"])
        #expect(answers.dropFirst().prefix(5).allSatisfy { $0.contains(#""result":[]"#) })
        #expect(answers.contains(#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"#
            + #""message":"the message is not valid JSON: 1:2: unterminated string"}}"#))
        let skipped = "entlc lsp: skipped "
        #expect(try logs(messages) == [
            skipped + "1 byte that is not an LSP message (not a `Name: value` header line): `\\n`",
            skipped + "4 bytes that are not an LSP message (a blank line): `\\r\\n\\r\\n`",
            skipped + "12 bytes that are not an LSP message (not a `Name: value` header line): "
                + "`garbage \\xF0\\x9F\\x92\\xA5`",
            skipped + "68 bytes that are not an LSP message (an unknown header line): "
                + "`Content-LenContent-Type: applica…`",
            skipped + "25 bytes that are not an LSP message (a message shorter than its `Content-Length`): "
                + #"`{"jsonrpc":"2.0","id":99}`"#,
            skipped + #"6 bytes that are not an LSP message (not a `Name: value` header line): `d":98}`"#,
        ])
    }

    /// Garbage at the end of the input is reported before the server stops.
    @Test func garbageAtTheEndOfTheInputIsLogged() throws {
        let result = try runEntlc(["lsp"], stdin: frame(initialize) + "\nContent-Le")
        #expect(result.status == 1)
        #expect(try logs(bodies(result.stdout)) == [
            "entlc lsp: skipped 11 bytes that are not an LSP message (not a `Name: value` header line): "
                + "`\\nContent-Le`",
        ])
    }
}
