import EntlRuntime
import EntlSyntax

/// The purchase atoms constraints are BDDs over, and the BDD store itself. Shared by the
/// analyses of several rule sets (`entlc diff` compares two versions in one space: a product is
/// the same atom on both sides).
///
/// Atoms: "owns product p"; for a consumable, one atom per threshold a constraint uses ("holds at
/// least N units"; owning is N = 1); and one per purchase-date qualifier ("owns p through a
/// purchase made before T" / "since T"). A product's *domain* says how its atoms relate:
/// thresholds are monotone (`zbucks >= 5` implies `zbucks >= 3` implies owning zbucks), a
/// qualified atom implies owning the product, `before T1` implies `before T2` for T1 < T2 and
/// `since T1` implies `since T2` for T1 > T2. Decisions are made on the two-valued purchase states
/// that satisfy the domains: "impossible" means false for every possible purchase state.
final class PurchaseAtoms {
    enum Atom: Hashable {
        /// Holds at least N units (N = 1: owns the product).
        case atLeast(Int64)
        /// Owns the product through a purchase made before (`before`) or at or after T.
        case purchased(before: Bool, Instant)
    }

    private(set) var bdd = BDD()
    /// Product name → atom → variable.
    private var variables: [String: [Atom: Int]] = [:]
    /// Variable → its product and atom (for domains and example situations).
    private(set) var atomOf: [(product: String, atom: Atom)] = []
    /// Product → its domain, computed on first use for the atoms it has then.
    private var chains: [String: (atoms: Int, chain: Int32)] = [:]

    /// Whether the store stayed within its budget; when not, nothing may rely on it.
    var usable: Bool { !bdd.exhausted }

    /// The variable of an atom (created on first use; owning the product comes first).
    func variable(_ product: String, _ atom: Atom) -> Int32 {
        if case .purchased = atom { _ = variable(product, .atLeast(1)) }
        if let v = variables[product]?[atom] { return bdd.variable(v) }
        let v = atomOf.count
        variables[product, default: [:]][atom] = v
        atomOf.append((product, atom))
        return bdd.variable(v)
    }

    /// The relations among one product's atoms.
    private func chain(_ product: String) -> Int32 {
        let atoms = variables[product] ?? [:]
        if let c = chains[product], c.atoms == atoms.count { return c.chain }
        func implies(_ a: Atom, _ b: Atom) -> Int32 {
            bdd.or(bdd.not(bdd.variable(atoms[a]!)), bdd.variable(atoms[b]!))
        }
        var chain = BDD.true
        let thresholds = atoms.keys.compactMap { if case .atLeast(let n) = $0 { n } else { nil } }.sorted()
        for (lower, higher) in zip(thresholds, thresholds.dropFirst()) {
            chain = bdd.and(chain, implies(.atLeast(higher), .atLeast(lower)))
        }
        var before: [Instant] = [], since: [Instant] = []
        for case .purchased(let isBefore, let t) in atoms.keys {
            chain = bdd.and(chain, implies(.purchased(before: isBefore, t), .atLeast(1)))
            if isBefore { before.append(t) } else { since.append(t) }
        }
        before.sort()
        since.sort()
        for (a, b) in zip(before, before.dropFirst()) { chain = bdd.and(chain, implies(.purchased(before: true, a), .purchased(before: true, b))) }
        for (a, b) in zip(since, since.dropFirst()) { chain = bdd.and(chain, implies(.purchased(before: false, b), .purchased(before: false, a))) }
        chains[product] = (atoms.count, chain)
        return chain
    }

    /// The domains of every product the functions depend on.
    func domain(_ fs: [Int32]) -> Int32 {
        var products: Set<String> = []
        for f in fs {
            for v in bdd.support(f) { products.insert(atomOf[v].product) }
        }
        return products.sorted().reduce(BDD.true) { bdd.and($0, chain($1)) }
    }

    /// The purchase states (within the domains) of customers who bought everything before `t`:
    /// for each product `fs` depend on, owning it means a purchase before `t`, and no purchase is
    /// made at or after any instant from `t` on. `entlc diff` asks what existing customers lose.
    func boughtBefore(_ t: Instant, _ fs: [Int32]) -> Int32 {
        var products: Set<String> = []
        for f in fs {
            for v in bdd.support(f) { products.insert(atomOf[v].product) }
        }
        var r = BDD.true
        for p in products.sorted() {
            r = bdd.and(r, bdd.or(bdd.not(variable(p, .atLeast(1))), variable(p, .purchased(before: true, t))))
            for case (.purchased(false, let since), let v) in variables[p] ?? [:] where since >= t {
                r = bdd.and(r, bdd.not(bdd.variable(v)))
            }
        }
        return bdd.and(r, domain(fs + [r]))
    }

