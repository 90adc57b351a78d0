@testable import EntlLanguageServer
import EntlTestSupport
import Testing

/// The plain way to convert, one scalar at a time from the start of the line: what `TextLines`
/// must answer, in O(log n) instead of O(column).
private struct WalkingLines {
    let bytes: [UInt8]
    let starts: [Int]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        // LSP 3.17: a line ends with `\n`, `\r\n` or `\r`.
        starts = [0] + bytes.indices.filter {
            bytes[$0] == 0x0A || bytes[$0] == 0x0D && ($0 + 1 == bytes.count || bytes[$0 + 1] != 0x0A)
        }.map { $0 + 1 }
    }

    func scalar(at i: Int, end: Int) -> (length: Int, width: Int) {
        let b = bytes[i]
        let length = b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1
        guard length > 1, i + length <= end, (1..<length).allSatisfy({ bytes[i + $0] & 0xC0 == 0x80 }) else {
            return (1, 1)
        }
        return (length, length == 4 ? 2 : 1)
    }

    func offset(of p: Position) -> Int {
        guard p.line < starts.count else { return bytes.count }
        var end = p.line + 1 < starts.count ? starts[p.line + 1] - 1 : bytes.count
        if end < bytes.count, bytes[end] == 0x0A, end > starts[p.line], bytes[end - 1] == 0x0D { end -= 1 }
        var i = starts[p.line], units = 0
        while i < end, units < p.character {
            let (length, width) = scalar(at: i, end: end)
            if units + width > p.character { break }
            i += length
            units += width
        }
        return i
    }

    func position(of offset: Int) -> Position {
        let offset = min(max(offset, 0), bytes.count)
        let line = starts.lastIndex { $0 <= offset }!
        var i = starts[line], units = 0
        while i < offset {
            let (length, width) = scalar(at: i, end: bytes.count)
            i += length
            units += width
        }
        return Position(line: line, character: units)
    }
}

@Suite struct TextLinesTests {
    /// Random texts of one, two, three and four-byte characters, line ends (`\n`, `\r\n`, a lone
    /// `\r`) and bytes that are not UTF-8 (a stray continuation byte, a sequence cut short):
    /// every offset and every position converts as walking the line does.
    @Test(arguments: Array(UInt64(1)...40))
    func conversionsAgreeWithWalkingTheLine(seed: UInt64) {
        var r = SeededRandom(seed: seed)
        let pieces: [[UInt8]] = [
            Array("a".utf8), Array("b".utf8), Array(" ".utf8), Array("é".utf8), Array("中".utf8), Array("📷".utf8),
            [0x0A], [0x0D, 0x0A], [0x0D], [0x80], [0xE4, 0xB8], [0xF0, 0x9F], [0xFF],
        ]
        var bytes: [UInt8] = []
        for _ in 0..<r.int(0...120) { bytes += r.pick(pieces) }
        let lines = TextLines(bytes), walking = WalkingLines(bytes)
        for offset in -2...(bytes.count + 2) {
            #expect(lines.position(of: offset) == walking.position(of: offset), "seed \(seed), offset \(offset)")
        }
        for line in 0...(walking.starts.count + 1) {
            for character in Array(0...130) + [Int.max] {
                let p = Position(line: line, character: character)
                #expect(lines.offset(of: p) == walking.offset(of: p), "seed \(seed), \(p)")
            }
        }
    }

    /// A `\r` alone ends a line, as an editor counts lines (a diagnostic on the second line had
    /// been reported on the first, and an edit there was put at the end of the document).
    @Test func aCarriageReturnAloneEndsALine() {
        let lines = TextLines(Array("ab\rcd\r\nef\r".utf8))
        #expect(lines.position(of: 3) == Position(line: 1, character: 0))
        #expect(lines.position(of: 5) == Position(line: 1, character: 2))
        #expect(lines.position(of: 7) == Position(line: 2, character: 0))
        #expect(lines.position(of: 10) == Position(line: 3, character: 0))
        #expect(lines.offset(of: Position(line: 1, character: 9)) == 5)
        #expect(lines.offset(of: Position(line: 2, character: 1)) == 8)
        #expect(lines.offset(of: Position(line: 3, character: 0)) == 10)
    }

    @Test func positionsCountUTF16Units() {
        let lines = TextLines(Array("a📷é\r\nb".utf8))
        #expect(lines.position(of: 1) == Position(line: 0, character: 1))
        #expect(lines.position(of: 5) == Position(line: 0, character: 3))
        // Inside the emoji: the whole scalar counts.
        #expect(lines.position(of: 2) == Position(line: 0, character: 3))
        #expect(lines.position(of: 7) == Position(line: 0, character: 4))
        #expect(lines.position(of: 9) == Position(line: 1, character: 0))
        // Inside a surrogate pair: the start of the scalar; past the end of a line: its end.
        #expect(lines.offset(of: Position(line: 0, character: 2)) == 1)
        #expect(lines.offset(of: Position(line: 0, character: 4)) == 7)
        #expect(lines.offset(of: Position(line: 0, character: 99)) == 7)
        #expect(lines.offset(of: Position(line: 5, character: 0)) == 10)
    }
}
