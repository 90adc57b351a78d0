/// §5 "what paid for a use stays paid": a use consumes from the grants that were candidates at its
/// instant. Reading 0 is the state as read at `t` (what most uses are charged under: nothing the
/// component watches started or stopped counting since); each other reading is the state as read
/// at the earlier instants of some uses. Per other reading, which grant instances (the
/// candidates of the component, `ComponentReplays.candidates`) were candidates then, and certain:
/// two bit sets in the storage of the `ComponentReplays` that holds them, valid while it lives.
struct UseReadings {
    /// Words per reading in each bit set.
    let words: Int
    /// The words of each bit set (`words` per reading).
    let count: Int
    /// Per reading ≥ 1, a bit per instance.
    let candidate: UnsafeMutablePointer<UInt64>
    let certain: UnsafeMutablePointer<UInt64>

    /// Bit sets for `readings` other readings of up to `instances` instances, in `words` (room for
    /// `2 × wordCount(readings:instances:)`), cleared.
    init(readings: Int, instances: Int, in words: UnsafeMutablePointer<UInt64>) {
        self.words = (instances + 63) / 64
        count = readings * self.words
        candidate = words
        certain = words + count
        words.initialize(repeating: 0, count: 2 * count)
    }

    /// The words of one bit set for `readings` readings of up to `instances` instances.
    static func wordCount(readings: Int, instances: Int) -> Int { readings * ((instances + 63) / 64) }

    func mark(_ instance: Int, reading: Int, certain isCertain: Bool) {
        let (w, bit) = ((reading - 1) * words + instance / 64, UInt64(1) << (instance % 64))
        candidate[w] |= bit
        if isCertain { certain[w] |= bit }
    }

    /// Whether `instance` pays at `reading` ≥ 1 (only when certain, in the replay over certain grants).
    func pays(_ instance: Int, reading: Int, certainOnly: Bool) -> Bool {
        let (w, bit) = ((reading - 1) * words + instance / 64, UInt64(1) << (instance % 64))
        return (certainOnly ? certain[w] : candidate[w]) & bit != 0
    }

    /// Whether some instance was an uncertain candidate at some reading.
    var hasUncertain: Bool { (0..<count).contains { candidate[$0] & ~certain[$0] != 0 } }
}

/// §5 "what paid for a use stays paid": the readings of the state at earlier uses' instants, and
/// the grant instances they add to a component.
extension Evaluation {
    /// Adds to feature `f`'s instances (`found[first..<count]`, its candidates at `t`) the grants
    /// that were candidates at the other `readings` only, keeps them in consumption-order ties
    /// (declaration order, then state order), and marks in `marks` which instances were candidates
    /// (and certain) at each reading. `sources`: per reading, the entitlement it found last
    /// (`forEachCandidate`), kept from one member of the component to the next (members are often
    /// granted by the same entitlement, whose representative each reading would look up again).
    ///
    /// Each reading's candidates are noted as they are listed (to be marked once sorted) while they
    /// are few; beyond, they are listed again to be marked, not kept: a state with thousands of
    /// grants has as many readings.
    func addInstances(of f: Int, _ readings: [Evaluation], sources: inout [EntitlementSource?],
                      into found: UnsafeMutableBufferPointer<Candidate>, first: Int, count: inout Int,
                      marking marks: UseReadings) {
        typealias Noted = (reading: Int32, instance: Candidate.Instance, certain: Bool)
        withUnsafeTemporaryAllocation(of: Noted.self, capacity: Evaluation.notedInstances) { noted in
            var known = InstanceIndex(found, first: first, count: count)
            var (added, notedCount, overflow) = (false, 0, false)
            for r in readings.indices {
                readings[r].forEachCandidate(of: f, last: &sources[r]) {
                    added = Evaluation.add($0, absentFrom: &known, into: found, count: &count) || added
                    // Plain values: nothing to deinitialize.
                    if notedCount < noted.count {
                        noted.initializeElement(at: notedCount, to: (Int32(r), $0.instance, $0.certain))
                        notedCount += 1
                    } else {
                        overflow = true
                    }
                }
            }
            if added { Evaluation.keepTies(found, first: first, count: count) }
            let place = InstanceIndex(found, first: first, count: count)  // where each stands once sorted
            guard overflow else {
                for k in 0..<notedCount {
                    marks.mark(place.place(of: noted[k].instance)!, reading: Int(noted[k].reading) + 1,
                               certain: noted[k].certain)
                }
                return
            }
            for r in readings.indices {
                readings[r].forEachCandidate(of: f, last: &sources[r]) {
                    marks.mark(place.place(of: $0.instance)!, reading: r + 1, certain: $0.certain)
                }
            }
        }
    }

