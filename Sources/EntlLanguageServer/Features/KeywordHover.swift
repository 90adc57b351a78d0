import EntlCompiler
import EntlSyntax

/// Hover on the words of a grant (`per`, `carry`, `overage`, `expires after`, `priority`,
/// `unlimited`), of a test's `grant` item, and on `via overage`: the clause's syntax and meaning,
/// so the terms of a plan read without the manual at hand.
extension Analysis {
    /// The hover text of the clause word at `offset` of `file`, and the word's range; nil when
    /// the offset is not on one.
    func keywordHover(in file: String, at offset: Int) -> (markdown: String, range: SourceRange)? {
        guard let source = checked.sources.first(where: { $0.path == file }),
              let (item, words) = KeywordHover.item(in: file, at: offset, model: checked.model) else { return nil }
        // The item's tokens, lexed from its own bytes (offsets moved back into the file).
        let base = item.start.offset
        var lexer = Lexer(file: file, bytes: Array(source.bytes[base..<item.end.offset]))
        var previous: [String] = []
        while true {
            let t = lexer.next()
            guard case .identifier(let w) = t.kind else {
                if t.kind == .endOfFile { return nil }
                previous.append("")
                continue
            }
            if t.range.start.offset + base <= offset, offset <= t.range.end.offset + base {
                guard let meaning = words(w, previous) else { return nil }
                let range = SourceRange(start: source.location(ofOffset: t.range.start.offset + base),
                                        end: source.location(ofOffset: t.range.end.offset + base))
                return (meaning, range)
            }
            previous.append(w)
        }
    }
}

enum KeywordHover {
    /// What a word means in an item, given the words before it in the item.
    typealias Words = (_ word: String, _ before: [String]) -> String?

    /// The grant or test item of `file` around `offset`, and how to read its words.
    static func item(in file: String, at offset: Int, model: RuleModel) -> (SourceRange, Words)? {
        func covers(_ r: SourceRange) -> Bool { r.start.offset <= offset && offset <= r.end.offset }
        for declaration in model.declarations where declaration.site.file == file && covers(declaration.site.range) {
            let grants: [Grant] = switch declaration {
            case .product(let p): p.grants
            case .entitlement(let e): e.grants
            default: []
            }
            if let g = grants.first(where: { covers($0.range) }) {
                return (g.range, { w, before in grantWord(w, before, item: "grants") })
            }
            guard case .test(let t) = declaration else { continue }
            for item in t.syntax.items where covers(item.range) {
                switch item.kind {
                case .grant: return (item.range, { w, before in grantWord(w, before, item: "grant") })
                case .expect(let e):
                    guard case .overage? = e.via else { return nil }
                    return (item.range, { w, before in
                        w == "overage" && before.last == "via" || w == "via" && before.count > 2 ? viaOverage : nil
                    })
                default: return nil
                }
            }
        }
        return nil
    }

    /// A word of a `grants` item or of a test's `grant` item (`item`): the words after the name.
    private static func grantWord(_ w: String, _ before: [String], item: String) -> String? {
        // `grants` itself, then the name: a word right after the item word is the name.
        if before.isEmpty { return w == item ? (item == "grant" ? testGrant : grants) : nil }
        if before.count == 1 { return nil }
        switch w {
        case "up", "to", "after":
            // Part of the clause that starts with the nearest clause word before it.
            guard let clause = before.last(where: { ["carry", "overage", "expires"].contains($0) }) else { return nil }
            return grantWord(clause, before, item: item)
        case "unlimited": return before.count == 2 ? unlimited : nil
        default: return clauses[w]
        }
    }

    private static func markdown(_ syntax: String, _ what: String, _ text: String) -> String {
        "```entl\n\(syntax)\n```\n\n(\(what))\n\n\(text)"
    }

    static let grants = markdown("grants FEATURE [AMOUNT | unlimited] [per INTERVAL] [carry [up to N]] "
                                 + "[overage [up to N]] [expires after N UNIT] [priority N]", "grant", """
        What a purchase of the product, or the entitlement while it is active, gives of a feature or \
        credit system. The clauses after the amount come in any order.
        """)

    static let testGrant = markdown("grant NAME [N | unlimited] [per INTERVAL] [overage [up to N]] "
                                    + "[from INSTANT] [until INSTANT]", "test item", """
        A grant to the tested customer, as a state's `grants` holds it: an entitlement made active \
        over `[from, until)`, or an allowance of a feature or credit system from `from` (without \
        `from`: from 1970, so it pays for every use of the test). Without `per` and with `until`, \
        what is left lapses at `until`.
        """)

    static let unlimited = markdown("unlimited", "grant amount", "No limit: every use is allowed, and none is overage.")

    static let viaOverage = markdown("via overage", "expected source", """
        The use is allowed beyond the allowance by a soft limit (`overage`): it is overdrawn, to be \
        billed, within the limit's `up to`.
        """)

    static let clauses: [String: String] = [
        "per": markdown("per minute|hour|day|week|month|quarter|half_year|year", "grant clause", """
            The allowance resets every interval; what is left at the end of a window is lost (or \
            carried, with `carry`). Without `per`, it is granted once, for good.
            """),
        "carry": markdown("carry [up to N]", "grant clause", """
            What is left at the end of a window rolls into the next; `up to N` caps what rolls over. \
            Needs `per`.
            """),
        "overage": markdown("overage [up to N]", "grant clause", """
            A soft limit: use beyond the allowance is allowed and reported as `overdrawn` (billable), \
            up to N per window; without `up to`, without limit. Without `overage` the allowance is a \
            hard limit. Single-use features only.
            """),
        "expires": markdown("expires after N days|weeks|months|years", "grant clause", """
            A lot: the allowance is granted once, at the purchase, and what is left of it lapses N \
            units later (a credit pack valid for a year). Lots are spent earliest-expiring first. \
            Not with `per`; at most 100 years.
            """),
        "priority": markdown("priority N", "grant clause", """
            The order in which the grants of one feature are used: lower first (default 0).
            """),
        "from": markdown("from \"INSTANT\"", "test grant clause", "When the grant starts to count."),
        "until": markdown("until \"INSTANT\"", "test grant clause", """
            When the grant ends; without `per`, what is left of it lapses then.
            """),
    ]
}
