import EntlImport
import EntlRuntime
import EntlTestSupport
import Testing

/// Properties over generated payloads (seeded): for every combination of a vendor's statuses, flags
/// and dates, the imported state gives the access the vendor's documentation describes, at
/// instants before, inside and after each period — a refund is never access, a sandbox purchase never
/// counts live, a grace period gives access until it ends and not after, a paused or on-hold
/// subscription gives none.
@Suite struct ImportPropertyTests {
    static let base: Int64 = 1_704_067_200  // 2024-01-01T00:00:00Z
    static let day: Int64 = 86_400

    /// What a generated case expects at `t` (seconds): the product's decision.
    typealias Oracle = (Int64) -> Decision

    /// Imports `json`, then compares the product's decision with the oracle's at instants around every
    /// date in `dates` (seconds).
    func check(_ vendor: Vendor, _ json: String, product: String, dates: [Int64], oracle: Oracle,
               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try StateImporter.importState(
            from: vendor, documents: [ImportDocument(name: "case.json", bytes: Array(json.utf8))],
            options: ImportOptions(allowUnverifiedJWS: true))
        let state = try decodedState(result)
        for date in dates {
            for t in [date - 1, date, date + 1] {
                let at = Instant(seconds: t)
                let decision = try Evaluation(graph: importRules, state: state, at: at).product(product).decision
                #expect(decision == oracle(t), "\(json) at \(at)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func revenueCat() throws {
        var r = SeededRandom(seed: 34)
        for _ in 0..<300 {
            let start = Self.base + r.int64(0...30) * Self.day
            let expires = start + r.int64(1...60) * Self.day
            let grace = r.chance(0.5) ? expires + r.int64(1...16) * Self.day : nil
            let billingIssue = r.chance(0.3), unsubscribed = r.chance(0.3), sandbox = r.chance(0.2)
            let refunded = r.chance(0.2) ? start + r.int64(0...10) * Self.day : nil
            let noExpiry = r.chance(0.05)
            let period = r.pick(["normal", "trial", "intro"])
            func date(_ s: Int64?) -> String { s.map { "\"\(Instant(seconds: $0))\"" } ?? "null" }
            let json = """
                {"subscriber": {"subscriptions": {"annual": {"store": "app_store", "is_sandbox": \(sandbox),
                 "period_type": "\(period)", "original_purchase_date": \(date(start)), "purchase_date": \(date(start)),
                 "expires_date": \(date(noExpiry ? nil : expires)), "grace_period_expires_date": \(date(grace)),
                 "billing_issues_detected_at": \(date(billingIssue ? expires : nil)),
                 "unsubscribe_detected_at": \(date(unsubscribed ? start : nil)), "refunded_at": \(date(refunded))}}}}
                """
            try check(.revenueCat, json, product: "annual", dates: [start, expires] + (grace.map { [$0] } ?? [])) { t in
                if sandbox || t < start || refunded != nil { return .denied }
                if billingIssue { return grace.map { t < $0 ? .allowed : .denied } ?? .denied }
                if noExpiry { return .undetermined }
                return t < expires ? .allowed : .denied
            }
        }
    }

    @Test func appStore() throws {
        var r = SeededRandom(seed: 35)
        for _ in 0..<300 {
            let start = Self.base + r.int64(0...30) * Self.day
            let expires = start + r.int64(1...60) * Self.day
            let grace = expires + r.int64(1...16) * Self.day
            let status: Int? = r.chance(0.4) ? r.int(1...5) : nil
            let renewal = r.chance(0.8), retrying = r.chance(0.3), hasGrace = r.chance(0.5), intent = r.chance(0.2)
            let autoRenew = r.chance(0.7), sandbox = r.chance(0.2), revoked = r.chance(0.15)
            let transaction = """
                {"transactionId": "2", "originalTransactionId": "1", "productId": "com.example.product",
                 "type": "Auto-Renewable Subscription", "environment": "\(sandbox ? "Sandbox" : "Production")",
                 "purchaseDate": \(start * 1000), "originalPurchaseDate": \(start * 1000),
                 "expiresDate": \(expires * 1000)
                 \(revoked ? ", \"revocationDate\": \(start * 1000 + 1000)" : "")}
                """
            var info = #"{"originalTransactionId": "1", "autoRenewStatus": \#(autoRenew ? 1 : 0)"#
            if retrying { info += #", "isInBillingRetryPeriod": true"# }
            if hasGrace { info += #", "gracePeriodExpiresDate": \#(grace * 1000)"# }
            if intent { info += #", "expirationIntent": 1"# }
            info += "}"
            let json: String
            if let status {
                let renewalInfo = renewal ? ", \"signedRenewalInfo\": " + info : ""
                json = #"{"environment": "Production", "data": [{"lastTransactions": [{"status": \#(status), "#
                    + #""signedTransactionInfo": \#(transaction)\#(renewalInfo)}]}]}"#
            } else {
                json = "[\(transaction)\(renewal ? ", " + info : "")]"
            }
            let retry = renewal && retrying, graceEnd = renewal && hasGrace ? grace : nil
            try check(.appStore, json, product: "apple_monthly", dates: [start, expires, grace]) { t in
                if sandbox || revoked || t < start { return .denied }
                switch status ?? (retry ? (graceEnd != nil ? 4 : 3) : renewal && intent ? 2 : 1) {
                case 1: return t < expires ? .allowed : .denied
                case 4: return graceEnd.map { t < $0 ? .allowed : .denied } ?? .undetermined
                default: return .denied
                }
            }
        }
    }

    @Test func play() throws {
        var r = SeededRandom(seed: 36)
        let states = ["ACTIVE", "CANCELED", "IN_GRACE_PERIOD", "ON_HOLD", "PAUSED", "EXPIRED", "PENDING",
                      "PENDING_PURCHASE_CANCELED", "UNSPECIFIED"]
        for _ in 0..<300 {
            let start = Self.base + r.int64(0...30) * Self.day
            let expiry = start + r.int64(1...60) * Self.day
            let state = r.pick(states), test = r.chance(0.2), renews = r.chance(0.7)
            let json = """
                {"subscriptionState": "SUBSCRIPTION_STATE_\(state)", "startTime": "\(Instant(seconds: start))",
                 \(test ? "\"testPurchase\": {}," : "")
                 "lineItems": [{"productId": "monthly001", "expiryTime": "\(Instant(seconds: expiry))",
                                "autoRenewingPlan": {"autoRenewEnabled": \(renews)}}]}
                """
            try check(.play, json, product: "monthly001", dates: [start, expiry]) { t in
                if test || t < start { return .denied }
                switch state {
                case "ACTIVE", "CANCELED", "IN_GRACE_PERIOD": return t < expiry ? .allowed : .denied
                case "UNSPECIFIED": return .undetermined
                default: return .denied
                }
            }
        }
    }

    @Test func stripe() throws {
        var r = SeededRandom(seed: 37)
        let statuses = ["incomplete", "incomplete_expired", "trialing", "active", "past_due", "canceled", "unpaid",
                        "paused"]
        for _ in 0..<300 {
            let start = Self.base + r.int64(0...30) * Self.day
            let end = start + r.int64(1...60) * Self.day
            let trialEnd = start + r.int64(1...14) * Self.day
            let cancelAt: Int64? = r.chance(0.3) ? start + r.int64(1...90) * Self.day : nil
            let status = r.pick(statuses), live = r.chance(0.8), atPeriodEnd = r.chance(0.3), legacy = r.chance(0.5)
            let period = #""current_period_start": \#(start), "current_period_end": \#(end)"#
            let json = """
                {"object": "subscription", "id": "sub_1", "status": "\(status)", "livemode": \(live),
                 "start_date": \(start),
                 "created": \(start), "trial_end": \(status == "trialing" ? String(trialEnd) : "null"),
                 "cancel_at_period_end": \(atPeriodEnd), "cancel_at": \(cancelAt.map(String.init) ?? "null")
                 \(legacy ? ", " + period : ""),
                 "items": {"object": "list", "data": [{"id": "si_1", "price": {"id": "price_1MowQULkdIwHu7ixraBm864M"}
                   \(legacy ? "" : ", " + period)}]}}
                """
            let dates = [start, end, trialEnd] + (cancelAt.map { [$0] } ?? [])
            try check(.stripe, json, product: "stripe_monthly", dates: dates) { t in
                if !live || t < start { return .denied }
                let early = cancelAt.flatMap { $0 <= end ? $0 : nil }
                switch status {
                case "active": return t < min(end, early ?? end) ? .allowed : .denied
                case "trialing": return t < min(trialEnd, early ?? trialEnd) ? .allowed : .denied
                // A cancellation within the period ends access there, also while a payment is retried.
                case "past_due": return t < min(end, early ?? end) ? .allowed : .denied
                default: return .denied
                }
            }
        }
    }
}
