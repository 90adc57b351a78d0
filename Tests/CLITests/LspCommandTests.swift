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
}
