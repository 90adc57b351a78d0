import EntlRuntime

/// RevenueCat REST API v1 `GET /subscribers/{app_user_id}`: the subscriber's `subscriptions`
/// (keyed by product id), `non_subscriptions` (arrays of purchases keyed by product id),
/// promotional grants (store `promotional`), `first_seen` and `original_app_user_id`.
/// docs/import.md has the mapping and the reasons for it.
enum RevenueCatReader {
    /// Snapshots of a subscriber, oldest first when each says when RevenueCat answered
    /// (`request_date`): a purchase two of them report is read from the latest, whatever the
    /// order of the files (else, from the later file).
    static func inRequestOrder(_ documents: [Node]) throws(ImportIssue) -> [Node] {
        var dated: [(at: Instant, document: Node)] = []
        for d in documents {
            guard case .object = d.value, let at = try d["request_date"]?.instant(.rfc3339) else { return documents }
            dated.append((at, d))
        }
        return dated.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }
            .map(\.element.document)
    }

    static func read(_ document: Node, into builder: inout StateBuilder) throws(ImportIssue) {
        guard case .object = document.value, let subscriber = document["subscriber"] else {
            throw StateImporter.unrecognized(document, as: .revenueCat)
        }
        _ = try subscriber.object()
        if let id = subscriber["original_app_user_id"] { try builder.setCustomer(try id.name(), at: id.place) }
        if let firstSeen = subscriber["first_seen"] { builder.noteCustomerSince(try firstSeen.instant(.rfc3339)) }
        let promotions = try promotionEntitlements(subscriber["entitlements"])
        for (product, subscription) in try subscriber["subscriptions"]?.members() ?? [] {
            let store = try subscription.object().required("store").name()
            if store == "promotional" {
                try readPromotion(product, subscription, promotions[product], into: &builder)
            } else {
                builder.add(try purchase(product, store: store, subscription))
            }
        }
        for (product, list) in try subscriber["non_subscriptions"]?.members() ?? [] {
            for item in try list.items() {
                let store = try item.object().required("store").name()
                if store == "promotional" {
                    try readPromotion(product, item, promotions[product], into: &builder)
                } else {
                    builder.add(try oneTimePurchase(product, store: store, item))
                }
            }
        }
    }

    /// A subscription: its status from RevenueCat's dates and flags, most decisive first — a
    /// refund, a billing issue (in the grace period or not), a turned-off renewal, a trial.
    static func purchase(_ product: String, store: String, _ s: Node) throws(ImportIssue) -> ImportedPurchase {
        var p = ImportedPurchase(product: product, store: store, status: .active, environment: try environment(s),
                                 place: s.place, key: "revenuecat \(store) \(product)")
        let purchaseDate = try s.required("purchase_date").instant(.rfc3339)
        p.purchasedAt = try s["original_purchase_date"]?.instant(.rfc3339) ?? purchaseDate
        p.periodStart = purchaseDate
        p.expiresAt = try s["expires_date"]?.instant(.rfc3339)
        if try s["ownership_type"]?.word("ownership type", in: ["PURCHASED", "FAMILY_SHARED"]) == "FAMILY_SHARED" {
            p.ownership = .familyShared
        }
        let period = try s["period_type"]?.word("period type",
                                                 in: ["normal", "trial", "intro", "prepaid", "promotional"])
        let grace = try s["grace_period_expires_date"]?.instant(.rfc3339)
        if let refunded = try s["refunded_at"]?.instant(.rfc3339) {
            p.status = .revoked
            p.expiresAt = min(p.expiresAt ?? refunded, refunded)
        } else if let issue = s["billing_issues_detected_at"] {
            _ = try issue.instant(.rfc3339)
            if let grace {
                p.status = .pastDue
                p.graceUntil = grace
            } else {
                p.status = .billingRetry
            }
        } else if let unsubscribed = s["unsubscribe_detected_at"] {
            _ = try unsubscribed.instant(.rfc3339)
            p.status = .canceled
            p.willRenew = false
        } else {
            p.status = period == "trial" ? .trialing : .active
            // A prepaid plan (Google Play) ends at its expiry unless topped up; a paused one
            // resumes by itself (`auto_resume_date`).
            p.willRenew = period != "prepaid"
        }
        if p.expiresAt == nil, [.active, .trialing, .canceled].contains(p.status) {
            // A subscription that never ends is not something RevenueCat reports: say so rather
            // than grant access forever.
            p.status = .unknown
            p.willRenew = nil
        }
        return p
    }

    /// A non-subscription purchase (consumable, non-consumable, non-renewing): one unit, owned from
    /// its purchase date; RevenueCat reports purchases, not their use.
    static func oneTimePurchase(_ product: String, store: String, _ item: Node)
        throws(ImportIssue) -> ImportedPurchase
    {
        var p = ImportedPurchase(product: product, store: store, status: .active, environment: try environment(item),
                                 place: item.place)
        p.purchasedAt = try item.required("purchase_date").instant(.rfc3339)
        if let id = item["id"] { p.key = "revenuecat \(store) \(product) \(try id.name())" }
        if let refunded = try item["refunded_at"]?.instant(.rfc3339) {
            p.status = .revoked
            p.expiresAt = refunded
        }
        return p
    }

    /// `is_sandbox`, which every purchase carries: sandbox purchases belong to the test environment.
    static func environment(_ item: Node) throws(ImportIssue) -> Environment {
        try item.required("is_sandbox").bool() ? .test : .live
    }

    /// A promotional grant becomes a state grant of the entitlement RevenueCat granted, over
    /// [purchase date, expiry); a refund ends it early. A sandbox promotion is left out: a grant
    /// has no environment, and it would count live.
    static func readPromotion(_ product: String, _ s: Node, _ mapped: [String]?, into builder: inout StateBuilder)
        throws(ImportIssue)
    {
        guard let entitlements = mapped ?? promotedEntitlement(product).map({ [$0] }) else {
            throw s.issue("a promotional grant whose entitlement is unknown: no entry of `entitlements` names product "
                          + "\(JSONValue.string(product).compact), and its id is not `rc_promo_ENTITLEMENT_DURATION`")
        }
        if try environment(s) == .test {
            return builder.warn(s, "a sandbox promotional grant is left out: a state grant counts in every environment")
        }
        let from = try s.required("purchase_date").instant(.rfc3339)
        var until = try s["expires_date"]?.instant(.rfc3339)
        if let refunded = try s["refunded_at"]?.instant(.rfc3339) { until = min(until ?? refunded, refunded) }
        if let until, until <= from {
            return builder.warn(s, "a promotional grant that ends (\(until.rfc3339)) when or before it starts "
                                + "(\(from.rfc3339)) is left out: it never gives access")
        }
        for entitlement in entitlements {
            builder.add(ImportedGrant(entitlement: entitlement, from: from, until: until,
                                      id: entitlements.count == 1 ? product : "\(product)/\(entitlement)",
                                      reason: "RevenueCat promotional grant", place: s.place))
        }
    }

    /// Product id → the entitlements `subscriber.entitlements` says it grants.
    static func promotionEntitlements(_ entitlements: Node?) throws(ImportIssue) -> [String: [String]] {
        var out: [String: [String]] = [:]
        for (name, entitlement) in try entitlements?.members() ?? [] {
            if let product = try entitlement.object()["product_identifier"]?.string() {
                out[product, default: []].append(name)
            }
        }
        return out
    }

    /// The entitlement in a promotional product id, `rc_promo_<entitlement>_<duration>`, the
    /// form RevenueCat gives the grants of its "grant an entitlement" endpoint.
    static func promotedEntitlement(_ product: String) -> String? {
        guard product.hasPrefix("rc_promo_") else { return nil }
        let rest = product.dropFirst("rc_promo_".count)
        for duration in durations where rest.hasSuffix("_" + duration) {
            let entitlement = rest.dropLast(duration.count + 1)
            if !entitlement.isEmpty { return String(entitlement) }
        }
        return nil
    }

    /// The durations of RevenueCat's promotional grants (`custom` for one with an end time).
    static let durations = ["daily", "three_day", "weekly", "two_week", "monthly", "two_month", "three_month",
                            "six_month", "yearly", "lifetime", "custom"]
}
