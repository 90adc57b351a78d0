import EntlRuntime

/// Google Play Developer API resources: `purchases.subscriptionsv2` (`SubscriptionPurchaseV2`,
/// one purchase per line item) and `purchases.products` (`ProductPurchase`), one resource or an
/// array of them per document. docs/import.md has the mapping and the reasons for it.
///
/// An upgrade or a downgrade replaces a subscription by a new one whose `linkedPurchaseToken`
/// names the old purchase token, and Google says the old token no longer grants: what the
/// documents say is held until every document is read (`finish`), so that a replaced
/// subscription ends where the one replacing it begins, whatever the order of the files.
struct PlayReader {
    /// A subscription's purchases as read, with what links it to another.
    private struct Subscription {
        var purchases: [ImportedPurchase]
        /// Which renewal the document reports (`latestOrderId`'s `..N`: 0 the first renewal, -1 the
        /// purchase itself), and the subscription's first order, when it names its order.
        var renewal: Int?
        var firstOrder: String?
        /// `purchaseToken`, when the document carries it (Google's resource does not: it is the
        /// request's; add it as `"purchaseToken"`).
        var token: String?
        var linkedToken: String?
        var start: Instant?
        /// `canceledStateContext.replacementCancellation`: replaced by another subscription.
        var replaced: Bool
        /// Whether it took effect: a replacement still pending (or never paid) replaces nothing.
        var tookEffect: Bool
        var node: Node
    }

    private enum Pending {
        case subscription(Subscription)
        case product(ImportedPurchase)
    }

    private var pending: [Pending] = []

    static let subscriptionStates = [
        "SUBSCRIPTION_STATE_UNSPECIFIED", "SUBSCRIPTION_STATE_PENDING", "SUBSCRIPTION_STATE_ACTIVE",
        "SUBSCRIPTION_STATE_PAUSED", "SUBSCRIPTION_STATE_IN_GRACE_PERIOD", "SUBSCRIPTION_STATE_ON_HOLD",
        "SUBSCRIPTION_STATE_CANCELED", "SUBSCRIPTION_STATE_EXPIRED", "SUBSCRIPTION_STATE_PENDING_PURCHASE_CANCELED",
    ]
    static let acknowledgementStates = [
        "ACKNOWLEDGEMENT_STATE_UNSPECIFIED", "ACKNOWLEDGEMENT_STATE_PENDING", "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED",
    ]

    mutating func read(_ document: Node, into builder: inout StateBuilder) throws(ImportIssue) {
        switch document.value {
        case .array:
            for item in try document.items() { try readResource(item, into: &builder) }
        default:
            try readResource(document, into: &builder)
        }
    }

