import EntlSyntax
import EntlTestSupport
import Foundation
import Testing

@Suite struct PrinterTests {
    static let files = ["examples/photos.entl", "examples/api.entl", "examples/subscriptions.entl",
                        "examples/crossplatform.entl", "examples/selling.entl", "Tests/Fixtures/valid/tour.entl",
                        "Tests/Fixtures/fmt/messy.entl"]

    /// Format twice = format once; the formatted text parses to the same tree; every comment
    /// survives in order and keeps its attachment (the fuzzer's round-trip invariant).
    @Test(arguments: files)
    func roundTrip(_ path: String) throws {
        #expect(roundTripProblem(Array(try readRepoFile(path).utf8)) == nil)
    }

    /// Comments of every kind dropped between the tokens of the examples (an `entl-allow`, a doc, a
    /// block comment spanning lines, a `;`): formatting keeps every invariant — the tree, each
    /// comment's kind and place, and what `check` reports (a review found a moved `entl-allow` and
    /// a doc that changed hands, each by hand).
    @Test(arguments: files.prefix(5))
    func commentsDroppedAnywhereKeepWhatTheFileMeans(_ path: String) throws {
        let text = Array(try readRepoFile(path).utf8)
        let source = SourceFile(path: path, bytes: text)
        var lexer = Lexer(file: path, bytes: text)
        var ends: [Int] = []
        while true {
            let t = lexer.next()
            if t.kind == .endOfFile { break }
            ends.append(t.range.end.offset)
        }
        let inserts = [" /* c */ ", " // entl-allow W301\n", "\n// entl-allow W301\n", " /*\n*/ // entl-allow W301\n",
                       "\n/// doc\n", "; /// after\n", " /*\n*/ /// d\n", "\n/* x */ ", "\n// entl-allow W301\n;",
                       "\n; // c\n"]
        var random = SeededRandom(seed: UInt64(path.utf8.count))
        for _ in 0..<60 {
            let at = random.pick(ends), insert = random.pick(inserts)
            let mutated = Array(text[..<at]) + Array(insert.utf8) + Array(text[at...])
            #expect(roundTripProblem(mutated) == nil, "\(path) with \(insert.debugDescription) at \(source.location(ofOffset: at))")
        }
    }

