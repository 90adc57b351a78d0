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

    /// Writes to standard output.
    static func emit(_ text: String) {
        writeAll(STDOUT_FILENO, text)
    }

    /// Writes to standard error.
    static func emitError(_ text: String) {
        writeAll(STDERR_FILENO, text)
    }

    /// Writes bytes to standard output.
    static func emit(bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { emit(bytes: $0) }
    }

    static func emit(bytes: UnsafeBufferPointer<UInt8>) {
        writeFully(STDOUT_FILENO, bytes)
    }

    private static func writeAll(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { writeFully(fd, $0) }
    }

    private static func writeFully(_ fd: Int32, _ buffer: UnsafeBufferPointer<UInt8>) {
        guard let base = buffer.baseAddress else { return }
        var offset = 0
        while offset < buffer.count {
            let n = write(fd, base + offset, buffer.count - offset)
            if n <= 0 {
                if n < 0, errno == EINTR { continue }
                return  // a closed pipe: nothing more to do
            }
            offset += n
        }
    }

    /// Reads all of standard input.
    static func readStandardInput() -> [UInt8] {
        FileSystem.readAll(STDIN_FILENO) ?? []
    }
}
