import EntlRuntime

/// App Store Server API payloads: `JWSTransactionDecodedPayload` and
/// `JWSRenewalInfoDecodedPayload` objects (one, or an array, in any documents; renewal infos pair
/// with transactions by `originalTransactionId`), the "Get All Subscription Statuses" response
/// (`data[].lastTransactions[]`, whose `status` is Apple's own word on the subscription), and the
/// transaction history and transaction info responses. Signed JWS strings are decoded only when
/// the caller allows unverified JWS. docs/import.md has the mapping and the reasons for it.
struct AppStoreReader {
    let allowUnverifiedJWS: Bool
    private var transactions: [(node: Node, environment: String?)] = []
    private var renewals: [String: Node] = [:]
    /// Apple's status per original transaction, and the transaction it was reported with.
    private var statuses: [String: (status: Int64, node: Node, transaction: String)] = [:]
    /// Transaction histories with more pages (`hasMore`), warned of in `finish`.
    private var unfinishedHistories: [Node] = []

    init(allowUnverifiedJWS: Bool) {
        self.allowUnverifiedJWS = allowUnverifiedJWS
    }

    static let types = ["Auto-Renewable Subscription", "Non-Consumable", "Consumable", "Non-Renewing Subscription"]
    static let environments = ["Production", "Sandbox", "Xcode", "LocalTesting"]
    /// Keys only a renewal info has.
    static let renewalKeys = ["autoRenewStatus", "autoRenewProductId", "isInBillingRetryPeriod", "expirationIntent"]

    mutating func read(_ document: Node) throws(ImportIssue) {
        try read(document, environment: nil)
    }

    /// A payload, or a container of payloads; `environment` is a container's, for payloads that
    /// do not say theirs.
    private mutating func read(_ node: Node, environment: String?) throws(ImportIssue) {
        switch node.value {
        case .array:
            for item in try node.items() { try read(item, environment: environment) }
        case .string:
            try readPayload(try decoded(node), environment: environment)
        case .object:
            let environment = try node["environment"]?.word("environment", in: Self.environments) ?? environment
            if let data = node["data"], node["transactionId"] == nil {
                for group in try data.items() {
                    for item in try group.object().required("lastTransactions").items() {
                        try readStatus(item, environment: environment)
                    }
                }
            } else if let history = node["signedTransactions"] {
                for item in try history.items() { try readPayload(try decoded(item), environment: environment) }
                if try node["hasMore"]?.bool() == true {
                    // `read` has no builder: the warning waits for `finish`.
                    unfinishedHistories.append(node)
                }
            } else if let info = node["signedTransactionInfo"], node["transactionId"] == nil {
                try readPayload(try decoded(info), environment: environment)
                if let renewal = node["signedRenewalInfo"] {
                    try readPayload(try decoded(renewal), environment: environment)
                }
            } else {
                try readPayload(node, environment: environment)
            }
        default:
            throw StateImporter.unrecognized(node, as: .appStore)
        }
    }

    /// One item of `lastTransactions`: Apple's status, its transaction and its renewal info.
    private mutating func readStatus(_ item: Node, environment: String?) throws(ImportIssue) {
        let status = try item.object().required("status").code("subscription status", in: 1...5)
        let transaction = try decoded(try item.required("signedTransactionInfo"))
        try readPayload(transaction, environment: environment)
        let original = try either(item["originalTransactionId"]) { () throws(ImportIssue) in
            try transaction.object().required("originalTransactionId")
        }.name()
        statuses[original] = (status, item, try transaction.object().required("transactionId").name())
        if let renewal = item["signedRenewalInfo"] { try readPayload(try decoded(renewal), environment: environment) }
    }

    /// A decoded transaction or renewal info.
    private mutating func readPayload(_ node: Node, environment: String?) throws(ImportIssue) {
        guard case .object = node.value else { throw StateImporter.unrecognized(node, as: .appStore) }
        if node["transactionId"] != nil {
            transactions.append((node, environment))
        } else if Self.renewalKeys.contains(where: { node[$0] != nil }) {
            let original = try node.required("originalTransactionId").name()
            // The latest word on a subscription's renewal wins.
            if let earlier = renewals[original],
               try (earlier["signedDate"]?.instant(.orderingMilliseconds) ?? Instant(seconds: 0))
                > (node["signedDate"]?.instant(.orderingMilliseconds) ?? Instant(seconds: 0)) { return }
            renewals[original] = node
        } else {
            throw StateImporter.unrecognized(node, as: .appStore)
        }
    }

