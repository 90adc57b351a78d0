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
