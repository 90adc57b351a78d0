/// The pieces of items, grants, test items and constraints: each written word anchored at the
/// source token it stands for (`Printer`).
extension Printer {
    // MARK: - Items

    mutating func items(_ list: [Item], closing: Int) {
        for (i, item) in list.enumerated() {
            let limit = i + 1 < list.count ? list[i + 1].range.start.offset : closing
            line(self.item(item), start: item.range.start, end: item.range.end, limit: limit)
        }
    }

    func item(_ item: Item) -> [Piece] {
        let keyword = Piece(text: item.keyword, offset: item.range.start.offset)
        switch item.kind {
        case .displayName(let s): return [keyword, piece(s.range)]
        case .storeID(let store, let id): return [keyword, piece(store.range), piece(id.range)]
        case .period(let p): return [keyword, piece(p.range)]
        case .group(let g): return [keyword, piece(g.range)]
        case .duration(let n, let unit): return [keyword, piece(n.range), piece(unit.range)]
        case .usage(let u): return [keyword, piece(u.range)]
        case .event(let e): return [keyword, piece(e.range)]
        case .unit(let singular, let plural):
            guard let plural else { return [keyword, piece(singular.range)] }
            return [keyword, piece(singular.range),
                    Piece(text: "/",
                          offset: find(.slash, from: singular.range.end.offset, before: plural.range.start.offset)),
                    piece(plural.range)]
        case .conversion(let f, let amount, let credits):
            return [piece(f.range), piece(amount.range),
                    Piece(text: "=",
                          offset: find(.equals, from: amount.range.end.offset, before: credits.range.start.offset)),
                    piece(credits.range)]
        case .grant(let g): return grant(g)
        }
    }

    func grant(_ g: Grant) -> [Piece] {
        var p = [Piece(text: "grants", offset: g.range.start.offset), piece(g.feature.range)]
        p += amount(g.amount)
        if let per = g.per { p += self.per(per) }
        if let carry = g.carry { p += capped("carry", carry) }
        if let overage = g.overage { p += capped("overage", overage) }
        if let expiry = g.expiresAfter {
            let start = expiry.range.start.offset
            p += [Piece(text: "expires", offset: start),
                  Piece(text: "after", offset: word("after", from: start, before: expiry.count.range.start.offset)),
                  piece(expiry.count.range), piece(expiry.unit.range)]
        }
        if let priority = g.priority {
            p.append(Piece(text: "priority", offset: word("priority", from: g.feature.range.end.offset,
                                                          before: priority.range.start.offset)))
            p.append(piece(priority.range))
        }
        return p
    }

    /// A grant's amount, as written.
    private func amount(_ amount: Grant.Amount?) -> [Piece] {
        switch amount {
        case .count(let n)?: [piece(n.range)]
        case .unlimited(let w)?: [piece(w.range)]
        case nil: []
        }
    }

    /// `per INTERVAL` (the clause's range spans both words).
    private func per(_ per: Located<ResetInterval>) -> [Piece] {
        let interval = per.value.rawValue
        return [Piece(text: "per", offset: per.range.start.offset),
                Piece(text: interval, offset: per.range.end.offset - interval.utf8.count)]
    }

    /// `carry [up to N]`, `overage [up to N]`.
    private func capped(_ keyword: String, _ clause: Grant.Capped) -> [Piece] {
        var p = [Piece(text: keyword, offset: clause.range.start.offset)]
        if let cap = clause.cap {
            let up = word("up", from: clause.range.start.offset, before: cap.range.start.offset)
            p.append(Piece(text: "up", offset: up))
            p.append(Piece(text: "to", offset: word("to", from: up, before: cap.range.start.offset)))
            p.append(piece(cap.range))
        }
        return p
    }

    mutating func testItems(_ list: [TestItem], closing: Int) {
        for (i, item) in list.enumerated() {
            let limit = i + 1 < list.count ? list[i + 1].range.start.offset : closing
            line(testItem(item), start: item.range.start, end: item.range.end, limit: limit)
        }
    }