    /// `p // one` newline `or /* two */ q`: each comment stays between the tokens it stood
    /// between, and a line comment ends its line (the constraint goes on, indented).
    @Test func commentsInsideAConstraintKeepTheirOrderAndPlace() {
        let source = """
            product p: non_consumable
            product q: non_consumable
            entitlement e = p // one
            or /* two */ q
            entitlement f = p
              // about q
              or not /* n */ (q and p) { // brace
              grants x
            }
            feature x: boolean
            """
        #expect(Printer.format(SourceFile(path: "x", text: source)) == """
            product p: non_consumable

            product q: non_consumable

            entitlement e = p // one
                or /* two */ q

            entitlement f = p
                // about q
                or not /* n */ (q and p) { // brace
              grants x
            }

            feature x: boolean

            """)
        #expect(roundTripProblem(Array(source.utf8)) == nil)
    }

    /// A comment after another on its line stays after it: `///` there is an ordinary comment,
    /// and on a line of its own it would become the next declaration's documentation.
    @Test func aCommentAfterABlockCommentStaysOnItsLine() {
        let source = "product p: non_consumable\n/* x */ /// Doc.\n/* a\n b */ // c\nentitlement e = p\n"
        let formatted = Printer.format(SourceFile(path: "x", text: source))
        #expect(formatted == "product p: non_consumable\n\n/* x */ /// Doc.\n/* a\n b */ // c\nentitlement e = p\n")
        #expect(roundTripProblem(Array(source.utf8)) == nil)
        let docs = { (text: String) in Parser.parse(SourceFile(path: "x", text: text)).comments.filter { $0.kind == .doc } }
        #expect(docs(source).isEmpty && docs(formatted ?? "").isEmpty)
    }

    /// A comment after a block comment that follows `}` and ends on a later line stays after it:
    /// on a line of its own it would become the next declaration's docs or `entl-allow` (a review:
    /// `} /*⏎*/ // entl-allow W301` silenced the next product's warning once formatted).
    @Test func aCommentAfterABlockCommentAfterABraceStaysOnItsLine() {
        let source = "feature x: boolean\nproduct a: non_consumable { grants x } /*\n*/ // entl-allow W301\n"
            + "product b: non_consumable\n"
        #expect(Printer.format(SourceFile(path: "x", text: source)) == """
            feature x: boolean

            product a: non_consumable {
              grants x
            } /*
            */ // entl-allow W301

            product b: non_consumable

            """)
        #expect(roundTripProblem(Array(source.utf8)) == nil)
    }

    @Test func commentsInsideItemsStayInside() {
        let source = """
            feature calls: metered
            product p: non_consumable {
              grants calls 10 // ten
                per month carry /* c */ up to 5
            }
            """
        #expect(Printer.format(SourceFile(path: "x", text: source)) == """
            feature calls: metered

            product p: non_consumable {
              grants calls 10 // ten
                  per month carry /* c */ up to 5
            }

            """)
        #expect(roundTripProblem(Array(source.utf8)) == nil)
    }

    @Test func theMessyFixtureMatchesItsGolden() throws {
        let formatted = try #require(Printer.format(SourceFile(path: "m", text: try readRepoFile("Tests/Fixtures/fmt/messy.entl"))))
        assertGolden(formatted, named: "fmt/messy.entl")
    }

    @Test func aFileThatDoesNotParseIsNotFormatted() {
        #expect(Printer.format(SourceFile(path: "x", text: "product p: consumable {")) == nil)
        #expect(Printer.format(SourceFile(path: "x", text: "product p: subscriptin")) == nil)
        // Name errors are not syntax errors: the file is still formatted.
        #expect(Printer.format(SourceFile(path: "x", text: "entitlement e = nope")) == "entitlement e = nope\n")
    }

    @Test func layoutDetails() {
        func fmt(_ s: String) -> String? { Printer.format(SourceFile(path: "x", text: s)) }
        #expect(fmt("") == "")
        #expect(fmt("// just a comment") == "// just a comment\n")
        #expect(fmt("product a: consumable;product b: consumable") == "product a: consumable\n\nproduct b: consumable\n")
        #expect(fmt("product a: consumable {}") == "product a: consumable\n")
        #expect(fmt("environment test {}") == "environment test {}\n")
        #expect(fmt("test \"t\" {}") == "test \"t\" {}\n")
        #expect(fmt("entitlement e = a or (b or c) and (d and e) or not (f and g)")
            == "entitlement e = a or (b or c) and (d and e) or not (f and g)\n")
        #expect(fmt("product p: non_renewing { duration 1 year }") == "product p: non_renewing {\n  duration 1 year\n}\n")
        #expect(fmt("\u{FEFF}app \"x\"") == "\u{FEFF}app \"x\"\n")
        #expect(fmt("product a: consumable\r\nproduct b: consumable\r\n") == "product a: consumable\n\nproduct b: consumable\n")
    }

    @Test func commentsStayWithWhatTheyDescribe() {
        let formatted = Printer.format(SourceFile(path: "x", text: """
            product a: consumable { name "A" // the name
            // before id

            id app_store "A" }
            /// Doc of b.
            product b: consumable
            """))
        #expect(formatted == """
            product a: consumable {
              name "A" // the name
              // before id

              id app_store "A"
            }

            /// Doc of b.
            product b: consumable

            """)
    }

    /// Docs and comments keep their meaning through `fmt` where `;` or an empty block stood: a
    /// `;` between `///` and its declaration is ignored (the docs had been dropped, and came back
    /// once `fmt` removed the `;`); a `///` after an empty block's `}` stays after the header (it
    /// had become the next declaration's docs); a comment after the last `}` of a line stays there
    /// (it had moved after the first). Each input also meets the fuzzer's round-trip invariant.
    @Test func docsAndCommentsKeepTheirPlaceWhereSemicolonsAndEmptyBlocksStood() {
        let cases: [(String, String)] = [
            ("/// Pro unlock.\n;product pro: non_consumable { name \"Pro\" }\n",
             "/// Pro unlock.\nproduct pro: non_consumable {\n  name \"Pro\"\n}\n"),
            ("product r: non_consumable {} /// not a doc\nfeature f: boolean {}\n",
             "product r: non_consumable /// not a doc\n\nfeature f: boolean\n"),
            ("product p: non_consumable {\n} /// x\nproduct q: non_consumable {}\n",
             "product p: non_consumable /// x\n\nproduct q: non_consumable\n"),
            // A `;` alone on its line is a blank line to docs: they do not cross it, before or after.
            ("/// a\n;\nfeature calls: metered\n", "/// a\n\nfeature calls: metered\n"),
            ("/// a\n;;\n/* b */\nfeature calls: metered\n", "/// a\n\n/* b */\nfeature calls: metered\n"),
            ("product p: non_consumable { name \"a\" } product q: non_consumable { name \"b\" } // z\n",
             "product p: non_consumable {\n  name \"a\"\n}\n\nproduct q: non_consumable {\n  name \"b\"\n} // z\n"),
        ]
        for (input, output) in cases {
            #expect(Printer.format(SourceFile(path: "x", text: input)) == output, "\(input)")
            #expect(roundTripProblem(Array(input.utf8)) == nil, "\(input)")
        }
        let docs = Parser.parse(SourceFile(path: "x", text: cases[0].0)).file.declarations.first
        guard case .product(let p)? = docs else { Issue.record("no product"); return }
        #expect(p.docs == ["Pro unlock."])
        guard case .feature(let f)? = Parser.parse(SourceFile(path: "x", text: cases[3].0)).file.declarations.first
        else { Issue.record("no feature"); return }
        #expect(f.docs == [])
    }
}
