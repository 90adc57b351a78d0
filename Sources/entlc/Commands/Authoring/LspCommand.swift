import Dispatch
import EntlLanguageServer
import EntlRuntime

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `entlc lsp`: the language server on standard input and output. A reader thread frames the
/// incoming bytes; the main thread handles each message, and once no message has come for the
/// debounce interval, checks the edited rule sets and publishes their diagnostics.
enum LspCommand {
    static let spec = CommandSpec(
        name: "lsp",
        summary: "language server for editors (LSP over stdio)",
        help: """
        USAGE: entlc lsp [--stdio]

        A Language Server Protocol 3.17 server on standard input and output, for `.entl` files:
        diagnostics as you type (the codes and messages of `entlc check`), hover, go to
        definition, find references, rename, completion, document and workspace symbols,
        formatting (`entlc fmt`), code actions and semantic tokens. A document's rule set is the
        `.entl` files of its directory, open buffers winning over disk. Editors start it
        themselves; see docs/editors.md.

        OPTIONS:
          --stdio    accepted for clients that pass it; standard input/output is the only transport

        EXIT: 0 after `shutdown` then `exit`; 1 on `exit` without `shutdown` or at the end of input.

        """,
        options: [OptionSpec(name: "--stdio", takesValue: false)],
        run: { _ throws(CLIError) in run() }
    )

    /// How long the input must be quiet before an edited rule set is checked again.
    static let debounceNanoseconds: UInt64 = 150_000_000

    static func run() -> ExitCode {
        let inbox = Inbox()
        DispatchQueue.global().async {
            var framer = MessageFramer()
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = buffer.withUnsafeMutableBytes {
                    FileSystem.readRetrying(STDIN_FILENO, into: $0.baseAddress, count: $0.count)
                }
                guard n > 0 else { break }
                framer.append(buffer[0..<n])
                while let frame = framer.next() { inbox.push(.frame(frame)) }
            }
            if let report = framer.finish() { inbox.push(.frame(report)) }
            inbox.push(.end)
        }
        let server = LanguageServer(files: DiskFiles(), version: EntlCLI.version, now: { .now() }) { message in
            var body: [UInt8] = []
            message.write(into: &body, indent: false, level: 0)
            Terminal.emit(bytes: MessageFramer.frame(body))
        }
        while true {
            let next = inbox.pop(waitingAtMost: server.hasPendingDiagnostics ? debounceNanoseconds : nil)
            switch next {
            case nil: server.publishPendingDiagnostics()
            case .frame(.message(let body))?: server.handle(body)
            case .frame(.error(let message))?: server.reportFramingError(message)
            case .end?: return .no
            }
            if let code = server.exitCode { return code == 0 ? .success : .no }
        }
    }

    enum Input { case frame(MessageFramer.Frame), end }

    /// The reader thread's messages, in order.
    final class Inbox: @unchecked Sendable {
        private let lock = DispatchQueue(label: "entlc.lsp.inbox")
        private let available = DispatchSemaphore(value: 0)
        private var items: [Input] = []

        func push(_ item: Input) {
            lock.sync { items.append(item) }
            available.signal()
        }

        /// The next input, or nil when none came within `nanoseconds` (nil: wait for ever).
        func pop(waitingAtMost nanoseconds: UInt64?) -> Input? {
            if let nanoseconds {
                guard available.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .success else { return nil }
            } else {
                available.wait()
            }
            return lock.sync { items.removeFirst() }
        }
    }

    /// The real file system for the server.
    struct DiskFiles: WorkspaceFiles {
        func ruleFiles(inDirectory directory: String) -> [String] {
            (try? FileSystem.ruleFiles(in: directory, recursive: false)) ?? []
        }

        func ruleFiles(under directory: String, limit: Int) -> [String] {
            (try? FileSystem.ruleFiles(in: directory, limit: limit)) ?? []
        }

        func contents(of path: String) -> [UInt8]? {
            try? FileSystem.readFile(path)
        }
    }
}
