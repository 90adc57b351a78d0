/// Turns the bytes of one rule file into tokens, on demand.
///
/// The lexer never fails: it reports problems (`E10x`) into `diagnostics` and returns a token that
/// lets the parser go on. It tracks line and column as it goes, so every token carries a full
/// `SourceRange` at no extra cost. It also keeps every comment (for `fmt`) and attaches `///` lines
/// to the token that follows them.
///
/// INVARIANT: `bytes` is valid UTF-8 (checked by `Parser.parse` before lexing), so every byte
/// below 0x80 is a whole character and multi-byte sequences are well formed.
public struct Lexer {
    /// Largest integer literal: 10^15.
    public static let maxInteger: Int64 = 1_000_000_000_000_000

    let file: String
    let bytes: [UInt8]
    var index: Int
    var line = 1
    var column = 1

    public private(set) var diagnostics: [Diagnostic] = []
    public private(set) var comments: [Comment] = []

    private var pendingDocs: [String] = []
    private var currentLineBlank = true

    public init(file: String, bytes: [UInt8]) {
        self.file = file
        self.bytes = bytes
        // A UTF-8 byte order mark is not part of the text.
        self.index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    }

    var location: SourceLocation { SourceLocation(line: line, column: column, offset: index) }

    private func peekByte(_ ahead: Int = 0) -> UInt8? {
        let i = index + ahead
        return i < bytes.count ? bytes[i] : nil
    }

    /// Moves past one byte, keeping line and column right.
    private mutating func advance() {
        let b = bytes[index]
        index += 1
        if b == UInt8(ascii: "\n") {
            line += 1
            column = 1
            if currentLineBlank { pendingDocs.removeAll() }
            currentLineBlank = true
        } else if b & 0xC0 != 0x80 {
            column += 1
        }
    }

    private mutating func report(
        _ code: DiagnosticCode, _ message: String, from start: SourceLocation, to end: SourceLocation? = nil,
        label: String? = nil, help: String? = nil
    ) {
        diagnostics.append(Diagnostic(
            code, message, file: file, range: SourceRange(start: start, end: end ?? location),
            label: label, help: help))
    }

    /// The next token; `.endOfFile` forever at the end.
    public mutating func next() -> Token {
        skipTrivia()
        let start = location
        guard let b = peekByte() else {
            return Token(kind: .endOfFile, range: SourceRange(start: start, end: start), docs: takeDocs())
        }
        let lineWasBlank = currentLineBlank
        currentLineBlank = false
        let docs = takeDocs()
        let kind: TokenKind
        switch b {
        case UInt8(ascii: "{"): advance(); kind = .leftBrace
        case UInt8(ascii: "}"): advance(); kind = .rightBrace
        case UInt8(ascii: "("): advance(); kind = .leftParen
        case UInt8(ascii: ")"): advance(); kind = .rightParen
        case UInt8(ascii: ":"): advance(); kind = .colon
        case UInt8(ascii: "="): advance(); kind = .equals
        case UInt8(ascii: "/"): advance(); kind = .slash
        case UInt8(ascii: ";"): advance(); kind = .semicolon
        case UInt8(ascii: ">"):
            advance()
            if peekByte() == UInt8(ascii: "=") {
                advance()
                kind = .greaterEqual
            } else {
                report(.unexpectedCharacter, "unexpected character `>`", from: start,
                       help: "the only comparison is `>=` (at least N units of a consumable)")
                kind = .invalid
            }
        case UInt8(ascii: "0")...UInt8(ascii: "9"): kind = lexInteger(start: start)
        case UInt8(ascii: "-") where peekByte(1).map { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } ?? false:
            // `-5`: one error for the whole number (amounts are never negative), kept as 5.
            advance()
            let diagnostics = self.diagnostics.count
            kind = lexInteger(start: start)
            if self.diagnostics.count == diagnostics {
                let text = String(decoding: bytes[start.offset..<index], as: UTF8.self)
                report(.malformedInteger, "negative number `\(text)`", from: start, label: "amounts are never negative",
                       help: Lexer.wholeNumberHelp)
            }
        case UInt8(ascii: "\""): kind = lexString(start: start)
        default:
            if Lexer.isIdentifierStart(b) {
                kind = lexIdentifier()
            } else {
                kind = lexInvalid(start: start)
            }
        }
        // `;` is ignored (docs/language.md): the docs above it are those of the token after it on
        // its line (`;product`); a line that holds only `;` is a blank one, which docs do not
        // cross (`fmt`, which drops the `;`, keeps that line blank). After code it is code: a
        // `///` after `};` is an ordinary comment, as after `}` (it had become the next one's docs).
        if kind == .semicolon {
            pendingDocs = docs
            currentLineBlank = lineWasBlank
            return Token(kind: kind, range: SourceRange(start: start, end: location))
        }
        return Token(kind: kind, range: SourceRange(start: start, end: location), docs: docs)
    }

