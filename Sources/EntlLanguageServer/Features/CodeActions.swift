import EntlCompiler
import EntlRuntime
import EntlSyntax

/// Quick fixes for the diagnostics under the cursor: apply a "did you mean" suggestion, allow a
/// warning with an `// entl-allow` comment, and keep existing customers' access where an edit
/// took it away (the grandfathering rewrite `entlc diff` suggests, comparing the rule set with
/// how it was when its files were opened). The lints and the comparison are the costly part of
/// a check: they run in the debounced check that publishes diagnostics, and the actions built on
/// them appear once it has run.
extension LanguageServer {
    func codeActions(_ params: JSONValue) throws(ResponseError) -> JSONValue {
        let (analysis, path, lines) = try target(params, depth: .checked)
        guard let start = Position(params["range", "start"]), let end = Position(params["range", "end"]) else {
            throw ResponseError(.invalidParams, "missing or invalid `range`")
        }
        let (from, to) = (lines.offset(of: start), lines.offset(of: end))
        func overlaps(_ r: SourceRange) -> Bool { r.start.offset <= to && from <= r.end.offset }
        var actions: [JSONValue] = []
        let file = AllowSites(analysis.checked, path: path)
        for d in analysis.checked.sortedDiagnostics where d.file == path && overlaps(d.range) {
            if let fix = replacement(d, lines) { actions.append(fix) }
            if let file, let allow = allow(d, file, lines) { actions.append(allow) }
        }
        for d in diffs[ruleSetKey(params["textDocument", "uri"]?.stringValue ?? "")] ?? []
        where d.file == path && overlaps(d.range) {
            if let keep = keep(d, analysis, lines) { actions.append(keep) }
        }
        return .array(actions)
    }

    private func action(_ title: String, _ d: Diagnostic, _ lines: TextLines, path: String,
                        edits: [(from: Int, to: Int, text: String)], preferred: Bool = false) -> JSONValue {
        let edits = edits.map { e in JSONValue.object(["range": lines.range(from: e.from, to: e.to), "newText": .string(e.text)]) }
        var members: [(key: String, value: JSONValue)] = [
            ("title", .string(title)), ("kind", .string("quickfix")),
            ("diagnostics", .array([.object([
                "range": lines.range(d.range), "code": .string(d.code.id), "source": .string("entlc"), "message": .string(d.message),
            ])])),
        ]
        if preferred { members.append(("isPreferred", .bool(true))) }
        members.append(("edit", .object(["changes": .object([(key: uri(forPath: path), value: .array(edits))])])))
        return .object(members)
    }

    /// "did you mean `x`?" on a diagnostic whose range is one word: replace the word.
    private func replacement(_ d: Diagnostic, _ lines: TextLines) -> JSONValue? {
        let prefix = "did you mean `"
        guard let help = d.help, help.hasPrefix(prefix) else { return nil }
        let word = String(help.dropFirst(prefix.count).prefix { $0 != "`" })
        guard !word.isEmpty else { return nil }
        let range = d.range.start.offset..<d.range.end.offset
        guard range.upperBound <= lines.bytes.count, !range.isEmpty,
              lines.bytes[range].allSatisfy(Lexer.isIdentifierContinue) else { return nil }
        let old = String(decoding: lines.bytes[range], as: UTF8.self)
        return action("Replace `\(old)` with `\(word)`", d, lines, path: d.file,
                      edits: [(range.lowerBound, range.upperBound, word)], preferred: true)
    }

    /// A warning inside a declaration: add its code to the `// entl-allow` comment above the
    /// declaration, or add one.
    private func allow(_ d: Diagnostic, _ file: AllowSites, _ lines: TextLines) -> JSONValue? {
        guard d.severity == .warning, d.code.id.hasPrefix("W"), d.code.id != "W311",
              let decl = file.declaration(containing: d.range.start.offset) else { return nil }
        let name = decl.name.map { " `\($0.name)`" } ?? ""
        let title = "Allow \(d.code.id) in\(name) (// entl-allow)"
        // The run of line comments directly above the declaration.
        var line = decl.range.start.line
        while let c = file.lineComments[line - 1] {
            line -= 1
            if c.text.drop(while: { $0 == "/" }).drop(while: { $0 == " " }).hasPrefix("entl-allow") {
                return action(title, d, lines, path: d.file,
                              edits: [(c.range.end.offset, c.range.end.offset, " " + d.code.id)])
            }
        }
        let lineStart = lines.lineStart(line - 1)
        // The declaration's indentation, within reason: every warning of a long line gets an
        // edit, and each edit must not copy a line's worth of blanks.
        let indent = lines.bytes[lineStart...].prefix { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }.prefix(80)
        let text = String(decoding: indent, as: UTF8.self) + "// entl-allow \(d.code.id)\n"
        return action(title, d, lines, path: d.file, edits: [(lineStart, lineStart, text)])
    }

    /// What `entlc diff` finds between the rule set as opened and as edited, when both compile
    /// (kept until the rule set changes).
    func computeKeepActions(ruleSetKey key: String) {
        let current = analysis(ofKey: key, depth: .checked).checked
        let baselineSources = sources(of: key, baseline: true)
        var findings: [Diagnostic] = []
        if !current.hasErrors, baselineSources.map(\.bytes) != current.sources.map(\.bytes) {
            let baseline = Compiler.check(baselineSources, lint: false)
            if !baseline.hasErrors {
                let since = Instant(seconds: now().seconds, nanoseconds: 0)
                findings = RuleDiff.compare(old: baseline, new: current, since: since).findings.filter { $0.help != nil }
            }
        }
        diffs[key] = findings
    }

    /// The grandfathering rewrite of a lost entitlement or feature: `entitlement NAME = …`
    /// replaces the constraint of entitlement NAME when NAME exists, or is added as a new
    /// declaration after the last one (a legacy entitlement).
    private func keep(_ d: Diagnostic, _ analysis: Analysis, _ lines: TextLines) -> JSONValue? {
        guard let help = d.help, let open = help.firstIndex(of: "`"), let close = help.lastIndex(of: "`"), open < close
        else { return nil }
        let code = String(help[help.index(after: open)..<close])
        guard code.hasPrefix("entitlement "), let equals = code.firstIndex(of: "=") else { return nil }
        let name = code.dropFirst("entitlement ".count).prefix { $0 != " " }
        let reason = help.firstRange(of: ": `").map { help[..<$0.lowerBound] } ?? "keep existing customers' access"
        let title = "\(reason.prefix(1).uppercased())\(reason.dropFirst()) (\(d.code.id))"
        if let symbol = analysis.checked.tables[.live]?[String(name)] ?? analysis.checked.tables[.test]?[String(name)],
           case .entitlement(let e) = analysis.checked.declarations[symbol.site].declaration, symbol.file == d.file {
            let expression = String(code[code.index(after: equals)...].drop { $0 == " " })
            return action(title, d, lines, path: d.file,
                          edits: [(e.expression.range.start.offset, e.expression.range.end.offset, expression)])
        }
        let formatted = Printer.format(SourceFile(path: "<rewrite>", text: code)) ?? code + "\n"
        let end = lines.bytes.count
        let separator = lines.bytes.last == UInt8(ascii: "\n") ? "\n" : "\n\n"
        return action(title, d, lines, path: d.file, edits: [(end, end, separator + formatted)])
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
