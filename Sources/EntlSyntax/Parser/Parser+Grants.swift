import EntlSupport

/// Grants and their clauses: the `grants` item of products and entitlements, and the pieces a
/// test's `grant` item shares with it (`per`, `overage [up to N]`).
extension Parser {
    /// The words that start a clause of a `grants` item.
    public static let grantClauseWords = ["per", "carry", "overage", "expires", "priority"]

    /// grant = "grants" , NAME , [ INTEGER | "unlimited" ] , { grant_clause } ;
    /// grant_clause = "per" , reset_interval | "carry" , [ "up" , "to" , INTEGER ]
    ///              | "overage" , [ "up" , "to" , INTEGER ] | "expires" , "after" , INTEGER , duration_unit
    ///              | "priority" , INTEGER ;   (any order, each once: E118)
    mutating func parseGrant(start: SourceRange) -> Grant? {
        guard let feature = parseName("a feature or credit system name after `grants`") else { return nil }
        var grant = Grant(feature: feature, amount: parseGrantAmount(), range: start.through(feature.range))
        while let w = word, Parser.grantClauseWords.contains(w) {
            let clauseStart = token.range
            let duplicate = switch w {
            case "per": grant.per != nil
            case "carry": grant.carry != nil
            case "overage": grant.overage != nil
            case "expires": grant.expiresAfter != nil
            default: grant.priority != nil
            }
            advance()
            switch w {
            case "per", "overage":
                guard parseSharedClause(w, from: clauseStart, per: &grant.per, overage: &grant.overage) else {
                    return nil
                }
            case "carry":
                guard let carry = parseCapped("carry", from: clauseStart) else { return nil }
                grant.carry = carry
            case "expires":
                guard let expiry = parseExpiry(from: clauseStart) else { return nil }
                grant.expiresAfter = expiry
            default:
                guard let p = parseInteger("a number after `priority`") else { return nil }
                grant.priority = p
            }
            if duplicate {
                report(.duplicateClause, "`\(w)` is given twice in this grant", at: clauseStart,
                       help: "keep one `\(w)` clause")
            }
        }
        // A misspelled clause on the grant's line would otherwise read as the next item.
        if onSameLine, let w = word, let meant = Suggestions.closest(to: w, among: Parser.grantClauseWords),
           !BlockOwner.product.itemWords.contains(w) {
            report(.unknownKeyword, "unknown clause `\(w)` in `grants`", at: token.range,
                   help: "did you mean `\(meant)`?")
            return nil
        }
        grant.range = rangeSoFar(from: start)
        return grant
    }

    /// The clauses a `grants` item and a test's `grant` share, `per INTERVAL` and
    /// `overage [up to N]`, after their word `w`; false when malformed (reported).
    mutating func parseSharedClause(_ w: String, from clauseStart: SourceRange, per: inout Located<ResetInterval>?,
                                    overage: inout Grant.Overage?) -> Bool {
        if w == "per" {
            guard let parsed = parsePer(from: clauseStart) else { return false }
            per = parsed
        } else {
            guard let parsed = parseCapped("overage", from: clauseStart) else { return false }
            overage = parsed
        }
        return true
    }

    /// `[ INTEGER | "unlimited" ]`: a grant's amount, when one follows.
    mutating func parseGrantAmount() -> Grant.Amount? {
        if case .integer(let v) = token.kind {
            let amount = Grant.Amount.count(IntegerLiteral(v, range: token.range))
            advance()
            return amount
        }
        guard isWord("unlimited") else { return nil }
        let amount = Grant.Amount.unlimited(Located("unlimited", range: token.range))
        advance()
        return amount
    }

    /// `"per" , reset_interval`, after `per` (at `clauseStart`); the range spans the clause.
    mutating func parsePer(from clauseStart: SourceRange) -> Located<ResetInterval>? {
        guard let interval = parseKeywordValue(ResetInterval.self, after: "per") else { return nil }
        return Located(interval.value, range: clauseStart.through(interval.range))
    }

    /// `[ "up" , "to" , INTEGER ]` after `carry` or `overage` (`word`, at `clauseStart`).
    mutating func parseCapped(_ word: String, from clauseStart: SourceRange) -> Grant.Capped? {
        var capped = Grant.Capped(cap: nil, range: clauseStart)
        guard isWord("up") else { return capped }
        advance()
        guard isWord("to") else {
            reportExpected("`to` after `\(word) up`")
            return nil
        }
        advance()
        guard let cap = parseInteger("the \(word) cap after `\(word) up to`") else { return nil }
        capped.cap = cap
        capped.range = clauseStart.through(cap.range)
        return capped
    }

    /// `"after" , INTEGER , duration_unit`, after `expires` (at `clauseStart`).
    mutating func parseExpiry(from clauseStart: SourceRange) -> Grant.Expiry? {
        guard isWord("after") else {
            reportExpected("`after` after `expires` (`expires after 12 months`)")
            return nil
        }
        advance()
        guard let n = parseInteger("a number after `expires after` (`expires after 12 months`)"),
              let unit = parseKeywordValue(DurationUnit.self, after: "expires after \(n.value)") else { return nil }
        return Grant.Expiry(count: n, unit: unit, range: clauseStart.through(unit.range))
    }
}
