import EntlSyntax

extension DiagnosticCatalog {
    /// The explanations of the name and kind errors (`E2xx`).
    static let names: [CodeExplanation] = [
        CodeExplanation(.unknownName, """
            A name is not declared in this rule set (in this environment). The help suggests the \
            closest declared name; a note says when the name exists only in the other environment.
            """, example: "product pro_monthly: subscription { period month }\nentitlement pro = pro_montly",
            fix: "product pro_monthly: subscription { period month }\nentitlement pro = pro_monthly"),
        CodeExplanation(.duplicateDeclaration, """
            Products, features, credit systems and entitlements share one namespace per environment. \
            The second declaration is reported, with a note at the first.
            """, example: "product pro: subscription { period month }\nentitlement pro = pro",
            fix: "product pro: subscription { period month }\nentitlement pro_access = pro"),
        CodeExplanation(.duplicateStoreID, """
            A (store, product id) pair names one product per environment; otherwise a purchase from \
            the tracker could not be matched.
            """, example: "product a: consumable { id app_store \"X\" }\nproduct b: consumable { id app_store \"X\" }",
            fix: "product a: consumable { id app_store \"X\" }\nproduct b: consumable { id app_store \"Y\" }"),
        CodeExplanation(.wrongKindOfName, """
            A name refers to the wrong kind of declaration: constraints name products and \
            entitlements, `grants` names features and credit systems, conversions name metered \
            features, `given` and `override` name products.
            """, example: "feature export: boolean\nentitlement e = export",
            fix: "product pro: non_consumable\nfeature export: boolean\nentitlement e = pro { grants export }"),
        CodeExplanation(.quantityOnNonConsumable, """
            Only consumables have a quantity: `NAME >= N` in a constraint and `quantity` in a test \
            need a consumable product.
            """, example: "product pro: subscription { period month }\nentitlement e = pro >= 2",
            fix: "product pro: subscription { period month }\nentitlement e = pro"),
        CodeExplanation(.amountOnBooleanGrant, """
            A boolean feature is on or off: its grant takes no amount, `per` or `carry`.
            """, example: "feature export: boolean\nproduct p: non_consumable { grants export 1 }",
            fix: "feature export: boolean\nproduct p: non_consumable { grants export }"),
        CodeExplanation(.missingGrantAmount, """
            A grant of a metered feature or credit system says how much: an amount, or `unlimited`.
            """, example: "feature calls: metered\nproduct p: non_consumable { grants calls per month }",
            fix: "feature calls: metered\nproduct p: non_consumable { grants calls 10_000 per month }"),
        CodeExplanation(.windowOnContinuousGrant, """
            A continuous feature (seats, storage) is a current level compared with the allowance: it \
            has no reset windows, so its grants take no `per` or `carry`.
            """, example: """
                feature seats: metered { usage continuous }
                product p: non_consumable { grants seats 5 per month }
                """,
            fix: "feature seats: metered { usage continuous }\nproduct p: non_consumable { grants seats 5 }"),
        CodeExplanation(.requiresOnMetered, """
            Only boolean features take `requires`. Grant a metered feature from an entitlement whose \
            constraint says who gets it.
            """, example: "product p: non_consumable\nfeature calls: metered requires p",
            fix: "product p: non_consumable\nfeature calls: metered\nentitlement e = p { grants calls 100 }"),
        CodeExplanation(.conversionOfNonMetered, """
            A credit system pays for metered features: a conversion cannot name a boolean feature or \
            another credit system.
            """, example: "feature export: boolean\ncredits c { export 1 = 5 }",
            fix: "feature calls: metered\ncredits c { calls 1 = 5 }"),
        CodeExplanation(.subscriptionWithoutPeriod, """
            A subscription renews every billing period, so it needs one: `period week`, `month`, \
            `quarter`, `half_year` or `year`.
            """, example: "product pro: subscription { id app_store \"com.x.pro\" }",
            fix: "product pro: subscription { period month; id app_store \"com.x.pro\" }"),
        CodeExplanation(.itemOnWrongKind, """
            `period` and `group` belong to subscriptions, `duration` to non-renewing products, \
            `usage`, `event` and `unit` to metered features.
            """, example: "product coins: consumable { period month }", fix: "product coins: consumable"),
        CodeExplanation(.numberNotPositive, """
            Amounts, durations, expiries, conversions, carry and overage caps and `>= N` quantities \
            must be at least 1: a zero would mean nothing, or always.
            """, example: "product pass: non_renewing { duration 0 days }",
            fix: "product pass: non_renewing { duration 30 days }"),
        CodeExplanation(.entitlementCycle, """
            Entitlements may refer to other entitlements, but not in a circle: whether one is active \
            could then not be decided.
            """, example: "product p: non_consumable\nentitlement a = b or p\nentitlement b = a",
            fix: "product p: non_consumable\nentitlement a = p\nentitlement b = a"),
        CodeExplanation(.duplicateApp, """
            A rule set describes one app: at most one `app` declaration across all its files.
            """, example: "app \"com.example.one\"\napp \"com.example.two\"", fix: "app \"com.example.one\""),
        CodeExplanation(.duplicateItem, """
            An item that can appear once (`name`, `period`, `group`, `duration`, `usage`, `event`, \
            `unit`; `at`, `env`, `state`, `customer since` and each product's `override` in tests) is \
            given twice.
            """, example: "product p: subscription { period month; period year }",
            fix: "product p: subscription { period year }"),
        CodeExplanation(.invalidInstant, """
            Instants in tests are RFC 3339 strings with a date, a time and a zone: \
            `"2026-11-22T12:00:00Z"`, fractional seconds and offsets allowed.
            """, example: """
                test "t" {
                  at "2026-13-01"
                }
                """, fix: "test \"t\" {\n  at \"2026-12-01T00:00:00Z\"\n}"),
        CodeExplanation(.invalidTestItem, """
            A test item does not fit what it names: `used` needs a single-use feature or credit \
            system, `level` a continuous feature, an amount or `balance` a metered feature, `via` a \
            metered feature (`via overage` a single-use one), `via credits SYSTEM` a system that \
            converts it; a `grant` of an entitlement takes no amount, `per` or `overage`, and a \
            `grant`'s `until` comes after its `from`.
            """, example: "feature seats: metered { usage continuous }\ntest \"t\" {\n  used seats 3\n}",
            fix: "feature seats: metered { usage continuous }\ntest \"t\" {\n  level seats 3\n}"),
        CodeExplanation(.duplicateConversion, """
            A credit system converts each feature once; two rates for one feature would be ambiguous.
            """, example: "feature calls: metered\ncredits c {\n  calls 1 = 5\n  calls 1 = 6\n}",
            fix: "feature calls: metered\ncredits c {\n  calls 1 = 5\n}"),
        CodeExplanation(.duplicateEvent, """
            Two features declare the same `event "…"`. Usage reported under that event name would be \
            counted for one of them only; give each feature its own event.
            """, example: "feature calls: metered { event \"call\" }\nfeature uploads: metered { event \"call\" }",
            fix: "feature calls: metered { event \"call\" }\nfeature uploads: metered { event \"upload\" }"),
        CodeExplanation(.dateOnEntitlement, """
            `purchased before` and `purchased since` qualify a product: which of its purchases count. An \
            entitlement is not bought; qualify the products in its constraint instead.
            """, example: "product pro: subscription { period month }\nentitlement paid = pro\n"
                + "entitlement legacy = paid purchased before \"2026-06-01T00:00:00Z\"",
            fix: "product pro: subscription { period month }\nentitlement paid = pro\n"
                + "entitlement legacy = pro purchased before \"2026-06-01T00:00:00Z\""),
        CodeExplanation(.durationTooLong, """
            A non-renewing product's `duration` and a grant's `expires after` are at most 100 years \
            (1,200 months, 5,217 weeks or 36,525 days): a longer one is a typo. A purchase that never \
            lapses is a `non_consumable` product, and a grant without `expires after` never lapses. \
            A built rule graph with a longer duration or expiry does not load either.
            """, example: "product pass: non_renewing { duration 10_000 years }",
            fix: "product pass: non_renewing { duration 10 years }"),
        CodeExplanation(.overageOnWrongKind, """
            `overage [up to N]` makes a grant a soft limit: use beyond it is allowed and reported as \
            `overdrawn`, to be billed. Only what is used up in single uses can be overdrawn: not a \
            boolean feature, not a continuous feature (a level), and not a credit system (credits \
            are prepaid: grant the feature they pay for with `overage` instead). In a test's `grant` \
            too.
            """, example: "feature seats: metered { usage continuous }\n"
                + "product team: non_consumable { grants seats 10 overage }",
            fix: "feature calls: metered\nproduct team: non_consumable { grants calls 10_000 per month overage }"),
        CodeExplanation(.expiryOnWrongGrant, """
            `expires after N UNIT` makes a grant a lot: granted once at the purchase, lapsing N UNIT \
            later (a credit pack valid for a year). It applies to a counted grant of a single-use \
            feature or credit system without `per`: a renewing allowance resets instead of lapsing, \
            an unlimited grant has nothing to lapse (a pass that ends is a `non_renewing` product with \
            a `duration`), and a boolean or continuous feature is not used up.
            """, example: "credits coins\nproduct pack: consumable { grants coins 100 per month expires after 1 year }",
            fix: "credits coins\nproduct pack: consumable { grants coins 100 expires after 1 year }"),
    ]
}
