/// Reads an artifact's `graph` member back into a `RuleGraph`, accepting only what the compiler
/// emits — the lowering of a rule set the checker accepted — and refusing everything else with
/// its place (`graph.live.features[2].grants[0].carry`) and the reason. An app may download its
/// rules, so a loaded graph is one the evaluator was built for, never a shape it was not.
///
/// What the compiler emits, per environment:
/// - names: identifiers (`[A-Za-z_][A-Za-z0-9_]*`, not a reserved word), one namespace for
///   products, entitlements, features and credit systems; store names and groups are identifiers
///   too; a (store, id) pair names one product; an event names one feature.
/// - products: a `period` (a billing period: week … year) exactly on subscriptions; a `group` only
///   on subscriptions; a `duration` only on non-renewing products, in whole months or whole days,
///   from one day to 100 years (1,200 months, 36,525 days).
/// - constraints: postfix programs that reduce to one value; `and`/`or` of at least two operands;
///   thresholds (`at_least`) of at least 1, on consumables only; written with at most 256 levels of
///   parentheses and `not` (as the parser allows); entitlements named in an order where each
///   follows those it names (no cycle).
/// - features: an `event` and units only on metered features and units both or neither
///   (credit systems have units, no event); `requires` only on boolean features; conversions only
///   on credit systems, each to a distinct single-use or continuous feature, both numbers ≥ 1.
/// - grants: no amount on a boolean feature, an amount (≥ 1) or `unlimited` on the others;
///   `per` and `carry` only on single-use features and credit systems (carry without `per` is a
///   lint, not an error: it is emitted), a carry cap ≥ 1; `overage` only on single-use features,
///   its cap ≥ 1; `expires_after` only on a counted grant of a single-use feature or credit system
///   without `per`, as long as a `duration` may be; a priority from 0; orders numbering the
///   environment's grants 0, 1, … in declaration order (ascending within each feature). A grant
///   without `overage` or `expires_after` has no such member (so older artifacts stay byte for byte).
/// - every number at most 10^15.
enum ArtifactDecoder {
    static let maxAmount: Int64 = 1_000_000_000_000_000
    /// Levels of parentheses and `not` a constraint may need, as the parser allows.
    static let maxNesting = 256
    /// The longest `duration`: 100 years, in months and in days (with 25 leap days).
    /// INVARIANT: the checker refuses exactly the longer ones (E222, `Checker.longestDuration`).
    static let longestDurationMonths: Int64 = 1_200
    static let longestDurationDays: Int64 = 36_525
    static let reservedWords: Set<String> = ["app", "environment", "product", "feature", "credits", "entitlement",
                                             "test", "and", "or", "not", "everyone"]
    static let productKeys = ["name", "display_name", "docs", "kind", "period", "group", "duration", "store_ids"]
    static let featureKeys = ["name", "display_name", "docs", "kind", "event", "unit_singular", "unit_plural",
                              "requires", "grants", "conversions"]
    /// A grant's members, in the order `entlc build` writes them; `overage` and `expires_after` only
    /// when it has them.
    static let grantKeys = ["source", "amount", "interval", "carry", "overage", "expires_after", "priority", "order"]
    static let optionalGrantKeys: Set<String> = ["overage", "expires_after"]

    static func graph(_ node: ArtifactNode) throws(RuleGraphArtifactError) -> RuleGraph {
        let g = try node.object(["app", "live", "test"])
        let liveNode = try g.member("live"), testNode = try g.member("test")
        let live = try environment(liveNode)
        // The same content (a rule set with no environment block) is one graph, as compiled.
        return RuleGraph(app: try g.optionalString("app"), live: live,
                         test: testNode.value == liveNode.value ? live : try environment(testNode))
    }

    static func environment(_ node: ArtifactNode) throws(RuleGraphArtifactError) -> EnvironmentGraph {
        let env = try node.object(["products", "entitlements", "features", "entitlement_order"])
        var reader = EnvironmentReader()
        for n in try env.member("products").array() { try reader.product(n) }

        let entitlementNodes = try env.member("entitlements").array()
        reader.entitlementCount = entitlementNodes.count
        var references: [[Int]] = []
        for n in entitlementNodes { references.append(try reader.entitlement(n)) }
        let order = try reader.order(env.member("entitlement_order"), references)

        var featureNodes: [ArtifactNode] = []
        for n in try env.member("features").array() {
            let f = try n.object(featureKeys)
            featureNodes.append(f)
            reader.featureKinds.append(try f.member("kind").rawValue(FeatureKind.self))
            reader.featureNames.append(try f.member("name").string())
            reader.grantCount += try f.member("grants").array().count
        }
        for n in featureNodes { try reader.feature(n) }
        return EnvironmentGraph(products: reader.products, entitlements: reader.entitlements, features: reader.features,
                                entitlementOrder: order)
    }
}

