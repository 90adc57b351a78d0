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
///
/// Three-valued (`entlc diff`): a purchase of unknown status makes an atom unknown (SEMANTICS §1,
/// Kleene logic), and access is a constraint that is *true*, not unknown. Each atom then has two
/// variables, side by side: "definitely holds" and "possibly holds" (the first implies the
/// second; the domains hold on each). A constraint's function is "definitely true": `not x` is
/// definitely true where `x` is not possibly true. The lints keep one variable per atom: two-valued.
final class PurchaseAtoms {
    enum Atom: Hashable {
        /// Holds at least N units (N = 1: owns the product).
        case atLeast(Int64)
        /// Owns the product through a purchase made before (`before`) or at or after T.
        case purchased(before: Bool, Instant)

        /// Thresholds ascending, then `before` dates, then `since` dates, each ascending.
        static func precedes(_ a: Atom, _ b: Atom) -> Bool {
            switch (a, b) {
            case (.atLeast(let x), .atLeast(let y)): x < y
            case (.atLeast, .purchased): true
            case (.purchased, .atLeast): false
            case (.purchased(let xb, let x), .purchased(let yb, let y)): xb != yb ? xb : x < y
            }
        }
    }

    private(set) var bdd = BDD()
    /// Whether atoms are three-valued: a "possibly" variable after each atom's own.
    let threeValued: Bool
    /// Product name → atom → variable ("definitely"; "possibly" is the next one when three-valued).
    private var variables: [String: [Atom: Int]] = [:]
    /// Variable → its product and atom, and whether it is the "possibly" one (for domains and
    /// example situations).
    private(set) var atomOf: [Int: (product: String, atom: Atom, possibly: Bool)] = [:]
    /// Each product's range of variables (the order is the variables' numbers): its atoms stay
    /// together even when one is made after other products' (a `purchased before` of every
    /// product, which `entlc diff` asks about existing customers; apart, the relation of each
    /// product to its atom made a diagram exponential in the number of products).
    private var ranges: [String: (next: Int, end: Int)] = [:]
    private var nextRange = 0
    /// Variables past every product's range, when a product has used all of its own.
    private var overflow = PurchaseAtoms.overflowStart

    static let rangeSize = 4096
    static let overflowStart = 2_050_000_000

    init(threeValued: Bool = false, capacity: Int = BDD.defaultCapacity) {
        self.threeValued = threeValued
        bdd = BDD(capacity: capacity)
    }

    /// A new variable (two side by side when three-valued) for one of `product`'s atoms.
    private func newVariable(_ product: String) -> Int {
        let width = threeValued ? 2 : 1
        if ranges[product] == nil, nextRange + PurchaseAtoms.rangeSize <= PurchaseAtoms.overflowStart {
            ranges[product] = (nextRange, nextRange + PurchaseAtoms.rangeSize)
            nextRange += PurchaseAtoms.rangeSize
        }
        if let r = ranges[product], r.next + width <= r.end {
            ranges[product]!.next += width
            return r.next
        }
        overflow += width
        return overflow - width
    }
    /// Product → its domain, computed on first use for the atoms it has then.
    private var chains: [String: (atoms: Int, chain: Int32)] = [:]

    /// Whether every function asked for was computed: the store stayed within its capacity and
    /// no constraint was skipped for its budget. When not, a comparison of all constraints
    /// (`entlc diff`) cannot rely on it.
    var usable: Bool { !bdd.exhausted && !incomplete }
    /// Set when a constraint's analysis spent its budget (`ConstraintAnalysis.Skip`).
    var incomplete = false

    /// Starts a task with its own budget (`BDD.begin`).
    func beginTask(_ budget: AnalysisBudget) {
        bdd.begin(nodes: budget.nodes, steps: budget.steps)
        chainsOfTask = []
    }

