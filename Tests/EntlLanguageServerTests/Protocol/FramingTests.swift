import EntlLanguageServer
import EntlRuntime
import EntlTestSupport
import Testing

/// The frames a fresh framer hands back for `bytes` fed in chunks of `chunk` bytes (then
/// `finish()` when asked).
private func frames(_ bytes: [UInt8], chunk: Int = .max, finish: Bool = false) -> [MessageFramer.Frame] {
    var framer = MessageFramer()
    var out: [MessageFramer.Frame] = []
    var i = 0
    repeat {
        framer.append(bytes[i..<min(i + min(chunk, bytes.count), bytes.count)])
        i += min(chunk, bytes.count)
        while let f = framer.next() { out.append(f) }
    } while i < bytes.count
    if finish, let f = framer.finish() { out.append(f) }
    return out
}

private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

private func message(_ text: String) -> MessageFramer.Frame { .message(bytes(text)) }

private func skipped(_ count: Int, _ reason: String, _ preview: String) -> MessageFramer.Frame {
    let bytes = count == 1 ? "1 byte that is" : "\(count) bytes that are"
    return .error("skipped \(bytes) not an LSP message (\(reason)): `\(preview)`")
}

private let badLine = "not a `Name: value` header line"
private let noLength = "a header without `Content-Length`"
private let invalidLength = "an invalid `Content-Length`"
private let shorter = "a message shorter than its `Content-Length`"

