import EntlCompiler
import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Testing

/// `entlc diff --states`: both graphs evaluated per state, counted per entitlement and feature,
/// split by what represents each customer, and the balances' moves.
@Suite struct ImpactTests {
    static let old = compileGraph("""
        product pro: non_consumable
        feature export: boolean
        feature calls: metered
        entitlement e = pro { grants export; grants calls 100 }
        """)
    static let new = compileGraph("""
        product pro: non_consumable
        feature export: boolean
        feature calls: metered
        entitlement e = pro { grants calls 50 }
        entitlement free = everyone { grants export }
        """)
    static let at = instant("2026-06-01T00:00:00Z")

    func state(_ customer: String, owns: Bool) -> PurchaseState {
        EntlTestSupport.state(#"{"customer": "\#(customer)", "now": "2026-06-01T00:00:00Z", "purchases": ["#
                              + (owns ? #"{"product": "pro", "status": "active"}"# : "") + "]}")
    }

    /// The impact of `states` (line numbers from 1), measured with `old` and `new`.
    static func measure(_ states: [PurchaseState], old: RuleGraph, new: RuleGraph, source: String = "s") -> Impact {
        var impact = Impact(source: source)
        for (i, s) in states.enumerated() {
            impact.add(line: i + 1, old: old, new: new, environment: nil, at: at) { s }
        }
        return impact
    }

    @Test func whoGainsLosesOrChangesBalance() {
        var impact = Impact(source: "s.jsonl")
        impact.add(line: 1, old: Self.old, new: Self.new, environment: nil, at: Self.at) { state("a", owns: true) }
        impact.add(line: 2, old: Self.old, new: Self.new, environment: nil, at: Self.at) { state("b", owns: false) }
        impact.add(line: 3, old: Self.old, new: Self.new, environment: nil, at: Self.at) {
            throw StateError(path: "", message: "broken")
        }
        #expect(impact.customers == 2)
        #expect(impact.errorCount == 1)
        #expect(impact.errors.map(\.line) == [3])
        let rows = impact.rows.keys.sorted().map { key in
            let row = impact.rows[key]!
            return "\(key.kind) \(key.name): +\(row.gained.customers) -\(row.lost.customers) "
                   + "~\(row.balanceChanged.customers)"
        }
        #expect(rows == [
            "entitlement free: +[\"a\", \"b\"] -[] ~[]",
            "feature calls: +[] -[] ~[\"a\"]",
            "feature export: +[\"b\"] -[] ~[]",
        ])
        let calls = impact.rows[Impact.Key(kind: "feature", name: "calls")]!.balances
        #expect((calls.drops, calls.rises, calls.total) == (1, 0, -50))
        #expect(calls.largestDrop == Impact.Balances.Change(amount: -50, old: 100, new: 50, customer: "a", line: 1))
        #expect(calls.largestRise == nil)
    }

