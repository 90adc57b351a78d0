/// The one canonical layout of a rule file (`entlc fmt`): 2-space indent, one item per line,
/// one blank line between declarations, `;` dropped, single spaces, constraints on one line with
/// the parentheses precedence needs (and those that group like operators, so the tree is kept).
///
/// Comments are kept where they were: a comment on its own line stays on its own line before the
/// next element (with at most one blank line before it, as in the source); a comment on an
/// element's line — or inside a multi-line element — ends that element's line. Literals are
/// printed as written (`10_000`, escapes), so nothing the user typed is lost. Idempotent:
/// formatting formatted text changes nothing.
public struct Printer {
    private let source: SourceFile
    private let comments: [Comment]
    private var next = 0  // the first comment not yet printed
    private var out = ""
    private var indent = 0
    /// The source line of the last printed element or comment (for blank-line preservation).
    private var lastLine = 0
    /// True right after `{` or at the start of the file: no blank line may follow.
    private var atBlockStart = true
    private var blankRequested = false

    /// The formatted text, or nil when the file does not parse (it must then be left alone).
    public static func format(_ source: SourceFile) -> String? {
        let parsed = Parser.parse(source)
        guard !parsed.diagnostics.hasErrors else { return nil }
        var printer = Printer(source: source, comments: parsed.comments)
        return printer.print(parsed.file)
    }

    private init(source: SourceFile, comments: [Comment]) {
        self.source = source
        self.comments = comments
    }

    private mutating func print(_ file: RuleFile) -> String {
        if source.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { out = "\u{FEFF}" }
        declarations(file.declarations)
        flushOwnLine(before: Int.max)
        return out
    }

    // MARK: - Lines and comments

    private func text(_ range: SourceRange) -> String {
        String(decoding: source.bytes[range.start.offset..<range.end.offset], as: UTF8.self)
    }

    private var atLineStart: Bool { out.isEmpty || out.hasSuffix("\n") || out == "\u{FEFF}" }

    private mutating func newlineIfNeeded() {
        if !atLineStart { out += "\n" }
    }

    private mutating func requestBlankLine() {
        if !atBlockStart { blankRequested = true }
    }

    /// Starts a new output line for something that begins on source line `line`.
    private mutating func startLine(sourceLine line: Int) {
        newlineIfNeeded()
        if !atBlockStart, blankRequested || (lastLine > 0 && line > lastLine + 1) { out += "\n" }
        blankRequested = false
        atBlockStart = false
        out += String(repeating: "  ", count: indent)
    }

    /// Prints the comments that start before `offset` on lines of their own.
    private mutating func flushOwnLine(before offset: Int) {
        while next < comments.count, comments[next].range.start.offset < offset {
            let c = comments[next]
            startLine(sourceLine: c.range.start.line)
            out += c.text + "\n"
            lastLine = c.range.end.line
            next += 1
        }
    }

    /// One output line for an element spanning `[start, end)` of the source: leading comments,
    /// the text, then the comments inside it and those after it on its last line (before `limit`).
    private mutating func line(_ content: String, start: SourceLocation, end: SourceLocation, limit: Int) {
        flushOwnLine(before: start.offset)
        startLine(sourceLine: start.line)
        out += content
        var trailing: [Comment] = []
        while next < comments.count {
            let c = comments[next]
            let inside = c.range.start.offset < end.offset
            let after = c.range.start.line == end.line && c.range.start.offset < limit
            guard inside || after else { break }
            trailing.append(c)
            next += 1
        }
        // Block comments first: a line comment must end the line.
        for c in trailing.filter({ $0.kind == .block }) + trailing.filter({ $0.kind != .block }) { out += " " + c.text }
        out += "\n"
        lastLine = max(end.line, trailing.last?.range.end.line ?? 0)
    }

