/// A built rule graph as an app or server ships it (`entlc build`): JSON with a format version,
/// the compiler that built it, and the SHA-256 of its content.
///
/// ```json
/// {"format":"entl-rule-graph","format_version":1,"compiler":"entlc 0.1.0",
///  "sha256":"…64 hex digits…","graph":{"app":"…","live":{…},"test":{…}}}
/// ```
///
/// The digest covers the `graph` member written compactly (the bytes `encode` writes there), so
/// it names the rules and not the layout. Only the core of each environment is stored —
/// products, entitlements with their constraints as postfix programs, features with their grants
/// and conversions, and the entitlement order; everything else is derived when the graph is
/// linked (`EnvironmentGraph.init`), so a loaded graph cannot disagree with itself.
///
/// `init(bytes:)` trusts nothing (an app may download its rules): it parses with the runtime's
/// own JSON parser and refuses, with the place and the reason, a newer format version, a digest
/// that does not match, an unknown or missing member, an index out of range, a constraint
/// program that does not reduce to one value (or nests deeper than the parser allows), an
/// entitlement order that is not a topological order, duplicate names, and numbers out of range.
public struct RuleGraphArtifact: Sendable {
    /// Bumped when the encoding changes incompatibly; a runtime refuses newer versions.
    public static let formatVersion = 1
    static let formatName = "entl-rule-graph"

    public var graph: RuleGraph
    /// What built it, as `entlc --version` says (`entlc 0.1.0`).
    public var compiler: String
    /// SHA-256 of the content, 64 lowercase hex digits.
    public var sha256: String

    /// The artifact's bytes: one line of JSON and a newline.
    public static func encode(_ graph: RuleGraph, compiler: String) -> [UInt8] {
        build(graph, compiler: compiler).bytes
    }

    /// The artifact's bytes and the digest written in them (`entlc build` reports it).
    public static func build(_ graph: RuleGraph, compiler: String) -> (bytes: [UInt8], sha256: String) {
        let content = ArtifactEncoder.graph(graph)
        var bytes: [UInt8] = []
        content.write(into: &bytes, indent: false, level: 0)
        let digest = SHA256.hexDigest(bytes)
        let document = JSONValue.object([
            ("format", .string(formatName)), ("format_version", .int(Int64(formatVersion))),
            ("compiler", .string(compiler)), ("sha256", .string(digest)), ("graph", content),
        ])
        var out: [UInt8] = []
        document.write(into: &out, indent: false, level: 0)
        out.append(UInt8(ascii: "\n"))
        return (out, digest)
    }

    /// Loads and checks an artifact.
    public init(bytes: [UInt8]) throws(RuleGraphArtifactError) {
        let root: JSONValue
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw RuleGraphArtifactError(path: "", message: "not JSON: \(error)")
        }
        let document = try ArtifactNode(root, .root).object(["format", "format_version", "compiler", "sha256", "graph"])
        guard try document.member("format").string() == RuleGraphArtifact.formatName else {
            throw RuleGraphArtifactError(path: "format", message: "not an entl rule graph (expected \"\(RuleGraphArtifact.formatName)\")")
        }
        let version = try document.member("format_version").int(1...Int64(Int32.max))
        guard version <= Int64(RuleGraphArtifact.formatVersion) else {
            throw RuleGraphArtifactError(path: "format_version", message: "format version \(version) was built by a newer entlc; "
                                         + "this runtime reads version \(RuleGraphArtifact.formatVersion) (update EntlRuntime)")
        }
        compiler = try document.member("compiler").string()
        sha256 = try document.member("sha256").string()
        let content = try document.member("graph")
        var written: [UInt8] = []
        content.value.write(into: &written, indent: false, level: 0)
        let actual = SHA256.hexDigest(written)
        guard actual == sha256 else {
            throw RuleGraphArtifactError(path: "sha256", message: "the digest does not match the content (the file is corrupt or was "
                                         + "edited): expected \(sha256), computed \(actual)")
        }
        graph = try ArtifactDecoder.graph(content)
    }
}

/// Why an artifact was refused: where (`live.entitlements[2].constraint[4]`) and what.
public struct RuleGraphArtifactError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

// MARK: - Writing

enum ArtifactEncoder {
    static func graph(_ g: RuleGraph) -> JSONValue {
        .object([("app", .string(g.app)), ("live", environment(g.live)), ("test", environment(g.test))])
    }

