import EntlCompiler
@testable import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Foundation
import Testing

/// The replays of a credit component with no candidate grant, no use and no starting position are
/// kept from one state to the next (`EvaluationTables.keepEmpty`): a batch evaluates many states of
/// one rule set at one instant, and most customers have no grant in most components. Replays kept
/// so must answer as the replays made afresh for each state.
@Suite struct EmptyReplaysTests {
    static let cases = Int(ProcessInfo.processInfo.environment["ENTLC_PROPERTY_CASES"] ?? "") ?? 300
    static let at = Instant(seconds: 1_795_348_800)  // 2026-11-22T12:00:00Z

    /// A rule set as a batch's usually is: plans that grant metered features and a credit system.
    static let rules = """
        product pro: subscription { period month }
        product team: subscription { period year }
        product pack: consumable
        product boost: consumable { grants calls 20 }
        credits tokens { calls 1 = 2  exports 1 = 5 }
        feature calls: metered { usage single_use }
        feature exports: metered { usage single_use }
        feature seats: metered { usage continuous }
        entitlement plus = pro or team {
          grants tokens 100 per month carry up to 200
          grants calls 1000 per day carry up to 2000
          grants exports 10 per month
        }
        entitlement teams = team { grants seats 5 }
        entitlement packs = pack >= 1 { grants tokens 50 }
        """

    /// A customer of `rules`: often none of its plans, sometimes one (active, lapsed or of unknown
    /// status; a plan, a pack or a product that grants a feature itself), uses now and then (some,
    /// or the only one, dated after `t`), a state grant, an override or a ledger (a compacted
    /// state) now and then.
    static func state(_ r: inout SeededRandom) -> String {
        let day: Int64 = 86_400
        func instant(_ days: ClosedRange<Int64>) -> String { "\(Instant(seconds: at.seconds + r.int64(days) * day))" }
        var purchases: [String] = []
        for _ in 0..<(r.chance(0.6) ? 0 : r.int(1...2)) {
            let product = r.pick(["pro", "team", "pack", "boost", "price_x"])
            let status = r.pick(["active", "expired", "canceled", "unknown", "trialing", "revoked"])
            purchases.append("{\"product\": \"\(product)\", \"status\": \"\(status)\", \"purchased_at\": \"\(instant(-90...(-1)))\""
                             + (r.chance(0.7) ? ", \"expires_at\": \"\(instant(-20...40))\"" : "")
                             + (product == "pack" || product == "boost" ? ", \"quantity\": \(r.int(0...3))" : "") + "}")
        }
        var usage: [String] = []
        for _ in 0..<(r.chance(0.7) ? 0 : r.int(1...3)) {
            let name = r.pick(["calls", "exports", "tokens", "seats", "other"])
            let kind = name == "seats" ? "level" : "amount"
            usage.append("{\"feature\": \"\(name)\", \"\(kind)\": \(r.int(1...40)), \"at\": \"\(instant(-10...2))\"}")
        }
        var members = ["\"customer\": \"c\"", "\"purchases\": [\(purchases.joined(separator: ", "))]",
                       "\"usage\": [\(usage.joined(separator: ", "))]"]
        if r.chance(0.1) {
            members.append("\"grants\": [{\"feature\": \"calls\", \"amount\": 30, \"from\": \"\(instant(-5...1))\"}]")
        }
        if usage.isEmpty, r.chance(0.1) {  // a use dated after `t` alone: nothing used yet, but an input changes then
            usage.append("{\"feature\": \"\(r.pick(["calls", "tokens"]))\", \"amount\": 2, \"at\": \"\(instant(1...3))\"}")
            members[2] = "\"usage\": [\(usage[0])]"
        }
        if r.chance(0.05) { members.append("\"customer_since\": \"\(instant(-400...3))\"") }
        if r.chance(0.06) {
            let value = r.pick(["purchased", "unknown", "not_purchased"])
            members.append("\"overrides\": {\"\(r.pick(["boost", "pro"]))\": \"\(value)\"}")
        }
        if r.chance(0.08) {  // a compacted state: the ledger starts the replay of `tokens` (a position)
            let zero = String(repeating: "0", count: 64)
            members.append("\"ledger\": {\"before\": \"\(instant(-3...(-1)))\", \"rules\": \"\(zero)\", \"grants\": "
                           + "[{\"feature\": \"calls\", \"grant\": 0, \"purchase\": {\"product\": \"pro\", "
                           + "\"purchased_at\": \"\(instant(-60...(-30)))\"}, \"window_start\": \"\(instant(-4...(-4)))\", "
                           + "\"window_end\": \"\(instant(-3...(-3)))\", \"balance\": 8, \"carried\": 0, \"used\": 3, "
                           + "\"overdrawn\": 0}]}")
        }
        return "{" + members.joined(separator: ", ") + "}"
    }

