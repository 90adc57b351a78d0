import EntlCompiler
import EntlRuntime
import EntlSyntax

/// The requests: each reads its parameters, converts LSP positions (UTF-16) to byte offsets,
/// asks the feature (`Features/`), and converts the answer back.
extension LanguageServer {
    // MARK: - Navigation

    func hover(_ params: JSONValue) throws(ResponseError) -> JSONValue {
        let (ruleSet, path, offset) = try position(params)
        guard let hover = ruleSet.analysis.hover(in: path, at: offset) else { return .null }
        return .object([
            "contents": .object(["kind": .string("markdown"), "value": .string(hover.markdown)]),
            "range": ruleSet.range(path, hover.range),
        ])
    }

    func definition(_ params: JSONValue) throws(ResponseError) -> JSONValue {
        let (ruleSet, path, offset) = try position(params)
        guard let places = ruleSet.analysis.definition(in: path, at: offset) else { return .null }
        return .array(places.map { location($0, ruleSet) })
    }

    func references(_ params: JSONValue) throws(ResponseError) -> JSONValue {
        let (ruleSet, path, offset) = try position(params)
        let includeDeclaration = params["context", "includeDeclaration"]?.boolValue ?? true
        guard let places = ruleSet.analysis.references(in: path, at: offset, includeDeclaration: includeDeclaration)
        else { return .null }
        return .array(places.map { location($0, ruleSet) })
    }

    func prepareRename(_ params: JSONValue) throws(ResponseError) -> JSONValue {
        let (ruleSet, path, offset) = try position(params)
        let (range, name) = try failed { () throws(FeatureError) in
            try ruleSet.analysis.prepareRename(in: path, at: offset)
        }
        return .object(["range": ruleSet.range(path, range), "placeholder": .string(name)])
    }

    func rename(_ params: JSONValue) throws(ResponseError) -> JSONValue {
        guard let newName = params["newName"]?.stringValue else {
            throw ResponseError(.invalidParams, "missing `newName`")
        }
        let (ruleSet, path, offset) = try position(params)
        let edits = try failed { () throws(FeatureError) in
            try ruleSet.analysis.rename(in: path, at: offset, to: newName)
        }
        return workspaceEdit(edits, ruleSet.lines)
    }

    // MARK: - Completion

    func completion(_ params: JSONValue) throws(ResponseError) -> JSONValue {
        let (analysis, source, lines) = try namesAndText(params)
        let items = analysis.completions(in: source, at: try offset(params, in: lines))
        return .object(["isIncomplete": .bool(false), "items": .array(items.map(completionItem))])
    }

    // MARK: - Symbols

    func documentSymbols(_ params: JSONValue) throws(ResponseError) -> JSONValue {
        let (_, source, lines) = try namesAndText(params)
        return .array(Symbols.outline(source).map { documentSymbol($0, lines) })
    }

    /// Products, entitlements, features and credit systems of every rule set the server knows
    /// (open ones as edited, the workspace folders' `.entl` files from disk) whose name contains
    /// the query's characters in order, ignoring case.
    func workspaceSymbols(_ params: JSONValue) -> JSONValue {
        let query = params["query"]?.stringValue ?? ""
        var seen: Set<String> = []
        var out: [JSONValue] = []
        func add(_ file: RuleFile, _ lines: TextLines) {
            guard seen.insert(file.path).inserted else { return }
            for symbol in Symbols.matching(query, in: file) {
                out.append(.object([
                    "name": .string(symbol.name), "kind": .int(symbol.kind.lspKind),
                    "location": .object(["uri": .string(uri(forPath: file.path)),
                                         "range": lines.range(symbol.location.range)]),
                    "containerName": .string(fileName(file.path)),
                ]))
            }
        }
        for key in Set(documents.values.map { ruleSetKey($0.uri) }).sorted() {
            let ruleSet = currentRuleSet(key)
            for file in ruleSet.analysis.checked.files { if let lines = ruleSet.lines[file.path] { add(file, lines) } }
        }
        for root in roots {
            for path in files.ruleFiles(under: root, limit: 10_000).sorted() where !seen.contains(path) {
                guard let bytes = files.contents(of: path) else { continue }
                add(Parser.parse(SourceFile(path: path, bytes: bytes)).file, TextLines(bytes))
            }
        }
        return .array(out)
    }

