import EntlSyntax

extension DiagnosticCatalog {
    /// The explanations of `entlc diff`'s findings (`D4xx`, `D1xx`): the examples are OLD →
    /// NEW, compared with `--since 2026-06-01T00:00:00Z`.
    static let diff: [CodeExplanation] = [
        CodeExplanation(.entitlementLost, """
            A customer who holds the entitlement under the old rules, with purchases made before the \
            change (`--since`), no longer holds it under the new ones: the example situation shows \
            who. App code that checks the entitlement denies them the moment the rules ship. To keep \
            what was sold, add the old terms back for purchases made before the change, as the help \
            shows (`P purchased before "…"`); to take it away on purpose, allow D401.
            """, before: """
                product monthly: subscription { period month }
                product annual: subscription { period year }
                entitlement pro = monthly or annual
                """,
            example: """
                product monthly: subscription { period month }
                product annual: subscription { period year }
                entitlement pro = annual
                """,
            fix: """
                product monthly: subscription { period month }
                product annual: subscription { period year }
                entitlement pro = annual or monthly purchased before "2026-06-01T00:00:00Z"
                """),
        CodeExplanation(.featureLost, """
            A customer who had the feature (from an entitlement, a product's grant or the feature's \
            own `requires`) with purchases made before the change no longer has it. A metered feature \
            is lost when nothing grants it any more. Keep it for existing purchasers with a legacy \
            entitlement qualified `purchased before "…"`, as the help shows.
            """, before: """
                product pro: non_consumable
                feature raw_export: boolean
                entitlement premium = pro { grants raw_export }
                """,
            example: "product pro: non_consumable\nfeature raw_export: boolean\nentitlement premium = pro",
            fix: """
                product pro: non_consumable
                feature raw_export: boolean
                entitlement premium = pro
                entitlement premium_legacy = pro purchased before "2026-06-01T00:00:00Z" { grants raw_export }
                """),
        CodeExplanation(.allowanceShrinks, """
            A metered feature or credit system gives existing customers less: a smaller amount, a \
            longer interval (the same amount resetting less often), carry-over removed or capped \
            lower, a soft limit (`overage`) removed or capped lower, a lot whose `expires after` got \
            shorter or that gained one, or unlimited turned into a number. The grants every active source gives are \
            compared per purchase situation, so moving an allowance from one entitlement to another \
            that the same customers hold is no change. A legacy entitlement for purchases made \
            before the change can grant the difference.
            """, before: """
                product pro: subscription { period month }
                feature calls: metered
                entitlement e = pro { grants calls 20_000 per month }
                """,
            example: """
                product pro: subscription { period month }
                feature calls: metered
                entitlement e = pro { grants calls 10_000 per month }
                """,
            fix: """
                product pro: subscription { period month }
                feature calls: metered
                entitlement e = pro { grants calls 10_000 per month }
                entitlement e_legacy = pro purchased before "2026-06-01T00:00:00Z" { grants calls 10_000 per month }
                """),
        CodeExplanation(.nameRemoved, """
            A product, feature, credit system or entitlement of the old rules is gone, or its name \
            now means another kind of thing, or a feature's `event` name now names another feature \
            or none. App code and trackers name them (`entitled(feature:)`, purchases by rule name, \
            usage records by event), and a name that no longer exists is denied. When another name \
            has the same definition the message says so: a rename is still a removal for app code.
            """, before: "product pro: non_consumable\nentitlement premium = pro",
            example: "product pro: non_consumable\nentitlement plus = pro",
            fix: "product pro: non_consumable\nentitlement premium = pro\nentitlement plus = pro"),
        CodeExplanation(.storeIDUnmapped, """
            A store id of a product is gone from it (removed, or moved to another product): purchases \
            the store reports under that id stop counting for the product. Or another product now has \
            it too (at any store), or is named by it: a purchase that gives the id without a `store` \
            is then an error, or counts for the other product. A product may list several ids per \
            store; keep the old one next to the new one.
            """, before: "product pro: non_consumable { id app_store \"com.x.pro\" }\nentitlement e = pro",
            example: "product pro: non_consumable { id app_store \"com.x.pro2\" }\nentitlement e = pro",
            fix: """
                product pro: non_consumable { id app_store "com.x.pro"; id app_store "com.x.pro2" }
                entitlement e = pro
                """),
        CodeExplanation(.conversionDearer, """
            A credit system charges more credits per unit of a feature, or no longer pays for it: \
            credits customers already bought buy less.
            """, before: "feature calls: metered\ncredits c { calls 1 = 5 }",
            example: "feature calls: metered\ncredits c { calls 1 = 10 }",
            fix: "feature calls: metered\ncredits c { calls 1 = 5 }"),
        CodeExplanation(.ownershipShortened, """
            A non-renewing product's `duration` got shorter, or it has one where it had none: a \
            purchase the tracker records without `expires_at` is owned for the duration from its \
            purchase, so customers who bought it lose what it unlocks sooner — some of them today.
            """, before: "product pass: non_renewing { duration 90 days }\nentitlement e = pass",
            example: "product pass: non_renewing { duration 30 days }\nentitlement e = pass",
            fix: """
                product pass: non_renewing { duration 90 days }
                product pass_30: non_renewing { duration 30 days }
                entitlement e = pass or pass_30
                """),
        CodeExplanation(.accessGained, """
            A purchase situation gains an entitlement or a feature (a note: nothing breaks).
            """, before: "product pro: non_consumable\nentitlement e = pro\nproduct plus: non_consumable",
            example: """
                product pro: non_consumable
                entitlement e = pro or plus
                product plus: non_consumable
                """, fix: nil),
        CodeExplanation(.allowanceGrows, """
            A metered feature or credit system gives some purchase situation more (a note).
            """, before: """
                product pro: non_consumable
                feature calls: metered
                entitlement e = pro { grants calls 100 per month }
                """,
            example: """
                product pro: non_consumable
                feature calls: metered
                entitlement e = pro { grants calls 200 per month }
                """, fix: nil),
        CodeExplanation(.nameAdded, """
            A name the old rules did not have (a note).
            """, before: "product pro: non_consumable",
            example: "product pro: non_consumable\nproduct plus: non_consumable", fix: nil),
        CodeExplanation(.conversionCheaper, """
            A credit system charges fewer credits per unit of a feature, or pays for a new one (a note).
            """, before: "feature calls: metered\ncredits c { calls 1 = 10 }",
            example: "feature calls: metered\ncredits c { calls 1 = 5 }", fix: nil),
        CodeExplanation(.futurePurchasesOnly, """
            Access or an allowance changes only for purchases made from the `--since` instant on: \
            every customer who bought before keeps what they had. This is what a grandfathered change \
            looks like (a note). Run `entlc diff` with `--since` set to the instant the rules ship.
            """, before: """
                product pro: non_consumable
                feature raw_export: boolean
                entitlement e = pro { grants raw_export }
                """,
            example: """
                product pro: non_consumable
                feature raw_export: boolean
                entitlement e = pro purchased before "2026-06-01T00:00:00Z" { grants raw_export }
                """,
            fix: nil),
        CodeExplanation(.comparisonIncomplete, """
            The comparison hit a limit: the constraints' diagrams grew too large, or a feature has so \
            many grant sources that not every purchase situation was compared. What was compared is \
            reported; the rest is not proven unchanged. Split very wide entitlements to compare them.
            """, example: nil, fix: nil),
    ]
}
