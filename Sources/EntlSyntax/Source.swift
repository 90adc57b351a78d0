/// A position in a source file.
///
/// `line` and `column` are 1-based; `column` counts Unicode scalars (characters) from the start
/// of the line, so a caret lines up under non-ASCII text too. `offset` is the 0-based UTF-8 byte
/// offset from the start of the file.
public struct SourceLocation: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var offset: Int

    public init(line: Int, column: Int, offset: Int) {
        (self.line, self.column, self.offset) = (line, column, offset)
    }

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        lhs.offset < rhs.offset
    }

    public var description: String { "\(line):\(column)" }
}

/// A half-open range `[start, end)` of a source file.
public struct SourceRange: Hashable, Sendable, CustomStringConvertible {
    public var start: SourceLocation
    public var end: SourceLocation

    public init(start: SourceLocation, end: SourceLocation) { (self.start, self.end) = (start, end) }

    /// The range from the start of `self` to the end of `other`.
    public func through(_ other: SourceRange) -> SourceRange {
        SourceRange(start: start, end: other.end)
    }

    public var description: String { "\(start)-\(end)" }
}

/// The bytes of one rule file and the index of its lines (for rendering diagnostics).
public struct SourceFile: Sendable {
    /// The path as the user gave it (or `<stdin>`); diagnostics print it as is.
    public let path: String
    public let bytes: [UInt8]
    /// Byte offset of the first byte of every line.
    private let lineStarts: [Int]

    public init(path: String, bytes: [UInt8]) {
        self.path = path
        self.bytes = bytes
        var starts = [0]
        bytes.withUnsafeBufferPointer { buffer in
            var i = 0
            while i < buffer.count {
                if buffer[i] == 0x0A { starts.append(i + 1) }
                i += 1
            }
        }
        self.lineStarts = starts
    }

    public init(path: String, text: String) {
        self.init(path: path, bytes: Array(text.utf8))
    }

    public var lineCount: Int { lineStarts.count }

    /// The text of 1-based line `n`, without its line terminator (invalid UTF-8 is repaired).
    public func line(_ n: Int) -> String {
        guard n >= 1, n <= lineStarts.count else { return "" }
        let start = lineStarts[n - 1]
        var end = n < lineStarts.count ? lineStarts[n] - 1 : bytes.count
        if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        return String(decoding: bytes[start..<max(start, end)], as: UTF8.self)
    }

    /// The 1-based line of a byte offset, in O(log n) whatever the length of the line.
    public func line(ofOffset offset: Int) -> Int {
        let offset = min(max(offset, 0), bytes.count)
        // Binary search for the last line start <= offset.
        var lo = 0, hi = lineStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lineStarts[mid] <= offset { lo = mid } else { hi = mid - 1 }
        }
        return lo + 1
    }

    /// The offset of the first byte of 1-based line `n` (clamped to the lines there are).
    public func offset(ofLine n: Int) -> Int {
        lineStarts[min(max(n - 1, 0), lineStarts.count - 1)]
    }

    /// Whether only spaces, tabs, lone carriage returns and `;` (which means nothing; a byte order
    /// mark at the file's start too) come before `offset` on its line: what starts there starts a
    /// line of its own (a comment not after code, a declaration an `entl-allow` above may cover).
    public func startsItsLine(_ offset: Int) -> Bool {
        var start = self.offset(ofLine: line(ofOffset: offset))
        if start == 0, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        return start <= offset
            && bytes[start..<offset].allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == UInt8(ascii: ";") }
    }

    /// The location of a byte offset (columns count Unicode scalars: O(column)).
    public func location(ofOffset offset: Int) -> SourceLocation {
        let offset = min(max(offset, 0), bytes.count)
        let lo = line(ofOffset: offset) - 1
        var column = 1
        var i = lineStarts[lo]
        while i < offset {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return SourceLocation(line: lo + 1, column: column, offset: offset)
    }
}
