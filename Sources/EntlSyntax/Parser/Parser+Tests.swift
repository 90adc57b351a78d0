import EntlSupport

extension Parser {
    public static let testItemWords = ["at", "env", "state", "given", "used", "level", "customer", "override", "grant",
                                       "expect"]

    /// test_decl = "test" , STRING , "{" , { test_item | ";" } , "}" ;
    mutating func parseTest(docs: [String]) -> TestDeclaration? {
        let start = token.range
        advance()
        guard let description = parseString("a test description string after `test`") else {
            skipToDeclaration()
            return nil
        }
        guard token.kind == .leftBrace else {
            reportExpected("`{` to open the test block")
            skipToDeclaration()
            return nil
        }
        var items: [TestItem] = []
        parseBraces(closing: "test \(Token.quoted(description.value))", endsAt: Parser.startsDeclaration) { p in
            let line = p.token.range.start.line
            if let item = p.parseTestItem() {
                p.reportAmbiguousInstant(item, after: items.last)
                items.append(item)
                if p.onSameLine, ![.rightBrace, .semicolon, .endOfFile].contains(p.token.kind) {
                    p.reportExpected("the end of the line after this test item")
                    p.skipRestOfLine(line)
                }
            } else {
                p.skipRestOfLine(line)
            }
        }
        return TestDeclaration(docs: docs, description: description, items: items,
                               range: rangeSoFar(from: start))
    }

    /// Test items end at the end of their line, so an `at` on the line after `used calls 30`
    /// sets the test's instant, though it reads like the time of the use: an error, never a
    /// silent second meaning (a test block must not check clean and mean something else).
    private mutating func reportAmbiguousInstant(_ item: TestItem, after previous: TestItem?) {
        guard case .at = item.kind, let previous else { return }
        let word: String
        switch previous.kind {
        case .used(_, _, nil, _): word = "used"
        case .level(_, _, nil): word = "level"
        default: return
        }
        // After a `;` the `at` may be on the same line: an item of its own all the same.
        let placed = item.range.start.line == previous.range.end.line ? "after `;`" : "on its own line"
        let before = item.range.start.line == previous.range.end.line ? "before it" : "above it"
        report(.ambiguousTestInstant,
               "`at` \(placed) sets the test's instant, not the time of the `\(word)` \(before)",
               at: item.range, label: "the test's instant",
               help: "to date the \(word == "used" ? "use" : "level"), write `at` on the `\(word)` line; "
                   + "to set the test's instant, put `at` before the `\(word)` items",
               notes: [DiagnosticNote(message: "this `\(word)` has no instant of its own", file: path,
                                      range: previous.range)])
    }

    /// test_item = "at" INSTANT | "env" … | "state" STRING | "given" … | "used" … | "level" …
    ///           | "customer" "since" INSTANT | "override" … | "grant" … | "expect" … ;
    private mutating func parseTestItem() -> TestItem? {
        let start = token.range
        guard let w = word, Parser.testItemWords.contains(w) else {
            if let w = word {
                report(.unknownItem, "unknown test item `\(w)`", at: token.range,
                       help: Suggestions.help(Suggestions.closest(to: w, among: Parser.testItemWords),
                                              expected: Parser.testItemWords))
                advance()
            } else {
                reportExpected("a test item (\(Parser.testItemWords.joined(separator: ", "))) or `}`")
                advance()
            }
            return nil
        }
        advance()
        let kind: TestItem.Kind?
        switch w {
        case "at":
            kind = parseString("an instant string after `at`").map(TestItem.Kind.at)
        case "env":
            if token.kind == .keyword(.test) {
                kind = .env(Located(.test, range: token.range))
                advance()
            } else {
                kind = parseKeywordValue(EnvironmentName.self, after: "env").map(TestItem.Kind.env)
            }
        case "state":
            kind = parseString("a state file path string after `state`").map(TestItem.Kind.state)
        case "given":
            kind = parseGiven().map(TestItem.Kind.given)
        case "used", "level":
            // "used" , NAME , INTEGER , { "at" , INSTANT | "id" , STRING } ;   (each once)
            // "level" , NAME , INTEGER , [ "at" , INSTANT ] ;
            guard let feature = parseName("a feature name after `\(w)`"),
                  let amount = parseInteger("an amount after `\(w) \(feature.name)`") else { return nil }
            var at: StringLiteral?, id: StringLiteral?
            while onSameLine, let clause = word, clause == "at" || (clause == "id" && w == "used") {
                let clauseRange = token.range
                advance()
                guard let value = parseString(clause == "at" ? "an instant string after `at`" : "an id string after "
                                                                                                + "`id`")
                else { return nil }
                if (clause == "at" ? at : id) != nil { reportTwice(clause, at: clauseRange) }
                if clause == "at" { at = value } else { id = value }
            }
            kind = w == "used" ? .used(feature: feature, amount: amount, at: at, id: id)
                : .level(feature: feature, amount: amount, at: at)
        case "customer":
            // "customer" , "since" , INSTANT ;
            guard isWord("since") else {
                reportExpected("`since` after `customer` (`customer since \"2026-01-01T00:00:00Z\"`)")
                return nil
            }
            advance()
            kind = parseString("an instant string after `customer since`").map(TestItem.Kind.customerSince)
        case "override":
            guard let product = parseName("a product name after `override`"),
                  let value = parseKeywordValue(OverrideWord.self,
                                                after: "override \(product.name)") else { return nil }
            kind = .override(product: product, value: value)
        case "grant":
            kind = parseTestGrant().map(TestItem.Kind.grant)
        default:
            kind = parseExpect().map(TestItem.Kind.expect)
        }
        guard let kind else { return nil }
        return TestItem(kind, range: rangeSoFar(from: start))
    }

