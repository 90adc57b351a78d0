import EntlCompiler
import EntlRuntime
import EntlTestSupport
import Foundation
import Testing

/// What `entlc diff` says against what the evaluator does, over generated pairs of constraints
/// and generated customers (seeded): when some existing customer has access under OLD and not
/// under NEW, the diff reports a loss; when some customer has it under NEW only, a gain. Access
/// is three-valued (SEMANTICS §1: a purchase of unknown status makes a constraint unknown, and
/// undetermined is never access), so the customers include purchases of unknown status.
@Suite struct DiffSoundnessPropertyTests {
    static let since = "2026-06-01T00:00:00Z"

    static let catalog = """
        product a: non_consumable
        product b: non_consumable
        product c: consumable
        feature flag: boolean

        """

    /// A constraint over `a`, `b`, `c` (thresholds 1 to 3, purchase dates), `and`, `or`, `not`.
    static func constraint(_ depth: Int, _ random: inout SeededRandom) -> String {
        if depth == 0 || random.chance(0.3) {
            switch random.int(0...5) {
            case 0, 1: return random.pick(["a", "b"])
            case 2: return "c >= \(random.int(1...3))"
            case 3: return "c"
            case 4: return "\(random.pick(["a", "b"])) purchased before \"\(random.pick(["2026-03-01T00:00:00Z", Self.since]))\""
            default: return "not \(random.pick(["a", "b", "c"]))"
            }
        }
        switch random.int(0...4) {
        case 0: return "not (\(constraint(depth - 1, &random)))"
        case 1, 2:
            return "(\(constraint(depth - 1, &random)) and \(constraint(depth - 1, &random)))"
        default:
            return "(\(constraint(depth - 1, &random)) or \(constraint(depth - 1, &random)))"
        }
    }

    /// Two-valued rewrites of `x` that Kleene logic tells apart from it when a status is unknown.
    static func rewrite(_ x: String, _ random: inout SeededRandom) -> String {
        let y = constraint(1, &random)
        return random.pick([
            "((\(x)) and (\(y))) or ((\(x)) and not (\(y)))",
            "(\(x)) or ((\(y)) and not (\(y)))",
            "(\(x)) and ((\(y)) or not (\(y)))",
            // The same for every dated purchase: made before the instant, or since.
            "(\(x)) and (a purchased before \"2026-03-01T00:00:00Z\" or a purchased since \"2026-03-01T00:00:00Z\" "
                + "or not a)",
        ])
    }

