import EntlCompiler
import EntlRuntime
import EntlSyntax

/// Quick fixes for the diagnostics under the cursor: apply a "did you mean" suggestion, allow a
/// warning with an `// entl-allow` comment, and keep existing customers' access where an edit
/// took it away (the grandfathering rewrite `entlc diff` suggests, comparing the rule set with
/// how it was when its files were opened). The lints and the comparison are the costly part of
/// a check: they run in the debounced check that publishes diagnostics, and the actions built on
/// them appear once it has run.
extension Analysis {
    /// The quick fixes for the diagnostics of `file` that overlap the bytes `from...to`: those of
    /// this analysis, then `changes` (the findings of `changesToKeep`).
    public func codeActions(in file: String, from: Int, to: Int, changes: [Diagnostic]) -> [CodeAction] {
        guard let source = checked.sources.first(where: { $0.path == file }) else { return [] }
        func overlaps(_ r: SourceRange) -> Bool { r.start.offset <= to && from <= r.end.offset }
        var actions: [CodeAction] = []
        let sites = AllowSites(checked, path: file)
        for d in checked.sortedDiagnostics where d.file == file && overlaps(d.range) {
            if let fix = replacement(d, source) { actions.append(fix) }
            if let sites, let allow = allow(d, sites, source) { actions.append(allow) }
        }
        for d in changes where d.file == file && overlaps(d.range) {
            if let keep = keep(d, source) { actions.append(keep) }
        }
        return actions
    }

    /// What `entlc diff` finds between the rule set as it was (`baseline`: its files when they
    /// were opened) and as it is, when both compile and differ: the findings that come with a
    /// rewrite, existing customers being those who bought before `since`.
    public func changesToKeep(from baseline: [SourceFile], since: Instant) -> [Diagnostic] {
        guard !checked.hasErrors, baseline.map(\.bytes) != checked.sources.map(\.bytes) else { return [] }
        let before = Compiler.check(baseline, lint: false)
        guard !before.hasErrors else { return [] }
        return RuleDiff.compare(old: before, new: checked, since: since).findings.filter { $0.help != nil }
    }

    /// "did you mean `x`?" on a diagnostic whose range is one word: replace the word.
    private func replacement(_ d: Diagnostic, _ source: SourceFile) -> CodeAction? {
        let prefix = "did you mean `"
        guard let help = d.help, help.hasPrefix(prefix) else { return nil }
        let word = String(help.dropFirst(prefix.count).prefix { $0 != "`" })
        guard !word.isEmpty else { return nil }
        let range = d.range.start.offset..<d.range.end.offset
        guard range.upperBound <= source.bytes.count, !range.isEmpty,
              source.bytes[range].allSatisfy(Lexer.isIdentifierContinue) else { return nil }
        let old = String(decoding: source.bytes[range], as: UTF8.self)
        return CodeAction(title: "Replace `\(old)` with `\(word)`", diagnostic: d,
                          edits: [TextEdit(file: d.file, range: range, newText: word)], isPreferred: true)
    }

