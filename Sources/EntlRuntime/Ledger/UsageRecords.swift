/// §5 usage records, resolved once per evaluation into the tables: the feature or credit system
/// each names, and ids as idempotency keys (a retry counts once, a conflict counts with a warning).
extension EvaluationTables {
    /// Per usage record its feature, and the retried and the conflicting records, resolved
    /// against `g` (the graph the tables were built for) on first use, under the tables' lock.
    func usage(in g: EnvironmentGraph) -> (features: UnsafeBufferPointer<Int32>, retries: [(record: Int, first: Int)],
                                           conflicts: [(record: Int, first: Int)]) {
        lock.lock()
        defer { lock.unlock() }
        resolveUsage(in: g)
        return (UnsafeBufferPointer(usageFeature), retries, conflicts)
    }

    /// `usage(in:).features` alone: what a replay reads (the lists of retries and conflicts not
    /// copied out, a retain and a release each).
    func usageFeatures(in g: EnvironmentGraph) -> UnsafeBufferPointer<Int32> {
        // No records and no folded uses (most short states): none to resolve, no lock to take.
        if state.usage.isEmpty, state.ledger == nil { return UnsafeBufferPointer(usageFeature) }
        lock.lock()
        defer { lock.unlock() }
        resolveUsage(in: g)
        return UnsafeBufferPointer(usageFeature)
    }

    /// Resolves the usage records on first use; the lock is held.
    private func resolveUsage(in g: EnvironmentGraph) {
        guard !usageResolved else { return }
        defer { usageResolved = true }
        // INVARIANT: a state read at an earlier instant (no table of its records) is not asked.
        precondition(usageFeature.count == state.usage.count, "no usage table in a past reading")
        // No records and no folded uses (most short states): nothing to resolve, no index set up.
        guard !state.usage.isEmpty || state.ledger != nil else { return }
        // §5: a record names a feature by name or event (`feature`), or by event only
        // (`event`). Ids are unique per customer: a record repeating the `id` of the first
        // record with it is a retry (counted once) when it names the same feature with the
        // same amount, else a conflict, which counts.
        var ids = IDIndex()
        // The folded uses of a compacted state come before every record (-1 - their place).
        let folded = state.ledger?.ids ?? []
        for (k, use) in folded.enumerated() {
            _ = ids.first(hash: IDIndex.hash(use.id), elseNote: -1 - k) { state.hasID(use.id, atPlace: $0) }
        }
        state.usage.withUnsafeBufferPointer { usage in
            // The last record looked up: a log names a few features over and over, often in
            // runs, and comparing two names costs less than a lookup.
            var last: (record: Int, feature: Int32)?
            for i in usage.indices {
                if let l = last, usage[l.record].isEvent == usage[i].isEvent,
                   usage[l.record].name == usage[i].name {
                    usageFeature[i] = l.feature
                } else {
                    // An event's name qualified by "" (a feature's by nothing): the two are looked up apart.
                    let qualifier: String? = usage[i].isEvent ? "" : nil
                    if let known = resolvedFeatures.answer(usage[i].name, qualifier, in: g) {
                        usageFeature[i] = known
                    } else {
                        let f = usage[i].isEvent ? g.eventNames[usage[i].name] : g.usageNames[usage[i].name]
                        usageFeature[i] = Int32(f ?? -1)
                        resolvedFeatures.keep(usageFeature[i], usage[i].name, qualifier, in: g)
                    }
                    last = (i, usageFeature[i])
                }
                guard let id = usage[i].id,
                      // A closure literal: one made by a function per record was allocated each time.
                      let first = ids.first(hash: IDIndex.hash(id), elseNote: i, isID: { state.hasID(id, atPlace: $0) })
                else { continue }
                let same = first >= 0
                    ? usageFeature[i] == usageFeature[first] && usage[i].kind == usage[first].kind
                    : usageFeature[i] >= 0 && g.features[Int(usageFeature[i])].name == folded[-1 - first].feature
                        && usage[i].kind == folded[-1 - first].kind
                if same {
                    retries.append((i, first))
                    usageFeature[i] = -1
                } else {
                    conflicts.append((i, first))
                }
            }
        }
    }
}

extension Evaluation {
    /// The first record with an id, as a warning or an explanation names it: `usage[4] (api_calls,
    /// amount 3)`, or a use folded into a compacted state's ledger, `ledger.ids[0] (api_calls, amount 3)`.
    func describeFirstRecord(_ first: Int) -> String {
        guard first >= 0 else {
            let use = state.ledger?.ids[-1 - first]
            return "ledger.ids[\(-1 - first)] (\(use?.feature ?? ""), \(use.map { "\($0.kind)" } ?? ""))"
        }
        return "usage[\(first)] (\(state.usage[first].name), \(state.usage[first].kind))"
    }
}
