import EntlRuntime
import Foundation
import EntlTestSupport
import Testing

/// The ledger's rules that protect money (docs/ledger.md), each on the case that once failed open:
/// the spill, grants with no known start, what paid for a use, reused ids, consumes dated
/// earlier, purchases dated later.
@Suite struct LedgerTests {
    /// Using more never leaves more: a use the credits cannot cover in full still spends them.
    @Test func aPartialSpillSpendsTheCreditsItCan() throws {
        let graph = compileGraph("""
            feature api_calls: metered { unit "call" / "calls" }
            credits coins { api_calls 1 = 1 }
            entitlement free = everyone {
              grants api_calls 10 per month
              grants coins 5 per month
            }
            """)
        func after(_ calls: Int) throws -> (coins: Int64?, check: FeatureResult, overage: Int64?) {
            let e = try evaluate(graph, state(#"{"usage": [{"feature": "api_calls", "amount": \#(calls), "at": "2026-11-10T00:00:00Z"}]}"#),
                                 at: "2026-11-20T00:00:00Z")
            let calls = try e.feature("api_calls")
            return (try e.feature("coins").balance, calls, calls.overage)
        }
        let fifteen = try after(15)
        #expect(fifteen.coins == 0)
        #expect(fifteen.check.decision == .denied)
        #expect(fifteen.overage == 0)
        let sixteen = try after(16)
        #expect(sixteen.coins == 0)  // was 5: the coins could not pay for all 6, so they paid for none
        #expect(sixteen.check.decision == .denied)
        #expect(sixteen.overage == 1)
    }

    /// Two systems, neither covering the rest alone: each pays what it has for the whole units that
    /// buys, in declaration order; a remainder too small for a unit is spent toward the next.
    @Test func systemsPayInDeclarationOrderWhenNoneCoversTheRest() throws {
        let graph = compileGraph("""
            feature calls: metered
            credits gold { calls 1 = 3 }
            credits silver { calls 2 = 1 }
            entitlement free = everyone {
              grants calls 10 per month
              grants gold 10 per month
              grants silver 4 per month
            }
            """)
        // 25 calls: 10 from the grant; 15 left cost 45 gold (10 held) or 8 silver (4 held).
        // Gold pays its 10 for 3 calls (the 10th credit is spent toward a 4th); silver then needs 6
        // for the 12 left, has 4: pays them for 8 calls; 4 calls are overage.
        let e = try evaluate(graph, state(#"{"usage": [{"feature": "calls", "amount": 25, "at": "2026-11-10T00:00:00Z"}]}"#),
                             at: "2026-11-20T00:00:00Z")
        #expect(try e.feature("gold").balance == 0)
        #expect(try e.feature("silver").balance == 0)
        #expect(try e.feature("calls").overage == 4)
        // 21 calls: 11 left; neither covers them alone (33 gold, 6 silver). Gold pays its 10 for 3
        // calls; silver covers the other 8 in full with its 4: nothing is overage.
        let shared = try evaluate(graph, state(#"{"usage": [{"feature": "calls", "amount": 21, "at": "2026-11-10T00:00:00Z"}]}"#),
                                  at: "2026-11-20T00:00:00Z")
        #expect(try shared.feature("gold").balance == 0)
        #expect(try shared.feature("silver").balance == 0)
        #expect(try shared.feature("calls").overage == 0)
        // 15 calls: 5 left; gold cannot pay 15, silver covers them with 3: the first system that
        // covers the rest in full pays it, as a check would, and gold keeps its credits.
        let covered = try evaluate(graph, state(#"{"usage": [{"feature": "calls", "amount": 15, "at": "2026-11-10T00:00:00Z"}]}"#),
                                   at: "2026-11-20T00:00:00Z")
        #expect(try covered.feature("gold").balance == 10)
        #expect(try covered.feature("silver").balance == 1)
        #expect(try covered.feature("calls").overage == 0)
    }

    /// A grant with no known start (an override, a purchase without `purchased_at`) has no history
    /// to carry from: an earlier use never raises a later balance.
    @Test func aGrantWithNoKnownStartNeverCarries() throws {
        let graph = compileGraph("""
            product pro: non_consumable
            feature calls: metered
            entitlement plan = pro { grants calls 10 per month carry }
            """)
        for purchases in [#""overrides": {"pro": "purchased"}"#, #""purchases": [{"product": "pro"}]"#] {
            func balance(_ usage: String) throws -> Int64? {
                try evaluate(graph, state(#"{\#(purchases), "usage": [\#(usage)]}"#), at: "2026-11-20T00:00:00Z")
                    .feature("calls").balance
            }
            let late = #"{"feature": "calls", "amount": 3, "at": "2026-11-05T00:00:00Z"}"#
            #expect(try balance(late) == 7)
            // An early use added: once counted from it, its windows carried 10 a month into November.
            #expect(try balance(#"{"feature": "calls", "amount": 1, "at": "2025-01-05T00:00:00Z"}, "# + late) == 7)
        }
        // With a purchase date, carry counts from it.
        let dated = try evaluate(graph, state(#"{"purchases": [{"product": "pro", "purchased_at": "2026-09-01T00:00:00Z"}]}"#),
                                 at: "2026-11-20T00:00:00Z")
        #expect(try dated.feature("calls").balance == 30)
    }

    /// What paid for a use stays paid: a lapsed plan's uses are not charged again to a pack.
    @Test func aLapsedPlansUsesStayWithThePlan() throws {
        let graph = compileGraph("""
            product monthly: subscription { period month }
            product pack: non_consumable
            feature messages: metered
            entitlement plan = monthly { grants messages 300 per month }
            entitlement extra = pack { grants messages 500 }
            """)
        let purchases = #"""
            {"product": "monthly", "status": "expired", "purchased_at": "2026-10-01T00:00:00Z",
             "expires_at": "2026-11-01T00:00:00Z"},
            {"product": "pack", "purchased_at": "2026-09-01T00:00:00Z"}
            """#
        let usage = #"{"feature": "messages", "amount": 300, "at": "2026-10-15T00:00:00Z"}"#
        let e = try evaluate(graph, state(#"{"purchases": [\#(purchases)], "usage": [\#(usage)]}"#), at: "2026-11-20T00:00:00Z")
        let r = try e.feature("messages")
        #expect(r.balance == 500)
        #expect(r.overage == 0)
        // A pack bought after the use never paid for it: without the plan, the use was overage.
        let later = try evaluate(graph, state(#"{"purchases": [{"product": "pack", "purchased_at": "2026-10-20T00:00:00Z"}], "#
                                             + #""usage": [\#(usage)]}"#), at: "2026-11-20T00:00:00Z")
        #expect(try later.feature("messages").balance == 500)
        #expect(try later.feature("messages").overage == 300)
        // A refund takes back what it paid for: the use falls to the pack.
        let refunded = try evaluate(graph, state(#"{"purchases": [\#(purchases.replacingOccurrences(of: "expired", with: "revoked"))], "#
                                                 + #""usage": [\#(usage)]}"#), at: "2026-11-20T00:00:00Z")
        #expect(try refunded.feature("messages").balance == 200)
    }

    /// Ids are idempotency keys, unique per customer across features: a retry counts once, a
    /// reused id for another use counts, with a warning.
    @Test func aReusedIDForAnotherUseCountsAndWarns() throws {
        let graph = compileGraph("""
            feature calls: metered { event "call" }
            feature exports: metered
            entitlement free = everyone { grants calls 10; grants exports 10 }
            """)
        let e = try evaluate(graph, state(#"""
            {"usage": [
              {"feature": "calls", "amount": 3, "id": "r1"},
              {"event": "call", "amount": 3, "id": "r1"},
              {"feature": "calls", "amount": 4, "id": "r1"},
              {"feature": "exports", "amount": 3, "id": "r1"}
            ]}
            """#), at: "2026-11-20T00:00:00Z")
        #expect(try e.feature("calls").balance == 3)  // 3, the retry not, 4 counted
        #expect(try e.feature("exports").balance == 7)
        #expect(e.ruleSetWarnings.map(\.description) == [
            #"usage[2].id: "r1" was used for usage[0] (calls, amount 3); ids are unique per customer, so this record counts as another use"#,
            #"usage[3].id: "r1" was used for usage[0] (calls, amount 3); ids are unique per customer, so this record counts as another use"#,
        ])
        #expect(throws: EvaluationError(#"usage[2].id: "r1" was used for usage[0] (calls, amount 3); ids are unique per customer, "#
                                        + "so this record counts as another use")) {
            try Evaluation(graph: graph, state: e.state, at: e.at, strict: true)
        }
    }

    /// A consume dated before an already recorded use never pushes that one over the limit.
    @Test func aConsumeDatedEarlierCannotSpendTheLastUnitTwice() throws {
        let graph = compileGraph("""
            feature calls: metered
            entitlement free = everyone { grants calls 5 per month }
            """)
        let tracker = JSONPurchaseTracker(state(#"{"usage": [{"feature": "calls", "amount": 4, "at": "2026-11-01T00:00:00Z"}]}"#))
        let evaluator = Evaluator(graph: graph, tracker: tracker)
        #expect(try evaluator.consume(feature: "calls", at: instant("2026-11-20T00:00:00Z")).allowed)
        let earlier = try evaluator.consume(feature: "calls", at: instant("2026-11-10T00:00:00Z"))
        #expect(earlier.decision == .denied)
        #expect(earlier.reason == "recording 1 unit at 2026-11-10T00:00:00Z would leave usage[1] (at 2026-11-20T00:00:00Z) uncovered")
        #expect(tracker.snapshot.usage.count == 2)
        // The same id for another use is an error, and records nothing.
        _ = try evaluator.consume(feature: "calls", amount: 1, id: "k", at: instant("2026-12-02T00:00:00Z"))
        #expect(throws: EvaluationError(#"idempotency key "k" was used for usage[2] (calls, amount 1)"#)) {
            try evaluator.consume(feature: "calls", amount: 2, id: "k", at: instant("2026-12-03T00:00:00Z"))
        }
        #expect(tracker.snapshot.usage.count == 3)
    }

    /// An undated record counts whenever the state is read: a use recorded beside it can leave it
    /// uncovered later (here once the lot that paid for one of them lapses, the free grant being
    /// spent by the use dated earlier), so such a consume is refused, naming the record. It was
    /// allowed, and the state showed overage 5 from 2026-11-03 on where it had none.
    @Test func aUseBesideAnUndatedRecordIsRefused() throws {
        let graph = compileGraph("""
            product pack: consumable { grants calls 5 expires after 2 days priority 1 }
            feature calls: metered
            feature other: metered
            entitlement free = everyone { grants calls 5; grants other 5 }
            """)
        let json = #"{"purchases": [{"product": "pack", "purchased_at": "2026-11-01T00:00:00Z"}], "usage": [{"feature": "calls", "amount": 5}]}"#
        let at = instant("2026-11-02T00:00:00Z")
        let d = try Consumption.decide(graph: graph, state: state(json), environment: nil, feature: "calls", amount: 5,
                                       id: nil, at: at)
        #expect(d.record == nil)
        #expect(d.result.decision == .denied)
        #expect(d.result.reason == "recording 5 units at 2026-11-02T00:00:00Z would leave usage[0] uncovered when the "
                + "state is read at 2026-11-03T00:00:00Z: it has no instant (`at`), so it counts whenever the state is "
                + "read; give it the instant it was made")
        // Recorded, it would have: the overage read later, with and without the use.
        var with = state(json)
        with.usage.append(UsageRecord(feature: "calls", kind: .amount(5), at: at))
        let later = instant("2026-11-10T00:00:00Z")
        #expect(try Evaluation(graph: graph, state: state(json), at: later).feature("calls").overage == 0)
        #expect(try Evaluation(graph: graph, state: with, at: later).feature("calls").overage == 5)
        // Dated, the record is replayed where it stands: the use is recorded.
        let dated = json.replacingOccurrences(of: #""amount": 5}"#, with: #""amount": 5, "at": "2026-11-01T12:00:00Z"}"#)
        #expect(try Consumption.decide(graph: graph, state: state(dated), environment: nil, feature: "calls", amount: 5,
                                       id: nil, at: at).record != nil)
        // An undated record of a feature no grant of this one pays for does not stand in the way.
        let elsewhere = json.replacingOccurrences(of: #""feature": "calls""#, with: #""feature": "other""#)
        #expect(try Consumption.decide(graph: graph, state: state(elsewhere), environment: nil, feature: "calls",
                                       amount: 5, id: nil, at: at).record != nil)
        // Nor one whose grants never change by themselves (`other`: a lifetime grant, nothing to come).
        let lifetime = #"{"usage": [{"feature": "other", "amount": 2}]}"#
        #expect(try Consumption.decide(graph: graph, state: state(lifetime), environment: nil, feature: "other",
                                       amount: 3, id: nil, at: at).record != nil)
        #expect(try Consumption.decide(graph: graph, state: state(lifetime), environment: nil, feature: "other",
                                       amount: 4, id: nil, at: at).result.reason == "3 units left, 4 needed")
    }

    /// The use leaves a trace while a grant it took from is not a candidate: the grant to the
    /// customer (`promo`) pays in February, then a purchase stands for the entitlement from March to
    /// May, and from May on `promo` is back with the use still on it, the lot gone: the undated 60
    /// is uncovered in June (overage 60; the check had stopped in March, the grant out of sight).
    /// And the records dated later that count are those of the feature's own grants and credit
    /// systems, not of another feature's.
    @Test func anUndatedRecordIsReadUntilTheUseLeavesNoTrace() throws {
        let graph = compileGraph("""
            product pro: subscription { period month }
            feature calls: metered
            feature other: metered
            entitlement plan = pro { grants calls 100; grants other 1000 }
            """)
        let json = #"{"purchases": [{"product": "pro", "purchased_at": "2026-03-01T00:00:00Z", "#
            + #""expires_at": "2026-05-01T00:00:00Z"}], "grants": [{"entitlement": "plan", "from": "#
            + #""2026-01-01T00:00:00Z", "until": "2026-12-01T00:00:00Z", "id": "promo"}, {"feature": "calls", "#
            + #""amount": 60, "from": "2026-01-01T00:00:00Z", "until": "2026-04-01T00:00:00Z", "priority": 1, "#
            + #""id": "lot"}], "usage": [{"feature": "calls", "amount": 60}]}"#
        let d = try Consumption.decide(graph: graph, state: state(json), environment: nil, feature: "calls",
                                       amount: 100, id: nil, at: instant("2026-02-10T00:00:00Z"))
        #expect(d.record == nil)
        #expect(d.result.reason == "recording 100 units at 2026-02-10T00:00:00Z would leave usage[0] uncovered when "
                + "the state is read at 2026-05-01T00:00:00Z: it has no instant (`at`), so it counts whenever the "
                + "state is read; give it the instant it was made")
        // Seventeen uses of `other` dated later, and an undated one of `calls`: a use of `calls` that
        // leaves no trace past its month is recorded.
        let others = (1...17).map { #"{"feature": "other", "amount": 1, "at": "2026-03-\#($0 + 10)T00:00:00Z"}"# }
        let monthly = compileGraph("""
            product pro: subscription { period month }
            feature calls: metered
            feature other: metered
            entitlement plan = pro { grants calls 100 per month; grants other 1000 per month }
            """)
        let busy = #"{"purchases": [{"product": "pro", "purchased_at": "2026-01-01T00:00:00Z"}], "usage": "#
            + "[{\"feature\": \"calls\", \"amount\": 1}, " + others.joined(separator: ", ") + "]}"
        #expect(try Consumption.decide(graph: monthly, state: state(busy), environment: nil, feature: "calls",
                                       amount: 1, id: nil, at: instant("2026-03-10T00:00:00Z")).record != nil)
        // A use a lot pays, beside an undated record: once the lot has lapsed, its ledger pays for
        // nothing, and what it keeps of the use is no trace (it was refused, unsettled).
        let free = compileGraph("feature calls: metered\nentitlement free = everyone { grants calls 10 per month }")
        let lot = #"{"customer_since": "2026-01-01T00:00:00Z", "grants": [{"feature": "calls", "amount": 20, "#
            + #""from": "2026-03-01T00:00:00Z", "until": "2026-03-10T00:00:00Z", "id": "lot"}], "usage": "#
            + #"[{"feature": "calls", "amount": 3}]}"#
        #expect(try Consumption.decide(graph: free, state: state(lot), environment: nil, feature: "calls", amount: 8,
                                       id: nil, at: instant("2026-03-05T00:00:00Z")).record != nil)
    }

    /// Fail closed: a use that a lifetime grant keeps the trace of while the free grant's windows
    /// keep turning is not settled within 16 readings, and is refused, saying so.
    @Test func aTraceThatStaysIsNotSettled() throws {
        let graph = compileGraph("""
            product pack: consumable { grants calls 100 }
            feature calls: metered
            entitlement free = everyone { grants calls 10 per month }
            """)
        let json = #"{"purchases": [{"product": "pack", "purchased_at": "2026-01-02T00:00:00Z"}], "#
            + #""usage": [{"feature": "calls", "amount": 1}]}"#
        let d = try Consumption.decide(graph: graph, state: state(json), environment: nil, feature: "calls",
                                       amount: 20, id: nil, at: instant("2026-03-10T00:00:00Z"))
        #expect(d.record == nil)
        #expect(d.result.reason == "recording 20 units at 2026-03-10T00:00:00Z could leave usage[0] uncovered later, "
                + "and reading the state 16 times after it did not settle it: it has no instant (`at`), so it counts "
                + "whenever the state is read; give it the instant it was made")
    }

    /// §2 rule 11 and §3: a purchase dated after `t` does not exist yet; an inactive entitlement never
    /// reports a date after `t`.
    @Test func aPurchaseDatedLaterIsNotThereYet() throws {
        let graph = compileGraph("""
            product monthly: subscription { period month }
            entitlement pro = monthly
            """)
        let e = try evaluate(graph, state(#"""
            {"purchases": [{"product": "monthly", "purchased_at": "2026-12-01T00:00:00Z", "expires_at": "2027-01-01T00:00:00Z"}]}
            """#), at: "2026-11-20T00:00:00Z")
        let r = try e.entitlement("pro")
        #expect(r.decision == .denied)
        #expect(r.status == .neverPurchased)
        #expect(r.expiresAt == nil)
        #expect(r.product == nil)
        #expect(r.validUntil == instant("2026-12-01T00:00:00Z"))
        // A refund of a purchase whose period had not ended: revoked, and no end after `t`.
        let refunded = try evaluate(graph, state(#"""
            {"purchases": [{"product": "monthly", "status": "revoked", "purchased_at": "2026-11-01T00:00:00Z",
                            "expires_at": "2026-12-01T00:00:00Z"}]}
            """#), at: "2026-11-20T00:00:00Z").entitlement("pro")
        #expect(refunded.status == .revoked)
        #expect(refunded.expiresAt == nil)
        #expect(refunded.validUntil == instant("2026-12-01T00:00:00Z"))
    }

    /// Overage stays what it was once an unlimited grant comes: hard-limit use is billed and a
    /// consume dated before it cannot hide behind it.
    @Test func overageStaysOnceAnUnlimitedGrantComes() throws {
        let graph = compileGraph("""
            product pro: subscription { period month }
            feature calls: metered
            entitlement free = everyone { grants calls 5 }
            entitlement unl = pro { grants calls unlimited }
            """)
        let tracker = JSONPurchaseTracker(state(#"""
            {"purchases": [{"product": "pro", "purchased_at": "2026-11-15T00:00:00Z", "expires_at": "2026-12-15T00:00:00Z"}],
             "usage": [{"feature": "calls", "amount": 5, "at": "2026-11-10T00:00:00Z"},
                       {"feature": "calls", "amount": 1, "at": "2026-11-20T00:00:00Z"}]}
            """#))
        let evaluator = Evaluator(graph: graph, tracker: tracker)
        // Before `pro` there were 5; the use of the 10th took them all: none left on the 5th.
        let earlier = try evaluator.consume(feature: "calls", at: instant("2026-11-05T00:00:00Z"))
        #expect(earlier.decision == .denied)
        #expect(tracker.snapshot.usage.count == 2)
        let after = try evaluate(graph, tracker.snapshot, at: "2026-11-25T00:00:00Z").feature("calls")
        #expect((after.unlimited, after.overage) == (true, 0))
        // Usage beyond the 5 before `pro` came stays overage, unlimited or not.
        var over = tracker.snapshot
        over.usage[0].kind = .amount(7)
        #expect(try evaluate(graph, over, at: "2026-11-25T00:00:00Z").feature("calls").overage == 2)
    }

    /// A retry is answered as the first call was — allowed, since only an allowed use is recorded —
    /// even when the state has changed since.
    @Test func aRetryIsAllowedAfterThePlanChanged() throws {
        let graph = compileGraph("""
            product monthly: subscription { period month }
            feature calls: metered
            entitlement plan = monthly { grants calls 10 per month }
            """)
        let purchase = #"{"product": "monthly", "purchased_at": "2026-11-01T00:00:00Z", "expires_at": "2026-12-01T00:00:00Z"}"#
        let tracker = JSONPurchaseTracker(state(#"{"purchases": [\#(purchase)]}"#))
        let evaluator = Evaluator(graph: graph, tracker: tracker)
        #expect(try evaluator.consume(feature: "calls", id: "r1", at: instant("2026-11-30T23:00:00Z")).allowed)
        tracker.modify { $0.purchases[0].status = .revoked }
        let retry = try evaluator.consume(feature: "calls", id: "r1", at: instant("2026-12-01T00:30:00Z"))
        #expect((retry.decision, retry.replayed) == (.allowed, true))
        // Its reason says the state has changed (a review: it read as a plain replay, beside a
        // balance the first call never saw).
        #expect(retry.reason == "recorded as usage[0] at 2026-11-30T23:00:00Z: a retry, nothing recorded again; the "
                + "state has changed since (checked now, the use would not be allowed: the figures are of the state as it is)")
        #expect(retry.balance == 0)
        #expect(tracker.snapshot.usage.count == 1)
    }

    /// Usage records carry no environment: a use is recorded only in the state's own.
    @Test func aUseIsRecordedOnlyInTheStatesEnvironment() throws {
        let graph = compileGraph("feature calls: metered\nentitlement free = everyone { grants calls 5 }")
        #expect(throws: EvaluationError("the state's environment is live: a use recorded while evaluating test would "
                                        + "count in live too")) {
            try Consumption.decide(graph: graph, state: PurchaseState(), environment: .test, feature: "calls", amount: 1,
                                   id: nil, at: instant("2026-11-20T00:00:00Z"))
        }
        let test = PurchaseState(environment: .test)
        #expect(try Consumption.decide(graph: graph, state: test, environment: .test, feature: "calls", amount: 1, id: nil,
                                       at: instant("2026-11-20T00:00:00Z")).record != nil)
    }

    /// A record that reuses an id and names nothing is reported twice: as naming nothing, and as a
    /// reused id; a plain retry of it is not reported again.
    @Test func aReusedIDNamingNothingWarns() throws {
        let graph = compileGraph("feature api_calls: metered\nentitlement free = everyone { grants api_calls 5 }")
        let e = try evaluate(graph, state(#"""
            {"usage": [{"feature": "api_calls", "amount": 5, "id": "k1"}, {"feature": "api_cals", "amount": 5, "id": "k1"},
                       {"feature": "nothing", "amount": 1, "id": "k2"}, {"feature": "nothing", "amount": 1, "id": "k2"}]}
            """#), at: "2026-11-20T00:00:00Z")
        #expect(e.ruleSetWarnings.map(\.description) == [
            #"usage[1].feature: no feature, credit system or event "api_cals" in the rules (did you mean `api_calls`?)"#,
            #"usage[1].id: "k1" was used for usage[0] (api_calls, amount 5); ids are unique per customer, so this "#
                + "record counts as another use",
            #"usage[2].feature: no feature, credit system or event "nothing" in the rules"#,
        ])
    }
}
