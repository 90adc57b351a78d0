/// The base protocol of LSP: each message is a header of `Name: value` lines ending in `\r\n`
/// (`Content-Length: N` required, `Content-Type` allowed, names matched ignoring case), a blank
/// line, then N bytes of UTF-8 JSON. Bytes are appended as they arrive, in chunks of any size;
/// `next()` hands back each complete message body, or an error to log.
///
/// The framer never goes deaf. Bytes that are not a message (a stray newline, garbage, a bad
/// header) are skipped up to the next `Content-Length:` and reported once, before the next
/// message; so are header lines of other names (garbage that ran into the next header). A body
/// cannot hold a header line (`Content-Length: N` then CR LF is not JSON: letters outside a
/// string, a raw CR inside one), so a message shorter than its `Content-Length` is cut where the
/// next header starts instead of swallowing the messages after it. Every byte is looked at a
/// bounded number of times, so framing is linear in the input.
public struct MessageFramer: Sendable {
    /// Bodies above this size are skipped (with an error) without being buffered.
    public static let maxContentLength = 64 << 20
    /// A header block longer than this is not a header.
    static let maxHeaderLength = 8 << 10
    /// At most this many skipped bytes are quoted in the report.
    static let previewLength = 32

    public enum Frame: Equatable, Sendable {
        case message([UInt8])
        case error(String)
    }

    /// A header being read: it starts at the framer's `start`.
    private struct Header {
        /// The first byte of the line being read.
        var lineStart: Int
        /// The next byte to look at.
        var position: Int
        /// The `:` of the line being read, once seen.
        var colon: Int?
        /// Whether the line being read is a `Content-Length` line (known at its `:`).
        var isLength = false
        /// Lines that are neither `Content-Length` nor `Content-Type`: their bytes, and the
        /// first one (reported as skipped once the header is read).
        var unknownBytes = 0
        var firstUnknown: Range<Int>?
        /// The value of the `Content-Length` line.
        var length: Int?

        init(at index: Int) {
            lineStart = index
            position = index
        }
    }

    private enum State {
        /// Reading a header.
        case header(Header)
        /// Looking for the next `Content-Length:`, from an index.
        case searching(from: Int)
        /// A body of `length` bytes from `start`, checked for a header line up to `checked`.
        /// An oversized body is not `buffered`: its bytes are dropped once checked (and `length`
        /// counts the bytes still to come).
        case body(length: Int, checked: Int, buffered: Bool)
    }

    private var buffer: [UInt8] = []
    /// The first byte not yet consumed.
    private var start = 0
    private var state = State.header(Header(at: 0))
    /// Bytes skipped since the last report: how many, why (the first reason), the first few.
    private var skipped = 0
    private var skipReason: String?
    private var preview: [UInt8] = []
    /// An error to hand back on the next call (after the report of skipped bytes).
    private var pending: String?