    /// Ends a task (`BDD.end`): whether it stayed within its budget. Domains made by a task whose
    /// nodes are dropped are forgotten with them.
    func endTask(keep: Bool) -> Bool {
        let before = bdd.nodeCount
        let within = bdd.end(keep: keep)
        if bdd.nodeCount < before {
            for product in chainsOfTask { chains[product] = nil }
        }
        chainsOfTask = []
        return within
    }

    /// What one name's comparison may add to the store (a quarter of it): past that it is D106's,
    /// in well under a second, rather than the store's to fill.
    static let nodesPerComparison = BDD.defaultCapacity / 4

    /// Runs `body` as a task whose diagrams are dropped after it: the comparison of one name by
    /// `entlc diff`, so that the store holds the analyses and one comparison at a time, not every
    /// comparison's (thousands of entitlements filled it). Whether it stayed within the store:
    /// when not, what `body` found is meaningless, and only it (the store is sound again after).
    func transient(_ body: () -> Void) -> Bool {
        if bdd.exhausted { incomplete = true }
        beginTask(AnalysisBudget(nodes: PurchaseAtoms.nodesPerComparison, steps: .max))
        body()
        return endTask(keep: false)
    }

    /// The products whose domains the task under way cached.
    private var chainsOfTask: [String] = []
    /// Whether the task under way has spent its budget: what it computes now is meaningless.
    var spent: Bool { bdd.exhausted }

    /// Counts `steps` of a lint's own work against the task under way (`BDD.spend`).
    func spend(_ steps: Int) { bdd.spend(steps) }

    /// The variable of an atom (created on first use; owning the product comes first): "the atom
    /// definitely holds", or with `possibly` (three-valued only) "it possibly holds".
    func variable(_ product: String, _ atom: Atom, possibly: Bool = false) -> Int32 {
        if case .purchased = atom { _ = variable(product, .atLeast(1)) }
        let offset = possibly && threeValued ? 1 : 0
        if let v = variables[product]?[atom] { return bdd.variable(v + offset) }
        let v = newVariable(product)
        variables[product, default: [:]][atom] = v
        atomOf[v] = (product, atom, false)
        if threeValued { atomOf[v + 1] = (product, atom, true) }
        return bdd.variable(v + offset)
    }

    /// The rails a domain's relations hold on: "definitely", and "possibly" when three-valued.
    private var rails: [Int] { threeValued ? [0, 1] : [0] }

    /// The relations among one product's atoms.
    private func chain(_ product: String) -> Int32 {
        let atoms = variables[product] ?? [:]
        if let c = chains[product], c.atoms == atoms.count { return c.chain }
        func implies(_ a: Atom, _ b: Atom) -> Int32 {
            rails.reduce(BDD.true) { r, rail in
                bdd.and(r, bdd.or(bdd.not(bdd.variable(atoms[a]! + rail)), bdd.variable(atoms[b]! + rail)))
            }
        }
        var chain = BDD.true
        // What definitely holds possibly holds.
        for v in atoms.values where threeValued {
            chain = bdd.and(chain, bdd.or(bdd.not(bdd.variable(v)), bdd.variable(v + 1)))
        }
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
        for (a, b) in zip(before, before.dropFirst()) {
            chain = bdd.and(chain, implies(.purchased(before: true, a), .purchased(before: true, b)))
        }
        for (a, b) in zip(since, since.dropFirst()) {
            chain = bdd.and(chain, implies(.purchased(before: false, b), .purchased(before: false, a)))
        }
        // Three-valued, an owned purchase is dated on one side of T, or undated and possibly on
        // either: owning means surely before T or possibly since, and possibly before or surely
        // since; a purchase that may be owned is possibly on one side.
        if threeValued, let owns = atoms[.atLeast(1)] {
            for t in Set(before).intersection(since) {
                let (b, a) = (atoms[.purchased(before: true, t)]!, atoms[.purchased(before: false, t)]!)
                func v(_ x: Int, _ possibly: Bool) -> Int32 { bdd.variable(x + (possibly ? 1 : 0)) }
                for (x, y, possibly) in [(b, a, false), (a, b, false), (b, a, true)] {
                    let either = possibly ? bdd.or(v(x, true), v(y, true)) : bdd.or(v(x, false), v(y, true))
                    chain = bdd.and(chain, bdd.or(bdd.not(v(owns, possibly)), either))
                }
            }
        }
        // A purchase before T1 and one since T2 ≥ T1 are two purchases: two units at least (an
        // owned purchase holds one at least).
        if let two = atoms[.atLeast(2)], let t1 = before.first, let t2 = since.last, t2 >= t1 {
            for rail in rails {
                for b in before where b <= t2 {
                    for a in since where a >= b {
                        let both = bdd.and(bdd.variable(atoms[.purchased(before: true, b)]! + rail),
                                           bdd.variable(atoms[.purchased(before: false, a)]! + rail))
                        chain = bdd.and(chain, bdd.or(bdd.not(both), bdd.variable(two + rail)))
                    }
                }
            }
        }
        if !bdd.exhausted {
            chains[product] = (atoms.count, chain)
            chainsOfTask.append(product)
        }
        return chain
    }

