import EntlSyntax
import EntlTestSupport
import Testing

/// The exact lints know purchase-date qualifiers: `p purchased before T` is its own atom, with
/// `p purchased before T` → `p` (and `before T1` → `before T2` for T1 < T2).
@Suite struct PurchaseDateLintTests {
    @Test func aQualifiedProductImpliesTheProduct() {
        assertDiagnostics(#"""
        product p: subscription { period month }
        feature f: boolean
        entitlement wide = 1️⃣p purchased before "2026-06-01T00:00:00Z" or p { grants f }
        entitlement never = 2️⃣p purchased before "2026-06-01T00:00:00Z" and not p { grants f }
        entitlement earlier = 3️⃣p purchased before "2026-01-01T00:00:00Z" and not p purchased before "2026-06-01T00:00:00Z"
        """#, [
            ExpectedDiagnostic("W305", #"`p purchased before "2026-06-01T00:00:00Z"` is redundant in entitlement `wide`"#, at: "1️⃣"),
            ExpectedDiagnostic("W303", "entitlement `never` can never hold", at: "2️⃣"),
            ExpectedDiagnostic("W303", "entitlement `earlier` can never hold", at: "3️⃣"),
        ])
    }

    /// Before and since one instant are different purchases: neither implies the other, and
    /// together they are not the product (a purchase may have no date).
    @Test func beforeAndSinceAreIndependent() {
        assertDiagnostics(#"""
        product p: subscription { period month }
        feature f: boolean
        entitlement legacy = p purchased before "2026-06-01T00:00:00Z" { grants f }
        entitlement current = p purchased since "2026-06-01T00:00:00Z" { grants f }
        entitlement both = p purchased before "2026-06-01T00:00:00Z" and p purchased since "2026-06-01T00:00:00Z" { grants f }
        entitlement either = p purchased before "2026-06-01T00:00:00Z" or p purchased since "2026-06-01T00:00:00Z" { grants f }
        entitlement owner = p { grants f }
        """#, [])
    }

    @Test func theGrandfatheringExampleChecksClean() {
        assertDiagnostics(grandfatheringExample, [])
    }
}