/// The decoding of one environment: what has been read so far, for the checks that span
/// declarations (names, store ids, events, grant orders, what a constraint or grant refers to).
struct EnvironmentReader {
    typealias D = ArtifactDecoder

    var products: [Product] = []
    var entitlements: [Entitlement] = []
    var features: [Feature] = []
    var entitlementCount = 0
    /// Every feature's kind, read before any feature (a conversion names one declared later).
    var featureKinds: [FeatureKind] = []
    /// Every feature's name as written (for messages; checked when the feature is read).
    var featureNames: [String] = []
    /// How many grants the environment has: their orders number them.
    var grantCount = 0
    private var names = Set<String>()
    private var storeIDs = Set<StoreID>()
    /// The events and grant orders taken so far (read with the features, `ArtifactDecoder+Features`).
    var events = Set<String>()
    var grantOrders = Set<Int>()

    /// A declaration's name: an identifier, not reserved, not taken.
    mutating func declare(_ n: ArtifactNode) throws(RuleGraphArtifactError) -> String {
        let node = try n.member("name")
        let name = try Self.identifier(node)
        guard names.insert(name).inserted else { throw n.fail("duplicate name `\(name)`") }
        return name
    }

    static func identifier(_ node: ArtifactNode) throws(RuleGraphArtifactError) -> String {
        let name = try node.string()
        guard let first = name.utf8.first, isIdentifierStart(first), name.utf8.allSatisfy(isIdentifierContinue) else {
            throw node.fail(D.notAnIdentifier(name))
        }
        guard !D.reservedWords.contains(name) else { throw node.fail(D.reservedWord(name)) }
        return name
    }

    private static func isIdentifierStart(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F
    }

    private static func isIdentifierContinue(_ b: UInt8) -> Bool { isIdentifierStart(b) || (b >= 0x30 && b <= 0x39) }

    // MARK: - Products

    mutating func product(_ n: ArtifactNode) throws(RuleGraphArtifactError) {
        let p = try n.object(D.productKeys)
        let name = try declare(p)
        let kind = try p.member("kind").rawValue(ProductKind.self)
        let periodNode = try p.member("period")
        var period: Interval?
        if kind == .subscription {
            guard !periodNode.isNull else { throw periodNode.fail(D.subscriptionWithoutPeriod) }
            let billing = try periodNode.rawValue(Interval.self)
            guard billing.isBillingPeriod else { throw periodNode.fail(D.notABillingPeriod(billing)) }
            period = billing
        } else if !periodNode.isNull {
            throw periodNode.fail(D.onlyOn("a `period`", "subscriptions", kind))
        }
        var group: String?
        if let g = try p.optional("group") {
            guard kind == .subscription else { throw g.fail(D.onlyOn("a `group`", "subscriptions", kind)) }
            group = try Self.identifier(g)
        }
        var duration: CalendarStep?
        if let d = try p.optional("duration") {
            guard kind == .nonRenewing else { throw d.fail(D.onlyOn("a `duration`", "non-renewing products", kind)) }
            duration = try Self.duration(d)
        }
        var ids: [StoreID] = []
        for s in try p.member("store_ids").array() {
            let o = try s.object(["store", "id"])
            let id = StoreID(store: try Self.identifier(o.member("store")), id: try o.member("id").string())
            guard storeIDs.insert(id).inserted else {
                throw s.fail("store id \"\(id.id)\" at \(id.store) names two products")
            }
            ids.append(id)
        }
        products.append(Product(name: name, displayName: try p.optionalString("display_name"),
                                docs: try p.optionalString("docs"), kind: kind, period: period, group: group,
                                duration: duration, storeIDs: ids))
    }

    /// `duration N days|weeks|months|years`: whole months or whole days (never both), one day to
    /// 100 years. A grant's `expires after` is written and checked the same way.
    static func duration(_ node: ArtifactNode) throws(RuleGraphArtifactError) -> CalendarStep {
        let d = try node.object(["months", "seconds"])
        let monthsNode = try d.member("months"), secondsNode = try d.member("seconds")
        let months = try monthsNode.int(0...D.maxAmount), seconds = try secondsNode.int(0...D.maxAmount)
        guard (months == 0) != (seconds == 0) else { throw node.fail(D.durationNeitherOrBoth) }
        guard months <= D.longestDurationMonths else { throw monthsNode.fail(D.durationTooLong("\(months) months")) }
        guard seconds % 86_400 == 0 else { throw secondsNode.fail(D.durationNotWholeDays(seconds)) }
        guard seconds / 86_400 <= D.longestDurationDays else {
            throw secondsNode.fail(D.durationTooLong("\(seconds / 86_400) days"))
        }
        return CalendarStep(months: months, seconds: seconds)
    }