    static func environment(_ e: EnvironmentGraph) -> JSONValue {
        .object([
            ("products", .array(e.products.map(product))),
            ("entitlements", .array(e.entitlements.map { en in
                .object([("name", .string(en.name)), ("display_name", .string(en.displayName)), ("docs", .string(en.docs)),
                         ("constraint", program(en.program))])
            })),
            ("features", .array(e.features.map(feature))),
            ("entitlement_order", .array(e.entitlementOrder.map { .int(Int64($0)) })),
        ])
    }

    static func product(_ p: Product) -> JSONValue {
        .object([
            ("name", .string(p.name)), ("display_name", .string(p.displayName)), ("docs", .string(p.docs)),
            ("kind", .string(p.kind.rawValue)), ("period", .string(p.period?.rawValue)), ("group", .string(p.group)),
            ("duration", p.duration.map { .object([("months", .int($0.months)), ("seconds", .int($0.seconds))]) } ?? .null),
            ("store_ids", .array(p.storeIDs.map { .object([("store", .string($0.store)), ("id", .string($0.id))]) })),
        ])
    }

    static func feature(_ f: Feature) -> JSONValue {
        .object([
            ("name", .string(f.name)), ("display_name", .string(f.displayName)), ("docs", .string(f.docs)),
            ("kind", .string(f.kind.rawValue)), ("event", .string(f.event)),
            ("unit_singular", .string(f.unitSingular)), ("unit_plural", .string(f.unitPlural)),
            ("requires", f.requires.map { program($0.program) } ?? .null),
            ("grants", .array(f.grants.map(grant))),
            ("conversions", .array(f.conversions.map {
                .object([("feature", .int(Int64($0.feature))), ("amount", .int($0.amount)), ("credits", .int($0.credits))])
            })),
        ])
    }

    static func grant(_ g: Grant) -> JSONValue {
        let source: JSONValue = switch g.source {
        case .product(let p): .object([("product", .int(Int64(p)))])
        case .entitlement(let e): .object([("entitlement", .int(Int64(e)))])
        }
        let amount: JSONValue = switch g.amount {
        case .none: .null
        case .count(let n): .int(n)
        case .unlimited: .string("unlimited")
        }
        let carry: JSONValue = switch g.carry {
        case nil: .null
        case .uncapped?: .string("uncapped")
        case .upTo(let n)?: .int(n)
        }
        return .object([("source", source), ("amount", amount), ("interval", .string(g.interval?.rawValue)),
                        ("carry", carry), ("priority", .int(g.priority)), ("order", .int(Int64(g.order)))])
    }

    /// `[["product",0],["entitlement",1],["or",2]]`: one array per step.
    static func program(_ ops: [ConstraintOp]) -> JSONValue {
        .array(ops.map { op in
            switch op {
            case .product(let p): .array([.string("product"), .int(Int64(p))])
            case .entitlement(let e): .array([.string("entitlement"), .int(Int64(e))])
            case .atLeast(let p, let n): .array([.string("at_least"), .int(Int64(p)), .int(n)])
            case .purchased(let p, let date):
                .array([.string(date.before ? "purchased_before" : "purchased_since"), .int(Int64(p)), .string(date.instant.rfc3339)])
            case .everyone: .array([.string("everyone")])
            case .not: .array([.string("not")])
            case .and(let n): .array([.string("and"), .int(Int64(n))])
            case .or(let n): .array([.string("or"), .int(Int64(n))])
            }
        })
    }
}

// MARK: - Reading

/// Where a value is in the document: kept as links and spelled out only for an error.
indirect enum ArtifactPath {
    case root
    case key(ArtifactPath, String)
    case index(ArtifactPath, Int)

    var description: String {
        var parts: [String] = []
        var p = self
        while true {
            switch p {
            case .root:
                return parts.reversed().joined()
            case .key(let parent, let key):
                parts.append(parent.isRoot ? key : "." + key)
                p = parent
            case .index(let parent, let i):
                parts.append("[\(i)]")
                p = parent
            }
        }
    }

    var isRoot: Bool {
        if case .root = self { true } else { false }
    }
}

/// A JSON value and its place in the document, with typed accessors that throw located errors.
struct ArtifactNode {
    let value: JSONValue
    let place: ArtifactPath

    init(_ value: JSONValue, _ place: ArtifactPath) {
        self.value = value
        self.place = place
    }

    func fail(_ message: String) -> RuleGraphArtifactError { RuleGraphArtifactError(path: place.description, message: message) }