    /// States of `rules` read one after the other into one scratch and evaluated at `at` — every
    /// eleventh a day later, every fourth unlocking, in runs of ten with and without explaining —
    /// answer (every result, and every feature for 3 and for 150) as a fresh
    /// evaluation of the same state does; kept replays are handed out again (so the comparison
    /// covers them), and never at another instant. Then the same over generated rule sets with
    /// credit systems, in the same scratch and at the same instant (replays kept for one rule set
    /// are not another's), each with the states of fifty other generated cases (their names are
    /// the rule set's own), two in three without their uses and one in three without purchases.
    @Test func keptEmptyReplaysAnswerAsFreshOnes() throws {
        let graph = try #require(Compiler.compile([SourceFile(path: "e.entl", text: Self.rules)], lint: false).graph)
        var r = SeededRandom(seed: 2026_11_27)
        var scratch = EvaluationScratch()
        let reused = try Self.compare(graph, .live, (0..<Self.cases).map { _ in Array(Self.state(&r).utf8) }, Self.at,
                                      in: &scratch)
        #expect(reused > Self.cases / 7, "kept replays handed out again \(reused) times in \(Self.cases) states")

        let focuses: [DifferentialCase.Focus] = [.general, .credits, .history, .commercial]
        for k in 0..<max(2, Self.cases / 50) {
            let base = DifferentialCase(seed: 2026_11_27 &+ UInt64(k) &* 7_919, focus: .credits)
            guard let graph = Compiler.compile([SourceFile(path: "e.entl", text: base.rules)], lint: false).graph
            else { continue }
            let states = (0..<50).map { i in
                var state = DifferentialCase(seed: base.seed &+ UInt64(i + 1) &* 104_729,
                                             focus: focuses[i % focuses.count]).state
                if i % 3 != 0 { state.usage = [] }
                if i % 3 == 2 { state.purchases = [] }
                return Array(stateJSON(state).utf8)
            }
            _ = try Self.compare(graph, base.environment, states, Self.at, in: &scratch)
        }
    }

