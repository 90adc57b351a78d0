import EntlSupport

/// The result of parsing one file: always a tree, plus what went wrong.
public struct ParseResult: Sendable {
    public var file: RuleFile
    public var diagnostics: [Diagnostic]
    /// Every comment in source order (for `fmt`).
    public var comments: [Comment]
}

/// A recursive-descent parser for `grammar/entl.ebnf`.
///
/// Parsing never throws and never stops early: it returns the tree and the diagnostics. After an
/// error it recovers at the next item (the next line inside a block) or at the next declaration
/// keyword, so one typo yields one error, not a cascade. Each parsing function quotes the
/// production it implements. Every pass is linear in the input; expression nesting is limited to
/// `maxNestingDepth` so no input can overflow the stack.
public struct Parser {
    /// Deepest nesting of `(` and `not` in one constraint.
    public static let maxNestingDepth = 256
    /// Largest rule file accepted (bytes).
    public static let maxFileSize = 32 * 1024 * 1024

    var lexer: Lexer
    var token: Token
    private var peeked: Token?
    /// End of the last consumed token (test items end at the end of its line).
    var previousEnd: SourceLocation
    var diagnostics: [Diagnostic] = []
    let path: String
    var depth = 0
    /// Set when an expression hit an error; the expression unwinds without consuming more.
    var expressionFailed = false

    init(path: String, bytes: [UInt8]) {
        self.path = path
        self.lexer = Lexer(file: path, bytes: bytes)
        self.token = lexer.next()
        self.previousEnd = token.range.start
    }

    /// Parses one file. Files over `maxFileSize` and files that are not valid UTF-8 give an empty
    /// tree and one located error.
    public static func parse(_ source: SourceFile) -> ParseResult {
        let empty = RuleFile(path: source.path, declarations: [])
        if source.bytes.count > maxFileSize {
            let start = SourceLocation(line: 1, column: 1, offset: 0)
            let d = Diagnostic(.fileTooLarge,
                               "file is \(source.bytes.count) bytes; the limit is \(maxFileSize) bytes",
                               file: source.path, range: SourceRange(start: start, end: start))
            return ParseResult(file: empty, diagnostics: [d], comments: [])
        }
        if let bad = UTF8Validation.firstInvalidOffset(source.bytes) {
            let start = source.location(ofOffset: bad)
            let end = SourceLocation(line: start.line, column: start.column + 1, offset: bad + 1)
            let byte = String(source.bytes[bad], radix: 16, uppercase: true)
            let d = Diagnostic(.invalidUTF8, "invalid UTF-8 byte 0x\(byte.count == 1 ? "0" + byte : byte)",
                               file: source.path, range: SourceRange(start: start, end: end),
                               help: "rule files must be UTF-8 text")
            return ParseResult(file: empty, diagnostics: [d], comments: [])
        }
        if let json = firstJSONByte(source.bytes) {
            // A state file given to `check`: one error, not one per line of JSON.
            let start = source.location(ofOffset: json)
            let end = SourceLocation(line: start.line, column: start.column + 1, offset: json + 1)
            let d = Diagnostic(.notARuleFile, "this looks like JSON, not an .entl file", file: source.path,
                               range: SourceRange(start: start, end: end), label: "rule files start with a declaration",
                               help: "rule files hold declarations (`product`, `entitlement`, …); "
                                   + "evaluate a state file with `entlc eval RULES --state FILE`")
            return ParseResult(file: empty, diagnostics: [d], comments: [])
        }
        var parser = Parser(path: source.path, bytes: source.bytes)
        let file = parser.parseRuleFile()
        let all = parser.lexer.diagnostics + parser.diagnostics
        let ordered = all.enumerated().sorted {
            ($0.element.range.start.offset, $0.offset) < ($1.element.range.start.offset, $1.offset)
        }.map(\.element)
        return ParseResult(file: file, diagnostics: ordered, comments: parser.lexer.comments)
    }

    /// The offset of a `{` or `[` that starts the text (after a byte order mark and whitespace):
    /// no rule file can start so, every JSON document does.
    static func firstJSONByte(_ bytes: [UInt8]) -> Int? {
        var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while i < bytes.count, Lexer.isWhitespace(bytes[i]) { i += 1 }
        guard i < bytes.count, bytes[i] == UInt8(ascii: "{") || bytes[i] == UInt8(ascii: "[") else { return nil }
        return i
    }

    /// Parses text (for tests and tools).
    public static func parse(_ text: String, path: String = "<input>") -> ParseResult {
        parse(SourceFile(path: path, text: text))
    }

    // MARK: - Tokens

    mutating func advance() {
        previousEnd = token.range.end
        if let p = peeked {
            token = p
            peeked = nil
        } else {
            token = lexer.next()
        }
    }

    mutating func peek() -> Token {
        if let p = peeked { return p }
        let p = lexer.next()
        peeked = p
        return p
    }

    /// The identifier text of the current token, if it is an identifier.
    var word: String? {
        if case .identifier(let w) = token.kind { return w }
        return nil
    }

    func isWord(_ w: String) -> Bool { word == w }

    var atDeclarationKeyword: Bool {
        if case .keyword(let k) = token.kind { return k.startsDeclaration }
        return false
    }

    /// Whether the current token starts on the line where the previous token ended.
    var onSameLine: Bool { token.range.start.line == previousEnd.line }

