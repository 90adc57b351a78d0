import EntlTestSupport
import Foundation
import Testing

/// A consume never spends a purchase whose status has already ended it before its dates do: read
/// later, the use's instant is a past one within those dates, when it was owned (what paid for a
/// use stays paid), so the use would fall on it while the check counted other grants — and those
/// would stay unspent, use after use (docs/ledger.md, "Recording a use").
@Suite struct ConsumeEndedPurchaseTests {
    static let rules = """
    product pro: subscription { period month }
    product pack: consumable
    feature calls: metered { unit "call" / "calls" }
    entitlement plan = pro { grants calls 100 per month }
    entitlement packs = pack { grants calls 50 per month }
    entitlement free = everyone { grants calls 5 per month }
    """

    func run(_ purchase: String, usage: String = "", times: Int) throws -> (allowed: Int, last: CommandResult) {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.rules.write(toFile: dir + "/rules.entl", atomically: true, encoding: .utf8)
        let state = #"{"customer": "c", "purchases": [\#(purchase)], "usage": [\#(usage)]}"#
        try state.write(toFile: dir + "/state.json", atomically: true, encoding: .utf8)
        var allowed = 0
        var last: CommandResult?
        for i in 0..<times {
            let at = "2026-11-10T00:00:\(10 + i)Z"
            let r = try runEntlc(["eval", "rules.entl", "--state", "state.json", "--feature", "calls", "--amount", "5",
                                  "--consume", "--at", at], directory: dir)
            #expect(r.status == 0 || r.status == 1, "\(r.stderr)")
            if r.status == 0 { allowed += 1 }
            last = r
        }
        return (allowed, last!)
    }

