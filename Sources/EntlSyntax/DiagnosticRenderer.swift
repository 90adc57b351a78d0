import EntlSupport

/// Prints diagnostics in the compiler style of docs/cli.md:
///
/// ```
/// rules/photos.entl:14:19: error[E201]: unknown product `pro_montly`
///    |
/// 14 | entitlement pro = pro_montly or pro_annual {
///    |                   ^^^^^^^^^^ not declared in this rule set
///    = help: did you mean `pro_monthly`?
/// ```
///
/// Notes follow as `file:line:col: note: …` with their own snippet. Colour (ANSI) only when asked.
public struct DiagnosticRenderer {
    private let sources: [String: SourceFile]
    public var color: Bool
    /// The scalars of the line shown last: diagnostics come in source order, and thousands on one
    /// long line would each split it again (16,000 unknown names on a line took 9.5 s).
    private let lastLine = LastLine()

    private final class LastLine {
        var file = "", number = 0
        var scalars: [Unicode.Scalar] = []
    }

    public init(sources: [SourceFile], color: Bool = false) {
        var map: [String: SourceFile] = [:]
        for s in sources { map[s.path] = s }
        self.sources = map
        self.color = color
    }

    private enum Style: String {
        case bold = "1", red = "1;31", yellow = "1;33", cyan = "1;36", blue = "1;34"
    }

    private func paint(_ text: String, _ style: Style) -> String {
        color ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// Longer source lines are shown as a window around the range.
    static let maxShownLine = 120
    static let contextBefore = 40

    public func render(_ d: Diagnostic) -> String {
        let lines = [d.range.start.line] + d.notes.map(\.range.start.line)
        let width = String(lines.max() ?? 1).count
        let severityStyle: Style = switch d.severity {
        case .error: .red
        case .warning: .yellow
        case .note: .cyan
        }
        // A file's name, and what a message quotes of the input, are text from the input: escaped,
        // they cannot forge a line of entlc's own nor drive the terminal.
        var out = "\(d.file.withControlsEscaped):\(d.range.start): "
            + paint("\(d.severity.rawValue)[\(d.code.id)]", severityStyle)
            + paint(": \(d.message.withControlsEscaped)", .bold) + "\n"
        out += snippet(file: d.file, range: d.range, label: d.label?.withControlsEscaped, width: width,
                       style: severityStyle)
        if let help = d.help {
            out += String(repeating: " ", count: width + 1) + paint("= help:", .cyan) + " \(help.withControlsEscaped)\n"
        }
        for note in d.notes {
            out += "\(note.file.withControlsEscaped):\(note.range.start): " + paint("note", .cyan)
                + ": \(note.message.withControlsEscaped)\n"
            out += snippet(file: note.file, range: note.range, label: nil, width: width, style: .cyan)
        }
        return out
    }

    /// A source line's scalar as shown: a control character (a tab aside) as its picture (`␛` for
    /// ESC, one column, so the carets stay under it), never as itself.
    static func shown(_ c: Unicode.Scalar) -> Unicode.Scalar {
        switch c.value {
        case 0x09: c
        case ..<0x20: Unicode.Scalar(0x2400 + c.value)!
        case 0x7F: "\u{2421}"
        case 0x80...0x9F, 0x2028, 0x2029: "\u{FFFD}"
        default: c
        }
    }

    /// The gutter, the source line and carets under the range (to the end of the first line
    /// when the range spans several).
    private func snippet(file: String, range: SourceRange, label: String?, width: Int, style: Style) -> String {
        guard let source = sources[file] else { return "" }
        let gutter = String(repeating: " ", count: width + 1) + paint("|", .blue)
        let lineNumber = range.start.line
        if lastLine.file != file || lastLine.number != lineNumber {
            (lastLine.file, lastLine.number) = (file, lineNumber)
            lastLine.scalars = Array(source.line(lineNumber).unicodeScalars)
        }
        var scalars = lastLine.scalars
        var startColumn = range.start.column
        var endColumn = range.end.line == lineNumber ? range.end.column : scalars.count + 1
        // Show a window of a long line around the range, marked with "…".
        var prefix = "", suffix = ""
        if scalars.count > DiagnosticRenderer.maxShownLine {
            let from = max(0, startColumn - 1 - DiagnosticRenderer.contextBefore)
            let to = min(scalars.count, from + DiagnosticRenderer.maxShownLine)
            if from > 0 { prefix = "…" }
            if to < scalars.count { suffix = "…" }
            scalars = Array(scalars[from..<to])
            let shift = from - prefix.count
            startColumn -= shift
            endColumn = min(endColumn - shift, scalars.count + prefix.count + 1)
            scalars = Array(prefix.unicodeScalars) + scalars
        }
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars.lazy.map(DiagnosticRenderer.shown))
        text += suffix
        let number = String(lineNumber)
        var out = gutter + "\n"
        out += paint(String(repeating: " ", count: width - number.count) + number + " |", .blue)
            + (text.isEmpty ? "" : " " + text) + "\n"
        // Copy tabs from the text before the range so the carets line up in a terminal.
        var pad = ""
        for (i, ch) in scalars.enumerated() where i < startColumn - 1 {
            pad.append(ch == "\t" ? "\t" : " ")
        }
        let count = max(1, endColumn - startColumn)
        out += gutter + " " + pad + paint(String(repeating: "^", count: count), style)
        if let label { out += " " + paint(label, style) }
        out += "\n"
        return out
    }

    /// `1 error, 2 warnings in 3 files`
    public static func summary(errors: Int, warnings: Int, files: Int) -> String {
        func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
        return "\(plural(errors, "error")), \(plural(warnings, "warning")) in \(plural(files, "file"))"
    }
}