    var isNull: Bool { value == .null }

    /// An object with exactly these members (each once, no others).
    func object(_ keys: [String]) throws(RuleGraphArtifactError) -> ArtifactNode {
        guard case .object(let members) = value else { throw fail("expected an object") }
        guard members.count != keys.count || zip(members, keys).contains(where: { $0.key != $1 }) else { return self }  // as written
        var seen = [Bool](repeating: false, count: keys.count)
        for m in members {
            guard let k = keys.firstIndex(of: m.key) else { throw fail("unknown member `\(m.key)`") }
            guard !seen[k] else { throw fail("member `\(m.key)` appears twice") }
            seen[k] = true
        }
        if let missing = keys.indices.first(where: { !seen[$0] }) { throw fail("missing member `\(keys[missing])`") }
        return self
    }

    func member(_ key: String) throws(RuleGraphArtifactError) -> ArtifactNode {
        guard let v = value[key] else { throw fail("missing member `\(key)`") }
        return ArtifactNode(v, .key(place, key))
    }

    /// The member, or nil when it is null.
    func optional(_ key: String) throws(RuleGraphArtifactError) -> ArtifactNode? {
        let m = try member(key)
        return m.isNull ? nil : m
    }

    func array() throws(RuleGraphArtifactError) -> [ArtifactNode] {
        guard case .array(let items) = value else { throw fail("expected an array") }
        return items.enumerated().map { ArtifactNode($1, .index(place, $0)) }
    }

    func string() throws(RuleGraphArtifactError) -> String {
        guard case .string(let s) = value else { throw fail("expected a string") }
        return s
    }

    func optionalString(_ key: String) throws(RuleGraphArtifactError) -> String? {
        try optional(key)?.string()
    }

    func bool() throws(RuleGraphArtifactError) -> Bool {
        guard case .bool(let b) = value else { throw fail("expected true or false") }
        return b
    }

    func int(_ range: ClosedRange<Int64>) throws(RuleGraphArtifactError) -> Int64 {
        let n: Int64?
        switch value {
        case .int(let i): n = i
        case .number(let text): n = Int64(text)
        default: throw fail("expected an integer")
        }
        guard let n else { throw fail("expected an integer from \(range.lowerBound) to \(range.upperBound)") }
        guard range.contains(n) else { throw fail("\(n) is out of range (\(range.lowerBound) to \(range.upperBound))") }
        return n
    }

    /// An index into a list of `count` things.
    func index(below count: Int, of what: String) throws(RuleGraphArtifactError) -> Int {
        let n = try int(Int64.min...Int64.max)
        guard n >= 0, n < Int64(count) else { throw fail("index \(n) is out of range (\(count) \(what))") }
        return Int(n)
    }

    func rawValue<E: RawRepresentable & CaseIterable>(_: E.Type) throws(RuleGraphArtifactError) -> E where E.RawValue == String {
        let s = try string()
        guard let e = E(rawValue: s) else {
            throw fail("unknown value \"\(s)\" (expected one of \(E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")))")
        }
        return e
    }
}

enum ArtifactDecoder {
    static let maxAmount: Int64 = 1_000_000_000_000_000
    /// As deep as the parser lets an expression nest.
    static let maxDepth = 256

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
        let productNodes = try env.member("products").array()
        let entitlementNodes = try env.member("entitlements").array()
        let featureNodes = try env.member("features").array()
        let counts = (products: productNodes.count, entitlements: entitlementNodes.count, features: featureNodes.count)

        // One namespace for every declaration, as in the language.
        var names = Set<String>()
        func declare(_ n: ArtifactNode) throws(RuleGraphArtifactError) -> String {
            let name = try n.member("name").string()
            guard !name.isEmpty else { throw n.fail("empty name") }
            guard names.insert(name).inserted else { throw n.fail("duplicate name `\(name)`") }
            return name
        }

