import EntlCompiler
import EntlRuntime
import EntlTestSupport
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
        for round in 0..<40 {
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
