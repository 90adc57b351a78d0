/// A unified diff of two texts by lines (`diff -u` format, three lines of context), computed with
/// Myers' O(ND) algorithm. `fmt --diff` prints it; `patch -p0` and `git apply -p0` apply it.
enum UnifiedDiff {
    /// One line and whether a newline ends it (only the last line of a file may lack one).
    struct Line: Equatable {
        var text: Substring
        var newline: Bool
    }

    static func lines(_ text: String) -> [Line] {
        var out = text.split(separator: "\n", omittingEmptySubsequences: false).map { Line(text: $0, newline: true) }
        if out.last?.text.isEmpty == true {
            out.removeLast()
        } else if !out.isEmpty {
            out[out.count - 1].newline = false
        }
        return out
    }

    enum Edit: Equatable { case same, delete, insert }

    /// Past this many differences, the diff is one hunk replacing everything (still correct,
    /// and memory stays bounded for two unrelated files).
    static let maxDifferences = 20_000

    /// The edit script turning `a` into `b`: for each step, what it does (indices advance in order).
    static func script(_ a: [Line], _ b: [Line]) -> [Edit] {
        let n = a.count, m = b.count
        let max = n + m
        guard max > 0 else { return [] }
        let offset = max + 1
        /// Whether the furthest path on diagonal `k` after `d` differences comes from diagonal
        /// `k + 1` (an insertion) rather than from `k − 1` (a deletion).
        func fromAbove(_ v: [Int], _ k: Int, _ d: Int) -> Bool {
            k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1])
        }
        var v = [Int](repeating: 0, count: 2 * max + 3)
        var trace: [[Int]] = []
        var found = false
        outer: for d in 0...min(max, maxDifferences) {
            trace.append(v)
            for k in stride(from: -d, through: d, by: 2) {
                var x = fromAbove(v, k, d) ? v[offset + k + 1] : v[offset + k - 1] + 1
                var y = x - k
                while x < n, y < m, a[x] == b[y] {
                    x += 1
                    y += 1
                }
                v[offset + k] = x
                if x >= n, y >= m {
                    found = true
                    break outer
                }
            }
        }
        guard found else {
            return [Edit](repeating: .delete, count: n) + [Edit](repeating: .insert, count: m)
        }
        // Walk the trace back from (n, m).
        var edits: [Edit] = []
        var x = n, y = m
        for d in stride(from: trace.count - 1, through: 0, by: -1) {
            let v = trace[d]
            let k = x - y
            let previousK = fromAbove(v, k, d) ? k + 1 : k - 1
            let previousX = d == 0 ? 0 : v[offset + previousK]
            let previousY = previousX - previousK
            while x > previousX, y > previousY {
                edits.append(.same)
                x -= 1
                y -= 1
            }
            if d > 0 { edits.append(x == previousX ? .insert : .delete) }
            x = previousX
            y = previousY
        }
        return edits.reversed()
    }

    /// The unified diff from `old` to `new` under the file name `path`, or "" when they are equal.
    static func render(path: String, old: String, new: String, context: Int = 3) -> String {
        let a = lines(old), b = lines(new)
        let edits = script(a, b)
        guard edits.contains(where: { $0 != .same }) else { return "" }
        // Positions (in a and b) before each edit.
        var positions: [(Int, Int)] = []
        var x = 0, y = 0
        for e in edits {
            positions.append((x, y))
            switch e {
            case .same: x += 1; y += 1
            case .delete: x += 1
            case .insert: y += 1
            }
        }
        let name = UnifiedDiff.headerName(path)
        var out = "--- \(name)\n+++ \(name)\n"
        var i = 0
        while i < edits.count {
            guard edits[i] != .same else { i += 1; continue }
            // A hunk: from `context` lines before this change to `context` after the last change
            // that is no more than 2 × context unchanged lines after the previous one.
            var start = i
            while start > 0, i - start < context, edits[start - 1] == .same { start -= 1 }
            var end = i
            while end < edits.count {
                if edits[end] != .same { end += 1; continue }
                var run = end
                while run < edits.count, edits[run] == .same { run += 1 }
                if run == edits.count || run - end > 2 * context {
                    end = min(run, end + context)
                    break
                }
                end = run
            }
            let (aStart, bStart) = positions[start]
            let aCount = edits[start..<end].filter { $0 != .insert }.count
            let bCount = edits[start..<end].filter { $0 != .delete }.count
            out += "@@ -\(range(aStart, aCount)) +\(range(bStart, bCount)) @@\n"
            for j in start..<end {
                let (px, py) = positions[j]
                let line: Line, mark: String
                switch edits[j] {
                case .same: (line, mark) = (a[px], " ")
                case .delete: (line, mark) = (a[px], "-")
                case .insert: (line, mark) = (b[py], "+")
                }
                out += mark + line.text + "\n"
                if !line.newline { out += "\\ No newline at end of file\n" }
            }
            i = end
        }
        return out
    }

    /// `start,count` of a hunk (1-based; `diff -u` writes a count of 1 as the start alone, and
    /// an empty range as the line before it).
    private static func range(_ start: Int, _ count: Int) -> String {
        switch count {
        case 0: "\(start),0"
        case 1: "\(start + 1)"
        default: "\(start + 1),\(count)"
        }
    }

    /// A path as a header line names it, as git writes it: a name with a space ends with a tab
    /// (`patch` takes the name up to it), one with a control character, `"` or `\\` is quoted
    /// with C escapes (a newline in it would have ended the header line).
    static func headerName(_ path: String) -> String {
        let special = path.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0 == "\"" || $0 == "\\" }
        guard special else { return path.contains(" ") ? path + "\t" : path }
        var quoted = "\""
        for c in path.unicodeScalars {
            switch c {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            case _ where c.value < 0x20 || c.value == 0x7F:
                let octal = String(c.value, radix: 8)
                quoted += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
            default: quoted.unicodeScalars.append(c)
            }
        }
        return quoted + "\""
    }
}
