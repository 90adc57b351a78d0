import EntlSupport

/// Which declaration a `{ … }` block belongs to: decides the items it may hold.
public enum BlockOwner: String, CaseIterable, Sendable {
    case product, feature, credits = "credit system", entitlement

    /// How diagnostics name the declaration: "product", "credit system".
    public var noun: String { rawValue }

    /// The words that start the items of the block (completion offers them).
    public var itemWords: [String] {
        switch self {
        case .product: ["name", "id", "period", "group", "duration", "grants"]
        case .feature: ["name", "usage", "event", "unit"]
        case .credits: ["name", "unit"]
        case .entitlement: ["name", "grants"]
        }
    }
}

extension Parser {
    /// rule_file = { declaration | ";" } ;
    mutating func parseRuleFile() -> RuleFile {
        var declarations: [Declaration] = []
        while true {
            switch token.kind {
            case .endOfFile:
                return RuleFile(path: path, declarations: declarations)
            case .semicolon:
                advance()
            case .rightBrace:
                report(.expectedToken, "unexpected `}`", at: token.range, label: "no block is open here")
                advance()
            default:
                if let d = parseDeclaration() { declarations.append(d) }
            }
        }
    }

    /// declaration = app_decl | product_decl | feature_decl | credits_decl
    ///             | entitlement_decl | environment_decl | test_decl ;
    ///
    /// Returns nil (after reporting and skipping to the next declaration) when the current token
    /// starts no declaration or the declaration has no usable name.
    mutating func parseDeclaration() -> Declaration? {
        let docs = token.docs
        switch token.kind {
        case .keyword(.app): return parseApp(docs: docs)
        case .keyword(.product): return parseProduct(docs: docs).map(Declaration.product)
        case .keyword(.feature): return parseFeature(docs: docs).map(Declaration.feature)
        case .keyword(.credits): return parseCredits(docs: docs).map(Declaration.credits)
        case .keyword(.entitlement): return parseEntitlement(docs: docs).map(Declaration.entitlement)
        case .keyword(.environment): return parseEnvironment(docs: docs)
        case .keyword(.test): return parseTest(docs: docs).map(Declaration.test)
        default:
            reportNotADeclaration()
            advance()
            skipToDeclaration()
            return nil
        }
    }

    /// "expected a declaration, found `prodcut`" with a suggestion for a misspelled keyword.
    private mutating func reportNotADeclaration() {
        guard token.kind != .invalid else { return }
        var help = "declarations start with `app`, `product`, `feature`, `credits`, `entitlement`, `environment` "
            + "or `test`"
        let keywords = Keyword.allCases.filter(\.startsDeclaration).map(\.rawValue)
        if let w = word, let k = Suggestions.closest(to: w, among: keywords) {
            help = "did you mean `\(k)`?"
        }
        report(.expectedToken, "expected a declaration, found \(token.description)", at: token.range, help: help)
    }

    /// app_decl = "app" , STRING ;
    mutating func parseApp(docs: [String]) -> Declaration? {
        let start = token.range
        advance()
        guard let id = parseString("the app id as a string (`app \"com.example.app\"`)") else {
            skipToDeclaration()
            return nil
        }
        return .app(AppDeclaration(docs: docs, id: id, range: start.through(id.range)))
    }

    /// Followers that make a reserved word look like an intended name (`product test: …`).
    private static let nameFollowers: Set<TokenKind> = [.colon, .equals, .leftBrace]

    /// product_decl = "product" , NAME , ":" , product_kind , [ block(product_item) ] ;
    mutating func parseProduct(docs: [String]) -> ProductDeclaration? {
        guard let (start, name) = parseDeclarationName("a product name") else { return nil }
        var decl = ProductDeclaration(docs: docs, name: name, kind: nil, items: [], hasBlock: false,
                                      range: start.through(name.range))
        decl.kind = parseKindClause(ProductKind.self, of: "product `\(name.name)`")
        if decl.kind == nil, token.kind != .leftBrace {
            skipToDeclaration()
        } else if let items = parseOptionalBlock(.product, name: name, after: "product `\(name.name)`") {
            (decl.hasBlock, decl.items) = (true, items)
        }
        decl.range = rangeSoFar(from: start)
        return decl
    }

