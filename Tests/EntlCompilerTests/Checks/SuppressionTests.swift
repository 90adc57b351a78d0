import EntlTestSupport
import Testing

@Suite struct SuppressionTests {
    @Test func allowCommentsAboveADeclarationAmongItsDocs() {
        assertDiagnostics("""
        /// A spare product.
        1️⃣// entl-allow W301, W999
        product spare: non_consumable
        // entl-allow W301
        product spare2: non_consumable

        product 2️⃣spare3: non_consumable
        """, [
            ExpectedDiagnostic("W311", "unknown warning code `W999` in entl-allow", at: "1️⃣"),
            ExpectedDiagnostic("W301", "product `spare3` is never used", at: "2️⃣"),
        ])
    }

    /// A comment after code is about that code: it allows nothing on the next line (it had
    /// silenced the next declaration's warning, and not its own).
    @Test func aCommentAfterCodeAllowsNothing() {
        assertDiagnostics("""
        product 1️⃣legacy_unlock: non_consumable // entl-allow W301
        product 2️⃣old_pack: consumable
        """, [
            ExpectedDiagnostic("W301", "product `legacy_unlock` is never used", at: "1️⃣"),
            ExpectedDiagnostic("W301", "product `old_pack` is never used", at: "2️⃣"),
        ])
    }

    /// An allow comment covers the declaration that starts the line below it, not one after code
    /// or a block comment on that line: `fmt` puts those on lines of their own, below the comment
    /// or away from it (a review: `// entl-allow W301` above `product b; product c` silenced both,
    /// and after `fmt` only `b`; above `/* legacy */ product b` it silenced `b` until `fmt` put the
    /// block comment between them). A `;` before it means nothing (`;product g` is covered).
    @Test func anAllowCommentCoversOnlyTheDeclarationThatStartsTheLineBelow() {
        assertDiagnostics("""
        // entl-allow W301
        product b: non_consumable; product 1️⃣c: non_consumable
        // entl-allow W301
        product d: non_consumable product 2️⃣e: non_consumable
        // entl-allow W301
        /* legacy */ product 3️⃣f: non_consumable
        // entl-allow W301
        ;product g: non_consumable
        """, [
            ExpectedDiagnostic("W301", "product `c` is never used", at: "1️⃣"),
            ExpectedDiagnostic("W301", "product `e` is never used", at: "2️⃣"),
            ExpectedDiagnostic("W301", "product `f` is never used", at: "3️⃣"),
        ])
    }

    /// A file that starts with a byte order mark: an allow comment on its first line still counts.
    @Test func anAllowCommentAfterAByteOrderMark() {
        assertDiagnostics("\u{FEFF}// entl-allow W301\nproduct spare: non_consumable\n", [])
    }

    @Test func badCodesAreReported() {
        assertDiagnostics("""
        product p: non_consumable { grants f }
        product q: non_consumable
        feature f: boolean
        1️⃣// entl-allow W399
        entitlement e = p
        2️⃣// entl-allow E201
        entitlement e2 = q
        """, [
            ExpectedDiagnostic("W311", "unknown warning code `W399` in entl-allow", at: "1️⃣"),
            ExpectedDiagnostic("W311", "errors cannot be allowed; `E201` must be fixed", at: "2️⃣"),
        ])
    }
}
