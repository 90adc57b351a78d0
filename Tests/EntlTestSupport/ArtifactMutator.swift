import EntlRuntime

// Structure-aware mutations of built rule graphs, for the `artifact-structured` fuzz target and
// for `MutatedGraphTests`. This file imports only EntlRuntime: Fuzz/build.sh compiles it into
// the fuzzer as it is.

/// Mutates an artifact so that the loader's deep checks get the input, not its JSON parser or
/// its digest: the result is always a well-formed artifact with a matching digest.
///
/// Two kinds of mutation, a few at a time:
/// - on the decoded graph (when the artifact loads): constraints replaced by random trees
///   (`and`/`or` of any number of operands, thresholds of 0, on any product), product kinds,
///   periods and durations, grant amounts, windows, carry and priorities, conversions, events,
///   units and requirements changed; written back with `RuleGraphArtifact.encode`;
/// - on the graph's JSON (always): a number, string, null, array or member anywhere in it
///   replaced by a value that sits on a boundary (0, 10^15 + 1, another index, a reserved word,
///   another name, another kind…), elements dropped, duplicated or swapped; resealed.
public struct ArtifactMutator<R: RandomNumberGenerator> {
    public var random: R

    public init(random: R) { self.random = random }

    /// The mutated artifact, or nil when `bytes` is not an artifact document.
    public mutating func mutate(_ bytes: [UInt8]) -> [UInt8]? {
        guard let document = try? JSONParser.parse(bytes), document["graph"] != nil else { return nil }
        // Mostly one mutation: most are refused, and a refused graph gets no further.
        let count = chance(70) ? 1 : int(2...3)
        if chance(50), let artifact = try? RuleGraphArtifact(bytes: bytes) {
            var graph = artifact.graph
            for _ in 0..<count { mutate(&graph) }
            return RuleGraphArtifact.encode(graph, compiler: artifact.compiler)
        }
        var doc = document
        for _ in 0..<count { mutateJSON(&doc) }
        return resealed(doc) ?? bytes
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }

    /// An index into a collection of `count` elements (not empty).
    mutating func index(_ count: Int) -> Int { int(0...(count - 1)) }