    /// `HEADER {`, the items (or declarations), and `}` — or just the header when the block is
    /// empty and holds no comment.
    private mutating func block(header: String, start: SourceLocation, headerEnd: SourceLocation, end: SourceLocation,
                                hasBlock: Bool, firstInner: Int?, braces: Bool = false, body: (inout Printer) -> Void) {
        let close = hasBlock ? end.offset - 1 : end.offset
        let hasComments = hasBlock && comments[next...].contains { $0.range.start.offset < close && $0.range.start.offset >= headerEnd.offset }
        guard firstInner != nil || hasComments else {
            // An empty block disappears, except where the grammar requires one.
            line(header + (braces ? " {}" : ""), start: start, end: headerEnd, limit: hasBlock ? close : Int.max)
            if hasBlock { skipComments(before: end.offset) }
            return
        }
        line(header + " {", start: start, end: headerEnd, limit: firstInner ?? close)
        indent += 1
        atBlockStart = true
        body(&self)
        flushOwnLine(before: close)
        indent -= 1
        let closeLocation = source.location(ofOffset: close)
        atBlockStart = false
        blankRequested = false
        newlineIfNeeded()
        out += String(repeating: "  ", count: indent) + "}"
        var trailing: [Comment] = []
        while next < comments.count, comments[next].range.start.line == closeLocation.line {
            trailing.append(comments[next])
            next += 1
        }
        for c in trailing { out += " " + c.text }
        out += "\n"
        lastLine = max(closeLocation.line, trailing.last?.range.end.line ?? 0)
    }

    /// Comments in an empty block with nothing to hold them cannot exist (checked by the caller);
    /// this only moves the cursor past the block.
    private mutating func skipComments(before offset: Int) {
        while next < comments.count, comments[next].range.start.offset < offset { next += 1 }
    }

    // MARK: - Declarations

    private mutating func declarations(_ list: [Declaration]) {
        for d in list {
            requestBlankLine()
            declaration(d)
        }
    }

    private mutating func declaration(_ d: Declaration) {
        switch d {
        case .app(let a):
            line("app " + text(a.id.range), start: a.range.start, end: a.range.end, limit: Int.max)
        case .product(let p):
            let header = "product \(p.name.name): \(p.kind.map { text($0.range) } ?? "")"
            let headerEnd = p.kind?.range.end ?? p.name.range.end
            block(header: header, start: p.range.start, headerEnd: headerEnd, end: p.range.end, hasBlock: p.hasBlock,
                  firstInner: p.items.first?.range.start.offset) { $0.items(p.items, closing: p.range.end.offset - 1) }
        case .feature(let f):
            var header = "feature \(f.name.name): \(f.kind.map { text($0.range) } ?? "")"
            var headerEnd = f.kind?.range.end ?? f.name.range.end
            if let r = f.requires {
                header += " requires " + expression(r)
                headerEnd = r.range.end
            }
            block(header: header, start: f.range.start, headerEnd: headerEnd, end: f.range.end, hasBlock: f.hasBlock,
                  firstInner: f.items.first?.range.start.offset) { $0.items(f.items, closing: f.range.end.offset - 1) }
        case .credits(let c):
            block(header: "credits \(c.name.name)", start: c.range.start, headerEnd: c.name.range.end, end: c.range.end,
                  hasBlock: c.hasBlock, firstInner: c.items.first?.range.start.offset) {
                $0.items(c.items, closing: c.range.end.offset - 1)
            }
        case .entitlement(let e):
            block(header: "entitlement \(e.name.name) = " + expression(e.expression), start: e.range.start,
                  headerEnd: e.expression.range.end, end: e.range.end, hasBlock: e.hasBlock,
                  firstInner: e.items.first?.range.start.offset) { $0.items(e.items, closing: e.range.end.offset - 1) }
        case .environment(let env):
            block(header: "environment " + text(env.environment.range), start: env.range.start,
                  headerEnd: env.environment.range.end, end: env.range.end, hasBlock: true,
                  firstInner: env.declarations.first?.range.start.offset, braces: true) { $0.declarations(env.declarations) }
        case .test(let t):
            block(header: "test " + text(t.description.range), start: t.range.start, headerEnd: t.description.range.end,
                  end: t.range.end, hasBlock: true, firstInner: t.items.first?.range.start.offset, braces: true) {
                $0.testItems(t.items, closing: t.range.end.offset - 1)
            }
        }
    }

    // MARK: - Items

    private mutating func items(_ list: [Item], closing: Int) {
        for (i, item) in list.enumerated() {
            let limit = i + 1 < list.count ? list[i + 1].range.start.offset : closing
            line(self.item(item), start: item.range.start, end: item.range.end, limit: limit)
        }
    }

