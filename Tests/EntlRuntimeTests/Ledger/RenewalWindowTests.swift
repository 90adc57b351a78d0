import EntlCompiler
import EntlRuntime
import EntlSyntax
import EntlTestSupport
import Foundation
import Testing

/// A renewal moves a subscription's `period_start`; it must not move the windows of its grants
/// (§5: windows are anchored where the purchase began). Anchored at `period_start`, a yearly
/// allowance on a monthly plan came back whole at every renewal, and a month anchored on the 31st
/// reset on the 28th after February, then turned uses already allowed into overage.
@Suite struct RenewalWindowTests {
    static let cases = Int(ProcessInfo.processInfo.environment["ENTLC_PROPERTY_CASES"] ?? "") ?? 300

    /// The graph of `rules` (one environment), and an instant written out.
    func graph(_ rules: String) throws -> RuleGraph {
        try #require(Compiler.compile([SourceFile(path: "r.entl", text: rules)], lint: false).graph)
    }

    func instant(_ text: String) throws -> Instant { try #require(Instant(rfc3339: text)) }

    /// A subscriber renewed as a store renews (each period computed from the first, the day
    /// clamped; now and then a renewal a few days late, which moves the cycle), who asks for one
    /// more unit at many instants and records it when allowed: each window of the grant, laid from
    /// `purchased_at`, holds at most the allowance, and after every renewal nothing is overage.
    /// Half the subscribers hold a second subscription to the plan, bought days later and renewed
    /// on its own days (the one lasting longest changes at their renewals): the first bought pays.
    @Test func aRenewalNeverGivesAnAllowanceAnewNorCreatesOverage() throws {
        var random = SeededRandom(seed: 20_261_128)
        let day: Int64 = 86_400
        var checked = 0
        for round in 0..<max(1, Self.cases / 10) {
            let period = random.pick(["week", "month", "year"])
            let interval = random.pick(["day", "week", "month", "quarter", "year"])
            let allowance = Int64(random.int(1...4))
            let rules = """
                product pro: subscription { period \(period) }
                feature calls: metered
                entitlement plan = pro { grants calls \(allowance) per \(interval) }
                """
            let graph = try graph(rules)
            // Bought on a day late in a month (2026-01-28 … 31, 2028-02-29) at some time of day.
            let bought = random.pick([1_769_558_400, 1_769_644_800, 1_769_731_200, 1_769_817_600, 1_835_395_200])
                + random.int64(0...(day - 1))
            let step = ReferenceStep(interval: period), window = ReferenceStep(interval: interval)
            // The periods: each from the first (day clamped), some renewed late (the cycle moves).
            func periods(from bought: Int64) -> [(start: Int64, end: Int64)] {
                var periods: [(start: Int64, end: Int64)] = []
                var start = bought, k = 1
                while start < bought + 400 * day {
                    let late = random.chance(0.15) ? random.int64(1...5) * day : 0
                    let end = ReferenceCalendar.add(bought, step, times: k) + late
                    periods.append((start, end))
                    (start, k) = (end, k + 1)
                }
                return periods
            }
            let second = random.chance(0.5) ? bought + random.int64(1...20) * day : nil
            let purchases = [periods(from: bought)] + (second.map { [periods(from: $0)] } ?? [])
            var state = PurchaseState()
            state.purchases = ([bought] + (second.map { [$0] } ?? [])).map {
                Purchase(product: "pro", status: .active, purchasedAt: Instant(seconds: $0))
            }
            let instants = (0..<40).map { _ in bought + random.int64(0...(380 * day)) }.sorted()
            for (n, t) in instants.enumerated() {
                guard purchases[0].contains(where: { $0.start <= t && t < $0.end }) else { continue }
                for (j, periods) in purchases.enumerated() {
                    // A purchase dated later does not exist yet: its first period stands until then.
                    guard let current = periods.first(where: { $0.start <= t && t < $0.end }) ?? periods.first
                    else { continue }
                    state.purchases[j].periodStart = Instant(seconds: current.start)
                    state.purchases[j].expiresAt = Instant(seconds: current.end)
                }
                let at = Instant(seconds: t)
                let e = try Evaluation(graph: graph, state: state, environment: .live, at: at)
                let result = e.feature(0, required: 1)
                #expect(result.overage ?? 0 == 0, "round \(round): overage \(result.overage ?? 0) after a renewal at \(at)")
                if result.allowed {
                    state.usage.append(UsageRecord(feature: "calls", kind: .amount(1), at: at, id: "u\(n)"))
                }
                checked += 1
            }
            // Each window laid from `purchased_at` holds at most the allowance.
            var k2 = 0
            while ReferenceCalendar.add(bought, window, times: k2) < bought + 400 * day {
                let (from, to) = (ReferenceCalendar.add(bought, window, times: k2),
                                  ReferenceCalendar.add(bought, window, times: k2 + 1))
                let used = state.usage.count { $0.at.map { from <= $0.seconds && $0.seconds < to } ?? false }
                #expect(used <= allowance, "round \(round): \(used) used in the window from \(Instant(seconds: from))")
                k2 += 1
            }
        }
        #expect(checked > 1_000)
    }

    /// Two subscriptions behind one entitlement, renewing on the 1st and on the 15th: the one
    /// lasting longest changes at each renewal, and when it paid for the entitlement's grants each
    /// change laid the windows anew — 300 calls allowed from January 20 to February 16 on 100 a
    /// month, and 100 of them overage after the next renewal (a review). The one bought first pays.
    @Test func twoSubscriptionsRenewingInTurnPayThroughTheOneBoughtFirst() throws {
        let graph = try graph("""
            product monthly: subscription { period month }
            feature calls: metered
            entitlement pro = monthly { grants calls 100 per month }
            """)
        func purchase(_ bought: String, _ start: String, _ end: String) throws -> Purchase {
            Purchase(product: "monthly", status: .active, purchasedAt: try instant(bought),
                     periodStart: try instant(start), expiresAt: try instant(end))
        }
        var state = PurchaseState()
        state.purchases = [try purchase("2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"),
                           try purchase("2026-01-15T00:00:00Z", "2026-01-15T00:00:00Z", "2026-02-15T00:00:00Z")]
        var allowed: [Bool] = []
        for (n, at) in ["2026-01-20T00:00:00Z", "2026-02-02T00:00:00Z", "2026-02-16T00:00:00Z"].enumerated() {
            if n == 1 { state.purchases[0] = try purchase("2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z",
                                                          "2026-03-01T00:00:00Z") }
            if n == 2 { state.purchases[1] = try purchase("2026-01-15T00:00:00Z", "2026-02-15T00:00:00Z",
                                                          "2026-03-15T00:00:00Z") }
            let e = try Evaluation(graph: graph, state: state, environment: .live, at: try instant(at))
            let result = e.feature(0, required: 100)
            allowed.append(result.allowed)
            #expect(result.overage == 0)
            if result.allowed {
                state.usage.append(UsageRecord(feature: "calls", kind: .amount(100), at: try instant(at), id: "u\(n)"))
            }
        }
        // January's window, then February's (from the 1st): the third is February's second 100.
        #expect(allowed == [true, true, false])
        let after = try Evaluation(graph: graph, state: state, environment: .live, at: try instant("2026-02-16T00:00:01Z"))
        #expect(after.feature(0, required: 1).overage == 0)
    }

    /// An upgrade on the same row (an App Store subscription group, a Stripe price change: the
    /// product changes, `purchased_at` stays) goes on with the entitlement's grant instance in a
    /// compacted state as in the full history: its ledger had been dropped (the purchase it named
    /// had another product now), a fresh allowance (a review).
    @Test func anUpgradeOnTheSameRowKeepsItsLedgerAfterCompaction() throws {
        let graph = try graph("""
            product monthly: subscription { period month; id app_store "com.x.monthly" }
            product annual: subscription { period year; id app_store "com.x.annual" }
            feature calls: metered
            entitlement pro = monthly or annual { grants calls 100 per month }
            """)
        var state = PurchaseState()
        state.purchases = [Purchase(product: "com.x.monthly", store: "app_store", status: .active,
                                    purchasedAt: try instant("2026-01-31T10:00:00Z"),
                                    periodStart: try instant("2026-03-31T10:00:00Z"),
                                    expiresAt: try instant("2026-04-30T10:00:00Z"))]
        state.usage = [UsageRecord(feature: "calls", kind: .amount(90), at: try instant("2026-04-02T00:00:00Z"), id: "a")]
        var compacted = try LedgerCompaction.compact(graph: graph, state: state,
                                                     before: try instant("2026-04-05T00:00:00Z"), environment: nil).state
        func upgrade(_ s: inout PurchaseState) throws {
            s.purchases[0].product = "com.x.annual"
            s.purchases[0].periodStart = try instant("2026-04-15T10:00:00Z")
            s.purchases[0].expiresAt = try instant("2027-04-15T10:00:00Z")
        }
        try upgrade(&state)
        try upgrade(&compacted)
        let at = try instant("2026-04-20T00:00:00Z")
        let full = try Evaluation(graph: graph, state: state, environment: .live, at: at).feature(0, required: 1)
        let folded = try Evaluation(graph: graph, state: compacted, environment: .live, at: at)
        #expect(full.balance == 10)
        #expect(folded.feature(0, required: 1).balance == 10)
        #expect(folded.warnings.isEmpty, "\(folded.warnings)")
    }

    /// A subscription without `purchased_at` has its windows laid from `period_start`, which each
    /// renewal moves: said, where its grants have windows (a review: silent, the very leak the
    /// anchor at `purchased_at` closes).
    @Test func aSubscriptionWithoutItsPurchaseDateIsWarnedAbout() throws {
        func rules(_ grant: String) -> String {
            "product pro: subscription { period month }\nfeature calls: metered\n"
                + "entitlement plan = pro { grants calls \(grant) }\n"
        }
        var state = PurchaseState()
        state.purchases = [Purchase(product: "pro", status: .active, periodStart: try instant("2026-02-28T10:00:00Z"),
                                    expiresAt: try instant("2026-03-31T10:00:00Z"))]
        let at = try instant("2026-03-01T00:00:00Z")
        let windowed = try Evaluation(graph: try graph(rules("100 per month")), state: state, environment: .live, at: at)
        #expect(windowed.warnings.map(\.description) == [
            "purchases[0].purchased_at: without `purchased_at`, the windows of the grants this subscription pays are "
                + "laid from its `period_start`, which each renewal moves: a renewal would lay them anew (give "
                + "`purchased_at`: a renewal keeps it)",
        ])
        let lifetime = try Evaluation(graph: try graph(rules("100")), state: state, environment: .live, at: at)
        #expect(lifetime.warnings.isEmpty)
    }

    /// The review's case: a month anchored on January 31 whose second period starts February 28.
    /// Its window still ends March 31, so a use on March 29 is the period's second.
    @Test func aMonthFromThe31stEndsOnTheLastDayNotThe28th() throws {
        let graph = try graph("""
            product pro: subscription { period month }
            feature calls: metered
            entitlement plan = pro { grants calls 100 per month }
            """)
        var state = PurchaseState()
        state.purchases = [Purchase(product: "pro", status: .active, purchasedAt: try instant("2026-01-31T00:00:00Z"),
                                    periodStart: try instant("2026-02-28T00:00:00Z"),
                                    expiresAt: try instant("2026-03-31T00:00:00Z"))]
        state.usage = [UsageRecord(feature: "calls", kind: .amount(100), at: try instant("2026-03-01T00:00:00Z"), id: "a")]
        let before = try Evaluation(graph: graph, state: state, environment: .live, at: try instant("2026-03-29T00:00:00Z"))
        #expect(before.feature(0, required: 100).allowed == false)
        #expect(before.feature(0, required: 1).balance == 0)
        // Renewed on March 31: the next window, whole.
        state.purchases[0].periodStart = try instant("2026-03-31T00:00:00Z")
        state.purchases[0].expiresAt = try instant("2026-04-30T00:00:00Z")
        let after = try Evaluation(graph: graph, state: state, environment: .live, at: try instant("2026-03-31T00:00:00Z"))
        #expect(after.feature(0, required: 1).balance == 100)
        #expect(after.feature(0, required: 1).overage == 0)
    }
}
