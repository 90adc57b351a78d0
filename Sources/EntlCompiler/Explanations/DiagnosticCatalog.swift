import EntlSyntax

/// The long explanation of one diagnostic code: what it means, a small failing example, and the
/// fix. `entlc explain CODE` prints it; SARIF output carries it as the rule's full description.
public struct CodeExplanation: Sendable {
    public let code: DiagnosticCode
    public let summary: String
    /// A rule set that produces the code (nil where no text can: invalid UTF-8, huge files).
    /// For a `D` code, the NEW version of a change.
    public let example: String?
    /// For a `D` code, the OLD version that `example` changes.
    public let before: String?
    /// The example, fixed (nil for a finding that needs no fix).
    public let fix: String?

    init(_ code: DiagnosticCode, _ summary: String, before: String? = nil, example: String?, fix: String?) {
        self.code = code
        self.summary = summary
        self.before = before
        self.example = example
        self.fix = fix
    }

    /// The text `entlc explain` prints.
    public var text: String {
        var out = "\(code.id): \(code.title)\n\n\(summary)\n"
        if let before { out += "\nBefore:\n\n" + indent(before) }
        if let example { out += (before == nil ? "\nExample:\n\n" : "\nAfter:\n\n") + indent(example) }
        if let fix { out += "\nFix:\n\n" + indent(fix) }
        return out
    }

    private func indent(_ s: String) -> String {
        s.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "    " + $0 }.joined(separator: "\n") + "\n"
    }
}

/// Every code the compiler can emit, with its explanation.
public enum DiagnosticCatalog {
    public static var codes: [DiagnosticCode] {
        (DiagnosticCode.syntaxCodes + DiagnosticCode.checkerCodes + Linter.codes + DiagnosticCode.diffCodes).sorted()
    }

    public static func explanation(_ id: String) -> CodeExplanation? {
        byID[id.uppercased()]
    }

    public static let all: [CodeExplanation] = explanations.sorted { $0.code < $1.code }

    private static let byID: [String: CodeExplanation] = Dictionary(explanations.map { ($0.code.id, $0) },
                                                                     uniquingKeysWith: { a, _ in a })

