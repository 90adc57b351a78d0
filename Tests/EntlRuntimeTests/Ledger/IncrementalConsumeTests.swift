import EntlCompiler
@testable import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Foundation
import Testing

/// `Evaluator.consume`'s session (the ledger's position kept between uses, the ids in an index)
/// answers every request exactly as `Consumption.decide` on the whole state: the same result, byte
/// for byte, the same record, the same error — over generated rule sets, states and sequences of
/// consumes, retries, reused ids, instants out of order, on and across window boundaries, and
/// purchases changed in between. `ENTLC_PROPERTY_CASES` runs more.
@Suite struct IncrementalConsumeTests {
    static let cases = LedgerPropertyTests.cases
    static let foci = LedgerPropertyTests.foci

    /// A use in the last nanosecond of a window, beside a purchase whose status ended it: the
    /// session and `decide` give the same answer. Only a purchase that was owned at the use's
    /// instant, read as a past one, can be charged for it later; one whose dates are long past (or
    /// that starts after the use) cannot, and `decide` had refused such uses ("a nanosecond before
    /// …") where the session allowed them (59 of 195,000 differential consumes, an API review).
    @Test func theLastNanosecondOfAWindowBesideAnEndedPurchase() throws {
        let graph = compileGraph("""
            product pro: subscription { period month }
            feature calls: metered
            entitlement e = pro { grants calls 10 per day }
            """)
        let plan = Purchase(product: "pro", purchasedAt: instant("2026-11-01T00:00:00Z"),
                            expiresAt: instant("2026-12-01T00:00:00Z"))
        let at = Instant(seconds: instant("2026-11-11T00:00:00Z").seconds - 1, nanoseconds: 999_999_999)
        let cases: [(Purchase, Decision)] = [
            (Purchase(product: "pro", status: .expired, purchasedAt: instant("2026-09-01T00:00:00Z"),
                      expiresAt: instant("2026-10-01T00:00:00Z")), .allowed),
            (Purchase(product: "pro", status: .expired, purchasedAt: instant("2026-11-11T00:00:00Z"),
                      expiresAt: instant("2026-12-11T00:00:00Z")), .allowed),
            // Ended by its status while within its dates at the use: read later, it pays for it.
            (Purchase(product: "pro", status: .expired, purchasedAt: instant("2026-11-05T00:00:00Z"),
                      expiresAt: instant("2026-12-05T00:00:00Z")), .denied),
        ]
        for (ended, decision) in cases {
            let state = PurchaseState(purchases: [plan, ended])
            let decided = try Consumption.decide(graph: graph, state: state, environment: nil, feature: "calls",
                                                 amount: 1, id: nil, at: at)
            let tracker = JSONPurchaseTracker(state)
            let session = try Evaluator(graph: graph, tracker: tracker).consume(feature: "calls", amount: 1, at: at)
            #expect(decided.result.decision == decision, "\(ended)")
            #expect(session.decision == decision, "\(ended)")
            #expect(session.reason == decided.result.reason)
            #expect(tracker.snapshot.usage.count == (decision == .allowed ? 1 : 0))
        }
    }

