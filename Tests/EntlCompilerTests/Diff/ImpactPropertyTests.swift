import EntlCompiler
import EntlRuntime
import EntlTestSupport
import Testing

/// Properties of `Impact` over generated customers (seeded): comparing NEW with OLD is the mirror
/// of comparing OLD with NEW, and measuring in blocks and merging is measuring in one pass.
@Suite struct ImpactPropertyTests {
    /// Four versions of one catalog: each pair differs in constraints, amounts, unlimited grants,
    /// product-level grants and who gets the boolean feature.
    static let versions: [RuleGraph] = [
        """
        entitlement e = a or b { grants flag; grants calls 100 per month; grants coins 5 }
        entitlement free = everyone { grants calls 3 per day }
        """,
        """
        entitlement e = a { grants calls unlimited }
        entitlement f = b { grants flag; grants calls 50 per month; grants coins unlimited }
        """,
        """
        entitlement e = a or b or c { grants flag; grants calls 30 per week; grants coins 40 per month }
        """,
        """
        entitlement e = b { grants calls 100 per month }
        entitlement free = everyone { grants flag; grants calls 10 }
        """,
    ].enumerated().map { i, body in
        compileGraph("""
            product a: subscription { period month }
            product b: non_consumable
            product c: consumable { grants coins \(10 * (i + 1)) }
            feature flag: boolean
            feature calls: metered
            credits coins { calls 1 = 2 }
            """ + "\n" + body)
    }

