/// What an evaluation resolves once (§2): per state purchase its product and standing, the
/// matched purchases grouped by product, per product its standing, per usage record its feature,
/// the memo of entitlement values and the replays of credit components — every table in one
/// allocation (an `Array` per table would cost an allocation, a release and a generic-metadata
/// lookup in the Swift runtime each).
///
/// The tables are written by `fill` and only read afterwards, except the memo, the replays and the
/// usage records' features, which are filled on first use under the lock (an `Evaluation` is
/// `Sendable`; its first queries may race). The lock orders every access to the properties filled
/// on first use, so the runtime's exclusivity check on them (a call per access) is turned off.
/// Every other property is written only by `fill`, before an evaluation holds the tables, or while
/// only an `EvaluationScratch` holds them: unchecked as well.
///
/// An evaluation that is done with its tables can hand them to the next (`EvaluationScratch`, the
/// batch's): its state's arrays and the one allocation are then filled again, not made again.
final class EvaluationTables: @unchecked Sendable {
    @exclusivity(unchecked) var state: PurchaseState
    /// Per state purchase: the product index, or -1 when it names none in this environment.
    @exclusivity(unchecked) private(set) var purchaseProduct: UnsafeBufferPointer<Int32>
    @exclusivity(unchecked) private(set) var standings: UnsafeBufferPointer<PurchaseStanding>
    /// Per state purchase: when it stops counting by itself (§2 rules 5–8; `.never` when it names
    /// no product). Queries ask often, and reading it from the purchase would copy the purchase.
    @exclusivity(unchecked) private(set) var ends: UnsafeBufferPointer<End>
    /// The matched purchases' state indices, sorted by (product, index): each product's purchases
    /// are one contiguous run.
    @exclusivity(unchecked) private(set) var byProduct: UnsafeBufferPointer<Int32>
    @exclusivity(unchecked) private(set) var products: ProductStandings
    /// Per usage record: the feature or credit system it names (by name or `event`), or -1 when
    /// it names none or is a retry; resolved on first use (`usage(in:)`, under `lock`): a query
    /// that reads no usage (an entitlement, a boolean feature) does not look the names up.
    /// A state read at an earlier instant (`fill(past:)`, §5) has none: only its candidates are
    /// read, and a year of records is not copied for each such reading.
    @exclusivity(unchecked) private(set) var usageFeature: UnsafeMutableBufferPointer<Int32>
    /// Retried usage records (the `id` of an earlier record, for the same use): (record, the first
    /// record with it).
    @exclusivity(unchecked) var retries: [(record: Int, first: Int)] = []
    /// Records repeating the `id` of an earlier record for another use: (record, the first record
    /// with it). They count, with a warning.
    @exclusivity(unchecked) var conflicts: [(record: Int, first: Int)] = []
    @exclusivity(unchecked) var usageResolved = false
    /// Whether a purchase of the evaluated environment may have a warning (`Evaluation.mayWarn`):
    /// when none may, the warnings do not look at the purchases again.
    @exclusivity(unchecked) private(set) var purchasesMayWarn = false
    /// Where each credit component's replay starts, set by `Evaluator.consume`'s session before any
    /// query (nil: from the state's ledger snapshot, if any, else from nothing).
    @exclusivity(unchecked) var positions: [ComponentPosition?]?

