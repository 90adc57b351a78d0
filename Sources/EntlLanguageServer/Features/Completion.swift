import EntlCompiler
import EntlSyntax

/// Completion: the names and words valid at the cursor, decided from the tokens before it (the
/// declaration or block it is in and the item or constraint being written), so it works while
/// the file does not parse.
extension Analysis {
    /// What may be written at `offset` of `source` (the document's current text: its rule set
    /// may have been checked before the last keystroke), each word or name once.
    public func completions(in source: SourceFile, at offset: Int) -> [CompletionItem] {
        let place = CompletionPlace(source, offset: offset)
        var items: [CompletionItem] = []
        var seen: Set<String> = []
        let environments = place.environment.map { [$0] } ?? EnvironmentName.allCases
        for want in place.wanted {
            switch want {
            case .words(let words, let kind):
                for w in words where seen.insert(w).inserted { items.append(CompletionItem(label: w, kind: kind)) }
            case .names(let filter):
                for env in environments {
                    guard let table = checked.tables[env] else { continue }
                    for name in table.names(where: filter) where seen.insert(name).inserted {
                        let symbol = table[name]!
                        let docs = docComment(checked.model.declarations[symbol.site].named?.docs ?? [])
                        items.append(CompletionItem(label: name, kind: .name(NameKind(symbol.kind)),
                                                    detail: symbol.kind.detail,
                                                    documentation: docs.isEmpty ? nil : docs))
                    }
                }
            }
        }
        return items
    }
}

/// A word or name that may be written at the cursor.
public struct CompletionItem: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// A declared name.
        case name(NameKind)
        /// A reserved or contextual word.
        case keyword
        /// One of a closed set of values (`month`, `consumable`, `app_store`).
        case value
    }

    public var label: String
    public var kind: Kind
    /// For a name: what it is ("boolean feature").
    public var detail: String?
    /// For a name: its doc comment, Markdown.
    public var documentation: String?

    public init(label: String, kind: Kind, detail: String? = nil, documentation: String? = nil) {
        (self.label, self.kind, self.detail, self.documentation) = (label, kind, detail, documentation)
    }
}

/// Where the cursor is, as far as completion cares, and what may be written there.
struct CompletionPlace {
    enum Want {
        case words([String], CompletionItem.Kind)
        case names((Symbol.Kind) -> Bool)
    }

    private(set) var wanted: [Want] = []
    /// The environment block the cursor is in.
    private(set) var environment: EnvironmentName?

    static let declarationWords = ["app", "product", "feature", "credits", "entitlement", "environment", "test"]
    static let environmentDeclarationWords = ["product", "feature", "credits", "entitlement"]

    init(_ source: SourceFile, offset: Int) {
        // The tokens before the cursor; a word that ends at the cursor is being typed.
        var lexer = Lexer(file: source.path, bytes: source.bytes)
        var tokens: [Token] = []
        while true {
            let t = lexer.next()
            if case .endOfFile = t.kind { break }
            if t.range.start.offset >= offset { break }
            if t.range.end.offset > offset {
                // Inside a string or other token: nothing to complete, unless it is a word.
                switch t.kind {
                case .identifier, .keyword: break
                default: return
                }
            }
            tokens.append(t)
        }
        for c in lexer.comments where c.range.start.offset < offset && offset <= c.range.end.offset { return }
        if let last = tokens.last, last.range.end.offset >= offset {
            switch last.kind {
            case .identifier, .keyword: tokens.removeLast()
            default: break
            }
        }
        let cursorLine = source.line(ofOffset: offset)

        // Walk the structure: environment blocks, declaration headers, item blocks.
        enum Frame { case environment(EnvironmentName?), block(String) }
        var stack: [Frame] = []
        var header: [Token] = []
        var item: [Token] = []
        for t in tokens {
            switch t.kind {
            case .leftBrace:
                let owner = header.first.map(Self.word) ?? ""
                if owner == "environment" {
                    let name = header.dropFirst().first.flatMap { EnvironmentName(word: Self.word($0)) }
                    stack.append(.environment(name))
                } else {
                    stack.append(.block(owner))
                }
                header = []
                item = []
            case .rightBrace:
                if !stack.isEmpty { stack.removeLast() }
                header = []
                item = []
            case .semicolon:
                item = []
            case .keyword(let k) where k.startsDeclaration:
                if case .block? = stack.last {} else { header = [t] }
            default:
                if case .block(let owner)? = stack.last {
                    if let previous = item.last, previous.range.start.line != t.range.start.line { item = [] }
                    // An item word after a whole item on the same line starts the next item
                    // (`name "P" period`: items need no `;` or line break between them); right after
                    // the first word it is a name (`grants period`, a feature called so).
                    if item.count >= 2, Self.itemWords(owner).contains(Self.word(t)) { item = [] }
                    item.append(t)
                } else {
                    header.append(t)
                }
            }
        }
        for frame in stack { if case .environment(let e) = frame { environment = e } }
        let itemOnLine = item.last.map { $0.range.start.line == cursorLine } == true ? item : []
        if case .block(let owner)? = stack.last {
            blockItem(owner, itemOnLine)
        } else {
            topLevel(header, inEnvironment: !stack.isEmpty, cursorLine: cursorLine)
        }
    }

    /// The words that start an item of `owner`'s block.
    private static func itemWords(_ owner: String) -> [String] {
        owner == "test" ? Parser.testItemWords
            : BlockOwner.allCases.first { $0.noun == owner || "\($0)" == owner }?.itemWords ?? []
    }