    private static let explanations: [CodeExplanation] = [
        // MARK: Syntax
        CodeExplanation(.unexpectedCharacter, """
            A character that starts no token: only letters, digits, `_`, strings, comments and the \
            punctuation `{ } ( ) : = >= / ;` may appear. The only comparison is `>=`.
            """, example: "entitlement rich = zbucks > 5\nproduct zbucks: consumable",
            fix: "entitlement rich = zbucks >= 6\nproduct zbucks: consumable"),
        CodeExplanation(.invalidUTF8, """
            Rule files are UTF-8 text. The error points at the first byte that is not valid UTF-8 (a \
            file saved as Latin-1 or UTF-16, or binary data). Save the file as UTF-8.
            """, example: nil, fix: nil),
        CodeExplanation(.unterminatedComment, """
            A block comment `/* … */` has no end. Block comments nest, so every `/*` inside needs \
            its own `*/`.
            """, example: "/* Products /* and prices */\nproduct p: consumable",
            fix: "/* Products /* and prices */ */\nproduct p: consumable"),
        CodeExplanation(.unterminatedString, """
            A string has no closing quote on its line. Strings cannot span lines; write `\\n` for a \
            line break inside one.
            """, example: "product p: consumable { name \"Premium }", fix: "product p: consumable { name \"Premium\" }"),
        CodeExplanation(.invalidEscape, """
            Strings know the escapes `\\"`, `\\\\`, `\\n`, `\\t` and `\\u{…}` (1 to 6 hex digits of a \
            Unicode scalar). Anything else after a backslash is an error.
            """, example: "product p: consumable { name \"C:\\Store\" }", fix: "product p: consumable { name \"C:\\\\Store\" }"),
        CodeExplanation(.integerTooLarge, """
            Amounts are integers from 0 to 10^15 (1_000_000_000_000_000). Larger numbers are an \
            error, never silently wrapped or rounded.
            """, example: "product p: consumable { grants calls 2_000_000_000_000_000 }\nfeature calls: metered",
            fix: "product p: consumable { grants calls unlimited }\nfeature calls: metered"),
        CodeExplanation(.malformedInteger, """
            Numbers are decimal digits; `_` may group them, one at a time and only between digits \
            (`10_000`). Letters and doubled or trailing `_` are errors.
            """, example: "product p: consumable { grants calls 10__000 }\nfeature calls: metered",
            fix: "product p: consumable { grants calls 10_000 }\nfeature calls: metered"),
        CodeExplanation(.expectedToken, """
            The parser expected something else here. The message says what; after the error the \
            parser skips to the next item or declaration, so one mistake gives one error.
            """, example: "product p: consumable\nentitlement e = p or", fix: "product p: consumable\nentitlement e = p"),
        CodeExplanation(.reservedWord, """
            `app environment product feature credits entitlement test and or not` are reserved and \
            cannot name anything. Every other keyword (`name`, `unit`, `event`, …) is contextual and \
            free to use as a name.
            """, example: "product test: consumable", fix: "product test_pack: consumable"),
        CodeExplanation(.unknownKind, """
            Product kinds are `non_consumable`, `consumable`, `subscription` and `non_renewing`; \
            feature kinds are `boolean` and `metered`.
            """, example: "product pro: subscriptions { period month }", fix: "product pro: subscription { period month }"),
        CodeExplanation(.unknownKeyword, """
            A word from a closed set is misspelled: a billing period (`week month quarter half_year \
            year`), a reset interval (`minute hour day …`), a duration unit, a usage, a purchase \
            status, an override, or a decision.
            """, example: "product pro: subscription { period monthly }", fix: "product pro: subscription { period month }"),
        CodeExplanation(.nestingTooDeep, """
            A constraint nests `(` and `not` more than 256 levels deep. Nothing that deep is readable; \
            split it into entitlements that refer to each other.
            """, example: "product a: consumable\nentitlement e = " + String(repeating: "(", count: 257) + "a"
                + String(repeating: ")", count: 257),
            fix: "product a: consumable\nentitlement e = a"),
        CodeExplanation(.unknownItem, """
            A block holds an item its declaration does not have. Products have `name id period group \
            duration grants`; features `name usage event unit`; credit systems `name unit` and \
            conversions; entitlements `name grants`.
            """, example: "product pro: subscription { perod month }", fix: "product pro: subscription { period month }"),
        CodeExplanation(.unknownEnvironment, """
            There are two environments: `live` (production purchases) and `test` (sandbox and QA). \
            Declarations outside any environment block exist in both.
            """, example: "environment staging { product qa: non_consumable }",
            fix: "environment test {\n  product qa: non_consumable\n  entitlement qa_access = qa\n}"),
        CodeExplanation(.misplacedDeclaration, """
            An environment block holds products, features, credit systems and entitlements only: \
            `app`, `test` and nested `environment` blocks belong at the top level.
            """, example: "environment test { app \"com.example.qa\" }", fix: "app \"com.example.qa\""),
        CodeExplanation(.duplicateClause, """
            A clause is given twice in one grant or test item (`per`, `carry`, `priority`, `since`, \
            `balance`, …). Keep one.
            """, example: "product p: non_consumable { grants calls 5 per day per month }\nfeature calls: metered",
            fix: "product p: non_consumable { grants calls 5 per day }\nfeature calls: metered"),
        CodeExplanation(.fileTooLarge, """
            A rule file is larger than 32 MiB. Split the rule set over several files in a directory; \
            `entlc` reads every `*.entl` beneath it.
            """, example: nil, fix: nil),
        CodeExplanation(.notARuleFile, """
            The file starts with `{` or `[`: it is JSON (a state file, most likely), not a rule file. \
            Rule files hold declarations; evaluate a state with `entlc eval RULES --state FILE`.
            """, example: "{\"customer\": \"user_42\", \"purchases\": []}", fix: "product p: non_consumable"),
        CodeExplanation(.ambiguousTestInstant, """
            Test items end at the end of their line, so an `at` on the line below `used calls 30` \
            is the test's own instant, not the time of the use, although it reads like one. Write the \
            use's instant on its line, or put the test's `at` before the `used` items.
            """, example: "feature calls: metered\ntest \"t\" {\n  used calls 30\n  at \"2026-11-20T10:00:00Z\"\n}",
            fix: "feature calls: metered\ntest \"t\" {\n  used calls 30 at \"2026-11-20T10:00:00Z\"\n}"),
        CodeExplanation(.dateOnQuantity, """
            `purchased before` and `purchased since` say which purchases of a product count; a quantity \
            (`zbucks >= 5`) counts units whenever they were bought. Qualify the product and keep the \
            quantity apart.
            """, example: "product zbucks: consumable\nentitlement rich = zbucks >= 5 purchased before \"2026-06-01T00:00:00Z\"",
            fix: "product zbucks: consumable\nentitlement rich = zbucks >= 5 and zbucks purchased before \"2026-06-01T00:00:00Z\""),
        // MARK: Names and kinds
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
            """, example: "feature seats: metered { usage continuous }\nproduct p: non_consumable { grants seats 5 per month }",
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
            Amounts, durations, conversions, carry caps and `>= N` quantities must be at least 1: a \
            zero would mean nothing, or always.
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
            `unit`; `at`, `env`, `state` in tests) is given twice.
            """, example: "product p: subscription { period month; period year }",
            fix: "product p: subscription { period year }"),
        CodeExplanation(.invalidInstant, """
            Instants in tests are RFC 3339 strings with a date, a time and a zone: \
            `"2026-11-22T12:00:00Z"`, fractional seconds and offsets allowed.
            """, example: "test \"t\" {\n  at \"2026-13-01\"\n}", fix: "test \"t\" {\n  at \"2026-12-01T00:00:00Z\"\n}"),
        CodeExplanation(.invalidTestItem, """
            A test item does not fit what it names: `used` needs a single-use feature or credit \
            system, `level` a continuous feature, an amount or `balance` a metered feature, `via` a \
            metered feature, `via credits SYSTEM` a system that converts it.
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
        // MARK: Lints
        CodeExplanation(UnusedProductCheck.code, """
            No constraint names the product and it grants nothing itself, so buying it unlocks \
            nothing: a leftover, or a typo elsewhere.
            """, example: "product old_pack: consumable", fix: "product old_pack: consumable { grants calls 100 }\nfeature calls: metered"),
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
            """, example: "feature calls: metered\nproduct p: non_consumable {\n  grants calls 100\n  grants calls 100\n}",
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
            """, example: "feature calls: metered\nproduct p: non_consumable { grants calls 500 per month carry up to 100 }",
            fix: "feature calls: metered\nproduct p: non_consumable { grants calls 500 per month carry up to 500 }"),
        CodeExplanation(UnlimitedWindowCheck.code, """
            An unlimited grant has nothing to reset or carry: `per` and `carry` on it have no effect.
            """, example: "feature calls: metered\nproduct p: non_consumable { grants calls unlimited per month }",
            fix: "feature calls: metered\nproduct p: non_consumable { grants calls unlimited }"),
        CodeExplanation(EquivalentEntitlementCheck.code, """
            Two entitlements are active for exactly the same purchases (decided on canonical BDDs). \
            Merge them, or declare one as an alias of the other.
            """, example: "product a: non_consumable\nproduct b: non_consumable\nentitlement one = a or b\nentitlement two = b or a",
            fix: "product a: non_consumable\nproduct b: non_consumable\nentitlement one = a or b\nentitlement two = one"),
        CodeExplanation(Suppressions.code, """
            An `// entl-allow` comment names a code that is not a warning: unknown codes and error \
            codes cannot be allowed.
            """, example: "// entl-allow W399\nproduct old_pack: consumable",
            fix: "// entl-allow W301\nproduct old_pack: consumable"),
        CodeExplanation(DuplicateTestNameCheck.code, """
            Two test blocks have the same description, so `entlc test` output and `--filter` cannot \
            tell them apart.
            """, example: "product p: non_consumable\nentitlement e = p\ntest \"t\" { expect e denied }\ntest \"t\" { given p; expect e allowed }",
            fix: "product p: non_consumable\nentitlement e = p\ntest \"no purchase\" { expect e denied }\ntest \"bought\" { given p; expect e allowed }"),
        CodeExplanation(TestWithoutExpectationCheck.code, """
            A test block has no `expect` line, so it can never fail.
            """, example: "product p: non_consumable\nentitlement e = p\ntest \"t\" { given p }",
            fix: "product p: non_consumable\nentitlement e = p\ntest \"t\" { given p; expect e allowed }"),
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

        // MARK: entlc diff (the examples are OLD → NEW, compared with --since 2026-06-01T00:00:00Z)
        CodeExplanation(.entitlementLost, """
            A customer who holds the entitlement under the old rules, with purchases made before the \
            change (`--since`), no longer holds it under the new ones: the example situation shows \
            who. App code that checks the entitlement denies them the moment the rules ship. To keep \
            what was sold, add the old terms back for purchases made before the change, as the help \
            shows (`P purchased before "…"`); to take it away on purpose, allow D401.
            """, before: "product monthly: subscription { period month }\nproduct annual: subscription { period year }\nentitlement pro = monthly or annual",
            example: "product monthly: subscription { period month }\nproduct annual: subscription { period year }\nentitlement pro = annual",
            fix: "product monthly: subscription { period month }\nproduct annual: subscription { period year }\nentitlement pro = annual or monthly purchased before \"2026-06-01T00:00:00Z\""),
        CodeExplanation(.featureLost, """
            A customer who had the feature (from an entitlement, a product's grant or the feature's \
            own `requires`) with purchases made before the change no longer has it. A metered feature \
            is lost when nothing grants it any more. Keep it for existing purchasers with a legacy \
            entitlement qualified `purchased before "…"`, as the help shows.
            """, before: "product pro: non_consumable\nfeature raw_export: boolean\nentitlement premium = pro { grants raw_export }",
            example: "product pro: non_consumable\nfeature raw_export: boolean\nentitlement premium = pro",
            fix: "product pro: non_consumable\nfeature raw_export: boolean\nentitlement premium = pro\nentitlement premium_legacy = pro purchased before \"2026-06-01T00:00:00Z\" { grants raw_export }"),
        CodeExplanation(.allowanceShrinks, """
            A metered feature or credit system gives existing customers less: a smaller amount, a \
            longer interval (the same amount resetting less often), carry-over removed or capped \
            lower, or unlimited turned into a number. The grants every active source gives are \
            compared per purchase situation, so moving an allowance from one entitlement to another \
            that the same customers hold is no change. A legacy entitlement for purchases made \
            before the change can grant the difference.
            """, before: "product pro: subscription { period month }\nfeature calls: metered\nentitlement e = pro { grants calls 20_000 per month }",
            example: "product pro: subscription { period month }\nfeature calls: metered\nentitlement e = pro { grants calls 10_000 per month }",
            fix: "product pro: subscription { period month }\nfeature calls: metered\nentitlement e = pro { grants calls 10_000 per month }\nentitlement e_legacy = pro purchased before \"2026-06-01T00:00:00Z\" { grants calls 10_000 per month }"),
        CodeExplanation(.nameRemoved, """
            A product, feature, credit system or entitlement of the old rules is gone, or its name \
            now means another kind of thing. App code and trackers name them (`entitled(feature:)`, \
            purchases by rule name), and a name that no longer exists is denied. When another name \
            has the same definition the message says so: a rename is still a removal for app code.
            """, before: "product pro: non_consumable\nentitlement premium = pro",
            example: "product pro: non_consumable\nentitlement plus = pro",
            fix: "product pro: non_consumable\nentitlement premium = pro\nentitlement plus = pro"),
        CodeExplanation(.storeIDUnmapped, """
            A store id of a product is gone from it (removed, or moved to another product): purchases \
            the store reports under that id stop counting for the product. A product may list several \
            ids per store; keep the old one next to the new one.
            """, before: "product pro: non_consumable { id app_store \"com.x.pro\" }\nentitlement e = pro",
            example: "product pro: non_consumable { id app_store \"com.x.pro2\" }\nentitlement e = pro",
            fix: "product pro: non_consumable { id app_store \"com.x.pro\"; id app_store \"com.x.pro2\" }\nentitlement e = pro"),
        CodeExplanation(.conversionDearer, """
            A credit system charges more credits per unit of a feature, or no longer pays for it: \
            credits customers already bought buy less.
            """, before: "feature calls: metered\ncredits c { calls 1 = 5 }",
            example: "feature calls: metered\ncredits c { calls 1 = 10 }",
            fix: "feature calls: metered\ncredits c { calls 1 = 5 }"),
        CodeExplanation(.accessGained, """
            A purchase situation gains an entitlement or a feature (a note: nothing breaks).
            """, before: "product pro: non_consumable\nentitlement e = pro\nproduct plus: non_consumable",
            example: "product pro: non_consumable\nentitlement e = pro or plus\nproduct plus: non_consumable", fix: nil),
        CodeExplanation(.allowanceGrows, """
            A metered feature or credit system gives some purchase situation more (a note).
            """, before: "product pro: non_consumable\nfeature calls: metered\nentitlement e = pro { grants calls 100 per month }",
            example: "product pro: non_consumable\nfeature calls: metered\nentitlement e = pro { grants calls 200 per month }", fix: nil),
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
            """, before: "product pro: non_consumable\nfeature raw_export: boolean\nentitlement e = pro { grants raw_export }",
            example: "product pro: non_consumable\nfeature raw_export: boolean\nentitlement e = pro purchased before \"2026-06-01T00:00:00Z\" { grants raw_export }",
            fix: nil),
        CodeExplanation(.comparisonIncomplete, """
            The comparison hit a limit: the constraints' diagrams grew too large, or a feature has so \
            many grant sources that not every purchase situation was compared. What was compared is \
            reported; the rest is not proven unchanged. Split very wide entitlements to compare them.
            """, example: nil, fix: nil),
    ]
}
