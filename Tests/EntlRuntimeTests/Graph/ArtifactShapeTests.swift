import EntlCompiler
import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Testing

/// The loader accepts only what the compiler emits: each shape the compiler cannot emit, written
/// into a built artifact by hand (and resealed), is refused with its exact place and reason.
@Suite struct ArtifactShapeTests {
    /// products: 0 monthly, 1 pack, 2 pass, 3 lifetime; entitlements: 0 pro, 1 vip; features:
    /// 0 export, 1 calls, 2 seats, 3 tokens. Grant orders: lifetime's calls 0, then pro's calls 1,
    /// seats 2, export 3, tokens 4. `pro` is `[product 0, at_least 1 2, or 2]`, `vip` is
    /// `[entitlement 0, product 2, not, and 2]`.
    static let rules = """
        product monthly: subscription { period month; group plans; id app_store "m" }
        product pack: consumable
        product pass: non_renewing { duration 30 days }
        product lifetime: non_consumable { grants calls 5 }
        entitlement pro = monthly or pack >= 2 {
          grants calls 100 per month carry up to 50
          grants seats 5
          grants export
          grants tokens 10 per day carry
        }
        entitlement vip = pro and not pass
        feature export: boolean requires lifetime
        feature calls: metered { event "call"; unit "call" / "calls" }
        feature seats: metered { usage continuous }
        credits tokens { calls 1 = 2; seats 1 = 10 }
        """

    static let artifact: [UInt8] = {
        let graph = Compiler.compile([SourceFile(path: "shapes.entl", text: rules)], lint: false).graph!
        return RuleGraphArtifact.encode(graph, compiler: "entlc test")
    }()

    static let notAName = "is not a name (a letter or `_`, then letters, digits and `_`)"

    /// `value` written at `path` under `graph.live`: the refusal, as `path: message` with the
    /// path under `graph.live` (or "accepted").
    func refused(_ path: [JSONStep], _ value: JSONValue) -> String {
        refused { $0.set(["graph", "live"] + path, value) }
    }

    func refused(_ edit: (inout JSONValue) -> Void) -> String {
        guard let error = refusal(of: Self.artifact, edit) else { return "accepted" }
        let live = "graph.live."
        return error.path.hasPrefix(live) ? String(error.description.dropFirst(live.count)) : error.description
    }

    @Test func theUneditedArtifactLoads() {
        #expect(refusal(of: Self.artifact) { _ in } == nil)
    }

    // MARK: - Constraints

