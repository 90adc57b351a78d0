import EntlCompiler
import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Foundation
import Testing

/// The rules that protect money, as properties over generated rule sets and states (the
/// differential generator's cases, docs/ledger.md). `swift test` runs a few hundred cases of
/// each; a longer run: `ENTLC_PROPERTY_CASES=5000 swift test -c release --filter LedgerPropertyTests`.
@Suite struct LedgerPropertyTests {
    static let cases = Int(ProcessInfo.processInfo.environment["ENTLC_PROPERTY_CASES"] ?? "") ?? 300
    static let foci: [DifferentialCase.Focus] = [.general, .credits, .history, .commercial]

    /// A case's graph for its environment, or nil when its rules do not compile.
    static func graph(_ c: DifferentialCase) -> RuleGraph? {
        Compiler.compile([SourceFile(path: "p.entl", text: c.rules)], lint: false).graph
    }

    /// Generated case `seed` for consumes: its graph, its environment's graph and that
    /// environment's single-use features and credit systems; nil when its rules do not compile or
    /// it has none of those.
    static func consumeCase(seed: UInt64, focus: DifferentialCase.Focus)
        -> (c: DifferentialCase, graph: RuleGraph, g: EnvironmentGraph, features: [Int])?
    {
        let c = DifferentialCase(seed: seed, focus: focus)
        guard let graph = graph(c) else { return nil }
        let g = graph[c.environment], features = consumable(g)
        return features.isEmpty ? nil : (c, graph, g, features)
    }

    /// The single-use features and credit systems of the case's environment.
    static func consumable(_ g: EnvironmentGraph) -> [Int] {
        g.features.indices.filter { g.features[$0].kind == .singleUse || g.features[$0].kind == .credits }
    }

    /// Using more never leaves more: adding a usage record never raises, at any instant, the
    /// balance of the feature it names; and when each feature is listed by at most one credit
    /// system, it never raises any credit balance nor lowers any overage. A record naming a credit
    /// system is held to the first only then too: with features listed by several systems, the
    /// spill's rule (the first system that covers the whole rest pays it) can send a later use's
    /// spill to another system once this one holds less, and leave this one more than before.
    @Test(arguments: foci)
    func usingMoreNeverLeavesMore(_ focus: DifferentialCase.Focus) throws {
        var checked = 0
        for i in 0..<Self.cases {
            let c = DifferentialCase(seed: 50_000 &+ UInt64(i), focus: focus)
            guard let graph = Self.graph(c) else { continue }
            let g = graph[c.environment]
            var r = SeededRandom(seed: UInt64(i) ^ 0x5EED)
            guard let f = Self.consumable(g).randomElement(using: &r) else { continue }
            let span: Int64 = r.pick([3_600, 20 * 86_400, 400 * 86_400])
            let record = UsageRecord(feature: g.features[f].name, kind: .amount(r.int64(1...40)),
                                     at: Instant(seconds: c.at.seconds - r.int64(0...span)))
            var more = c.state
            more.usage.insert(record, at: r.int(0...more.usage.count))
            let oneSystemEach = g.features.allSatisfy { $0.creditRoutes.count <= 1 }
            for at in [record.at!, c.at, Instant(seconds: c.at.seconds + r.int64(1...(40 * 86_400)))] {
                guard let before = try? Evaluation(graph: graph, state: c.state, environment: c.environment, at: at),
                      let after = try? Evaluation(graph: graph, state: more, environment: c.environment, at: at) else { continue }
                checked += 1
                let (b, a) = (before.feature(f, required: 1), after.feature(f, required: 1))
                if g.features[f].kind == .singleUse || oneSystemEach {
                    #expect(Self.atMost(a.balance, b.balance), "\(c)--- adding \(record) raised `\(g.features[f].name)` at \(at)")
                }
                guard oneSystemEach else { continue }
                for m in g.features.indices where g.features[m].kind != .boolean {
                    let (x, y) = (before.feature(m, required: 1), after.feature(m, required: 1))
                    if g.features[m].kind == .credits {
                        #expect(Self.atMost(y.balance, x.balance), "\(c)--- adding \(record) raised credits `\(g.features[m].name)` at \(at)")
                    }
                    #expect((y.overage ?? 0) >= (x.overage ?? 0), "\(c)--- adding \(record) lowered the overage of `\(g.features[m].name)`")
                }
            }
        }
        #expect(checked > Self.cases)
    }

    /// `a ≤ b` for balances, nil being unlimited.
    static func atMost(_ a: Int64?, _ b: Int64?) -> Bool {
        switch (a, b) {
        case (_, nil): true
        case (nil, _?): false
        case (let x?, let y?): x <= y
        }
    }