    private func item(_ item: Item) -> String {
        switch item.kind {
        case .displayName(let s): "name " + text(s.range)
        case .storeID(let store, let id): "id \(store.name) " + text(id.range)
        case .period(let p): "period " + text(p.range)
        case .group(let g): "group \(g.name)"
        case .duration(let n, let unit): "duration \(text(n.range)) \(text(unit.range))"
        case .usage(let u): "usage " + text(u.range)
        case .event(let e): "event " + text(e.range)
        case .unit(let singular, let plural): "unit " + text(singular.range) + (plural.map { " / " + text($0.range) } ?? "")
        case .conversion(let f, let amount, let credits): "\(f.name) \(text(amount.range)) = \(text(credits.range))"
        case .grant(let g): grant(g)
        }
    }

    private func grant(_ g: Grant) -> String {
        var s = "grants \(g.feature.name)"
        switch g.amount {
        case .count(let n)?: s += " " + text(n.range)
        case .unlimited?: s += " unlimited"
        case nil: break
        }
        if let per = g.per { s += " per \(per.value.rawValue)" }
        if let carry = g.carry { s += " carry" + (carry.cap.map { " up to " + text($0.range) } ?? "") }
        if let p = g.priority { s += " priority " + text(p.range) }
        return s
    }

    private mutating func testItems(_ list: [TestItem], closing: Int) {
        for (i, item) in list.enumerated() {
            let limit = i + 1 < list.count ? list[i + 1].range.start.offset : closing
            line(testItem(item), start: item.range.start, end: item.range.end, limit: limit)
        }
    }

    private func testItem(_ item: TestItem) -> String {
        switch item.kind {
        case .at(let s): return "at " + text(s.range)
        case .env(let e): return "env \(e.value.rawValue)"
        case .state(let s): return "state " + text(s.range)
        case .given(let g):
            var s = "given \(g.product.name)"
            if let status = g.status { s += " " + text(status.range) }
            if let v = g.since { s += " since " + text(v.range) }
            if let v = g.until { s += " until " + text(v.range) }
            if let v = g.graceUntil { s += " grace_until " + text(v.range) }
            if let q = g.quantity { s += " quantity " + text(q.range) }
            if g.familyShared != nil { s += " family_shared" }
            return s
        case .used(let f, let n, let at): return "used \(f.name) \(text(n.range))" + (at.map { " at " + text($0.range) } ?? "")
        case .level(let f, let n, let at): return "level \(f.name) \(text(n.range))" + (at.map { " at " + text($0.range) } ?? "")
        case .override(let p, let v): return "override \(p.name) \(text(v.range))"
        case .expect(let e):
            var s = "expect \(e.name.name)"
            if let n = e.amount { s += " " + text(n.range) }
            s += " " + text(e.decision.range)
            switch e.balance {
            case .amount(let n)?: s += " balance " + text(n.range)
            case .unlimited?: s += " balance unlimited"
            case nil: break
            }
            switch e.via {
            case .direct?: s += " via direct"
            case .credits(_, let system)?: s += " via credits" + (system.map { " \($0.name)" } ?? "")
            case nil: break
            }
            return s
        }
    }

    // MARK: - Constraints

    /// One line; parentheses where precedence needs them and around a nested `and` in `and` or
    /// `or` in `or` (only parentheses in the source make those), so parsing gives the same tree.
    private func expression(_ e: Expression) -> String {
        switch e {
        case .reference(let id): return id.name
        case .atLeast(let id, let n): return "\(id.name) >= \(text(n.range))"
        case .not(let inner, _):
            switch inner {
            case .and, .or: return "not (\(expression(inner)))"
            default: return "not " + expression(inner)
            }
        case .and(let terms):
            return terms.map { t in
                switch t {
                case .and, .or: "(\(expression(t)))"
                default: expression(t)
                }
            }.joined(separator: " and ")
        case .or(let terms):
            return terms.map { t in
                if case .or = t { return "(\(expression(t)))" }
                return expression(t)
            }.joined(separator: " or ")
        case .error(let e):
            return e.value
        }
    }
}