    /// Entitlement values, filled on first use (under `lock`).
    @exclusivity(unchecked) private var entitlements: UnsafeMutableBufferPointer<(Truth, End)?>
    /// The replays of each credit component (§5), filled on first use (under `lock`); the table
    /// is initialized at the first replay (`componentsReady`).
    @exclusivity(unchecked) private var components: UnsafeMutableBufferPointer<ComponentReplays?>
    @exclusivity(unchecked) private var componentsReady = false
    /// The replays of credit components that had no candidate grant, no use and no starting
    /// position (§5: nothing to replay), kept from one `fill` to the next: those are the same for
    /// every state evaluated at `emptyAt` in `emptyGraph` (with `emptyExplain`), and most customers
    /// have no grant in most components. Read and written under `lock`; emptied when the graph,
    /// the instant or the explaining changes, and filled again from the next state on (`keepEmpty`).
    @exclusivity(unchecked) private var emptyReplays: [ComponentReplays?] = []
    @exclusivity(unchecked) private var emptyGraph: EnvironmentGraph?
    @exclusivity(unchecked) private var emptyAt = Instant(seconds: 0)
    @exclusivity(unchecked) private var emptyExplain = false
    /// What the purchases' products and the usage records' features of the states filled before
    /// resolved to: `fill` reads the first, `resolveUsage` (under `lock`) the second.
    @exclusivity(unchecked) private var resolvedProducts = NameMemo()
    @exclusivity(unchecked) var resolvedFeatures = NameMemo()
    /// Every table, the lock first; nil until the first `fill`.
    @exclusivity(unchecked) private var storage: UnsafeMutableRawPointer?
    /// `storage`'s size in bytes.
    @exclusivity(unchecked) private var capacity = 0

    /// The memory these tables keep for a later `fill`: their allocation and their state's arrays.
    var keptBytes: Int {
        capacity + state.purchases.capacity * MemoryLayout<Purchase>.stride
            + state.usage.capacity * MemoryLayout<UsageRecord>.stride
            + state.grants.capacity * MemoryLayout<StateGrant>.stride
    }

    /// The lock, at the start of `storage`.
    var lock: TablesLock { TablesLock(storage.unsafelyUnwrapped.assumingMemoryBound(to: TablesLock.Word.self)) }

    /// Tables of `state` that hold nothing yet: `fill` resolves them.
    init(state: consuming PurchaseState) {
        self.state = state
        (purchaseProduct, standings, ends, byProduct) = (.init(start: nil, count: 0), .init(start: nil, count: 0),
                                                         .init(start: nil, count: 0), .init(start: nil, count: 0))
        products = ProductStandings()
        (usageFeature, entitlements, components) = (.init(start: nil, count: 0), .init(start: nil, count: 0),
                                                    .init(start: nil, count: 0))
    }

    /// Forgets what was computed on first use, for a fill of new tables: the replays (released),
    /// the usage records' features, the positions.
    private func forgetLazies() {
        if componentsReady {
            for c in components.indices where components[c] != nil { components[c] = nil }
            componentsReady = false
        }
        usageResolved = false
        if !retries.isEmpty { retries.removeAll(keepingCapacity: true) }
        if !conflicts.isEmpty { conflicts.removeAll(keepingCapacity: true) }
        positions = nil
    }

