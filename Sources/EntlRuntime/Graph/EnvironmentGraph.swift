/// The graph of one environment. Immutable and shared: passing it around costs one retain.
public final class EnvironmentGraph: Sendable {
    public let products: [Product]
    public let entitlements: [Entitlement]
    /// Features and credit systems, in declaration order.
    public let features: [Feature]
    /// Entitlement indices such that each comes after every entitlement its constraint names.
    public let entitlementOrder: [Int]
    /// store → store product id → product index.
    public let storeIDs: [String: [String: Int]]

    public let productIndex: [String: Int]
    public let entitlementIndex: [String: Int]
    public let featureIndex: [String: Int]
    /// Usage event name (`event "…"`) → feature index.
    public let eventIndex: [String: Int]
    /// Store product id → the (store, product) pairs with that id, in store-name order (for
    /// purchases that give no `store`).
    public let idOwners: [String: [(store: String, product: Int)]]
    /// Per feature: the *credit component* it belongs to (an index into `components`), or -1 for
    /// boolean and continuous features. A credit system and every single-use feature its schema
    /// lists are replayed together (a use a feature's grants cannot cover spills into a credit
    /// system, docs/semantics.md §5), so components are the connected groups of credit systems
    /// and the single-use features they list; a single-use feature no system lists is alone.
    public let componentOf: [Int]
    /// The members of each component, in declaration order.
    public let components: [[Int]]
    /// Per feature: its position among its component's members, or -1 (as `componentOf`).
    let componentMember: [Int]
    /// Per component, per member: the credit systems that can pay for it, as members, in
    /// declaration order (none for a credit system).
    let componentRoutes: [[[MemberRoute]]]
    /// Per component: the products behind the entitlements that grant its members (§5: how they
    /// stood at a use's instant decides which entitlement grants paid for it; a product-level
    /// grant's purchase is read on its own, `Candidate.past`).
    let componentEntitlementProducts: [[Int]]
    /// Per component: the products and the entitlements its members' grants come from, each once,
    /// in index order (where a candidate grant can come from, `Evaluation.mayHaveCandidate`).
    let componentGrantProducts: [[Int]], componentGrantEntitlements: [[Int]]

    /// A credit system that can pay for a member of a credit component, as a member of it:
    /// `amount` of the member cost `credits` (where `ComponentReplay` spills a use's rest).
    struct MemberRoute: Sendable {
        var member: Int
        var amount: Int64
        var credits: Int64
    }

    /// Per product: whether its purchase starts a lot (a grant that `expires after`, of the
    /// product or of an entitlement it is behind), which a purchase without a date never does
    /// (a warning, `Evaluation.purchaseWarnings`).
    let startsLots: [Bool]
    /// Per product: whether a grant it pays for (its own, or an entitlement's it is behind) has
    /// windows, which a purchase anchors at its `purchased_at` (else its `period_start`, which a
    /// renewal moves: a warning).
    let hasWindows: [Bool]

    /// The name indices as `NameTable`s, for the lookups every evaluation makes.
    let productNames: NameTable, entitlementNames: NameTable, featureNames: NameTable
    /// (store, store product id) → product index.
    let storeProductIDs: NameTable
    /// What a usage record's `feature` names: a feature or credit system, else a feature's event.
    let usageNames: NameTable
    /// What a usage record's `event` names.
    let eventNames: NameTable
    /// `rulesDigest`, computed on first use.
    private let digest = Locked<String?>(nil)

    /// The SHA-256 of this environment's rules as `entlc build` encodes them (64 lowercase hex
    /// digits): what a compacted state's ledger names, so that evaluating it with other rules is
    /// noticed (docs/state.md `ledger`). Computed once per graph.
    public var rulesDigest: String {
        digest.withLock { memo in
            if let memo { return memo }
            var bytes: [UInt8] = []
            ArtifactEncoder.environment(self).write(into: &bytes, indent: false, level: 0)
            let computed = SHA256.hexDigest(bytes)
            memo = computed
            return computed
        }
    }

