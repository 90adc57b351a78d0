import EntlRuntime

/// One purchase as a vendor reported it, already in the state's terms (docs/state.md).
struct ImportedPurchase {
    var product: String
    var store: String
    var status: PurchaseStatus
    var purchasedAt: Instant? = nil
    var periodStart: Instant? = nil
    var expiresAt: Instant? = nil
    var graceUntil: Instant? = nil
    var willRenew: Bool? = nil
    var ownership: Ownership = .purchased
    /// Units held (consumables); nil leaves the state's default of 1.
    var quantity: Int64? = nil
    var environment: Environment
    /// Where the vendor said it, for warnings.
    var place: ImportPlace
    /// The vendor's identity of the purchase (a subscription id, an order id), so that the same
    /// purchase in two documents counts once; nil when the payload has none.
    var key: String? = nil
    /// An end the vendor never goes back on (Stripe's `canceled`): kept over a report of the same
    /// purchase that does not say it, as a refund is, whatever the order of the files — and over
    /// every purchase of its `group` (a subscription's other items, in a stale copy).
    var final = false
    var group: String? = nil
}

/// A grant no purchase is behind (a promotion), as the state's `grants[]` holds it.
struct ImportedGrant {
    var entitlement: String
    var from: Instant
    var until: Instant?
    var id: String?
    var reason: String?
    var place: ImportPlace
}

/// Collects what the documents of one import say about one customer: the purchases (the same
/// purchase reported twice counts once), the grants, and who the customer is.
struct StateBuilder {
    private(set) var customer: (id: String, place: ImportPlace)?
    private(set) var customerSince: Instant?
    private(set) var purchases: [ImportedPurchase] = []
    private(set) var grants: [ImportedGrant] = []
    var warnings: [ImportIssue] = []
    private var purchaseIndex: [String: Int] = [:]
    /// The groups a report ended for good (`ImportedPurchase.final`), with where it ended them.
    private var finalGroups: [String: Instant?] = [:]

    /// A purchase of a group ended for good: ended (at `end`, if known and earlier), for good.
    private static func endForGood(_ p: inout ImportedPurchase, at end: Instant?) {
        if p.status != .revoked { p.status = .expired }
        p.willRenew = false
        if let end { p.expiresAt = min(p.expiresAt ?? end, end) }
        p.final = true
    }

    /// Names the customer. Two different ids are an error: one state is one customer, and
    /// merging two customers' purchases would give one of them the other's access.
    mutating func setCustomer(_ id: String, at place: ImportPlace) throws(ImportIssue) {
        if let existing = customer {
            guard existing.id == id else {
                let (new, old) = (JSONValue.string(id).compact, JSONValue.string(existing.id).compact)
                throw ImportIssue(place: place, message: "customer \(new) is not the customer \(old) of "
                                  + "\(existing.place): one state holds one customer")
            }
            return
        }
        customer = (id, place)
    }

    /// The earliest of the account creation dates the documents give.
    mutating func noteCustomerSince(_ instant: Instant) {
        customerSince = min(customerSince ?? instant, instant)
    }

    /// Adds a purchase; one whose key was seen before replaces the earlier report, in its place —
    /// unless the earlier one is a refund, an end for good or fewer units held and this one is not
    /// (`kept`): those are never lost to the order of the files (Play and undated RevenueCat
    /// reports had kept whichever came last). A purchase of a group a report ended for good ends
    /// with it, whichever came first.
    mutating func add(_ reported: ImportedPurchase) {
        var purchase = reported
        let existing = purchase.key.flatMap { purchaseIndex[$0] }
        if let i = existing, let why = StateBuilder.kept(purchases[i], over: purchase) {
            return warnings.append(ImportIssue(place: purchase.place, message: "\(purchase.key!) was already "
                                               + "reported at \(purchases[i].place)\(why)"))
        }
        // A subscription ended for good ends every item of it, those only a stale copy names too
        // (a review: an item the canceled copy no longer listed had kept granting).
        if let group = purchase.group {
            if purchase.final {
                if finalGroups[group] == nil { finalGroups[group] = purchase.expiresAt }
                for i in purchases.indices where purchases[i].group == group && !purchases[i].final {
                    StateBuilder.endForGood(&purchases[i], at: purchase.expiresAt)
                }
            } else if let end = finalGroups[group] {
                StateBuilder.endForGood(&purchase, at: end)
            }
        }
        if let i = existing {
            warnings.append(ImportIssue(place: purchase.place, message: "\(purchase.key!) was already reported at "
                                        + "\(purchases[i].place); the later report is used"))
            purchases[i] = purchase
        } else {
            if let key = purchase.key { purchaseIndex[key] = purchases.count }
            purchases.append(purchase)
        }
    }

    /// Why the earlier report of a purchase is kept over a later one, if it is: a refund, an end
    /// for good, or units a partial refund took are never lost to the order of the files.
    private static func kept(_ earlier: ImportedPurchase, over later: ImportedPurchase) -> String? {
        if earlier.status == .revoked, later.status != .revoked { return ", refunded; the refund is kept" }
        if earlier.final, !later.final, later.status != .revoked { return ", ended for good; that end is kept" }
        // Nor are the units a partial refund took from a one-time purchase (a subscription's
        // quantity may grow: seats added).
        let held = earlier.quantity ?? 1
        if earlier.expiresAt == nil, later.expiresAt == nil, held < later.quantity ?? 1 {
            return " with \(held) held; those units are kept"
        }
        return nil
    }

    mutating func add(_ grant: ImportedGrant) {
        grants.append(grant)
    }

    mutating func warn(_ node: Node, _ message: String) {
        warnings.append(node.issue(message))
    }

    /// The state document (docs/state.md): keys in the format's order, every purchase with its
    /// store, status, ownership and environment spelled out, so a reader sees each choice.
    var json: JSONValue {
        var top: [(key: String, value: JSONValue)] = []
        if let customer { top.append(("customer", .string(customer.id))) }
        if let customerSince { top.append(("customer_since", .string(customerSince.rfc3339))) }
        top.append(("purchases", .array(purchases.map(\.json))))
        if !grants.isEmpty { top.append(("grants", .array(grants.map(\.json)))) }
        return .object(top)
    }
}

extension ImportedPurchase {
    var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("product", .string(product)), ("store", .string(store)), ("status", .string(status.rawValue)),
        ]
        for (key, instant) in [("purchased_at", purchasedAt), ("period_start", periodStart), ("expires_at", expiresAt),
                               ("grace_until", graceUntil)] {
            if let instant { members.append((key, .string(instant.rfc3339))) }
        }
        if let willRenew { members.append(("will_renew", .bool(willRenew))) }
        members.append(("ownership", .string(ownership.rawValue)))
        if let quantity { members.append(("quantity", .int(quantity))) }
        members.append(("environment", .string(environment.rawValue)))
        return .object(members)
    }
}

extension ImportedGrant {
    var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("entitlement", .string(entitlement)), ("from", .string(from.rfc3339)),
        ]
        if let until { members.append(("until", .string(until.rfc3339))) }
        if let id { members.append(("id", .string(id))) }
        if let reason { members.append(("reason", .string(reason))) }
        return .object(members)
    }
}