    /// The domains of every product the functions depend on.
    func domain(_ fs: [Int32]) -> Int32 {
        var products: Set<String> = []
        for f in fs {
            for v in bdd.support(f) { products.insert(atomOf[v]!.product) }
        }
        return products.sorted().reduce(BDD.true) { bdd.and($0, chain($1)) }
    }

    /// The purchase states (within the domains) of customers who bought everything before `t`:
    /// for each product `fs` depend on, owning it means a purchase before `t`, and no purchase is
    /// made at or after any instant from `t` on; every purchase has its date, so it was made before
    /// each instant a qualifier names, or since. `entlc diff` asks what existing customers lose.
    func boughtBefore(_ t: Instant, _ fs: [Int32]) -> Int32 {
        var products: Set<String> = []
        for f in fs {
            for v in bdd.support(f) { products.insert(atomOf[v]!.product) }
        }
        var r = BDD.true
        for p in products.sorted() {
            for rail in rails.map({ $0 == 1 }) {
                r = bdd.and(r, bdd.or(bdd.not(variable(p, .atLeast(1), possibly: rail)),
                                      variable(p, .purchased(before: true, t), possibly: rail)))
            }
            for case (.purchased(false, let since), let v) in variables[p] ?? [:] where since >= t {
                for rail in rails { r = bdd.and(r, bdd.not(bdd.variable(v + rail))) }
            }
            // Their purchases are dated: each made before an instant a qualifier names, or since
            // (from `t` on, before it: said above).
            let instants = Set((variables[p] ?? [:]).keys.compactMap { a -> Instant? in
                if case .purchased(_, let at) = a, at < t { at } else { nil }
            })
            for at in instants.sorted() {
                for rail in rails.map({ $0 == 1 }) {
                    r = bdd.and(r, bdd.or(bdd.not(variable(p, .atLeast(1), possibly: rail)),
                                          bdd.or(variable(p, .purchased(before: true, at), possibly: rail),
                                                 variable(p, .purchased(before: false, at), possibly: rail))))
                }
            }
        }
        return bdd.and(r, domain(fs + [r]))
    }

    /// A purchase state (within the domains) where `f` holds, as the atoms that are true in it —
    /// the fewest the diagram needs — or nil when there is none; `unknown`: the atom only
    /// possibly holds (a purchase of unknown status). One where every atom is known when `f`
    /// has one.
    func example(_ f: Int32) -> [(product: String, atom: Atom, unknown: Bool)]? {
        var g = bdd.and(f, domain([f]))
        if threeValued {
            var known = BDD.true
            for v in Set(bdd.support(g).map { atomOf[$0]!.possibly ? $0 - 1 : $0 }) {
                known = bdd.and(known, bdd.or(bdd.not(bdd.variable(v + 1)), bdd.variable(v)))
            }
            if bdd.and(g, known) != BDD.false { g = bdd.and(g, known) }
        }
        guard let path = bdd.satisfyingPath(g) else { return nil }
        let holds = Set(path.filter(\.value).map(\.variable))
        return holds.sorted().compactMap { v in
            let a = atomOf[v]!
            if !a.possibly { return (a.product, a.atom, false) }
            return holds.contains(v - 1) ? nil : (a.product, a.atom, true)
        }
    }

