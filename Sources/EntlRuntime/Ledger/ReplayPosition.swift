/// §5, a resumable replay position: what every grant instance's ledger of a credit component holds
/// after the uses up to some point, and each member's overage. A replay that starts from one and
/// replays the later uses ends where the replay of every use ends: a ledger's state after a use
/// depends only on the earlier uses and the instance (the grants that pay for a use are those that
/// were candidates at its instant). A compacted state keeps one (`PurchaseState.ledger`, written by
/// `LedgerCompaction`); `Evaluator.consume` keeps one in memory and extends it by each use.
struct ComponentPosition {
    struct Entry {
        /// The grant instance (its grant and what is behind it, `Candidate.isSameInstance`).
        var instance: Candidate
        /// Its member of the component.
        var member: Int
        /// Where its ledger stands in the replay over certain grants and in the one over all of
        /// them (nil: not started there).
        var low: LedgerSnapshot.Position?
        var high: LedgerSnapshot.Position?
        /// When its ledger lapses (a lot), if it does: from then on it pays for nothing.
        var expiry: Instant?
    }

    var entries: [Entry] = []
    /// Per member: the overage of the uses replayed (over certain grants).
    var overage: [Int64]
    /// Whether some instance stands elsewhere in the replay over all grants: the two replays
    /// differ from the start.
    var diverged = false

    init(members: Int) { overage = Array(repeating: 0, count: members) }

    /// The entry of `instance`, if any.
    func entry(of instance: Candidate) -> Int? { entries.firstIndex { $0.instance.isSameInstance(as: instance) } }
}

extension ComponentReplays {
    /// Where its replays stand: every grant instance whose ledger has started in one of them, and
    /// each member's overage.
    var position: ComponentPosition {
        let (low, high, uncertain, candidates) = (self.low, self.high, self.uncertain, self.candidates)
        var p = ComponentPosition(members: low.members.count)
        for m in low.members.indices {
            p.overage[m] = low.members[m].overage
            // Both replays make a ledger for the same candidates, in the same order.
            let highs = uncertain ? high.members[m].ledgers : low.members[m].ledgers
            for (a, b) in zip(low.members[m].ledgers, highs) {
                let l = low.ledgers[a].position
                let h = uncertain ? high.ledgers[b].position : l
                guard l != nil || h != nil else { continue }
                p.entries.append(ComponentPosition.Entry(instance: candidates[low.ledgers[a].source], member: m,
                                                         low: l, high: h, expiry: low.ledgers[a].expiry))
                if l != h { p.diverged = true }
            }
        }
        return p
    }
}

extension Evaluation {
    /// Where component `c`'s replay starts: the position a consume session gave this evaluation,
    /// or the one the state's ledger snapshot holds; nil: from nothing.
    func startingPosition(of c: Int) -> ComponentPosition? {
        if let positions = tables.positions { return positions[c] }
        guard let snapshot = state.ledger else { return nil }
        return position(of: c, in: snapshot)
    }

    /// Adds to member `m`'s instances (`found[first..<count]`, its candidates at `t`) the instances
    /// of `position` not among them, as instances that are not candidates at `t`, and keeps them in
    /// consumption-order ties (declaration order, then state order).
    func addPositionInstances(_ position: ComponentPosition, member m: Int,
                              into found: UnsafeMutableBufferPointer<Candidate>, first: Int, count: inout Int) {
        Evaluation.addAbsent(position.entries.lazy.filter { $0.member == m }.map(\.instance), into: found,
                             first: first, count: &count)
    }

    /// Adds the `instances` not among `found[first..<count]` to it, as instances that are not
    /// candidates at `t`, and keeps them in consumption-order ties (declaration order, then state
    /// order).
    static func addAbsent(_ instances: some Sequence<Candidate>, into found: UnsafeMutableBufferPointer<Candidate>,
                          first: Int, count: inout Int) {
        var known = InstanceIndex(found, first: first, count: count)
        var added = false
        for c in instances { added = add(c, absentFrom: &known, into: found, count: &count) || added }
        if added { keepTies(found, first: first, count: count) }
    }

    /// Adds `c` to `found` (after its first `count`), as an instance that is not a candidate at
    /// `t`, unless `known` has it: whether it did.
    static func add(_ c: Candidate, absentFrom known: inout InstanceIndex,
                    into found: UnsafeMutableBufferPointer<Candidate>, count: inout Int) -> Bool {
        guard known.place(of: c.instance) == nil else { return false }
        // INVARIANT: `found` has room for every instance (`instanceBound`); checked, as memory is.
        precondition(count < found.count, "more grant instances than their bound")
        var instance = c
        instance.present = false
        found.initializeElement(at: count, to: instance)
        count += 1
        known.noteAdded()
        return true
    }

    /// Sorts `found[first..<count]` in consumption-order ties: declaration order, then state order.
    static func keepTies(_ found: UnsafeMutableBufferPointer<Candidate>, first: Int, count: Int) {
        var range = UnsafeMutableBufferPointer(rebasing: found[first..<count])
        range.sort { a, b in (a.grant.order, a.purchase ?? -1) < (b.grant.order, b.purchase ?? -1) }
    }

    /// Sets each ledger of `replay` whose instance `position` holds to where it stands there (in the
    /// replay over certain grants, or over all), and each member's overage.
    func resume(_ replay: ComponentReplay, from position: ComponentPosition, certainOnly: Bool) {
        for m in replay.members.indices {
            replay.members[m].overage = position.overage[m]
            for l in replay.members[m].ledgers {
                guard let e = position.entry(of: replay.candidates[replay.ledgers[l].source]),
                      let p = certainOnly ? position.entries[e].low : position.entries[e].high else { continue }
                replay.ledgers[l].resume(p)
            }
        }
    }
}

/// Where each instance of `found[first..<count]` stands, found by its identity: searched in turn
/// while there are few (most members have a handful), through a dictionary beyond (a state may
/// have thousands of grants, and a search of those found for each would cost their square).
struct InstanceIndex {
    private let found: UnsafeMutableBufferPointer<Candidate>
    private let first: Int
    private var count: Int
    private var places: [Candidate.Instance: Int]?
    /// The most instances searched in turn.
    static let searchedInTurn = 16

    init(_ found: UnsafeMutableBufferPointer<Candidate>, first: Int, count: Int) {
        (self.found, self.first, self.count) = (found, first, count)
        if count - first > InstanceIndex.searchedInTurn { index() }
    }

    private mutating func index() {
        var places: [Candidate.Instance: Int] = [:]
        places.reserveCapacity(count - first)
        for i in first..<count { places[found[i].instance] = i }
        self.places = places
    }

    /// The place of `instance` in `found`, nil when it is not there.
    func place(of instance: Candidate.Instance) -> Int? {
        if let places { return places[instance] }
        return (first..<count).first { found[$0].instance == instance }
    }

    /// Notes that `found[count]` now holds an instance.
    mutating func noteAdded() {
        count += 1
        if places != nil {
            places![found[count - 1].instance] = count - 1
        } else if count - first > InstanceIndex.searchedInTurn {
            index()
        }
    }
}
