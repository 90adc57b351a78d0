/// §5: a credit component's replays built from an evaluation: its uses at or before `t` in time
/// order, every member's grant instances (with those that paid for earlier uses only), a ledger
/// per counted instance, and the two replays over certain and over all candidates.
extension Evaluation {
    /// The ledger of a candidate: windows anchored at its anchor (`anchorDates`), calendar-aligned
    /// when there is no date; a lot's single window ends when it lapses; a soft limit's overdraft.
    func ledger(_ c: Candidate, allowance: Int64, source: Int) -> Ledger {
        let (existsFrom, anchor) = anchorDates(c)
        let windows = c.grant.interval.map { interval in
            anchor.map { Windows(anchor: $0, step: interval.step) } ?? .calendarAligned(interval)
        }
        return Ledger(allowance: allowance.multipliedSaturating(by: c.quantity), windows: windows, carry: c.grant.carry,
                      priority: c.grant.priority, order: c.grant.order, existsFrom: existsFrom, source: source,
                      expiry: lotExpiry(c), overage: c.grant.overage,
                      until: c.stateGrant >= 0 ? state.grants[Int(c.stateGrant)].until : nil)
    }

    /// Replays a credit component twice: with certain candidates (`low`, overage, the trail) and
    /// with certain and uncertain ones (`high`).
    /// `mayBeEmpty`: false when the caller found that a member may have a candidate grant (the
    /// kept empty replays are then not looked for).
    func replayComponent(_ c: Int, mayBeEmpty: Bool = true) -> ComponentReplays {
        let usageFeature = tables.usageFeatures(in: graph)
        // The uses, gathered on the stack when few.
        return withUnsafeTemporaryAllocation(of: UseEvent.self, capacity: usageFeature.count) { buffer in
            replayComponent(c, usageFeature: usageFeature, events: buffer, mayBeEmpty: mayBeEmpty)
        }
    }

    /// Whether credit component `c` has nothing to replay: no usage record names a member (dated
    /// before `t` or after), it has no starting position, and no member may have a candidate grant
    /// (`mayHaveCandidate`). Its replays are then the empty ones: every member's balance 0 over
    /// certain candidates and over all, no overage, no source, no trail, no input that changes.
    func hasNothingToReplay(_ c: Int) -> Bool {
        if !state.usage.isEmpty {
            let usageFeature = tables.usageFeatures(in: graph)
            for i in usageFeature.indices
            where usageFeature[i] >= 0 && graph.componentOf[Int(usageFeature[i])] == c {
                return false
            }
        }
        return startingPosition(of: c) == nil && !mayHaveCandidate(c)
    }