    /// A retry (the same id, feature and amount, at any instant) never changes any result.
    @Test(arguments: foci)
    func aRetryNeverChangesAnyResult(_ focus: DifferentialCase.Focus) throws {
        var checked = 0
        for i in 0..<Self.cases {
            let c = DifferentialCase(seed: 60_000 &+ UInt64(i), focus: focus)
            guard let graph = Self.graph(c), !c.state.usage.isEmpty else { continue }
            var r = SeededRandom(seed: UInt64(i) ^ 0xBEEF)
            var first = c.state
            let k = r.int(0...(first.usage.count - 1))
            first.usage[k].id = "the-one-key"
            var retried = first
            var copy = first.usage[k]
            copy.at = r.chance(0.3) ? nil : Instant(seconds: c.at.seconds - r.int64(-3_600...(30 * 86_400)))
            retried.usage.insert(copy, at: r.int((k + 1)...retried.usage.count))
            guard let a = try? Evaluation(graph: graph, state: first, environment: c.environment, at: c.at),
                  let b = try? Evaluation(graph: graph, state: retried, environment: c.environment, at: c.at) else { continue }
            checked += 1
            #expect(a.all() == b.all(), "\(c)--- a retry of usage[\(k)] changed a result")
        }
        #expect(checked > Self.cases / 2)
    }

