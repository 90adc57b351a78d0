/// "Did you mean …?" suggestions by edit distance: for names in rule files, options on the
/// command line, and keys in state JSON.
public enum Suggestions {
    /// The candidate closest to `word`, if it is close enough to be a likely typo: an optimal
    /// string alignment distance (a transposition counts as one edit) of at most a third of the
    /// word's length (at least 1). A match that differs only in case always qualifies. Ties go to
    /// the earlier candidate.
    public static func closest<S: Sequence>(to word: String, among candidates: S) -> String? where S.Element == String {
        closest(to: word, among: candidates, maxDistance: max(1, word.utf8.count / 3))
    }

    /// The candidate closest to `word` within `maxDistance` edits (a match that differs only in
    /// case always qualifies; ties go to the earlier candidate).
    public static func closest<S: Sequence>(to word: String, among candidates: S, maxDistance limit: Int) -> String?
    where S.Element == String {
        let w = Array(word.utf8)
        let lower = word.lowercased()
        var best: (name: String, distance: Int)?
        for candidate in candidates where candidate != word {
            if candidate.lowercased() == lower { return candidate }
            let c = Array(candidate.utf8)
            if abs(c.count - w.count) > limit { continue }
            if let d = distance(w, c, limit: limit), d < (best?.distance ?? Int.max) {
                best = (candidate, d)
            }
        }
        return best?.name
    }

    /// "did you mean `x`?", or the list of expected words when there is no close one.
    public static func help(_ suggestion: String?, expected: [String]) -> String {
        if let s = suggestion { return "did you mean `\(s)`?" }
        return "expected one of: \(expected.joined(separator: ", "))"
    }

    /// The optimal string alignment distance between two words, or nil when it exceeds `limit`.
    public static func distance(_ a: String, _ b: String, limit: Int) -> Int? {
        distance(Array(a.utf8), Array(b.utf8), limit: limit)
    }

    /// Optimal string alignment distance, or nil when it exceeds `limit`.
    static func distance(_ a: [UInt8], _ b: [UInt8], limit: Int) -> Int? {
        let n = a.count, m = b.count
        if n == 0 || m == 0 { return max(n, m) <= limit ? max(n, m) : nil }
        var previous2 = [Int](repeating: 0, count: m + 1)
        var previous = Array(0...m)
        var current = [Int](repeating: 0, count: m + 1)
        for i in 1...n {
            current[0] = i
            var rowMin = current[0]
            for j in 1...m {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var v = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    v = min(v, previous2[j - 2] + 1)
                }
                current[j] = v
                rowMin = min(rowMin, v)
            }
            if rowMin > limit { return nil }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[m] <= limit ? previous[m] : nil
    }
}