    public init() {}

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The next complete message or error, or nil when more bytes are needed.
    public mutating func next() -> Frame? {
        if let error = pending {
            pending = nil
            return .error(error)
        }
        while true {
            switch state {
            case .searching(let from):
                if let marker = Self.findMarker(in: buffer, from: from) {
                    skip(to: marker)
                    state = .header(Header(at: marker))
                    continue
                }
                // Keep a tail that may be the beginning of a `Content-Length:` still arriving.
                skip(to: Self.partialMarkerStart(in: buffer, from: max(from, start)))
                state = .searching(from: start)
                compact()
                return nil

            case .header(var header):
                switch readHeader(&header) {
                case nil:
                    state = .header(header)
                    compact()
                    return nil
                case .failure(let reason, let resumeAt):
                    note(reason)
                    state = .searching(from: resumeAt)
                case .success(let length):
                    if let line = header.firstUnknown {
                        note("an unknown header line")
                        skipped += header.unknownBytes
                        preview += buffer[line].prefix(max(0, Self.previewLength - preview.count))
                    }
                    start = header.position
                    let oversized = length > Self.maxContentLength
                    state = .body(length: length, checked: start, buffered: !oversized)
                    let error = oversized ? Self.oversized(length) : nil
                    if let report = takeReport() {
                        pending = error
                        return .error(report)
                    }
                    if let error { return .error(error) }
                }

            case .body(var length, var checked, let buffered):
                let end = min(start + length, buffer.count)
                switch Self.findHeaderLine(in: buffer, from: checked, to: end) {
                case .found(let at):
                    note("a message shorter than its `Content-Length`")
                    // An oversized body was reported already; its bytes are not counted again.
                    if buffered { skip(to: at) } else { start = at }
                    state = .header(Header(at: at))
                    continue
                case .undecided(let at):
                    checked = at
                case .none:
                    checked = end
                }
                let complete = checked == start + length
                if buffered {
                    if complete {
                        let body = Array(buffer[start..<checked])
                        start = checked
                        state = .header(Header(at: start))
                        compact()
                        return .message(body)
                    }
                } else {
                    length -= checked - start
                    start = checked
                    if complete {
                        state = .header(Header(at: start))
                        continue
                    }
                }
                state = .body(length: length, checked: checked, buffered: buffered)
                compact()
                return nil
            }
        }
    }

    /// At the end of the input: the report of what was skipped or left incomplete, if anything.
    public mutating func finish() -> Frame? {
        if start < buffer.count {
            note("the input ended inside a message")
            skip(to: buffer.count)
        }
        state = .header(Header(at: start))
        compact()
        return takeReport().map(Frame.error)
    }

    /// `Content-Length: N\r\n\r\n` followed by the body.
    public static func frame(_ body: [UInt8]) -> [UInt8] {
        Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
    }

    // MARK: - Headers

    private enum HeaderResult {
        case success(length: Int)
        /// Not a header; resynchronize from `resumeAt`.
        case failure(String, resumeAt: Int)
    }

    /// Reads the header at `start` as far as the bytes go: nil when more are needed.
    ///
    /// A header that fails on one of its lines resumes the search at that line: a
    /// `Content-Length:` inside an earlier line would go on through the same lines to the same
    /// failure (or, for two different lengths, to the header found from the failing line). A
    /// header without `Content-Length` resumes right after its start (its lines may hold one);
    /// that happens at most once per message, as a header found by resynchronizing has one. So
    /// each byte is read a bounded number of times.
    private func readHeader(_ h: inout Header) -> HeaderResult? {
        while h.position < buffer.count {
            // The search resumes at the failing line (but never at the header's own start).
            let atLine = max(start + 1, h.lineStart)
            if h.position - start > Self.maxHeaderLength {
                return .failure("a header longer than \(Self.maxHeaderLength) bytes", resumeAt: atLine)
            }
            let b = buffer[h.position]
            guard let colon = h.colon else {
                if Self.isTokenByte(b) {
                    h.position += 1
                } else if b == UInt8(ascii: ":"), h.position > h.lineStart {
                    h.colon = h.position
                    h.isLength = Self.equalsIgnoringCase(buffer[h.lineStart..<h.position], Self.name)
                    h.position += 1
                } else if b == 13, h.position == h.lineStart {
                    // The blank line that ends the header.
                    guard h.position + 1 < buffer.count else { return nil }
                    guard buffer[h.position + 1] == 10 else {
                        return .failure(Self.badLine, resumeAt: atLine)
                    }
                    guard let length = h.length else {
                        let reason = h.lineStart == start ? "a blank line" : "a header without `Content-Length`"
                        return .failure(reason, resumeAt: start + 1)
                    }
                    h.position += 2
                    return .success(length: length)
                } else {
                    return .failure(Self.badLine, resumeAt: atLine)
                }
                continue
            }
            if b == 13 {
                guard h.position + 1 < buffer.count else { return nil }
                guard buffer[h.position + 1] == 10 else {
                    return .failure(Self.badLine, resumeAt: atLine)
                }
                if h.isLength {
                    guard let length = Self.decimal(buffer[(colon + 1)..<h.position]) else {
                        return .failure("an invalid `Content-Length`", resumeAt: atLine)
                    }
                    if let earlier = h.length, earlier != length {
                        return .failure("two different `Content-Length` values", resumeAt: atLine)
                    }
                    h.length = length
                } else if !Self.equalsIgnoringCase(buffer[h.lineStart..<colon], Self.typeName) {
                    h.unknownBytes += h.position + 2 - h.lineStart
                    if h.firstUnknown == nil { h.firstUnknown = h.lineStart..<h.position + 2 }
                }
                h.position += 2
                h.lineStart = h.position
                h.colon = nil
                h.isLength = false
            } else if h.isLength ? Self.isSpace(b) || Self.isDigit(b) : b == 9 || (b >= 0x20 && b != 0x7F) {
                // A length is digits between spaces: anything else fails here, before the next
                // `Content-Length:` it could hide.
                h.position += 1
            } else if h.isLength {
                return .failure("an invalid `Content-Length`", resumeAt: atLine)
            } else {
                return .failure(Self.badLine, resumeAt: atLine)
            }
        }
        return nil
    }