    /// A state the old rules read and the new ones refuse (its store id now belongs to two
    /// products) loses all it had: it had been counted as a line that could not be evaluated, and
    /// the impact said no customer lost anything.
    @Test func aStateOnlyTheNewRulesRefuseLosesEverything() {
        let old = compileGraph("product pro: non_consumable { id app_store \"pro.m\" }\nentitlement e = pro")
        let new = compileGraph("product pro: non_consumable { id app_store \"pro.m\" }\n"
            + "product other: non_consumable { id stripe \"pro.m\" }\nentitlement e = pro")
        let impact = Self.measure([EntlTestSupport.state(#"{"customer": "a", "purchases": [{"product": "pro.m"}]}"#)],
                                  old: old, new: new)
        #expect((impact.customers, impact.errorCount) == (1, 0))
        let e = impact.rows[Impact.Key(kind: "entitlement", name: "e")]
        #expect(e?.lost.customers == ["a"])
        #expect(e?.byProduct == [.product("pro"): Impact.Counts(lost: 1)])
    }

    /// A state without `now` is evaluated at the instant given (`--since`), not at the clock.
    @Test func aStateWithoutNowIsEvaluatedAtTheInstantGiven() {
        let rules = compileGraph("""
            product monthly: subscription { period month }
            entitlement e = monthly
            """)
        let none = compileGraph("product monthly: subscription { period month }\nentitlement e = everyone")
        let s = EntlTestSupport.state(#"{"customer": "c", "purchases": [{"product": "monthly", "status": "active", "#
                                      + #""purchased_at": "2026-06-01T00:00:00Z", "#
                                      + #""expires_at": "2026-07-01T00:00:00Z"}]}"#)
        var during = Impact(source: "s"), after = Impact(source: "s")
        during.add(line: 1, old: rules, new: none, environment: nil, at: instant("2026-06-15T00:00:00Z")) { s }
        after.add(line: 1, old: rules, new: none, environment: nil, at: instant("2026-07-15T00:00:00Z")) { s }
        // Active on both sides while the subscription runs; gained from `everyone` once it ended.
        #expect(during.rows.isEmpty)
        #expect(after.rows[Impact.Key(kind: "entitlement", name: "e")]?.byProduct == [.nothing: .init(gained: 1)])
    }

    /// What represents a customer: one product, several, a state grant, or nothing.
    @Test func theBucketsOfWhatRepresentsACustomer() {
        let old = compileGraph("""
            product a: subscription { period month }
            product b: non_consumable
            product pack: consumable { grants calls 5 }
            feature export: boolean
            feature beta: boolean requires a
            feature calls: metered
            entitlement e = a or b { grants export; grants calls 100 }
            entitlement free = everyone { grants calls 1 }
            """)
        let new = compileGraph("""
            product a: subscription { period month }
            product b: non_consumable
            product pack: consumable { grants calls 5 }
            feature export: boolean
            feature beta: boolean
            feature calls: metered
            entitlement e = a or b { grants calls 10 }
            entitlement free = everyone { grants calls 1 }
            """)
        func s(_ json: String) -> PurchaseState {
            EntlTestSupport.state(#"{"now": "2026-06-01T00:00:00Z", "#  + json + "}")
        }
        let active = #"{"product": "a", "status": "active", "expires_at": "2026-07-01T00:00:00Z"}"#
        let impact = Self.measure([
            s(#""purchases": [\#(active)]"#),
            s(#""purchases": [\#(active), {"product": "b"}]"#),
            s(#""purchases": [{"product": "b"}, {"product": "pack", "quantity": 1}]"#),
            s(#""purchases": [], "grants": [{"entitlement": "e", "from": "2026-01-01T00:00:00Z"}]"#),
            s(#""purchases": [], "grants": [{"feature": "export", "from": "2026-01-01T00:00:00Z"}]"#),
            s(#""purchases": []"#),
        ], old: old, new: new)
        func by(_ kind: String, _ name: String) -> [Impact.Representation: Impact.Counts] {
            impact.rows[Impact.Key(kind: kind, name: name)]?.byProduct ?? [:]
        }
        // The entitlement keeps its customers; its representative purchase is one product.
        #expect(by("entitlement", "e") == [:])
        // export: lost by every customer of `e`, by the representative's product (b lasts longer
        // than a); the state grant of the feature itself is no loss.
        #expect(by("feature", "export") == [.product("a"): .init(lost: 1), .product("b"): .init(lost: 2),
                                            .stateGrant: .init(lost: 1)])
        // calls: `e` and `pack` behind one customer's balance are several products; `free` is
        // behind no purchase and does not count.
        #expect(by("feature", "calls") == [.product("a"): .init(balanceChanged: 1),
                                           .product("b"): .init(balanceChanged: 1),
                                           .severalProducts: .init(balanceChanged: 1),
                                           .stateGrant: .init(balanceChanged: 1)])
        // beta: its requirement gave it to owners of `a`; nothing grants it in NEW.
        #expect(by("feature", "beta") == [.nothing: .init(lost: 2)])
    }

    @Test func balancesCountDropsRisesAndUnlimitedApart() {
        let old = compileGraph("""
            product a: non_consumable
            product b: non_consumable
            feature calls: metered
            entitlement ea = a { grants calls 100 }
            entitlement eb = b { grants calls unlimited }
            """)
        let new = compileGraph("""
            product a: non_consumable
            product b: non_consumable
            feature calls: metered
            entitlement ea = a { grants calls unlimited }
            entitlement eb = b { grants calls 40 }
            entitlement free = everyone { grants calls 7 }
            """)
        func s(_ id: String, _ products: [String], used: Int = 0) -> PurchaseState {
            let purchases = products.map { #"{"product": "\#($0)"}"# }.joined(separator: ", ")
            let usage = used == 0 ? "" : #", "usage": [{"feature": "calls", "amount": \#(used), "#
                + #""at": "2026-05-01T00:00:00Z"}]"#
            return EntlTestSupport.state(#"{"customer": "\#(id)", "now": "2026-06-01T00:00:00Z", "#
                                         + #""purchases": [\#(purchases)]\#(usage)}"#)
        }
        let impact = Self.measure([s("n1", []), s("a1", ["a"]), s("b1", ["b"], used: 3), s("n2", []),
                                   s("ab", ["a", "b"]), s("n3", [], used: 9)], old: old, new: new)
        let b = impact.rows[Impact.Key(kind: "feature", name: "calls")]!.balances
        // n1, n2: 0 → 7; n3: 0 → 0 (7 − 9, floored); b1: unlimited → 44 − 3.
        #expect((b.drops, b.rises, b.total) == (0, 2, 14))
        #expect(b.largestRise == Impact.Balances.Change(amount: 7, old: 0, new: 7, customer: "n1", line: 1))
        #expect(b.becameUnlimited.customers == ["a1"])
        #expect(b.lostUnlimited.customers == ["b1"])
        // Access and balance moves are counted apart; `ab` is unlimited on both sides: no change.
        let row = impact.rows[Impact.Key(kind: "feature", name: "calls")]!
        #expect(row.gained.customers == ["n1", "n2"])
        #expect(row.balanceChanged.customers == ["a1", "b1"])
    }

    /// Blocks measured apart and merged in input order keep the first ten customers of the input.
    @Test func mergingKeepsTheFirstTenInInputOrder() {
        var first = Impact(source: "s"), second = Impact(source: "s")
        for i in 0..<8 {
            first.add(line: i, old: Self.old, new: Self.new, environment: nil, at: Self.at) {
                state("a\(i)", owns: false)
            }
            second.add(line: 8 + i, old: Self.old, new: Self.new, environment: nil, at: Self.at) {
                state("b\(i)", owns: false)
            }
        }
        first.merge(second)
        let gained = first.rows[Impact.Key(kind: "feature", name: "export")]!.gained
        #expect(gained.count == 16)
        #expect(gained.customers == (0..<8).map { "a\($0)" } + ["b0", "b1"])
    }
}
