#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import EntlRuntime

/// Streams the lines of a JSONL input (a path, or `-` for standard input): read in blocks of up
/// to 512 lines and 1 MiB (fewer lines when lines give much output), a wave of `4 × jobs` blocks
/// at a time evaluated on `jobs` threads (`line` is called for every non-blank line with its
/// 1-based number), each block's result handed to `consume` on the calling thread in input
/// order, so what comes out does not depend on `jobs` and comes out as it goes. Memory is
/// bounded by one wave of input and its output plus one line: a line over `maxLineLength` is
/// counted and dropped as it is read, never held. When the input pauses (a
/// pipe with nothing to read yet), the lines read so far are evaluated and written at once.
/// Used by `eval --states` and `diff --states`.
enum JSONLines {
    /// Longest JSONL line accepted.
    static let maxLineLength = 16 * 1024 * 1024
    static let blockLines = 512
    static let blockBytes = 1 << 20

    /// One line as read: its bytes, valid while the line is handed over (they are in the block's
    /// buffer, which is not retained and released for each line), and its length (larger than
    /// `bytes` for a line over `maxLineLength`, whose bytes were dropped).
    struct Line {
        var bytes: UnsafeBufferPointer<UInt8>
        var length: Int
    }

    /// What a block's output should stay near: the lines per block shrink when lines give much
    /// output (`--all --explain` writes hundreds of KB a line), so memory is bounded by output too.
    static let blockOutputBytes = 2 << 20

    /// Evaluates the lines of `path` in blocks, `jobs` blocks at a time, each into a `Result` of
    /// its own, and hands the results to `consume` in input order. The first waves have blocks of
    /// a few lines; from then on a block holds as many lines as give about `blockOutputBytes` of
    /// output (`size`: a result's bytes) at the last wave's rate, at most `blockLines`. A wave's
    /// blocks and results are kept for the next (`reset` empties a result; `initial` makes the
    /// first of each slot), so their pages are faulted in once per run, not once per block.
    static func process<Result: ~Copyable>(_ path: String, jobs: Int, initial: @escaping @Sendable () -> Result,
                                           reset: @escaping @Sendable (inout Result) -> Void,
                                           line: @escaping @Sendable (Line, Int, inout Result) -> Void,
                                           size: (borrowing Result) -> Int,
                                           consume: (borrowing Result) -> Void) throws(CLIError) {
        var reader = try LineReader(path)
        defer { reader.finish() }
        let wave = max(1, jobs) * 4
        let outputs = Slots<Result>(count: wave)
        defer { outputs.free() }
        var linesPerBlock = 4
        while true {
            var blocks: [Block] = []
            var paused = false
            while blocks.count < wave, !paused, reader.failure == nil,
                  let block = reader.nextBlock(lines: linesPerBlock, paused: &paused) {
                blocks.append(block)
            }
            if blocks.isEmpty {
                // The lines before a failed read were written first (the wave that holds them).
                if let failure = reader.failure { throw failure }
                break
            }
            do {
                let batch = blocks, made = outputs.made
                let process = { @Sendable (i: Int) in
                    let result = outputs.slots.baseAddress! + i
                    if i < made { reset(&result.pointee) } else { result.initialize(to: initial()) }
                    batch[i].bytes.withUnsafeBufferPointer { bytes in
                        for l in batch[i].lines where !l.blank {
                            line(Line(bytes: UnsafeBufferPointer(rebasing: bytes[l.range]), length: l.length), l.number,
                                 &result.pointee)
                        }
                    }
                }
                if jobs > 1, blocks.count > 1 {
                    DispatchQueue.concurrentPerform(iterations: blocks.count, execute: process)
                } else {
                    (0..<blocks.count).forEach(process)
                }
            }
            outputs.made = max(outputs.made, blocks.count)
            var bytes = 0
            for i in 0..<blocks.count {
                bytes += size(outputs.slots[i])
                consume(outputs.slots[i])
            }
            let lines = blocks.reduce(0) { $0 + $1.lines.count }
            linesPerBlock = min(blockLines, linesPerBlock * 4, max(1, blockOutputBytes / max(1, bytes / lines)))
            reader.recycle(blocks)
        }
    }