    /// A credit component with nothing to replay (`hasNothingToReplay`: no use of a member, no
    /// starting position, no member that may have a candidate grant) is answered without its
    /// replays (`HeldReplays` holds none): every single-use feature's and credit system's outcome,
    /// every field of it, is the one its component's replays give, for this suite's states and for
    /// generated rule sets' states with and without their uses and purchases.
    @Test func aComponentWithNothingToReplayAnswersAsItsReplays() throws {
        var r = SeededRandom(seed: 2026_11_28)
        var cases: [(RuleGraph, Environment, [String])] = []
        let graph = try #require(Compiler.compile([SourceFile(path: "e.entl", text: Self.rules)], lint: false).graph)
        cases.append((graph, .live, (0..<Self.cases).map { _ in Self.state(&r) }))
        for k in 0..<max(2, Self.cases / 30) {
            let base = DifferentialCase(seed: 2026_11_28 &+ UInt64(k) &* 7_919, focus: .credits)
            guard let graph = Compiler.compile([SourceFile(path: "e.entl", text: base.rules)], lint: false).graph
            else { continue }
            cases.append((graph, base.environment, (0..<30).map { i in
                var state = DifferentialCase(seed: base.seed &+ UInt64(i + 1) &* 104_729, focus: .credits).state
                if i % 3 != 0 { state.usage = [] }
                if i % 3 == 2 { state.purchases = [] }
                return stateJSON(state)
            }))
        }
        var (quiet, replayed) = (0, 0)
        for (graph, environment, states) in cases {
            for json in states {
                guard let e = try? Evaluation(graph: graph, state: try PurchaseState(json: Array(json.utf8)),
                                              environment: environment, at: Self.at)
                else { continue }
                for f in e.graph.features.indices where e.graph.componentOf[f] >= 0 {
                    let c = e.graph.componentOf[f]
                    var held = HeldReplays()
                    let answered = e.meteredBalance(f, held: &held)
                    let replays = e.outcome(of: e.graph.componentMember[f], in: e.replays(ofComponent: c),
                                            sources: true)
                    #expect("\(answered)" == "\(replays)", "feature \(f) of \(json)")
                    if e.hasNothingToReplay(c) { quiet += 1 } else { replayed += 1 }
                }
            }
        }
        #expect(quiet > Self.cases && replayed > Self.cases / 2, "nothing to replay \(quiet), replayed \(replayed)")
    }

    /// What an evaluation answers (`EvaluationScratchTests.answers`), and every feature asked for
    /// 3 and for 150.
    static func answers(_ make: () throws(EvaluationError) -> Evaluation) -> String {
        var evaluation: Evaluation?
        let all = EvaluationScratchTests.answers { () throws(EvaluationError) in
            let e = try make()
            evaluation = e
            return e
        }
        guard let e = evaluation else { return all }
        return e.graph.features.indices.reduce(all) { text, f in
            text + "\n" + e.json([3, 150].map { .feature(e.feature(f, required: $0)) }).compact
        }
    }

    /// Compares each of `states` evaluated in `scratch` with a fresh evaluation (see above), with and
    /// without unlocking; the number of replays handed out again.
    static func compare(_ graph: RuleGraph, _ environment: Environment, _ states: [[UInt8]], _ t: Instant,
                        in scratch: inout EvaluationScratch) throws -> Int {
        var reused = 0
        /// Every replays handed out, held (so that no later object can take the address of one
        /// released), and the instant each was first handed out at.
        var held: [ComponentReplays] = []
        var first: [ObjectIdentifier: Instant] = [:]
        for (k, json) in states.enumerated() {
            let at = k % 11 == 10 ? Instant(seconds: t.seconds + 86_400) : t
            let (explain, unlock) = ((k / 10) % 2 == 1, k % 4 == 3)
            let fresh = answers { () throws(EvaluationError) in
                try Evaluation(graph: graph, state: try! PurchaseState(json: json), environment: environment, at: at,
                               explain: explain, unlock: unlock)
            }
            try scratch.read(json: json[...])
            var made: Evaluation?
            let answers = answers { () throws(EvaluationError) in
                let e = try scratch.evaluation(graph: graph, environment: environment, at: at, explain: explain,
                                               unlock: unlock)
                made = e
                return e
            }
            #expect(answers == fresh, "state \(k): \(String(decoding: json, as: UTF8.self))")
            guard let e = made.take() else { continue }
            for component in e.graph.components.indices {
                let replays = e.replays(ofComponent: component)
                if let made = first[ObjectIdentifier(replays)] {
                    reused += 1
                    #expect(made == at, "replays made at \(made) handed out at \(at)")
                } else {
                    first[ObjectIdentifier(replays)] = at
                    held.append(replays)
                }
            }
            scratch.recycle(consume e)
        }
        return reused
    }
}
