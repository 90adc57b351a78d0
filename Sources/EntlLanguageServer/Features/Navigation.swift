import EntlCompiler
import EntlSupport
import EntlSyntax

/// Go to definition, find references and rename: the name under the cursor, resolved through
/// the rule set's `NameIndex`.
extension Analysis {
    /// Where the name at `offset` is declared (one place per environment that declares it
    /// differently); nil when there is no name there.
    public func definition(in file: String, at offset: Int) -> [Location]? {
        guard let (_, symbols) = resolve(in: file, at: offset) else { return nil }
        return symbols.map { Location(file: $0.file, range: $0.range) }
    }

    /// Every place the name at `offset` is written, in file order, its declaration only when
    /// `includeDeclaration`; nil when there is no name there.
    public func references(in file: String, at offset: Int, includeDeclaration: Bool) -> [Location]? {
        guard let (_, symbols) = resolve(in: file, at: offset) else { return nil }
        return index.references(to: symbols).filter { includeDeclaration || !$0.isDeclaration }.map {
            Location(file: $0.file, range: $0.range)
        }
    }

    /// The name a rename at `offset` would change: its range and its text.
    public func prepareRename(in file: String, at offset: Int) throws(FeatureError)
        -> (range: SourceRange, name: String)
    {
        guard let (o, _) = resolve(in: file, at: offset) else { throw FeatureError(Self.notRenamable) }
        return (o.range, o.name)
    }

    /// Renames a declaration and every use of it across the rule set's files: the edits, in
    /// file order. Refuses a name that is not an identifier, a reserved word, or a name already
    /// declared in the rule set.
    public func rename(in file: String, at offset: Int, to newName: String) throws(FeatureError) -> [TextEdit] {
        guard let (o, symbols) = resolve(in: file, at: offset) else { throw FeatureError(Self.notRenamable) }
        if newName == o.name { return [] }
        if let reason = Self.invalidName(newName) { throw FeatureError(reason) }
        for env in EnvironmentName.allCases {
            if let existing = checked.tables[env]?[newName] {
                throw FeatureError("`\(newName)` is already the name of \(existing.kind.noun.withIndefiniteArticle) "
                                   + "(\(fileName(existing.file)):\(existing.range.start))")
            }
        }
        return index.references(to: symbols).map {
            TextEdit(file: $0.file, range: $0.range.start.offset..<$0.range.end.offset, newText: newName)
        }
    }

    /// Why `name` cannot name a declaration, or nil when it can.
    static func invalidName(_ name: String) -> String? {
        guard let first = name.utf8.first, Lexer.isIdentifierStart(first),
              name.utf8.allSatisfy(Lexer.isIdentifierContinue)
        else { return "`\(name)` is not a name: use letters, digits and `_`, starting with a letter or `_`" }
        if Keyword(rawValue: name) != nil { return "`\(name)` is a reserved word and cannot name anything" }
        return nil
    }

    static let notRenamable = "only the name of a product, entitlement, feature or credit system can be renamed"
}