    /// The customer state on one line; a line over `maxLineLength` is refused before decoding.
    static func state(_ line: Line, _ options: StateDecodingOptions = .default) throws(StateError) -> PurchaseState {
        try checkLength(line)
        return try PurchaseState(json: line.bytes, options: options)
    }

    /// Decodes `line` into the state of `scratch` (emptied first), as `state` does.
    static func read(_ line: Line, into scratch: inout EvaluationScratch,
                     _ options: StateDecodingOptions) throws(StateError) {
        try checkLength(line)
        try scratch.read(json: line.bytes, options: options)
    }

    private static func checkLength(_ line: Line) throws(StateError) {
        guard line.length <= maxLineLength else {
            throw StateError(path: "", message: "line is \(line.length) bytes; the limit is \(maxLineLength) bytes")
        }
    }

    /// Lines read together: their bytes in one buffer.
    struct Block: Sendable {
        var bytes: [UInt8] = []
        var lines: [(range: Range<Int>, number: Int, length: Int, blank: Bool)] = []
    }

    /// One result per block of a wave, kept from wave to wave. Each block's thread writes only its
    /// own slot, and the calling thread reads the slots after `concurrentPerform` returns.
    private final class Slots<Result: ~Copyable>: @unchecked Sendable {
        let slots: UnsafeMutableBufferPointer<Result>
        /// How many slots (the first ones) hold a result.
        var made = 0

        init(count: Int) {
            slots = .allocate(capacity: count)
        }

        func free() {
            slots.baseAddress!.deinitialize(count: made)
            slots.deallocate()
        }
    }

    /// Reads a file or standard input in chunks of 1 MiB and cuts it into lines.
    struct LineReader {
        let path: String
        private let fd: Int32
        private var chunk = [UInt8](repeating: 0, count: 1 << 20)
        private var start = 0
        private var end = 0
        private var atEnd = false
        private var lineNumber = 0

        init(_ path: String) throws(CLIError) {
            self.path = path
            if path == "-" {
                fd = STDIN_FILENO
            } else {
                fd = open(path, O_RDONLY)
                guard fd >= 0 else { throw FileSystem.readError(path) }
            }
        }

        func finish() {
            if fd != STDIN_FILENO { close(fd) }
        }

        /// Blocks whose lines are done with, whose buffers the next blocks reuse.
        private var spare: [Block] = []

        mutating func recycle(_ blocks: consuming [Block]) { spare = blocks }

        /// Why the input could not be read on (a line past 1 GiB, a read error): the block that
        /// ran into it holds the lines before it, and no block comes after.
        private(set) var failure: CLIError?

        /// The next block of at most `lines` lines, or nil at the end of the input (or after
        /// `failure`). `paused` is set when the input has nothing to read right now (the block may
        /// then be short, or nil if it is empty).
        mutating func nextBlock(lines: Int, paused: inout Bool) -> Block? {
            guard failure == nil else { return nil }
            // A spare block is the only holder of its buffers, so emptying it keeps them.
            var block = spare.popLast() ?? Block()
            block.bytes.removeAll(keepingCapacity: true)
            block.lines.removeAll(keepingCapacity: true)
            // Reserved once (touched only as filled), not grown by doubling and copying.
            block.bytes.reserveCapacity(JSONLines.blockBytes)
            block.lines.reserveCapacity(lines)
            while block.lines.count < lines, block.bytes.count < JSONLines.blockBytes {
                if start == end, !atEnd, !block.lines.isEmpty, !readable() {
                    paused = true
                    break
                }
                if start < end, wholeLines(into: &block, lines: lines) { continue }
                let next: (range: Range<Int>, number: Int, length: Int, blank: Bool)?
                do {
                    next = try nextLine(into: &block.bytes)
                } catch {
                    failure = error
                    break
                }
                guard let line = next else { break }
                block.lines.append(line)
            }
            return block.lines.isEmpty ? nil : block
        }

        /// Whether a read would return at once (data or end of input) rather than wait.
        private func readable() -> Bool {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&p, 1, 0) != 0
        }

