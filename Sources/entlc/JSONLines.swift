#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import EntlRuntime

/// Processes the lines of a JSONL input (a path, or `-` for standard input) in blocks of 512 on
/// `jobs` threads. Each block's result is built by one thread (`line` is called for every
/// non-blank line with its 1-based number) and handed to `consume` on the calling thread in input
/// order, so what comes out does not depend on `jobs`. Used by `eval --states` and `diff --states`.
enum JSONLines {
    static func process<Result>(_ path: String, jobs: Int, initial: @escaping @Sendable () -> Result,
                                line: @escaping @Sendable (ArraySlice<UInt8>, Int, inout Result) -> Void,
                                consume: (Result) -> Void) throws(CLIError) {
        let bytes = try FileSystem.contents(ofInput: path)
        let lines = lineRanges(of: bytes)
        let blockSize = 512
        let blocks = stride(from: 0, to: lines.count, by: blockSize).map { $0..<min($0 + blockSize, lines.count) }
        let wave = max(1, jobs) * 4
        let outputs = Slots<Result>(count: wave, initial: initial)
        defer { outputs.free() }
        for first in stride(from: 0, to: blocks.count, by: wave) {
            let count = min(wave, blocks.count - first)
            let processBlock = { @Sendable (i: Int) in
                var result = initial()
                for n in blocks[first + i] where !isBlank(bytes[lines[n]]) {
                    line(bytes[lines[n]], n + 1, &result)
                }
                outputs.slots[i] = result
            }
            if jobs > 1 {
                DispatchQueue.concurrentPerform(iterations: count, execute: processBlock)
            } else {
                (0..<count).forEach(processBlock)
            }
            for i in 0..<count { consume(outputs.slots[i]) }
        }
    }

    /// One result per block of a wave. Each block's thread writes only its own slot, and the
    /// calling thread reads the slots after `concurrentPerform` returns.
    private final class Slots<Result>: @unchecked Sendable {
        let slots: UnsafeMutableBufferPointer<Result>
        init(count: Int, initial: () -> Result) {
            slots = .allocate(capacity: count)
            slots.initialize(repeating: initial())
        }
        func free() { slots.deinitialize().deallocate() }
    }

    /// Longest JSONL line accepted.
    static let maxLineLength = 16 * 1024 * 1024

    /// The customer state on one line; a line over `maxLineLength` is refused before decoding.
    static func state(_ line: ArraySlice<UInt8>, _ options: StateDecodingOptions = .default) throws(StateError)
        -> PurchaseState
    {
        guard line.count <= maxLineLength else {
            throw StateError(path: "", message: "line is \(line.count) bytes; the limit is \(maxLineLength) bytes")
        }
        return try PurchaseState(json: line, options: options)
    }

    /// The byte range of every line (without its `\n` or `\r\n`); a final line without a newline counts.
    static func lineRanges(of bytes: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var start = 0
            while start < buffer.count {
                let end = memchr(base + start, 0x0A, buffer.count - start)
                    .map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? buffer.count
                ranges.append(start..<(end > start && buffer[end - 1] == 0x0D ? end - 1 : end))
                start = end + 1
            }
        }
        return ranges
    }

    /// Blank lines (spaces and tabs only) are skipped: they hold no customer, and a JSONL file
    /// often ends with one. Line numbers still count them.
    static func isBlank(_ line: ArraySlice<UInt8>) -> Bool {
        !line.contains { $0 != 0x20 && $0 != 0x09 }
    }
}