    /// The decoded payload of a JWS string, when the caller allows reading it unverified; an
    /// object is a payload already decoded (and verified) by the caller.
    private func decoded(_ node: Node) throws(ImportIssue) -> Node {
        if case .object = node.value { return node }
        guard case .string = node.value else { throw StateImporter.unrecognized(node, as: .appStore) }
        guard allowUnverifiedJWS else {
            throw node.issue("a signed JWS, which entlc does not verify: import the payload you verified and decoded, "
                             + "or allow unverified JWS (`--unverified-jws`) if it was verified elsewhere")
        }
        return try JWS.payload(node)
    }

    /// Adds the purchases: for an auto-renewable subscription only its latest transaction (the
    /// current period; earlier ones are renewals it replaced), every other transaction as it is.
    func finish(into builder: inout StateBuilder) throws(ImportIssue) {
        var latest: [String: Int] = [:]
        var order: [Int] = []
        /// Each auto-renewable subscription's transactions that were not refunded: its periods; and
        /// the end of the subscription's first period when the documents hold it, refunded.
        var periods: [String: [Int]] = [:]
        var refundedFirst: [String: Instant] = [:]
        /// The original transaction of each auto-renewable one, by its index.
        var subscription: [Int: String] = [:]
        for (i, entry) in transactions.enumerated() {
            let t = entry.node
            let type = try t.required("type").word("type", in: Self.types)
            let key = type == Self.types[0]
                ? try Self.originalID(t) : "transaction " + (try t.required("transactionId").name())
            if type == Self.types[0] {
                subscription[i] = key
                if t["revocationDate"] == nil {
                    periods[key, default: []].append(i)
                } else if let first = try t["originalPurchaseDate"]?.instant(.milliseconds),
                          try t.required("purchaseDate").instant(.milliseconds) == first {
                    // The first period (bought when the subscription was), refunded.
                    refundedFirst[key] = try t["expiresDate"]?.instant(.milliseconds) ?? first
                }
            }
            guard let j = latest[key] else {
                latest[key] = i
                order.append(i)
                continue
            }
            let id = try t.required("transactionId").name()
            if try transactions[j].node.required("transactionId").name() == id {
                builder.warn(t, "transaction \(id) was already reported at \(transactions[j].node.place); the one "
                             + "signed later is used (when both were signed at once, a revoked one)")
            }
            if try Self.isLater(t, than: transactions[j].node) {
                latest[key] = i
                order[order.firstIndex(of: j)!] = i
            }
        }
        for i in order {
            var p = try purchase(transactions[i].node, environment: transactions[i].environment, into: &builder)
            if p.status != .revoked, let original = subscription[i], let periods = periods[original],
               let run = try currentRun(periods, original: original, refundedFirst: refundedFirst[original]),
               let first = p.purchasedAt, run.start > first {
                // Back after a lapse: the purchase began anew, and the service before it ended.
                if let before = run.before { builder.add(try lapsed(before, purchasedAt: first)) }
                p.purchasedAt = run.start
            }
            builder.add(p)
        }
        for history in unfinishedHistories {
            builder.warn(history, "the history goes on past this page (`hasMore`): what later pages hold is not "
                         + "imported unless they are given too")
        }
        for (original, renewal) in renewals.sorted(by: { $0.key < $1.key }) where latest[original] == nil {
            builder.warn(renewal, "renewal info of original transaction \(original), whose transactions are not among "
                         + "the documents: no purchase")
        }
    }

    /// Apple's measure of a lapse: paid service resumed 60 days or more after it ended
    /// (`recentSubscriptionStartDate` "ignores all lapses of paid service shorter than 60 days").
    static let lapse: Int64 = 60 * 86_400

