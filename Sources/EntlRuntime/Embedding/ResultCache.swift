/// The `Evaluator`'s cache: per kind, per name slot (`NameSlots`), the answers computed under the
/// tracker's current state, each with the instants it holds for. A lookup is an array index and a
/// walk of that slot's few entries (one per required amount asked), with no hashing: what a
/// repeated check costs is mostly copying its answer out.
struct ResultCache {
    /// Bumped by every tracker change; results computed under an older generation are dropped.
    var generation: UInt64 = 0
    var features: ResultTable<FeatureResult>
    var products: ResultTable<ProductResult>
    var entitlements: ResultTable<EntitlementResult>

    /// Most cached results (a bound for callers that ask for ever-new amounts).
    static let limit = 4_096

    init(features: Int, products: Int, entitlements: Int) {
        self.features = ResultTable(slots: features)
        self.products = ResultTable(slots: products)
        self.entitlements = ResultTable(slots: entitlements)
    }

    /// Drops every answer (keeping the tables' storage).
    mutating func removeAll() {
        features.removeAll()
        products.removeAll()
        entitlements.removeAll()
    }

    /// Makes room for one more answer: past `limit`, everything goes.
    mutating func reserveOne() {
        if features.count + products.count + entitlements.count >= ResultCache.limit { removeAll() }
    }
}

/// The cached answers of one kind: per slot, a chain of entries (the newest first), one per
/// required amount.
struct ResultTable<R: Sendable> {
    private struct Entry {
        var required: Int64
        var from: Instant
        var until: Instant?
        /// The next entry of the same slot, or -1.
        var next: Int32
        var result: Box
    }

    /// An answer, shared: a lookup takes a reference (one retain under the lock) and copies the
    /// answer out after it, so the lock is held for a few instructions whatever the answer's size.
    final class Box: Sendable {
        let value: R

        init(_ value: R) { self.value = value }
    }

    /// Per slot: its newest entry, or -1.
    private var heads: [Int32]
    private var entries: [Entry] = []
    /// Entries a lookup walks at most: older ones (an app asking ever-new amounts) are misses.
    private static var depth: Int { 8 }

    init(slots: Int) {
        heads = Array(repeating: -1, count: slots)
    }

    var count: Int { entries.count }

    /// The answer for `required` in `slot` if one holds at `t` (computed at or before `t`, and
    /// `t` before its `validUntil`).
    @inline(__always)
    func lookup(_ slot: Int, required: Int64, at t: Instant) -> Box? {
        var i = Int(heads[slot]), walked = 0
        while i >= 0, walked < ResultTable.depth {
            if entries[i].required == required {
                guard entries[i].from <= t, entries[i].until.map({ t < $0 }) ?? true else { return nil }
                return entries[i].result
            }
            i = Int(entries[i].next)
            walked += 1
        }
        return nil
    }

    /// Caches `result`, computed at `from`, in place of an earlier answer for the same amount.
    mutating func store(_ slot: Int, required: Int64, result: Box, from: Instant, until: Instant?) {
        var i = Int(heads[slot]), walked = 0
        while i >= 0, walked < ResultTable.depth {
            if entries[i].required == required {
                (entries[i].from, entries[i].until) = (from, until)
                entries[i].result = result
                return
            }
            i = Int(entries[i].next)
            walked += 1
        }
        entries.append(Entry(required: required, from: from, until: until, next: heads[slot], result: result))
        heads[slot] = Int32(entries.count - 1)
    }

    mutating func removeAll() {
        guard !entries.isEmpty else { return }
        entries.removeAll(keepingCapacity: true)
        for i in heads.indices { heads[i] = -1 }
    }
}