    @Test(arguments: foci)
    func theSessionAnswersAsTheWholeState(_ focus: DifferentialCase.Focus) throws {
        var kept = 0, replayed = 0
        for i in 0..<(Self.cases / 2) {
            guard let (c, graph, g, features) = LedgerPropertyTests.consumeCase(seed: 130_000 &+ UInt64(i), focus: focus)
            else { continue }
            var r = SeededRandom(seed: UInt64(i) ^ 0x1DEA)
            var state = c.state
            // Mostly known statuses (a purchase whose status is unknown leaves every use to the whole
            // state; the generator makes more of them than trackers do).
            for j in state.purchases.indices where state.purchases[j].status == .unknown && r.chance(0.8) {
                state.purchases[j].status = .active
            }
            if r.chance(0.9) { state.environment = c.environment }
            // Mostly dated records (an undated one leaves every use to the whole state).
            let dateAll = r.chance(0.9)
            for k in state.usage.indices where state.usage[k].at == nil && dateAll {
                state.usage[k].at = Instant(seconds: c.at.seconds - r.int64(0...(40 * 86_400)))
            }
            var session = ConsumeSession(graph: graph, environment: r.chance(0.8) ? nil : c.environment)
            var changes: UInt64 = 0
            // The clock starts after the latest record, mostly (a consumer records as time goes by).
            let latest = state.usage.compactMap(\.at).max() ?? c.at
            var clock = r.chance(0.8) ? max(latest, c.at) : Instant(seconds: c.at.seconds - r.int64(0...(20 * 86_400)))
            // Sometimes a compacted state: its ledger is where the session starts.
            if r.chance(0.3), let compacted = try? LedgerCompaction.compact(
                graph: graph, state: state, before: Instant(seconds: clock.seconds - r.int64(0...(5 * 86_400))),
                environment: c.environment) {
                state = compacted.state
            }
            var used: [(id: String, feature: String, amount: Int64)] = []
            for step in 0..<24 {
                if r.chance(0.06) {
                    Self.changeSomething(&state, graph: g, around: clock, &r)
                    changes &+= 1
                }
                clock = Self.next(after: clock, &r)
                let at = r.chance(0.08) ? Instant(seconds: clock.seconds - r.int64(1...(10 * 86_400))) : clock
                var feature = g.features[r.pick(features)].name
                var amount = r.chance(0.05) ? 1_000_000_000_000_000 : r.int64(1...30)
                var id: String? = r.chance(0.5) ? "req-\(i)-\(step)" : nil
                if let earlier = used.randomElement(using: &r), r.chance(0.2) {
                    (id, feature, amount) = (earlier.id, earlier.feature, earlier.amount)
                    if r.chance(0.25) { amount += 1 }
                }
                let expected = Result { () throws(EvaluationError) in
                    try Consumption.decide(graph: graph, state: state, environment: session.environment,
                                           feature: feature, amount: amount, id: id, at: at)
                }
                let answer = Result { () throws(EvaluationError) -> (FeatureResult, UsageRecord?)? in
                    try session.consume(state: state, changes: changes, feature: feature, amount: amount, id: id,
                                        at: at).map { ($0.result, $0.record) }
                }
                let what = "\(c)--- step \(step): \(feature) \(amount) id \(id ?? "-") at \(at)"
                switch (expected, answer) {
                case (.success(let d), .success(let got?)):
                    kept += 1
                    #expect(got.0.json == d.result.json, "\(what)\n  session \(got.0.json.compact)\n  whole   \(d.result.json.compact)")
                    #expect(got.1 == d.record, "\(what): recorded \(String(describing: got.1)), not \(String(describing: d.record))")
                case (.success, .success(nil)):
                    replayed += 1
                case (.failure(let e), .failure(let f)):
                    #expect(e.message == f.message, "\(what)")
                case (.failure, .success(nil)):
                    break
                case (.success(let d), .failure(let f)):
                    Issue.record("\(what): the session throws \(f) where the whole state answers \(d.result.json.compact)")
                case (.failure(let e), .success(let got?)):
                    Issue.record("\(what): the session answers \(got.0.json.compact) where the whole state throws \(e)")
                }
                guard case .success(let d) = expected, let record = d.record else { continue }
                state.usage.append(record)
                changes &+= 1
                if let id { used.append((id, feature, amount)) }
            }
        }
        // Most uses are answered by the session: the whole state is replayed only where it must be.
        #expect(kept > replayed, "\(kept) answered by the session, \(replayed) by the whole state")
        #expect(kept > Self.cases)
    }

    /// The next instant of the clock: a moment later, an hour, a day, weeks; sometimes the same, or
    /// the start of the next UTC day or month (a calendar-aligned window boundary).
    static func next(after clock: Instant, _ r: inout SeededRandom) -> Instant {
        switch r.int(0...9) {
        case 0: return clock
        case 1: return Instant(seconds: (clock.seconds / 86_400 + 1) * 86_400)
        case 2:
            let (year, month, _) = CivilDate.fromDays(Instant.floorDiv(clock.seconds, 86_400))
            let first = month == 12 ? CivilDate.toDays(year: year + 1, month: 1, day: 1)
                : CivilDate.toDays(year: year, month: month + 1, day: 1)
            return Instant(seconds: first * 86_400)
        case 3...5: return Instant(seconds: clock.seconds + r.int64(1...3_600))
        case 6...7: return Instant(seconds: clock.seconds + r.int64(3_600...(3 * 86_400)))
        default: return Instant(seconds: clock.seconds + r.int64(86_400...(20 * 86_400)))
        }
    }

    /// A change the tracker reports: a purchase bought, or one that lapses.
    static func changeSomething(_ state: inout PurchaseState, graph g: EnvironmentGraph, around clock: Instant,
                                _ r: inout SeededRandom) {
        if let j = state.purchases.indices.randomElement(using: &r), r.chance(0.5) {
            state.purchases[j].status = r.pick([.expired, .canceled, .revoked, .active])
            return
        }
        guard let p = g.products.randomElement(using: &r) else { return }
        let bought = Instant(seconds: clock.seconds - r.int64(-86_400...(30 * 86_400)))
        state.purchases.append(Purchase(product: p.name, status: r.pick([.active, .trialing, .unknown]),
                                        purchasedAt: bought,
                                        expiresAt: Instant(seconds: bought.seconds + r.int64(3_600...(60 * 86_400))),
                                        quantity: r.int64(1...4), environment: state.environment ?? .live))
    }
}
