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

    private static func writeAll(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n <= 0 {
                    if n < 0, errno == EINTR { continue }
                    return  // a closed pipe: nothing more to do
                }
                offset += n
            }
        }
    }

    /// Reads all of standard input.
    static func readStandardInput() -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { return out }
            out.append(contentsOf: chunk[0..<n])
        }
    }
}
