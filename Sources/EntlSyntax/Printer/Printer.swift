/// The one canonical layout of a rule file (`entlc fmt`): 2-space indent, one item per line,
/// one blank line between declarations, `;` dropped, single spaces, constraints on one line with
/// the parentheses precedence needs (and those that group like operators, so the tree is kept).
///
/// Comments keep their order and their attachment. A comment on its own line stays on its own
/// line (with at most one blank line before it, as in the source); a comment after code on its
/// line stays after code. An element (a declaration header, an item) is printed as *pieces*, each
/// anchored at the source offset of the token it prints, and a comment inside the element is
/// printed between the pieces it stood between: `p // one` + newline + `or /* two */ q` keeps
/// `// one` after `p` and `/* two */` after `or`. A line comment ends its output line; the element
/// goes on, on a continuation line indented two levels deeper. Literals are printed as written
/// (`10_000`, escapes), so nothing the user typed is lost. Idempotent: formatting formatted text
/// changes nothing.
public struct Printer {
    private let source: SourceFile
    private let comments: [Comment]
    /// Every token of the file (offset and kind), to anchor pieces that the AST has no range for
    /// (`or`, `=`, `(`, clause keywords).
    private let tokens: [(offset: Int, kind: TokenKind)]
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
        var lexer = Lexer(file: source.path, bytes: source.bytes)
        var tokens: [(Int, TokenKind)] = []
        while true {
            let t = lexer.next()
            if t.kind == .endOfFile { break }
            tokens.append((t.range.start.offset, t.kind))
        }
        self.tokens = tokens
    }

    private mutating func print(_ file: RuleFile) -> String {
        if source.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { out = "\u{FEFF}" }
        declarations(file.declarations, limit: Int.max)
        flushOwnLine(before: Int.max)
        return out
    }

    // MARK: - Pieces

    /// One printed token (or a few that never hold a comment between them), anchored at the
    /// source offset where it starts.
    struct Piece {
        var text: String
        var offset: Int
        /// No space before it (after `(`, before `)`).
        var glued = false
    }

    /// The offset of the first token of `kind` in `offset..<bound` (the anchors the AST has no
    /// range for). Falls back to `offset`, which only moves where a comment lands, never loses it.
    func find(_ kind: TokenKind, from offset: Int, before bound: Int = Int.max) -> Int {
        var lo = 0, hi = tokens.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if tokens[mid].offset < offset { lo = mid + 1 } else { hi = mid }
        }
        for i in lo..<tokens.count {
            if tokens[i].offset >= bound { break }
            if tokens[i].kind == kind { return tokens[i].offset }
        }
        return offset
    }

    func word(_ w: String, from offset: Int, before bound: Int = Int.max) -> Int {
        find(.identifier(w), from: offset, before: bound)
    }

    func text(_ range: SourceRange) -> String {
        String(decoding: source.bytes[range.start.offset..<range.end.offset], as: UTF8.self)
    }

    func piece(_ range: SourceRange) -> Piece { Piece(text: text(range), offset: range.start.offset) }

    // MARK: - Lines and comments

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

    /// Prints the comments that start before `offset` on lines of their own; one that followed
    /// another on its source line (`/* x */ // y`) stays after it: moved to a line of its own, a
    /// `///` there (an ordinary comment) would document the next declaration.
    private mutating func flushOwnLine(before offset: Int) {
        var previousEnd = -1
        while next < comments.count, comments[next].range.start.offset < offset {
            let c = comments[next]
            if c.range.start.line == previousEnd, out.hasSuffix("\n") {
                out.removeLast()
                out += " " + c.text + "\n"
            } else {
                startLine(sourceLine: c.range.start.line)
                out += c.text + "\n"
            }
            lastLine = c.range.end.line
            previousEnd = c.range.end.line
            next += 1
        }
    }

    /// Whether only whitespace precedes the comment on its source line.
    private func isOwnLine(_ c: Comment) -> Bool { source.startsItsLine(c.range.start.offset) }

    /// One element: leading own-line comments, then its pieces with the comments inside it
    /// where they stood, then the comments that follow it on its line. `limit` is where the next
    /// element starts (`Int.max` after the last one).
    mutating func line(_ pieces: [Piece], start: SourceLocation, end: SourceLocation, limit: Int) {
        flushOwnLine(before: start.offset)
        startLine(sourceLine: start.line)
        var state = LineState(continuation: String(repeating: "  ", count: indent + 2))
        for p in pieces {
            while next < comments.count, comments[next].range.start.offset < p.offset { interior(&state) }
            state.begin(&out, space: state.empty ? false : !p.glued)
            out += p.text
            state.empty = false
        }
        // What is left inside the element (nothing, unless a token had no piece of its own).
        while next < comments.count, comments[next].range.start.offset < end.offset { interior(&state) }
        // Comments after it and before the next element (`limit`) that are not on lines of their
        // own belong to it (`grants x; // c`, `{ // c` on the line after the header).
        while next < comments.count, comments[next].range.start.offset < limit, !isOwnLine(comments[next]) {
            state.begin(&out, space: true)
            out += comments[next].text
            lastLine = comments[next].range.end.line
            next += 1
        }
        newlineIfNeeded()
        lastLine = max(lastLine, end.line)
    }

    /// Where the output of one element stands: on its first line (after the indentation), or
    /// at the start of a continuation line after a line comment.
    private struct LineState {
        let continuation: String
        /// Nothing printed yet: the first piece needs no space.
        var empty = true
        /// A comment ended the output line: the next thing starts a continuation line.
        var broken = false

        mutating func begin(_ out: inout String, space: Bool) {
            if broken {
                out += continuation
                broken = false
            } else if space {
                out += " "
            }
        }
    }

    /// Prints the next comment inside an element: on a line of its own if it was on one, else
    /// after the code before it; a line comment (or an own-line one) ends the output line.
    private mutating func interior(_ state: inout LineState) {
        let c = comments[next]
        next += 1
        if isOwnLine(c), !state.empty {
            if !state.broken { out += "\n" }
            state.broken = true
        }
        state.begin(&out, space: !state.empty)
        out += c.text
        state.empty = false
        if c.kind != .block || isOwnLine(c) {
            out += "\n"
            state.broken = true
        }
        lastLine = c.range.end.line
    }

    /// `HEADER {`, the items (or declarations), and `}` — or just the header when the block is
    /// empty and holds no comment.
    private mutating func block(header: [Piece], start: SourceLocation, headerEnd: SourceLocation, end: SourceLocation,
                                hasBlock: Bool, firstInner: Int?, limit: Int, braces: Bool = false,
                                body: (inout Printer) -> Void) {
        let close = hasBlock ? end.offset - 1 : end.offset
        // Comments are in source order: the first one after the header tells whether the block
        // holds one (without looking at every comment after it, for every block).
        let firstAfterHeader = comments[next...].first { $0.range.start.offset >= headerEnd.offset }
        let hasComments = hasBlock && firstAfterHeader.map { $0.range.start.offset < close } == true
        // The `{` is anchored where the header ends: a comment between the header and `{`
        // follows the `{`, on the header's line.
        let brace = Piece(text: "{", offset: headerEnd.offset)
        guard firstInner != nil || hasComments else {
            // An empty block disappears, except where the grammar requires one; a comment after its
            // `}` (on that line) stays after the header, never on a line of its own above the next
            // element (a `///` there would become that element's docs).
            line(header + (braces ? [Piece(text: "{}", offset: headerEnd.offset)] : []), start: start, end: headerEnd,
                 limit: limit)
            if hasBlock { skipComments(before: end.offset) }
            return
        }
        line(header + [brace], start: start, end: headerEnd, limit: firstInner ?? close)
        indent += 1
        atBlockStart = true
        body(&self)
        flushOwnLine(before: close)
        indent -= 1
        let closeLine = source.line(ofOffset: close)
        atBlockStart = false
        blankRequested = false
        newlineIfNeeded()
        out += String(repeating: "  ", count: indent) + "}"
        var trailing: [Comment] = []
        // The comments after `}` on its line, up to the next element (one on the same line keeps its
        // own), and those after them that are not on lines of their own (`} /* a⏎b */ // c`: `// c`
        // on a line of its own would become the next element's docs or `entl-allow`).
        while next < comments.count, comments[next].range.start.offset < limit, !isOwnLine(comments[next]) {
            trailing.append(comments[next])
            next += 1
        }
        for c in trailing { out += " " + c.text }
        out += "\n"
        lastLine = max(closeLine, trailing.last?.range.end.line ?? 0)
    }

    /// Comments in an empty block with nothing to hold them cannot exist (checked by the caller);
    /// this only moves the cursor past the block.
    private mutating func skipComments(before offset: Int) {
        while next < comments.count, comments[next].range.start.offset < offset { next += 1 }
    }

    // MARK: - Declarations

    /// `limit`: where what follows the list starts (a closing brace, or `Int.max`).
    private mutating func declarations(_ list: [Declaration], limit: Int) {
        for (i, d) in list.enumerated() {
            requestBlankLine()
            declaration(d, limit: i + 1 < list.count ? list[i + 1].range.start.offset : limit)
        }
    }

    /// `KEYWORD NAME:` and the kind.
    private func kindHeader(_ keyword: String, _ start: SourceLocation, _ name: Identifier,
                            _ kind: SourceRange?) -> [Piece] {
        [Piece(text: keyword, offset: start.offset), Piece(text: name.name + ":", offset: name.range.start.offset)]
            + (kind.map { [piece($0)] } ?? [])
    }

    private mutating func declaration(_ d: Declaration, limit: Int) {
        switch d {
        case .app(let a):
            line([Piece(text: "app", offset: a.range.start.offset), piece(a.id.range)], start: a.range.start,
                 end: a.range.end, limit: limit)
        case .product(let p):
            let header = kindHeader("product", p.range.start, p.name, p.kind?.range)
            let headerEnd = p.kind?.range.end ?? p.name.range.end
            block(header: header, start: p.range.start, headerEnd: headerEnd, end: p.range.end, hasBlock: p.hasBlock,
                  firstInner: p.items.first?.range.start.offset,
                  limit: limit) { $0.items(p.items, closing: p.range.end.offset - 1) }
        case .feature(let f):
            var header = kindHeader("feature", f.range.start, f.name, f.kind?.range)
            var headerEnd = f.kind?.range.end ?? f.name.range.end
            if let r = f.requires {
                let requires = word("requires", from: headerEnd.offset, before: r.range.start.offset)
                header.append(Piece(text: "requires", offset: requires))
                header += expression(r, after: requires + "requires".utf8.count)
                headerEnd = r.range.end
            }
            block(header: header, start: f.range.start, headerEnd: headerEnd, end: f.range.end, hasBlock: f.hasBlock,
                  firstInner: f.items.first?.range.start.offset,
                  limit: limit) { $0.items(f.items, closing: f.range.end.offset - 1) }
        case .credits(let c):
            block(header: [Piece(text: "credits", offset: c.range.start.offset), piece(c.name.range)],
                  start: c.range.start, headerEnd: c.name.range.end, end: c.range.end, hasBlock: c.hasBlock,
                  firstInner: c.items.first?.range.start.offset,
                  limit: limit) { $0.items(c.items, closing: c.range.end.offset - 1) }
        case .entitlement(let e):
            let equals = find(.equals, from: e.name.range.end.offset, before: e.expression.range.start.offset)
            let header = [Piece(text: "entitlement", offset: e.range.start.offset), piece(e.name.range),
                          Piece(text: "=", offset: equals)] + expression(e.expression, after: equals + 1)
            block(header: header, start: e.range.start, headerEnd: e.expression.range.end, end: e.range.end,
                  hasBlock: e.hasBlock, firstInner: e.items.first?.range.start.offset, limit: limit) {
                $0.items(e.items, closing: e.range.end.offset - 1)
            }
        case .environment(let env):
            block(header: [Piece(text: "environment", offset: env.range.start.offset), piece(env.environment.range)],
                  start: env.range.start, headerEnd: env.environment.range.end, end: env.range.end, hasBlock: true,
                  firstInner: env.declarations.first?.range.start.offset, limit: limit, braces: true) {
                $0.declarations(env.declarations, limit: env.range.end.offset - 1)
            }
        case .test(let t):
            block(header: [Piece(text: "test", offset: t.range.start.offset), piece(t.description.range)],
                  start: t.range.start, headerEnd: t.description.range.end, end: t.range.end, hasBlock: true,
                  firstInner: t.items.first?.range.start.offset, limit: limit, braces: true) {
                $0.testItems(t.items, closing: t.range.end.offset - 1)
            }
        }
    }
}