@Suite struct FramingTests {
    @Test(arguments: [
        "content-length: 2\r\n\r\n{}",
        "CONTENT-LENGTH:2\r\n\r\n{}",
        "Content-Length:  2 \t\r\n\r\n{}",
        "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 2\r\n\r\n{}",
        "Content-Length: 2\r\ncontent-type: application/vscode-jsonrpc\r\n\r\n{}",
        "Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}",
    ])
    func headerNamesMatchIgnoringCaseAndOtherHeadersAreIgnored(_ header: String) {
        for chunk in [1, 2, 5, Int.max] {
            #expect(frames(bytes(header + header), chunk: chunk) == [message("{}"), message("{}")],
                    "chunks of \(chunk)")
        }
    }

    /// Bytes before a message are skipped up to its `Content-Length`, reported once, with why
    /// and the first bytes; the message is read, whatever the chunks.
    @Test(arguments: [
        ("\n", skipped(1, badLine, "\\n")),
        ("\r\n", skipped(2, "a blank line", "\\r\\n")),
        ("\r", skipped(1, badLine, "\\r")),
        ("garbage", skipped(7, noLength, "garbage")),
        // The example of docs/editors.md.
        ("garbage\n", skipped(8, badLine, "garbage\\n")),
        ("gar bage\r\n", skipped(10, badLine, "gar bage\\r\\n")),
        ("Content-Len", skipped(11, noLength, "Content-Len")),
        ("Content-Length: 5", skipped(17, invalidLength, "Content-Length: 5")),
        ("Content-Length: 7\r\n", skipped(19, "two different `Content-Length` values", "Content-Length: 7\\r\\n")),
        ("Content-Type: text/plain\r\n\r\n", skipped(28, noLength, "Content-Type: text/plain\\r\\n\\r\\n")),
        ("Content-Length: -1\r\n\r\n", skipped(22, invalidLength, "Content-Length: -1\\r\\n\\r\\n")),
        ("Content-Length: 1234567890123456789\r\n\r\n",
         skipped(39, invalidLength, "Content-Length: 1234567890123456…")),
        ("{\"jsonrpc\":\"2.0\"}", skipped(17, badLine, "{\"jsonrpc\":\"2.0\"}")),
        ("\u{FF}\u{0}\\", skipped(4, badLine, "\\xC3\\xBF\\x00\\\\")),
    ])
    func strayBytesAreSkippedToTheNextHeaderAndReported(_ garbage: String, _ report: MessageFramer.Frame) {
        let stream = bytes(garbage) + MessageFramer.frame(bytes("{}"))
        for chunk in [1, 2, 5, Int.max] {
            #expect(frames(stream, chunk: chunk) == [report, message("{}")], "chunks of \(chunk)")
        }
    }

    /// A `Content-Length` too large would swallow the messages after it: the body is cut where
    /// the next header starts (a JSON body cannot hold one).
    @Test func aMessageShorterThanItsLengthIsCutAtTheNextHeader() {
        for chunk in [1, 3, Int.max] {
            let cut = bytes("Content-Length: 40\r\n\r\n{\"id\":1}") + MessageFramer.frame(bytes("{}"))
            #expect(frames(cut, chunk: chunk) == [skipped(8, shorter, "{\"id\":1}"), message("{}")])
            #expect(frames(bytes("Content-Length: 40\r\n\r\n") + MessageFramer.frame(bytes("{}")), chunk: chunk)
                == [.error("skipped \(shorter)"), message("{}")])
            // The cut may come at the very end of the declared length.
            #expect(frames(bytes("Content-Length: 5\r\n\r\n{}") + bytes("content-length: 2\r\n\r\n{}"), chunk: chunk)
                == [skipped(2, shorter, "{}"), message("{}")])
        }
    }

    /// A `Content-Length` too small hands back the start of the body (the server answers it
    /// with a parse error) and skips the rest.
    @Test func aMessageLongerThanItsLengthIsCutAtItsLength() {
        #expect(frames(bytes("Content-Length: 3\r\n\r\n{\"id\":1}") + MessageFramer.frame(bytes("{}")), chunk: 2)
            == [message("{\"i"), skipped(5, badLine, "d\":1}"), message("{}")])
    }

    /// Header-like text inside JSON is not a header: a string may say `Content-Length: 5`, and
    /// JSON whitespace may hold CR LF, but not both together.
    @Test func aBodyThatMentionsContentLengthIsAMessage() {
        let body = "{\"text\": \"Content-Length: 5\\r\\n\",\r\n \"b\": \"content-length:\"}"
        for chunk in [1, 4, Int.max] {
            #expect(frames(MessageFramer.frame(bytes(body)) + MessageFramer.frame(bytes("{}")), chunk: chunk)
                == [message(body), message("{}")])
        }
    }

    @Test func anOversizedMessageIsSkippedWithoutBeingBuffered() {
        let limit = MessageFramer.maxContentLength
        let oversized = MessageFramer.Frame.error(
            "message of \(limit + 1) bytes exceeds the limit of \(limit) bytes; skipped")
        var framer = MessageFramer()
        framer.append(bytes("Content-Length: \(limit + 1)\r\n\r\n"))
        framer.append([UInt8](repeating: 0x20, count: 1000))
        #expect(framer.next() == oversized)
        #expect(framer.next() == nil)
        framer.append([UInt8](repeating: 0x20, count: limit + 1 - 1000))
        framer.append(MessageFramer.frame(bytes("{}")))
        #expect(framer.next() == message("{}"))
        // A length far beyond what comes is cut at the next header too, after garbage reported first.
        for chunk in [1, 3, Int.max] {
            let stream = bytes("\nContent-Length: 99999999999\r\n\r\n{}") + MessageFramer.frame(bytes("{}"))
            #expect(frames(stream, chunk: chunk) == [
                skipped(1, badLine, "\\n"),
                .error("message of 99999999999 bytes exceeds the limit of \(limit) bytes; skipped"),
                .error("skipped \(shorter)"), message("{}"),
            ])
        }
    }

    @Test func theEndOfTheInputReportsWhatWasLeft() {
        #expect(frames(bytes("Content-Length: 10\r\n\r\n{"), finish: true)
            == [skipped(1, "the input ended inside a message", "{")])
        #expect(frames(MessageFramer.frame(bytes("{}")) + bytes("\nContent-Le"), chunk: 1, finish: true)
            == [message("{}"), skipped(11, badLine, "\\nContent-Le")])
        #expect(frames(MessageFramer.frame(bytes("{}")), finish: true) == [message("{}")])
    }

    /// Inputs built to make a careless framer read bytes again and again, one byte at a time.
    @Test func adversarialInputIsFramed() {
        let n = 2_000
        let markers = String(repeating: "Content-Length: ", count: n) + "\r\n"
        let lines = "X: y\r\n" + String(repeating: "X: Content-Length: 1\r\n", count: n / 2) + "\u{1}"
        let digits = "Content-Length: " + String(repeating: "0", count: 6 * n)
        let cs = String(repeating: "c", count: 6 * n)
        for garbage in [markers, lines, digits, cs] {
            let result = frames(bytes(garbage) + MessageFramer.frame(bytes("{}")), chunk: 1)
            #expect(result.count == 2 && result.last == message("{}"))
        }
        // A body that is mostly candidates for a header line, each cut short.
        let body = "{\"a\":\"" + String(repeating: "Content-Length: 1 ", count: n) + "\"}"
        #expect(frames(MessageFramer.frame(bytes(body)), chunk: 1) == [message(body)])
    }
}