    /// Links a graph from its core: products, entitlements (name, constraint), features (kind,
    /// grants, conversions) and a topological entitlement order. Everything else is derived here,
    /// the one place for the compiler's lowering and the artifact decoder alike: the store-id map
    /// (first product wins), the purchases behind each entitlement and the products each result
    /// watches (§3, §6), each metered feature's credit routes, the name indices and the credit
    /// components.
    ///
    /// PRECONDITION: every index is in range and `entitlementOrder` is a topological order of the
    /// entitlements (the checker or `ArtifactDecoder` has made sure).
    public init(products: [Product], entitlements: [Entitlement], features: [Feature], entitlementOrder: [Int]) {
        var storeIDs: [String: [String: Int]] = [:]
        for (index, product) in products.enumerated() {
            for s in product.storeIDs where storeIDs[s.store, default: [:]][s.id] == nil {
                storeIDs[s.store, default: [:]][s.id] = index
            }
        }

        var features = features
        for i in features.indices { features[i].creditRoutes = [] }
        // Conversions in credit-system declaration order, so each feature's routes are too.
        for system in features.indices {
            for c in features[system].conversions {
                let route = CreditRoute(system: system, amount: c.amount, credits: c.credits)
                features[c.feature].creditRoutes.append(route)
            }
        }

        var entitlements = entitlements
        var named = [NamedProducts](repeating: NamedProducts(), count: entitlements.count)
        for e in entitlementOrder {
            named[e] = NamedProducts(entitlements[e].constraint, nested: named)
            entitlements[e].behind = named[e].positive.sorted()
            entitlements[e].watchedProducts = named[e].all.sorted()
            entitlements[e].unlockCandidates = named[e].positiveProducts.sorted()
        }

        // §6: a feature watches its granting products, the products behind its granting
        // entitlements and its requirement, and the same of the credit systems that pay for it.
        // The balance of a single-use feature or credit system depends on its whole credit
        // component (uses spill into the systems), so those watch the whole component's products.
        let (componentOf, components) = EnvironmentGraph.creditComponents(features)
        var own = [Set<Int>](repeating: [], count: features.count)
        var ownPositive = own
        for (i, f) in features.enumerated() {
            for g in f.grants {
                switch g.source {
                case .product(let p):
                    own[i].insert(p)
                    ownPositive[i].insert(p)
                case .entitlement(let e):
                    own[i].formUnion(named[e].all)
                    ownPositive[i].formUnion(named[e].positiveProducts)
                case .state:
                    break  // INVARIANT: a graph holds no state grants (the loader refuses them)
                }
            }
            if let r = f.requires {
                let required = NamedProducts(r, nested: named)
                own[i].formUnion(required.all)
                ownPositive[i].formUnion(required.positiveProducts)
            }
        }
        let componentProducts = components.map { members in members.reduce(into: Set<Int>()) { $0.formUnion(own[$1]) } }
        // Per component, the products and entitlements its members' grants come from; the products
        // behind those entitlements are what decides which of them paid for a use.
        var grantSources = components.map { _ in (products: Set<Int>(), entitlements: Set<Int>()) }
        for (c, members) in components.enumerated() {
            for f in members {
                for g in features[f].grants {
                    switch g.source {
                    case .product(let p): grantSources[c].products.insert(p)
                    case .entitlement(let e): grantSources[c].entitlements.insert(e)
                    case .state: break
                    }
                }
            }
        }
        componentGrantProducts = grantSources.map { $0.products.sorted() }
        componentGrantEntitlements = grantSources.map { $0.entitlements.sorted() }
        componentEntitlementProducts = grantSources.map { sources in
            sources.entitlements.reduce(into: Set<Int>()) { $0.formUnion(named[$1].all) }.sorted()
        }
        for i in features.indices {
            var set = own[i]
            if componentOf[i] >= 0 { set.formUnion(componentProducts[componentOf[i]]) }
            for route in features[i].creditRoutes { set.formUnion(componentProducts[componentOf[route.system]]) }
            features[i].watchedProducts = set.sorted()
            // §4.6: buying a product only makes its atoms truer, so only products named positively
            // can allow what is not allowed — unless credits are involved: losing a grant can turn
            // a use that spilled into a credit system into overage, leaving credits for later
            // uses, so there every watched product can matter.
            let credits = !features[i].creditRoutes.isEmpty
                || (componentOf[i] >= 0 && components[componentOf[i]].count > 1)
            features[i].unlockCandidates = credits ? features[i].watchedProducts : ownPositive[i].sorted()
        }

        self.products = products
        self.entitlements = entitlements
        self.features = features
        self.entitlementOrder = entitlementOrder
        self.storeIDs = storeIDs
        self.productIndex = Dictionary(products.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        self.entitlementIndex = Dictionary(entitlements.enumerated().map { ($1.name, $0) },
                                           uniquingKeysWith: { a, _ in a })
        self.featureIndex = Dictionary(features.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        var events: [String: Int] = [:]
        for (i, f) in features.enumerated() {
            if let e = f.event, events[e] == nil { events[e] = i }
        }
        self.eventIndex = events
        var owners: [String: [(store: String, product: Int)]] = [:]
        for store in storeIDs.keys.sorted() {
            for (id, product) in storeIDs[store]! { owners[id, default: []].append((store, product)) }
        }
        self.idOwners = owners
        (self.componentOf, self.components) = (componentOf, components)
        var componentMember = [Int](repeating: -1, count: features.count)
        for members in components {
            for (m, f) in members.enumerated() { componentMember[f] = m }
        }
        self.componentMember = componentMember
        self.componentRoutes = components.map { members in
            members.map { f in
                features[f].kind == .credits ? [] : features[f].creditRoutes.map { r in
                    MemberRoute(member: componentMember[r.system], amount: r.amount, credits: r.credits)
                }
            }
        }
        var startsLots = [Bool](repeating: false, count: products.count), hasWindows = startsLots
        for feature in features {
            for grant in feature.grants {
                let products: [Int] = switch grant.source {
                case .product(let p): [p]
                case .entitlement(let e): entitlements[e].behind.map(\.product)
                case .state: []
                }
                for p in products {
                    if grant.expiresAfter != nil { startsLots[p] = true }
                    if grant.interval != nil { hasWindows[p] = true }
                }
            }
        }
        (self.startsLots, self.hasWindows) = (startsLots, hasWindows)
        self.productNames = NameTable(productIndex)
        self.entitlementNames = NameTable(entitlementIndex)
        self.featureNames = NameTable(featureIndex)
        self.storeProductIDs = NameTable(pairs: storeIDs)
        self.usageNames = NameTable(featureIndex.merging(events) { feature, _ in feature })
        self.eventNames = NameTable(events)
    }

    /// The products a constraint names, through nested entitlements: those under an even number
    /// of `not`s (positive: their purchases — or those a purchase-date qualifier admits — can make
    /// it true, §3) and under an odd number (negative).
    struct NamedProducts {
        var positive: Set<BehindProduct> = []
        var negative: Set<BehindProduct> = []
        var all: Set<Int> { positiveProducts.union(negative.map(\.product)) }
        var positiveProducts: Set<Int> { Set(positive.map(\.product)) }

        init() {}

        /// `nested` holds the sets of the entitlements `c` names (computed first).
        init(_ c: Constraint, nested: [NamedProducts]) {
            collect(c, negated: false, nested: nested)
        }

        private mutating func collect(_ c: Constraint, negated: Bool, nested: [NamedProducts]) {
            switch c {
            case .product(let p), .atLeast(let p, _):
                let behind = BehindProduct(product: p)
                if negated { negative.insert(behind) } else { positive.insert(behind) }
            case .purchased(let p, let date):
                let behind = BehindProduct(product: p, date: date)
                if negated { negative.insert(behind) } else { positive.insert(behind) }
            case .entitlement(let e):
                positive.formUnion(negated ? nested[e].negative : nested[e].positive)
                negative.formUnion(negated ? nested[e].positive : nested[e].negative)
            case .not(let inner):
                collect(inner, negated: !negated, nested: nested)
            case .and(let terms), .or(let terms):
                for t in terms { collect(t, negated: negated, nested: nested) }
            case .everyone:
                break
            }
        }
    }

    /// Union-find over single-use features and credit systems, joined by conversions.
    public static func creditComponents(_ features: [Feature]) -> (componentOf: [Int], components: [[Int]]) {
        var parent = Array(features.indices)
        func root(_ x: Int) -> Int {
            var x = x
            while parent[x] != x {
                parent[x] = parent[parent[x]]
                x = parent[x]
            }
            return x
        }
        for (system, f) in features.enumerated() where f.kind == .credits {
            for c in f.conversions
            where features.indices.contains(c.feature) && features[c.feature].kind == .singleUse {
                let (a, b) = (root(system), root(c.feature))
                if a != b { parent[max(a, b)] = min(a, b) }
            }
        }
        var componentOf = [Int](repeating: -1, count: features.count)
        var components: [[Int]] = []
        var byRoot: [Int: Int] = [:]
        for (i, f) in features.enumerated() where f.kind == .singleUse || f.kind == .credits {
            let r = root(i)
            if let c = byRoot[r] {
                components[c].append(i)
                componentOf[i] = c
            } else {
                byRoot[r] = components.count
                componentOf[i] = components.count
                components.append([i])
            }
        }
        return (componentOf, components)
    }
}