    func and(_ a: Int32, _ b: Int32) -> Int32 { bdd.and(a, b) }
    func or(_ a: Int32, _ b: Int32) -> Int32 { bdd.or(a, b) }
    func not(_ a: Int32) -> Int32 { bdd.not(a) }
}

/// What one constraint's analysis may spend: new diagram nodes and operation steps. A
/// constraint of a real rule set needs a few hundred of each; the budget is there for the rare
/// one whose diagram would grow exponentially, so that it is skipped (and said so) in well under
/// a second instead of holding up the check.
struct AnalysisBudget {
    var nodes: Int
    var steps: Int

    /// Per constraint, for each lint analysis: the diagram, a redundancy search, a culprit search.
    static let perConstraint = AnalysisBudget(nodes: 100_000, steps: 400_000)
}

/// The constraints of one environment of one rule set as BDDs over purchase atoms, for the exact
/// lints (and, two at a time in one atom space, for `entlc diff`). Entitlement references are
/// expanded (computed once each, in dependency order).
///
/// With a `budget`, each constraint's diagram is built as a task of its own: one that spends its
/// budget is skipped (`skip(of:)`), and so is every constraint that names a skipped entitlement;
/// the others are analysed as if it were not there. Without one, the store's capacity is the
/// only bound and `usable` says whether it held.
final class ConstraintAnalysis {
    /// Why a constraint has no diagram.
    enum Skip: Equatable {
        /// Its diagram spent the budget of one constraint.
        case tooManyCombinations
        /// It names this entitlement, which was skipped.
        case names(String)
    }

    /// A constraint's diagram and the facts the exact lints read from it.
    struct Facts {
        let value: Int32
        /// The relations among the atoms of the products it depends on.
        let domain: Int32
        /// `value` over its possible purchase states: equal ids, equivalent constraints.
        let canonical: Int32

        /// False for every possible purchase state.
        var isImpossible: Bool { canonical == BDD.false }
        /// True for every possible purchase state.
        var isAlwaysTrue: Bool { canonical == domain }
    }

    private enum Key: Hashable {
        case entitlement(String)
        case requirement(String)

        init?(_ declaration: Declaration) {
            switch declaration {
            case .entitlement(let e): self = .entitlement(e.name.name)
            case .feature(let f) where f.requires != nil: self = .requirement(f.name.name)
            default: return nil
            }
        }
    }

    private enum Outcome {
        case analysed(Facts)
        case skipped(Skip)
    }

    let table: SymbolTable
    let atoms: PurchaseAtoms
    let budget: AnalysisBudget?
    /// Whether an entitlement a constraint names may also be active through a grant to the
    /// customer (a state's `grants`), whatever its own constraint: a variable of its own beside
    /// it, where the constraint names it (`premium and not pro` is not impossible when `premium =
    /// pro`: a customer granted `premium` without `pro` has it). Per customer a named entitlement
    /// is then as its constraint says or active, which is all a grant anywhere can make of it;
    /// two of them are taken as independent, which only makes the lints claim less. What a lint
    /// says then holds of every customer. A diff compares purchase situations and leaves grants
    /// out.
    let grantable: Bool
    private var outcomes: [Key: Outcome] = [:]
    /// Each entitlement's constraint over purchases alone (what a name stands for inside another
    /// constraint, before its grant variable); three-valued, also where it is possibly true.
    private var purchasesOnly: [String: Int32] = [:]
    private var possiblyPurchases: [String: Int32] = [:]

    /// Whether the analysis stayed within its budget; when not, no lint may rely on it.
    var usable: Bool { atoms.usable }