        var products: [Product] = []
        var storeIDs = Set<StoreID>()
        for n in productNodes {
            let p = try n.object(["name", "display_name", "docs", "kind", "period", "group", "duration", "store_ids"])
            var duration: CalendarStep?
            if let d = try p.optional("duration")?.object(["months", "seconds"]) {
                duration = CalendarStep(months: try d.member("months").int(0...Int64.max),
                                        seconds: try d.member("seconds").int(0...Int64.max))
            }
            var ids: [StoreID] = []
            for s in try p.member("store_ids").array() {
                let o = try s.object(["store", "id"])
                let id = StoreID(store: try o.member("store").string(), id: try o.member("id").string())
                guard storeIDs.insert(id).inserted else { throw s.fail("store id \"\(id.id)\" at \(id.store) names two products") }
                ids.append(id)
            }
            products.append(Product(name: try declare(p), displayName: try p.optionalString("display_name"),
                                    docs: try p.optionalString("docs"), kind: try p.member("kind").rawValue(ProductKind.self),
                                    period: try p.optional("period")?.rawValue(Interval.self), group: try p.optionalString("group"),
                                    duration: duration, storeIDs: ids))
        }

        var entitlements: [Entitlement] = []
        var references: [[Int]] = []
        for n in entitlementNodes {
            let e = try n.object(["name", "display_name", "docs", "constraint"])
            let (constraint, named) = try self.constraint(e.member("constraint"), counts)
            references.append(named)
            entitlements.append(Entitlement(name: try declare(e), displayName: try e.optionalString("display_name"),
                                            docs: try e.optionalString("docs"), constraint: constraint))
        }

        // A topological order: a permutation in which each entitlement follows those it names.
        let orderNode = try env.member("entitlement_order")
        var position = [Int](repeating: -1, count: entitlements.count)
        var order: [Int] = []
        for (i, n) in try orderNode.array().enumerated() {
            let e = try n.index(below: entitlements.count, of: "entitlements")
            guard position[e] < 0 else { throw n.fail("entitlement \(e) appears twice in the order") }
            position[e] = i
            order.append(e)
        }
        guard order.count == entitlements.count else { throw orderNode.fail("the order lists \(order.count) of \(entitlements.count) entitlements") }
        for (e, named) in references.enumerated() {
            if let bad = named.first(where: { position[$0] >= position[e] }) {
                throw orderNode.fail("not a topological order: `\(entitlements[e].name)` comes before `\(entitlements[bad].name)`, which it names"
                                     + (bad == e ? " (itself: a cycle)" : ""))
            }
        }