    /// Resolves `state` in graph `g` at `at`, in place of whatever these tables held. `past`: the
    /// state is read at an earlier instant of a later evaluation (§5). Only the one who holds the
    /// tables alone calls it (a new evaluation, before anyone queries it).
    func fill(_ g: EnvironmentGraph, environment env: Environment, at: Instant, past: Bool = false)
        throws(EvaluationError)
    {
        forgetLazies()
        if storage != nil {  // filled again: a batch's (`EvaluationScratch`)
            (resolvedProducts.keeps, resolvedFeatures.keeps) = (true, true)
        }
        let purchaseCount = state.purchases.count, usageCount = state.usage.count
        var layout = StorageLayout()
        _ = layout.place(TablesLock.Word.self, 1)  // the lock, first: it stays where it is
        // Few products touched (by purchases or overrides) of many: only theirs are kept, sorted, not
        // one standing per product of the graph (setting those up would outweigh the rest of a small
        // evaluation). A graph of a few products keeps them all: each standing read then costs no
        // search.
        let touchedAtMost = purchaseCount + state.overrides.count
        let sparse = touchedAtMost <= ProductStandings.sparseLimit && g.products.count > ProductStandings.sparseLimit
        let productSlots = sparse ? touchedAtMost : g.products.count
        let productsAt = layout.place(ProductStanding.self, productSlots)
        let productKeysAt = layout.place(Int32.self, sparse ? productSlots : 0)
        let standingsAt = layout.place(PurchaseStanding.self, purchaseCount)
        let endsAt = layout.place(End.self, purchaseCount)
        let entitlementsAt = layout.place((Truth, End)?.self, g.entitlements.count)
        let purchaseProductAt = layout.place(Int32.self, purchaseCount)
        let byProductAt = layout.place(Int32.self, purchaseCount)
        let usageFeatureAt = layout.place(Int32.self, past ? 0 : usageCount)
        let componentsAt = layout.place(ComponentReplays?.self, g.components.count)
        if storage == nil || layout.size > capacity {
            // Grown to what this state needs (and never shrunk: a batch's next lines are alike).
            if let old = storage {
                lock.destroy()
                StorageLayout.release(old)
            }
            let block = StorageLayout.allocate(byteCount: layout.size, alignment: layout.alignment)
            _ = block.bindMemory(to: TablesLock.Word.self, capacity: 1)
            (storage, capacity) = (block, layout.size)
            lock.initialize()
        }
        let storage = self.storage.unsafelyUnwrapped

        var products = ProductStandings(
            values: (storage + productsAt).bindMemory(to: ProductStanding.self, capacity: productSlots),
            keys: sparse ? (storage + productKeysAt).bindMemory(to: Int32.self, capacity: productSlots) : nil,
            dense: g.products.count)
        let standings = (storage + standingsAt).bindMemory(to: PurchaseStanding.self, capacity: purchaseCount)
        standings.initialize(repeating: .unknown, count: purchaseCount)
        let ends = (storage + endsAt).bindMemory(to: End.self, capacity: purchaseCount)
        ends.initialize(repeating: .never, count: purchaseCount)
        let purchaseProduct = (storage + purchaseProductAt).bindMemory(to: Int32.self, capacity: purchaseCount)
        purchaseProduct.initialize(repeating: -1, count: purchaseCount)
        let matched = (storage + byProductAt).bindMemory(to: Int32.self, capacity: purchaseCount)
        let usageSlots = past ? 0 : usageCount
        let usageFeature = (storage + usageFeatureAt).bindMemory(to: Int32.self, capacity: usageSlots)
        usageFeature.initialize(repeating: -1, count: usageSlots)

        // Most states have none: no iterator over the dictionary set up (it retains the storage).
        if !state.overrides.isEmpty {
            for (product, value) in state.overrides {
                guard let p = g.productNames[product] else {
                    throw EvaluationError(
                        "overrides.\(product): no product `\(product)` in environment \(env.rawValue)")
                }
                products.slot(p).pointee.override = value
            }
        }
        var matchedCount = 0
        var mayWarn = false
        // Purchases read in place (an array element read by subscript is a copy: a retain of each
        // of its strings).
        try state.purchases.withUnsafeBufferPointer { (purchases) throws(EvaluationError) in
            for j in 0..<purchaseCount {
                let purchase = purchases.baseAddress! + j
                guard purchase.pointee.environment == env else {
                    standings[j] = .ignored(.environment(purchase.pointee.environment, evaluating: env))
                    continue
                }
                // A state read at an earlier instant is one of many made and dropped by one
                // evaluation: its tables are new each time, and keeping names in them would not pay.
                let match = past ? try OwnershipResolver.product(of: purchase, index: j, in: g)
                    : try resolvedProducts.product(of: purchase, index: j, in: g)
                switch match {
                case .none(let why):
                    standings[j] = .ignored(why)
                    mayWarn = mayWarn || Evaluation.mayWarn(purchase, kind: nil)
                case .product(let p):
                    purchaseProduct[j] = Int32(p)
                    // The few matched purchases, by product then state order (insertion sort: stable).
                    var k = matchedCount
                    while k > 0, purchaseProduct[Int(matched[k - 1])] > Int32(p) {
                        matched[k] = matched[k - 1]
                        k -= 1
                    }
                    matched[k] = Int32(j)
                    matchedCount += 1
                    let kind = g.products[p].kind, duration = g.products[p].duration
                    mayWarn = mayWarn || Evaluation.mayWarn(purchase, kind: kind, startsLots: g.startsLots[p])
                    let standing = OwnershipResolver.standing(purchase, kind, duration, at: at, past: past)
                    standings[j] = standing
                    let end = OwnershipResolver.accessEnd(purchase, kind, duration)
                    ends[j] = end
                    let product = products.slot(p)
                    product.pointee.purchases.count += 1
                    // §6: a purchase dated later that will count (its status does not rule it
                    // out) starts counting then; an owned one stops at its end.
                    if case .notOwned(.purchasedLater(let bought)) = standing {
                        product.pointee.nextChange = earliest(product.pointee.nextChange, bought)
                    }
                    if standing == .owned, case .at(let e) = end, e > at {
                        product.pointee.nextChange = earliest(product.pointee.nextChange, e)
                    }
                    switch standing {
                    case .owned:
                        product.pointee.ownedEnd = product.pointee.ownedCount == 0
                            ? end : max(product.pointee.ownedEnd, end)
                        product.pointee.ownedCount += 1
                        if kind == .consumable {
                            product.pointee.ownedQuantity =
                                product.pointee.ownedQuantity.addingSaturating(purchase.pointee.quantity)
                        }
                    case .unknown:
                        product.pointee.unknownCount += 1
                        if kind == .consumable {
                            product.pointee.unknownQuantity =
                                product.pointee.unknownQuantity.addingSaturating(purchase.pointee.quantity)
                        }
                    default:
                        break
                    }
                }
            }
        }

        purchasesMayWarn = mayWarn
        products.placeRuns()

        let entitlements = (storage + entitlementsAt).bindMemory(to: (Truth, End)?.self, capacity: g.entitlements.count)
        entitlements.initialize(repeating: nil, count: g.entitlements.count)

        self.purchaseProduct = UnsafeBufferPointer(start: purchaseProduct, count: purchaseCount)
        self.standings = UnsafeBufferPointer(start: standings, count: purchaseCount)
        self.ends = UnsafeBufferPointer(start: ends, count: purchaseCount)
        self.byProduct = UnsafeBufferPointer(start: matched, count: matchedCount)
        self.products = products
        self.usageFeature = UnsafeMutableBufferPointer(start: usageFeature, count: usageSlots)
        self.entitlements = UnsafeMutableBufferPointer(start: entitlements, count: g.entitlements.count)
        self.components = UnsafeMutableBufferPointer(
            start: (storage + componentsAt).bindMemory(to: ComponentReplays?.self, capacity: g.components.count),
            count: g.components.count)
    }