    /// Adds what was read, in document order: a subscription another one's `linkedPurchaseToken`
    /// names ends when that one starts (its own `expiryTime` is the paid period's end, not its
    /// access's); one replaced that no document links to grants nothing more, with a warning.
    mutating func finish(into builder: inout StateBuilder) {
        // The earliest replacement that took effect, whatever the order of the files.
        var replacedAt: [String: (start: Instant?, node: Node)] = [:]
        for case .subscription(let s) in pending where s.tookEffect {
            guard let linked = s.linkedToken else { continue }
            if let earlier = replacedAt[linked], let e = earlier.start, s.start.map({ e <= $0 }) ?? true { continue }
            replacedAt[linked] = (s.start, s.node)
        }
        // A report naming only its token is of the subscription another report names by order and
        // token alike (a review: keyed apart, one subscription had counted twice).
        var orderOfToken: [String: String] = [:]
        for case .subscription(let s) in pending {
            if let token = s.token, let first = s.firstOrder { orderOfToken[token] = first }
        }
        for i in pending.indices {
            guard case .subscription(var s) = pending[i], s.firstOrder == nil, let token = s.token,
                  let first = orderOfToken[token] else { continue }
            for k in s.purchases.indices { s.purchases[k].key = PlayReader.key(order: first, s.purchases[k].product) }
            pending[i] = .subscription(s)
        }
        // Of two reports of one subscription, the later renewal's, whatever the order of the files;
        // one that names no order (its token alone) against one that does: the later expiry (a
        // review: a stale token-only report had won by coming last). Else the later report.
        var latest: [String: (renewal: Int?, expiry: Instant?, index: Int)] = [:]
        for (index, item) in pending.enumerated() {
            guard case .subscription(let s) = item else { continue }
            for p in s.purchases {
                guard let key = p.key else { continue }
                let report = (renewal: s.renewal, expiry: p.expiresAt, index: index)
                guard let best = latest[key] else { latest[key] = report; continue }
                let later: Bool = if let a = report.renewal, let b = best.renewal, a != b {
                    a > b
                } else if report.renewal == nil || best.renewal == nil, let a = report.expiry, let b = best.expiry,
                          a != b {
                    a > b
                } else {
                    true
                }
                if later { latest[key] = report }
            }
        }
        var matched: Set<String> = []
        for (index, item) in pending.enumerated() {
            switch item {
            case .product(let p): builder.add(p)
            case .subscription(let s):
                var purchases = s.purchases
                if let token = s.token, let by = replacedAt[token] {
                    matched.insert(token)
                    for i in purchases.indices { PlayReader.end(&purchases[i], at: by.start) }
                    builder.warn(s.node, "replaced by the subscription of \(by.node.place) (its linkedPurchaseToken): "
                                 + "access ends when that one starts" + (by.start.map { ", \($0.rfc3339)" } ?? ""))
                } else if s.replaced {
                    for i in purchases.indices { PlayReader.end(&purchases[i], at: nil) }
                    builder.warn(s.node, "replaced by another subscription "
                                 + "(canceledStateContext.replacementCancellation): it grants nothing more; add each "
                                 + "document's \"purchaseToken\" so that its access ends when the one replacing it "
                                 + "starts")
                }
                for p in purchases {
                    if let key = p.key, let best = latest[key], best.index != index {
                        let which = best.renewal.map { "renewal ..\($0)" }
                            ?? "expiry " + (best.expiry?.rfc3339 ?? "unknown")
                        builder.warn(s.node, "\(key) is reported by a later report of the subscription (\(which)): "
                                     + "that report is used")
                        continue
                    }
                    builder.add(p)
                }
            }
        }
        // A link to no token a document names is said when some document names none.
        let unnamed = pending.contains { if case .subscription(let o) = $0 { o.token == nil } else { false } }
        for case .subscription(let s) in pending where unnamed {
            guard let linked = s.linkedToken, !matched.contains(linked) else { continue }
            builder.warn(s.node, "replaces the subscription of purchase token \(JSONValue.string(linked).compact)"
                         + ", which no document names in \"purchaseToken\": if it is among them, it keeps granting "
                         + "until its own expiry")
        }
    }

    /// What names a subscription's purchase of `product` across its reports: its first order.
    static func key(order first: String, _ product: String) -> String { "play_store order \(first) \(product)" }

    /// An order id and the renewal it is: `GPA.1234-5678-9012-34567..2` is the third renewal (2)
    /// of the subscription whose first order is `GPA.1234-5678-9012-34567` (-1: that order).
    static func order(_ id: String) -> (first: String, renewal: Int) {
        let parts = id.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[parts.count - 2].isEmpty, let n = Int(parts[parts.count - 1]), n >= 0 else {
            return (id, -1)
        }
        return (parts.dropLast(2).joined(separator: "."), n)
    }

    /// A replaced subscription's purchase: it ends at `at` (its access ends there, not at its paid
    /// period's end) or, when that is not known, now: `expired`, no renewal. A payment it still
    /// awaited is no more (it is not in billing retry: the replacement is what is billed).
    private static func end(_ p: inout ImportedPurchase, at: Instant?) {
        p.willRenew = false
        guard let at else { p.status = .expired; return }
        if p.expiresAt.map({ at < $0 }) ?? true { p.expiresAt = at }
        if p.graceUntil.map({ at < $0 }) ?? false { p.graceUntil = at }
        switch p.status {
        case .active, .trialing: p.status = .canceled
        case .billingRetry: p.status = .expired
        default: break
        }
    }