    static let givenClauseWords = ["since", "until", "grace_until", "quantity", "family_shared"]

    /// "given" , NAME , { status | given_clause } ;   (each at most once)
    private mutating func parseGiven() -> Given? {
        guard let product = parseName("a product name after `given`") else { return nil }
        var given = Given(product: product)
        while onSameLine, let w = word {
            let clause = token.range
            if let status = PurchaseStatusWord(word: w) {
                if given.status != nil { reportTwice(w, at: clause) }
                given.status = Located(status, range: clause)
                advance()
                continue
            }
            guard Parser.givenClauseWords.contains(w) else {
                let expected = Parser.givenClauseWords + PurchaseStatusWord.spellings
                report(.unknownKeyword, "unknown clause `\(w)` in `given`", at: clause,
                       help: Suggestions.help(Suggestions.closest(to: w, among: expected), expected: expected))
                return nil
            }
            advance()
            switch w {
            case "since", "until", "grace_until":
                guard let instant = parseString("an instant string after `\(w)`") else { return nil }
                let existing = w == "since" ? given.since : w == "until" ? given.until : given.graceUntil
                if existing != nil { reportTwice(w, at: clause) }
                switch w {
                case "since": given.since = instant
                case "until": given.until = instant
                default: given.graceUntil = instant
                }
            case "quantity":
                guard let n = parseInteger("a number after `quantity`") else { return nil }
                if given.quantity != nil { reportTwice(w, at: clause) }
                given.quantity = n
            default:
                if given.familyShared != nil { reportTwice(w, at: clause) }
                given.familyShared = Located(w, range: clause)
            }
        }
        return given
    }

    static let testGrantClauseWords = ["per", "overage", "from", "until"]

    /// "grant" , NAME , [ INTEGER | "unlimited" ] , { test_grant_clause } ;   (each once)
    /// test_grant_clause = "per" , reset_interval | "overage" , [ "up" , "to" , INTEGER ]
    ///                   | "from" , INSTANT | "until" , INSTANT ;
    private mutating func parseTestGrant() -> TestGrant? {
        guard let name = parseName("an entitlement, feature or credit system name after `grant`") else { return nil }
        var grant = TestGrant(name: name)
        if onSameLine { grant.amount = parseGrantAmount() }
        while onSameLine, let w = word {
            let clause = token.range
            guard Parser.testGrantClauseWords.contains(w) else {
                let expected = Parser.testGrantClauseWords
                report(.unknownKeyword, "unknown clause `\(w)` in `grant`", at: clause,
                       help: Suggestions.help(Suggestions.closest(to: w, among: expected), expected: expected))
                return nil
            }
            let given = switch w {
            case "per": grant.per != nil
            case "overage": grant.overage != nil
            case "from": grant.from != nil
            default: grant.until != nil
            }
            if given { reportTwice(w, at: clause) }
            advance()
            switch w {
            case "per", "overage":
                guard parseSharedClause(w, from: clause, per: &grant.per, overage: &grant.overage) else { return nil }
            default:
                guard let instant = parseString("an instant string after `\(w)`") else { return nil }
                if w == "from" { grant.from = instant } else { grant.until = instant }
            }
        }
        return grant
    }

    /// "expect" , NAME , [ INTEGER ] , decision , [ "balance" , ( INTEGER | "unlimited" ) ] ,
    /// [ "via" , ( "direct" | "credits" , [ NAME ] | "overage" ) ] ;   (balance and via in any order, once each)
    private mutating func parseExpect() -> Expectation? {
        guard let name = parseName("a product, entitlement, feature or credit system name after `expect`") else {
            return nil
        }
        var amount: IntegerLiteral?
        if case .integer(let v) = token.kind {
            amount = IntegerLiteral(v, range: token.range)
            advance()
        }
        guard let decision = parseKeywordValue(DecisionWord.self, after: "expect \(name.name)") else { return nil }
        var expectation = Expectation(name: name, amount: amount, decision: decision, balance: nil, via: nil)
        while onSameLine, let w = word {
            let clause = token.range
            switch w {
            case "balance":
                advance()
                if expectation.balance != nil { reportTwice(w, at: clause) }
                if isWord("unlimited") {
                    expectation.balance = .unlimited(Located("unlimited", range: token.range))
                    advance()
                } else {
                    guard let n = parseInteger("a number or `unlimited` after `balance`") else { return nil }
                    expectation.balance = .amount(n)
                }
            case "via":
                advance()
                if expectation.via != nil { reportTwice(w, at: clause) }
                if isWord("direct") {
                    expectation.via = .direct(Located("direct", range: clause.through(token.range)))
                    advance()
                } else if token.kind == .keyword(.credits) {
                    let credits = Located("credits", range: clause.through(token.range))
                    advance()
                    var system: Identifier?
                    if onSameLine, case .identifier(let s) = token.kind {
                        system = Identifier(s, range: token.range)
                        advance()
                    }
                    expectation.via = .credits(credits, system: system)
                } else if isWord("overage") {
                    expectation.via = .overage(Located("overage", range: clause.through(token.range)))
                    advance()
                } else {
                    reportExpected("`direct`, `credits` or `overage` after `via`")
                    return nil
                }
            default:
                report(.unknownKeyword, "unknown clause `\(w)` in `expect`", at: clause,
                       help: Suggestions.help(Suggestions.closest(to: w, among: ["balance", "via"]),
                                              expected: ["balance", "via"]))
                return nil
            }
        }
        return expectation
    }

    private mutating func reportTwice(_ clause: String, at range: SourceRange) {
        report(.duplicateClause, "`\(clause)` is given twice in this item", at: range, help: "keep one `\(clause)`")
    }
}
