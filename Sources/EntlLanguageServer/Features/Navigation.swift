import EntlCompiler
import EntlRuntime
import EntlSyntax

/// Go to definition, find references and rename: the name under the cursor, resolved through
/// the rule set's `NameIndex`.
extension LanguageServer {
    /// The occurrence under the cursor and the declarations it resolves to.
    func resolve(_ params: JSONValue) throws(ResponseError)
        -> (analysis: Analysis, occurrence: Occurrence, symbols: [Symbol])?
    {
        let (analysis, path, lines) = try target(params)
        let offset = try offset(params, in: lines)
        guard let o = analysis.index.occurrence(in: path, at: offset) else { return nil }
        let symbols = analysis.index.symbols(of: o)
        return symbols.isEmpty ? nil : (analysis, o, symbols)
    }

    func definition(_ params: JSONValue) throws(ResponseError) -> JSONValue {
        guard let (analysis, _, symbols) = try resolve(params) else { return .null }
        return .array(symbols.map { location($0.file, $0.range, in: analysis) })
    }

    func references(_ params: JSONValue) throws(ResponseError) -> JSONValue {
        guard let (analysis, _, symbols) = try resolve(params) else { return .null }
        let includeDeclaration = params["context", "includeDeclaration"]?.boolValue ?? true
        return .array(analysis.index.references(to: symbols).filter { includeDeclaration || !$0.isDeclaration }.map {
            location($0.file, $0.range, in: analysis)
        })
    }

    func prepareRename(_ params: JSONValue) throws(ResponseError) -> JSONValue {
        guard let (analysis, o, _) = try resolve(params) else {
            throw ResponseError(.requestFailed, "only the name of a product, entitlement, feature or credit system can be renamed")
        }
        return .object(["range": analysis.lines[o.file]?.range(o.range) ?? .null, "placeholder": .string(o.name)])
    }

    /// Renames a declaration and every use of it across the rule set's files. Refuses a name
    /// that is not an identifier, a reserved word, or a name already declared in the rule set.
    func rename(_ params: JSONValue) throws(ResponseError) -> JSONValue {
        guard let newName = params["newName"]?.stringValue else { throw ResponseError(.invalidParams, "missing `newName`") }
        guard let (analysis, o, symbols) = try resolve(params) else {
            throw ResponseError(.requestFailed, "only the name of a product, entitlement, feature or credit system can be renamed")
        }
        if newName == o.name { return .object(["changes": .object([])]) }
        if let reason = Self.invalidName(newName) { throw ResponseError(.requestFailed, reason) }
        for table in analysis.checked.tables.values {
            if let existing = table[newName] {
                throw ResponseError(.requestFailed,
                                    "`\(newName)` is already the name of a \(existing.kind.noun) (\(fileName(existing.file)):\(existing.range.start))")
            }
        }
        var edits: [String: [JSONValue]] = [:]
        for r in analysis.index.references(to: symbols) {
            edits[r.file, default: []].append(.object([
                "range": analysis.lines[r.file]?.range(r.range) ?? .null, "newText": .string(newName),
            ]))
        }
        let changes = edits.keys.sorted().map { (key: uri(forPath: $0), value: JSONValue.array(edits[$0]!)) }
        return .object(["changes": .object(changes)])
    }

    /// Why `name` cannot name a declaration, or nil when it can.
    static func invalidName(_ name: String) -> String? {
        guard let first = name.utf8.first, Lexer.isIdentifierStart(first), name.utf8.allSatisfy(Lexer.isIdentifierContinue)
        else { return "`\(name)` is not a name: use letters, digits and `_`, starting with a letter or `_`" }
        if Keyword(rawValue: name) != nil { return "`\(name)` is a reserved word and cannot name anything" }
        return nil
    }

    func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
