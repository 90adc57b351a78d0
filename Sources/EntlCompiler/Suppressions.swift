import EntlSupport
import EntlSyntax

/// `// entl-allow CODE [CODE…]` on the line above a declaration that starts its line silences
/// those warnings inside it (codes separated by spaces or commas; the comment may sit among the
/// declaration's doc comments). An unknown code, or an error code, is itself reported (W311).
struct Suppressions {
    static let code = DiagnosticCode("W311", "bad entl-allow comment")
    static let marker = "entl-allow"

    /// Per file: declaration ranges and the codes allowed in each.
    private var allowed: [String: [(range: SourceRange, codes: Set<String>)]] = [:]

    init(files: [RuleFile], sources: [SourceFile], comments: [[Comment]], knownWarnings: Set<String>,
         report: (Diagnostic) -> Void) {
        for ((file, source), fileComments) in zip(zip(files, sources), comments) {
            // Comments on lines of their own, by line: one after code (`product a … // entl-allow
            // W301`) is about that code, not the declaration on the next line (it had silenced it).
            var byLine: [Int: Comment] = [:]
            for c in fileComments where c.kind != .block && source.startsItsLine(c.range.start.offset) {
                byLine[c.range.start.line] = c
            }
            var declarations: [Declaration] = []
            for d in file.declarations {
                declarations.append(d)
                if case .environment(let env) = d { declarations += env.declarations }
            }
            // A declaration after code or a block comment on its line (`product a; product b`, `/* x */
            // product b`) has no line above of its own: covering it would cover what `fmt` puts on
            // a line of its own, and a comment above the line would cover both.
            for d in declarations where source.startsItsLine(d.range.start.offset) {
                var line = d.range.start.line - 1
                var codes: Set<String> = []
                // The run of comment lines directly above the declaration.
                while let c = byLine[line] {
                    codes.formUnion(Suppressions.codes(in: c, file: file.path, known: knownWarnings, report: report))
                    line -= 1
                }
                if !codes.isEmpty { allowed[file.path, default: []].append((d.range, codes)) }
            }
        }
    }

    /// The codes a comment allows; reports the ones that cannot be allowed.
    private static func codes(in comment: Comment, file: String, known: Set<String>, report: (Diagnostic) -> Void)
        -> Set<String>
    {
        var body = comment.text.drop { $0 == "/" }.drop { $0 == " " || $0 == "\t" }
        guard body.hasPrefix(marker) else { return [] }
        body = body.dropFirst(marker.count)
        var out: Set<String> = []
        for word in body.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }) {
            let code = String(word)
            if known.contains(code) {
                out.insert(code)
            } else {
                let message = code.hasPrefix("E") ? "errors cannot be allowed; `\(code)` must be fixed"
                    : "unknown warning code `\(code)` in entl-allow"
                let hint = Suggestions.closest(to: code, among: known.sorted())
                report(Diagnostic(Suppressions.code, message, file: file, range: comment.range, label: "this comment",
                                  help: hint.map { "did you mean `\($0)`?" }
                                      ?? "warning codes are \(known.min() ?? "") to \(known.max() ?? ""); "
                                         + "see `entlc explain`"))
            }
        }
        return out
    }

    func isAllowed(_ d: Diagnostic) -> Bool {
        guard d.severity != .error, let entries = allowed[d.file] else { return false }  // warnings and W315 notes
        return entries.contains {
            $0.codes.contains(d.code.id) && $0.range.start <= d.range.start && d.range.start < $0.range.end
        }
    }
}