    /// The keyword and the name that start a declaration: the keyword's range and the name; nil
    /// (reported, and skipped to the next declaration) when there is no usable name.
    private mutating func parseDeclarationName(_ role: String, reservedFollowers: Set<TokenKind> = Parser.nameFollowers)
        -> (start: SourceRange, name: Identifier)?
    {
        let start = token.range
        advance()
        guard let name = parseName(role, reservedFollowers: reservedFollowers) else {
            skipToDeclaration()
            return nil
        }
        return (start, name)
    }

    /// A declaration's `{ … }` block when one follows; else nil, and the declaration must end.
    private mutating func parseOptionalBlock(_ owner: BlockOwner, name: Identifier,
                                             after what: @autoclosure () -> String) -> [Item]? {
        guard token.kind == .leftBrace else {
            expectDeclarationEnd(after: what())
            return nil
        }
        return parseBlock(owner, name: name.name)
    }

    /// `":" , KIND` — nil (reported) when missing or unknown.
    private mutating func parseKindClause<T: KeywordValue>(_: T.Type, of what: String) -> Located<T>? {
        guard token.kind == .colon else {
            reportExpected("`:` and a \(T.setName) after \(what)",
                           help: "write e.g. `: \(T.spellings[0])`; kinds are \(T.spellings.joined(separator: ", "))")
            return nil
        }
        advance()
        guard let w = word else {
            reportExpected("a \(T.setName)", help: "expected one of: \(T.spellings.joined(separator: ", "))")
            return nil
        }
        guard let kind = T(word: w) else {
            report(.unknownKind, "unknown \(T.setName) `\(w)`", at: token.range,
                   help: Suggestions.help(Suggestions.closest(to: w, among: T.spellings), expected: T.spellings))
            advance()
            return nil
        }
        let located = Located(kind, range: token.range)
        advance()
        return located
    }

    /// feature_decl = "feature" , NAME , ":" , feature_kind , [ "requires" , expr ] , [ block(feature_item) ] ;
    mutating func parseFeature(docs: [String]) -> FeatureDeclaration? {
        guard let (start, name) = parseDeclarationName("a feature name") else { return nil }
        var decl = FeatureDeclaration(docs: docs, name: name, kind: nil, requires: nil, items: [], hasBlock: false,
                                      range: start.through(name.range))
        decl.kind = parseKindClause(FeatureKind.self, of: "feature `\(name.name)`")
        if decl.kind == nil, token.kind != .leftBrace, !isWord("requires") {
            skipToDeclaration()
            decl.range = rangeSoFar(from: start)
            return decl
        }
        if isWord("requires") {
            advance()
            let expression = parseConstraint()
            decl.requires = expression
            if case .error = expression {
                skipToDeclaration()
                decl.range = rangeSoFar(from: start)
                return decl
            }
        }
        if let items = parseOptionalBlock(.feature, name: name, after: "feature `\(name.name)`") {
            (decl.hasBlock, decl.items) = (true, items)
        }
        decl.range = rangeSoFar(from: start)
        return decl
    }

    /// credits_decl = "credits" , NAME , [ block(credits_item) ] ;
    mutating func parseCredits(docs: [String]) -> CreditsDeclaration? {
        guard let (start, name) = parseDeclarationName("a credit system name", reservedFollowers: [.leftBrace]) else {
            return nil
        }
        var decl = CreditsDeclaration(docs: docs, name: name, items: [], hasBlock: false,
                                      range: start.through(name.range))
        if let items = parseOptionalBlock(.credits, name: name, after: "credit system `\(name.name)`") {
            (decl.hasBlock, decl.items) = (true, items)
        }
        decl.range = rangeSoFar(from: start)
        return decl
    }