    // MARK: - Entitlements and constraints

    /// An entitlement; returns the entitlements its constraint names.
    mutating func entitlement(_ n: ArtifactNode) throws(RuleGraphArtifactError) -> [Int] {
        let e = try n.object(["name", "display_name", "docs", "constraint"])
        let name = try declare(e)
        let (constraint, named) = try self.constraint(e.member("constraint"))
        entitlements.append(Entitlement(name: name, displayName: try e.optionalString("display_name"),
                                        docs: try e.optionalString("docs"), constraint: constraint))
        return named
    }

    /// A topological order: a permutation in which each entitlement follows those it names.
    func order(_ node: ArtifactNode, _ references: [[Int]]) throws(RuleGraphArtifactError) -> [Int] {
        var position = [Int](repeating: -1, count: entitlements.count)
        var order: [Int] = []
        for (i, n) in try node.array().enumerated() {
            let e = try n.index(below: entitlements.count, of: "entitlements")
            guard position[e] < 0 else { throw n.fail("entitlement \(e) appears twice in the order") }
            position[e] = i
            order.append(e)
        }
        guard order.count == entitlements.count else {
            throw node.fail("the order lists \(order.count) of \(entitlements.count) entitlements")
        }
        for (e, named) in references.enumerated() {
            if let bad = named.first(where: { position[$0] >= position[e] }) {
                let cycle = bad == e ? " (itself: a cycle)" : ""
                throw node.fail("not a topological order: `\(entitlements[e].name)` comes before "
                                + "`\(entitlements[bad].name)`, which it names" + cycle)
            }
        }
        return order
    }

    /// How a value on the constraint stack was built: what a parent needs to write it.
    private enum Shape { case atom, not, and, or }

    /// A postfix program back to a tree: every step's operands are on the stack, and exactly one
    /// value is left. Returns the tree and the entitlements it names.
    ///
    /// Each value keeps the levels of parentheses and `not` its source text needs at least: `not`
    /// adds one; an `and` or `or` needs parentheses under `not` and under `and`, an `or` also
    /// under `or` (`and` binds tighter). The parser allows `maxNesting` levels.
    func constraint(_ node: ArtifactNode) throws(RuleGraphArtifactError) -> (Constraint, [Int]) {
        var stack: [(c: Constraint, nesting: Int, shape: Shape)] = []
        var named: [Int] = []
        for step in try node.array() {
            let parts = try step.array()
            guard let head = parts.first else { throw step.fail("empty step") }
            let op = try head.string()
            func arity(_ n: Int) throws(RuleGraphArtifactError) {
                guard parts.count == n + 1 else { throw step.fail("`\(op)` takes \(n) operand\(n == 1 ? "" : "s")") }
            }
            func product() throws(RuleGraphArtifactError) -> Int {
                try parts[1].index(below: products.count, of: "products")
            }
            func pop(_ n: Int) throws(RuleGraphArtifactError) -> [(c: Constraint, nesting: Int, shape: Shape)] {
                guard n <= stack.count else {
                    throw step.fail("`\(op)` needs \(n) value\(n == 1 ? "" : "s"), the stack holds \(stack.count)")
                }
                let top = Array(stack.suffix(n))
                stack.removeLast(n)
                return top
            }
            func push(_ c: Constraint, _ shape: Shape, nesting: Int = 0) throws(RuleGraphArtifactError) {
                guard nesting <= D.maxNesting else { throw step.fail(D.nestsTooDeep) }
                stack.append((c, nesting, shape))
            }
            switch op {
            case "product":
                try arity(1)
                try push(.product(try product()), .atom)
            case "entitlement":
                try arity(1)
                let e = try parts[1].index(below: entitlementCount, of: "entitlements")
                named.append(e)
                try push(.entitlement(e), .atom)
            case "at_least":
                try arity(2)
                let p = try product()
                guard products[p].kind == .consumable else {
                    throw parts[1].fail(D.thresholdOnNonConsumable(products[p]))
                }
                let quantity = try parts[2].int(0...D.maxAmount)
                guard quantity >= 1 else { throw parts[2].fail(D.thresholdOfZero) }
                try push(.atLeast(product: p, quantity: quantity), .atom)
            case "purchased_before", "purchased_since":
                try arity(2)
                let p = try product()
                let text = try parts[2].string()
                guard let instant = Instant(rfc3339: text) else { throw parts[2].fail("not an RFC 3339 instant") }
                let date = PurchaseDateFilter(before: op == "purchased_before", instant: instant)
                try push(.purchased(product: p, date: date), .atom)
            case "everyone":
                try arity(0)
                try push(.everyone, .atom)
            case "not":
                try arity(0)
                let x = try pop(1)[0]
                try push(.not(x.c), .not, nesting: 1 + x.nesting + (x.shape == .and || x.shape == .or ? 1 : 0))
            case "and", "or":
                try arity(1)
                let count = try parts[1].int(0...Int64(Int32.max))
                guard count >= 2 else { throw parts[1].fail(D.tooFewOperands(op)) }
                let operands = try pop(Int(count))
                let shape: Shape = op == "and" ? .and : .or
                // Parentheses around an operand that binds no tighter than this operator.
                let nesting = operands.map {
                    $0.nesting + ($0.shape == .or || ($0.shape == .and && shape == .and) ? 1 : 0)
                }.max() ?? 0
                let terms = operands.map(\.c)
                try push(shape == .and ? .and(terms) : .or(terms), shape, nesting: nesting)
            default:
                throw head.fail("unknown step `\(op)`")
            }
        }
        guard stack.count == 1 else { throw node.fail("the program leaves \(stack.count) values, not one") }
        return (stack[0].c, named)
    }
}

