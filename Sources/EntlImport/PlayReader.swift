import EntlRuntime

/// Google Play Developer API resources: `purchases.subscriptionsv2` (`SubscriptionPurchaseV2`,
/// one purchase per line item) and `purchases.products` (`ProductPurchase`), one resource or an
/// array of them per document. docs/import.md has the mapping and the reasons for it.
enum PlayReader {
    static let subscriptionStates = [
        "SUBSCRIPTION_STATE_UNSPECIFIED", "SUBSCRIPTION_STATE_PENDING", "SUBSCRIPTION_STATE_ACTIVE",
        "SUBSCRIPTION_STATE_PAUSED", "SUBSCRIPTION_STATE_IN_GRACE_PERIOD", "SUBSCRIPTION_STATE_ON_HOLD",
        "SUBSCRIPTION_STATE_CANCELED", "SUBSCRIPTION_STATE_EXPIRED", "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED",
    ]
    static let acknowledgementStates = [
        "ACKNOWLEDGEMENT_STATE_UNSPECIFIED", "ACKNOWLEDGEMENT_STATE_PENDING", "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
    ]

    static func read(_ document: Node, into builder: inout StateBuilder) throws(ImportIssue) {
        switch document.value {
        case .array:
            for item in try document.items() { try readResource(item, into: &builder) }
        default:
            try readResource(document, into: &builder)
        }
    }

    private static func readResource(_ r: Node, into builder: inout StateBuilder) throws(ImportIssue) {
        guard case .object = r.value else { throw StateImporter.unrecognized(r, as: .play) }
        switch try r["kind"]?.string() {
        case "androidpublisher#subscriptionPurchaseV2"?:
            try readSubscription(r, into: &builder)
        case "androidpublisher#productPurchase"?:
            try readProduct(r, into: &builder)
        case "androidpublisher#subscriptionPurchase"?:
            throw r.issue("a SubscriptionPurchase of the deprecated purchases.subscriptions.get: read the subscription "
                          + "with purchases.subscriptionsv2.get")
        case nil where r["subscriptionState"] != nil:
            try readSubscription(r, into: &builder)
        case nil where r["purchaseState"] != nil || r["purchaseTimeMillis"] != nil:
            try readProduct(r, into: &builder)
        default:
            throw StateImporter.unrecognized(r, as: .play)
        }
    }

    /// A subscription: one purchase per line item (a base plan and its add-ons), each with the
    /// subscription's state and the item's own expiry and renewal.
    private static func readSubscription(_ r: Node, into builder: inout StateBuilder) throws(ImportIssue) {
        let state = try r.required("subscriptionState").word("subscription state", in: subscriptionStates)
            .dropFirst("SUBSCRIPTION_STATE_".count)
        let environment: Environment = r["testPurchase"] != nil ? .test : .live
        let start = try r["startTime"]?.instant(.rfc3339)
        try readCustomer(r["externalAccountIdentifiers"]?["obfuscatedExternalAccountId"], into: &builder)
        if try r["acknowledgementState"]?.word("acknowledgement state", in: acknowledgementStates)
            == "ACKNOWLEDGEMENT_STATE_PENDING", ["ACTIVE", "IN_GRACE_PERIOD"].contains(state) {
            builder.warn(r, notAcknowledged)
        }
        let items = try r.required("lineItems").items()
        guard !items.isEmpty else { throw r.issue("no line items: the subscription names no product") }
        for item in items {
            let product = try item.object().required("productId").name()
            let expiry = try item["expiryTime"]?.instant(.rfc3339)
            let prepaid = item["prepaidPlan"] != nil
            let renews = try item["autoRenewingPlan"]?.object()["autoRenewEnabled"]?.bool() ?? (prepaid ? false : nil)
            var p = ImportedPurchase(product: product, store: "play_store", status: .active, purchasedAt: start,
                                     expiresAt: expiry, willRenew: renews, environment: environment, place: item.place)
            if let order = try (item["latestSuccessfulOrderId"] ?? r["latestOrderId"])?.name() {
                p.key = "play_store order \(order) \(product)"
            }
            switch state {
            case "ACTIVE":
                let trial = item["offerPhase"]?["freeTrial"] != nil
                p.status = renews == false && !prepaid ? .canceled : trial ? .trialing : .active
            case "IN_GRACE_PERIOD":
                // Google extends the item's expiry to the end of the grace period.
                p.status = .pastDue
                p.graceUntil = expiry
            case "ON_HOLD", "PENDING":
                p.status = .billingRetry  // a payment is outstanding: on hold after a failed renewal, or at signup
            case "PAUSED":
                p.status = .expired
                p.willRenew = true  // it resumes by itself (`pausedStateContext.autoResumeTime`)
            case "CANCELED":
                p.status = .canceled
                p.willRenew = false
            case "EXPIRED", "PENDING_PURCHASE_CANCELED":
                p.status = .expired
            default:
                p.status = .unknown
                builder.warn(r, "subscription state UNSPECIFIED: access is undetermined")
            }
            if expiry == nil, [.active, .trialing, .canceled, .pastDue].contains(p.status) {
                p.status = .unknown
                builder.warn(item, "no \"expiryTime\": access is undetermined")
            }
            builder.add(p)
        }
    }

    /// A one-time product: its purchase state, and the units it holds (its quantity less the
    /// units refunded). Consumption is not a use: Google's "consumed" marks a purchase delivered
    /// so that it can be bought again, and entlc counts what was delivered.
    private static func readProduct(_ r: Node, into builder: inout StateBuilder) throws(ImportIssue) {
        guard let productID = r["productId"] else {
            throw r.issue("missing \"productId\": purchases.products.get leaves it out; add the product id the request "
                          + "named as \"productId\"")
        }
        let purchaseType = try r["purchaseType"]?.code("purchase type", in: 0...2)
        var p = ImportedPurchase(product: try productID.name(), store: "play_store", status: .active,
                                 environment: purchaseType == 0 ? .test : .live, place: r.place)
        p.purchasedAt = try r.required("purchaseTimeMillis").instant(.milliseconds)
        let quantity = try r["quantity"]?.count() ?? 1
        let held = try r["refundableQuantity"]?.count() ?? quantity
        // The units not refunded cannot outnumber the units bought: which is wrong is not known.
        guard held <= quantity else {
            throw r.issue("refundableQuantity \(held) is more than quantity \(quantity)")
        }
        p.quantity = held
        switch try r.required("purchaseState").code("purchase state", in: 0...2) {
        case 0: p.status = held == 0 ? .revoked : .active
        case 1: p.status = .revoked  // canceled: refunded or voided
        default: p.status = .billingRetry  // pending: the payment has not arrived
        }
        if let order = try r["orderId"]?.name() { p.key = "play_store order \(order)" }
        try readCustomer(r["obfuscatedExternalAccountId"], into: &builder)
        let consumed = try r["consumptionState"]?.code("consumption state", in: 0...1) == 1
        let acknowledged = try r["acknowledgementState"]?.code("acknowledgement state", in: 0...1) != 0
        if !acknowledged, !consumed, p.status == .active {
            builder.warn(r, notAcknowledged)
        }
        builder.add(p)
    }

    private static let notAcknowledged =
        "not acknowledged: Google refunds and revokes a purchase not acknowledged within three days"

    /// The account id the app gave Google at purchase (`setObfuscatedAccountId`): the customer.
    private static func readCustomer(_ id: Node?, into builder: inout StateBuilder) throws(ImportIssue) {
        if let id, case .string(let text) = id.value, !text.isEmpty { try builder.setCustomer(text, at: id.place) }
    }
}
