import EntlCompiler
import EntlSyntax

/// A token an editor colours by meaning.
public struct SemanticToken: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        case keyword, number, string, comment
        /// A name, by what it resolves to.
        case name(NameKind)
    }

    /// The token's bytes.
    public var range: Range<Int>
    public var kind: Kind
    /// A name where it is declared.
    public var isDeclaration: Bool

    public init(range: Range<Int>, kind: Kind, isDeclaration: Bool) {
        (self.range, self.kind, self.isDeclaration) = (range, kind, isDeclaration)
    }
}

/// Semantic tokens: names coloured by what they resolve to (a product, an entitlement, a
/// feature, a credit system), with their declarations marked; reserved words, numbers, strings
/// and comments as the lexer sees them. Contextual keywords are left to the grammar.
extension Analysis {
    /// The tokens of a file of the rule set, in source order.
    public func semanticTokens(in source: SourceFile) -> [SemanticToken] {
        var tokens: [SemanticToken] = []
        var lexer = Lexer(file: source.path, bytes: source.bytes)
        var names = (index.occurrences[source.path] ?? [])[...]
        while true {
            let token = lexer.next()
            let range = token.range.start.offset..<token.range.end.offset
            switch token.kind {
            case .endOfFile: break
            case .keyword: tokens.append(SemanticToken(range: range, kind: .keyword, isDeclaration: false))
            case .integer: tokens.append(SemanticToken(range: range, kind: .number, isDeclaration: false))
            case .string: tokens.append(SemanticToken(range: range, kind: .string, isDeclaration: false))
            case .identifier:
                while let o = names.first, o.range.start.offset < range.lowerBound { names.removeFirst() }
                if let o = names.first, o.range.start.offset == range.lowerBound,
                let symbol = index.symbols(of: o).first {
                    tokens.append(SemanticToken(range: range, kind: .name(NameKind(symbol.kind)),
                                                isDeclaration: o.isDeclaration))
                }
            default: break
            }
            if case .endOfFile = token.kind { break }
        }
        for c in lexer.comments {
            tokens.append(SemanticToken(range: c.range.start.offset..<c.range.end.offset, kind: .comment,
                                        isDeclaration: false))
        }
        tokens.sort { $0.range.lowerBound < $1.range.lowerBound }
        return tokens
    }
}
