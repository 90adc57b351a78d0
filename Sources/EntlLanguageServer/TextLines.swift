import EntlRuntime
import EntlSyntax

/// A zero-based LSP position: line and character, characters counted in UTF-16 code units as
/// LSP requires by default.
public struct Position: Hashable, Comparable, Sendable {
    public var line: Int
    public var character: Int

    public init(line: Int, character: Int) {
        self.line = line
        self.character = character
    }

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
struct TextLines {
    let bytes: [UInt8]
    /// Offset of the first byte of every line.
    private let starts: [Int]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var starts = [0]
        for (i, b) in bytes.enumerated() where b == 0x0A { starts.append(i + 1) }
        self.starts = starts
    }

    /// The end of line `n`'s text (before `\r\n` or `\n`).
    private func lineEnd(_ n: Int) -> Int {
        var end = n + 1 < starts.count ? starts[n + 1] - 1 : bytes.count
        if end > starts[n], bytes[end - 1] == 0x0D { end -= 1 }
        return end
    }

    /// The byte offset of a position; a character past the end of its line means the line's end,
    /// a line past the end of the text the text's end.
    func offset(of position: Position) -> Int {
        guard position.line < starts.count else { return bytes.count }
        let end = lineEnd(position.line)
        var i = starts[position.line], units = 0
        while i < end, units < position.character {
            let (length, width) = scalar(at: i, end: end)
            if units + width > position.character { break }
            i += length
            units += width
        }
        return i
    }

    /// The position of a byte offset.
    func position(of offset: Int) -> Position {
        let offset = min(max(offset, 0), bytes.count)
        var lo = 0, hi = starts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if starts[mid] <= offset { lo = mid } else { hi = mid - 1 }
        }
        var i = starts[lo], units = 0
        while i < offset {
            let (length, width) = scalar(at: i, end: bytes.count)
            i += length
            units += width
        }
        return Position(line: lo, character: units)
    }

    /// The byte length and UTF-16 width of the scalar at `i` (an invalid byte: 1 and 1).
    private func scalar(at i: Int, end: Int) -> (length: Int, width: Int) {
        let b = bytes[i]
        let length = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1
        guard length > 1 else { return (1, 1) }
        guard i + length <= end, (1..<length).allSatisfy({ bytes[i + $0] & 0xC0 == 0x80 }) else { return (1, 1) }
        return (length, length == 4 ? 2 : 1)
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
