import EntlCompiler
import EntlRuntime
import EntlSupport
import EntlSyntax

/// `entlc diff --format markdown`: the summary a CI job posts on a pull request. The breaking
/// changes, the other changes, then, with `--states`, the impact as three tables: access, access by
/// the product that represents the customer, and balances. A function of its inputs only: the same
/// rules, states and `--since` give the same bytes.
extension DiffCommand {
    static func markdown(_ diff: RuleDiff, impact: Impact?, since: Since) -> String {
        var out = "### entlc diff: \(summary(diff))\n\n"
        out += "Compared as of \(since.instant.rfc3339)"
            + (since.fromClock ? " (now; pass `--since` to fix it)" : "") + ".\n"
        let breaking = diff.findings.filter { $0.severity == .error }
        let other = diff.findings.filter { $0.severity != .error }
        for (title, findings) in [("Breaking changes", breaking), ("Other changes", other)] where !findings.isEmpty {
            out += "\n#### \(title)\n\n"
            for d in findings { out += Markdown.item(d) }
        }
        if let impact { out += Markdown.impact(impact, since: since) }
        return out
    }
}

/// Markdown pieces: escaping, code spans, findings and the impact's tables.
enum Markdown {
    /// `- **D403** `file:11:3` message` with its help and notes as nested items. An allowed
    /// breaking code (a note) says so.
    static func item(_ d: Diagnostic) -> String {
        let allowed = d.code.isBreaking && d.severity != .error ? " (allowed)" : ""
        var out = "- **\(d.code.id)**\(allowed) \(code(location(d.file, d.range))) \(inline(d.message))\n"
        if let help = d.help { out += "  - help: \(inline(help))\n" }
        for note in d.notes { out += "  - \(code(location(note.file, note.range))) \(inline(note.message))\n" }
        return out
    }

    static func impact(_ impact: Impact, since: DiffCommand.Since) -> String {
        var out = "\n#### Impact on \(impact.customers.counted("customer"))\n\n"
        out += "Every state in \(code(impact.source)) evaluated with both versions, at its `now` or else at "
            + "\(since.instant.rfc3339).\n\n"
        if impact.rows.isEmpty { out += "No customer gains or loses anything, and no balance changes.\n" }
        let keys = impact.keys
        if !keys.isEmpty {
            out += "| access | lose | gain | change balance |\n|---|---:|---:|---:|\n"
            for key in keys {
                let cells = Impact.groups.map { _, group, _ in
                    let g = impact.rows[key]![keyPath: group]
                    return g.count == 0 ? "0" : "\(g.count.grouped) (\(g.listed { code($0, inTable: true) }))"
                }
                out += row([name(key)] + cells)
            }
            out += "\n| by product | represented by | lose | gain | change balance |\n|---|---|---:|---:|---:|\n"
            for key in keys {
                for (r, counts) in impact.rows[key]!.byProduct.sorted(by: { $0.key < $1.key }) {
                    let label = r.product.map { code($0, inTable: true) } ?? r.label
                    out += row([name(key), label] + Impact.groups.map { counts[keyPath: $0.count].grouped })
                }
            }
        }
        if !impact.balanceKeys.isEmpty {
            out += "\n| balance, NEW - OLD | drop | rise | total | largest drop | largest rise | became unlimited "
                + "| lost unlimited |\n|---|---:|---:|---:|---|---|---:|---:|\n"
            for key in impact.balanceKeys {
                let b = impact.rows[key]!.balances
                let customer = { (c: String) in code(c, inTable: true) }
                out += row([name(key), b.drops.grouped, b.rises.grouped, b.total.signed,
                            b.largestDrop?.described(customer) ?? "–", b.largestRise?.described(customer) ?? "–",
                            unlimited(b.becameUnlimited), unlimited(b.lostUnlimited)])
            }
        }
        if impact.errorCount > 0 {
            out += "\n\(impact.errorCount.counted("line")) could not be evaluated:\n\n"
            for e in impact.errors { out += "- line \(e.line): \(inline(e.message))\n" }
        }
        return out
    }

    private static func unlimited(_ g: Impact.Group) -> String {
        g.count == 0 ? "0" : "\(g.count.grouped) (\(g.listed { code($0, inTable: true) }))"
    }

    private static func name(_ key: Impact.Key) -> String { "\(key.kind) \(code(key.name, inTable: true))" }

    private static func row(_ cells: [String]) -> String { "| " + cells.joined(separator: " | ") + " |\n" }

    private static func location(_ file: String, _ range: SourceRange) -> String {
        "\(file):\(range.start.line):\(range.start.column)"
    }

    /// Text as a code span: a fence longer than any run of backticks in it (padded with spaces when
    /// it starts or ends with one), control characters as U+FFFD (a line break would end a table
    /// row), and in a table `|` escaped (GitHub splits cells before it reads code spans).
    static func code(_ text: String, inTable: Bool = false) -> String {
        var longest = 0, run = 0
        for c in text.unicodeScalars {
            run = c == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: longest + 1)
        let body = text.replacingScalars { s in
            if s.value < 0x20 || s.value == 0x7F { return "\u{FFFD}" }
            return inTable && s == "|" ? "\\|" : nil
        }
        let pad = body.hasPrefix("`") || body.hasSuffix("`") ? " " : ""
        return fence + pad + body + pad + fence
    }

    /// A message as Markdown text: its code spans (between backticks) kept, the punctuation that
    /// could start emphasis, a link, HTML or a table cell escaped elsewhere, control characters as
    /// U+FFFD.
    static func inline(_ text: String) -> String {
        // A backtick without a partner is text.
        let unpaired = text.unicodeScalars.count { $0 == "`" } % 2 == 1
            ? text.unicodeScalars.lastIndex(of: "`") : nil
        var inCode = false
        var index = text.unicodeScalars.startIndex
        return text.replacingScalars { s in
            defer { index = text.unicodeScalars.index(after: index) }
            if s.value < 0x20 || s.value == 0x7F { return "\u{FFFD}" }
            if s == "`", index != unpaired { inCode.toggle(); return nil }
            if inCode { return nil }
            return "\\`*_[]<>|~&".unicodeScalars.contains(s) ? "\\" + String(s) : nil
        }
    }
}
