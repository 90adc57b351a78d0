import EntlRuntime

/// Stripe API objects: Subscriptions (`object: "subscription"`, one purchase per item, priced by
/// `price.id`) and Checkout Sessions in `payment` mode with `line_items` expanded, one object, a
/// list object or an array per document. Periods are read from the subscription (API versions
/// before 2025-03-31) or from its items (later ones). docs/import.md has the mapping and the
/// reasons for it.
enum StripeReader {
    static let statuses = [
        "incomplete", "incomplete_expired", "trialing", "active", "past_due", "canceled", "unpaid", "paused",
    ]

    static func read(_ document: Node, into builder: inout StateBuilder) throws(ImportIssue) {
        if case .array = document.value {
            for item in try document.items() { try read(item, into: &builder) }
            return
        }
        guard case .object = document.value else { throw StateImporter.unrecognized(document, as: .stripe) }
        switch try document["object"]?.string() {
        case "list"?:
            for item in try document.required("data").items() { try read(item, into: &builder) }
            if try document["has_more"]?.bool() == true {
                builder.warn(document, "the list goes on past this page (`has_more`): what later pages hold is not "
                             + "imported unless they are given too")
            }
        case "subscription"?:
            try readSubscription(document, into: &builder)
        case "checkout.session"?:
            try readSession(document, into: &builder)
        default:
            throw StateImporter.unrecognized(document, as: .stripe)
        }
    }

    private static func readSubscription(_ s: Node, into builder: inout StateBuilder) throws(ImportIssue) {
        let id = try s.required("id").name()
        let status = try s.required("status").word("subscription status", in: statuses)
        let environment = try self.environment(s)
        try readCustomer(s, into: &builder)
        let start = try either(s["start_date"]) { () throws(ImportIssue) in try s.required("created") }
            .instant(.seconds)
        let cancelAtPeriodEnd = try s["cancel_at_period_end"]?.bool() ?? false
        let cancelAt = try s["cancel_at"]?.instant(.seconds)
        let trialEnd = try s["trial_end"]?.instant(.seconds)
        let ended = try (s["ended_at"] ?? s["canceled_at"])?.instant(.seconds)
        let list = try s.required("items").object()
        let items = try list.required("data").items()
        guard !items.isEmpty else { throw s.issue("no items: the subscription names no price") }
        if try list["has_more"]?.bool() == true {
            builder.warn(list, "the items go on past this page (`has_more`): the prices of later pages are not "
                         + "imported; expand the subscription's items in full")
        }
        for item in items {
            let product = try price(item)
            guard let end = try (item["current_period_end"] ?? s["current_period_end"])?.instant(.seconds) else {
                throw item.issue("missing \"current_period_end\" (neither the item nor its subscription has one)")
            }
            let periodStart = try (item["current_period_start"] ?? s["current_period_start"])?.instant(.seconds)
            var p = ImportedPurchase(product: product, store: "stripe", status: .active, purchasedAt: start,
                                     periodStart: periodStart, expiresAt: end, environment: environment,
                                     place: item.place, key: "stripe \(id) \(try item["id"]?.name() ?? product)")
            p.group = "stripe \(id)"
            if let quantity = try item["quantity"]?.count(), quantity != 1 {
                p.quantity = quantity
                // The state keeps it, but only a consumable's grants count per unit (a review: a
                // five-seat subscription had granted one seat's allowance, unsaid).
                builder.warn(item, "quantity \(quantity): a subscription's grants count once, whatever its quantity "
                             + "(seats): a per-seat allowance is not multiplied")
            }
            // A cancellation already scheduled: at the period's end, or at `cancel_at` within it.
            let endsEarly = cancelAt.map { $0 <= end } ?? false
            let stops = cancelAtPeriodEnd || endsEarly
            switch status {
            case "active":
                p.status = stops ? .canceled : .active
                p.willRenew = !stops
            case "trialing":
                p.status = .trialing
                p.expiresAt = trialEnd ?? end
                p.willRenew = !stops
            case "past_due":
                // Stripe retries the renewal's payment and has no grace period of its own: access
                // runs while it retries, to the end of the period it is billing.
                p.status = .pastDue
                p.graceUntil = end
                p.willRenew = !stops
            case "unpaid", "incomplete":
                p.status = .billingRetry  // an invoice is open and unpaid: no access until it is paid
            case "canceled":
                p.status = .expired  // Stripe's `canceled` is the end; access ended with it
                p.final = true  // a subscription is never active again once canceled
                // One canceled before it started (a scheduled start) ended as it began: it gave nothing.
                p.expiresAt = max(ended ?? end, start)
            default:
                p.status = .expired  // incomplete_expired (never paid), paused (a trial ended without a way to pay)
            }
            // A cancellation within the period ends it there, also while a payment is retried (a
            // review: a past-due one had run to the period's end).
            if endsEarly, let cancelAt, [.canceled, .trialing, .pastDue].contains(p.status) {
                p.expiresAt = min(p.expiresAt ?? cancelAt, cancelAt)
                p.graceUntil = p.graceUntil.map { min($0, cancelAt) }
            }
            builder.add(p)
        }
    }