    private mutating func takeDocs() -> [String] {
        defer { pendingDocs.removeAll() }
        return pendingDocs
    }

    public static func isIdentifierStart(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z"))
            || b == UInt8(ascii: "_")
    }

    public static func isIdentifierContinue(_ b: UInt8) -> Bool {
        isIdentifierStart(b) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"))
    }

    static func isWhitespace(_ b: UInt8) -> Bool {
        b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") || b == UInt8(ascii: "\n") || b == UInt8(ascii: "\r")
    }

    // MARK: - Trivia

    private mutating func skipTrivia() {
        while let b = peekByte() {
            if endsALineForAnEditor {
                // A lone carriage return ends a line for an editor, not for entl: what follows it
                // would read as on the line before (after a `//`, commented out) unseen.
                let start = location
                advance()
                report(.unexpectedCharacter, Lexer.loneReturn, from: start, help: Lexer.lineBreakHelp)
            } else if Lexer.isWhitespace(b) {
                advance()
            } else if b == UInt8(ascii: "/"), peekByte(1) == UInt8(ascii: "/") {
                lexLineComment()
            } else if b == UInt8(ascii: "/"), peekByte(1) == UInt8(ascii: "*") {
                lexBlockComment()
            } else {
                return
            }
        }
    }

    /// `// …` to the end of the line; `/// …` (exactly three slashes) on a line of its own is a doc
    /// comment (after code or a block comment on its line, it is an ordinary one: not a line above
    /// the next declaration).
    private mutating func lexLineComment() {
        let start = location
        let startIndex = index
        let ownLine = currentLineBlank
        // To the line feed, or to what an editor takes for a line end (an error, `skipTrivia`).
        while let b = peekByte(), b != UInt8(ascii: "\n"), !endsALineForAnEditor { advance() }
        var end = index
        if end > startIndex, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let text = String(decoding: bytes[startIndex..<end], as: UTF8.self)
        let isDoc = ownLine && text.hasPrefix("///") && !text.hasPrefix("////")
        comments.append(Comment(kind: isDoc ? .doc : .line, text: text,
                                range: SourceRange(start: start, end: location)))
        if isDoc {
            var body = text.dropFirst(3)
            if body.first == " " { body = body.dropFirst() }
            while let last = body.last, last == " " || last == "\t" { body = body.dropLast() }
            pendingDocs.append(String(body))
        }
        currentLineBlank = false
    }

    /// Whether the next byte ends a line for an editor but not for entl: a carriage return with no
    /// line feed after it. (U+2028 and U+2029, which few editors break at, are text in a comment.)
    private var endsALineForAnEditor: Bool {
        peekByte() == UInt8(ascii: "\r") && peekByte(1) != UInt8(ascii: "\n")
    }

    static let loneReturn = "a carriage return with no line feed after it"
    static let lineBreakHelp = "end lines with a line feed (or a carriage return and a line feed)"

