import EntlCompiler
@testable import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Foundation
import Testing

/// `EvaluationScratch`, the batch's: an evaluation made in it, in tables and a state that held the
/// previous one, is the evaluation a fresh `Evaluation(graph:state:…)` makes of the same state; and
/// tables something else still holds are never taken back.
@Suite struct EvaluationScratchTests {
    static let cases = Int(ProcessInfo.processInfo.environment["ENTLC_PROPERTY_CASES"] ?? "") ?? 300

    /// What an evaluation answers: every result as its JSON (every field, the reason and the
    /// explanation: a feature's result prints none of them), its warnings, or the error that
    /// refused it.
    static func answers(_ make: () throws(EvaluationError) -> Evaluation) -> String {
        do throws(EvaluationError) {
            let e = try make()
            return "\(e.json(e.all()).compact)\n\(e.warnings)"
        } catch {
            return "error: \(error)"
        }
    }

    /// One scratch through generated cases in a row (rule sets of each focus, states of every
    /// size, with usage, grants and unknown names, strict or not): each line is decoded into the
    /// scratch and evaluated there, and answers as a fresh evaluation of its own decoding does.
    /// The batch's `--all` line is the line of `all()`. Every seventh evaluation is kept past its
    /// `recycle`; at the end each kept one still answers as it did (its tables were left to it,
    /// not refilled by later lines).
    @Test func aScratchEvaluationAnswersAsAFreshOne() throws {
        var scratch = EvaluationScratch()
        let focuses: [DifferentialCase.Focus] = [.general, .credits, .purchaseDates, .history, .commercial]
        var kept: [(evaluation: Evaluation, answers: String)] = []
        var answer = FeatureResult()
        var streamed = JSONBytes()
        var copies: [(copy: FeatureResult, fresh: FeatureResult)] = []
        var (compared, refused, reused) = (0, 0, 0)
        /// The tables the scratch holds now, when known (those of the evaluation given back last).
        var held: ObjectIdentifier?
        for k in 0..<Self.cases {
            let c = DifferentialCase(seed: 2026_11_26 &+ UInt64(k) &* 104_729, focus: focuses[k % focuses.count])
            guard let graph = Compiler.compile([SourceFile(path: "d.entl", text: c.rules)], lint: false).graph
            else { continue }
            let json = Array(stateJSON(c.state).utf8)
            let (explain, unlock, strict) = (k % 2 == 0, k % 3 == 0, k % 5 == 0)
            let fresh = Self.answers { () throws(EvaluationError) in
                let state = try! PurchaseState(json: json)
                return try Evaluation(graph: graph, state: state, environment: c.environment, at: c.at,
                                      explain: explain, unlock: unlock, strict: strict)
            }
            try scratch.read(json: json[...], options: .default)
            let decoded = try PurchaseState(json: json)
            #expect(scratch.state == decoded && scratch.state.warnings == decoded.warnings,
                    "case \(k): the scratch's state is not the state decoded afresh")
            var made: Evaluation?
            let answers = Self.answers { () throws(EvaluationError) in
                let e = try scratch.evaluation(graph: graph, environment: c.environment, at: c.at, explain: explain,
                                               unlock: unlock, strict: strict)
                made = e
                return e
            }
            #expect(answers == fresh, "case \(k) (seed \(c.seed)) answers differently from a scratch")
            compared += 1
            guard let evaluation = made.take() else {
                refused += 1  // the scratch keeps its tables, whichever they are
                held = nil
                continue
            }
            // Every feature answered into one result kept from case to case and emptied after each
            // answer, as the batch does, answers as a fresh result; a copy held of it is left as it
            // was.
            for f in evaluation.graph.features.indices {
                evaluation.feature(f, required: 1, into: &answer)
                #expect(answer == evaluation.feature(f, required: 1), "case \(k): feature \(f) answered into a result")
                if (k + f) % 5 == 0 { copies.append((answer, evaluation.feature(f, required: 1))) }
                answer.reset()
            }
            // The batch's `--all` line, each result written as it is answered (the features into
            // that one result), is the line of the array `all()`, warnings and all. The line is
            // written twice into bytes kept from case to case, as the batch's are, with the texts
            // they keep (reasons of earlier lines and of other rule sets, then of this line's).
            var array = JSONBytes()
            evaluation.writeJSONLine(evaluation.all(), warnings: evaluation.warnings, into: &array)
            for time in 1...2 {
                streamed.removeAll()
                evaluation.writeAllJSONLine(warnings: evaluation.warnings, feature: &answer, into: &streamed)
                #expect(streamed.withBytes { Array($0) } == array.withBytes { Array($0) },
                        "case \(k): the --all line, written a time \(time)")
            }
            #expect(answer == FeatureResult(), "case \(k): the result is left empty")
            let tables = ObjectIdentifier(evaluation.tables)
            if tables == held { reused += 1 }
            held = k % 7 == 0 ? nil : tables
            if k % 7 == 0 { kept.append((evaluation, answers)) }
            scratch.recycle(consume evaluation)
        }
        #expect(copies.count > Self.cases / 2 && copies.allSatisfy { $0.copy == $0.fresh })
        for (i, k) in kept.enumerated() {
            #expect(Self.answers { k.evaluation } == k.answers, "kept evaluation \(i) changed after its recycle")
        }
        #expect(compared > Self.cases * 3 / 4 && refused < compared / 2, "compared \(compared), refused \(refused)")
        #expect(reused > compared / 2, "tables reused by \(reused) of \(compared) evaluations")
    }

    /// A purchase reset in its place (the decoder reading the next line's purchases into the
    /// places of the last line's) is the blank purchase but for its product (which the decoder
    /// sets last), whatever it held. Every stored field is set to something else first: a field
    /// added to `Purchase` fails the count until `resetAllButProduct()` and this test have it too.
    @Test func aPurchaseResetInItsPlaceIsTheBlankPurchase() {
        var p = Purchase(product: "p", store: "stripe", status: .revoked, purchasedAt: Instant(seconds: 1),
                         periodStart: Instant(seconds: 2), expiresAt: Instant(seconds: 3),
                         graceUntil: Instant(seconds: 4), willRenew: false, ownership: .familyShared, quantity: 5,
                         environment: .test)
        #expect(Mirror(reflecting: p).children.count == 11)
        p.resetAllButProduct()
        #expect(p == Purchase(product: "p"))
    }

    /// The tables of an evaluation given back are the next evaluation's (nothing allocated again);
    /// those of one still held elsewhere are not.
    @Test func tablesAreTakenBackOnlyWhenNothingElseHoldsThem() throws {
        let graph = try #require(Compiler.compile([SourceFile(path: "t.entl", text: """
            product pro: subscription { period month }
            entitlement premium = pro
            """)], lint: false).graph)
        let line = Array(#"{"purchases": [{"product": "pro", "status": "active"}]}"#.utf8)
        let at = try #require(Instant(rfc3339: "2026-11-26T12:00:00Z"))
        var scratch = EvaluationScratch()
        try scratch.read(json: line[...], options: .default)
        let first = try scratch.evaluation(graph: graph, environment: nil, at: at, explain: false, unlock: false,
                                           strict: false)
        let firstTables = ObjectIdentifier(first.tables)
        scratch.recycle(consume first)
        try scratch.read(json: line[...], options: .default)
        let second = try scratch.evaluation(graph: graph, environment: nil, at: at, explain: false, unlock: false,
                                            strict: false)
        #expect(ObjectIdentifier(second.tables) == firstTables)
        let held = second
        scratch.recycle(second)
        try scratch.read(json: line[...], options: .default)
        let third = try scratch.evaluation(graph: graph, environment: nil, at: at, explain: false, unlock: false,
                                           strict: false)
        #expect(ObjectIdentifier(third.tables) != firstTables)
        #expect(try held.entitlement("premium").isActive && third.entitlement("premium").isActive)
    }

    static let rules = """
        product pro: subscription { period month }
        entitlement premium = pro
        """
    static let at = Instant(rfc3339: "2026-11-26T12:00:00Z")!
    static let owned = Array(#"{"purchases": [{"product": "pro", "status": "active", "expires_at": "2027-01-01T00:00:00Z"}]}"#.utf8)
    static let none = Array(#"{"purchases": []}"#.utf8)

    /// An evaluation given back after the next state was read: that state is the one evaluated next.
    @Test func aStateReadBeforeTheRecycleIsTheOneEvaluated() throws {
        let graph = try #require(Compiler.compile([SourceFile(path: "t.entl", text: Self.rules)], lint: false).graph)
        var scratch = EvaluationScratch()
        try scratch.read(json: Self.owned[...])
        let first = try scratch.evaluation(graph: graph, at: Self.at)
        #expect(try first.entitlement("premium").isActive)
        try scratch.read(json: Self.none[...])
        scratch.recycle(consume first)
        let second = try scratch.evaluation(graph: graph, at: Self.at)
        #expect(try !second.entitlement("premium").isActive)
    }

    /// The scratch shares its tables with the evaluation it made: while that evaluation is held,
    /// another evaluation, a change to the state or a state read go to tables of their own, and
    /// the held evaluation's answers do not change.
    @Test func tablesAnEvaluationHoldsAreNeverFilledAgain() throws {
        let graph = try #require(Compiler.compile([SourceFile(path: "t.entl", text: Self.rules)], lint: false).graph)
        var scratch = EvaluationScratch()
        try scratch.read(json: Self.owned[...])
        let first = try scratch.evaluation(graph: graph, at: Self.at)
        // Evaluated again with the first held: the same state, other tables.
        let second = try scratch.evaluation(graph: graph, at: Self.at)
        #expect(ObjectIdentifier(second.tables) != ObjectIdentifier(first.tables))
        #expect(try first.entitlement("premium").isActive && second.entitlement("premium").isActive)
        // Changed with both held: the state read, then the change, in tables of its own.
        scratch.state.setOverride("pro", .notPurchased)
        let third = try scratch.evaluation(graph: graph, at: Self.at)
        #expect(try !third.entitlement("premium").isActive)
        #expect(try first.entitlement("premium").isActive && second.entitlement("premium").isActive)
        // A state read with all three held.
        try scratch.read(json: Self.none[...])
        let fourth = try scratch.evaluation(graph: graph, at: Self.at)
        #expect(try !fourth.entitlement("premium").isActive)
        #expect(try first.entitlement("premium").isActive && !third.entitlement("premium").isActive)
        #expect(first.state.purchases.count == 1 && fourth.state.purchases.isEmpty)
        // Once the evaluation holding them ends, the scratch's tables are read into again.
        let kept = ObjectIdentifier(fourth.tables)
        scratch.recycle(consume fourth)
        try scratch.read(json: Self.owned[...])
        let fifth = try scratch.evaluation(graph: graph, at: Self.at)
        #expect(ObjectIdentifier(fifth.tables) == kept)
        #expect(try fifth.entitlement("premium").isActive)
    }

    /// A feature granted by an entitlement has a reason that holds the evaluation, so a result
    /// kept past its line keeps the tables: emptied once the line is written, as the batch does,
    /// it leaves them to the next line.
    @Test func aResultEmptiedAfterItsLineLeavesTheTablesToTheNext() throws {
        let graph = try #require(Compiler.compile([SourceFile(path: "t.entl", text: """
            product pro: subscription { period month }
            entitlement premium = pro { grants export }
            feature export: boolean
            """)], lint: false).graph)
        let f = try #require(graph.live.featureIndex["export"])
        var scratch = EvaluationScratch()
        var result = FeatureResult()
        var tables: [ObjectIdentifier] = []
        for line in 0..<4 {
            try scratch.read(json: Self.owned[...])
            result.reset()  // empty already, but after the third line: kept past this read
            let evaluation = try scratch.evaluation(graph: graph, at: Self.at)
            tables.append(ObjectIdentifier(evaluation.tables))
            evaluation.feature(f, required: 1, into: &result)
            #expect(result.allowed && result.reason.hasPrefix("granted by entitlement"))
            scratch.recycle(consume evaluation)
            if line != 2 { result.reset() }
        }
        #expect(tables[0] == tables[1] && tables[1] == tables[2])
        #expect(tables[3] != tables[2])
    }

    /// An evaluation that throws leaves the scratch its tables; tables over the limit are not
    /// kept (one very large state does not pin its memory).
    @Test func refusedEvaluationsKeepTheTablesAndLargeOnesAreLetGo() throws {
        let graph = try #require(Compiler.compile([SourceFile(path: "t.entl", text: Self.rules)], lint: false).graph)
        var scratch = EvaluationScratch()
        try scratch.read(json: Self.owned[...])
        let first = try scratch.evaluation(graph: graph, at: Self.at)
        let tables = ObjectIdentifier(first.tables)
        scratch.recycle(consume first)
        // Strict refuses a subscription that never ends (no `expires_at`).
        try scratch.read(json: Array(#"{"purchases": [{"product": "pro", "status": "active"}]}"#.utf8)[...])
        #expect(throws: EvaluationError.self) { try scratch.evaluation(graph: graph, at: Self.at, strict: true) }
        try scratch.read(json: Self.owned[...])
        let second = try scratch.evaluation(graph: graph, at: Self.at)
        #expect(ObjectIdentifier(second.tables) == tables)
        scratch.recycle(consume second)

        let many = "{\"purchases\": [" + Array(repeating: #"{"product": "pro", "status": "expired"}"#, count: 20_000)
            .joined(separator: ", ") + "]}"
        try scratch.read(json: Array(many.utf8)[...])
        let large = try scratch.evaluation(graph: graph, at: Self.at)
        #expect(large.tables.keptBytes > EvaluationScratch.keptBytesLimit)
        #expect(ObjectIdentifier(large.tables) == tables)
        weak var largeTables = large.tables
        scratch.recycle(consume large)
        #expect(largeTables == nil, "tables over the limit are freed when their evaluation ends")
        try scratch.read(json: Self.owned[...])
        let after = try scratch.evaluation(graph: graph, at: Self.at)
        // New tables (the large ones were freed: their address may come back, their size does not).
        #expect(after.tables.keptBytes < EvaluationScratch.keptBytesLimit)
        #expect(try after.entitlement("premium").isActive)
    }
}

/// What a scratch's tables remember names resolved to (`NameMemo`): one scratch through generated
/// states drawn from one pool of names — store ids of several stores (one id of two stores, ids
/// past 15 bytes, a non-ASCII one), rule-set names, a name that is another product's id, unknown
/// names — each with and without `store`, with usage records naming features by name or event
/// (`feature` or `event`: a feature's name given as an event names nothing), in both environments
/// (whose graphs differ), resolves every purchase and every record as a fresh evaluation of the
/// same state does.
@Suite struct NameMemoTests {
    static let rules = """
        product basic: subscription {
          period month
          id app_store "com.example.basic"
          id stripe "price_basic"
        }
        product pro: subscription {
          period month
          id app_store "com.example.professional.monthly"
          id play "shared"
          id stripe "shared"
        }
        product tokens: consumable { id app_store "price_basic_café" }
        entitlement premium = pro or basic
        feature calls: metered { usage single_use  event "api.call" }
        feature exports: metered { usage single_use  event "export.finished.after.a.long.wait" }
        environment test {
          product sandbox: non_consumable { id app_store "com.example.basic.sandbox" }
        }
        """
    static let names = ["com.example.basic", "price_basic", "com.example.professional.monthly", "shared", "basic",
                        "pro", "tokens", "price_basic_café", "sandbox", "com.example.basic.sandbox", "unknown",
                        "com.example.unknown.longer.than.sixteen"]
    static let stores: [String?] = [nil, "app_store", "stripe", "play", "amazon"]
    static let features = ["calls", "api.call", "exports", "export.finished.after.a.long.wait", "tokens", "unknown"]

    /// What an evaluation made of each purchase: its product and standing, or the error.
    static func resolutions(_ make: () throws(EvaluationError) -> Evaluation) -> String {
        do throws(EvaluationError) {
            let e = try make()
            return e.state.purchases.indices.map { "\(e.purchaseProduct[$0]) \(e.standings[$0])" }
                .joined(separator: "; ") + " | \(Array(e.tables.usageFeatures(in: e.graph)))"
        } catch {
            return "error: \(error)"
        }
    }

    @Test func aScratchResolvesEveryPurchaseAsAFreshEvaluation() throws {
        let graph = try #require(Compiler.compile([SourceFile(path: "r.entl", text: Self.rules)], lint: false).graph)
        let at = try #require(Instant(rfc3339: "2026-11-26T12:00:00Z"))
        var rng = SeededRandom(seed: 2026_11_28)
        var scratch = EvaluationScratch()
        var (resolvedToProduct, resolvedToFeature) = (0, 0)
        for k in 0..<EvaluationScratchTests.cases * 4 {
            let purchases = (0..<Int(rng.next() % 4)).map { _ in
                let name = Self.names[Int(rng.next() % UInt64(Self.names.count))]
                let store = Self.stores[Int(rng.next() % UInt64(Self.stores.count))]
                return "{\"product\": \"\(name)\"" + (store.map { ", \"store\": \"\($0)\"" } ?? "")
                    + ", \"status\": \"active\"}"
            }
            let usage = (0..<Int(rng.next() % 4)).map { _ in
                let name = Self.features[Int(rng.next() % UInt64(Self.features.count))]
                return "{\"\(rng.next() % 3 == 0 ? "event" : "feature")\": \"\(name)\", \"amount\": 1}"
            }
            let environment = rng.next() % 3 == 0 ? "test" : "live"
            let json = Array(("{\"environment\": \"\(environment)\", \"purchases\": ["
                + purchases.joined(separator: ", ") + "], \"usage\": [" + usage.joined(separator: ", ") + "]}").utf8)
            let fresh = Self.resolutions { () throws(EvaluationError) in
                try Evaluation(graph: graph, state: try! PurchaseState(json: json), at: at)
            }
            try scratch.read(json: json[...])
            var made: Evaluation?
            let scratched = Self.resolutions { () throws(EvaluationError) in
                let e = try scratch.evaluation(graph: graph, at: at)
                made = e
                return e
            }
            #expect(scratched == fresh, "state \(k): \(String(decoding: json, as: UTF8.self))")
            if let e = made.take() {
                resolvedToProduct += e.purchaseProduct.filter { $0 >= 0 }.count
                resolvedToFeature += e.tables.usageFeatures(in: e.graph).filter { $0 >= 0 }.count
                scratch.recycle(consume e)
            }
        }
        // Purchases of every kind were resolved (a state naming "shared" without a store is refused
        // whole: an id of two products).
        #expect(resolvedToProduct > EvaluationScratchTests.cases / 2)
        #expect(resolvedToFeature > EvaluationScratchTests.cases / 2)
    }
}
