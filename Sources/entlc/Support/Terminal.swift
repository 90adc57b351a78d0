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
        // A closed pipe ends the output: nothing more to do.
        FileSystem.writeAll(STDOUT_FILENO, UnsafeRawBufferPointer(bytes))
    }

    private static func writeAll(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { _ = FileSystem.writeAll(fd, UnsafeRawBufferPointer($0)) }
    }

    /// Reads all of standard input.
    static func readStandardInput() -> [UInt8] {
        FileSystem.readAll(STDIN_FILENO) ?? []
    }
}