    /// `/* … */`, nestable.
    private mutating func lexBlockComment() {
        let start = location
        let startIndex = index
        advance(); advance()
        var depth = 1
        while depth > 0 {
            guard let b = peekByte() else {
                report(.unterminatedComment, "unterminated block comment", from: start,
                       to: SourceLocation(line: start.line, column: start.column + 2, offset: start.offset + 2),
                       label: "this comment is never closed", help: "add `*/` to close it (block comments nest)")
                break
            }
            if b == UInt8(ascii: "/"), peekByte(1) == UInt8(ascii: "*") {
                advance(); advance()
                depth += 1
            } else if b == UInt8(ascii: "*"), peekByte(1) == UInt8(ascii: "/") {
                advance(); advance()
                depth -= 1
            } else if endsALineForAnEditor {
                // Inside the comment it hides nothing, but lines would be counted apart from an
                // editor's: an error as anywhere else.
                let at = location
                advance()
                report(.unexpectedCharacter, Lexer.loneReturn, from: at, help: Lexer.lineBreakHelp)
            } else {
                advance()
            }
        }
        comments.append(Comment(kind: .block, text: String(decoding: bytes[startIndex..<index], as: UTF8.self),
                                range: SourceRange(start: start, end: location)))
        currentLineBlank = false
    }

    // MARK: - Tokens

    private mutating func lexIdentifier() -> TokenKind {
        let startIndex = index
        while let b = peekByte(), Lexer.isIdentifierContinue(b) { advance() }
        if let keyword = Keyword(spelledBy: bytes[startIndex..<index]) { return .keyword(keyword) }
        return .identifier(String(decoding: bytes[startIndex..<index], as: UTF8.self))
    }