    /// A purchase state (within the domains) where `f` holds, as the atoms that are true in it —
    /// the fewest the diagram needs — or nil when there is none.
    func example(_ f: Int32) -> [(product: String, atom: Atom)]? {
        let g = bdd.and(f, domain([f]))
        guard let path = bdd.satisfyingPath(g) else { return nil }
        return path.filter(\.value).map { atomOf[$0.variable] }
    }

    func and(_ a: Int32, _ b: Int32) -> Int32 { bdd.and(a, b) }
    func or(_ a: Int32, _ b: Int32) -> Int32 { bdd.or(a, b) }
    func not(_ a: Int32) -> Int32 { bdd.not(a) }
}

/// The constraints of one environment of one rule set as BDDs over purchase atoms, for the exact
/// lints (and, two at a time in one atom space, for `entlc diff`). Entitlement references are
/// expanded (computed once each, in dependency order).
final class ConstraintAnalysis {
    let table: SymbolTable
    let atoms: PurchaseAtoms
    private var entitlements: [String: Int32] = [:]
    private var requirements: [String: Int32] = [:]

    /// Whether the analysis stayed within its budget; when not, no lint may rely on it.
    var usable: Bool { atoms.usable }

    init(declarations: [DeclarationSite], table: SymbolTable, atoms: PurchaseAtoms = PurchaseAtoms()) {
        self.table = table
        self.atoms = atoms
        var constraints: [(String, Expression)] = []
        var requires: [(String, Expression)] = []
        for site in declarations where site.isVisible(in: table.environment) {
            switch site.declaration {
            case .entitlement(let e): constraints.append((e.name.name, e.expression))
            case .feature(let f): if let r = f.requires { requires.append((f.name.name, r)) }
            default: break
            }
        }
        // Atoms in declaration order of the products, so variable order follows the rule set.
        var used: [String: [PurchaseAtoms.Atom]] = [:]
        func collect(_ e: Expression) {
            forEachSubterm(e) { term in
                switch term {
                case .reference(let id) where table[id.name]?.kind.isProduct == true: used[id.name, default: []].append(.atLeast(1))
                case .atLeast(let id, let n): used[id.name, default: []].append(.atLeast(n.value))
                case .purchased(let id, let date):
                    if let atom = ConstraintAnalysis.atom(date) { used[id.name, default: []].append(atom) }
                default: break
                }
            }
        }
        for (_, e) in constraints + requires { collect(e) }
        for name in table.order {
            for atom in used[name] ?? [] { _ = atoms.variable(name, atom) }
        }
        // Entitlements in dependency order (the checker proved there is no cycle).
        var byName: [String: Expression] = [:]
        for (name, e) in constraints where byName[name] == nil { byName[name] = e }
        for name in ConstraintAnalysis.dependencyOrder(byName, table: table) {
            entitlements[name] = value(byName[name]!)
        }
        for (name, r) in requires where requirements[name] == nil { requirements[name] = value(r) }
    }

    static func atom(_ date: PurchaseDate) -> PurchaseAtoms.Atom? {
        date.filter.map { .purchased(before: $0.before, $0.instant) }
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
            if table[id.name]?.kind.isProduct == true { return atoms.variable(id.name, .atLeast(1)) }
            return BDD.false
        case .atLeast(let id, let n):
            return table[id.name]?.kind.isProduct == true ? atoms.variable(id.name, .atLeast(n.value)) : BDD.false
        case .purchased(let id, let date):
            guard table[id.name]?.kind.isProduct == true, let atom = ConstraintAnalysis.atom(date) else { return BDD.false }
            return atoms.variable(id.name, atom)
        case .everyone:
            return BDD.true
        case .not(let inner, _):
            return atoms.not(value(inner))
        case .and(let terms):
            return terms.reduce(BDD.true) { atoms.and($0, value($1)) }
        case .or(let terms):
            return terms.reduce(BDD.false) { atoms.or($0, value($1)) }
        case .error:
            return BDD.false
        }
    }

    func domain(_ fs: Int32...) -> Int32 { atoms.domain(fs) }

    /// False for every possible purchase state.
    func isImpossible(_ f: Int32) -> Bool {
        atoms.and(f, domain(f)) == BDD.false
    }

    /// True for every possible purchase state.
    func isAlwaysTrue(_ f: Int32) -> Bool {
        atoms.and(atoms.not(f), domain(f)) == BDD.false
    }

    /// The same function over every possible purchase state.
    func equivalent(_ f: Int32, _ g: Int32) -> Bool {
        let d = domain(f, g)
        return atoms.and(f, d) == atoms.and(g, d)
    }

    /// A canonical id of a function over its possible purchase states.
    func canonical(_ f: Int32) -> Int32 {
        atoms.and(f, domain(f))
    }

    func entitlement(_ name: String) -> Int32? { entitlements[name] }

    func and(_ a: Int32, _ b: Int32) -> Int32 { atoms.and(a, b) }
    func or(_ a: Int32, _ b: Int32) -> Int32 { atoms.or(a, b) }
    func not(_ a: Int32) -> Int32 { atoms.not(a) }
}