    func testItem(_ item: TestItem) -> [Piece] {
        let start = item.range.start.offset
        /// A clause keyword (once per item, so the first after `from`) and its value.
        func clause(_ keyword: String, _ value: SourceRange, after from: SourceRange) -> [Piece] {
            [Piece(text: keyword, offset: word(keyword, from: from.end.offset, before: value.start.offset)),
             piece(value)]
        }
        func keyword(_ w: String) -> Piece { Piece(text: w, offset: start) }
        switch item.kind {
        case .at(let s): return [keyword("at"), piece(s.range)]
        case .env(let e): return [keyword("env"), piece(e.range)]
        case .state(let s): return [keyword("state"), piece(s.range)]
        case .given(let g):
            var p = [keyword("given"), piece(g.product.range)]
            if let status = g.status { p.append(piece(status.range)) }
            if let v = g.since { p += clause("since", v.range, after: g.product.range) }
            if let v = g.until { p += clause("until", v.range, after: g.product.range) }
            if let v = g.graceUntil { p += clause("grace_until", v.range, after: g.product.range) }
            if let q = g.quantity { p += clause("quantity", q.range, after: g.product.range) }
            if let f = g.familyShared { p.append(piece(f.range)) }
            return p
        case .used(let f, let n, let at, let id):
            return [keyword("used"), piece(f.range), piece(n.range)]
                + (at.map { clause("at", $0.range, after: n.range) } ?? [])
                + (id.map { clause("id", $0.range, after: n.range) } ?? [])
        case .level(let f, let n, let at):
            return [keyword("level"), piece(f.range), piece(n.range)]
                + (at.map { clause("at", $0.range, after: n.range) } ?? [])
        case .customerSince(let s):
            return [keyword("customer"),
                    Piece(text: "since", offset: word("since", from: start, before: s.range.start.offset)),
                    piece(s.range)]
        case .override(let p, let v): return [keyword("override"), piece(p.range), piece(v.range)]
        case .grant(let g):
            var p = [keyword("grant"), piece(g.name.range)] + amount(g.amount)
            if let per = g.per { p += self.per(per) }
            if let overage = g.overage { p += capped("overage", overage) }
            if let v = g.from { p += clause("from", v.range, after: g.name.range) }
            if let v = g.until { p += clause("until", v.range, after: g.name.range) }
            return p
        case .expect(let e):
            var p = [keyword("expect"), piece(e.name.range)]
            if let n = e.amount { p.append(piece(n.range)) }
            p.append(piece(e.decision.range))
            switch e.balance {
            case .amount(let n)?: p += clause("balance", n.range, after: e.decision.range)
            case .unlimited(let w)?: p += clause("balance", w.range, after: e.decision.range)
            case nil: break
            }
            switch e.via {
            case .direct(let w)?:
                p += [Piece(text: "via", offset: w.range.start.offset),
                      Piece(text: "direct", offset: word("direct", from: w.range.start.offset))]
            case .credits(let w, let system)?:
                p += [Piece(text: "via", offset: w.range.start.offset),
                      Piece(text: "credits", offset: find(.keyword(.credits), from: w.range.start.offset))]
                if let system { p.append(piece(system.range)) }
            case .overage(let w)?:
                p += [Piece(text: "via", offset: w.range.start.offset),
                      Piece(text: "overage", offset: word("overage", from: w.range.start.offset))]
            case nil: break
            }
            return p
        }
    }

    // MARK: - Constraints

    /// One line unless a comment breaks it; parentheses where precedence needs them and around a
    /// nested `and` in `and` or `or` in `or` (only parentheses in the source make those), so
    /// parsing gives the same tree. Every operator and parenthesis is anchored at its token.
    /// `after`: where the token before the constraint ends (`=`, `requires`), so that the
    /// parentheses it may open with are found.
    func expression(_ e: Expression, after: Int) -> [Piece] {
        var out: [Piece] = []
        var cursor = after
        expression(e, into: &out, cursor: &cursor)
        return out
    }

    func expression(_ e: Expression, into out: inout [Piece], cursor: inout Int) {
        switch e {
        case .reference(let id):
            out.append(piece(id.range))
        case .everyone(let w):
            out.append(Piece(text: "everyone", offset: w.range.start.offset))
        case .purchased(let id, let date):
            out.append(piece(id.range))
            out.append(Piece(text: "purchased", offset: date.range.start.offset))
            out.append(Piece(text: date.relation.value.rawValue, offset: date.relation.range.start.offset))
            out.append(piece(date.instant.range))
        case .atLeast(let id, let n):
            out.append(piece(id.range))
            out.append(Piece(text: ">=",
                             offset: find(.greaterEqual, from: id.range.end.offset, before: n.range.start.offset)))
            out.append(piece(n.range))
        case .not(let inner, let keyword):
            out.append(Piece(text: "not", offset: keyword.range.start.offset))
            cursor = keyword.range.end.offset
            switch inner {
            case .and, .or: parenthesized(inner, into: &out, cursor: &cursor)
            default: expression(inner, into: &out, cursor: &cursor)
            }
        case .and(let terms), .or(let terms):
            let isAnd: Bool = if case .and = e { true } else { false }
            for (i, t) in terms.enumerated() {
                if i > 0 {
                    let op = find(.keyword(isAnd ? .and : .or), from: cursor, before: t.range.start.offset)
                    out.append(Piece(text: isAnd ? "and" : "or", offset: op))
                    cursor = op
                }
                // `or` inside `and` for precedence; `and` in `and` and `or` in `or` to keep the tree.
                let needsParentheses = switch t {
                case .and: isAnd
                case .or: true
                default: false
                }
                if needsParentheses {
                    parenthesized(t, into: &out, cursor: &cursor)
                } else {
                    expression(t, into: &out, cursor: &cursor)
                }
            }
        case .error(let e):
            out.append(Piece(text: e.value, offset: e.range.start.offset))
        }
        cursor = max(cursor, e.range.end.offset)
    }

    func parenthesized(_ e: Expression, into out: inout [Piece], cursor: inout Int) {
        out.append(Piece(text: "(", offset: find(.leftParen, from: cursor, before: e.range.start.offset)))
        let first = out.count
        expression(e, into: &out, cursor: &cursor)
        if first < out.count { out[first].glued = true }
        let close = find(.rightParen, from: e.range.end.offset)
        out.append(Piece(text: ")", offset: close, glued: true))
        cursor = close + 1
    }
}