    /// A warning inside a declaration: add its code to the `// entl-allow` comment above the
    /// declaration, or add one.
    private func allow(_ d: Diagnostic, _ sites: AllowSites, _ source: SourceFile) -> CodeAction? {
        guard d.severity == .warning, d.code.id.hasPrefix("W"), d.code.id != "W311",
              let decl = sites.declaration(containing: d.range.start.offset) else { return nil }
        let name = decl.name.map { " `\($0.name)`" } ?? ""
        let title = "Allow \(d.code.id) in\(name) (// entl-allow)"
        // After code or a block comment on its line, a comment above covers nothing of it: the
        // declaration moves to a line of its own, under the comment.
        guard source.startsItsLine(decl.range.start.offset) else {
            let at = decl.range.start.offset
            let text = "\n// entl-allow \(d.code.id)\n"
            return CodeAction(title: title, diagnostic: d,
                              edits: [TextEdit(file: d.file, range: at..<at, newText: text)])
        }
        // The run of line comments directly above the declaration.
        var line = decl.range.start.line
        while let c = sites.lineComments[line - 1] {
            line -= 1
            if c.text.drop(while: { $0 == "/" }).drop(while: { $0 == " " }).hasPrefix("entl-allow") {
                let end = c.range.end.offset
                return CodeAction(title: title, diagnostic: d,
                                  edits: [TextEdit(file: d.file, range: end..<end, newText: " " + d.code.id)])
            }
        }
        let lineStart = source.offset(ofLine: line)
        // The declaration's indentation, within reason: every warning of a long line gets an
        // edit, and each edit must not copy a line's worth of blanks.
        let indent = source.bytes[lineStart...].prefix { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            .prefix(80)
        let text = String(decoding: indent, as: UTF8.self) + "// entl-allow \(d.code.id)\n"
        return CodeAction(title: title, diagnostic: d,
                          edits: [TextEdit(file: d.file, range: lineStart..<lineStart, newText: text)])
    }

    /// The grandfathering rewrite of a lost entitlement or feature: `entitlement NAME = …`
    /// replaces the constraint of entitlement NAME when NAME exists, or is added as a new
    /// declaration after the last one (a legacy entitlement).
    private func keep(_ d: Diagnostic, _ source: SourceFile) -> CodeAction? {
        guard let help = d.help, let open = help.firstIndex(of: "`"), let close = help.lastIndex(of: "`"), open < close
        else { return nil }
        let code = String(help[help.index(after: open)..<close])
        guard code.hasPrefix("entitlement "), let equals = code.firstIndex(of: "=") else { return nil }
        let name = String(code.dropFirst("entitlement ".count).prefix { $0 != " " })
        let reason = help.firstRange(of: ": `").map { help[..<$0.lowerBound] } ?? "keep existing customers' access"
        let title = "\(reason.prefix(1).uppercased())\(reason.dropFirst()) (\(d.code.id))"
        if let symbol = checked.tables[.live]?[name] ?? checked.tables[.test]?[name],
           case .entitlement(let e) = checked.model.declarations[symbol.site], symbol.file == d.file {
            let expression = String(code[code.index(after: equals)...].drop { $0 == " " })
            let range = e.constraint.range.start.offset..<e.constraint.range.end.offset
            return CodeAction(title: title, diagnostic: d, edits: [TextEdit(file: d.file, range: range,
                                                                            newText: expression)])
        }
        let formatted = Printer.format(SourceFile(path: "<rewrite>", text: code)) ?? code + "\n"
        let end = source.bytes.count
        let separator = source.bytes.last == UInt8(ascii: "\n") ? "\n" : "\n\n"
        return CodeAction(title: title, diagnostic: d,
                          edits: [TextEdit(file: d.file, range: end..<end, newText: separator + formatted)])
    }
}

/// A quick fix: edits of the file of the diagnostic it fixes.
public struct CodeAction: Equatable, Sendable {
    public var title: String
    public var diagnostic: Diagnostic
    public var edits: [TextEdit]
    /// The fix to apply when the editor applies one without asking.
    public var isPreferred: Bool

    public init(title: String, diagnostic: Diagnostic, edits: [TextEdit], isPreferred: Bool = false) {
        (self.title, self.diagnostic, self.edits, self.isPreferred) = (title, diagnostic, edits, isPreferred)
    }
}

/// Where `// entl-allow` comments go in one file, gathered once per request (a request over a
/// whole file may hold a warning for every declaration): the declarations in source order and
/// the line comments by line.
private struct AllowSites {
    let declarations: [Declaration]
    /// Line comments by their 1-based line.
    let lineComments: [Int: Comment]

    init?(_ checked: CheckedRuleSet, path: String) {
        guard let index = checked.files.firstIndex(where: { $0.path == path }) else { return nil }
        declarations = checked.files[index].declarationsInBlocks
        var byLine: [Int: Comment] = [:]
        for c in checked.comments[index] where c.kind != .block { byLine[c.range.start.line] = c }
        lineComments = byLine
    }

    /// The declaration whose range holds a byte offset (declarations do not overlap).
    func declaration(containing offset: Int) -> Declaration? {
        var lo = 0, hi = declarations.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if declarations[mid].range.start.offset <= offset { lo = mid + 1 } else { hi = mid }
        }
        guard lo > 0, offset < declarations[lo - 1].range.end.offset else { return nil }
        return declarations[lo - 1]
    }
}
