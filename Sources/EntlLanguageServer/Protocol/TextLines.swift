import EntlRuntime
import EntlSyntax

/// A zero-based LSP position: line and character, characters counted in UTF-16 code units as
/// LSP requires by default.
public struct Position: Hashable, Comparable, Sendable {
    public var line: Int
    public var character: Int

    public init(line: Int, character: Int) { (self.line, self.character) = (line, character) }

    public static func < (a: Position, b: Position) -> Bool {
        (a.line, a.character) < (b.line, b.character)
    }

    var json: JSONValue { .object(["line": .int(line), "character": .int(character)]) }

    init?(_ json: JSONValue?) {
        guard let line = json?["line"]?.intValue, let character = json?["character"]?.intValue,
              line >= 0, character >= 0
        else { return nil }
        self.init(line: line, character: character)
    }
}

/// The lines of a text as UTF-8 bytes, converting between byte offsets (what the compiler's
/// ranges carry) and LSP positions (UTF-16 columns). Bytes that are not UTF-8 count as one unit
/// each, so a file that is not UTF-8 still gets positions.
///
/// A conversion costs O(log n) whatever the length of the line: besides where each line starts,
/// the text keeps where each scalar of more than one byte starts and how many bytes more than
/// UTF-16 units the scalars before it took. Between two such scalars a byte is a unit.
struct TextLines {
    let bytes: [UInt8]
    /// Offset of the first byte of every line.
    private let starts: [Int]
    /// Offset of every scalar of two to four bytes, in order.
    private let wide: [Int]
    /// `saved[j]`: bytes minus UTF-16 units of the wide scalars before `wide[j]`
    /// (`wide.count + 1` entries).
    private let saved: [Int]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var starts = [0], wide: [Int] = [], saved = [0]
        var i = 0
        while i < bytes.count {
            // LSP's line ends: `\n`, `\r\n` and a `\r` alone (an editor counts lines so).
            if bytes[i] == 0x0A || bytes[i] == 0x0D && (i + 1 == bytes.count || bytes[i + 1] != 0x0A) {
                starts.append(i + 1)
            }
            let (length, width) = Self.scalar(in: bytes, at: i)
            if length > 1 {
                wide.append(i)
                saved.append(saved[saved.count - 1] + length - width)
            }
            i += length
        }
        self.starts = starts
        self.wide = wide
        self.saved = saved
    }

    /// The byte length and UTF-16 width of the scalar at `i` (an invalid byte: 1 and 1). A line
    /// feed is never part of a longer scalar, so scalars read from the start of the text are
    /// those read from the start of each line.
    private static func scalar(in bytes: [UInt8], at i: Int) -> (length: Int, width: Int) {
        let b = bytes[i]
        let length = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1
        guard length > 1 else { return (1, 1) }
        guard i + length <= bytes.count, (1..<length).allSatisfy({ bytes[i + $0] & 0xC0 == 0x80 }) else {
            return (1, 1)
        }
        return (length, length == 4 ? 2 : 1)
    }

    /// The end of line `n`'s text (before `\r\n`, `\n` or `\r`).
    private func lineEnd(_ n: Int) -> Int {
        guard n + 1 < starts.count else { return bytes.count }
        var end = starts[n + 1] - 1  // its `\n`, or its `\r` alone
        if bytes[end] == 0x0A, end > starts[n], bytes[end - 1] == 0x0D { end -= 1 }
        return end
    }

    /// The index of the first wide scalar at or after byte `offset`.
    private func firstWide(atOrAfter offset: Int) -> Int {
        var lo = 0, hi = wide.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if wide[mid] < offset { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The byte offset of a position; a character past the end of its line means the line's end,
    /// a line past the end of the text the text's end. A character inside a surrogate pair means
    /// the start of its scalar.
    func offset(of position: Position) -> Int {
        guard position.line < starts.count else { return bytes.count }
        let lineStart = starts[position.line], end = lineEnd(position.line)
        let first = firstWide(atOrAfter: lineStart)
        /// UTF-16 units from the start of the line to wide scalar `j`.
        func unitsBefore(_ j: Int) -> Int { (wide[j] - lineStart) - (saved[j] - saved[first]) }
        // The last wide scalar of the line that starts at or before the character.
        var lo = first, hi = firstWide(atOrAfter: end)
        while lo < hi {
            let mid = (lo + hi) / 2
            if unitsBefore(mid) <= position.character { lo = mid + 1 } else { hi = mid }
        }
        guard lo > first else { return lineStart + min(position.character, end - lineStart) }
        let j = lo - 1
        let before = unitsBefore(j)
        let (length, width) = Self.scalar(in: bytes, at: wide[j])
        guard position.character >= before + width else { return wide[j] }
        return wide[j] + length + min(position.character - before - width, end - wide[j] - length)
    }

    /// The position of a byte offset (an offset inside a scalar counts the whole scalar).
    func position(of offset: Int) -> Position {
        let offset = min(max(offset, 0), bytes.count)
        var lo = 0, hi = starts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if starts[mid] <= offset { lo = mid } else { hi = mid - 1 }
        }
        let lineStart = starts[lo]
        let first = firstWide(atOrAfter: lineStart), next = firstWide(atOrAfter: offset)
        var units = (offset - lineStart) - (saved[next] - saved[first])
        if next > first {
            // The last wide scalar before the offset may end after it.
            let (length, _) = Self.scalar(in: bytes, at: wide[next - 1])
            units += max(0, wide[next - 1] + length - offset)
        }
        return Position(line: lo, character: units)
    }

    func range(_ r: SourceRange) -> JSONValue {
        range(from: r.start.offset, to: r.end.offset)
    }

    func range(from start: Int, to end: Int) -> JSONValue {
        .object(["start": position(of: start).json, "end": position(of: max(start, end)).json])
    }

    /// The range of the whole text.
    var fullRange: JSONValue { range(from: 0, to: bytes.count) }

    func lineStart(_ line: Int) -> Int { starts[min(max(line, 0), starts.count - 1)] }
}
