import EntlSyntax

extension DiagnosticCatalog {
    /// The explanations of the lints (`W3xx`).
    static let lints: [CodeExplanation] = [
        CodeExplanation(UnusedProductCheck.code, """
            No constraint names the product and it grants nothing itself, so buying it unlocks \
            nothing: a leftover, or a typo elsewhere.
            """, example: "product old_pack: consumable", fix: """
                product old_pack: consumable { grants calls 100 }
                feature calls: metered
                """),
        CodeExplanation(NeverGrantedCheck.code, """
            No product or entitlement grants the feature (or credit system), it has no `requires`, and \
            no granted credit system pays for it: no customer can ever use it.
            """, example: "product p: non_consumable\nentitlement e = p\nfeature export: boolean",
            fix: "product p: non_consumable\nentitlement e = p { grants export }\nfeature export: boolean"),
        CodeExplanation(ImpossibleConstraintCheck.code, """
            The constraint is false for every possible purchase state, so the entitlement never \
            activates (or the feature's requirement never holds). Decided exactly: entitlements are \
            expanded and consumable thresholds ordered (`z >= 5` implies `z >= 3`).
            """, example: "product z: consumable\nentitlement rich = z >= 5 and not z >= 3",
            fix: "product z: consumable\nentitlement rich = z >= 3 and not z >= 5"),
        CodeExplanation(AlwaysTrueConstraintCheck.code, """
            The constraint is true for every possible purchase state: every customer gets the \
            entitlement's grants without buying anything.
            """, example: "product a: non_consumable\nentitlement e = a or not a",
            fix: "product a: non_consumable\nentitlement e = a"),
        CodeExplanation(RedundantTermCheck.code, """
            The constraint means exactly the same without this term (`a or (a and b)` is `a`; \
            `a and a` is `a`), or a term is spelled the long way (`x >= 1` on a consumable is `x`; \
            `not not x` is `x`). Decided exactly on the constraint's BDD.
            """, example: "product a: non_consumable\nproduct b: non_consumable\nentitlement e = a or (a and b)",
            fix: "product a: non_consumable\nproduct b: non_consumable\nentitlement e = a or b"),
        CodeExplanation(DuplicateGrantCheck.code, """
            One block grants the same feature twice. The grants are separate allowances consumed one \
            after the other, which is rarely what was meant.
            """, example: """
                feature calls: metered
                product p: non_consumable {
                  grants calls 100
                  grants calls 100
                }
                """,
            fix: "feature calls: metered\nproduct p: non_consumable {\n  grants calls 200\n}"),
        CodeExplanation(CarryWithoutResetCheck.code, """
            `carry` rolls unused allowance into the next window, but a grant without `per` is a \
            lifetime allowance with no next window.
            """, example: "feature calls: metered\nproduct p: non_consumable { grants calls 100 carry }",
            fix: "feature calls: metered\nproduct p: non_consumable { grants calls 100 per month carry }"),
        CodeExplanation(CarryCapBelowAllowanceCheck.code, """
            `carry up to N` caps what rolls over, not the balance: with an allowance of 500 and \
            `carry up to 100`, a window can start with 600. A cap below one allowance usually means a \
            balance cap was meant. Silence it with `// entl-allow W308` when the small carry is intended.
            """, example: """
                feature calls: metered
                product p: non_consumable { grants calls 500 per month carry up to 100 }
                """,
            fix: "feature calls: metered\nproduct p: non_consumable { grants calls 500 per month carry up to 500 }"),
        CodeExplanation(UnlimitedWindowCheck.code, """
            An unlimited grant has nothing to reset or carry: `per` and `carry` on it have no effect.
            """, example: "feature calls: metered\nproduct p: non_consumable { grants calls unlimited per month }",
            fix: "feature calls: metered\nproduct p: non_consumable { grants calls unlimited }"),
        CodeExplanation(EquivalentEntitlementCheck.code, """
            Two entitlements are active for exactly the same purchases (decided on canonical BDDs). \
            Merge them, or declare one as an alias of the other.
            """, example: """
                product a: non_consumable
                product b: non_consumable
                entitlement one = a or b
                entitlement two = b or a
                """,
            fix: """
                product a: non_consumable
                product b: non_consumable
                entitlement one = a or b
                entitlement two = one
                """),
        CodeExplanation(Suppressions.code, """
            An `// entl-allow` comment names a code that is not a warning: unknown codes and error \
            codes cannot be allowed.
            """, example: "// entl-allow W399\nproduct old_pack: consumable",
            fix: "// entl-allow W301\nproduct old_pack: consumable"),
        CodeExplanation(DuplicateTestNameCheck.code, """
            Two test blocks have the same description, so `entlc test` output and `--filter` cannot \
            tell them apart.
            """, example: """
                product p: non_consumable
                entitlement e = p
                test "t" { expect e denied }
                test "t" { given p; expect e allowed }
                """,
            fix: """
                product p: non_consumable
                entitlement e = p
                test "no purchase" { at "2026-11-22T12:00:00Z"; expect e denied }
                test "bought" { at "2026-11-22T12:00:00Z"; given p; expect e allowed }
                """),
        CodeExplanation(TestWithoutExpectationCheck.code, """
            A test block has no `expect` line, so it can never fail.
            """, example: "product p: non_consumable\nentitlement e = p\ntest \"t\" { given p }",
            fix: "product p: non_consumable\nentitlement e = p\n"
                + "test \"t\" { at \"2026-11-22T12:00:00Z\"; given p; expect e allowed }"),
        CodeExplanation(TestWithoutInstantCheck.code, """
            A test is evaluated at one instant: its `at`, or the `now` of the state file it reads \
            (`state "…"`). A test with neither can never run: `entlc test` reports it as failed \
            ("cannot run"), every time.
            """, example: "product p: non_consumable\nentitlement e = p\ntest \"t\" { given p; expect e allowed }",
            fix: "product p: non_consumable\nentitlement e = p\n"
                + "test \"t\" { at \"2026-11-22T12:00:00Z\"; given p; expect e allowed }"),
        CodeExplanation(UnknownStoreCheck.code, """
            A store id names a store entlc does not know. Purchases match `id STORE "…"` by the exact \
            store name, so a misspelled store (`appstore` for `app_store`) never matches a purchase \
            and the product silently never counts. The known stores are app_store, mac_app_store, \
            play_store, amazon, stripe, paddle, web and promotional; for a store of your own, put \
            `// entl-allow W314` above the product.
            """, example: "feature f: boolean\nproduct p: non_consumable { id appstore \"com.x.p\"; grants f }",
            fix: "feature f: boolean\nproduct p: non_consumable { id app_store \"com.x.p\"; grants f }"),
        CodeExplanation(SkippedAnalysisCheck.code, """
            A note, not a warning: a lint could not check a constraint within its budget, so that \
            constraint may hide the problems that lint finds. The exact lints (W303, W304, W305, \
            W310) decide on a diagram of every purchase combination; a constraint whose diagram \
            would grow past the budget of one constraint is skipped (`constraint analysis … \
            skipped`), and so is one that names a skipped entitlement; the redundant-term search has \
            a budget of its own (`redundancy analysis … skipped`), and the terms it found before \
            are still reported. Everything else is checked as usual. Rewrite the constraint more \
            simply (the example means `gems >= 2 and coins >= 2`), or allow the note with \
            `// entl-allow W315` once you have checked the constraint yourself.
            """, example: """
            product gems: consumable
            product coins: consumable
            feature vault: boolean
            entitlement collector = TIERS { grants vault }
            """.replacing("TIERS", with: (2...17).map { "(gems >= \($0) and coins >= \($0))" }
                .joined(separator: " or\n  ")),
            fix: """
            product gems: consumable
            product coins: consumable
            feature vault: boolean
            entitlement collector = gems >= 2 and coins >= 2 { grants vault }
            """),

    ]
}
