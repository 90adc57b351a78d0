import EntlSupport
import EntlSyntax
import Testing

private func lex(_ text: String) -> (tokens: [Token], lexer: Lexer) {
    var lexer = Lexer(file: "t.entl", bytes: Array(text.utf8))
    var tokens: [Token] = []
    while true {
        let t = lexer.next()
        tokens.append(t)
        if t.kind == .endOfFile { return (tokens, lexer) }
    }
}

private func kinds(_ text: String) -> [TokenKind] {
    lex(text).tokens.map(\.kind)
}

@Suite struct LexerTests {
    @Test func punctuationKeywordsAndIdentifiers() {
        #expect(kinds("product a: b { } ( ) = >= / ;") == [
            .keyword(.product), .identifier("a"), .colon, .identifier("b"), .leftBrace, .rightBrace,
            .leftParen, .rightParen, .equals, .greaterEqual, .slash, .semicolon, .endOfFile,
        ])
        #expect(kinds("and or not app environment feature credits entitlement test") == [
            .keyword(.and), .keyword(.or), .keyword(.not), .keyword(.app), .keyword(.environment),
            .keyword(.feature), .keyword(.credits), .keyword(.entitlement), .keyword(.test), .endOfFile,
        ])
        // Contextual keywords are identifiers.
        #expect(kinds("name period grants unit event _x9") == [
            .identifier("name"), .identifier("period"), .identifier("grants"), .identifier("unit"),
            .identifier("event"), .identifier("_x9"), .endOfFile,
        ])
    }

    @Test func integersWithSeparatorsAndTheLimit() {
        #expect(kinds("0 10_000 1_000_000_000_000_000") == [
            .integer(0), .integer(10_000), .integer(1_000_000_000_000_000), .endOfFile,
        ])
        let (tokens, lexer) = lex("1_000_000_000_000_001 99999999999999999999999")
        #expect(tokens.map(\.kind) == [.integer(Lexer.maxInteger), .integer(Lexer.maxInteger), .endOfFile])
        #expect(lexer.diagnostics.map(\.code.id) == ["E105", "E105"])
        #expect(lex("10_ 1__0 12ab").lexer.diagnostics.map(\.message) == [
            "malformed number `10_`", "malformed number `1__0`", "malformed number `12ab`",
        ])
    }

    @Test func stringEscapes() {
        #expect(kinds(#""a\"b\\c\nd\te\u{1F48E}""#) == [.string("a\"b\\c\nd\te💎"), .endOfFile])
        let (tokens, lexer) = lex(#""x\u{D800}" "y\u{}" "z\q""#)
        #expect(tokens.count == 4)
        #expect(lexer.diagnostics.map(\.message) == [
            "`\\u{D800}` is not a Unicode scalar value", "invalid unicode escape", "unknown escape sequence `\\q`",
        ])
    }

    @Test func unterminatedStringStopsAtTheLineEnd() {
        let (tokens, lexer) = lex("\"abc\nname")
        #expect(tokens.map(\.kind) == [.string("abc"), .identifier("name"), .endOfFile])
        #expect(lexer.diagnostics.map(\.code.id) == ["E103"])
        #expect(lexer.diagnostics[0].range.end.column == 5)
    }

    /// A lone carriage return ends a line in an editor, not in entl: it is an error, and a `//`
    /// comment stops there, so what follows is read (and checked) as an editor shows it (a review:
    /// `// c<CR>entitlement e = zz` had hidden a declaration). CRLF stays one line end.
    @Test func aLoneCarriageReturnIsAnErrorAndEndsNoComment() {
        let (tokens, lexer) = lex("a // c\re\r\nb")
        #expect(tokens.map(\.kind) == [.identifier("a"), .identifier("e"), .identifier("b"), .endOfFile])
        #expect(lexer.diagnostics.map { "\($0.code.id) \($0.range.start) \($0.message)" }
                == ["E100 1:7 a carriage return with no line feed after it"])
        #expect(lexer.comments.map(\.text) == ["// c"])
        // Inside a block comment it hides nothing, but lines would be counted apart from an
        // editor's: an error there too.
        let (inBlock, blockLexer) = lex("a /* x\r */ b")
        #expect(inBlock.map(\.kind) == [.identifier("a"), .identifier("b"), .endOfFile])
        #expect(blockLexer.diagnostics.map { "\($0.code.id) \($0.range.start)" } == ["E100 1:7"])
    }

    @Test func commentsNestAndAreKept() {
        let (tokens, lexer) = lex("a /* x /* y */ z */ b // end\n/// doc\nc")
        #expect(tokens.map(\.kind) == [.identifier("a"), .identifier("b"), .identifier("c"), .endOfFile])
        #expect(lexer.comments.map(\.kind) == [.block, .line, .doc])
        #expect(lexer.comments.map(\.text) == ["/* x /* y */ z */", "// end", "/// doc"])
        #expect(tokens[2].docs == ["doc"])
    }

    @Test func docCommentsAttachOnlyDirectlyAbove() {
        let (tokens, _) = lex("/// one\n/// two\n// entl-allow W301\na\n/// lost\n\nb\n//// not a doc\nc")
        #expect(tokens[0].docs == ["one", "two"])
        #expect(tokens[1].docs == [])
        #expect(tokens[2].docs == [])
    }

    /// A `///` after code on its line is an ordinary comment, not the next declaration's
    /// documentation: it is not a line above it (found by the round-trip fuzzer: `fmt` keeps it
    /// after its code and puts a blank line before the next declaration, which then lost the doc).
    @Test func aDocCommentAfterCodeIsAnOrdinaryComment() {
        let (tokens, lexer) = lex("a/// trailing\nb /* x */ /// after a block\nc\n  /// own line\nd")
        #expect(tokens.map(\.docs) == [[], [], [], ["own line"], []])
        #expect(lexer.comments.map(\.kind) == [.line, .block, .line, .doc])
        // After `;` too (a review: `}; /// x` became the next declaration's docs); a line of `;`
        // alone is still a blank one, and docs before `;` go to the token after it.
        let (afterSemicolon, _) = lex("a; /// after\nb\n/// doc\n;c\n;\n/// own\nd")
        #expect(afterSemicolon.filter { $0.kind != .semicolon }.map(\.docs) == [[], [], ["doc"], ["own"], []])
    }

    @Test func columnsCountCharactersNotBytes() {
        let (tokens, _) = lex("\"é💎\" x")
        #expect(tokens[1].range.start == EntlSyntax.SourceLocation(line: 1, column: 6, offset: 9))
    }

    @Test func byteOrderMarkIsSkipped() {
        var lexer = Lexer(file: "t", bytes: [0xEF, 0xBB, 0xBF] + Array("app".utf8))
        let t = lexer.next()
        #expect(t.kind == .keyword(.app))
        #expect(t.range.start.offset == 3)
    }

    @Test func invalidCharactersBecomeOneToken() {
        let (tokens, lexer) = lex("a @#$ b > c")
        #expect(tokens.map(\.kind) == [.identifier("a"), .invalid, .identifier("b"), .invalid, .identifier("c"), .endOfFile])
        #expect(lexer.diagnostics.map(\.message) == ["unexpected characters `@#$`", "unexpected character `>`"])
    }

    /// `-5` and `1.5` are one error each, with the rule they break, and lex as a number so the
    /// parser goes on.
    @Test func negativeAndFractionalNumbersSayWhy() {
        let (tokens, lexer) = lex("a -5 b 1.5 c 2")
        #expect(tokens.map(\.kind) == [.identifier("a"), .integer(5), .identifier("b"), .integer(1), .identifier("c"), .integer(2),
                                       .endOfFile])
        #expect(lexer.diagnostics.map { "\($0.code.id) \($0.range): \($0.message)" } == [
            "E106 1:3-1:5: negative number `-5`", "E106 1:8-1:11: `1.5` is not a whole number",
        ])
        #expect(lexer.diagnostics.allSatisfy { $0.help?.hasPrefix("amounts are whole numbers from 0 to") == true })
        // A lone `-` is still an unexpected character.
        #expect(lex("a - b").1.diagnostics.map(\.message) == ["unexpected character `-`"])
    }

    @Test func utf8Validation() {
        #expect(UTF8Validation.firstInvalidOffset(Array("ok é 💎".utf8)) == nil)
        #expect(UTF8Validation.firstInvalidOffset([0x61, 0xFF]) == 1)
        #expect(UTF8Validation.firstInvalidOffset([0xE2, 0x82]) == 0)  // truncated
        #expect(UTF8Validation.firstInvalidOffset([0xED, 0xA0, 0x80]) == 0)  // surrogate
        #expect(UTF8Validation.firstInvalidOffset([0xC0, 0x80]) == 0)  // overlong
    }
}