    /// Where a subscription's current run of paid service began, when a lapse came before it —
    /// the last lapse its periods (transactions not refunded, `periods`) show, or a later one its
    /// renewal info's `recentSubscriptionStartDate` gives — and the last period before that lapse,
    /// when the documents hold it. A refunded first period is no paid service: when the first
    /// period not refunded starts a lapse after it (`refundedFirst`: its end), the paid service
    /// began there (a review: that lapse had gone unseen). Nil when none of these shows (the
    /// documents may hold only the latest periods: the run is then the whole subscription's).
    private func currentRun(_ periods: [Int], original: String, refundedFirst: Instant?) throws(ImportIssue)
        -> (start: Instant, before: Int?)?
    {
        var spans: [(start: Instant, end: Instant, index: Int)] = []
        for i in periods {
            let t = transactions[i].node
            let start = try t.required("purchaseDate").instant(.milliseconds)
            spans.append((start, try t["expiresDate"]?.instant(.milliseconds) ?? start, i))
        }
        spans.sort { ($0.start, $0.end) < ($1.start, $1.end) }
        guard var run = spans.first.map({ (start: $0.start, end: $0.end, last: $0.index) }) else { return nil }
        var before: Int?
        for span in spans.dropFirst() {
            if span.start.seconds >= run.end.seconds + Self.lapse {
                (before, run) = (run.last, (span.start, span.end, span.index))
            } else if span.end >= run.end {
                (run.end, run.last) = (span.end, span.index)
            }
        }
        if let recent = try renewals[original]?["recentSubscriptionStartDate"]?.instant(.milliseconds),
           before == nil || recent > run.start {
            // The last period that ended before it, if the documents hold one.
            before = spans.filter { $0.end <= recent }.max { $0.end < $1.end }?.index
            return (recent, before)
        }
        if before == nil, let end = refundedFirst, spans[0].start.seconds >= end.seconds + Self.lapse {
            return (spans[0].start, nil)
        }
        return before == nil ? nil : (run.start, before)
    }

    /// The service before a lapse, as a purchase of its own that ended: bought at `purchasedAt`
    /// (the subscription's first purchase), its last period the transaction at `i`.
    private func lapsed(_ i: Int, purchasedAt: Instant) throws(ImportIssue) -> ImportedPurchase {
        let t = transactions[i].node
        var p = try common(t, environment: transactions[i].environment, status: .expired)
        p.purchasedAt = purchasedAt
        p.periodStart = try t.required("purchaseDate").instant(.milliseconds)
        p.expiresAt = try t["expiresDate"]?.instant(.milliseconds)
        p.willRenew = false
        return p
    }

    /// The subscription a transaction belongs to: its original transaction.
    private static func originalID(_ t: Node) throws(ImportIssue) -> String {
        try either(t["originalTransactionId"]) { () throws(ImportIssue) in try t.required("transactionId") }.name()
    }

    /// Whether `a` is a later word than `b` on a subscription or a transaction: a later period
    /// (purchased later, or ending later); for the same period, signed later (a refund is signed
    /// after the purchase it revokes); signed at the same instant, revoked, else the later report.
    private static func isLater(_ a: Node, than b: Node) throws(ImportIssue) -> Bool {
        let pa = try a.required("purchaseDate").instant(.milliseconds)
        let pb = try b.required("purchaseDate").instant(.milliseconds)
        if pa != pb { return pa > pb }
        let ea = try a["expiresDate"]?.instant(.milliseconds) ?? pa
        let eb = try b["expiresDate"]?.instant(.milliseconds) ?? pb
        if ea != eb { return ea > eb }
        let sa = try a["signedDate"]?.instant(.orderingMilliseconds)
        let sb = try b["signedDate"]?.instant(.orderingMilliseconds)
        if let sa, let sb, sa != sb { return sa > sb }
        return a["revocationDate"] != nil || b["revocationDate"] == nil
    }

    /// A transaction's product, environment and ownership, as a purchase of `status`.
    private func common(_ t: Node, environment context: String?, status: PurchaseStatus)
        throws(ImportIssue) -> ImportedPurchase
    {
        guard let environment = try t["environment"]?.word("environment", in: Self.environments) ?? context else {
            throw t.issue("missing \"environment\" (Production or Sandbox)")
        }
        // No key: `finish` already kept one transaction per subscription and per transaction id.
        var p = ImportedPurchase(product: try t.required("productId").name(), store: "app_store", status: status,
                                 environment: environment == "Production" ? .live : .test, place: t.place)
        if try t["inAppOwnershipType"]?.word("ownership type", in: ["PURCHASED", "FAMILY_SHARED"]) == "FAMILY_SHARED" {
            p.ownership = .familyShared
        }
        return p
    }