    private static func word(_ t: Token) -> String {
        switch t.kind {
        case .identifier(let w): w
        case .keyword(let k): k.rawValue
        default: ""
        }
    }

    private mutating func keywords(_ words: [String]) { wanted.append(.words(words, .keyword)) }
    private mutating func values(_ words: [String]) { wanted.append(.words(words, .value)) }
    private mutating func names(_ filter: @escaping (Symbol.Kind) -> Bool) { wanted.append(.names(filter)) }

    /// An item of a product, feature, credits, entitlement or test block.
    private mutating func blockItem(_ owner: String, _ item: [Token]) {
        let words = item.map(Self.word)
        let previous = words.last ?? ""
        guard let first = words.first else {
            switch owner {
            case "test": keywords(Parser.testItemWords)
            case "credits":
                keywords(BlockOwner.credits.itemWords)
                names { if case .feature(.metered?, _) = $0 { true } else { false } }
            default:
                keywords(Self.itemWords(owner))
            }
            return
        }
        switch (owner, first) {
        case (_, "grants"):
            if words.count == 1 { names(\.grantable) } else { grantClause(words, clauses: Parser.grantClauseWords) }
        case (_, "id") where words.count == 1: values(KnownStores.names)
        case (_, "period") where words.count == 1: values(BillingPeriod.spellings)
        case (_, "duration") where words.count == 2: values(DurationUnit.spellings)
        case (_, "usage") where words.count == 1: values(Usage.spellings)
        case ("test", "given"):
            if words.count == 1 { names(\.isProduct) }
            else { values(PurchaseStatusWord.spellings); keywords(["since", "until", "grace_until", "quantity",
                                                                   "family_shared"]) }
        case ("test", "used"), ("test", "level"):
            if words.count == 1 { names(\.isMetered) }
            else if words.count >= 3 { keywords(["at"] + (first == "used" ? ["id"] : [])) }
        case ("test", "override"):
            if words.count == 1 { names(\.isProduct) } else if words.count == 2 { values(OverrideWord.spellings) }
        case ("test", "env") where words.count == 1: values(EnvironmentName.spellings)
        case ("test", "customer") where words.count == 1: keywords(["since"])
        case ("test", "grant"):
            if words.count == 1 { names { $0 == .entitlement || $0.grantable } }
            else { grantClause(words, clauses: ["per", "overage", "from", "until"]) }
        case ("test", "expect"):
            if words.count == 1 { names { !$0.isProduct } }
            else if previous == "via" { keywords(["direct", "credits", "overage"]) }
            else if previous == "credits" { names { $0 == .credits } }
            else if previous == "balance" { keywords(["unlimited"]) }
            else if DecisionWord(word: previous) != nil { keywords(["balance", "via"]) }
            else if words.count <= 3 { values(DecisionWord.spellings) }
        default: break
        }
    }

    /// What continues a grant (`grants NAME …`, or a test's `grant NAME …`) after `words`: the
    /// value or word a clause goes on with, else the amount (right after the name) and the clauses
    /// not given yet.
    private mutating func grantClause(_ words: [String], clauses: [String]) {
        let previous = words.last ?? ""
        switch previous {
        case "per": values(ResetInterval.spellings)
        case "up": keywords(["to"])
        case "expires": keywords(["after"])
        case "to", "after", "priority", "from", "until": break  // a number or an instant comes next
        default:
            // A number after `expires after` takes its unit.
            if words.count >= 2, words[words.count - 2] == "after" {
                values(DurationUnit.spellings)
                return
            }
            let open = previous == "carry" || previous == "overage" ? ["up"] : []
            keywords(open + (words.count == 2 ? ["unlimited"] : []) + clauses.filter { !words.contains($0) })
        }
    }

    /// A declaration header (or the start of a new declaration).
    private mutating func topLevel(_ header: [Token], inEnvironment: Bool, cursorLine: Int) {
        let declarations = inEnvironment ? Self.environmentDeclarationWords : Self.declarationWords
        let words = header.map(Self.word)
        guard let first = words.first else {
            keywords(declarations)
            return
        }
        let previous = header.last!
        let previousWord = words.last!
        let onNewLine = previous.range.start.line < cursorLine
        switch first {
        case "product" where previous.kind == .colon: values(ProductKind.spellings)
        case "feature" where previous.kind == .colon: values(FeatureKind.spellings)
        case "feature" where FeatureKind(word: previousWord) != nil && words.count == 4: keywords(["requires"])
        case "environment" where words.count == 1: values(EnvironmentName.spellings)
        case "entitlement", "feature":
            let start = words.firstIndex { $0 == "requires" } ?? header.firstIndex { $0.kind == .equals }
            guard start != nil else { break }
            constraint(previous, previousWord)
        default: break
        }
        if onNewLine { keywords(declarations) }
    }

    /// Inside a constraint, after `previous`.
    private mutating func constraint(_ previous: Token, _ word: String) {
        switch previous.kind {
        case .equals, .leftParen, .keyword(.and), .keyword(.or), .keyword(.not):
            names { $0.isProduct || $0 == .entitlement }
            keywords(["everyone", "not"])
        case .identifier where word == "requires":
            names { $0.isProduct || $0 == .entitlement }
            keywords(["everyone", "not"])
        case .identifier where word == "purchased": keywords(["before", "since"])
        case .identifier, .rightParen, .string, .integer, .keyword(.everyone):
            keywords(["and", "or"] + (previous.kind == .identifier(word) ? ["purchased"] : []))
        default: break
        }
    }
}