    mutating func pick<T>(_ items: [T]) -> T { items[index(items.count)] }

    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }

    /// A number on or near a boundary the loader must hold.
    mutating func boundaryNumber(near n: Int64) -> Int64 {
        pick([0, 1, 2, -1, n &- 1, n &+ 1, n &* 2, 255, 256, 257, 1_200, 1_201, 36_525 * 86_400, 36_526 * 86_400,
              86_399, mutationBig, mutationBig + 1, Int64(Int32.max), Int64.max, Int64.min, Int64(int(0...9))])
    }

    // MARK: - The decoded graph

    /// One mutation of one environment's core, linked again. Only mutations that keep what
    /// `EnvironmentGraph.init` relies on (indices in range, conversions only on credit systems,
    /// feature kinds) are made here; the JSON mutations break those.
    mutating func mutate(_ graph: inout RuleGraph) {
        let env: Environment = chance(50) ? .live : .test
        let g = graph[env]
        var core = (products: g.products, entitlements: g.entitlements, features: g.features, order: g.entitlementOrder)
        switch int(0...7) {
        case 0, 1: mutateConstraint(&core.entitlements, &core.features, products: core.products)
        case 2: mutateProduct(&core.products)
        case 3, 4: mutateGrant(&core.features, products: core.products.count, entitlements: core.entitlements.count)
        case 5: mutateConversions(&core.features)
        case 6: mutateFeature(&core.features)
        default:
            if core.order.count > 1 { core.order.swapAt(index(core.order.count), index(core.order.count)) }
            if chance(30), !core.products.isEmpty {
                let name = pick(["and", "_", "x-y", ""] + core.entitlements.map(\.name))
                core.products[index(core.products.count)].name = name
            }
        }
        let linked = EnvironmentGraph(products: core.products, entitlements: core.entitlements, features: core.features,
                                      entitlementOrder: core.order)
        graph = RuleGraph(app: graph.app, live: env == .live ? linked : graph.live,
                          test: env == .test ? linked : graph.test)
    }

    mutating func mutateConstraint(_ entitlements: inout [Entitlement], _ features: inout [Feature],
                                   products: [Product]) {
        guard !entitlements.isEmpty || !features.isEmpty else { return }
        let tree = constraint(depth: int(0...4), products: products, entitlements: entitlements.count)
        if !entitlements.isEmpty, features.isEmpty || chance(70) {
            entitlements[index(entitlements.count)].constraint = tree
        } else {
            features[index(features.count)].requires = tree
        }
    }

    mutating func mutateProduct(_ products: inout [Product]) {
        guard !products.isEmpty else { return }
        let i = index(products.count)
        switch int(0...4) {
        case 0: products[i].kind = pick(ProductKind.allCases)
        case 1: products[i].period = chance(30) ? nil : pick(Interval.allCases)
        case 2:
            products[i].duration = CalendarStep(months: pick([0, 1, 1_200, 1_201]),
                                                seconds: pick([0, 86_400, 3_600, 36_526 * 86_400]))
        case 3: products[i].group = pick([nil, "pro", "", "not", "9lives"])
        default:
            let other = products[index(products.count)].storeIDs
            products[i].storeIDs += other + [StoreID(store: pick(["web", "a b"]), id: "x")]
        }
    }

    mutating func mutateGrant(_ features: inout [Feature], products: Int, entitlements: Int) {
        let granted = features.indices.filter { !features[$0].grants.isEmpty }
        guard !granted.isEmpty else { return }
        let f = pick(granted)
        let i = index(features[f].grants.count)
        switch int(0...7) {
        case 0: features[f].grants[i].amount = pick([.none, .unlimited, .count(0), .count(1), .count(mutationBig)])
        case 6: features[f].grants[i].overage = pick([nil, .unbounded, .upTo(0), .upTo(1), .upTo(mutationBig)])
        case 7:
            features[f].grants[i].expiresAfter = pick([nil, CalendarStep(months: 12, seconds: 0),
                                                       CalendarStep(months: 1_201, seconds: 0),
                                                       CalendarStep(months: 0, seconds: 86_400),
                                                       CalendarStep(months: 0, seconds: 3_600)])
        case 1: features[f].grants[i].interval = chance(30) ? nil : pick(Interval.allCases)
        case 2: features[f].grants[i].carry = pick([nil, .uncapped, .upTo(0), .upTo(1), .upTo(mutationBig)])
        case 3: features[f].grants[i].priority = boundaryNumber(near: features[f].grants[i].priority)
        case 4: features[f].grants[i].order = Int(boundaryNumber(near: Int64(features[f].grants[i].order)) & 0xFFFF)
        default:
            if case .product = features[f].grants[i].source, entitlements > 0 {
                features[f].grants[i].source = .entitlement(index(entitlements))
            } else if products > 0 {
                features[f].grants[i].source = .product(index(products))
            }
        }
    }

    mutating func mutateConversions(_ features: inout [Feature]) {
        let systems = features.indices.filter { features[$0].kind == .credits }
        guard !systems.isEmpty else { return }
        let c = pick(systems)
        let target = index(features.count)
        switch int(0...2) {
        case 0:
            let conversion = Conversion(feature: target, amount: pick([0, 1, 7]), credits: pick([0, 1, mutationBig]))
            features[c].conversions.append(conversion)
        case 1: features[c].conversions += features[c].conversions
        default:
            features[c].conversions = features[c].conversions.map {
                Conversion(feature: target, amount: $0.amount, credits: $0.credits)
            }
        }
    }

    mutating func mutateFeature(_ features: inout [Feature]) {
        guard !features.isEmpty else { return }
        let f = index(features.count)
        switch int(0...2) {
        case 0: features[f].event = pick([nil, "call", features[index(features.count)].event ?? "e"])
        case 1:
            let units: [(String?, String?)] = [(nil, nil), ("call", nil), (nil, "calls"), ("call", "calls")]
            (features[f].unitSingular, features[f].unitPlural) = pick(units)
        default: features[f].grants += features[index(features.count)].grants
        }
    }

    /// A random constraint over the given products and a number of entitlements: mostly shapes
    /// the compiler emits, sometimes not (`and` of one operand, `>= 0`, a threshold on a product
    /// that is not a consumable; an entitlement naming itself or a later one).
    mutating func constraint(depth: Int, products: [Product], entitlements: Int) -> Constraint {
        if depth == 0 || chance(30) {
            let consumables = products.indices.filter { products[$0].kind == .consumable }
            switch int(0...4) {
            case 0 where !products.isEmpty: return .product(index(products.count))
            case 1 where entitlements > 0: return .entitlement(index(entitlements))
            case 2 where !products.isEmpty:
                let p = consumables.isEmpty || chance(10) ? index(products.count) : pick(consumables)
                return .atLeast(product: p, quantity: chance(90) ? pick([1, 3, mutationBig]) : 0)
            case 3 where !products.isEmpty:
                let instant = Instant(seconds: Int64(int(0...2_000_000_000)))
                let date: PurchaseDateFilter = chance(50) ? .before(instant) : .since(instant)
                return .purchased(product: index(products.count), date: date)
            default: return .everyone
            }
        }
        let operands = chance(90) ? int(2...3) : int(0...1)
        let shape = int(0...2)
        let terms = (0..<(shape == 0 ? 1 : operands)).map { _ in
            constraint(depth: depth - 1, products: products, entitlements: entitlements)
        }
        return shape == 0 ? .not(terms[0]) : shape == 1 ? .and(terms) : .or(terms)
    }

    // MARK: - The graph's JSON

    /// One JSON mutation at a random place in the `graph` member.
    mutating func mutateJSON(_ document: inout JSONValue) {
        guard var graph = document["graph"] else { return }
        var places: [(path: [JSONStep], value: JSONValue)] = []
        collect(graph, [], into: &places)
        var names: [String] = []
        for (path, value) in places {
            if case .key("name") = path.last, case .string(let s) = value { names.append(s) }
        }
        let (path, value) = pick(places)
        graph.set(path, replacement(for: value, key: path.last, names: names))
        document.set(["graph"], graph)
    }

    /// A value for the place of `value` (under `key`): of its kind on a boundary, or of another kind.
    mutating func replacement(for value: JSONValue, key: JSONStep?, names: [String]) -> JSONValue {
        let name: String? = if case .key(let k) = key { k } else { nil }
        switch value {
        case .int(let n):
            guard chance(90) else { return pick([.null, .string("unlimited"), .string("uncapped"), .number("1.5")]) }
            return .int(boundaryNumber(near: n))
        case .number: return .int(boundaryNumber(near: 0))
        case .string:
            switch name {
            case "kind":
                return .string(pick(ProductKind.allCases.map(\.rawValue) + FeatureKind.allCases.map(\.rawValue)))
            case "period", "interval": return .string(pick(Interval.allCases.map(\.rawValue)))
            case "carry", "amount", "overage":
                return chance(50) ? .null : .string(pick(["unlimited", "uncapped", "unbounded"]))
            default: break
            }
            if key == .index(0), chance(70) { return .string(pick(mutationSteps)) }
            return .string(pick(names + ["", "and", "everyone", "1x", "a-b", "pro", "2026-06-01T00:00:00Z", "call"]))
        case .null:
            switch name {
            case "period", "interval": return .string(pick(Interval.allCases.map(\.rawValue)))
            case "duration":
                return .object([("months", .int(pick([0, 1, 1_201]))), ("seconds", .int(pick([0, 86_400, 60])))])
            case "carry": return chance(50) ? .string("uncapped") : .int(boundaryNumber(near: 1))
            case "amount": return chance(50) ? .string("unlimited") : .int(boundaryNumber(near: 1))
            case "requires": return .array([.array([.string("everyone")])])
            case nil: return .int(1)
            default: return .string(pick(names + ["call", "pro"]))
            }
        case .array(var items):
            guard !items.isEmpty else { return .array([.array([.string("everyone")])]) }
            let i = index(items.count), j = index(items.count)
            switch int(0...3) {
            case 0: items.remove(at: i)
            case 1: items.insert(items[i], at: j)
            case 2: items.swapAt(i, j)
            default:
                items.append(pick([.array([.string("not")]), .array([.string("and"), .int(pick([0, 1, 2]))]),
                                   .array([.string("or"), .int(1)]), .array([.string("everyone")])]))
            }
            return .array(items)
        case .object(var members):
            guard !members.isEmpty else { return value }
            if chance(50) { members.remove(at: index(members.count)) } else { members.append(("extra", .int(1))) }
            return .object(members)
        case .bool(let b): return .bool(!b)
        }
    }

    /// Every value in `value` with its path (the root included).
    func collect(_ value: JSONValue, _ path: [JSONStep], into places: inout [(path: [JSONStep], value: JSONValue)]) {
        places.append((path, value))
        switch value {
        case .array(let items): for (i, item) in items.enumerated() { collect(item, path + [.index(i)], into: &places) }
        case .object(let members): for m in members { collect(m.value, path + [.key(m.key)], into: &places) }
        default: break
        }
    }
}

