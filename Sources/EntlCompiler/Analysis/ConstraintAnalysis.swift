import EntlSyntax

/// The constraints of one environment as BDDs over purchase atoms, for the exact lints.
///
/// Atoms: "owns product p" for every product named in a constraint, and for a consumable one atom
/// per threshold the rule set uses ("holds at least N units"; a plain reference is N = 1).
/// Thresholds of one consumable are consecutive variables, and its *domain* says they are
/// monotone (`zbucks >= 5` implies `zbucks >= 3` implies owning zbucks). Entitlement references
/// are expanded (computed once each, in dependency order). Decisions are made on the
/// two-valued purchase states that satisfy the domains: "impossible" means false for every
/// possible purchase state.
final class ConstraintAnalysis {
    let table: SymbolTable
    private(set) var bdd = BDD()
    /// Product name → threshold → variable.
    private var atoms: [String: [Int64: Int]] = [:]
    /// Variable → the consumable whose threshold it is.
    private var consumableOf: [Int: String] = [:]
    /// Consumable → its monotonicity constraint.
    private var chains: [String: Int32] = [:]
    private var entitlements: [String: Int32] = [:]
    private var requirements: [String: Int32] = [:]
    /// Whether some consumable has two thresholds or more (otherwise every domain is `true`).
    private var hasChains = false

    /// Whether the analysis stayed within its budget; when not, no lint may rely on it.
    var usable: Bool { !bdd.exhausted }

    init(declarations: [DeclarationSite], table: SymbolTable) {
        self.table = table

        // Thresholds per product, from every constraint of the environment.
        var thresholds: [String: Set<Int64>] = [:]
        func collect(_ e: Expression) {
            switch e {
            case .reference(let id):
                if table[id.name]?.kind.isProduct == true { thresholds[id.name, default: []].insert(1) }
            case .atLeast(let id, let n): thresholds[id.name, default: []].insert(n.value)
            case .not(let inner, _): collect(inner)
            case .and(let terms), .or(let terms): terms.forEach(collect)
            case .everyone, .error: break
            }
        }
        var constraints: [(String, Expression)] = []
        var requires: [(String, Expression)] = []
        for site in declarations where site.isVisible(in: table.environment) {
            switch site.declaration {
            case .entitlement(let e):
                collect(e.expression)
                constraints.append((e.name.name, e.expression))
            case .feature(let f):
                if let r = f.requires {
                    collect(r)
                    requires.append((f.name.name, r))
                }
            default: break
            }
        }
        // Variables in declaration order, a consumable's thresholds consecutive and ascending.
        var next = 0
        for name in table.order {
            guard let ts = thresholds[name] else { continue }
            for t in ts.sorted() {
                atoms[name, default: [:]][t] = next
                if table[name]?.kind == .product(.consumable) { consumableOf[next] = name }
                next += 1
            }
        }
        for (name, byThreshold) in atoms where table[name]?.kind == .product(.consumable) {
            let vars = byThreshold.sorted { $0.key < $1.key }.map(\.value)
            var chain = BDD.true
            for i in 1..<max(1, vars.count) {
                // holds ≥ t(i) → holds ≥ t(i-1)
                let implication = bdd.or(bdd.not(bdd.variable(vars[i])), bdd.variable(vars[i - 1]))
                chain = bdd.and(chain, implication)
            }
            chains[name] = chain
            if chain != BDD.true { hasChains = true }
        }
        // Entitlements in dependency order (the checker proved there is no cycle).
        var byName: [String: Expression] = [:]
        for (name, e) in constraints where byName[name] == nil { byName[name] = e }
        for name in ConstraintAnalysis.dependencyOrder(byName, table: table) {
            entitlements[name] = value(byName[name]!)
        }
        for (name, r) in requires where requirements[name] == nil { requirements[name] = value(r) }
    }

    /// The function of a declaration's constraint (an entitlement's, or a feature's
    /// requirement), computed once at construction.
    func value(of declaration: Declaration) -> Int32? {
        switch declaration {
        case .entitlement(let e): entitlements[e.name.name]
        case .feature(let f): requirements[f.name.name]
        default: nil
        }
    }

    /// Each entitlement after those it names (iterative depth-first post-order).
    private static func dependencyOrder(_ constraints: [String: Expression], table: SymbolTable) -> [String] {
        var order: [String] = []
        var state: [String: Bool] = [:]  // false: open, true: done
        for root in table.order where constraints[root] != nil && state[root] == nil {
            var stack: [(String, [String], Int)] = [(root, refs(constraints[root]!, constraints), 0)]
            state[root] = false
            while let (node, edges, i) = stack.last {
                if i < edges.count {
                    stack[stack.count - 1].2 += 1
                    if state[edges[i]] == nil {
                        state[edges[i]] = false
                        stack.append((edges[i], refs(constraints[edges[i]]!, constraints), 0))
                    }
                } else {
                    state[node] = true
                    order.append(node)
                    stack.removeLast()
                }
            }
        }
        return order
    }

    private static func refs(_ e: Expression, _ constraints: [String: Expression]) -> [String] {
        e.references.map(\.name).filter { constraints[$0] != nil }
    }

    /// The function of a constraint (references to unknown names count as false: the checker
    /// reported them already).
    func value(_ e: Expression) -> Int32 {
        switch e {
        case .reference(let id):
            if let v = entitlements[id.name] { return v }
            if let v = atoms[id.name]?[1] { return bdd.variable(v) }
            return BDD.false
        case .atLeast(let id, let n):
            guard let v = atoms[id.name]?[n.value] else { return BDD.false }
            return bdd.variable(v)
        case .everyone:
            return BDD.true
        case .not(let inner, _):
            return bdd.not(value(inner))
        case .and(let terms):
            return terms.reduce(BDD.true) { bdd.and($0, value($1)) }
        case .or(let terms):
            return terms.reduce(BDD.false) { bdd.or($0, value($1)) }
        case .error:
            return BDD.false
        }
    }

    /// The monotonicity of every consumable the functions depend on.
    func domain(_ fs: Int32...) -> Int32 {
        guard hasChains else { return BDD.true }
        var consumables: Set<String> = []
        for f in fs {
            for v in bdd.support(f) { if let c = consumableOf[v] { consumables.insert(c) } }
        }
        return consumables.sorted().reduce(BDD.true) { bdd.and($0, chains[$1] ?? BDD.true) }
    }

    /// False for every possible purchase state.
    func isImpossible(_ f: Int32) -> Bool {
        bdd.and(f, domain(f)) == BDD.false
    }

    /// True for every possible purchase state.
    func isAlwaysTrue(_ f: Int32) -> Bool {
        bdd.and(bdd.not(f), domain(f)) == BDD.false
    }

    /// The same function over every possible purchase state.
    func equivalent(_ f: Int32, _ g: Int32) -> Bool {
        let d = domain(f, g)
        return bdd.and(f, d) == bdd.and(g, d)
    }

    /// A canonical id of a function over its possible purchase states.
    func canonical(_ f: Int32) -> Int32 {
        bdd.and(f, domain(f))
    }

    func entitlement(_ name: String) -> Int32? { entitlements[name] }

    func and(_ a: Int32, _ b: Int32) -> Int32 { bdd.and(a, b) }
    func or(_ a: Int32, _ b: Int32) -> Int32 { bdd.or(a, b) }
    func not(_ a: Int32) -> Int32 { bdd.not(a) }
}