    /// A customer with a few purchases, uses and state grants, sometimes without an id.
    static func customer(_ n: Int, _ random: inout SeededRandom) -> PurchaseState {
        var purchases: [String] = []
        if random.chance(0.5) {
            let ends = random.pick(["2026-05-20T00:00:00Z", "2026-06-20T00:00:00Z"])
            purchases.append(#"{"product": "a", "status": "active", "purchased_at": "2026-04-20T00:00:00Z", "#
                             + #""expires_at": "\#(ends)"}"#)
        }
        if random.chance(0.4) { purchases.append(#"{"product": "b", "purchased_at": "2025-01-01T00:00:00Z"}"#) }
        if random.chance(0.3) {
            purchases.append(#"{"product": "c", "quantity": \#(random.int(1...3)), "#
                             + #""purchased_at": "2026-05-0\#(random.int(1...9))T00:00:00Z"}"#)
        }
        var grants: [String] = []
        if random.chance(0.15) { grants.append(#"{"entitlement": "e", "from": "2026-05-01T00:00:00Z"}"#) }
        if random.chance(0.15) { grants.append(#"{"feature": "flag", "from": "2026-05-01T00:00:00Z"}"#) }
        if random.chance(0.15) {
            grants.append(#"{"feature": "calls", "amount": \#(random.int(1...60)), "from": "2026-05-01T00:00:00Z"}"#)
        }
        let usage = random.chance(0.5)
            ? #"[{"feature": "calls", "amount": \#(random.int(1...150)), "#
                + #""at": "2026-05-2\#(random.int(0...9))T00:00:00Z"}]"#
            : "[]"
        let id = random.chance(0.8) ? #""customer": "c\#(n)", "# : ""
        return state(#"{\#(id)"now": "2026-05-30T00:00:00Z", "customer_since": "2026-01-01T00:00:00Z", "#
                     + #""purchases": [\#(purchases.joined(separator: ", "))], "#
                     + #""grants": [\#(grants.joined(separator: ", "))], "usage": \#(usage)}"#)
    }

    static func customers(seed: UInt64, count: Int) -> [PurchaseState] {
        var random = SeededRandom(seed: seed)
        return (0..<count).map { customer($0, &random) }
    }

    static func measure(_ states: ArraySlice<PurchaseState>, _ old: RuleGraph, _ new: RuleGraph) -> Impact {
        var impact = Impact(source: "s")
        for i in states.indices {
            impact.add(line: i + 1, old: old, new: new, environment: nil, at: instant("2026-05-30T00:00:00Z")) {
                states[i]
            }
        }
        return impact
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func reversingTheVersionsSwapsDropsAndRisesAndNegatesTotals(seed: UInt64) {
        let states = Self.customers(seed: seed, count: 60)
        var moved = 0
        for i in Self.versions.indices {
            for j in Self.versions.indices where i != j {
                let forward = Self.measure(states[...], Self.versions[i], Self.versions[j])
                let backward = Self.measure(states[...], Self.versions[j], Self.versions[i])
                #expect(forward.customers == 60 && backward.customers == 60)
                #expect(Set(forward.rows.keys) == Set(backward.rows.keys), "seed \(seed), \(i) → \(j)")
                for (key, f) in forward.rows {
                    guard let b = backward.rows[key] else { continue }
                    let context: Comment = "seed \(seed), \(i) → \(j), \(key.kind) \(key.name)"
                    #expect(same(f.gained, b.lost) && same(f.lost, b.gained), context)
                    #expect(same(f.balanceChanged, b.balanceChanged), context)
                    for (r, c) in f.byProduct {
                        #expect(c.gained == b.byProduct[r]?.lost ?? 0 && c.lost == b.byProduct[r]?.gained ?? 0, context)
                    }
                    let (fb, bb) = (f.balances, b.balances)
                    #expect(fb.drops == bb.rises && fb.rises == bb.drops && fb.total == -bb.total, context)
                    #expect(mirror(fb.largestDrop) == bb.largestRise, context)
                    #expect(mirror(fb.largestRise) == bb.largestDrop, context)
                    #expect(same(fb.becameUnlimited, bb.lostUnlimited) && same(fb.lostUnlimited, bb.becameUnlimited),
                            context)
                    moved += fb.drops + fb.rises + fb.becameUnlimited.count
                }
            }
        }
        // The generated customers do move: the property is not vacuous.
        #expect(moved > 100)
    }

    /// What `--jobs` does: blocks measured apart, merged in input order, give what one pass gives.
    @Test(arguments: [4, 5] as [UInt64])
    func measuringInBlocksAndMergingIsMeasuringInOnePass(seed: UInt64) {
        let states = Self.customers(seed: seed, count: 40)
        var random = SeededRandom(seed: seed)
        for (i, j) in [(0, 1), (2, 3), (1, 3)] {
            let whole = Self.measure(states[...], Self.versions[i], Self.versions[j])
            var merged = Impact(source: "s"), start = 0
            while start < states.count {
                let end = min(states.count, start + random.int(1...9))
                merged.merge(Self.measure(states[start..<end], Self.versions[i], Self.versions[j]))
                start = end
            }
            #expect(describe(merged) == describe(whole), "seed \(seed), \(i) → \(j)")
        }
    }

    func same(_ a: Impact.Group, _ b: Impact.Group) -> Bool { a.count == b.count && a.customers == b.customers }

    func mirror(_ c: Impact.Balances.Change?) -> Impact.Balances.Change? {
        c.map {
            Impact.Balances.Change(amount: -$0.amount, old: $0.new, new: $0.old, customer: $0.customer, line: $0.line)
        }
    }

    /// Every number and name of an impact, in a fixed order.
    func describe(_ impact: Impact) -> [String] {
        func g(_ group: Impact.Group) -> String { "\(group.count) \(group.customers)" }
        var out = ["\(impact.customers) \(impact.errorCount)"]
        for key in impact.rows.keys.sorted() {
            let r = impact.rows[key]!, b = r.balances
            out.append("\(key.name): \(g(r.gained)) \(g(r.lost)) \(g(r.balanceChanged))")
            out.append("\(r.byProduct.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" })")
            out.append("\(b.drops) \(b.rises) \(b.total) \(String(describing: b.largestDrop)) "
                       + "\(String(describing: b.largestRise)) \(g(b.becameUnlimited)) \(g(b.lostUnlimited))")
        }
        return out
    }
}