    /// entitlement_decl = "entitlement" , NAME , "=" , expr , [ block(entitlement_item) ] ;
    mutating func parseEntitlement(docs: [String]) -> EntitlementDeclaration? {
        guard let (start, name) = parseDeclarationName("an entitlement name") else { return nil }
        var decl = EntitlementDeclaration(docs: docs, name: name, expression: .error(Located("", range: name.range)),
                                          items: [], hasBlock: false, range: start.through(name.range))
        guard token.kind == .equals else {
            reportExpected("`=` and a constraint after entitlement `\(name.name)`",
                           help: "write `entitlement \(name.name) = product_a or product_b { … }`")
            skipToDeclaration()
            return decl
        }
        advance()
        decl.expression = parseConstraint()
        if case .error = decl.expression {
            skipToDeclaration()
        } else if let items = parseOptionalBlock(.entitlement, name: name,
                                                 after: "the constraint of entitlement `\(name.name)`") {
            (decl.hasBlock, decl.items) = (true, items)
        }
        decl.range = rangeSoFar(from: start)
        return decl
    }

    /// After a declaration without a block, the next token must end it.
    private mutating func expectDeclarationEnd(after what: @autoclosure () -> String) {
        switch token.kind {
        case .endOfFile, .semicolon, .rightBrace: return
        case .keyword(let k) where k.startsDeclaration: return
        default:
            // On a new line, the token most likely starts a mistyped declaration.
            if onSameLine {
                reportExpected("`{` or a new declaration after \(what())")
            } else {
                reportNotADeclaration()
            }
            advance()
            skipToDeclaration()
        }
    }

    /// environment_decl = "environment" , ( "live" | "test" ) ,
    ///                    "{" , { product_decl | feature_decl | credits_decl | entitlement_decl | ";" } , "}" ;
    mutating func parseEnvironment(docs: [String]) -> Declaration? {
        let start = token.range
        advance()
        let nameRange = token.range
        let environment: Located<EnvironmentName>
        switch token.kind {
        case .keyword(.test):
            environment = Located(.test, range: nameRange)
        case .identifier(let w):
            guard let e = EnvironmentName(word: w) else {
                report(.unknownEnvironment, "unknown environment `\(w)`", at: nameRange,
                       help: "the environments are `live` and `test`")
                advance()
                skipBlockOrDeclaration()
                return nil
            }
            environment = Located(e, range: nameRange)
        default:
            reportExpected("`live` or `test` after `environment`")
            skipToDeclaration()
            return nil
        }
        advance()
        guard token.kind == .leftBrace else {
            reportExpected("`{` after `environment \(environment.value.rawValue)`")
            skipToDeclaration()
            return nil
        }
        var declarations: [Declaration] = []
        parseBraces(closing: "`environment \(environment.value.rawValue)`") { p in
            switch p.token.kind {
            case .keyword(let k) where k == .app || k == .environment || k == .test:
                let what = k == .environment ? "an environment block" : "`\(k.rawValue)` declarations"
                p.report(.misplacedDeclaration, "\(what) cannot appear inside an environment block", at: p.token.range,
                         help: "move it out of `environment \(environment.value.rawValue) { … }`")
                _ = p.parseDeclaration()  // parsed to stay in step, then dropped
            default:
                if let d = p.parseDeclaration() { declarations.append(d) }
            }
        }
        return .environment(EnvironmentDeclaration(
            docs: docs, environment: environment, declarations: declarations,
            range: rangeSoFar(from: start)))
    }

    /// Skips a `{ … }` block if one follows, else to the next declaration.
    private mutating func skipBlockOrDeclaration() {
        if token.kind == .leftBrace {
            advance()
            var depth = 1
            while depth > 0, token.kind != .endOfFile {
                if token.kind == .leftBrace { depth += 1 }
                if token.kind == .rightBrace { depth -= 1 }
                advance()
            }
        } else {
            skipToDeclaration()
        }
    }

    // MARK: - Blocks and items

    /// block(item) = "{" , { item | ";" } , "}" ;
    ///
    /// A missing `}` is reported where the next declaration starts (or at the end of the file),
    /// and the block ends there.
    mutating func parseBlock(_ owner: BlockOwner, name: String) -> [Item] {
        var items: [Item] = []
        parseBraces(closing: "\(owner.noun) `\(name)`", endsAt: Parser.startsDeclaration) { p in
            if case .identifier(let w) = p.token.kind {
                if let item = p.parseItem(owner, word: w, ownerName: name) { items.append(item) }
            } else {
                let line = p.token.range.start.line
                p.reportExpected("an item of \(owner.noun) `\(name)` or `}`")
                p.advance()
                p.skipRestOfLine(line)
            }
        }
        return items
    }

