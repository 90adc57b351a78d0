import EntlRuntime

/// What a change does to real customers (`entlc diff --states`): both versions of the rules
/// evaluated for every state; per entitlement and feature, who gains it, who loses it, and whose
/// balance changes, counted, with the first ten customers of each and the counts split by what
/// represents each customer; per metered feature and credit system, how the balances move.
/// Measured a block of states at a time and merged in input order, so the first ten, and the
/// largest change of several equal ones, are the first of the input whatever the number of
/// threads.
public struct Impact: Sendable {
    /// An entitlement or a feature (credit systems are features).
    public struct Key: Hashable, Comparable, Sendable {
        /// "entitlement" or "feature".
        public var kind: String
        public var name: String

        public init(kind: String, name: String) { (self.kind, self.name) = (kind, name) }

        public static func < (a: Key, b: Key) -> Bool { (a.kind, a.name) < (b.kind, b.name) }
    }

    /// What gives a customer an entitlement or feature, on the side where they have it (OLD when
    /// both do, or neither): the product of the purchase that represents an entitlement (§3), the
    /// products behind a feature's grants that count (for a metered feature or credit system, its
    /// certain balance sources). In this order: products by name, then the buckets.
    public enum Representation: Hashable, Comparable, Sendable {
        /// One product.
        case product(String)
        /// A feature granted through purchases of more than one product.
        case severalProducts
        /// No purchase, a grant to this customer in the state (an entitlement `promotional`).
        case stateGrant
        /// Nothing: no access on either side, or access that no purchase or state grant gives
        /// (`everyone`, a boolean feature's requirement).
        case nothing
    }

    /// The three groups of a row, counted.
    public struct Counts: Sendable, Equatable {
        public internal(set) var gained = 0, lost = 0, balanceChanged = 0

        public init(gained: Int = 0, lost: Int = 0, balanceChanged: Int = 0) {
            (self.gained, self.lost, self.balanceChanged) = (gained, lost, balanceChanged)
        }
    }

    public struct Row: Sendable {
        /// Access gained or lost; for a feature allowed (or not) on both sides, a different balance.
        public internal(set) var gained = Group(), lost = Group(), balanceChanged = Group()
        /// The three groups split by what represents each customer.
        public internal(set) var byProduct: [Representation: Counts] = [:]
        /// A metered feature or credit system: how its balances move (empty otherwise).
        public internal(set) var balances = Balances()

        mutating func merge(_ other: Row) {
            gained.merge(other.gained)
            lost.merge(other.lost)
            balanceChanged.merge(other.balanceChanged)
            for (r, c) in other.byProduct {
                byProduct[r, default: Counts()].gained += c.gained
                byProduct[r, default: Counts()].lost += c.lost
                byProduct[r, default: Counts()].balanceChanged += c.balanceChanged
            }
            balances.merge(other.balances)
        }
    }

    /// A count and the first ten customers.
    public struct Group: Sendable {
        public private(set) var count = 0
        public private(set) var customers: [String] = []

        mutating func add(_ customer: String) {
            count += 1
            if customers.count < 10 { customers.append(customer) }
        }

        mutating func merge(_ other: Group) {
            count += other.count
            customers += other.customers.prefix(10 - customers.count)
        }
    }

    /// Where the states come from, as the report names it (a path).
    public let source: String
    /// The states evaluated.
    public private(set) var customers = 0
    /// What changed, by entitlement and feature (only those where something did).
    public private(set) var rows: [Key: Row] = [:]
    /// The states that could not be decoded or evaluated.
    public private(set) var errorCount = 0
    /// The first ten of them: their line and why.
    public private(set) var errors: [(line: Int, message: String)] = []

    public init(source: String) {
        self.source = source
    }