    private static let badLine = "not a `Name: value` header line"
    private static let name = Array("content-length".utf8)
    private static let typeName = Array("content-type".utf8)
    private static let marker = Array("content-length:".utf8)

    private static func oversized(_ length: Int) -> String {
        "message of \(length) bytes exceeds the limit of \(maxContentLength) bytes; skipped"
    }

    /// An HTTP token character (RFC 9110 `tchar`): what a header name is made of.
    private static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            tokenPunctuation.contains(b)
        }
    }

    private static let tokenPunctuation = Array("!#$%&'*+-.^_`|~".utf8)

    /// A non-negative decimal between optional spaces and tabs, at most 18 digits.
    private static func decimal(_ bytes: ArraySlice<UInt8>) -> Int? {
        var digits = bytes.drop(while: isSpace)
        while let last = digits.last, isSpace(last) { digits.removeLast() }
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy(isDigit) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
    private static func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    private static func lower(_ b: UInt8) -> UInt8 {
        b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b | 0x20 : b
    }

    private static func equalsIgnoringCase(_ bytes: ArraySlice<UInt8>, _ lowercase: [UInt8]) -> Bool {
        bytes.count == lowercase.count && zip(bytes, lowercase).allSatisfy { lower($0) == $1 }
    }

    // MARK: - Resynchronizing

    /// The index of the first `Content-Length:` (any case) at or after `from`.
    private static func findMarker(in buffer: [UInt8], from: Int) -> Int? {
        var i = from
        while let c = firstC(in: buffer, from: i, to: buffer.count - marker.count + 1) {
            if equalsIgnoringCase(buffer[c..<c + marker.count], marker) { return c }
            i = c + 1
        }
        return nil
    }

    /// The index of the first `c` or `C` in `from..<to` (the scan every byte of every body goes
    /// through, kept tight).
    private static func firstC(in buffer: [UInt8], from: Int, to: Int) -> Int? {
        guard from < to else { return nil }
        return buffer.withUnsafeBufferPointer { p in
            var i = from
            while i < to {
                if p[i] | 0x20 == UInt8(ascii: "c") { return i }
                i += 1
            }
            return nil
        }
    }

    /// Where the longest end of `buffer` (from `from` on) that begins `Content-Length:` starts.
    private static func partialMarkerStart(in buffer: [UInt8], from: Int) -> Int {
        var k = min(marker.count - 1, buffer.count - from)
        while k > 0, !equalsIgnoringCase(buffer[(buffer.count - k)...], Array(marker[..<k])) { k -= 1 }
        return buffer.count - k
    }

    private enum HeaderLineSearch {
        case found(Int)
        /// A header line may start here; the bytes after it will tell.
        case undecided(Int)
        case none
    }

    /// The first header line `Content-Length: N` CR LF (any case, optional spaces) starting in
    /// `from..<to`; its end may lie beyond `to`. Valid JSON never holds one.
    private static func findHeaderLine(in buffer: [UInt8], from: Int, to: Int) -> HeaderLineSearch {
        var i = from
        while let c = firstC(in: buffer, from: i, to: to) {
            switch headerLine(in: buffer, at: c) {
            case true?: return .found(c)
            case nil: return .undecided(c)
            case false?: i = c + 1
            }
        }
        return .none
    }

    /// Whether a header line `Content-Length: N` CR LF starts at `i`; nil when the bytes end
    /// before that is known. Runs of spaces and digits are bounded so that a candidate waiting
    /// for more bytes is cheap to look at again.
    private static func headerLine(in buffer: [UInt8], at i: Int) -> Bool? {
        var j = i
        for expected in marker {
            guard j < buffer.count else { return nil }
            guard lower(buffer[j]) == expected else { return false }
            j += 1
        }
        func run(_ limit: Int, _ matches: (UInt8) -> Bool) -> Int? {
            var n = 0
            while j < buffer.count, matches(buffer[j]) {
                n += 1
                j += 1
                if n > limit { return nil }
            }
            return n
        }
        guard run(64, isSpace) != nil, let digits = run(18, isDigit) else { return false }
        guard j < buffer.count else { return nil }
        guard digits > 0 else { return false }
        guard run(64, isSpace) != nil else { return false }
        guard j + 1 < buffer.count else { return j < buffer.count && buffer[j] != 13 ? false : nil }
        return buffer[j] == 13 && buffer[j + 1] == 10
    }

    // MARK: - Skipping and reporting

    private mutating func note(_ reason: String) {
        if skipReason == nil { skipReason = reason }
    }

    /// Drops the bytes up to `index`, counting them as skipped.
    private mutating func skip(to index: Int) {
        guard index > start else { return }
        if preview.count < Self.previewLength {
            preview += buffer[start..<min(index, start + Self.previewLength - preview.count)]
        }
        skipped += index - start
        start = index
    }

    /// The report of the bytes skipped since the last one, if any.
    private mutating func takeReport() -> String? {
        guard skipped > 0 || skipReason != nil else { return nil }
        defer {
            skipped = 0
            skipReason = nil
            preview = []
        }
        // A header cut short by the next one skips no byte.
        guard skipped > 0 else { return "skipped \(skipReason ?? Self.badLine)" }
        let bytes = skipped == 1 ? "1 byte that is" : "\(skipped) bytes that are"
        var quoted = ""
        for b in preview {
            switch b {
            case 10: quoted += "\\n"
            case 13: quoted += "\\r"
            case 9: quoted += "\\t"
            case UInt8(ascii: "\\"): quoted += "\\\\"
            case 0x20..<0x7F: quoted.unicodeScalars.append(Unicode.Scalar(b))
            default:
                let hex = String(b, radix: 16, uppercase: true)
                quoted += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        if skipped > preview.count { quoted += "…" }
        return "skipped \(bytes) not an LSP message (\(skipReason ?? Self.badLine)): `\(quoted)`"
    }

    /// Drops consumed bytes once they are at least half the buffer (so each byte moves a
    /// bounded number of times), shifting the indices the state holds.
    private mutating func compact() {
        guard start > 0, start >= buffer.count / 2 else { return }
        let n = start
        buffer.removeFirst(n)
        start = 0
        switch state {
        case .header(var h):
            h.lineStart -= n
            h.position -= n
            h.colon = h.colon.map { $0 - n }
            h.firstUnknown = h.firstUnknown.map { ($0.lowerBound - n)..<($0.upperBound - n) }
            state = .header(h)
        case .searching(let from): state = .searching(from: from - n)
        case .body(let length, let checked, let buffered):
            state = .body(length: length, checked: checked - n, buffered: buffered)
        }
    }
}
