import EntlCompiler
import EntlRuntime
import EntlSyntax

/// Semantic tokens: names coloured by what they resolve to (a product, an entitlement, a
/// feature, a credit system), with their declarations marked; reserved words, numbers, strings
/// and comments as the lexer sees them. Contextual keywords are left to the grammar.
enum SemanticTokens {
    static let types = ["keyword", "number", "string", "comment", "class", "interface", "property", "struct"]
    static let modifiers = ["declaration"]

    private static func type(_ kind: Symbol.Kind) -> Int {
        switch kind {
        case .product: 4
        case .entitlement: 5
        case .feature: 6
        case .credits: 7
        }
    }

    static func encode(path: String, bytes: [UInt8], analysis: Analysis, lines: TextLines) -> [Int] {
        var tokens: [(start: Int, end: Int, type: Int, modifiers: Int)] = []
        var lexer = Lexer(file: path, bytes: bytes)
        var names = (analysis.index.occurrences[path] ?? [])[...]
        while true {
            let token = lexer.next()
            let (start, end) = (token.range.start.offset, token.range.end.offset)
            switch token.kind {
            case .endOfFile: break
            case .keyword: tokens.append((start, end, 0, 0))
            case .integer: tokens.append((start, end, 1, 0))
            case .string: tokens.append((start, end, 2, 0))
            case .identifier:
                while let o = names.first, o.range.start.offset < start { names.removeFirst() }
                if let o = names.first, o.range.start.offset == start, let symbol = analysis.index.symbols(of: o).first {
                    tokens.append((start, end, type(symbol.kind), o.isDeclaration ? 1 : 0))
                }
            default: break
            }
            if case .endOfFile = token.kind { break }
        }
        for c in lexer.comments { tokens.append((c.range.start.offset, c.range.end.offset, 3, 0)) }
        tokens.sort { $0.start < $1.start }
        var data: [Int] = []
        var previous = Position(line: 0, character: 0)
        for t in tokens {
            let from = lines.position(of: t.start), to = lines.position(of: t.end)
            // A token over several lines (a block comment) is left to the grammar.
            guard from.line == to.line, to.character > from.character else { continue }
            let deltaLine = from.line - previous.line
            data += [deltaLine, deltaLine == 0 ? from.character - previous.character : from.character,
                     to.character - from.character, t.type, t.modifiers]
            previous = from
        }
        return data
    }
}

extension LanguageServer {
    func semanticTokens(_ params: JSONValue) throws(ResponseError) -> JSONValue {
        let (analysis, path, lines) = try target(params)
        let data = SemanticTokens.encode(path: path, bytes: lines.bytes, analysis: analysis, lines: lines)
        return .object(["data": .array(data.map { .int($0) })])
    }
}