    /// `integer = digit { digit | "_" digit } ;` with a value in 0 … 10^15.
    private mutating func lexInteger(start: SourceLocation) -> TokenKind {
        var value: Int64 = 0
        var tooLarge = false
        var malformed = false
        var previousWasUnderscore = false
        let startIndex = index
        while let b = peekByte() {
            if b == UInt8(ascii: "_") {
                if previousWasUnderscore { malformed = true }
                previousWasUnderscore = true
            } else if b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") {
                previousWasUnderscore = false
                if !tooLarge {
                    // INVARIANT: value <= 10^15 here, so value * 10 + 9 cannot overflow Int64.
                    value = value * 10 + Int64(b - UInt8(ascii: "0"))
                    if value > Lexer.maxInteger { tooLarge = true }
                }
            } else if Lexer.isIdentifierContinue(b) {
                malformed = true
            } else {
                break
            }
            advance()
        }
        if previousWasUnderscore { malformed = true }
        // `1.5`: a fraction is one error for the whole literal, not a stray `.`.
        if !malformed, peekByte() == UInt8(ascii: "."), let d = peekByte(1), d >= UInt8(ascii: "0"),
        d <= UInt8(ascii: "9") {
            advance()
            while let b = peekByte(), Lexer.isIdentifierContinue(b) { advance() }
            let text = String(decoding: bytes[startIndex..<index], as: UTF8.self)
            report(.malformedInteger, "`\(text)` is not a whole number", from: start, label: "no fractions",
                   help: Lexer.wholeNumberHelp)
            return .integer(min(value, Lexer.maxInteger))
        }
        let text = String(decoding: bytes[startIndex..<index], as: UTF8.self)
        if malformed {
            // Keep the digits' value so later checks (e.g. "must be at least 1") stay quiet.
            report(.malformedInteger, "malformed number `\(text)`", from: start,
                   help: "write digits, optionally grouped with single `_` between them (`10_000`)")
            return .integer(min(value, Lexer.maxInteger))
        }
        if tooLarge {
            report(.integerTooLarge, "number `\(text)` is larger than 10^15", from: start,
                   label: "out of range", help: "amounts are integers from 0 to 1_000_000_000_000_000")
            return .integer(Lexer.maxInteger)
        }
        return .integer(value)
    }

    static let wholeNumberHelp = "amounts are whole numbers from 0 to 1_000_000_000_000_000 (`10_000`); "
        + "for a fraction of a unit, count in a smaller unit or use a credit conversion (`tokens 1_000 = 1`)"

    /// `string = '"' { char | escape } '"' ;` — escapes `\" \\ \n \t \u{HEX}`, no raw newlines.
    private mutating func lexString(start: SourceLocation) -> TokenKind {
        advance()  // opening quote
        var value: [UInt8] = []
        while true {
            guard let b = peekByte(), b != UInt8(ascii: "\n"), b != UInt8(ascii: "\r") else {
                report(.unterminatedString, "unterminated string", from: start,
                       label: "this string is never closed", help: "close it with `\"` on the same line")
                break
            }
            if b == UInt8(ascii: "\"") {
                advance()
                break
            }
            if b == UInt8(ascii: "\\") {
                lexEscape(into: &value)
                continue
            }
            value.append(b)
            advance()
        }
        return .string(String(decoding: value, as: UTF8.self))
    }

    private mutating func lexEscape(into value: inout [UInt8]) {
        let start = location
        advance()  // backslash
        guard let c = peekByte(), c != UInt8(ascii: "\n") else {
            report(.invalidEscape, "incomplete escape sequence", from: start)
            return
        }
        switch c {
        case UInt8(ascii: "\""): advance(); value.append(c)
        case UInt8(ascii: "\\"): advance(); value.append(c)
        case UInt8(ascii: "n"): advance(); value.append(UInt8(ascii: "\n"))
        case UInt8(ascii: "t"): advance(); value.append(UInt8(ascii: "\t"))
        case UInt8(ascii: "u"):
            advance()
            guard peekByte() == UInt8(ascii: "{") else {
                report(.invalidEscape, "invalid unicode escape", from: start, help: "write `\\u{1F48E}`")
                return
            }
            advance()
            var scalar: UInt32 = 0
            var digits = 0
            while let h = peekByte(), let v = Lexer.hexValue(h) {
                if digits < 8 { scalar = scalar << 4 | v }
                digits += 1
                advance()
            }
            let closed = peekByte() == UInt8(ascii: "}")
            if closed { advance() }
            if !closed || digits == 0 || digits > 6 {
                report(.invalidEscape, "invalid unicode escape", from: start,
                       help: "write 1 to 6 hex digits in braces: `\\u{1F48E}`")
            } else if let s = Unicode.Scalar(scalar) {
                value.append(contentsOf: Array(String(Character(s)).utf8))
            } else {
                report(.invalidEscape,
                       "`\\u{\(String(scalar, radix: 16, uppercase: true))}` is not a Unicode scalar value",
                       from: start)
            }
        default:
            // Skip one whole character so the message shows it.
            let charStart = index
            advance()
            while let b = peekByte(), b & 0xC0 == 0x80 { advance() }
            let shown = String(decoding: bytes[charStart..<index], as: UTF8.self)
            report(.invalidEscape, "unknown escape sequence `\\\(shown)`", from: start,
                   help: "the escapes are `\\\"`, `\\\\`, `\\n`, `\\t` and `\\u{…}`")
        }
    }

    private static func hexValue(_ b: UInt8) -> UInt32? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(b - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(b - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(b - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// A run of characters that start no token becomes one error and one `.invalid` token.
    private mutating func lexInvalid(start: SourceLocation) -> TokenKind {
        let startIndex = index
        repeat {
            advance()
            while let b = peekByte(), b & 0xC0 == 0x80 { advance() }
        } while peekByte().map(Lexer.startsNoToken) ?? false
        let text = String(decoding: bytes[startIndex..<index], as: UTF8.self)
        let plural = text.unicodeScalars.count > 1
        report(.unexpectedCharacter, "unexpected character\(plural ? "s" : "") `\(text)`", from: start)
        return .invalid
    }

    private static func startsNoToken(_ b: UInt8) -> Bool {
        if b >= 0x80 { return true }
        if isWhitespace(b) || isIdentifierContinue(b) { return false }
        return !"{}():=/;>\"".utf8.contains(b)
    }
}