    deinit {
        // Every table but the replays holds plain values. Each replay is released by assigning
        // nil (`deinitialize` went through the runtime's generic value witnesses); a nil left
        // behind holds nothing.
        if componentsReady { for c in components.indices { components[c] = nil } }
        guard let storage else { return }
        lock.destroy()
        StorageLayout.release(storage)
    }

    /// Runs `body` on the memo of entitlement values under the lock.
    func withEntitlements<T>(_ body: (UnsafeMutableBufferPointer<(Truth, End)?>) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(entitlements)
    }

    /// The replays of credit component `c`, if they were computed (`keep`).
    func component(_ c: Int) -> ComponentReplays? {
        lock.lock()
        defer { lock.unlock() }
        return componentsReady ? components[c] : nil
    }

    /// Keeps `replays` as those of credit component `c`, computed without the lock held (a replay
    /// asks for entitlement values): two threads asking at once may both replay, with the same
    /// outcome, and the one kept last is kept.
    func keep(_ replays: consuming ComponentReplays, component c: Int) -> ComponentReplays {
        lock.lock()
        defer { lock.unlock() }
        if !componentsReady {
            components.initialize(repeating: nil)
            componentsReady = true
        }
        components[c] = copy replays
        return replays  // the caller's reference, handed back (one retain, for the table's)
    }

    /// The replays of credit component `c` kept as empty (`keepEmpty`) for graph `g` at `at`.
    func emptyReplays(_ c: Int, graph g: EnvironmentGraph, at: Instant, explain: Bool) -> ComponentReplays? {
        lock.lock()
        defer { lock.unlock() }
        guard emptyGraph === g, emptyAt == at, emptyExplain == explain else { return nil }
        return emptyReplays[c]
    }

