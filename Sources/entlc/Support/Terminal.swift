#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's standard streams and environment. Only this module touches them.
enum Terminal {
    /// Whether coloured output is wanted: stdout is a terminal and `NO_COLOR` is unset.
    static var stdoutWantsColor: Bool {
        isatty(STDOUT_FILENO) == 1 && getenv("NO_COLOR") == nil
    }

    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Writes to standard output (see `emit(bytes:)` when it cannot).
    static func emit(_ text: String) {
        var text = text
        text.withUTF8 { emit(bytes: $0) }
    }

    /// Writes to standard error.
    static func emitError(_ text: String) {
        writeAll(STDERR_FILENO, text)
    }

    /// Writes bytes to standard output.
    static func emit(bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { emit(bytes: $0) }
    }

    /// Writes bytes to standard output. When it cannot take them (a full disk, an I/O error, a
    /// closed pipe when `SIGPIPE` is ignored; by default a closed pipe ends the process), what was to
    /// come out is lost: the command stops there, saying why, with exit 2 — never 0 over a
    /// truncated output.
    static func emit(bytes: UnsafeBufferPointer<UInt8>) {
        guard FileSystem.writeAll(STDOUT_FILENO, UnsafeRawBufferPointer(bytes)) else {
            let reason = FileSystem.lastError()
            emitError("entlc: error: cannot write standard output: \(reason)\n")
            exit(ExitCode.failure.rawValue)
        }
    }

    private static func writeAll(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { _ = FileSystem.writeAll(fd, UnsafeRawBufferPointer($0)) }
    }
}
