/// `entlc state compact` (docs/ledger.md): folds the usage records dated before `T` into the
/// state's ledger — where every grant instance's ledger stood at `T` (§5, a resumable replay
/// position), the overage of the folded uses, and the ids a late retry may still repeat — so that
/// every result at every instant from `T` on is the full history's, and the state stops growing
/// with its history.
public enum LedgerCompaction {
    /// A compacted state, and what compacting did.
    public struct Compacted: Sendable {
        /// The state with the folded records removed and its `ledger` set.
        public var state: PurchaseState
        /// The usage records kept, as places in the original state's `usage`, in order.
        public var kept: [Int]
        /// What the rules cannot make sense of in the original state (`Evaluation.ruleSetWarnings`).
        public var warnings: [StateError]
    }

    /// Folds the usage records of `state` dated before `before` (evaluated in the state's own
    /// environment, else live; another `environment` is refused):
    ///
    /// - every use (an `amount` of a single-use feature or credit system) dated before it, and
    ///   every retry dated before it, into the ledger;
    /// - of a continuous feature's levels dated before it, all but the latest (the only one a
    ///   result at `before` or later reads).
    ///
    /// Undated records and records the rules cannot place (naming nothing, of the wrong kind) are
    /// kept. The ids of folded uses whose latest record (the use, a retry, a conflicting use) is
    /// dated within a day before `before`, and of those a kept record repeats, are remembered; older
    /// ones are forgotten. A state compacted already is compacted
    /// again from its ledger (not before its `before`, and only with the rules it was made with).
    public static func compact(graph: RuleGraph, state: PurchaseState, before: Instant,
                               environment: Environment? = nil) throws(EvaluationError) -> Compacted {
        guard Instant.isEvaluable(before) else {
            throw EvaluationError("before: \(before.seconds) seconds since 1970 is outside the years 0000 … 9999")
        }
        if let error = state.rangeError { throw error }
        let env = environment ?? state.environment ?? .live
        let own = state.environment ?? .live
        guard env == own else {
            // Its ledger is read in its own environment (`eval --consume` records there alone).
            throw EvaluationError("the state's environment is \(own.rawValue): its uses are folded as \(own.rawValue) "
                                  + "evaluates them, not \(env.rawValue)")
        }
        if let old = state.ledger {
            if before < old.before {
                throw EvaluationError("the state's uses before \(old.before) are folded already: compact it before "
                                      + "that instant or a later one, not \(before)")
            }
            // Its positions mean what they mean under the rules they were made with.
            let digest = graph[env].rulesDigest
            if old.rules != digest {
                throw EvaluationError("the state's ledger was compacted with other rules "
                                      + "(`\(old.rules.prefix(12))…`, these are `\(digest.prefix(12))…`): "
                                      + "compact it with the rules it was made with")
            }
        }
        // The replay of the uses dated before `before`: an evaluation at it (which replays the records
        // dated up to it), with the records dated at it and undated ones (which count at whatever
        // instant the state is evaluated) moved out of its reach — only when there are some: the
        // state's records are copied then. Read at `before`, every folded use is a past one, as any
        // later reading sees it (read a nanosecond earlier, a use then would be one of now, which a
        // purchase whose status ended it does not pay).
        var folding = state
        let reached = { (record: UsageRecord) in record.at.map { $0 == before } ?? true }
        if state.usage.contains(where: reached) {
            for i in folding.usage.indices where reached(folding.usage[i]) { folding.usage[i].at = .distantFuture }
        }
        let e = try Evaluation(graph[env], state: folding, environment: env, at: before, explain: false,
                               unlock: false)
        let g = e.graph
        var snapshot = LedgerSnapshot(before: before, rules: g.rulesDigest)
        let names = StateGrantNames(state.grants)
        for c in g.components.indices {
            let position = e.replays(ofComponent: c).position
            for entry in position.entries {
                let f = g.components[c][entry.member]
                if let low = entry.low {
                    snapshot.grants.append(e.snapshotEntry(entry.instance, feature: f, position: low, names: names))
                }
                if entry.high != entry.low, let high = entry.high {
                    snapshot.withUnknown.append(e.snapshotEntry(entry.instance, feature: f, position: high,
                                                                names: names))
                }
            }
            for (m, amount) in position.overage.enumerated() where amount > 0 {
                snapshot.overage.append(LedgerSnapshot.Overage(feature: g.features[g.components[c][m]].name,
                                                               amount: amount))
            }
        }
        // What could be written but not read back would lose the state: a window that runs past
        // 9999, more entries or ids than a state may hold.
        let limits = StateLimits.default
        if max(snapshot.grants.count, snapshot.withUnknown.count) > limits.grants {
            throw EvaluationError("the ledger would hold \(max(snapshot.grants.count, snapshot.withUnknown.count)) "
                                  + "entries, more than the \(limits.grants) a state may hold: this state cannot be "
                                  + "compacted")
        }
        for entry in snapshot.grants + snapshot.withUnknown {
            for bound in [entry.position.windowStart, entry.position.windowEnd] {
                guard let bound, !Instant.isInRange(bound) else { continue }
                throw EvaluationError("the window of `\(entry.feature)` at \(before) ends after the year 9999, which a "
                                      + "state cannot hold: compact before an earlier instant")
            }
        }
        let (kept, foldedIDs) = e.keptRecords(before: before)
        if foldedIDs.count > limits.usageRecords {
            throw EvaluationError("the ledger would remember \(foldedIDs.count) ids, more than the "
                                  + "\(limits.usageRecords) a state may hold: compact before an earlier instant")
        }
        snapshot.ids = foldedIDs
        var compacted = state
        compacted.usage = kept.map { state.usage[$0] }
        compacted.ledger = snapshot
        return Compacted(state: compacted, kept: kept, warnings: e.ruleSetWarnings)
    }
}