    /// Keeps `replays`, found empty (no candidate grant, no use, no starting position), as credit
    /// component `c`'s for every later state evaluated in `g` at `at` — unless `at` or `explain`
    /// is new, which is only noted.
    func keepEmpty(_ replays: ComponentReplays, component c: Int, graph g: EnvironmentGraph, at: Instant,
                   explain: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if !(emptyGraph === g) {
            emptyReplays = Array(repeating: nil, count: g.components.count)
            (emptyGraph, emptyAt, emptyExplain) = (g, at, explain)
        } else if emptyAt != at || emptyExplain != explain {
            // A new instant is only noted: replays are kept from the second state at it on (states
            // each read at their own `now` change the instant every line, and keeping the replays of
            // each would cost more than it saves). Emptied in place.
            for i in emptyReplays.indices where emptyReplays[i] != nil { emptyReplays[i] = nil }
            (emptyAt, emptyExplain) = (at, explain)
            return
        }
        emptyReplays[c] = replays
    }

    /// Per product of the graph, its standing: a table of every product, or, when few of many are
    /// touched, the touched ones sorted by product (every other product has the default standing).
    struct ProductStandings {
        /// The most products kept sorted (inserting is linear in their number), and the most a
        /// graph has for a standing of each to be kept.
        static let sparseLimit = 16
        private let values: UnsafeMutablePointer<ProductStanding>
        /// nil: `values` has one standing per product.
        private let keys: UnsafeMutablePointer<Int32>?
        private var count: Int

        /// No standings: the tables before their first `fill`.
        init() {
            values = UnsafeMutablePointer(bitPattern: MemoryLayout<ProductStanding>.alignment)!
            keys = nil
            count = 0
        }

        /// `dense`: the number of products, initialized when there are no keys.
        init(values: UnsafeMutablePointer<ProductStanding>, keys: UnsafeMutablePointer<Int32>?, dense: Int) {
            self.values = values
            self.keys = keys
            count = keys == nil ? dense : 0
            if keys == nil { values.initialize(repeating: ProductStanding(), count: dense) }
        }

        subscript(_ p: Int) -> ProductStanding { standing(p)?.pointee ?? ProductStanding() }

        /// Product `p`'s truth and end (`ProductStanding.truth`, `.end`), read in place rather than
        /// from a copy of its standing.
        @inline(__always)
        func value(_ p: Int) -> (Truth, End) {
            guard let s = standing(p) else { return (.false, .never) }
            return (s.pointee.truth, s.pointee.end)
        }

        /// The run of product `p`'s matched purchases in `byProduct` (`first`, `count`), read
        /// without copying the whole standing.
        func purchases(of p: Int) -> (first: Int32, count: Int32) { standing(p)?.pointee.purchases ?? (0, 0) }

        /// Product `p`'s standing, if it has one of its own (every product does in a dense table).
        @inline(__always)
        private func standing(_ p: Int) -> UnsafeMutablePointer<ProductStanding>? {
            guard let keys else { return values + p }
            for i in 0..<count where keys[i] == Int32(p) { return values + i }
            return nil
        }

        /// Sets each product's run start from the counts: the runs follow each other in product
        /// order, as the standings do.
        func placeRuns() {
            var first: Int32 = 0
            for i in 0..<count {
                values[i].purchases.first = first
                first += values[i].purchases.count
            }
        }

        /// Product `p`'s standing to update (added, in order, when first touched).
        mutating func slot(_ p: Int) -> UnsafeMutablePointer<ProductStanding> {
            guard let keys else { return values + p }
            var i = count
            while i > 0, keys[i - 1] >= Int32(p) {
                if keys[i - 1] == Int32(p) { return values + (i - 1) }
                i -= 1
            }
            // At most `sparseLimit` trivial values: moved up one by one (cheaper than a call to memmove).
            var k = count
            while k > i {
                keys[k] = keys[k - 1]
                (values + k).initialize(to: values[k - 1])
                k -= 1
            }
            keys[i] = Int32(p)
            (values + i).initialize(to: ProductStanding())
            count += 1
            return values + i
        }
    }
}
