extension Parser {
    /// A whole constraint. Returns `.error` (already reported) when it does not parse; the caller
    /// then recovers at the next declaration.
    mutating func parseConstraint() -> Expression {
        expressionFailed = false
        depth = 0
        let e = parseOr()
        return expressionFailed ? .error(Located("", range: e.range)) : e
    }

    /// expr = and_expr , { "or" , and_expr } ;
    private mutating func parseOr() -> Expression {
        parseChain(.or, Expression.or) { $0.parseAnd() }
    }

    /// and_expr = unary , { "and" , unary } ;
    private mutating func parseAnd() -> Expression {
        parseChain(.and, Expression.and) { $0.parseUnary() }
    }

    /// Operands joined by one operator, flattened into one node (`a or b or c` is one `.or`).
    private mutating func parseChain(_ op: Keyword, _ node: ([Expression]) -> Expression,
                                     operand: (inout Parser) -> Expression) -> Expression {
        var terms = [operand(&self)]
        while !expressionFailed, token.kind == .keyword(op) {
            advance()
            terms.append(operand(&self))
        }
        return terms.count == 1 ? terms[0] : node(terms)
    }

    /// unary = "not" , unary | primary ;
    private mutating func parseUnary() -> Expression {
        guard token.kind == .keyword(.not) else { return parsePrimary() }
        let keyword = Located(Keyword.not, range: token.range)
        guard enterNesting() else { return failed() }
        advance()
        let operand = parseUnary()
        depth -= 1
        return .not(operand, keyword)
    }

    /// primary = "everyone" | NAME , [ purchased | ">=" , INTEGER ] | "(" , expr , ")" ;
    /// purchased = "purchased" , ( "before" | "since" ) , INSTANT ;
    private mutating func parsePrimary() -> Expression {
        switch token.kind {
        case .keyword(.everyone):
            let w = Located(Keyword.everyone, range: token.range)
            advance()
            return .everyone(w)
        case .identifier(let name):
            let id = Identifier(name, range: token.range)
            advance()
            if isWord("purchased") { return parsePurchaseDate(id) }
            guard token.kind == .greaterEqual else { return .reference(id) }
            advance()
            guard let n = parseInteger("a quantity after `>=` (`\(name) >= 5`)") else { return failed() }
            if isWord("purchased") {
                report(.dateOnQuantity, "`purchased before` and `purchased since` qualify a product, not a quantity",
                       at: token.range, label: "`\(name) >= \(n.value)` counts units, whenever bought",
                       help: "qualify the product and keep the quantity apart: `(\(name) purchased before \"…\") "
                             + "and \(name) >= \(n.value)`")
                return failed()
            }
            return .atLeast(id, n)
        case .leftParen:
            let open = token.range
            guard enterNesting() else { return failed() }
            advance()
            let inner = parseOr()
            depth -= 1
            if expressionFailed { return inner }
            guard token.kind == .rightParen else {
                if token.kind != .invalid {
                    report(.expectedToken, "expected `)` to close the parenthesis, found \(token.description)",
                           at: token.range, notes: [DiagnosticNote(message: "opened here", file: path, range: open)])
                }
                return failed()
            }
            advance()
            return inner
        case .keyword(let k) where !k.startsDeclaration:
            reportExpected("a product or entitlement name",
                           help: "`\(k.rawValue)` joins two terms, as in `a \(k == .not ? "and not" : k.rawValue) b`")
            return failed()
        default:
            reportExpected("a product or entitlement name")
            return failed()
        }
    }

    /// `purchased before "T"` / `purchased since "T"` after `product`.
    private mutating func parsePurchaseDate(_ product: Identifier) -> Expression {
        let start = token.range
        advance()
        guard let w = word, let relation = PurchaseDate.Relation(rawValue: w) else {
            reportExpected("`before` or `since` after `purchased` (`\(product.name) purchased before "
                           + "\"2026-06-01T00:00:00Z\"`)")
            return failed()
        }
        let relationWord = Located(relation, range: token.range)
        advance()
        guard let instant = parseString("an instant string after `purchased \(w)`") else { return failed() }
        return .purchased(product, PurchaseDate(relation: relationWord, instant: instant,
                                                range: start.through(instant.range)))
    }

    /// Counts one level of `(` or `not`; false (after reporting E114) past the limit.
    private mutating func enterNesting() -> Bool {
        depth += 1
        if depth > Parser.maxNestingDepth {
            report(.nestingTooDeep, "constraint nesting too deep (more than \(Parser.maxNestingDepth) levels)",
                   at: token.range, help: "split the constraint into entitlements that refer to each other")
            return false
        }
        return true
    }

    private mutating func failed() -> Expression {
        expressionFailed = true
        return .error(Located("", range: token.range))
    }
}