/// The largest amount the language allows.
private let mutationBig: Int64 = 1_000_000_000_000_000

/// The constraint steps an artifact may hold.
private let mutationSteps = ["product", "entitlement", "at_least", "purchased_before", "purchased_since", "everyone", "not",
                             "and", "or"]

/// One step of a path into a JSON document: `["graph", "live", "products", 0, "kind"]`.
public enum JSONStep: Hashable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case key(String)
    case index(Int)

    public init(stringLiteral key: String) { self = .key(key) }

    public init(integerLiteral index: Int) { self = .index(index) }
}

extension JSONValue {
    /// Sets the value at `path` (a missing key is added, an index one past the end appends).
    public mutating func set(_ path: [JSONStep], _ value: JSONValue) {
        guard let head = path.first else {
            self = value
            return
        }
        let rest = Array(path.dropFirst())
        switch (self, head) {
        case (.object(var members), .key(let key)):
            if let i = members.firstIndex(where: { $0.key == key }) {
                members[i].value.set(rest, value)
            } else {
                var fresh = JSONValue.null
                fresh.set(rest, value)
                members.append((key, fresh))
            }
            self = .object(members)
        case (.array(var items), .index(let i)) where i >= 0 && i <= items.count:
            if i == items.count { items.append(.null) }
            items[i].set(rest, value)
            self = .array(items)
        default:
            break
        }
    }
}