    /// One item; nil (after reporting and skipping the rest of its line) when it does not parse.
    mutating func parseItem(_ owner: BlockOwner, word w: String, ownerName: String) -> Item? {
        let start = token.range
        let line = start.start.line
        // credits_item: a conversion `FEATURE AMOUNT = CREDITS` starts with any name and a number.
        if owner == .credits, case .integer = peek().kind {
            if let item = parseConversion() { return item }
            skipRestOfLine(line)
            return nil
        }
        guard owner.itemWords.contains(w) else {
            reportUnknownItem(owner, word: w, ownerName: ownerName)
            advance()
            skipRestOfLine(line)
            return nil
        }
        advance()
        var kind: Item.Kind?
        switch w {
        case "name":
            // name_item = "name" , STRING ;
            kind = parseString("a display name string after `name`").map(Item.Kind.displayName)
        case "id":
            // id_item = "id" , NAME , STRING ;
            if let store = parseName("a store name after `id` (e.g. `app_store`, `play_store`, `stripe`)"),
               let id = parseString("the product id string for store `\(store.name)`") {
                kind = .storeID(store: store, id: id)
            }
        case "period":
            // period_item = "period" , billing_period ;
            kind = parseKeywordValue(BillingPeriod.self, after: "period").map(Item.Kind.period)
        case "group":
            // group_item = "group" , NAME ;
            kind = parseName("a subscription group name after `group`").map(Item.Kind.group)
        case "duration":
            // duration_item = "duration" , INTEGER , duration_unit ;
            if let n = parseInteger("a number after `duration` (`duration 90 days`)"),
               let unit = parseKeywordValue(DurationUnit.self, after: "duration \(n.value)") {
                kind = .duration(n, unit)
            }
        case "grants":
            kind = parseGrant(start: start).map(Item.Kind.grant)
        case "usage":
            // usage_item = "usage" , ( "single_use" | "continuous" ) ;
            kind = parseKeywordValue(Usage.self, after: "usage").map(Item.Kind.usage)
        case "event":
            // event_item = "event" , STRING ;
            kind = parseString("the usage event name string after `event`").map(Item.Kind.event)
        case "unit":
            // unit_item = "unit" , STRING , [ "/" , STRING ] ;
            if let singular = parseString("a unit string after `unit` (`unit \"call\" / \"calls\"`)") {
                if token.kind == .slash {
                    advance()
                    if let plural = parseString("the plural unit string after `/`") {
                        kind = .unit(singular: singular, plural: plural)
                    }
                } else {
                    kind = .unit(singular: singular, plural: nil)
                }
            }
        default:
            break
        }
        guard let kind else {
            skipRestOfLine(line)
            return nil
        }
        return Item(kind, range: rangeSoFar(from: start))
    }

    private mutating func reportUnknownItem(_ owner: BlockOwner, word w: String, ownerName: String) {
        let allItems = ["name", "id", "period", "group", "duration", "grants", "usage", "event", "unit"]
        let help: String
        if allItems.contains(w) {
            help = "`\(w)` is not an item of a \(owner.noun); its items are: \(owner.itemWords.joined(separator: ", "))"
        } else if let s = Suggestions.closest(to: w, among: owner.itemWords) {
            help = "did you mean `\(s)`?"
        } else if owner == .credits {
            help = "a credit system holds `name`, `unit` and conversions like `api_calls 1 = 5`"
        } else {
            help = "items of a \(owner.noun) are: \(owner.itemWords.joined(separator: ", "))"
        }
        report(.unknownItem, "unknown item `\(w)` in \(owner.noun) `\(ownerName)`", at: token.range, help: help)
    }

    /// conversion = NAME , INTEGER , "=" , INTEGER ;
    private mutating func parseConversion() -> Item? {
        let start = token.range
        guard let feature = parseName("a feature name") else { return nil }
        guard let amount = parseInteger("an amount of `\(feature.name)`") else { return nil }
        guard token.kind == .equals else {
            reportExpected("`=` in the conversion (`\(feature.name) \(amount.value) = CREDITS`)")
            return nil
        }
        advance()
        guard let credits = parseInteger("the number of credits after `=`") else { return nil }
        return Item(.conversion(feature: feature, amount: amount, credits: credits),
                    range: start.through(credits.range))
    }
}