        /// The lines that end in the chunk read (by a newline) and are not too long, as many as
        /// the block has room for, taken into `block` with one copy of their bytes, newlines and
        /// all (each line's range leaves its `\n` or `\r\n` out): what `nextLine` takes of them one
        /// by one, a copy each. Whether it took any; a line it does not take is `nextLine`'s.
        private mutating func wholeLines(into block: inout Block, lines: Int) -> Bool {
            let room = JSONLines.blockBytes - block.bytes.count, first = start, end = end
            // A line at chunk index i is at i + shift in the block. The cursor and the line number
            // kept apart while the chunk is read (it is part of `self`, which they would modify).
            let shift = block.bytes.count - first
            var (next, number) = (start, lineNumber)
            chunk.withUnsafeBufferPointer { buffer in
                let base = buffer.baseAddress!
                while block.lines.count < lines, let newline = memchr(base + next, 0x0A, end - next) {
                    let n = base.distance(to: newline.assumingMemoryBound(to: UInt8.self))
                    guard n - next <= JSONLines.maxLineLength + 1, n + 1 - first <= room else { break }
                    let length = n > next && base[n - 1] == 0x0D ? n - next - 1 : n - next
                    number += 1
                    block.lines.append(((next + shift)..<(next + shift + length), number, length,
                                        JSONLines.isBlank(UnsafeBufferPointer(start: base + next, count: length))))
                    next = n + 1
                }
                if next > first {
                    block.bytes.append(contentsOf: UnsafeBufferPointer(start: base + first, count: next - first))
                }
            }
            (start, lineNumber) = (next, number)
            return next > first
        }

        /// Appends the next line (without `\n` or `\r\n`) to `out`, or returns nil at the end.
        private mutating func nextLine(into out: inout [UInt8])
            throws(CLIError) -> (range: Range<Int>, number: Int, length: Int, blank: Bool)?
        {
            let first = out.count
            var length = 0, sawBytes = false, dropped = false, last: UInt8 = 0
            // Only known as the bytes go by for a line that is dropped.
            var droppedBlank = true
            while true {
                if start == end {
                    let filled = atEnd ? false : try fill()
                    if !filled {
                        if !sawBytes { return nil }
                        break
                    }
                }
                sawBytes = true
                // The chunk read in place, once: a slice of it would hold it (a retain and a release).
                let newline = chunk.withUnsafeBufferPointer { buffer in
                    let newline = memchr(buffer.baseAddress! + start, 0x0A, end - start).map {
                        buffer.baseAddress!.distance(to: $0.assumingMemoryBound(to: UInt8.self))
                    }
                    let piece = UnsafeBufferPointer(rebasing: buffer[start..<(newline ?? end)])
                    length += piece.count
                    if let l = piece.last { last = l }
                    if !dropped, length > JSONLines.maxLineLength + 1 {
                        // Too long to evaluate: count the rest, keep none of it.
                        dropped = true
                        droppedBlank = JSONLines.isBlank(out[first...])
                        out.removeSubrange(first...)
                    }
                    if dropped {
                        if droppedBlank { droppedBlank = JSONLines.isBlank(piece) }
                    } else {
                        out.append(contentsOf: piece)
                    }
                    return newline
                }
                start = newline.map { $0 + 1 } ?? end
                if newline != nil { break }
                // A line that never ends (`/dev/zero`) ends the job: read as far as any input is.
                if length > FileSystem.maxInputBytes {
                    throw CLIError("line \(lineNumber + 1) of \(path == "-" ? "standard input" : "`\(path)`") is "
                                   + "longer than 1 GiB, the most entlc reads of one input: read no further")
                }
            }
            if last == 0x0D {
                // `\r\n`: the `\r` is not part of the line.
                length -= 1
                if !dropped { out.removeLast() }
            }
            lineNumber += 1
            return (first..<out.count, lineNumber, length, dropped ? droppedBlank : JSONLines.isBlank(out[first...]))
        }

        /// Reads the next chunk; false at the end of the input.
        private mutating func fill() throws(CLIError) -> Bool {
            let n = chunk.withUnsafeMutableBytes { FileSystem.readRetrying(fd, into: $0.baseAddress, count: $0.count) }
            guard n >= 0 else { throw FileSystem.readError(path) }
            (start, end) = (0, n)
            if n == 0 { atEnd = true }
            return n > 0
        }
    }

    /// Blank lines (spaces and tabs only) are skipped: they hold no customer, and a JSONL file
    /// often ends with one. Line numbers still count them.
    static func isBlank<Bytes: Collection<UInt8>>(_ line: Bytes) -> Bool {
        !line.contains { $0 != 0x20 && $0 != 0x09 }
    }
}
