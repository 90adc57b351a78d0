@testable import entlc
import EntlTestSupport
import Testing

@Suite struct UnifiedDiffTests {
    /// The format of `diff -u` (this case's hunks are GNU diff's, byte for byte).
    @Test func hunksContextAndTheMissingFinalNewline() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n"
        let new = "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn"
        #expect(UnifiedDiff.render(path: "x.entl", old: old, new: new) == """
            --- x.entl
            +++ x.entl
            @@ -1,5 +1,5 @@
             a
            -b
            +B
             c
             d
             e
            @@ -11,3 +11,4 @@
             k
             l
             m
            +n
            \\ No newline at end of file

            """)
        #expect(UnifiedDiff.render(path: "x", old: old, new: old) == "")
        #expect(UnifiedDiff.render(path: "x", old: "", new: "a\n") == "--- x\n+++ x\n@@ -0,0 +1 @@\n+a\n")
    }

    /// Over random pairs of texts, the edit script turns the old lines into the new ones and is
    /// as short as a longest-common-subsequence computation says it can be.
    @Test func scriptsAreCorrectAndMinimal() {
        var r = SeededRandom(seed: 7)
        for _ in 0..<300 {
            let a = (0..<Int.random(in: 0...12, using: &r)).map { _ in UnifiedDiff.Line(text: Substring(["x", "y", "z"].randomElement(using: &r)!), newline: true) }
            let b = (0..<Int.random(in: 0...12, using: &r)).map { _ in UnifiedDiff.Line(text: Substring(["x", "y", "z"].randomElement(using: &r)!), newline: true) }
            let script = UnifiedDiff.script(a, b)
            var i = 0, j = 0, rebuilt: [UnifiedDiff.Line] = []
            for e in script {
                switch e {
                case .same: #expect(a[i] == b[j]); rebuilt.append(a[i]); i += 1; j += 1
                case .delete: i += 1
                case .insert: rebuilt.append(b[j]); j += 1
                }
            }
            #expect(i == a.count && rebuilt == b)
            // LCS by dynamic programming: the script keeps exactly that many lines.
            var lcs = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
            for x in stride(from: a.count - 1, through: 0, by: -1) {
                for y in stride(from: b.count - 1, through: 0, by: -1) {
                    lcs[x][y] = a[x] == b[y] ? lcs[x + 1][y + 1] + 1 : max(lcs[x + 1][y], lcs[x][y + 1])
                }
            }
            #expect(script.filter { $0 == .same }.count == lcs[0][0])
        }
    }

    /// Header names as git writes them, so `patch -p0` finds the file (a review: `--- w/my
    /// rules.entl` made patch look for `w/my`), and a newline in a name cannot end the header line.
    @Test func headerNamesWithSpacesEndWithATabAndOddOnesAreQuoted() {
        #expect(UnifiedDiff.headerName("w/rules.entl") == "w/rules.entl")
        #expect(UnifiedDiff.headerName("w/my rules.entl") == "w/my rules.entl\t")
        #expect(UnifiedDiff.headerName("a\"b\\c\nd\u{1}é.entl") == #""a\"b\\c\nd\001é.entl""#)
        #expect(UnifiedDiff.render(path: "my rules.entl", old: "a\n", new: "b\n").hasPrefix("--- my rules.entl\t\n+++ my rules.entl\t\n"))
    }
}