    // MARK: - Editing

    func formatting(_ params: JSONValue) throws(ResponseError) -> JSONValue {
        let (_, source, lines) = try namesAndText(params)
        guard let edit = try failed({ () throws(FeatureError) in try Formatting.edit(source) }) else {
            return .array([])
        }
        return .array([textEdit(edit, lines)])
    }

    func codeActions(_ params: JSONValue) throws(ResponseError) -> JSONValue {
        let (ruleSet, path, lines) = try target(params, depth: .checked)
        guard let start = Position(params["range", "start"]), let end = Position(params["range", "end"]) else {
            throw ResponseError(.invalidParams, "missing or invalid `range`")
        }
        let found = changes[ruleSetKey(params["textDocument", "uri"]?.stringValue ?? "")] ?? []
        let actions = ruleSet.analysis.codeActions(in: path, from: lines.offset(of: start), to: lines.offset(of: end),
                                                   changes: found)
        return .array(actions.map { codeAction($0, lines) })
    }

    func semanticTokens(_ params: JSONValue) throws(ResponseError) -> JSONValue {
        let (ruleSet, path, lines) = try target(params)
        let tokens = ruleSet.analysis.semanticTokens(in: SourceFile(path: path, bytes: lines.bytes))
        return .object(["data": .array(encode(tokens, lines).map { .int($0) })])
    }

    // MARK: - Parameters

    /// The rule set and path of a request's `textDocument`, checked at least to `depth`: an open
    /// document, or a file of a rule set on disk.
    func target(_ params: JSONValue, depth: Analysis.Depth = .names) throws(ResponseError)
        -> (ruleSet: RuleSet, path: String, lines: TextLines)
    {
        let uri = try uri(params)
        let path = documents[uri]?.path ?? DocumentURI.path(uri) ?? uri
        let ruleSet = currentRuleSet(ruleSetKey(uri), depth: depth)
        guard let lines = ruleSet.lines[path] else {
            throw ResponseError(.invalidParams, "unknown document `\(uri)`: open it first")
        }
        return (ruleSet, path, lines)
    }

    /// A request's document and `position`, as a byte offset.
    private func position(_ params: JSONValue) throws(ResponseError) -> (ruleSet: RuleSet, path: String, offset: Int) {
        let (ruleSet, path, lines) = try target(params)
        return (ruleSet, path, try offset(params, in: lines))
    }

    /// For requests that need the names of the rule set but not its latest check (completion)
    /// or only the document's text (outline, formatting): the last analysis even when stale,
    /// with the document's current text.
    private func namesAndText(_ params: JSONValue) throws(ResponseError)
        -> (analysis: Analysis, source: SourceFile, lines: TextLines)
    {
        let uri = try uri(params)
        guard let document = documents[uri], let ruleSet = ruleSets[ruleSetKey(uri)] else {
            let (ruleSet, path, lines) = try target(params)
            return (ruleSet.analysis, SourceFile(path: path, bytes: lines.bytes), lines)
        }
        return (ruleSet.analysis, SourceFile(path: document.path, bytes: document.bytes), TextLines(document.bytes))
    }

    private func uri(_ params: JSONValue) throws(ResponseError) -> String {
        guard let uri = params["textDocument", "uri"]?.stringValue else {
            throw ResponseError(.invalidParams, "missing `textDocument.uri`")
        }
        return uri
    }

    /// A request's `position` as a byte offset in its document.
    private func offset(_ params: JSONValue, in lines: TextLines) throws(ResponseError) -> Int {
        guard let position = Position(params["position"]) else {
            throw ResponseError(.invalidParams, "missing or invalid `position`")
        }
        return lines.offset(of: position)
    }

    /// A feature's refusal as the LSP error for it.
    private func failed<T>(_ body: () throws(FeatureError) -> T) throws(ResponseError) -> T {
        do throws(FeatureError) {
            return try body()
        } catch {
            throw ResponseError(.requestFailed, error.message)
        }
    }
}
