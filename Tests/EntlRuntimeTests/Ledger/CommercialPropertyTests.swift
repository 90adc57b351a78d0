import EntlCompiler
import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Foundation
import Testing

/// The commercial model's promises as properties over generated cases (docs/selling.md): a grant
/// to the customer never takes anything away, a soft limit never overdraws past its cap, and a lot
/// never pays after it lapsed. `ENTLC_PROPERTY_CASES` runs more.
@Suite struct CommercialPropertyTests {
    static let cases = LedgerPropertyTests.cases

    /// A state grant never lowers any balance — of a feature always, of a credit system when each
    /// feature is listed by at most one (with several, the spill's rule — the first system that
    /// covers the whole rest pays it — can move a use's spill onto a system once the grant makes
    /// the rest small enough for it), and of an entitlement's features unless the rules name it
    /// under a `not` (then its being active can switch another off, as buying would) or it was
    /// active already (then the grant may represent it instead, and its grants' windows and lots
    /// are anchored at this grant's `from`, as a new purchase representing it would move them).
    @Test func aStateGrantNeverLowersABalance() throws {
        var checked = 0
        for i in 0..<Self.cases {
            let c = DifferentialCase(seed: 90_000 &+ UInt64(i), focus: i % 2 == 0 ? .commercial : .credits)
            guard let graph = LedgerPropertyTests.graph(c) else { continue }
            let g = graph[c.environment]
            var r = SeededRandom(seed: UInt64(i) ^ 0xF00D)
            let from = Instant(seconds: c.at.seconds - r.int64(0...(90 * 86_400)))
            let until = r.chance(0.5) ? Instant(seconds: c.at.seconds + r.int64(1...(90 * 86_400))) : nil
            var grant: StateGrant
            let negated = c.rules.contains("not ")
            if !negated, !g.entitlements.isEmpty, r.chance(0.4) {
                grant = StateGrant(target: .entitlement(g.entitlements.randomElement(using: &r)!.name), from: from, until: until)
            } else {
                guard let f = g.features.randomElement(using: &r) else { continue }
                grant = StateGrant(target: .feature(f.name), from: from, until: until)
                if f.kind != .boolean { grant.amount = r.chance(0.1) ? .unlimited : .count(r.int64(1...40)) }
                if f.kind == .singleUse || f.kind == .credits, r.chance(0.5) { grant.interval = r.pick([.day, .week, .month]) }
                if f.kind == .singleUse, r.chance(0.4) { grant.overage = .upTo(r.int64(1...20)) }
            }
            var more = c.state
            more.grants.append(grant)
            guard let before = try? Evaluation(graph: graph, state: c.state, environment: c.environment, at: c.at),
                  let after = try? Evaluation(graph: graph, state: more, environment: c.environment, at: c.at) else { continue }
            checked += 1
            let oneSystemEach = g.features.allSatisfy { $0.creditRoutes.count <= 1 }
            var reanchors = false
            if case .entitlement(let name) = grant.target {
                reanchors = (try? before.entitlement(name).decision) != .denied
            }
            for f in g.features.indices where g.features[f].kind != .boolean && !reanchors
                && (g.features[f].kind != .credits || oneSystemEach) {
                #expect(LedgerPropertyTests.atMost(before.feature(f, required: 1).balance, after.feature(f, required: 1).balance),
                        "\(c)--- the grant \(grant) lowered `\(g.features[f].name)`")
            }
            for f in g.features.indices where g.features[f].kind == .boolean && before.feature(f, required: 1).allowed {
                #expect(after.feature(f, required: 1).allowed, "\(c)--- the grant \(grant) took `\(g.features[f].name)` away")
            }
        }
        #expect(checked > Self.cases / 2)
    }

    /// A soft limit never lets `overdrawn` pass its `up to`, whatever was recorded; and a lot never
    /// pays for a use at or after its lapse.
    @Test func softLimitsHoldAndLotsLapse() throws {
        var overdrawnSeen = 0, lotsSeen = 0
        for i in 0..<Self.cases {
            let c = DifferentialCase(seed: 95_000 &+ UInt64(i), focus: .commercial)
            guard let graph = LedgerPropertyTests.graph(c) else { continue }
            let g = graph[c.environment]
            for at in [c.at, Instant(seconds: c.at.seconds + 20 * 86_400)] {
                guard let e = try? Evaluation(graph: graph, state: c.state, environment: c.environment, at: at, explain: true)
                else { continue }
                for f in g.features.indices where g.features[f].kind == .singleUse || g.features[f].kind == .credits {
                    let result = e.feature(f, required: 1)
                    for s in result.sources {
                        if s.overdrawn > 0 { overdrawnSeen += 1 }
                        let cap = s.kind == "state" ? c.state.grants.first { $0.name(s) }?.overage?.cap : nil
                        if let cap { #expect(s.overdrawn <= cap, "\(c)--- \(s.grant) overdrew \(s.overdrawn) of \(cap)") }
                        #expect(s.overdraftLeft.map { $0 >= 0 } ?? true)
                    }
                    // No use at or after a lot's `until` is charged to it.
                    for (k, lot) in c.state.grants.enumerated() where lot.interval == nil && lot.until != nil {
                        guard case .feature(let name) = lot.target, name == g.features[f].name else { continue }
                        let label = lot.id ?? "grants[\(k)]"
                        lotsSeen += 1
                        for line in result.explanation where line.hasPrefix("  ") && line.contains(" \(label) ") {
                            guard let when = Instant(rfc3339: String(line.dropFirst(2).split(separator: ": ").first ?? ""))
                            else { continue }
                            #expect(when < lot.until!, "\(c)--- the lot \(label) paid at \(when), after \(lot.until!)")
                        }
                    }
                }
            }
        }
        #expect(overdrawnSeen > 10)
        #expect(lotsSeen > 10)
    }
}

extension StateGrant {
    /// Whether this grant is the one a balance source names.
    fileprivate func name(_ s: BalanceSource) -> Bool { s.id == id && id != nil }
}