    private func purchase(_ t: Node, environment context: String?, into builder: inout StateBuilder)
        throws(ImportIssue) -> ImportedPurchase
    {
        let type = try t.required("type").word("type", in: Self.types)
        var p = try common(t, environment: context, status: .active)
        let purchaseDate = try t.required("purchaseDate").instant(.milliseconds)
        p.purchasedAt = try t["originalPurchaseDate"]?.instant(.milliseconds) ?? purchaseDate
        p.expiresAt = try t["expiresDate"]?.instant(.milliseconds)
        if let token = t["appAccountToken"], case .string(let id) = token.value, !id.isEmpty {
            try builder.setCustomer(id, at: token.place)
        }
        let offerType = try t["offerType"]?.code("offer type", in: 1...4)
        let discount = try t["offerDiscountType"]?.word("offer discount type",
                                                         in: ["FREE_TRIAL", "PAY_AS_YOU_GO", "PAY_UP_FRONT"])
        if let revoked = try t["revocationDate"]?.instant(.milliseconds) {
            // A refund, or a purchase no longer shared with the family.
            p.status = .revoked
            p.expiresAt = min(p.expiresAt ?? revoked, revoked)
            return p
        }
        if try t["isUpgraded"]?.bool() == true {
            p.status = .expired  // the customer moved to a better product of the group; its transaction grants now
            return p
        }
        switch type {
        case "Consumable":
            p.quantity = try t["quantity"]?.count() ?? 1
            return p
        case "Auto-Renewable Subscription":
            break
        default:
            return p
        }
        guard p.expiresAt != nil else {
            throw t.issue("missing \"expiresDate\" (an auto-renewable subscription has one)")
        }
        p.periodStart = purchaseDate
        let original = try Self.originalID(t)
        try subscriptionStatus(&p, original: original, trial: offerType == 1 && discount == "FREE_TRIAL", t, &builder)
        return p
    }

    /// An auto-renewable subscription's status: Apple's status when a statuses response gave one,
    /// else what the renewal info says; the renewal info also says whether it renews.
    private func subscriptionStatus(_ p: inout ImportedPurchase, original: String, trial: Bool, _ t: Node,
                                    _ builder: inout StateBuilder) throws(ImportIssue) {
        let renewal = renewals[original]
        // Apple's status is its word on the transaction it came with: a later transaction of the
        // subscription (a renewal the customer paid for, decoded from another document) is read
        // without it (a review: an `expired` status of October denied November's renewal).
        var status = statuses[original]?.status
        if let reported = statuses[original], try t.required("transactionId").name() != reported.transaction {
            builder.warn(t, "the status at \(reported.node.place) is Apple's word on transaction "
                         + "\(reported.transaction); this later transaction is read without it")
            status = nil
        }
        let autoRenew = try renewal?["autoRenewStatus"]?.code("auto-renew status", in: 0...1)
        let retrying = try renewal?["isInBillingRetryPeriod"]?.bool() ?? false
        let grace = try renewal?["gracePeriodExpiresDate"]?.instant(.milliseconds)
        let intent = try renewal?["expirationIntent"]?.code("expiration intent", in: 1...5)
        p.willRenew = autoRenew.map { $0 == 1 }
        if renewal == nil, status == nil {
            builder.warn(t, "no renewal info for original transaction \(original): whether it renews, and a billing "
                         + "retry or grace period, cannot be seen")
        }
        // Apple's status, when given, wins over what the renewal info suggests.
        switch status ?? (retrying ? (grace != nil ? 4 : 3) : intent != nil ? 2 : 1) {
        case 5:
            p.status = .revoked
        case 4:
            guard let grace else {
                p.status = .unknown
                return builder.warn(t, "in the billing grace period, but no renewal info gives its end "
                                    + "(`gracePeriodExpiresDate`)")
            }
            p.status = .pastDue
            p.graceUntil = grace
        case 3:
            p.status = .billingRetry
        case 2:
            p.status = .expired
        default:
            p.status = autoRenew == 0 ? .canceled : trial ? .trialing : .active
        }
    }
}