    private func replayComponent(_ c: Int, usageFeature: UnsafeBufferPointer<Int32>,
                                 events buffer: UnsafeMutableBufferPointer<UseEvent>,
                                 mayBeEmpty: Bool) -> ComponentReplays {
        // The uses at or before `t`, in time order; §6: the inputs of every member change the
        // balances of all, so a dated use after `t` is an input change.
        var count = 0
        var inputsChange: Instant?
        // A compacted state answers from its ledger's `before` on: a use dated earlier is charged then.
        let floor = state.ledger?.before
        for i in usageFeature.indices where usageFeature[i] >= 0 && graph.componentOf[Int(usageFeature[i])] == c {
            var when = state.usage[i].at ?? at
            if let floor, when < floor { when = floor }
            if when > at {
                inputsChange = earliest(inputsChange, when)
            } else if case .amount(let n) = state.usage[i].kind {
                buffer.initializeElement(at: count, to: UseEvent(at: when, amount: n, index: i,
                                                                 member: graph.componentMember[Int(usageFeature[i])]))
                count += 1
            }
        }
        // Plain values: nothing to deinitialize. A constant once sorted and read (the replays capture it).
        var sorting = UnsafeMutableBufferPointer(rebasing: buffer[..<count])
        if count > 1 { sorting.sort { ($0.at, $0.index) < ($1.at, $1.index) } }
        let readings = pastReadings(of: sorting, component: c)
        let events = UnsafeBufferPointer(sorting)
        let position = startingPosition(of: c)
        // No use at all and no starting position: with no candidate grant either, the replays are
        // the empty ones, the same for every state at `t` (kept from an earlier state, if any).
        let quiet = count == 0 && inputsChange == nil && position == nil
        if quiet, mayBeEmpty, let empty = tables.emptyReplays(c, graph: graph, at: at, explain: explains),
           !mayHaveCandidate(c) {
            return empty
        }

        let members = graph.components[c]
        // Without other readings, the candidates at `t` (never more than the instances).
        let bound = members.reduce(0) { $0 + candidateBound(of: $1) }
        let replays = ComponentReplays.allocate(
            members: members.count,
            candidates: (readings.isEmpty ? bound : min(bound * (1 + readings.count),
                                                        members.reduce(0) { $0 + instanceBound(of: $1) }))
                + (position?.entries.count ?? 0),
            readings: readings.count)
        // Every member's grant instances, member after member (a component has a few members): its
        // candidates at `t`, then those that were candidates only at earlier uses' instants. And
        // the members as both replays start them; which instances were candidates at each other
        // reading (`marked`).
        let (found, low, high) = (replays.candidates, replays.low, replays.high)
        let marked = low.readings
        var foundCount = 0
        var last: EntitlementSource?
        var readingSources: [EntitlementSource?] = []  // per other reading (made only when there are some)
        if !readings.isEmpty { readingSources = Array(repeating: nil, count: readings.count) }
        let since = sorting.first.map(\.at).flatMap { $0 < at ? $0 : nil }
        for (m, f) in members.enumerated() {
            let first = foundCount
            forEachCandidate(of: f, last: &last, since: since) {
                found.initializeElement(at: foundCount, to: $0)
                foundCount += 1
            }
            if let position { addPositionInstances(position, member: m, into: found, first: first, count: &foundCount) }
            if let marked {
                addInstances(of: f, readings, sources: &readingSources, into: found, first: first, count: &foundCount,
                             marking: marked)
            }
            low.members.initializeElement(at: m, to: ComponentReplay.Member(feature: f, candidates: first..<foundCount))
            high.members.initializeElement(at: m, to: low.members[m])
        }
        let candidates = UnsafeMutableBufferPointer(rebasing: found[..<foundCount])
        let uncertain = candidates.contains { $0.present && !$0.certain || $0.past?.rank == 1 }
            || marked?.hasUncertain == true || position?.diverged == true
        let counted = candidates.count { $0.counted != nil }
        // An unlimited grant ends when it stops paying: a grant of the state, or one active through
        // it, at its `until` (with `per` or not: it has no windows to run out), any other never (it
        // cannot be a lot, E224).
        for i in candidates.indices where candidates[i].grant.amount == .unlimited && candidates[i].stateGrant >= 0 {
            candidates[i].ends = state.grants[Int(candidates[i].stateGrant)].until.map(End.at) ?? .never
        }
        let rooms = replays.placeLedgers(low: counted, high: uncertain ? counted : 0)

        /// The replay over the certain candidates, or over all of them: `start`'s members, and
        /// their ledgers made in `room`.
        func replay(_ start: ComponentReplay, in room: UnsafeMutableBufferPointer<Ledger>, certainOnly: Bool,
                    explain: Bool) -> (ComponentReplay, trails: [[String]]) {
            var made = 0
            for m in start.members.indices {
                let first = made
                for i in start.members[m].candidates {
                    if let n = candidates[i].counted {
                        room.initializeElement(at: made, to: ledger(candidates[i], allowance: n, source: i))
                        made += 1
                    } else if candidates[i].grant.amount == .unlimited {
                        if candidates[i].present, candidates[i].certain || !certainOnly {
                            let key = candidates[i].consumptionKey
                            start.members[m].unlimited = min(start.members[m].unlimited ?? key, key)
                        }
                        if candidates[i].past != nil { start.members[m].pastUnlimited = true }
                    }
                }
                start.members[m].ledgers = first..<made
            }
            let r = ComponentReplay(members: start.members, ledgers: room, candidates: candidates,
                                    certainOnly: certainOnly, readings: start.readings, now: at)
            if let position { resume(r, from: position, certainOnly: certainOnly) }
            var trails = r.run(events, routes: graph.componentRoutes[c], at: at, explain: explain,
                               grantName: { sourceName(candidates[$0]).name },
                               featureName: { graph.features[$0].name }) { m, n in
                graph.features[members[m]].unit(n)
            }
            if explain, let floor, position != nil {
                for m in trails.indices {
                    trails[m].insert("  uses before \(floor): folded into the state's ledger", at: 0)
                }
            }
            return (r, trails)
        }

        let (certain, trails) = replay(low, in: rooms.low, certainOnly: true, explain: explains)
        let all = uncertain ? replay(high, in: rooms.high, certainOnly: false, explain: false).0 : certain
        inputsChange = earliest(inputsChange, grantsChange(candidates, all))
        replays.finish(candidates: candidates, low: certain, high: all, uncertain: uncertain,
                       inputsChange: inputsChange, trails: trails)
        if quiet, foundCount == 0 { tables.keepEmpty(replays, component: c, graph: graph, at: at, explain: explains) }
        return replays
    }

    /// Whether a member of credit component `c` may have a candidate grant at `t` (`forEachCandidate`):
    /// false only when none has. None has when no product its members' grants come from has a
    /// purchase owned or not known, no entitlement they come from holds or may, and the state has
    /// no grant and no override; a grant whose lot lapsed is not a candidate, but counts here.
    private func mayHaveCandidate(_ c: Int) -> Bool {
        guard state.grants.isEmpty, state.overrides.isEmpty else { return true }
        // By index: each list read where the graph holds it (iterating one would retain it).
        for i in graph.componentGrantProducts[c].indices {
            for j in purchases(of: graph.componentGrantProducts[c][i])
            where standings[j] == .owned || standings[j] == .unknown {
                return true
            }
        }
        for i in graph.componentGrantEntitlements[c].indices
        where entitlementValue(graph.componentGrantEntitlements[c][i]).0 != .false {
            return true
        }
        return false
    }

    /// §6: when a grant's balance changes by itself after `t`: a grant no purchase is behind starts
    /// at `customer_since`; every counted grant that is a candidate and exists at `t` changes at its
    /// next window boundary (`all` replays every candidate, up to `t`).
    func grantsChange(_ candidates: UnsafeMutableBufferPointer<Candidate>, _ all: ComponentReplay) -> Instant? {
        var change: Instant?
        if let since = state.customerSince, since > at,
           candidates.contains(where: { $0.present && $0.behindNoPurchase && $0.counted != nil }) {
            change = since
        }
        for l in all.ledgers where candidates[l.source].present && l.exists(at: at) {
            if case .at(let end) = l.currentEnd { change = earliest(change, end) }
        }
        return change
    }
}
