import EntlCompiler
import EntlRuntime
import EntlSyntax

/// The features' answers as LSP 3.17 shapes: byte ranges become UTF-16 positions (through the
/// file's `TextLines`), paths become URIs (the client's own spelling for an open document),
/// kinds become the protocol's numbers.
extension LanguageServer {
    func location(_ place: Location, _ ruleSet: RuleSet) -> JSONValue {
        .object(["uri": .string(uri(forPath: place.file)), "range": ruleSet.range(place.file, place.range)])
    }

    func textEdit(_ edit: TextEdit, _ lines: TextLines?) -> JSONValue {
        .object([
            "range": lines?.range(from: edit.range.lowerBound, to: edit.range.upperBound) ?? .null,
            "newText": .string(edit.newText),
        ])
    }

    /// `{"changes": {URI: [edits]}}`, files in path order.
    func workspaceEdit(_ edits: [TextEdit], _ lines: [String: TextLines]) -> JSONValue {
        var byFile: [String: [JSONValue]] = [:]
        for e in edits { byFile[e.file, default: []].append(textEdit(e, lines[e.file])) }
        let changes = byFile.keys.sorted().map { (key: uri(forPath: $0), value: JSONValue.array(byFile[$0]!)) }
        return .object(["changes": .object(changes)])
    }

    func completionItem(_ item: CompletionItem) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("label", .string(item.label)), ("kind",
                                                                                           .int(item.kind.lspKind))]
        if let detail = item.detail { members.append(("detail", .string(detail))) }
        if let docs = item.documentation {
            members.append(("documentation", .object(["kind": .string("markdown"), "value": .string(docs)])))
        }
        return .object(members)
    }

    func documentSymbol(_ symbol: DocumentSymbol, _ lines: TextLines) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("name", .string(symbol.name)), ("detail", .string(symbol.detail)), ("kind", .int(symbol.kind.lspKind)),
            ("range", lines.range(symbol.range)), ("selectionRange", lines.range(symbol.selectionRange)),
        ]
        if !symbol.children.isEmpty {
            members.append(("children", .array(symbol.children.map { documentSymbol($0, lines) })))
        }
        return .object(members)
    }

    /// A quick fix: its title, the diagnostic it fixes, its edits (all in that diagnostic's file).
    func codeAction(_ action: CodeAction, _ lines: TextLines) -> JSONValue {
        let d = action.diagnostic
        var members: [(key: String, value: JSONValue)] = [
            ("title", .string(action.title)), ("kind", .string("quickfix")),
            ("diagnostics", .array([.object([
                "range": lines.range(d.range), "code": .string(d.code.id), "source": .string("entlc"),
                "message": .string(d.message),
            ])])),
        ]
        if action.isPreferred { members.append(("isPreferred", .bool(true))) }
        let edits = JSONValue.array(action.edits.map { textEdit($0, lines) })
        members.append(("edit", .object(["changes": .object([(key: uri(forPath: d.file), value: edits)])])))
        return .object(members)
    }

    /// A diagnostic as LSP shows it: the same code, message and range as `entlc check`; its
    /// notes and help as related information.
    func diagnostic(_ d: Diagnostic, _ ruleSet: RuleSet) -> JSONValue {
        let severity = switch d.severity {
        case .error: 1
        case .warning: 2
        case .note: 3
        }
        var related: [JSONValue] = d.notes.map { note in
            .object(["location": location(Location(file: note.file, range: note.range), ruleSet),
                     "message": .string(note.message)])
        }
        if let help = d.help {
            related.append(.object(["location": location(Location(file: d.file, range: d.range), ruleSet),
                                    "message": .string("help: " + help)]))
        }
        var members: [(key: String, value: JSONValue)] = [
            ("range", ruleSet.range(d.file, d.range)),
            ("severity", .int(severity)),
            ("code", .string(d.code.id)),
            ("source", .string("entlc")),
            ("message", .string(d.message)),
        ]
        if !related.isEmpty { members.append(("relatedInformation", .array(related))) }
        return .object(members)
    }

    /// Semantic tokens as LSP's relative encoding: per token its line and start relative to the
    /// previous token, its length, type and modifiers, in UTF-16 units. A token over several
    /// lines (a block comment) is left to the grammar.
    func encode(_ tokens: [SemanticToken], _ lines: TextLines) -> [Int] {
        var data: [Int] = []
        var previous = Position(line: 0, character: 0)
        for t in tokens {
            let from = lines.position(of: t.range.lowerBound), to = lines.position(of: t.range.upperBound)
            guard from.line == to.line, to.character > from.character else { continue }
            let deltaLine = from.line - previous.line
            data += [deltaLine, deltaLine == 0 ? from.character - previous.character : from.character,
                     to.character - from.character, t.kind.legendIndex, t.isDeclaration ? 1 : 0]
            previous = from
        }
        return data
    }
}

extension CompletionItem.Kind {
    /// LSP `CompletionItemKind`.
    var lspKind: Int {
        switch self {
        case .name(.product): 7
        case .name(.entitlement): 8
        case .name(.feature): 10
        case .keyword: 14
        case .value: 20
        case .name(.credits): 22
        }
    }
}

extension DocumentSymbol.Kind {
    /// LSP `SymbolKind`.
    var lspKind: Int {
        switch self {
        case .app: 2
        case .environment: 3
        case .product: 5
        case .test: 6
        case .feature: 7
        case .entitlement: 11
        case .credits: 23
        }
    }
}

extension SemanticToken.Kind {
    /// The LSP token types the server announces: the keywords, numbers, strings and comments
    /// the lexer sees, then the names by `NameKind`.
    static let legend = ["keyword", "number", "string", "comment", "class", "interface", "property", "struct"]

    /// The index of the kind's type in `legend`.
    var legendIndex: Int {
        switch self {
        case .keyword: 0
        case .number: 1
        case .string: 2
        case .comment: 3
        case .name(let kind): 4 + kind.rawValue
        }
    }
}
