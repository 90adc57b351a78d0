import EntlCompiler
import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Testing

/// `entlc diff --states`: both graphs evaluated per state, counted per entitlement and feature.
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

    func state(_ customer: String, owns: Bool) -> PurchaseState {
        EntlTestSupport.state(#"{"customer": "\#(customer)", "now": "2026-06-01T00:00:00Z", "purchases": ["#
                              + (owns ? #"{"product": "pro", "status": "active"}"# : "") + "]}")
    }

    @Test func whoGainsLosesOrChangesBalance() {
        var impact = Impact(source: "s.jsonl")
        let clock = instant("2026-06-01T00:00:00Z")
        impact.add(line: 1, old: Self.old, new: Self.new, environment: nil, clock: clock) { state("a", owns: true) }
        impact.add(line: 2, old: Self.old, new: Self.new, environment: nil, clock: clock) { state("b", owns: false) }
        impact.add(line: 3, old: Self.old, new: Self.new, environment: nil, clock: clock) {
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
    }

    /// Blocks measured apart and merged in input order keep the first ten customers of the input.
    @Test func mergingKeepsTheFirstTenInInputOrder() {
        let clock = instant("2026-06-01T00:00:00Z")
        var first = Impact(source: "s"), second = Impact(source: "s")
        for i in 0..<8 {
            first.add(line: i, old: Self.old, new: Self.new, environment: nil, clock: clock) {
                state("a\(i)", owns: false)
            }
            second.add(line: 8 + i, old: Self.old, new: Self.new, environment: nil, clock: clock) {
                state("b\(i)", owns: false)
            }
        }
        first.merge(second)
        let gained = first.rows[Impact.Key(kind: "feature", name: "export")]!.gained
        #expect(gained.count == 16)
        #expect(gained.customers == (0..<8).map { "a\($0)" } + ["b0", "b1"])
    }
}
