import EntlCompiler
import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Testing

/// The rule set's soft limits and lots as properties over generated cases: a grant declared
/// `overage up to N` never has more than N overdrawn in a window, and a lot (`expires after`)
/// pays for the uses between its purchase and its lapse — earliest-expiring first — and for no
/// other. `ENTLC_PROPERTY_CASES` runs more.
@Suite struct RuleCommercialPropertyTests {
    static let cases = LedgerPropertyTests.cases

    /// Generated rule sets with soft limits, their states, and the same with one more use far
    /// beyond every allowance: each source reports at most its grant's cap as overdrawn, and what
    /// is left of the cap; a grant without `overage` overdraws nothing.
    @Test func softLimitsOfTheRulesNeverPassTheirCap() throws {
        var atCap = 0, checked = 0
        for i in 0..<Self.cases {
            let c = DifferentialCase(seed: 97_000 &+ UInt64(i), focus: .commercial)
            guard c.rules.contains(" overage"), let graph = LedgerPropertyTests.graph(c) else { continue }
            let g = graph[c.environment]
            for f in LedgerPropertyTests.consumable(g) {
                var heavy = c.state
                heavy.usage.append(UsageRecord(feature: g.features[f].name, kind: .amount(1_000_000), at: c.at))
                for state in [c.state, heavy] {
                    guard let e = try? Evaluation(graph: graph, state: state, environment: c.environment, at: c.at)
                    else { continue }
                    for s in e.feature(f, required: 1).sources where s.kind != "state" {
                        // The grants of the feature from the source's product or entitlement.
                        let grants = g.features[f].grants.filter { grant in
                            switch grant.source {
                            case .product(let p): s.kind == "product" && g.products[p].name == s.grant
                            case .entitlement(let n): s.kind == "entitlement" && g.entitlements[n].name == s.grant
                            case .state: false
                            }
                        }
                        guard grants.count == 1 else { continue }
                        checked += 1
                        let context = "\(c)--- \(g.features[f].name) from \(s.grant)"
                        switch grants[0].overage {
                        case nil:
                            #expect(s.overdrawn == 0 && s.overdraftLeft == 0, "\(context): no overage, overdrew")
                        case .unbounded?:
                            #expect(s.overdraftLeft == nil, "\(context): unbounded")
                        case .upTo(let cap)?:
                            #expect(s.overdrawn <= cap, "\(context): overdrew \(s.overdrawn) of \(cap)")
                            #expect(s.overdraftLeft == cap - s.overdrawn, "\(context): \(s.overdraftLeft ?? -1) left")
                            if s.overdrawn == cap { atCap += 1 }
                        }
                    }
                }
            }
        }
        #expect(checked > Self.cases / 2)
        #expect(atCap > 10, "too few soft limits reach their cap: \(atCap)")
    }

    /// Packs that expire, a fallback grant used after them (priority 1), uses before, during and
    /// after the lots: the fallback pays exactly what the lots could not — each use taken from the
    /// lots alive at its instant, the one that lapses first first.
    @Test func aLotPaysOnlyWhileItLasts() throws {
        var lapsedUses = 0
        for i in 0..<Self.cases {
            var r = SeededRandom(seed: 99_000 &+ UInt64(i))
            let units = ["days", "weeks", "months"]
            let (n1, u1, n2, u2) = (r.int64(1...40), r.pick(units), r.int64(1...40), r.pick(units))
            let (a1, a2) = (r.int64(1...30), r.int64(1...30))
            let graph = compileGraph("""
                feature calls: metered
                product small: consumable { grants calls \(a1) expires after \(n1) \(u1) }
                product big: consumable { grants calls \(a2) expires after \(n2) \(u2) }
                entitlement fallback = everyone { grants calls 1_000_000_000 priority 1 }
                """)
            let start = Int64(1_767_225_600)  // 2026-01-01
            let horizon: Int64 = 400 * 86_400
            var state = PurchaseState()
            var lots: [(amount: Int64, from: Int64, until: Int64)] = []
            for _ in 0..<r.int(1...4) {
                let small = r.chance(0.5)
                let bought = start + r.int64(0...horizon)
                let quantity = r.int64(1...3)
                state.purchases.append(Purchase(product: small ? "small" : "big", purchasedAt: Instant(seconds: bought),
                                                quantity: quantity))
                let length = small ? (n1, u1) : (n2, u2)
                let step = length.1 == "months" ? CalendarStep(months: length.0, seconds: 0)
                    : CalendarStep(months: 0, seconds: length.0 * (length.1 == "weeks" ? 7 : 1) * 86_400)
                lots.append(((small ? a1 : a2) * quantity, bought, Instant(seconds: bought).adding(step).seconds))
            }
            var uses: [(at: Int64, amount: Int64)] = []
            for _ in 0..<r.int(1...12) {
                let when = start + r.int64(0...(horizon + 200 * 86_400))
                let amount = r.int64(1...25)
                uses.append((when, amount))
                state.usage.append(UsageRecord(feature: "calls", kind: .amount(amount), at: Instant(seconds: when)))
            }
            uses.sort { $0.at < $1.at }  // distinct instants almost surely; ties keep state order anyway
            // The model: each use from the lots alive at its instant, earliest lapse first.
            var left = lots.map(\.amount)
            var fallback: Int64 = 0
            for use in uses {
                var rest = use.amount
                let alive = lots.indices.filter { lots[$0].from <= use.at && use.at < lots[$0].until }
                if alive.isEmpty, lots.contains(where: { use.at >= $0.until }) { lapsedUses += 1 }
                for k in alive.sorted(by: { (lots[$0].until, $0) < (lots[$1].until, $1) }) where rest > 0 {
                    let taken = min(rest, left[k])
                    left[k] -= taken
                    rest -= taken
                }
                fallback += rest
            }
            let at = Instant(seconds: (uses.map(\.at).max() ?? start) + r.int64(0...(100 * 86_400)))
            let result = try Evaluation(graph: graph, state: state, environment: .live, at: at).feature("calls")
            let used = result.sources.first { $0.grant == "fallback" }?.used
            #expect(used == fallback, "seed \(i): lots \(lots), uses \(uses): the fallback paid \(used ?? -1)")
            #expect(result.overage == 0)
            // The lots still alive at `at` report what is left of them, and when they lapse.
            let alive = lots.indices.filter { lots[$0].from <= at.seconds && at.seconds < lots[$0].until }
            let reported = result.sources.filter { $0.grant != "fallback" }
            #expect(reported.map(\.remaining).reduce(0) { $0 + ($1 ?? 0) } == alive.reduce(0) { $0 + left[$1] },
                    "seed \(i): lots \(lots) at \(at)")
            #expect(Set(reported.compactMap(\.expiresAt?.seconds)) == Set(alive.map { lots[$0].until }))
        }
        #expect(lapsedUses > Self.cases / 4)
    }
}