    init(declarations: [DeclarationSite], table: SymbolTable, atoms: PurchaseAtoms = PurchaseAtoms(),
         budget: AnalysisBudget? = nil, grantable: Bool = false) {
        self.table = table
        self.atoms = atoms
        self.budget = budget
        self.grantable = grantable
        var constraints: [(String, Expression)] = []
        var requires: [(String, Expression)] = []
        var order: [Expression] = []
        for site in declarations where site.isVisible(in: table.environment) {
            switch site.declaration {
            case .entitlement(let e): constraints.append((e.name.name, e.expression)); order.append(e.expression)
            case .feature(let f): if let r = f.requires { requires.append((f.name.name, r)); order.append(r) }
            default: break
            }
        }
        createAtoms(order, table: table)
        // Entitlements in dependency order (the checker proved there is no cycle).
        var byName: [String: Expression] = [:]
        for (name, e) in constraints where byName[name] == nil { byName[name] = e }
        for name in ConstraintAnalysis.dependencyOrder(byName, table: table) {
            analyse(.entitlement(name), byName[name]!)
        }
        for (name, r) in requires where outcomes[.requirement(name)] == nil { analyse(.requirement(name), r) }
    }

    /// The variables of every atom the constraints use. Variable order decides the size of a
    /// diagram, so it follows the constraints: products in the order the constraints first name
    /// them (products named together stay close: `(a0 and b0) or (a1 and b1) or …` is linear,
    /// where all the `a`s before all the `b`s would be exponential), each product's atoms
    /// together, thresholds ascending.
    private func createAtoms(_ constraints: [Expression], table: SymbolTable) {
        var products: [String] = []
        var used: [String: Set<PurchaseAtoms.Atom>] = [:]
        for e in constraints {
            forEachSubterm(e) { term in
                let atom: (String, PurchaseAtoms.Atom)?
                switch term {
                case .reference(let id) where table[id.name]?.kind.isProduct == true: atom = (id.name, .atLeast(1))
                case .atLeast(let id, let n): atom = (id.name, .atLeast(n.value))
                case .purchased(let id, let date): atom = ConstraintAnalysis.atom(date).map { (id.name, $0) }
                default: atom = nil
                }
                guard let (product, a) = atom else { return }
                if used[product] == nil { products.append(product) }
                used[product, default: []].insert(a)
            }
        }
        for product in products {
            for atom in used[product]!.sorted(by: PurchaseAtoms.Atom.precedes) { _ = atoms.variable(product, atom) }
        }
    }

    /// Builds one constraint's diagram and facts, within the budget when there is one.
    private func analyse(_ key: Key, _ e: Expression) {
        let skipped = { (name: String) -> Bool in
            if case .skipped = self.outcomes[.entitlement(name)] { true } else { false }
        }
        if let named = e.references.first(where: { skipped($0.name) }) {
            outcomes[key] = .skipped(.names(named.name))
            atoms.incomplete = true
            return
        }
        if let budget { atoms.beginTask(budget) }
        let value = value(e)
        if case .entitlement(let name) = key {
            purchasesOnly[name] = grantable ? self.value(e, grantable: false) : value
            if atoms.threeValued { possiblyPurchases[name] = self.value(e, grantable: false, possibly: true) }
        }
        let domain = atoms.domain([value])
        let facts = Facts(value: value, domain: domain, canonical: atoms.and(value, domain))
        if budget != nil, !atoms.endTask(keep: true) {
            outcomes[key] = .skipped(.tooManyCombinations)
            atoms.incomplete = true
        } else {
            outcomes[key] = .analysed(facts)
        }
    }

    /// Runs `body` as a task with the per-constraint budget (when the analysis has one): what a
    /// lint computes beyond a constraint's diagram (a culprit, redundant terms). `complete` is
    /// false when the budget ran out; `body` should then stop (`spent`) and what it computed
    /// after that point is meaningless. The diagrams `body` makes are dropped afterwards: it
    /// must return none.
    func withinBudget<T>(_ body: () -> T) -> (result: T, complete: Bool) {
        guard let budget else { return (body(), true) }
        atoms.beginTask(budget)
        let result = body()
        return (result, atoms.endTask(keep: false))
    }

