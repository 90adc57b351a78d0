import EntlSupport

// Small pieces of the command line's messages and help texts, written once.

extension Suggestions {
    /// " (did you mean `x`?)" when a candidate is close to `word` (a likely typo), else "": the
    /// end of an error about an unknown command, option, value, name or code.
    static func didYouMean(_ word: String, among candidates: [String]) -> String {
        closest(to: word, among: candidates).map { " (did you mean `\($0)`?)" } ?? ""
    }
}

extension Int {
    /// "1 error", "2 errors": the count and the noun, plural unless the count is 1.
    func counted(_ noun: String) -> String {
        "\(self) \(noun)\(self == 1 ? "" : "s")"
    }
}

extension String {
    /// Pads with spaces to at least `width` characters (at least one space is added).
    func padding(_ width: Int) -> String {
        self + String(repeating: " ", count: Swift.max(1, width - count))
    }

    /// Every occurrence of `target` replaced (no Foundation).
    func replacingAll(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