        var features: [Feature] = []
        var events = Set<String>()
        var grantOrders = Set<Int>()
        for n in featureNodes {
            let f = try n.object(["name", "display_name", "docs", "kind", "event", "unit_singular", "unit_plural", "requires",
                                  "grants", "conversions"])
            let kind = try f.member("kind").rawValue(FeatureKind.self)
            let event = try f.optionalString("event")
            if let event, !events.insert(event).inserted { throw f.fail("duplicate event name \"\(event)\"") }
            var requires: Constraint?
            if let r = try f.optional("requires") {
                guard kind == .boolean else { throw r.fail("only a boolean feature has a requirement") }
                requires = try constraint(r, counts).0
            }
            var grants: [Grant] = []
            for g in try f.member("grants").array() {
                let grant = try self.grant(g, kind: kind, counts)
                guard grantOrders.insert(grant.order).inserted else { throw g.fail("grant order \(grant.order) is used twice") }
                grants.append(grant)
            }
            var conversions: [Conversion] = []
            let conversionNodes = try f.member("conversions").array()
            if kind != .credits, let first = conversionNodes.first { throw first.fail("only a credit system has conversions") }
            for c in conversionNodes {
                let o = try c.object(["feature", "amount", "credits"])
                let target = try o.member("feature").index(below: counts.features, of: "features")
                let targetKind = try featureNodes[target].member("kind").rawValue(FeatureKind.self)
                guard targetKind.isMetered else { throw try o.member("feature").fail("converts to a boolean feature") }
                conversions.append(Conversion(feature: target, amount: try o.member("amount").int(1...maxAmount),
                                              credits: try o.member("credits").int(1...maxAmount)))
            }
            features.append(Feature(name: try declare(f), displayName: try f.optionalString("display_name"),
                                    docs: try f.optionalString("docs"), kind: kind, event: event,
                                    unitSingular: try f.optionalString("unit_singular"), unitPlural: try f.optionalString("unit_plural"),
                                    requires: requires, grants: grants, conversions: conversions))
        }
        return EnvironmentGraph(products: products, entitlements: entitlements, features: features, entitlementOrder: order)
    }

    static func grant(_ node: ArtifactNode, kind: FeatureKind, _ counts: (products: Int, entitlements: Int, features: Int))
        throws(RuleGraphArtifactError) -> Grant
    {
        let g = try node.object(["source", "amount", "interval", "carry", "priority", "order"])
        let sourceNode = try g.member("source")
        let source: Grant.Source
        if case .object(let m) = sourceNode.value, m.first?.key == "product" {
            source = .product(try sourceNode.object(["product"]).member("product").index(below: counts.products, of: "products"))
        } else {
            source = .entitlement(try sourceNode.object(["entitlement"]).member("entitlement")
                .index(below: counts.entitlements, of: "entitlements"))
        }
        let amountNode = try g.member("amount")
        let amount: Grant.Amount
        switch amountNode.value {
        case .null: amount = .none
        case .string("unlimited"): amount = .unlimited
        default: amount = .count(try amountNode.int(0...maxAmount))
        }
        guard (amount == .none) == (kind == .boolean) else {
            throw amountNode.fail(kind == .boolean ? "a boolean feature's grant has no amount" : "a metered grant needs an amount")
        }
        let carryNode = try g.member("carry")
        let carry: Grant.Carry? = switch carryNode.value {
        case .null: nil
        case .string("uncapped"): .uncapped
        default: .upTo(try carryNode.int(0...maxAmount))
        }
        return Grant(source: source, amount: amount, interval: try g.optional("interval")?.rawValue(Interval.self), carry: carry,
                     priority: try g.member("priority").int(-maxAmount...maxAmount),
                     order: Int(try g.member("order").int(0...Int64(Int32.max))))
    }

    /// A postfix program back to a tree: every step's operands are on the stack, and exactly one
    /// value is left. Returns the tree and the entitlements it names.
    static func constraint(_ node: ArtifactNode, _ counts: (products: Int, entitlements: Int, features: Int))
        throws(RuleGraphArtifactError) -> (Constraint, [Int])
    {
        var stack: [(c: Constraint, depth: Int)] = []
        var named: [Int] = []
        for step in try node.array() {
            let parts = try step.array()
            guard let head = parts.first else { throw step.fail("empty step") }
            let op = try head.string()
            func arity(_ n: Int) throws(RuleGraphArtifactError) {
                guard parts.count == n + 1 else { throw step.fail("`\(op)` takes \(n) operand\(n == 1 ? "" : "s")") }
            }
            func product() throws(RuleGraphArtifactError) -> Int { try parts[1].index(below: counts.products, of: "products") }
            func pop(_ n: Int) throws(RuleGraphArtifactError) -> [(c: Constraint, depth: Int)] {
                guard n <= stack.count else { throw step.fail("`\(op)` needs \(n) value\(n == 1 ? "" : "s"), the stack holds \(stack.count)") }
                let top = Array(stack.suffix(n))
                stack.removeLast(n)
                return top
            }
            func push(_ c: Constraint, _ operands: [(c: Constraint, depth: Int)]) throws(RuleGraphArtifactError) {
                let depth = 1 + (operands.map(\.depth).max() ?? 0)
                guard depth <= maxDepth else { throw step.fail("the constraint nests deeper than \(maxDepth) levels") }
                stack.append((c, depth))
            }
            switch op {
            case "product":
                try arity(1)
                try push(.product(try product()), [])
            case "entitlement":
                try arity(1)
                let e = try parts[1].index(below: counts.entitlements, of: "entitlements")
                named.append(e)
                try push(.entitlement(e), [])
            case "at_least":
                try arity(2)
                try push(.atLeast(product: try product(), quantity: try parts[2].int(0...maxAmount)), [])
            case "purchased_before", "purchased_since":
                try arity(2)
                let text = try parts[2].string()
                guard let instant = Instant(rfc3339: text) else { throw parts[2].fail("not an RFC 3339 instant") }
                try push(.purchased(product: try product(), date: PurchaseDateFilter(before: op == "purchased_before", instant: instant)), [])
            case "everyone":
                try arity(0)
                try push(.everyone, [])
            case "not":
                try arity(0)
                let operand = try pop(1)
                try push(.not(operand[0].c), operand)
            case "and", "or":
                try arity(1)
                let operands = try pop(Int(try parts[1].int(0...Int64(Int32.max))))
                let terms = operands.map(\.c)
                try push(op == "and" ? .and(terms) : .or(terms), operands)
            default:
                throw head.fail("unknown step `\(op)`")
            }
        }
        guard stack.count == 1 else { throw node.fail("the program leaves \(stack.count) values, not one") }
        return (stack[0].c, named)
    }
}