    private mutating func readResource(_ r: Node, into builder: inout StateBuilder) throws(ImportIssue) {
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
    private mutating func readSubscription(_ r: Node, into builder: inout StateBuilder) throws(ImportIssue) {
        let state = try r.required("subscriptionState").word("subscription state", in: PlayReader.subscriptionStates)
            .dropFirst("SUBSCRIPTION_STATE_".count)
        let environment: Environment = r["testPurchase"] != nil ? .test : .live
        let start = try r["startTime"]?.instant(.rfc3339)
        try PlayReader.readCustomer(r["externalAccountIdentifiers"]?["obfuscatedExternalAccountId"], into: &builder)
        if try r["acknowledgementState"]?.word("acknowledgement state", in: PlayReader.acknowledgementStates)
            == "ACKNOWLEDGEMENT_STATE_PENDING", ["ACTIVE", "IN_GRACE_PERIOD"].contains(state) {
            builder.warn(r, PlayReader.notAcknowledged)
        }
        let items = try r.required("lineItems").items()
        guard !items.isEmpty else { throw r.issue("no line items: the subscription names no product") }
        var subscription = Subscription(purchases: [], renewal: nil, firstOrder: nil,
                                        token: try r["purchaseToken"]?.name(),
                                        linkedToken: try r["linkedPurchaseToken"]?.name(), start: start,
                                        replaced: r["canceledStateContext"]?["replacementCancellation"] != nil,
                                        tookEffect: !["PENDING", "PENDING_PURCHASE_CANCELED"].contains(state), node: r)
        for item in items {
            let product = try item.object().required("productId").name()
            let expiry = try item["expiryTime"]?.instant(.rfc3339)
            let prepaid = item["prepaidPlan"] != nil
            let renews = try item["autoRenewingPlan"]?.object()["autoRenewEnabled"]?.bool() ?? (prepaid ? false : nil)
            var p = ImportedPurchase(product: product, store: "play_store", status: .active, purchasedAt: start,
                                     expiresAt: expiry, willRenew: renews, environment: environment, place: item.place)
            // Each renewal is an order of its own (`GPA.1234-5678-9012-34567..2`): the subscription
            // is its first order's, so that two reports of it across a renewal are one purchase (a
            // review: they had counted twice).
            if let order = try (item["latestSuccessfulOrderId"] ?? r["latestOrderId"])?.name() {
                let (first, renewal) = PlayReader.order(order)
                p.key = PlayReader.key(order: first, product)
                subscription.renewal = max(subscription.renewal ?? renewal, renewal)
                subscription.firstOrder = first
            } else if let token = subscription.token {
                p.key = "play_store token \(token) \(product)"
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
            subscription.purchases.append(p)
        }
        pending.append(.subscription(subscription))
    }

    /// A one-time product: its purchase state, and the units it holds (its quantity less the
    /// units refunded). Consumption is not a use: Google's "consumed" marks a purchase delivered
    /// so that it can be bought again, and entlc counts what was delivered.
    private mutating func readProduct(_ r: Node, into builder: inout StateBuilder) throws(ImportIssue) {
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
        try PlayReader.readCustomer(r["obfuscatedExternalAccountId"], into: &builder)
        let consumed = try r["consumptionState"]?.code("consumption state", in: 0...1) == 1
        let acknowledged = try r["acknowledgementState"]?.code("acknowledgement state", in: 0...1) != 0
        if !acknowledged, !consumed, p.status == .active {
            builder.warn(r, PlayReader.notAcknowledged)
        }
        pending.append(.product(p))
    }

    private static let notAcknowledged =
        "not acknowledged: Google refunds and revokes a purchase not acknowledged within three days"

    /// The account id the app gave Google at purchase (`setObfuscatedAccountId`): the customer.
    private static func readCustomer(_ id: Node?, into builder: inout StateBuilder) throws(ImportIssue) {
        if let id, case .string(let text) = id.value, !text.isEmpty { try builder.setCustomer(text, at: id.place) }
    }
}
