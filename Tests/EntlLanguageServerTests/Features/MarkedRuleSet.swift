import EntlLanguageServer
import EntlSyntax
import EntlTestSupport

/// A rule set with position markers (`1️⃣` … `9️⃣`) in its main file, analysed in-process: the
/// features are called with the markers' byte offsets and their answers compared exactly.
struct MarkedRuleSet {
    static let path = "/w/rules.entl"

    let analysis: Analysis
    let marked: MarkedSource
    var source: SourceFile { SourceFile(path: Self.path, text: marked.text) }

    /// `text` is the main file (`/w/rules.entl`); `others` more files of the rule set, by path.
    init(_ text: String, others: [String: String] = [:], depth: Analysis.Depth = .linted) {
        marked = MarkedSource(text)
        let files = [Self.path: marked.text].merging(others) { a, _ in a }
        analysis = Analysis(sources: files.keys.sorted().map { SourceFile(path: $0, text: files[$0]!) }, depth: depth)
    }

    /// The byte offset of a marker.
    subscript(marker: String) -> Int { marked.markers[marker]!.offset }

    /// The bytes between two markers.
    func span(_ from: String, _ to: String) -> Range<Int> { self[from]..<self[to] }
}

extension SourceRange {
    /// Its bytes.
    var bytes: Range<Int> { start.offset..<end.offset }
}
