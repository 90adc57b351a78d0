/// The reserved words: they cannot name anything. Every other keyword is contextual.
public enum Keyword: String, Sendable, CaseIterable {
    case app, environment, product, feature, credits, entitlement, test
    case and, or, not, everyone

    /// Whether this keyword starts a declaration (the parser recovers at these).
    public var startsDeclaration: Bool {
        switch self {
        case .app, .environment, .product, .feature, .credits, .entitlement, .test: true
        case .and, .or, .not, .everyone: false
        }
    }
}

extension Keyword {
    /// The keyword these bytes spell, if any. Most identifiers are none: the candidates of the
    /// same length and first byte are compared, not every keyword as `init(rawValue:)` does.
    public init?(spelledBy bytes: ArraySlice<UInt8>) {
        guard let first = bytes.first else { return nil }
        for (keyword, spelling) in Keyword.spellings
        where spelling.count == bytes.count && spelling[0] == first && spelling.elementsEqual(bytes) {
            self = keyword
            return
        }
        return nil
    }

    private static let spellings = allCases.map { ($0, Array($0.rawValue.utf8)) }
}

public enum TokenKind: Hashable, Sendable {
    case identifier(String)
    case keyword(Keyword)
    /// A decimal integer in 0 … 10^15 (a literal out of range is reported and clamped).
    case integer(Int64)
    /// A string literal with its escapes resolved.
    case string(String)
    case leftBrace, rightBrace, leftParen, rightParen
    case colon, equals, greaterEqual, slash, semicolon
    /// Characters that form no token; already reported by the lexer.
    case invalid
    case endOfFile
}

public struct Token: Sendable {
    public var kind: TokenKind
    public var range: SourceRange
    /// The `///` lines directly above this token (no blank line in between).
    public var docs: [String]

    public init(kind: TokenKind, range: SourceRange, docs: [String] = []) {
        self.kind = kind
        self.range = range
        self.docs = docs
    }

    /// How diagnostics name this token: "`{`", "identifier `pro`", "end of file".
    public var description: String {
        switch kind {
        case .identifier(let name): "`\(name)`"
        case .keyword(let k): "keyword `\(k.rawValue)`"
        case .integer(let v): "number `\(v)`"
        case .string(let s): "string \(Token.quoted(s))"
        case .leftBrace: "`{`"
        case .rightBrace: "`}`"
        case .leftParen: "`(`"
        case .rightParen: "`)`"
        case .colon: "`:`"
        case .equals: "`=`"
        case .greaterEqual: "`>=`"
        case .slash: "`/`"
        case .semicolon: "`;`"
        case .invalid: "an invalid character"
        case .endOfFile: "end of file"
        }
    }

    static func quoted(_ s: String) -> String {
        let short = s.count > 40 ? String(s.prefix(40)) + "…" : s
        return "\"" + short + "\""
    }
}

/// A comment, kept so that `fmt` can put it back where it was.
public struct Comment: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// `// …`
        case line
        /// `/// …` (also kept in the AST as documentation when directly above a declaration)
        case doc
        /// `/* … */`
        case block
    }

    public var kind: Kind
    /// The comment's full text, delimiters included.
    public var text: String
    public var range: SourceRange
}
