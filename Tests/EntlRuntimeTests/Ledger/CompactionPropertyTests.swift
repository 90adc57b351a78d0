import EntlCompiler
import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Foundation
import Testing

/// Compaction as a property over generated rule sets and states (the differential generator's
/// cases: carry with and without caps, credit spill, soft limits, lots, state grants, ids, plans
/// bought, lapsed and refunded): a state compacted before `T` gives, at every instant from `T` on,
/// the results of its full history — byte for byte, explanations aside — also after what happens
/// next: more uses (retries of the ids it remembers included), purchases that start after `T`,
/// plans that lapse, grants to the customer. `ENTLC_PROPERTY_CASES` runs more.
@Suite struct CompactionPropertyTests {
    static let cases = LedgerPropertyTests.cases
    static let foci = LedgerPropertyTests.foci

    @Test(arguments: foci)
    func aCompactedStateAnswersAsItsHistory(_ focus: DifferentialCase.Focus) throws {
        var compared = 0, folded = 0
        for i in 0..<Self.cases {
            var c = DifferentialCase(seed: 120_000 &+ UInt64(i), focus: focus)
            guard let graph = LedgerPropertyTests.graph(c) else { continue }
            var r = SeededRandom(seed: UInt64(i) ^ 0xC0FF)
            let before = Self.cutInstant(c, &r)
            // A state is compacted in its own environment (in another, compacting it is refused).
            c.state.environment = c.environment
            Self.sharpen(&c.state, before: before, &r)
            let compacted: LedgerCompaction.Compacted
            do {
                compacted = try LedgerCompaction.compact(graph: graph, state: c.state, before: before,
                                                         environment: c.environment)
            } catch {
                // Only a state the rules cannot evaluate is refused.
                #expect((try? Evaluation(graph: graph, state: c.state, environment: c.environment, at: before)) == nil,
                        "\(c)--- compacting before \(before) failed: \(error)")
                continue
            }
            folded += c.state.usage.count - compacted.state.usage.count
            // A second compaction, later, of the compacted state.
            var states = [compacted.state]
            let later = Instant(seconds: before.seconds + r.int64(0...(20 * 86_400)))
            do {
                states.append(try LedgerCompaction.compact(graph: graph, state: compacted.state, before: later,
                                                           environment: c.environment).state)
            } catch {
                Issue.record("\(c)--- compacted before \(before), then before \(later): \(error)")
                return
            }
            let next = Self.whatHappensNext(c, graph: graph, after: later, &r)
            for (k, short) in states.enumerated() {
                let from = k == 0 ? before : later
                for at in [from, c.at, Instant(seconds: from.seconds + r.int64(1...(60 * 86_400)))] where at >= from {
                    compared += 1
                    let mismatch = Self.firstDifference(graph, c.environment, full: next(c.state),
                                                        compacted: next(short), at: at, unlock: i % 3 == 0)
                    #expect(mismatch == nil, "\(c)--- compacted before \(from), evaluated at \(at): \(mismatch ?? "")")
                    if mismatch != nil { return }
                }
            }
        }
        #expect(compared > Self.cases)
        #expect(folded > Self.cases)
    }

    /// An upgrade recorded after `T` by changing the row's product (monthly to yearly within one
    /// App Store group, or back; a Stripe price change) between two plans that count alike — behind
    /// the same entitlement, granting nothing themselves — leaves a compacted state answering as its
    /// full history at every instant from `T` on: the entitlement's grants (windows with carry,
    /// credits that features spill into) go on through the changed row. Generated subscribers: one
    /// or two plans bought before `T`, uses before and after, the row changed (or not) after `T`.
    @Test func anUpgradeAfterTGoesOnThroughTheChangedRow() throws {
        let graph = compileGraph("""
            product monthly: subscription { period month  id app_store "pro.monthly"  id stripe "price_m" }
            product yearly: subscription { period year  id app_store "pro.yearly"  id stripe "price_y" }
            feature calls: metered { usage single_use }
            feature exports: metered { usage single_use }
            credits tokens { calls 1 = 2  exports 1 = 5 }
            entitlement pro = monthly or yearly {
              grants calls 100 per day carry up to 150
              grants exports 3 per week
              grants tokens 60 per month carry
            }
            """)
        let ids = [("monthly", "pro.monthly", "price_m"), ("yearly", "pro.yearly", "price_y")]
        var r = SeededRandom(seed: 2026_11_28)
        var (compared, changed) = (0, 0)
        for i in 0..<Self.cases {
            let start = Instant(seconds: 1_767_225_600 + r.int64(0...(200 * 86_400)))  // 2026 and on
            let before = Instant(seconds: start.seconds + r.int64(1...(90 * 86_400)))
            var state = PurchaseState()
            for k in 0..<r.int(1...2) {
                let plan = r.pick(ids), store = r.pick(["app_store", "stripe", nil])
                let bought = Instant(seconds: start.seconds + Int64(k) * r.int64(0...(20 * 86_400)))
                state.purchases.append(Purchase(
                    product: store == nil ? plan.0 : store == "stripe" ? plan.2 : plan.1, store: store,
                    status: .active, purchasedAt: bought,
                    expiresAt: Instant(seconds: bought.seconds + r.int64(200...400) * 86_400)))
            }
            for _ in 0..<r.int(0...30) {
                let span = before.seconds - start.seconds + 40 * 86_400
                let at = Instant(seconds: start.seconds + r.int64(0...span))
                state.usage.append(UsageRecord(feature: r.pick(["calls", "exports", "tokens"]),
                                               kind: .amount(r.int64(1...80)), at: at))
            }
            let compacted: PurchaseState
            do {
                compacted = try LedgerCompaction.compact(graph: graph, state: state, before: before,
                                                         environment: .live).state
            } catch {
                Issue.record("subscriber \(i): compacting before \(before) failed: \(error)")
                continue
            }
            // The change: a row's product replaced by the other plan's, at the row's own store.
            let j = r.int(0...(state.purchases.count - 1)), switched = r.chance(0.7)
            func upgrade(_ s: PurchaseState) -> PurchaseState {
                guard switched else { return s }
                var s = s
                let other = ids.first { ![$0.0, $0.1, $0.2].contains(s.purchases[j].product) }!
                s.purchases[j].product = switch s.purchases[j].store {
                case nil: other.0
                case "stripe": other.2
                default: other.1
                }
                return s
            }
            if switched { changed += 1 }
            for at in [before, Instant(seconds: before.seconds + r.int64(1...(60 * 86_400)))] {
                compared += 1
                let mismatch = Self.firstDifference(graph, .live, full: upgrade(state), compacted: upgrade(compacted),
                                                    at: at, unlock: false)
                let what = "subscriber \(i) (\(state.purchases), row \(j) changed: \(switched)), "
                    + "compacted before \(before), at \(at): \(mismatch ?? "")"
                #expect(mismatch == nil, "\(what)")
                if mismatch != nil { return }
            }
        }
        #expect(compared > Self.cases && changed > Self.cases / 2)
    }

    /// Two examples the generator rarely makes. A use a nanosecond before `T`, while a purchase
    /// whose status ended it is within its dates: read at `T`, a past use, the plan paid it (the
    /// ledger read a nanosecond earlier had charged the free grant). And a grant sharing its `id`
    /// with an older one that ended unused, then pruned from the state: the compacted ledger names
    /// the newer one by its start too, so its position stays with it (it had gone, 10 left
    /// against the history's 6).
    /// A ledger of more entries than a state may hold could be written but not read back (the
    /// customer's file, compacted in place, was lost): compaction refuses.
    @Test func aLedgerTooLargeToReadBackIsRefused() throws {
        let graph = compileGraph("product pack: consumable { grants calls 10 per month }\nfeature calls: metered")
        let at = instant("2026-06-01T00:00:00Z")
        let purchases = (0..<10_001).map { i in
            Purchase(product: "pack", purchasedAt: Instant(seconds: at.seconds - 86_400 - Int64(i), nanoseconds: 0))
        }
        let state = PurchaseState(purchases: purchases,
                                  usage: [UsageRecord(feature: "calls", kind: .amount(1), at: at, id: nil)])
        #expect(throws: EvaluationError("the ledger would hold 10001 entries, more than the 10000 a state may hold: "
                                        + "this state cannot be compacted")) {
            try LedgerCompaction.compact(graph: graph, state: state, before: instant("2026-06-02T00:00:00Z"))
        }
    }

    @Test func aUseJustBeforeTAndAPrunedGrant() throws {
        let plan = compileGraph("""
            product sub: subscription { period month }
            feature f0: metered
            entitlement free = everyone { grants f0 27 priority 2 }
            entitlement plan = sub { grants f0 6 per month }
            """)
        let ended = state(#"{"purchases": [{"product": "sub", "status": "expired", "purchased_at": "#
                          + #""2026-09-28T04:23:34Z", "expires_at": "2027-02-07T04:23:34Z"}], "usage": [{"feature": "#
                          + #""f0", "amount": 4, "at": "2026-10-01T21:34:31.999999999Z"}]}"#)
        let short = try LedgerCompaction.compact(graph: plan, state: ended, before: instant("2026-10-01T21:34:32Z"))
        let later = instant("2026-10-15T00:00:00Z")
        #expect(try Evaluation(graph: plan, state: short.state, at: later).feature("f0").balance == 27)
        #expect(try Evaluation(graph: plan, state: ended, at: later).feature("f0").balance == 27)

        // The balance of `f0` at `at`, in `json`'s full history and compacted before `before`, once its
        // first grant is pruned from both.
        let graph = compileGraph("feature f0: metered")
        func pruned(_ json: String, before: String, at: String) throws -> (full: Int64?, compacted: Int64?) {
            var full = state(json)
            var compacted = try LedgerCompaction.compact(graph: graph, state: full, before: instant(before)).state
            full.grants.removeFirst()
            compacted.grants.removeFirst()
            return (try Evaluation(graph: graph, state: full, at: instant(at)).feature("f0").balance,
                    try Evaluation(graph: graph, state: compacted, at: instant(at)).feature("f0").balance)
        }
        let october = try pruned(#"{"grants": [{"feature": "f0", "amount": 10, "from": "2026-09-01T00:00:00Z", "#
                                 + #""until": "2026-09-20T00:00:00Z", "id": "promo"}, {"feature": "f0", "amount": 10, "#
                                 + #""from": "2026-10-01T00:00:00Z", "id": "promo", "per": "month"}], "usage": "#
                                 + #"[{"feature": "f0", "amount": 4, "at": "2026-10-05T00:00:00Z"}]}"#,
                                 before: "2026-10-10T00:00:00Z", at: "2026-10-12T00:00:00Z")
        #expect(october.full == 6 && october.compacted == 6, "\(october)")
        // A grant whose `id` spells the other's name in the ledger: pruned, the other's entry names
        // nothing (a warning), and is not read as the first by its `id` (it had handed back 10).
        let spelled = try pruned(#"{"grants": [{"feature": "f0", "amount": 10, "from": "2026-02-01T00:00:00Z", "#
                                 + #""id": "promo", "priority": 1}, {"feature": "f0", "amount": 10, "from": "#
                                 + #""2026-02-05T00:00:00Z", "id": "promo from 2026-02-01T00:00:00Z"}], "usage": "#
                                 + #"[{"feature": "f0", "amount": 10, "at": "2026-02-10T00:00:00Z"}]}"#,
                                 before: "2026-03-01T00:00:00Z", at: "2026-03-02T00:00:00Z")
        #expect(spelled.full == 0 && spelled.compacted == 0, "\(spelled)")
    }

    /// A grant dated before `T` added after the compaction is not charged for the folded uses (the
    /// full history charges it): the compacted state says so, naming the grant; a grant that was
    /// there when the uses were folded, or dated from `T` on, is not named.
    @Test func aGrantDatedBeforeTAddedAfterTheCompactionIsWarnedOf() throws {
        let graph = compileGraph("feature calls: metered\nentitlement free = everyone { grants calls 10 per month }")
        let history = state(#"{"customer_since": "2026-10-01T00:00:00Z", "usage": [{"feature": "calls", "amount": 50, "#
                            + #""at": "2026-11-10T00:00:00Z"}]}"#)
        let before = instant("2026-11-15T00:00:00Z"), at = instant("2026-11-20T00:00:00Z")
        func credit(from: String) -> StateGrant {
            StateGrant(target: .feature("calls"), amount: .count(100), from: instant(from), id: "outage-credit")
        }
        var late = try LedgerCompaction.compact(graph: graph, state: history, before: before).state
        late.grants = [credit(from: "2026-11-05T00:00:00Z")]
        var full = history
        full.grants = late.grants
        #expect(try Evaluation(graph: graph, state: full, at: at).feature("calls").balance == 60)
        let warned = try Evaluation(graph: graph, state: late, at: at)
        #expect(try warned.feature("calls").balance == 100)
        #expect(warned.warnings.map(\.description) == ["grants[0].from: 2026-11-05T00:00:00Z is before the ledger's "
            + "2026-11-15T00:00:00Z, which holds no position of this grant: the uses folded then are not charged to "
            + "it, as the whole history would charge them (docs/ledger.md)"])
        // Compacted with the grant: its position is kept, the balance is the history's, no warning.
        let kept = try LedgerCompaction.compact(graph: graph, state: full, before: before).state
        let exact = try Evaluation(graph: graph, state: kept, at: at)
        #expect(try exact.feature("calls").balance == 60)
        #expect(exact.warnings.isEmpty)
        // Dated from `T` on: nothing to charge it for, no warning.
        late.grants = [credit(from: "2026-11-15T00:00:00Z")]
        #expect(try Evaluation(graph: graph, state: late, at: at).warnings.isEmpty)

        // An entitlement given back to the 1st, and a purchase dated back: their grants are named.
        let plan = compileGraph("""
            product sub: subscription { period month }
            feature calls: metered
            entitlement pro = sub { grants calls 100 }
            entitlement base = everyone { grants calls 10 }
            """)
        var given = try LedgerCompaction.compact(graph: plan, state: history, before: before).state
        given.grants = [StateGrant(target: .entitlement("pro"), from: instant("2026-11-01T00:00:00Z"), id: "late")]
        #expect(try Evaluation(graph: plan, state: given, at: at).warnings.map(\.path) == ["grants[0].from"])
        var bought = try LedgerCompaction.compact(graph: plan, state: history, before: before).state
        bought.purchases = [Purchase(product: "sub", purchasedAt: instant("2026-11-02T00:00:00Z"),
                                     expiresAt: instant("2026-12-02T00:00:00Z"))]
        let boughtWarnings = try Evaluation(graph: plan, state: bought, at: at).warnings
        #expect(boughtWarnings.map(\.description) == ["purchases[0].purchased_at: 2026-11-02T00:00:00Z is before the "
            + "ledger's 2026-11-15T00:00:00Z, which holds no position of this purchase's grants: the uses folded then "
            + "are not charged to it, as the whole history would charge them (docs/ledger.md)"])
        // A ledger with no position at all (only an unlimited grant paid the folded uses).
        let free = compileGraph("feature calls: metered\nentitlement base = everyone { grants calls unlimited priority 5 }")
        var promo = try LedgerCompaction.compact(graph: free, state: history, before: before).state
        #expect(promo.ledger?.grants.isEmpty == true)
        promo.grants = [credit(from: "2026-11-05T00:00:00Z")]
        #expect(try Evaluation(graph: free, state: promo, at: at).warnings.map(\.path) == ["grants[0].from"])
    }

    /// The compacted state's JSON, as `entlc state compact` writes it (every byte of the state kept
    /// but the folded records and the `ledger` member), is valid under schema/state.schema.json and
    /// reads back, strictly, as the compacted state.
    @Test(arguments: [true, false])
    func theWrittenSnapshotIsValidAndReadsBack(_ pretty: Bool) throws {
        let schema = JSONSchemaValidator(repoFile: "schema/state.schema.json")
        var written = 0
        for i in 0..<Self.cases / 2 {
            var c = DifferentialCase(seed: 130_000 &+ UInt64(i), focus: Self.foci[i % Self.foci.count])
            guard let graph = LedgerPropertyTests.graph(c) else { continue }
            c.state.environment = c.environment
            var r = SeededRandom(seed: UInt64(i) ^ 0xBEEF)
            let before = Self.cutInstant(c, &r)
            guard let compacted = try? LedgerCompaction.compact(graph: graph, state: c.state, before: before,
                                                                 environment: c.environment) else { continue }
            var text = stateJSON(c.state)
            if !pretty, let value = try? JSONParser.parse(text) { text = value.compact }
            let json = try PurchaseState.compactedJSON(Array(text.utf8), keeping: compacted.kept,
                                                       ledger: compacted.state.ledger!)
            let errors = schema.errors(try JSONParser.parse(String(decoding: json, as: UTF8.self)))
            #expect(errors == [], "\(c)--- \(String(decoding: json, as: UTF8.self))")
            let read = try PurchaseState(json: json, options: StateDecodingOptions(strict: true))
            #expect(read == compacted.state, "\(c)--- \(String(decoding: json, as: UTF8.self))")
            if errors != [] || read != compacted.state { return }
            written += 1
        }
        #expect(written > Self.cases / 4)
    }

    /// What the generator rarely makes on its own: grants to the customer that share one `id` (for
    /// one feature or several), and a retry, within the day before `before`, of a use with an id
    /// dated days earlier (its id must be remembered: a later retry is one still).
    static func sharpen(_ state: inout PurchaseState, before: Instant, _ r: inout SeededRandom) {
        if state.grants.count >= 2, r.chance(0.3) {
            // The third spelled as the second's name would be (`promo #2`).
            for k in state.grants.indices { state.grants[k].id = k == 2 ? "promo #2" : "promo" }
        }
        let old = state.usage.filter { $0.id != nil && ($0.at.map { $0.seconds < before.seconds - 86_400 } ?? false) }
        if let first = old.randomElement(using: &r), r.chance(0.5) {
            var retry = first
            retry.at = Instant(seconds: before.seconds - r.int64(1...86_000))
            state.usage.append(retry)
        }
    }

    /// Where to cut: an instant among the uses (at one exactly, a second after one, or between), or
    /// around `t`.
    static func cutInstant(_ c: DifferentialCase, _ r: inout SeededRandom) -> Instant {
        let dated = c.state.usage.compactMap(\.at)
        guard !dated.isEmpty, r.chance(0.8) else { return Instant(seconds: c.at.seconds - r.int64(-3_600...86_400)) }
        let use = r.pick(dated)
        switch r.int(0...3) {
        case 0: return use
        case 1: return Instant(seconds: use.seconds + 1, nanoseconds: use.nanoseconds)
        case 2 where use.nanoseconds < 999_999_999:
            // The use a nanosecond before `T`: read at `T` and later, a past one.
            return Instant(seconds: use.seconds, nanoseconds: use.nanoseconds + 1)
        default: return Instant(seconds: use.seconds + r.int64(-86_400...86_400))
        }
    }

    /// A change to apply to both states: uses at or after `T` (some retrying ids of uses near `T`,
    /// some reusing them for another use), plans that lapse with their dates kept, purchases and
    /// grants that start after `T` (a grant with or without an id, last or before every other).
    static func whatHappensNext(_ c: DifferentialCase, graph: RuleGraph, after before: Instant,
                                _ r: inout SeededRandom) -> (PurchaseState) -> PurchaseState {
        let g = graph[c.environment]
        let features = LedgerPropertyTests.consumable(g).map { g.features[$0].name }
        var uses: [UsageRecord] = []
        let recentIDs = c.state.usage.filter {
            $0.id != nil && ($0.at ?? c.at) < before && ($0.at ?? c.at).seconds >= before.seconds - 86_000
        }
        for _ in 0..<r.int(0...4) {
            let at = Instant(seconds: before.seconds + r.int64(0...(30 * 86_400)))
            if let retried = recentIDs.randomElement(using: &r), r.chance(0.4) {
                var again = retried
                again.at = at
                if r.chance(0.3), case .amount(let n) = again.kind { again.kind = .amount(n + 1) }
                uses.append(again)
            } else if let f = features.randomElement(using: &r) {
                uses.append(UsageRecord(feature: f, kind: .amount(r.int64(1...40)), at: at,
                                        id: r.chance(0.3) ? "next-\(uses.count)" : nil))
            }
        }
        var lapses: [(Int, PurchaseStatus)] = []
        for j in c.state.purchases.indices where [.active, .trialing].contains(c.state.purchases[j].status) {
            guard r.chance(0.3) else { continue }
            let hasEnd = c.state.purchases[j].expiresAt != nil
            let ended: [PurchaseStatus] = hasEnd ? [.canceled, .expired, .billingRetry] : [.expired, .billingRetry]
            lapses.append((j, r.pick(ended)))
        }
        // Renewals after `T`: the next period starts where the last ended (its `period_start`
        // moves, its `purchased_at` stays, and so do its windows).
        var renewals: [(Int, Instant, Instant)] = []
        for j in c.state.purchases.indices
        where c.state.purchases[j].status == .active && !lapses.contains(where: { $0.0 == j }) {
            guard let end = c.state.purchases[j].expiresAt, end > before, r.chance(0.4) else { continue }
            renewals.append((j, end, Instant(seconds: end.seconds + r.int64(7...40) * 86_400)))
        }
        var bought: [Purchase] = []
        for _ in 0..<r.int(0...2) {
            guard let p = g.products.randomElement(using: &r) else { break }
            let at = Instant(seconds: before.seconds + r.int64(1...(30 * 86_400)))
            bought.append(Purchase(product: p.name, status: r.pick([.active, .trialing, .canceled]), purchasedAt: at,
                                   expiresAt: Instant(seconds: at.seconds + r.int64(86_400...(90 * 86_400))),
                                   quantity: r.int64(1...5), environment: c.environment))
        }
        var grants: [StateGrant] = []
        if r.chance(0.3), let f = features.randomElement(using: &r) {
            let from = Instant(seconds: before.seconds + r.int64(0...(10 * 86_400)))
            grants.append(StateGrant(target: .feature(f), amount: .count(r.int64(1...50)),
                                     interval: r.chance(0.5) ? .week : nil, from: from,
                                     id: r.chance(0.5) ? "later-grant" : nil))
        }
        // A grant added before the others moves them all one place on (a snapshot names a grant
        // without an id by its target and start, not its place).
        let first = r.chance(0.5)
        return { state in
            var s = state
            for (j, status) in lapses {
                s.purchases[j].status = status
                s.purchases[j].willRenew = false
            }
            for (j, start, end) in renewals {
                s.purchases[j].periodStart = start
                s.purchases[j].expiresAt = end
            }
            s.purchases += bought
            s.grants.insert(contentsOf: grants, at: first ? 0 : s.grants.count)
            s.usage += uses
            return s
        }
    }

    /// The first result whose JSON differs between the two states at `at`, or nil.
    static func firstDifference(_ graph: RuleGraph, _ env: Environment, full: PurchaseState, compacted: PurchaseState,
                                at: Instant, unlock: Bool) -> String? {
        let a: Evaluation, b: Evaluation
        do {
            a = try Evaluation(graph: graph, state: full, environment: env, at: at, unlock: unlock)
        } catch {
            return (try? Evaluation(graph: graph, state: compacted, environment: env, at: at)) == nil ? nil
                : "the full state does not evaluate (\(error)) but the compacted one does"
        }
        do {
            b = try Evaluation(graph: graph, state: compacted, environment: env, at: at, unlock: unlock)
        } catch {
            return "the compacted state does not evaluate: \(error)"
        }
        for (x, y) in zip(a.all(), b.all()) where x.json != y.json {
            return "\n  full      \(x.json.compact)\n  compacted \(y.json.compact)"
        }
        return nil
    }
}