extension Interval {
    /// Whether a subscription may renew at this interval (`period week|month|quarter|half_year|year`).
    var isBillingPeriod: Bool {
        switch self {
        case .minute, .hour, .day: false
        case .week, .month, .quarter, .halfYear, .year: true
        }
    }
}

extension ProductKind {
    /// "a subscription", "a non-consumable product", … for messages.
    var described: String {
        switch self {
        case .nonConsumable: "a non-consumable product"
        case .consumable: "a consumable"
        case .subscription: "a subscription"
        case .nonRenewing: "a non-renewing product"
        }
    }
}

extension FeatureKind {
    /// "a boolean feature", "a credit system", … for messages.
    var described: String {
        switch self {
        case .boolean: "a boolean feature"
        case .singleUse: "a single-use feature"
        case .continuous: "a continuous feature"
        case .credits: "a credit system"
        }
    }
}

// MARK: - Messages

extension ArtifactDecoder {
    static func notAnIdentifier(_ s: String) -> String {
        "\"\(s)\" is not a name (a letter or `_`, then letters, digits and `_`)"
    }

    static func reservedWord(_ s: String) -> String { "`\(s)` is a reserved word and cannot be a name" }

    static let subscriptionWithoutPeriod = "a subscription needs a billing `period`"

    static func notABillingPeriod(_ i: Interval) -> String {
        "`\(i.rawValue)` is not a billing period (week, month, quarter, half_year or year)"
    }

    static func onlyOn(_ item: String, _ owners: String, _ kind: ProductKind) -> String {
        "\(item) applies only to \(owners), not to \(kind.described)"
    }

    static let durationNeitherOrBoth =
        "a duration is a number of months or of days: exactly one of `months` and `seconds` is not 0"

    static func durationNotWholeDays(_ seconds: Int64) -> String { "\(seconds) seconds is not a whole number of days" }

    static func durationTooLong(_ length: String) -> String {
        "a duration of \(length) is longer than 100 years "
            + "(\(longestDurationMonths) months, \(longestDurationDays) days)"
    }

    static let nestsTooDeep = "the constraint nests deeper than \(maxNesting) levels of parentheses and `not`"

    static func thresholdOnNonConsumable(_ p: Product) -> String {
        "a threshold (`>= N`) counts units of a consumable; `\(p.name)` is \(p.kind.described)"
    }

    static let thresholdOfZero = "a threshold is at least 1 (`>= 0` always holds)"

    static func tooFewOperands(_ op: String) -> String { "an `\(op)` needs at least two operands" }

    static func onlyOnMetered(_ item: String, _ kind: FeatureKind) -> String {
        "\(item) applies only to metered features, not to \(kind.described)"
    }

    static let unitHalf = "a unit has both its singular and its plural"

    static func convertsNonMetered(_ kind: FeatureKind) -> String {
        "a credit system pays for single-use and continuous features, not for \(kind.described)"
    }

    static func convertedTwice(_ feature: String) -> String { "`\(feature)` is converted twice" }

    static func missingAmount(_ kind: FeatureKind) -> String {
        "a grant of \(kind.described) needs an amount or \"unlimited\""
    }

    static func noWindows(_ clause: String, _ kind: FeatureKind) -> String {
        "\(clause) applies only to grants of single-use features and credit systems, not of \(kind.described)"
    }

    static func grantOutOfOrder(_ order: Int, after previous: Int) -> String {
        "grant order \(order) after grant order \(previous): a feature's grants are listed in declaration order"
    }
}