    /// Every customer the generator can make: per product, no purchase, an active one, one of
    /// unknown status or both (c with 1 or 2 units of each), bought before `since`, some in
    /// February (before the `purchased before` dates), some in April.
    static let customers: [PurchaseState] = {
        var out: [PurchaseState] = []
        let kinds = [[], ["active"], ["unknown"], ["active", "unknown"]]
        for ka in kinds {
            for kb in kinds {
                for kc in kinds {
                    for quantity in 1...2 {
                        for date in ["2026-02-01T00:00:00Z", "2026-04-01T00:00:00Z"] {
                            var purchases: [String] = []
                            for (product, statuses) in [("a", ka), ("b", kb), ("c", kc)] {
                                for s in statuses {
                                    let q = product == "c" ? #", "quantity": \#(quantity)"# : ""
                                    purchases.append(#"{"product": "\#(product)", "status": "\#(s)", "#
                                                     + #""purchased_at": "\#(date)"\#(q)}"#)
                                }
                            }
                            out.append(state(#"{"purchases": [\#(purchases.joined(separator: ", "))]}"#))
                        }
                    }
                }
            }
        }
        return out
    }()

    /// Every existing customer's situation (dated purchases, all before `since`): per product `a`
    /// and `b`, any set of {active, unknown} × {February, April} purchases (either side of the
    /// `purchased before` instants), and `c` with 0 to 3 units owned and 0 to 3 of unknown status.
    static let existingCustomers: [PurchaseState] = {
        var sets: [[String]] = [[]]
        for status in ["active", "unknown"] {
            for date in ["2026-02-01T00:00:00Z", "2026-04-01T00:00:00Z"] {
                sets += sets.map { $0 + [#""status": "\#(status)", "purchased_at": "\#(date)""#] }
            }
        }
        var out: [PurchaseState] = []
        for sa in sets {
            for sb in sets {
                for owned in 0...3 {
                    for unknown in 0...3 {
                        var purchases = sa.map { #"{"product": "a", \#($0)}"# } + sb.map { #"{"product": "b", \#($0)}"# }
                        for (status, units) in [("active", owned), ("unknown", unknown)] where units > 0 {
                            purchases.append(#"{"product": "c", "status": "\#(status)", "quantity": \#(units), "#
                                             + #""purchased_at": "2026-02-01T00:00:00Z"}"#)
                        }
                        out.append(state(#"{"purchases": [\#(purchases.joined(separator: ", "))]}"#))
                    }
                }
            }
        }
        return out
    }()

    static let rounds = Int(ProcessInfo.processInfo.environment["ENTLC_PROPERTY_CASES"] ?? "").map { $0 / 10 } ?? 30

    /// The converse, for breaking findings: a loss diff reports (D401) is one some existing
    /// customer has — no breaking finding without a customer it is true of.
    @Test(arguments: [5, 6] as [UInt64])
    func aReportedLossIsSomeExistingCustomers(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var reported = 0
        for round in 0..<Self.rounds {
            let x = Self.constraint(2, &random)
            let y = random.chance(0.3) ? Self.rewrite(x, &random) : Self.constraint(2, &random)
            let old = Self.catalog + "entitlement e = \(x) { grants flag }\n"
            let new = Self.catalog + "entitlement e = \(y) { grants flag }\n"
            let (o, n) = (check(old, path: "old.entl"), check(new, path: "new.entl"))
            guard !o.hasErrors, !n.hasErrors else { continue }
            let findings = RuleDiff.compare(old: o, new: n, since: instant(Self.since), environments: [.live]).findings
            guard let loss = findings.first(where: { $0.code.id == "D401" }) else { continue }
            reported += 1
            let (g, h) = (compileGraph(old), compileGraph(new))
            let someoneLoses = try Self.existingCustomers.contains { c in
                try Self.allowed(g, c).entitlement && !(try Self.allowed(h, c).entitlement)
            }
            #expect(someoneLoses, "seed \(seed) round \(round): `\(x)` → `\(y)`: \(loss.message)")
        }
        #expect(reported > 0)
    }

    static func allowed(_ graph: RuleGraph, _ customer: PurchaseState) throws -> (entitlement: Bool, flag: Bool) {
        let e = try evaluate(graph, customer, at: "2026-06-15T00:00:00Z")
        let entitlement = e.entitlement(graph.live.entitlementIndex["e"]!).decision == .allowed
        let flag = e.feature(graph.live.featureIndex["flag"]!, required: 1).decision == .allowed
        return (entitlement, flag)
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func aChangeOfAccessIsNeverUnreported(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var moved = 0
        for round in 0..<(Self.rounds + 10) {
            let x = Self.constraint(2, &random)
            let y = random.chance(0.5) ? Self.rewrite(x, &random) : Self.constraint(2, &random)
            let (oldText, newText) = random.chance(0.5) ? (x, y) : (y, x)
            let old = Self.catalog + "entitlement e = \(oldText) { grants flag }\n"
            let new = Self.catalog + "entitlement e = \(newText) { grants flag }\n"
            let (o, n) = (check(old, path: "old.entl"), check(new, path: "new.entl"))
            guard !o.hasErrors, !n.hasErrors else { continue }
            let codes = Set(RuleDiff.compare(old: o, new: n, since: instant(Self.since), environments: [.live])
                .findings.map(\.code.id))
            let (g, h) = (compileGraph(old), compileGraph(new))
            var lost = false, gained = false
            for customer in Self.customers {
                let (before, after) = (try Self.allowed(g, customer), try Self.allowed(h, customer))
                lost = lost || (before.entitlement && !after.entitlement)
                gained = gained || (!before.entitlement && after.entitlement)
                #expect(before.entitlement == before.flag && after.entitlement == after.flag)
            }
            let context: Comment = "seed \(seed) round \(round): `\(oldText)` → `\(newText)`, findings \(codes.sorted())"
            // Every generated customer bought before `since`: a loss is an existing customer's.
            if lost { #expect(codes.contains("D401") && codes.contains("D402"), context) }
            if gained { #expect(codes.contains("D101"), context) }
            if lost || gained { moved += 1 }
        }
        // The property is not vacuous: most pairs change someone's access.
        #expect(moved > 10)
    }
}