    /// The most candidates of past readings `addInstances` notes for a member (on the stack).
    static let notedInstances = 64

    /// §5 "what paid for a use stays paid": a use consumes from the grants that were candidates
    /// at its instant. Sets each use's reading — 0 when every purchase behind the entitlements
    /// granting the component's members, and every state grant, stood at the use's instant as it
    /// stands at `t` (so its candidates are those at `t`, a product-level grant's purchase read on
    /// its own, `Candidate.past`), else one of the returned readings: the state as read at the
    /// instant of the first use so read (uses between the same purchase dates share it). A use at
    /// `t` is read at `t`.
    func pastReadings(of events: UnsafeMutableBufferPointer<UseEvent>, component c: Int) -> [Evaluation] {
        guard let first = events.first, first.at < at else { return [] }
        let watched = graph.componentEntitlementProducts[c]
        /// Where purchase `j`'s reading at past instants changes: its `purchased_at` and its access end.
        func cuts(_ j: Int) -> (Instant?, Instant?) { (state.purchases[j].purchasedAt, accessEnd(j).instant) }
        // Most often every use is read as at `t`: nothing watched starts or ends between the
        // first use and `t`, and each purchase stood at the first use as it stands now.
        func readAsAtT() -> Bool {
            for p in watched where products[p].override == nil {
                for j in purchases(of: p) {
                    let (bought, end) = cuts(j)
                    if bought.map({ $0 > first.at && $0 <= at }) ?? false
                        || end.map({ $0 > first.at && $0 <= at }) ?? false
                        || pastRank(of: j, at: first.at) != Evaluation.rank(standings[j]) {
                        return false
                    }
                }
            }
            // State grants start and end by themselves too (their `from` and `until`).
            return !state.grants.contains { g in
                g.covers(first.at) != g.covers(at)
                    || g.from > first.at && g.from <= at || g.until.map({ $0 > first.at && $0 <= at }) ?? false
            }
        }
        if readAsAtT() { return [] }
        // The watched purchases, and the instants at which one of them or a state grant starts or
        // stops counting, on the stack (plain values: nothing to deinitialize).
        let count = watched.reduce(0) { products[$1].override == nil ? $0 + purchases(of: $1).count : $0 }
        let width = count + state.grants.count
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { watchedPurchases in
            withUnsafeTemporaryAllocation(of: Instant.self, capacity: 2 * width) { room in
                var (n, found) = (0, 0)
                func note(_ instant: Instant) {
                    room.initializeElement(at: found, to: instant)
                    found += 1
                }
                for p in watched where products[p].override == nil {
                    for j in purchases(of: p) {
                        watchedPurchases.initializeElement(at: n, to: j)
                        n += 1
                        let (bought, end) = cuts(j)
                        if let bought { note(bought) }
                        if let end { note(end) }
                    }
                }
                for g in state.grants {
                    note(g.from)
                    if let until = g.until { note(until) }
                }
                var instants = UnsafeMutableBufferPointer(rebasing: room[..<found])
                instants.sort()
                return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: width) { stood in
                    readings(of: events, watching: UnsafeBufferPointer(rebasing: watchedPurchases[..<n]),
                             instants: UnsafeBufferPointer(instants), row: stood)
                }
            }
        }
    }

    /// `pastReadings`' readings, once some use is not read as at `t`: `watchedPurchases` the
    /// purchases behind the entitlements granting the component's members, `instants` (sorted)
    /// where one of them or a state grant starts or stops counting, `row` room for one row.
    private func readings(of events: UnsafeMutableBufferPointer<UseEvent>,
                          watching watchedPurchases: UnsafeBufferPointer<Int>, instants: UnsafeBufferPointer<Instant>,
                          row stood: UnsafeMutableBufferPointer<UInt8>) -> [Evaluation] {
        let width = stood.count
        // How the watched purchases stood, then which state grants covered the instant: at `t`
        // (reading 0, the first row) and at each reading made (row n), one after the other in
        // `rows`, each found by how things stood — searched in turn while they are few (most
        // states make one or two), through a dictionary beyond (a state with thousands of grants
        // has as many readings, each compared with the others at every cut).
        var rows: [UInt8] = []
        rows.reserveCapacity(4 * width)
        var rowCount = 0
        var index: [[UInt8]: Int32]?
        func reading(of row: UnsafeMutableBufferPointer<UInt8>) -> Int32? {
            if let index { return index[Array(row)] }
            return rows.withUnsafeBufferPointer { all in
                (0..<rowCount).first { r in all[r * width..<(r + 1) * width].elementsEqual(row) }.map(Int32.init)
            }
        }
        func keep(_ row: UnsafeMutableBufferPointer<UInt8>) {
            rows.append(contentsOf: row)
            rowCount += 1
            if index != nil {
                index![Array(row)] = Int32(rowCount - 1)
            } else if rowCount > 8 {
                var made: [[UInt8]: Int32] = [:]
                for r in 0..<rowCount {
                    let row = Array(rows[r * width..<(r + 1) * width])
                    if made[row] == nil { made[row] = Int32(r) }
                }
                index = made
            }
        }
        /// How the watched purchases stood at `e` (or at `t`), then which state grants covered it,
        /// into `stood`.
        func read(_ standing: (Int) -> UInt8, at e: Instant) {
            for k in watchedPurchases.indices { stood[k] = standing(watchedPurchases[k]) }
            for (k, g) in state.grants.enumerated() { stood[watchedPurchases.count + k] = g.covers(e) ? 1 : 0 }
        }
        read({ Evaluation.rank(standings[$0]) }, at: at)
        keep(stood)
        var seen: [Evaluation] = []
        var cut = 0, interval = -1, current: Int32 = 0
        for k in events.indices where events[k].at < at {
            let e = events[k].at
            while cut < instants.count, instants[cut] <= e { cut += 1 }
            if cut != interval {
                interval = cut
                read({ pastRank(of: $0, at: e) }, at: e)
                // Stood as at `t` (reading 0) or at a reading made: not read anew.
                if let known = reading(of: stood) {
                    current = known
                } else if let reading = try? Evaluation(graph, state: state, environment: environment, at: e,
                                                        explain: false, unlock: false, past: true) {
                    // INVARIANT: it does not throw: the state resolved at `t` resolves the same at `e`.
                    seen.append(reading)
                    current = Int32(seen.count)
                    keep(stood)
                }
            }
            events[k].reading = current
        }
        return seen
    }

    /// 0 not owned, 1 unknown, 2 owned.
    static func rank(_ s: PurchaseStanding) -> UInt8 { s == .owned ? 2 : s == .unknown ? 1 : 0 }

    /// How purchase `j` stood at an instant `e` before `t` (§5: read as a past one), ranked.
    func pastRank(of j: Int, at e: Instant) -> UInt8 {
        let p = Int(purchaseProduct[j])  // the product's fields read where they are, not the product copied
        let (kind, duration) = (graph.products[p].kind, graph.products[p].duration)
        return state.purchases.withUnsafeBufferPointer { purchases in
            let standing = OwnershipResolver.standing(purchases.baseAddress! + j, kind, duration, at: e, past: true)
            return Evaluation.rank(standing)
        }
    }
}