    // MARK: - Diagnostics

    mutating func report(
        _ code: DiagnosticCode, _ message: String, at range: SourceRange,
        label: String? = nil, help: String? = nil, notes: [DiagnosticNote] = []
    ) {
        diagnostics.append(Diagnostic(code, message, file: path, range: range, label: label, help: help, notes: notes))
    }

    /// Reports "expected WHAT, found TOKEN" at the current token (unless the lexer already
    /// reported it as invalid).
    mutating func reportExpected(_ what: String, help: String? = nil) {
        if token.kind == .invalid { return }
        report(.expectedToken, "expected \(what), found \(token.description)", at: token.range, help: help)
    }

    // MARK: - Blocks and recovery

    /// The inside of a `{ … }` whose `{` is the current token, up to its `}` (consumed), `;`
    /// skipped: `element` parses one element at a time (it is not called on `}`, `;` or the end
    /// of the file). At the end of the file, or at a token `endsAt` says no element starts with,
    /// the `}` is reported missing (with a note at the `{`) and the block ends there.
    mutating func parseBraces(closing what: @autoclosure () -> String, endsAt: (TokenKind) -> Bool = { _ in false },
                              element: (inout Parser) -> Void) {
        let open = token.range
        advance()
        while true {
            switch token.kind {
            case .rightBrace:
                advance()
                return
            case .semicolon:
                advance()
            case let kind where kind == .endOfFile || endsAt(kind):
                report(.expectedToken, "expected `}` to close \(what()), found \(token.description)", at: token.range,
                       notes: [DiagnosticNote(message: "the block opens here", file: path, range: open)])
                return
            default:
                element(&self)
            }
        }
    }

    /// From the start of `start` to the end of the last token consumed: the range of what was
    /// just parsed.
    func rangeSoFar(from start: SourceRange) -> SourceRange {
        start.through(SourceRange(start: previousEnd, end: previousEnd))
    }

    /// Whether a token is a keyword that starts a declaration (a block left open ends there).
    static func startsDeclaration(_ kind: TokenKind) -> Bool {
        if case .keyword(let k) = kind { k.startsDeclaration } else { false }
    }

    /// Skips to the next declaration keyword, or to a `}` that closes an enclosing block.
    mutating func skipToDeclaration() {
        var braces = 0
        while true {
            switch token.kind {
            case .endOfFile: return
            case .keyword(let k) where k.startsDeclaration: return
            case .leftBrace: braces += 1
            case .rightBrace:
                if braces == 0 { return }
                braces -= 1
            default: break
            }
            advance()
        }
    }

    /// Skips the rest of the current item: the tokens on the line where `line` ends, stopping at
    /// `}`, `;`, a declaration keyword, or the end of file. Always makes progress when the
    /// current token is on that line.
    mutating func skipRestOfLine(_ line: Int) {
        while token.range.start.line == line {
            switch token.kind {
            case .endOfFile, .rightBrace, .semicolon: return
            case .keyword(let k) where k.startsDeclaration: return
            default: advance()
            }
        }
    }

    // MARK: - Shared operands

    /// A name in a position where `role` is expected ("a product name").
    /// A reserved word followed by what a name would be followed by is reported (E111) and kept,
    /// so the declaration still exists and later references to it do not cascade.
    mutating func parseName(_ role: String, reservedFollowers: Set<TokenKind> = []) -> Identifier? {
        switch token.kind {
        case .identifier(let name):
            let id = Identifier(name, range: token.range)
            advance()
            return id
        case .keyword(let k) where reservedFollowers.contains(peek().kind):
            report(.reservedWord, "`\(k.rawValue)` is a reserved word and cannot be used as \(role)",
                   at: token.range, help: "pick another name, e.g. `\(k.rawValue)_1`")
            let id = Identifier(k.rawValue, range: token.range)
            advance()
            return id
        default:
            reportExpected(role)
            return nil
        }
    }

    mutating func parseString(_ what: String) -> StringLiteral? {
        parseLiteral(what) { if case .string(let s) = $0 { s } else { nil } }
    }

    mutating func parseInteger(_ what: String) -> IntegerLiteral? {
        parseLiteral(what) { if case .integer(let n) = $0 { n } else { nil } }
    }

    /// The value of the current token when `value` reads one from it (advancing past it), else
    /// nil with `what` reported expected.
    private mutating func parseLiteral<T>(_ what: String, _ value: (TokenKind) -> T?) -> Located<T>? {
        guard let v = value(token.kind) else {
            reportExpected(what)
            return nil
        }
        let literal = Located(v, range: token.range)
        advance()
        return literal
    }

    /// One word of a closed set (`month`, `subscription`, …), with a suggestion when misspelled.
    mutating func parseKeywordValue<T: KeywordValue>(_: T.Type, after: String) -> Located<T>? {
        guard let w = word else {
            reportExpected("a \(T.setName) after `\(after)`",
                           help: "expected one of: \(T.spellings.joined(separator: ", "))")
            return nil
        }
        guard let value = T(word: w) else {
            let hint = Suggestions.closest(to: w, among: T.spellings + T.aliases.keys.sorted())
            report(.unknownKeyword, "unknown \(T.setName) `\(w)`", at: token.range,
                   help: Suggestions.help(hint, expected: T.spellings))
            advance()
            return nil
        }
        let located = Located(value, range: token.range)
        advance()
        return located
    }
}
