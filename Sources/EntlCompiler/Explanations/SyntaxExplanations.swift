import EntlSyntax

extension DiagnosticCatalog {
    /// The explanations of the syntax errors (`E1xx`).
    static let syntax: [CodeExplanation] = [
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
            """, example: "product p: consumable { name \"Premium }",
            fix: "product p: consumable { name \"Premium\" }"),
        CodeExplanation(.invalidEscape, """
            Strings know the escapes `\\"`, `\\\\`, `\\n`, `\\t` and `\\u{…}` (1 to 6 hex digits of a \
            Unicode scalar). Anything else after a backslash is an error.
            """, example: "product p: consumable { name \"C:\\Store\" }",
            fix: "product p: consumable { name \"C:\\\\Store\" }"),
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
            """, example: """
                product p: consumable
                entitlement e = p or
                """, fix: "product p: consumable\nentitlement e = p"),
        CodeExplanation(.reservedWord, """
            `app environment product feature credits entitlement test and or not` are reserved and \
            cannot name anything. Every other keyword (`name`, `unit`, `event`, …) is contextual and \
            free to use as a name.
            """, example: "product test: consumable", fix: "product test_pack: consumable"),
        CodeExplanation(.unknownKind, """
            Product kinds are `non_consumable`, `consumable`, `subscription` and `non_renewing`; \
            feature kinds are `boolean` and `metered`.
            """, example: "product pro: subscriptions { period month }",
            fix: "product pro: subscription { period month }"),
        CodeExplanation(.unknownKeyword, """
            A word from a closed set is misspelled: a billing period (`week month quarter half_year \
            year`), a reset interval (`minute hour day …`), a duration unit, a usage, a purchase \
            status, an override, or a decision.
            """, example: "product pro: subscription { period monthly }",
            fix: "product pro: subscription { period month }"),
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
            """, example: "product pro: subscription { perod month }",
            fix: "product pro: subscription { period month }"),
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
            """, example: """
                product zbucks: consumable
                entitlement rich = zbucks >= 5 purchased before "2026-06-01T00:00:00Z"
                """,
            fix: """
                product zbucks: consumable
                entitlement rich = zbucks >= 5 and zbucks purchased before "2026-06-01T00:00:00Z"
                """),
    ]
}