    /// A consume never creates overage, whatever the order of the instants it is asked at: from a
    /// state without usage (or with one undated record), consumes at random instants, each recorded
    /// when allowed; replaying every record leaves no more overage than the state had without
    /// them, read after the latest, 90 days later, and at each record's own instant (where that
    /// record is a use of now, which a purchase whose status ended it does not pay).
    @Test(arguments: foci)
    func aConsumeNeverCreatesOverage(_ focus: DifferentialCase.Focus) throws {
        var recorded = 0
        for i in 0..<(Self.cases / 3) {
            guard let (c, graph, g, features) = Self.consumeCase(seed: 70_000 &+ UInt64(i), focus: focus) else { continue }
            var r = SeededRandom(seed: UInt64(i) ^ 0xC0DE)
            var state = c.state
            // Sometimes a record without an instant, which counts wherever the state is read: the uses
            // recorded beside it must not leave it uncovered later either (a lot that lapses).
            state.usage = r.chance(0.3) ? [UsageRecord(feature: g.features[r.pick(features)].name,
                                                       kind: .amount(r.int64(1...10)))] : []
            let alone = state
            var latest = c.at
            // Sometimes the instant of the use before (uses at one instant, each a nanosecond from
            // a past one): a stream of its own, so every other draw stays as it was.
            var again = SeededRandom(seed: UInt64(i) ^ 0xA6A1)
            var previous: Instant?
            for _ in 0..<12 {
                let f = r.pick(features)
                let drawn = Instant(seconds: c.at.seconds - r.int64(0...(60 * 86_400)))
                let at = again.chance(0.3) ? previous ?? drawn : drawn
                previous = at
                guard let decision = try? Consumption.decide(graph: graph, state: state, environment: c.environment,
                                                              feature: g.features[f].name, amount: r.int64(1...30), id: nil, at: at)
                else { continue }
                guard let record = decision.record else { continue }
                state.usage.append(record)
                recorded += 1
                latest = max(latest, at)
                for when in Set([latest, Instant(seconds: latest.seconds + 90 * 86_400)] + state.usage.compactMap(\.at)) {
                    let replay = try Evaluation(graph: graph, state: state, environment: c.environment, at: when)
                    let before = try Evaluation(graph: graph, state: alone, environment: c.environment, at: when)
                    for m in features {
                        #expect(replay.feature(m, required: 1).overage ?? 0 <= before.feature(m, required: 1).overage ?? 0,
                                "\(c)--- recording \(record) left `\(g.features[m].name)` with overage at \(when)")
                    }
                }
            }
        }
        #expect(recorded > Self.cases / 3)
    }

    /// A consume spends what the check saw: read just after a recorded use, the balance that
    /// allowed it (the feature's own, or the credit system's that pays) is lower by what the check
    /// said it takes — also when a purchase's status has ended it before its dates do (`expired` or
    /// `billing_retry` with its `expires_at` ahead, or none), which, read later, was owned at the
    /// use's instant (§5) and would otherwise pay for use after use.
    @Test(arguments: foci)
    func aConsumeSpendsWhatTheCheckSaw(_ focus: DifferentialCase.Focus) throws {
        var spent = 0
        for i in 0..<(Self.cases / 3) {
            guard let (c, graph, g, features) = Self.consumeCase(seed: 90_000 &+ UInt64(i), focus: focus) else { continue }
            var r = SeededRandom(seed: UInt64(i) ^ 0xD1CE)
            var state = c.state
            state.usage = []
            for j in state.purchases.indices where r.chance(0.5) {
                state.purchases[j].status = r.pick([.expired, .billingRetry])
                state.purchases[j].expiresAt = r.chance(0.3) ? nil
                    : Instant(seconds: c.at.seconds + r.int64(86_400...(90 * 86_400)))
            }
            for _ in 0..<12 {
                let f = r.pick(features), amount = r.int64(1...30)
                let at = Instant(seconds: c.at.seconds - r.int64(0...(60 * 86_400)))
                guard let decision = try? Consumption.decide(graph: graph, state: state, environment: c.environment,
                                                              feature: g.features[f].name, amount: amount, id: nil, at: at),
                      let record = decision.record else { continue }
                state.usage.append(record)
                let just = Instant(seconds: at.seconds, nanoseconds: 1)
                let after = try Evaluation(graph: graph, state: state, environment: c.environment, at: just)
                let check = decision.result
                switch check.via {
                case .direct?:
                    guard let before = check.balance else { continue }
                    spent += 1
                    #expect(Self.atMost(after.feature(f, required: 1).balance, before - amount),
                            "\(c)--- recording \(record) left `\(g.features[f].name)` more than the check's \(before) - \(amount)")
                case .credits?:
                    guard let system = check.creditSystem, let s = g.features.firstIndex(where: { $0.name == system }),
                          let before = check.creditBalance, let cost = check.creditsRequired else { continue }
                    spent += 1
                    #expect(Self.atMost(after.feature(s, required: 1).balance, before - cost),
                            "\(c)--- recording \(record) left `\(system)` more than the check's \(before) - \(cost)")
                default:
                    continue
                }
            }
        }
        #expect(spent > Self.cases / 6)
    }

    /// What paid for a use stays paid: after the last use, plans lapse (their status changes,
    /// dates kept), renew or change (new purchases dated later), and grants are bought; what
    /// each use was charged to (the trail of the replay) never changes.
    @Test func laterPurchasesNeverChangeWhatPaidForAUse() throws {
        var checked = 0
        for i in 0..<Self.cases {
            let c = DifferentialCase(seed: 80_000 &+ UInt64(i), focus: .history)
            guard let graph = Self.graph(c) else { continue }
            let g = graph[c.environment]
            let uses = c.state.usage.compactMap(\.at)
            guard let lastUse = uses.max(), lastUse < c.at, c.state.usage.allSatisfy({ $0.at != nil }) else { continue }
            var r = SeededRandom(seed: UInt64(i) ^ 0xFACE)
            var later = c.state
            // A plan that lapses keeps its dates: its status becomes `expired`, `billing_retry` or
            // `canceled` (which needs the end of its paid period).
            for j in later.purchases.indices where [.active, .trialing].contains(later.purchases[j].status) && r.chance(0.5) {
                later.purchases[j].status = later.purchases[j].expiresAt == nil ? r.pick([.expired, .billingRetry])
                    : r.pick([.canceled, .expired, .billingRetry])
                later.purchases[j].willRenew = false
            }
            for _ in 0..<r.int(1...3) {
                let p = g.products.randomElement(using: &r)!
                let bought = Instant(seconds: r.int64((lastUse.seconds + 1)...c.at.seconds))
                later.purchases.append(Purchase(product: p.name, status: r.pick([.active, .trialing, .canceled]), purchasedAt: bought,
                                                expiresAt: Instant(seconds: bought.seconds + r.int64(86_400...(90 * 86_400))),
                                                quantity: r.int64(1...5), environment: c.environment))
            }
            guard let before = try? Evaluation(graph: graph, state: c.state, environment: c.environment, at: c.at, explain: true),
                  let after = try? Evaluation(graph: graph, state: later, environment: c.environment, at: c.at, explain: true)
            else { continue }
            // Every member's trail is in its own result (and some in others'): compared as one set.
            let features = Self.consumable(g)
            guard !features.isEmpty else { continue }
            checked += 1
            let charged = Set(features.flatMap { Self.charges(before.feature($0, required: 1)) })
            let chargedLater = Set(features.flatMap { Self.charges(after.feature($0, required: 1)) })
            #expect(charged == chargedLater,
                    "\(c)--- later purchases changed what paid for a use: \(charged.symmetricDifference(chargedLater).sorted())")
        }
        #expect(checked > Self.cases / 4)
    }

    /// The replay's lines for each use: what paid for it (`  2026-11-02T…: used 5 ← pro 5; …`).
    static func charges(_ r: FeatureResult) -> [String] {
        r.explanation.filter { $0.hasPrefix("  ") && $0.dropFirst(2).first?.isNumber == true }
    }
}
