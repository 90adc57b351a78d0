import EntlSyntax

/// Formatting: the `entlc fmt` layout of a document.
public enum Formatting {
    /// The canonical layout of the current text as one edit of the whole document, nil when it
    /// is already laid out so; refused while it has syntax errors (formatting must not guess).
    /// Needs no check of the rule set.
    public static func edit(_ source: SourceFile) throws(FeatureError) -> TextEdit? {
        guard let formatted = Printer.format(source) else {
            let first = Parser.parse(source).diagnostics.first { $0.severity == .error }
            let at = first.map { " (\($0.code.id) at \($0.range.start): \($0.message))" } ?? ""
            throw FeatureError("cannot format \(fileName(source.path)): it has syntax errors\(at); fix them first")
        }
        if Array(formatted.utf8) == source.bytes { return nil }
        return TextEdit(file: source.path, range: 0..<source.bytes.count, newText: formatted)
    }
}