    /// A Checkout Session in payment mode: one purchase per line item, owned once paid.
    private static func readSession(_ s: Node, into builder: inout StateBuilder) throws(ImportIssue) {
        let id = try s.required("id").name()
        let mode = try s.required("mode").word("checkout mode", in: ["payment", "subscription", "setup"])
        guard mode == "payment" else {
            return builder.warn(s, "a checkout session in \(mode) mode is not a purchase of its own"
                                + (mode == "subscription" ? ": import the subscription it created" : ""))
        }
        let paid = try s.required("payment_status").word("payment status",
                                                          in: ["paid", "unpaid", "no_payment_required"])
        let status = try s["status"]?.word("checkout status", in: ["open", "complete", "expired"])
        if let status, status != "complete" {
            return builder.warn(s, "checkout session \(id) is \(status), not complete: no purchase")
        }
        let environment = try self.environment(s)
        let created = try s.required("created").instant(.seconds)
        try readCustomer(s, into: &builder)
        guard let lineItems = s["line_items"] else {
            throw s.issue("missing \"line_items\": retrieve the session with `expand[]=line_items`")
        }
        if try lineItems.object()["has_more"]?.bool() == true {
            throw lineItems.issue("more line items than this page holds: list them all "
                                  + "(GET /v1/checkout/sessions/\(id)/line_items)")
        }
        for item in try lineItems.required("data").items() {
            let product = try price(item)
            builder.add(ImportedPurchase(
                product: product, store: "stripe", status: paid == "unpaid" ? .billingRetry : .active,
                purchasedAt: created, quantity: try item["quantity"]?.count() ?? 1, environment: environment,
                place: item.place, key: "stripe \(id) \(try item["id"]?.name() ?? product)"))
        }
    }

    /// The price an item or line item is for: its product id in the rules (`id stripe "price_…"`).
    private static func price(_ item: Node) throws(ImportIssue) -> String {
        let price = try item.object().required("price")
        if case .string = price.value { return try price.name() }
        return try price.object().required("id").name()
    }

    /// `livemode: false` is Stripe's test mode: the test environment.
    private static func environment(_ object: Node) throws(ImportIssue) -> Environment {
        try object.required("livemode").bool() ? .live : .test
    }

    /// `customer`: an id, or the customer object when expanded.
    private static func readCustomer(_ object: Node, into builder: inout StateBuilder) throws(ImportIssue) {
        guard let customer = object["customer"] else { return }
        let id = try customer.value.isObject ? customer.required("id") : customer
        try builder.setCustomer(try id.name(), at: id.place)
    }
}

extension JSONValue {
    var isObject: Bool {
        if case .object = self { return true }
        return false
    }
}
