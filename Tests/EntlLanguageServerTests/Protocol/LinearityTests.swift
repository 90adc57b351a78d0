import EntlLanguageServer
import EntlRuntime
import Testing

/// A request costs what the document costs, however its lines are laid out: the same text with
/// its declarations on one line and one per line takes about the same time for every request. A
/// cost that grows with the column (such as counting UTF-16 units from the start of the line for
/// each position) makes the one-line layout tens to hundreds of times slower on these texts.
///
/// The two layouts are measured in turn in the same process, the best of three runs each, and
/// compared with a wide margin (4× plus 50 ms), so a loaded machine does not make it flaky.
@Suite(.serialized) struct LinearityTests {
    private static let path = "/w/long.entl"
    private static let uri = JSONValue.string("file:///w/long.entl")

    /// Room first: a comment with characters of two and four bytes, then blanks
    /// (64 KiB, cheap to read, dropped by the formatter), so that on one line every position is far from
    /// the start of the line. Then 50 times a product, a feature, an entitlement granting it and
    /// a feature nothing grants (a warning).
    private static let room = "/* é 📷 */" + String(repeating: " ", count: 64 << 10)
    private static let declarations = [room]
        + (0..<50).flatMap { i in
            ["product plan_\(i): non_consumable { name \"Plan 📷 \(i)\" }", "feature feat_\(i): boolean",
             "entitlement ent_\(i) = plan_\(i) { grants feat_\(i) }", "feature spare_\(i): boolean"]
        }

    /// Blocks are what the formatter works through: many small ones.
    private static let blocks = [room] + (0..<1_000).map { "product p\($0): consumable { name \"P\" }" }

    private static let clock = ContinuousClock()

    /// The best of three runs of each step of a session on each text, in seconds; the texts
    /// take turns, so that a change of load on the machine falls on both.
    private static func best(_ texts: [(String, [(String, (Session) -> Void)])]) -> [[String: Double]] {
        var best = [[String: Double]](repeating: [:], count: texts.count)
        for _ in 0..<3 {
            for (i, (text, steps)) in texts.enumerated() {
                let s = Session(files: [path: text])
                for (name, step) in steps {
                    let d = clock.measure { step(s) }
                    let seconds = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
                    best[i][name] = min(best[i][name] ?? .infinity, seconds)
                }
            }
        }
        return best
    }

    /// The steps of an editing session, `position` being the last grant of the text.
    private static func session(_ position: JSONValue) -> [(String, (Session) -> Void)] {
        let here = JSONValue.object([("textDocument", .object([("uri", uri)])), ("position", position)])
        return [
            ("open and publish", { s in
                s.open(path)
                #expect(s.publishedDiagnostics()[uri.stringText]?.count == 50)
            }),
            ("semantic tokens", { s in _ = s.request("textDocument/semanticTokens/full", document(path)) }),
            ("document symbols", { s in _ = s.request("textDocument/documentSymbol", document(path)) }),
            ("hover", { s in
                guard case .string(let text)? = s.request("textDocument/hover", here)["contents"]?["value"] else {
                    Issue.record("no hover")
                    return
                }
                #expect(text.hasPrefix("```entl\nfeature feat_49"))
            }),
            ("references", { s in
                _ = s.request("textDocument/references", .object([
                    ("textDocument", .object([("uri", uri)])), ("position", position),
                    ("context", .object([("includeDeclaration", .bool(true))])),
                ]))
            }),
            ("completion", { s in _ = s.request("textDocument/completion", here) }),
            ("code actions over everything", { s in
                _ = s.request("textDocument/codeAction", .object([
                    ("textDocument", .object([("uri", uri)])), ("range", range(0, 0, 9_999, 0)),
                    ("context", .object([("diagnostics", .array([]))])),
                ]))
            }),
            ("workspace symbols", { s in _ = s.request("workspace/symbol", .object([("query", .string("spare"))])) }),
        ]
    }

    private static func formatting() -> [(String, (Session) -> Void)] { [
        ("open and declare", { s in
            s.open(path)
            _ = s.request("textDocument/hover", at(path, 0, 0))
        }),
        ("formatting", { s in
            _ = s.request("textDocument/formatting", .object([
                ("textDocument", .object([("uri", uri)])),
                ("options", .object([("tabSize", .int(2)), ("insertSpaces", .bool(true))])),
            ]))
        }),
    ] }

    /// Each step on one line takes at most four times as long as one per line, plus 50 ms.
    private static func compare(_ times: [[String: Double]]) {
        let (long, short) = (times[0], times[1])
        for (step, seconds) in long.sorted(by: { $0.key < $1.key }) {
            let anchor = short[step]!
            #expect(seconds <= 4 * anchor + 0.05,
                    "\(step): \(Int(seconds * 1000)) ms on one line, \(Int(anchor * 1000)) ms one per line")
        }
    }

    @Test func oneLongLineCostsWhatOneDeclarationPerLineCosts() {
        let grant = "grants feat_49 "
        let column = { (line: String) in line[..<line.firstRange(of: grant)!.lowerBound].utf16.count + 7 }
        let oneLine = Self.declarations.joined(separator: " ")
        let last = Self.declarations.count - 2
        let position = { (line: Int, character: Int) in
            JSONValue.object([("line", .int(Int64(line))), ("character", .int(Int64(character)))])
        }
        Self.compare(Self.best([
            (oneLine + "\n", Self.session(position(0, column(oneLine)))),
            (Self.declarations.joined(separator: "\n") + "\n",
             Self.session(position(last, column(Self.declarations[last])))),
        ]))
    }

    @Test func formattingOneLongLineCostsWhatOneBlockPerLineCosts() {
        Self.compare(Self.best([
            (Self.blocks.joined(separator: " ") + "\n", Self.formatting()),
            (Self.blocks.joined(separator: "\n") + "\n", Self.formatting()),
        ]))
    }
}

private extension JSONValue {
    var stringText: String { if case .string(let s) = self { s } else { "" } }
}
