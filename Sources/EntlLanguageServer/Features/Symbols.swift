import EntlCompiler
import EntlRuntime
import EntlSyntax

/// The outline of a document and the names of the workspace.
extension LanguageServer {
    /// The outline is syntax: the current text is parsed, the rule set is not checked.
    func documentSymbols(_ params: JSONValue) throws(ResponseError) -> JSONValue {
        let (_, path, lines) = try namesAndText(params)
        let file = Parser.parse(SourceFile(path: path, bytes: lines.bytes)).file
        return .array(file.declarations.map { Self.symbol($0, lines) })
    }

    /// A declaration as a `DocumentSymbol`, an environment block with its declarations inside.
    private static func symbol(_ d: Declaration, _ lines: TextLines) -> JSONValue {
        let (name, kind, detail, selection): (String, SymbolKind, String, SourceRange)
        var children: [JSONValue] = []
        switch d {
        case .app(let a): (name, kind, detail, selection) = ("app \"\(a.id.value)\"", .module, "", a.id.range)
        case .product(let p): (name, kind, detail, selection) = (p.name.name, .product, p.kind?.value.rawValue ?? "product", p.name.range)
        case .feature(let f): (name, kind, detail, selection) = (f.name.name, .feature, (f.kind?.value.rawValue ?? "") + " feature", f.name.range)
        case .credits(let c): (name, kind, detail, selection) = (c.name.name, .credits, "credits", c.name.range)
        case .entitlement(let e): (name, kind, detail, selection) = (e.name.name, .entitlement, "= \(e.expression)", e.name.range)
        case .environment(let e):
            (name, kind, detail, selection) = ("environment \(e.environment.value.rawValue)", .namespace, "", e.environment.range)
            children = e.declarations.map { symbol($0, lines) }
        case .test(let t): (name, kind, detail, selection) = ("test \"\(t.description.value)\"", .test, "", t.description.range)
        }
        var members: [(key: String, value: JSONValue)] = [
            ("name", .string(name)), ("detail", .string(detail)), ("kind", .int(kind.rawValue)),
            ("range", lines.range(d.range)), ("selectionRange", lines.range(selection)),
        ]
        if !children.isEmpty { members.append(("children", .array(children))) }
        return .object(members)
    }

    /// LSP `SymbolKind`s for entl declarations.
    enum SymbolKind: Int {
        case module = 2, namespace = 3, product = 5, test = 6, feature = 7, entitlement = 11, credits = 23

        /// The kind of a declaration that declares a name.
        init?(_ d: Declaration) {
            switch d {
            case .product: self = .product
            case .feature: self = .feature
            case .credits: self = .credits
            case .entitlement: self = .entitlement
            case .app, .environment, .test: return nil
            }
        }
    }

    /// Products, entitlements, features and credit systems of every rule set the server knows
    /// (open ones as edited, the workspace folders' `.entl` files from disk) whose name contains
    /// the query's characters in order, ignoring case.
    func workspaceSymbols(_ params: JSONValue) -> JSONValue {
        let query = Array((params["query"]?.stringValue ?? "").lowercased())
        var seen: Set<String> = []
        var out: [JSONValue] = []
        func add(_ file: RuleFile, _ lines: TextLines) {
            guard seen.insert(file.path).inserted else { return }
            for d in file.declarationsInBlocks {
                guard let name = d.name, let kind = SymbolKind(d), Self.matches(query, name.name) else { continue }
                out.append(.object([
                    "name": .string(name.name), "kind": .int(kind.rawValue),
                    "location": .object(["uri": .string(uri(forPath: file.path)), "range": lines.range(name.range)]),
                    "containerName": .string(fileName(file.path)),
                ]))
            }
        }
        for key in Set(documents.values.map { ruleSetKey($0.uri) }).sorted() {
            let analysis = analysis(ofKey: key)
            for file in analysis.checked.files { if let lines = analysis.lines[file.path] { add(file, lines) } }
        }
        for root in roots {
            for path in files.ruleFiles(under: root, limit: 10_000).sorted() where !seen.contains(path) {
                guard let bytes = files.contents(of: path) else { continue }
                add(Parser.parse(SourceFile(path: path, bytes: bytes)).file, TextLines(bytes))
            }
        }
        return .array(out)
    }

    /// Whether the characters of `query` (lowercased) appear in `name` in order.
    static func matches(_ query: [Character], _ name: String) -> Bool {
        var i = 0
        for c in name.lowercased() where i < query.count && c == query[i] { i += 1 }
        return i == query.count
    }

    // MARK: - Formatting

    /// The `entlc fmt` layout of the current text as one edit of the whole document; refused
    /// while it has syntax errors (formatting must not guess). Needs no check of the rule set.
    func formatting(_ params: JSONValue) throws(ResponseError) -> JSONValue {
        let (_, path, lines) = try namesAndText(params)
        let source = SourceFile(path: path, bytes: lines.bytes)
        guard let formatted = Printer.format(source) else {
            let first = Parser.parse(source).diagnostics.first { $0.severity == .error }
            let at = first.map { " (\($0.code.id) at \($0.range.start): \($0.message))" } ?? ""
            throw ResponseError(.requestFailed, "cannot format \(fileName(path)): it has syntax errors\(at); fix them first")
        }
        let bytes = Array(formatted.utf8)
        if bytes == source.bytes { return .array([]) }
        return .array([.object(["range": lines.fullRange, "newText": .string(formatted)])])
    }
}