    @Test func anExpiredPlanWithItsDatesAheadPaysForNothingNew() throws {
        let (allowed, last) = try run(#"{"product": "pro", "status": "expired", "purchased_at": "2026-10-01T00:00:00Z", "#
                                      + #""expires_at": "2026-12-01T00:00:00Z"}"#, times: 4)
        // Before: every consume said "5 of 5 left via free" and was charged to the plan (105 calls
        // in 31 tries). Fail closed: the plan would pay first, so none is recorded.
        #expect(allowed == 0)
        #expect(last.stdout.contains("recording 5 calls at 2026-11-10T00:00:13Z would be charged to purchases[0] (`pro`): "
                                     + "its status `expired` has ended it, but once 2026-11-10T00:00:13Z is in the past "
                                     + "it is within its dates (until 2026-12-01T00:00:00Z); give it the instant it "
                                     + "ended as its expires_at"), "\(last.stdout)")
    }

    /// Uses at one instant, paid by a grant that comes before an ended plan: each is recorded (a
    /// review: the second was refused — the first made the check's `valid_until` a nanosecond later,
    /// read as "something changes where what pays cannot be read" — so a tracker with second-resolution
    /// timestamps, or a state's fixed `now`, could record one use only). Once that grant is spent,
    /// the ended plan (not owned now) leaves none.
    @Test func usesAtOneInstantAreRecordedWhileAGrantBeforeTheEndedPlanPays() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try """
        feature calls: metered { unit "call" / "calls" }
        product pro: subscription { period month }
        entitlement free = everyone { grants calls 3 per month }
        entitlement plan = pro { grants calls 100 per month }
        """.write(toFile: dir + "/rules.entl", atomically: true, encoding: .utf8)
        try (#"{"purchases": [{"product": "pro", "status": "expired", "purchased_at": "2026-11-01T00:00:00Z", "#
             + #""expires_at": "2026-12-01T00:00:00Z"}]}"#).write(toFile: dir + "/state.json", atomically: true, encoding: .utf8)
        var outputs: [String] = []
        for _ in 0..<4 {
            let r = try runEntlc(["eval", "rules.entl", "--state", "state.json", "--feature", "calls", "--consume",
                                  "--at", "2026-11-10T00:00:10Z"], directory: dir)
            outputs.append("\(r.status) " + r.stdout.prefix { $0 != "\n" })
        }
        #expect(outputs == ["0 calls: allowed — 3 of 3 calls left this month (1 needed)",
                            "0 calls: allowed — 2 of 3 calls left this month (1 needed)",
                            "0 calls: allowed — 1 of 3 calls left this month (1 needed)",
                            "1 calls: denied — 0 of 3 calls left this month (1 needed)"])
    }

    @Test func aPlanEndedAtItsInstantLeavesTheFreeAllowance() throws {
        // The same plan with the instant it ended: the free grant pays, once.
        let (allowed, _) = try run(#"{"product": "pro", "status": "expired", "purchased_at": "2026-10-01T00:00:00Z", "#
                                   + #""expires_at": "2026-11-05T00:00:00Z"}"#, times: 3)
        #expect(allowed == 1)
    }

    @Test func anExpiredConsumableIsNotSpentAgain() throws {
        let (allowed, last) = try run(#"{"product": "pack", "status": "expired", "purchased_at": "2026-10-01T00:00:00Z"}"#,
                                      times: 3)
        #expect(allowed == 0)
        #expect(last.stdout.contains("would be charged to purchases[0] (`pack`): its status `expired` has ended it, but "
                                     + "once 2026-11-10T00:00:12Z is in the past its units were held then"), "\(last.stdout)")
    }

    /// The overage variant: a use dated before one already recorded, which the ended plan would pay.
    @Test func aUseBeforeARecordedOneNeverCreatesOverage() throws {
        let (allowed, _) = try run(#"{"product": "pro", "status": "billing_retry", "#
                                   + #""purchased_at": "2026-10-01T00:00:00Z", "expires_at": "2026-12-01T00:00:00Z"}"#,
                                   usage: #"{"feature": "calls", "amount": 5, "at": "2026-11-20T00:00:00Z"}"#, times: 2)
        #expect(allowed == 0)
    }

    /// The guard reads the state a nanosecond later; what it must not refuse there (a review's
    /// findings): an undated record, which counts at whatever instant a state is read, is read
    /// where the check read it; a use in the last nanosecond of a window is refused with that
    /// reason (fail closed at that instant only); a refusal of a use credits would pay says why.
    @Test func whatTheRereadingMustNotRefuse() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rules = """
        product pro: subscription { period month }
        feature calls: metered { unit "call" / "calls" }
        credits coins { calls 2 = 1 }
        entitlement plan = pro { grants calls 100 per month }
        entitlement free = everyone {
          grants calls 10 per month
          grants coins 10 per month
        }
        """
        try rules.write(toFile: dir + "/rules.entl", atomically: true, encoding: .utf8)
        func consume(_ state: String, amount: Int, at: String) throws -> CommandResult {
            try state.write(toFile: dir + "/state.json", atomically: true, encoding: .utf8)
            return try runEntlc(["eval", "rules.entl", "--state", "state.json", "--feature", "calls",
                                 "--amount", String(amount), "--consume", "--at", at], directory: dir)
        }
        let ended = #"{"product": "pro", "status": "expired", "purchased_at": "2026-08-01T00:00:00Z", "#
            + #""expires_at": "2026-09-01T00:00:00Z"}"#
        let undated = try consume(#"{"purchases": [\#(ended)], "usage": [{"feature": "calls", "amount": 11}]}"#,
                                  amount: 1, at: "2026-11-10T00:00:00Z")
        #expect(undated.status == 0, "\(undated.stdout)")
        #expect(undated.stdout.hasPrefix("calls: allowed via credits — 0 of 10 calls left this month (1 needed); "
                                         + "1 credits from coins (9 held)\n"))
        let running = #"{"product": "pro", "status": "expired", "purchased_at": "2026-10-01T00:00:00Z", "#
            + #""expires_at": "2026-12-01T00:00:00Z"}"#
        let last = try consume(#"{"purchases": [\#(running)]}"#, amount: 2, at: "2026-11-30T23:59:59.999999999Z")
        #expect(last.status == 1)
        #expect(last.stdout.contains("  recording 2 calls at 2026-11-30T23:59:59.999999999Z, a nanosecond before "
                                     + "2026-12-01T00:00:00Z, where what pays for it cannot be read: record it at "
                                     + "2026-12-01T00:00:00Z or later\n"), "\(last.stdout)")
        // A purchase whose dates ended long before the use cannot be charged for it: recorded.
        let past = try consume(#"{"purchases": [\#(ended)]}"#, amount: 2, at: "2026-11-30T23:59:59.999999999Z")
        #expect(past.status == 0, "\(past.stdout)")
        let credits = try consume(#"{"purchases": [\#(running)]}"#, amount: 12, at: "2026-11-10T00:00:00Z")
        #expect(credits.status == 1)
        #expect(credits.stdout.contains("  recording 12 calls at 2026-11-10T00:00:00Z would be charged to "
                                        + "purchases[0] (`pro`)"), "\(credits.stdout)")
    }

    /// Read at a later record's own instant, that record is a use of now (an ended plan does not pay
    /// it) while an earlier one is a past use (the plan paid it): a use recorded before it must not
    /// leave overage there either (a second review's finding: overage 1 at 2026-11-20T00:00:00Z).
    @Test func aUseBeforeARecordIsReadAtThatRecordsInstantToo() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try """
        product pro: subscription { period month }
        feature calls: metered
        entitlement free = everyone { grants calls 5 }
        entitlement plan = pro { grants calls 5 priority 1 }
        """.write(toFile: dir + "/rules.entl", atomically: true, encoding: .utf8)
        let state = #"{"purchases": [{"product": "pro", "status": "expired", "purchased_at": "2026-11-01T00:00:00Z", "#
            + #""expires_at": "2026-12-01T00:00:00Z"}], "usage": [{"feature": "calls", "amount": 5, "#
            + #""at": "2026-11-20T00:00:00Z"}]}"#
        try state.write(toFile: dir + "/state.json", atomically: true, encoding: .utf8)
        let r = try runEntlc(["eval", "rules.entl", "--state", "state.json", "--feature", "calls", "--consume",
                              "--at", "2026-11-10T00:00:00Z"], directory: dir)
        #expect(r.status == 1)
        #expect(r.stdout.contains("recording 1 unit at 2026-11-10T00:00:00Z would leave usage[0] "
                                  + "(at 2026-11-20T00:00:00Z) uncovered"), "\(r.stdout)")
    }

    /// A credit cost past 64 bits (saturated) is paid by no finite balance, even one saturated too.
    @Test func aCostPast64BitsIsNotPaidByASaturatedBalance() throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try """
        product pack: consumable { grants coins 1_000_000_000_000_000 }
        feature calls: metered
        credits coins { calls 1 = 1_000_000_000_000_000 }
        """.write(toFile: dir + "/rules.entl", atomically: true, encoding: .utf8)
        try #"{"purchases": [{"product": "pack", "purchased_at": "2026-11-01T00:00:00Z", "quantity": 10000}]}"#
            .write(toFile: dir + "/state.json", atomically: true, encoding: .utf8)
        let r = try runEntlc(["eval", "rules.entl", "--state", "state.json", "--feature", "calls", "--consume",
                              "--amount", "1000000000000000", "--at", "2026-11-10T00:00:00Z"], directory: dir)
        #expect(r.status == 1, "\(r.stdout)")
        #expect(r.stdout.hasPrefix("calls: denied"))
        #expect(try String(contentsOfFile: dir + "/state.json", encoding: .utf8).contains(#""usage""#) == false)
    }
}