extension Evaluation {
    /// An evaluation at `before` of the state to compact: which usage records stay (in
    /// order), and the folded uses whose ids are remembered (their latest record within a day before
    /// `before`, or repeated by a record that stays), after those of the state's ledger still
    /// remembered.
    func keptRecords(before: Instant) -> (kept: [Int], ids: [LedgerSnapshot.FoldedUse]) {
        let (features, retries, conflicts) = tables.usage(in: graph)
        let floor = state.ledger?.before
        let retried = Set(retries.map(\.record))
        // The latest level of each continuous feature dated before `before` (ties: the later record).
        var latestLevel: [Int: Int] = [:]
        var folded = [Bool](repeating: false, count: state.usage.count)
        for (i, record) in state.usage.enumerated() {
            // A record without a date counts when the state is evaluated: it stays.
            guard var when = record.at, when < before else { continue }
            if let floor, when < floor { when = floor }
            let f = Int(features[i])
            if retried.contains(i) {
                folded[i] = when < before
            } else if f >= 0, graph.componentOf[f] >= 0, case .amount = record.kind {
                folded[i] = when < before
            } else if f >= 0, graph.features[f].kind == .continuous, case .level = record.kind {
                if let k = latestLevel[f], state.usage[k].at! > record.at! { folded[i] = true; continue }
                if let k = latestLevel[f] { folded[k] = true }
                latestLevel[f] = i
            }
        }
        let kept = state.usage.indices.filter { !folded[$0] }
        let keptIDs = Set(kept.compactMap { state.usage[$0].id.map(IDKey.init) })
        let memory = Instant(seconds: before.seconds - LedgerSnapshot.idMemorySeconds, nanoseconds: before.nanoseconds)
        // An id is remembered while its latest folded record (a retry too) is within the memory, and
        // is noted at that record's instant: a retry of a week-old use, sent an hour before
        // `before`, is retried again after it, also once compacted again later.
        var latest: [IDKey: Instant] = [:]
        // Only an id repeated has a later record than its first (most ids are not: no entry).
        for (i, _) in retries + conflicts where folded[i] {
            guard let id = state.usage[i].id, let at = state.usage[i].at else { continue }
            let when = max(at, floor ?? at), key = IDKey(id)
            latest[key] = max(latest[key] ?? when, when)
        }
        var seen = Set<IDKey>()
        var ids: [LedgerSnapshot.FoldedUse] = []
        func remember(_ use: LedgerSnapshot.FoldedUse) {
            var use = use
            use.at = max(use.at, latest[IDKey(use.id)] ?? use.at)
            if use.at >= memory || keptIDs.contains(IDKey(use.id)) { ids.append(use) }
        }
        for use in state.ledger?.ids ?? [] where seen.insert(IDKey(use.id)).inserted { remember(use) }
        for i in state.usage.indices {
            guard let id = state.usage[i].id, seen.insert(IDKey(id)).inserted, folded[i], features[i] >= 0 else {
                continue
            }
            let when = max(state.usage[i].at!, floor ?? state.usage[i].at!)
            remember(LedgerSnapshot.FoldedUse(id: id, feature: graph.features[Int(features[i])].name,
                                              kind: state.usage[i].kind, at: when))
        }
        return (kept, ids)
    }
}
