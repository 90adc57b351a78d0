import EntlCompiler
import EntlRuntime
import EntlSyntax

/// The output formats of diagnostics.
enum DiagnosticOutput {
    /// Diagnostics in one of `check`'s formats (`text`, `json`, `sarif`, `github`), ready to print.
    static func render(_ diagnostics: [Diagnostic], format: String, sources: [SourceFile], color: Bool) -> String {
        switch format {
        case "json": json(diagnostics).pretty + "\n"
        case "sarif": sarif(diagnostics).pretty + "\n"
        case "github": github(diagnostics, files: sources.count)
        default: text(diagnostics, sources: sources, color: color)
        }
    }

    /// Each diagnostic rendered, a blank line between them, then the summary line.
    static func text(_ diagnostics: [Diagnostic], sources: [SourceFile], color: Bool) -> String {
        let renderer = DiagnosticRenderer(sources: sources, color: color)
        var out = ""
        for d in diagnostics {
            out += renderer.render(d) + "\n"
        }
        return out + summary(diagnostics, files: sources.count)
    }

    /// `1 error, 2 warnings in 3 files` and a newline: the last line of text and annotations.
    private static func summary(_ diagnostics: [Diagnostic], files: Int) -> String {
        DiagnosticRenderer.summary(errors: diagnostics.errorCount, warnings: diagnostics.warningCount, files: files)
            + "\n"
    }

    /// `{"diagnostics":[…],"errors":N,"warnings":N}` with the keys of docs/cli.md.
    static func json(_ diagnostics: [Diagnostic]) -> JSONValue {
        .object([
            ("diagnostics", .array(diagnostics.map(json))),
            ("errors", .int(Int64(diagnostics.errorCount))),
            ("warnings", .int(Int64(diagnostics.warningCount))),
        ])
    }

    static func json(_ d: Diagnostic) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("severity", .string(d.severity.rawValue)), ("code", .string(d.code.id)), ("message", .string(d.message)),
        ]
        members += position(d.file, d.range)
        if let help = d.help { members.append(("help", .string(help))) }
        members.append(("notes", .array(d.notes.map { note in
            .object([("message", .string(note.message))] + position(note.file, note.range))
        })))
        return .object(members)
    }

    private static func position(_ file: String, _ range: SourceRange) -> [(key: String, value: JSONValue)] {
        [("file", .string(file)), ("line", .int(Int64(range.start.line))), ("column", .int(Int64(range.start.column))),
         ("end_line", .int(Int64(range.end.line))), ("end_column", .int(Int64(range.end.column)))]
    }

    /// SARIF 2.1.0: one run of tool `entlc` whose driver lists every rule (id, short and full
    /// description, help, default level), and one result per diagnostic with its region; notes
    /// become related locations. Columns count Unicode code points, as everywhere in entlc.
    /// `properties`: the run's property bag (SARIF §3.8), left out when empty.
    static func sarif(_ diagnostics: [Diagnostic], properties: [(key: String, value: JSONValue)] = []) -> JSONValue {
        let catalog = DiagnosticCatalog.all
        var ruleIndex: [String: Int] = [:]
        for (i, e) in catalog.enumerated() { ruleIndex[e.code.id] = i }
        let rules: [JSONValue] = catalog.map { e in
            .object([
                ("id", .string(e.code.id)), ("name", .string(ruleName(e.code.title))),
                ("shortDescription", .object([("text", .string(e.code.title))])),
                ("fullDescription", .object([("text", .string(e.summary))])),
                ("help", .object([("text", .string(e.text))])),
                ("defaultConfiguration", .object([("level", .string(e.code.defaultSeverity.rawValue))])),
            ])
        }
        let results: [JSONValue] = diagnostics.map { d in
            var message = d.message
            if let help = d.help { message += " (\(help))" }
            var members: [(key: String, value: JSONValue)] = [
                ("ruleId", .string(d.code.id)), ("ruleIndex", .int(Int64(ruleIndex[d.code.id] ?? -1))),
                ("level", .string(d.severity.rawValue)), ("message", .object([("text", .string(message))])),
                ("locations", .array([.object([("physicalLocation", physicalLocation(d.file, d.range))])])),
            ]
            if !d.notes.isEmpty {
                members.append(("relatedLocations", .array(d.notes.enumerated().map { i, note in
                    .object([("id", .int(Int64(i))), ("physicalLocation", physicalLocation(note.file, note.range)),
                             ("message", .object([("text", .string(note.message))]))])
                })))
            }
            return .object(members)
        }
        let driver: JSONValue = .object([("name", .string("entlc")), ("version", .string(EntlCLI.version)),
                                         ("rules", .array(rules))])
        return .object([
            ("$schema", .string(sarifSchema)),
            ("version", .string("2.1.0")),
            ("runs", .array([.object([("tool", .object([("driver", driver)])),
                                      ("columnKind", .string("unicodeCodePoints")),
                                      ("results", .array(results))]
                                     + (properties.isEmpty ? [] : [("properties", .object(properties))]))])),
        ])
    }

    private static let sarifSchema =
        "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

    private static func physicalLocation(_ file: String, _ range: SourceRange) -> JSONValue {
        .object([
            ("artifactLocation", .object([("uri", .string(uri(file)))])),
            ("region", .object([
                ("startLine", .int(Int64(range.start.line))), ("startColumn", .int(Int64(range.start.column))),
                ("endLine", .int(Int64(range.end.line))), ("endColumn", .int(Int64(range.end.column))),
            ])),
        ])
    }

    /// A relative URI reference for a path: unreserved characters and `/` as they are, the rest
    /// percent-encoded.
    static func uri(_ path: String) -> String {
        var out = ""
        for byte in (path == "<stdin>" ? "stdin" : path).utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }

    /// "unknown name" → "UnknownName"
    private static func ruleName(_ title: String) -> String {
        title.split { !$0.isLetter && !$0.isNumber }.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// GitHub Actions workflow commands, one per diagnostic, then the text summary:
    /// `::error file=…,line=…,col=…,endLine=…,endColumn=…,title=E201::message`.
    static func github(_ diagnostics: [Diagnostic], files: Int) -> String {
        githubAnnotations(diagnostics) + summary(diagnostics, files: files)
    }

    /// One `::error`, `::warning` or `::notice` command per diagnostic.
    static func githubAnnotations(_ diagnostics: [Diagnostic]) -> String {
        var out = ""
        for d in diagnostics {
            let properties = [
                "file=" + escapeProperty(d.file.withControlsEscaped), "line=\(d.range.start.line)",
                "col=\(d.range.start.column)",
                "endLine=\(d.range.end.line)", "endColumn=\(d.range.end.column)", "title=" + escapeProperty(d.code.id),
            ].joined(separator: ",")
            var message = d.message.withControlsEscaped
            if let help = d.help { message += " (\(help.withControlsEscaped))" }
            let command = switch d.severity {
            case .error: "error"
            case .warning: "warning"
            case .note: "notice"
            }
            out += "::\(command) \(properties)::\(escapeData(message))\n"
        }
        return out
    }

    private static func escapeData(_ s: String) -> String {
        s.replacingAll("%", "%25").replacingAll("\r", "%0D").replacingAll("\n", "%0A")
    }

    private static func escapeProperty(_ s: String) -> String {
        escapeData(s).replacingAll(":", "%3A").replacingAll(",", "%2C")
    }
}