    @Test func anAndOrOrOfFewerThanTwoOperandsIsRefused() {
        #expect(refused(["entitlements", 0, "constraint"], .array([.array(["product", 0]), .array(["or", 1])]))
                == "entitlements[0].constraint[1][1]: an `or` needs at least two operands")
        let program: JSONValue = .array([.array(["everyone"]), .array(["and", 0]), .array(["and", 2])])
        #expect(refused(["entitlements", 1, "constraint"], program)
                == "entitlements[1].constraint[1][1]: an `and` needs at least two operands")
    }

    @Test func aThresholdOfZeroOrOnANonConsumableIsRefused() {
        #expect(refused(["entitlements", 0, "constraint", 1], .array(["at_least", 1, 0]))
                == "entitlements[0].constraint[1][2]: a threshold is at least 1 (`>= 0` always holds)")
        #expect(refused(["entitlements", 0, "constraint", 1], .array(["at_least", 0, 2]))
                == "entitlements[0].constraint[1][1]: a threshold (`>= N`) counts units of a consumable; "
                + "`monthly` is a subscription")
        #expect(refused(["features", 0, "requires"], .array([.array(["at_least", 3, 1])]))
                == "features[0].requires[0][1]: a threshold (`>= N`) counts units of a consumable; "
                + "`lifetime` is a non-consumable product")
    }

    /// Nesting is counted as the source needs it: an `and` inside an `and` takes parentheses, an
    /// `and` inside an `or` does not.
    @Test func aConstraintNeedingMoreThan256LevelsIsRefused() {
        var ands: [JSONValue] = [.array(["product", 0])]
        for _ in 0..<258 { ands += [.array(["product", 3]), .array(["and", 2])] }
        #expect(refused(["entitlements", 0, "constraint"], .array(ands))
                == "entitlements[0].constraint[516]: the constraint nests deeper than 256 levels of parentheses and "
                + "`not`")
        // `a or b and (a or b and (…))`: two tree levels per level of parentheses, 300 of them
        // deep, but only 150 levels of parentheses.
        var mixed: [JSONValue] = [.array(["product", 0])]
        for i in 0..<300 { mixed += [.array(["product", 3]), .array([i % 2 == 0 ? "and" : "or", 2])] }
        #expect(refused(["entitlements", 0, "constraint"], .array(mixed)) == "accepted")
    }

    // MARK: - Products

    @Test func aPeriodOnlyOnSubscriptionsAndAlwaysThere() {
        #expect(refused(["products", 0, "period"], .null)
                == "products[0].period: a subscription needs a billing `period`")
        #expect(refused(["products", 0, "period"], "minute")
                == "products[0].period: `minute` is not a billing period (week, month, quarter, half_year or year)")
        #expect(refused(["products", 1, "period"], "month")
                == "products[1].period: a `period` applies only to subscriptions, not to a consumable")
        #expect(refused(["products", 3, "group"], "plans")
                == "products[3].group: a `group` applies only to subscriptions, not to a non-consumable product")
        #expect(refused(["products", 0, "group"], "my plans")
                == #"products[0].group: "my plans" \#(Self.notAName)"#)
    }

    @Test func aDurationOnlyOnNonRenewingProductsUpTo100Years() {
        let month: JSONValue = .object([("months", 1), ("seconds", 0)])
        #expect(refused(["products", 0, "duration"], month)
                == "products[0].duration: a `duration` applies only to non-renewing products, not to a subscription")
        #expect(refused(["products", 2, "duration"], .object([("months", 120_000), ("seconds", 0)]))
                == "products[2].duration.months: a duration of 120000 months is longer than 100 years "
                + "(1200 months, 36525 days)")
        #expect(refused(["products", 2, "duration"], .object([("months", 0), ("seconds", .int(36_526 * 86_400))]))
                == "products[2].duration.seconds: a duration of 36526 days is longer than 100 years "
                + "(1200 months, 36525 days)")
        #expect(refused(["products", 2, "duration"], .object([("months", 0), ("seconds", 3_600)]))
                == "products[2].duration.seconds: 3600 seconds is not a whole number of days")
        for (months, seconds): (Int64, Int64) in [(0, 0), (1, 86_400)] {
            let duration: JSONValue = .object([("months", .int(months)), ("seconds", .int(seconds))])
            #expect(refused(["products", 2, "duration"], duration)
                    == "products[2].duration: a duration is a number of months or of days: exactly one of `months` "
                    + "and `seconds` is not 0")
        }
        #expect(refused(["products", 2, "duration"], .object([("months", 1_200), ("seconds", 0)])) == "accepted")
        #expect(refused(["products", 2, "duration"], .object([("months", 0), ("seconds", .int(36_525 * 86_400))]))
                == "accepted")
    }

    // MARK: - Names

    @Test func namesAreIdentifiersAndNotReservedWords() {
        #expect(refused(["products", 0, "name"], "pro-monthly")
                == #"products[0].name: "pro-monthly" \#(Self.notAName)"#)
        #expect(refused(["features", 1, "name"], "")
                == #"features[1].name: "" \#(Self.notAName)"#)
        #expect(refused(["products", 1, "name"], "2x")
                == #"products[1].name: "2x" \#(Self.notAName)"#)
        #expect(refused(["entitlements", 1, "name"], "not")
                == "entitlements[1].name: `not` is a reserved word and cannot be a name")
        #expect(refused(["products", 0, "store_ids", 0, "store"], "app store")
                == #"products[0].store_ids[0].store: "app store" \#(Self.notAName)"#)
        #expect(refused(["features", 2, "event"], "call") == #"features[2].event: duplicate event name "call""#)
    }

    // MARK: - Features

    @Test func eventsUnitsAndRequirementsOnlyWhereTheLanguageHasThem() {
        #expect(refused(["features", 0, "event"], "export")
                == "features[0].event: an event applies only to metered features, not to a boolean feature")
        #expect(refused(["features", 3, "event"], "spend")
                == "features[3].event: an event applies only to metered features, not to a credit system")
        #expect(refused {
            $0.set(["graph", "live", "features", 0, "unit_singular"], "export")
            $0.set(["graph", "live", "features", 0, "unit_plural"], "exports")
        } == "features[0].unit_singular: a unit applies only to metered features, not to a boolean feature")
        #expect(refused(["features", 1, "unit_plural"], .null)
                == "features[1].unit_plural: a unit has both its singular and its plural")
        #expect(refused(["features", 1, "requires"], .array([.array(["everyone"])]))
                == "features[1].requires: only a boolean feature has a requirement")
    }

    @Test func conversionsArePositiveAndPayForMeteredFeaturesOnce() {
        #expect(refused(["features", 3, "conversions", 0, "feature"], 0)
                == "features[3].conversions[0].feature: a credit system pays for single-use and continuous features, "
                + "not for a boolean feature")
        #expect(refused(["features", 3, "conversions", 0, "feature"], 3)
                == "features[3].conversions[0].feature: a credit system pays for single-use and continuous features, "
                + "not for a credit system")
        #expect(refused(["features", 3, "conversions", 1, "feature"], 1)
                == "features[3].conversions[1].feature: `calls` is converted twice")
        #expect(refused(["features", 3, "conversions", 0, "amount"], 0)
                == "features[3].conversions[0].amount: 0 is out of range (1 to 1000000000000000)")
        #expect(refused(["features", 3, "conversions", 1, "credits"], 0)
                == "features[3].conversions[1].credits: 0 is out of range (1 to 1000000000000000)")
        let conversion: JSONValue = .object([("feature", 2), ("amount", 1), ("credits", 1)])
        #expect(refused(["features", 1, "conversions"], .array([conversion]))
                == "features[1].conversions[0]: only a credit system has conversions")
    }

    // MARK: - Grants

    @Test func amountsArePresentExactlyOnMeteredGrants() {
        #expect(refused(["features", 1, "grants", 0, "amount"], .null)
                == #"features[1].grants[0].amount: a grant of a single-use feature needs an amount or "unlimited""#)
        #expect(refused(["features", 3, "grants", 0, "amount"], .null)
                == #"features[3].grants[0].amount: a grant of a credit system needs an amount or "unlimited""#)
        #expect(refused(["features", 0, "grants", 0, "amount"], "unlimited")
                == "features[0].grants[0].amount: a boolean feature's grant has no amount")
        #expect(refused(["features", 2, "grants", 0, "amount"], 0)
                == "features[2].grants[0].amount: 0 is out of range (1 to 1000000000000000)")
    }

    @Test func perAndCarryOnlyOnSingleUseFeaturesAndCreditSystems() {
        let onlyOn = "applies only to grants of single-use features and credit systems"
        #expect(refused(["features", 0, "grants", 0, "interval"], "month")
                == "features[0].grants[0].interval: `per` \(onlyOn), not of a boolean feature")
        #expect(refused(["features", 2, "grants", 0, "interval"], "month")
                == "features[2].grants[0].interval: `per` \(onlyOn), not of a continuous feature")
        #expect(refused(["features", 2, "grants", 0, "carry"], "uncapped")
                == "features[2].grants[0].carry: `carry` \(onlyOn), not of a continuous feature")
        #expect(refused(["features", 0, "grants", 0, "carry"], 3)
                == "features[0].grants[0].carry: `carry` \(onlyOn), not of a boolean feature")
        #expect(refused(["features", 1, "grants", 1, "carry"], 0)
                == "features[1].grants[1].carry: 0 is out of range (1 to 1000000000000000)")
        // Carry without `per` is a lint (W307), not an error: the compiler emits it.
        #expect(refused(["features", 1, "grants", 1, "interval"], .null) == "accepted")
    }

    @Test func prioritiesAndOrdersAreThoseOfTheSource() {
        #expect(refused(["features", 1, "grants", 0, "priority"], -1)
                == "features[1].grants[0].priority: -1 is out of range (0 to 1000000000000000)")
        #expect(refused(["features", 1, "grants", 0, "order"], 5)
                == "features[1].grants[0].order: 5 is out of range (0 to 4)")
        #expect(refused(["features", 2, "grants", 0, "order"], 1)
                == "features[2].grants[0]: grant order 1 is used twice")
        #expect(refused {
            $0.set(["graph", "live", "features", 1, "grants", 0, "order"], 1)
            $0.set(["graph", "live", "features", 1, "grants", 1, "order"], 0)
        } == "features[1].grants[1].order: grant order 0 after grant order 1: a feature's grants are listed in "
            + "declaration order")
    }

    // MARK: - Soft limits and lots

    /// features: 0 calls, 1 coins, 2 seats; grants: calls' 0 (the pack's lot) and 1 (the plan's
    /// soft limit), coins' 0, seats' 0.
    static let commercial: [UInt8] = {
        let rules = """
            product pack: consumable { grants calls 100 expires after 12 months }
            product plan: subscription { period month; grants calls 10 per month overage up to 5 }
            feature calls: metered
            credits coins { calls 1 = 1 }
            feature seats: metered { usage continuous }
            entitlement e = plan { grants coins 5 per month; grants seats 3 }
            """
        let graph = Compiler.compile([SourceFile(path: "commercial.entl", text: rules)], lint: false).graph!
        return RuleGraphArtifact.encode(graph, compiler: "entlc test")
    }()

    func refusedCommercial(_ path: [JSONStep], _ value: JSONValue) -> String {
        guard let error = refusal(of: Self.commercial, { $0.set(["graph", "live"] + path, value) }) else {
            return "accepted"
        }
        return String(error.description.dropFirst("graph.live.".count))
    }

    /// The members are written only when a grant has them: older rule sets build the same bytes.
    @Test func overageAndExpiryAreWrittenOnlyWhenGiven() throws {
        #expect(!String(decoding: Self.artifact, as: UTF8.self).contains("overage"))
        #expect(!String(decoding: Self.artifact, as: UTF8.self).contains("expires_after"))
        let text = String(decoding: Self.commercial, as: UTF8.self)
        #expect(text.contains(#""carry":null,"expires_after":{"months":12,"seconds":0},"priority":0"#))
        #expect(text.contains(#""carry":null,"overage":5,"priority":0"#))
        let grants = try RuleGraphArtifact(bytes: Self.commercial).graph.live.features[0].grants
        #expect(grants.map(\.expiresAfter) == [CalendarStep(months: 12, seconds: 0), nil])
        #expect(grants.map(\.overage) == [nil, .upTo(5)])
        #expect(refusedCommercial(["features", 0, "grants", 1, "overage"], "unbounded") == "accepted")
    }

    @Test func overageOnlyOnSingleUseFeatures() {
        let onlyOn = "`overage` applies only to grants of single-use features"
        #expect(refusedCommercial(["features", 1, "grants", 0, "overage"], "unbounded")
                == "features[1].grants[0].overage: \(onlyOn), not of a credit system")
        #expect(refusedCommercial(["features", 2, "grants", 0, "overage"], 3)
                == "features[2].grants[0].overage: \(onlyOn), not of a continuous feature")
        #expect(refusedCommercial(["features", 0, "grants", 1, "overage"], 0)
                == "features[0].grants[1].overage: 0 is out of range (1 to 1000000000000000)")
        #expect(refusedCommercial(["features", 0, "grants", 1, "overage"], .null)
                == "features[0].grants[1].overage: expected an integer")
        #expect(refusedCommercial(["features", 0, "grants", 1, "overdraft"], 3)
                == "features[0].grants[1]: unknown member `overdraft`")
    }

    @Test func aLotIsACountedLifetimeGrantOfWhatIsUsedUpForAtMost100Years() {
        let month: JSONValue = .object([("months", 1), ("seconds", 0)])
        #expect(refusedCommercial(["features", 0, "grants", 1, "expires_after"], month)
                == "features[0].grants[1].expires_after: `expires after` applies only to a grant without `per` "
                + "(a lot is granted once)")
        #expect(refusedCommercial(["features", 2, "grants", 0, "expires_after"], month)
                == "features[2].grants[0].expires_after: `expires after` applies only to grants of single-use "
                + "features and credit systems, not of a continuous feature")
        #expect(refusedCommercial(["features", 0, "grants", 0, "amount"], "unlimited")
                == "features[0].grants[0].expires_after: `expires after` applies only to a grant with an amount "
                + "(an unlimited grant cannot lapse)")
        #expect(refusedCommercial(["features", 0, "grants", 0, "expires_after", "months"], 1_201)
                == "features[0].grants[0].expires_after.months: a duration of 1201 months is longer than 100 years "
                + "(1200 months, 36525 days)")
        #expect(refusedCommercial(["features", 0, "grants", 0, "expires_after", "seconds"], 86_400)
                == "features[0].grants[0].expires_after: a duration is a number of months or of days: exactly one "
                + "of `months` and `seconds` is not 0")
        #expect(refusedCommercial(["features", 0, "grants", 0, "expires_after"], .null)
                == "features[0].grants[0].expires_after: expected an object")
        #expect(refusedCommercial(["features", 1, "grants", 0, "expires_after"], month)
                == "features[1].grants[0].expires_after: `expires after` applies only to a grant without `per` "
                + "(a lot is granted once)")
    }

    /// Each environment is checked on its own, with its own places.
    @Test func theTestEnvironmentIsCheckedToo() throws {
        let graph = try #require(Compiler.compile([SourceFile(path: "e.entl", text: Self.rules + """

            environment test { product qa: consumable }
            """)], lint: false).graph)
        let error = refusal(of: RuleGraphArtifact.encode(graph, compiler: "c")) {
            $0.set(["graph", "test", "entitlements", 0, "constraint", 1], .array(["at_least", 4, 0]))
        }
        #expect(error?.description
                == "graph.test.entitlements[0].constraint[1][2]: a threshold is at least 1 (`>= 0` always holds)")
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    public init(stringLiteral s: String) { self = .string(s) }

    public init(integerLiteral n: Int64) { self = .int(n) }
}