    /// Whether the task under way (`withinBudget`) has spent its budget.
    var spent: Bool { atoms.spent }

    /// Counts `steps` of a lint's own work against the task under way (`withinBudget`): a search
    /// that rebuilds arrays of diagrams is bounded by the budget as its operations are.
    func spend(_ steps: Int) { atoms.spend(steps) }

    static func atom(_ date: PurchaseDate) -> PurchaseAtoms.Atom? {
        date.filter.map { .purchased(before: $0.before, $0.instant) }
    }

    /// The diagram and facts of a declaration's constraint (an entitlement's, or a feature's
    /// requirement), computed at construction; nil when it has none or was skipped.
    func facts(of declaration: Declaration) -> Facts? {
        guard let key = Key(declaration), case .analysed(let facts)? = outcomes[key] else { return nil }
        return facts
    }

    /// The function of a declaration's constraint; nil when it has none or was skipped.
    func value(of declaration: Declaration) -> Int32? {
        facts(of: declaration)?.value
    }

    /// Why a declaration's constraint was skipped, if it was.
    func skip(of declaration: Declaration) -> Skip? {
        guard let key = Key(declaration), case .skipped(let skip)? = outcomes[key] else { return nil }
        return skip
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
    func value(_ e: Expression) -> Int32 { value(e, grantable: grantable) }

    /// `possibly` (three-valued): where `e` is possibly true (not known false), else where it is
    /// definitely true.
    private func value(_ e: Expression, grantable: Bool, possibly: Bool = false) -> Int32 {
        let value = { (e: Expression) in self.value(e, grantable: grantable, possibly: possibly) }
        switch e {
        case .reference(let id):
            if entitlement(id.name) != nil, let v = (possibly ? possiblyPurchases : purchasesOnly)[id.name] {
                // " granted NAME": no product's name (names have no spaces), one atom, no domain.
                return grantable ? atoms.or(v, atoms.variable(" granted " + id.name, .atLeast(1))) : v
            }
            guard table[id.name]?.kind.isProduct == true else { return BDD.false }
            return atoms.variable(id.name, .atLeast(1), possibly: possibly)
        case .atLeast(let id, let n):
            guard table[id.name]?.kind.isProduct == true else { return BDD.false }
            return atoms.variable(id.name, .atLeast(n.value), possibly: possibly)
        case .purchased(let id, let date):
            guard table[id.name]?.kind.isProduct == true,
                  let atom = ConstraintAnalysis.atom(date) else { return BDD.false }
            return atoms.variable(id.name, atom, possibly: possibly)
        case .everyone:
            return BDD.true
        case .not(let inner, _):
            // Definitely not: not possibly (Kleene); two-valued, the same.
            return atoms.not(self.value(inner, grantable: grantable, possibly: atoms.threeValued && !possibly))
        // Folded from the right: variables follow the order terms first name them, so each step
        // puts a term above what comes after it, and a long `or` of products is linear.
        case .and(let terms):
            return terms.reversed().reduce(BDD.true) { atoms.and(value($1), $0) }
        case .or(let terms):
            return terms.reversed().reduce(BDD.false) { atoms.or(value($1), $0) }
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

    /// The function of an entitlement's constraint; nil when it is not one or was skipped.
    func entitlement(_ name: String) -> Int32? {
        if case .analysed(let facts)? = outcomes[.entitlement(name)] { facts.value } else { nil }
    }

    /// The function of a boolean feature's requirement; nil when it has none or was skipped.
    func requirement(_ name: String) -> Int32? {
        if case .analysed(let facts)? = outcomes[.requirement(name)] { facts.value } else { nil }
    }

    func and(_ a: Int32, _ b: Int32) -> Int32 { atoms.and(a, b) }
    func or(_ a: Int32, _ b: Int32) -> Int32 { atoms.or(a, b) }
    func not(_ a: Int32) -> Int32 { atoms.not(a) }
}