    /// Adds one customer: the state of line `number` (decoded by `state`, which may throw),
    /// evaluated with both graphs at its `now`, else at `at` (`diff --since`: no clock is read
    /// here). A state that cannot be decoded or evaluated is counted as an error, with its message.
    public mutating func add(line number: Int, old: RuleGraph, new: RuleGraph, environment: Environment?,
                             at: Instant, state: () throws -> PurchaseState) {
        let before: Side, after: Side
        let customer: Customer
        do {
            let state = try state()
            let at = state.now ?? at
            before = Side(try Evaluation(graph: old, state: state, environment: environment, at: at))
            // A state the old rules read and the new ones refuse (an id two products now have) is a
            // customer who loses everything: the app's question is answered with an error.
            after = (try? Evaluation(graph: new, state: state, environment: environment, at: at)).map(Side.init)
                ?? Side()
            customer = Customer(id: state.customer, line: number)
        } catch {
            errorCount += 1
            if errors.count < 10 { errors.append((number, (error as? StateError)?.description ?? "\(error)")) }
            return
        }
        customers += 1
        for name in Set(before.entitlements.keys).union(after.entitlements.keys) {
            let (b, a) = (before.entitlements[name], after.entitlements[name])
            record(Key(kind: "entitlement", name: name), had: b?.allowed ?? false, has: a?.allowed ?? false,
                   balanceChanged: false, customer) { $0.representation(ofEntitlement: name) }
        }
        for name in Set(before.features.keys).union(after.features.keys) {
            let (b, a) = (before.features[name], after.features[name])
            let key = Key(kind: "feature", name: name)
            let changed = b != nil && a != nil && b?.balance != a?.balance
            record(key, had: b?.allowed ?? false, has: a?.allowed ?? false, balanceChanged: changed, customer) {
                $0.representation(ofFeature: name)
            }
            if b?.kind.isMetered == true || a?.kind.isMetered == true {
                let (was, now) = (Balances.Level(b), Balances.Level(a))
                if was != now { rows[key, default: Row()].balances.add(was, now, customer) }
            }
        }

        func record(_ key: Key, had: Bool, has: Bool, balanceChanged: Bool, _ customer: Customer,
                    _ representation: (Side) -> Representation) {
            guard had != has || balanceChanged else { return }
            // The side where the customer has it says what gives it to them; OLD when both or neither do.
            let by = representation(had || !has ? before : after)
            if !had, has {
                rows[key, default: Row()].gained.add(customer.name)
                rows[key, default: Row()].byProduct[by, default: Counts()].gained += 1
            } else if had, !has {
                rows[key, default: Row()].lost.add(customer.name)
                rows[key, default: Row()].byProduct[by, default: Counts()].lost += 1
            } else {
                rows[key, default: Row()].balanceChanged.add(customer.name)
                rows[key, default: Row()].byProduct[by, default: Counts()].balanceChanged += 1
            }
        }
    }

    /// Adds what was measured on the states that come after this one's.
    public mutating func merge(_ other: Impact) {
        customers += other.customers
        errorCount += other.errorCount
        errors += other.errors.prefix(10 - errors.count)
        for (key, row) in other.rows { rows[key, default: Row()].merge(row) }
    }

    /// A customer as the report names them: the state's `customer`, else `line N`.
    struct Customer {
        var id: String?
        var line: Int

        var name: String { id ?? "line \(line)" }
    }

    /// One version's answers for one customer: what is compared, and what says, where something
    /// changed, what represents the customer.
    struct Side {
        /// Nil for a state these rules refuse: nothing is allowed.
        let evaluation: Evaluation?
        let entitlements: [String: EntitlementResult]
        let features: [String: FeatureResult]
        let owned: Set<String>

        init() { (evaluation, entitlements, features, owned) = (nil, [:], [:], []) }

        init(_ evaluation: Evaluation) {
            self.evaluation = evaluation
            var entitlements: [String: EntitlementResult] = [:], features: [String: FeatureResult] = [:]
            var owned: Set<String> = []
            for result in evaluation.all() {
                switch result {
                case .product(let p): if p.allowed { owned.insert(p.name) }
                case .entitlement(let e): entitlements[e.name] = e
                case .feature(let f): features[f.name] = f
                }
            }
            (self.entitlements, self.features, self.owned) = (entitlements, features, owned)
        }

        /// The product of the purchase that represents an active entitlement (§3); a state grant when
        /// it is `promotional`; nothing when it is not active or no purchase is behind it (`everyone`).
        func representation(ofEntitlement name: String) -> Representation {
            guard let e = entitlements[name], e.allowed else { return .nothing }
            if e.status == .promotional { return .stateGrant }
            return e.product.map(Representation.product) ?? .nothing
        }

        /// The products behind the grants of a feature that count: for a boolean feature, the owned
        /// products and active entitlements that grant it (a state grant only when none does, as the
        /// evaluation decides); for a metered one, its certain balance sources. One product, several,
        /// a state grant when no purchase is behind any, else nothing.
        func representation(ofFeature name: String) -> Representation {
            guard let f = features[name] else { return .nothing }
            var products: Set<String> = [], stateGrant = false
            func add(_ r: Representation) {
                switch r {
                case .product(let p): products.insert(p)
                case .stateGrant: stateGrant = true
                case .severalProducts, .nothing: break
                }
            }
            if f.kind == .boolean {
                guard f.allowed, let evaluation, let index = evaluation.graph.featureIndex[name] else {
                    return .nothing
                }
                let graph = evaluation.graph
                var granted = false
                for grant in graph.features[index].grants {
                    switch grant.source {
                    case .product(let p) where owned.contains(graph.products[p].name):
                        add(.product(graph.products[p].name))
                        granted = true
                    case .entitlement(let e) where entitlements[graph.entitlements[e].name]?.allowed == true:
                        add(representation(ofEntitlement: graph.entitlements[e].name))
                        granted = true
                    default:
                        break
                    }
                }
                if !granted {
                    let (grants, at) = (evaluation.state.grants, evaluation.at)
                    stateGrant = grants.contains { $0.target == .feature(name) && $0.covers(at) }
                }
            } else {
                for source in f.sources where source.certain {
                    switch source.kind {
                    case "state": stateGrant = true
                    case "entitlement" where source.product == nil: add(representation(ofEntitlement: source.grant))
                    default: add(source.product.map(Representation.product) ?? .nothing)
                    }
                }
            }
            if products.count > 1 { return .severalProducts }
            if let p = products.first { return .product(p) }
            return stateGrant ? .stateGrant : .nothing
        }
    }
}
