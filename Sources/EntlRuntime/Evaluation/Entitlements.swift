/// The purchase that represents an entitlement: a real purchase, or a product overridden to
/// `purchased` (a lifetime purchase with no metadata), or, when no purchase makes it active, the
/// state grant that does (§3, `promotional`).
enum Representative: Equatable {
    case purchase(Int)
    case override(product: Int)
    case stateGrant(Int)
}

extension Evaluation {
    /// The owned purchase behind entitlement `e` that lasts longest (§3): no expiry beats any
    /// expiry, then the later end, then the earlier `purchased_at`, then declaration order of the
    /// product, then state order.
    func representative(of e: Int) -> Representative? {
        // A state grant represents it when its constraint does not hold (a purchase that makes it
        // active still represents it).
        if let grant = representingGrant(ofEntitlement: e), constraintValue(e).0 != .true { return .stateGrant(grant) }
        var best: (rep: Representative, key: (End, Instant?, Int, Int))?
        func offer(_ rep: Representative, _ key: (End, Instant?, Int, Int)) {
            if let b = best, !Evaluation.ranksBefore(key, b.key) { return }
            best = (rep, key)
        }
        for i in graph.entitlements[e].behind.indices {
            let p = graph.entitlements[e].behind[i].product  // read where the graph holds it: not retained
            if products[p].override == .purchased { offer(.override(product: p), (.never, nil, p, -1)) }
        }
        forEachOwnedPurchase(behind: e) { j, p in offer(.purchase(j), rank(j, product: p)) }
        return best?.rep
    }

    /// Calls `body` with each owned purchase behind entitlement `e` that its purchase-date
    /// qualifier admits (of a product no override decides), and its product: what may represent
    /// it, or pay for its grants.
    @inline(__always)
    private func forEachOwnedPurchase(behind e: Int, _ body: (_ j: Int, _ product: Int) -> Void) {
        for i in graph.entitlements[e].behind.indices {
            let behind = graph.entitlements[e].behind[i]  // read where the graph holds it: not retained
            guard products[behind.product].override == nil else { continue }
            for j in purchases(of: behind.product) where standings[j] == .owned && admits(behind.date, j) {
                body(j, behind.product)
            }
        }
    }

    /// Purchase `j` (of `product`) as `ranksBefore` orders the purchases behind an entitlement.
    private func rank(_ j: Int, product: Int) -> (End, Instant?, Int, Int) {
        (accessEnd(j), state.purchases[j].purchasedAt, product, j)
    }

    /// The state indices of the purchases of `p` a purchase-date qualifier admits (all of them
    /// without one; a purchase without `purchased_at` is admitted by none).
    func purchases(of p: Int, _ date: PurchaseDateFilter?) -> [Int] {
        purchases(of: p).filter { admits(date, $0) }
    }

    /// The purchase whose anchor and grant instance an entitlement's grants have when purchase
    /// `j` represents it (§5): of the owned purchases behind it, the one bought first (dated before
    /// undated; then as the representative is ranked). The representative — the one lasting longest
    /// — changes as renewals leapfrog (two subscriptions renewing on the 1st and the 15th); each
    /// change laid the windows anew, a fresh allowance mid-window (a review), where the purchase
    /// bought first pays until it ends.
    func payer(of e: Int, representedBy j: Int) -> Int {
        var best = (j, rank(j, product: Int(purchaseProduct[j])))
        forEachOwnedPurchase(behind: e) { k, p in
            let key = rank(k, product: p)
            let earlier = switch (key.1, best.1.1) {
            case (let x?, let y?) where x != y: x < y
            case (_?, nil): true
            case (nil, _?): false
            default: Evaluation.ranksBefore(key, best.1)
            }
            if earlier { best = (k, key) }
        }
        return best.0
    }

    /// Whether a purchase-date qualifier (if any) admits purchase `j`.
    func admits(_ date: PurchaseDateFilter?, _ j: Int) -> Bool {
        guard let date else { return true }
        return state.purchases[j].purchasedAt.map(date.admits) ?? false
    }

    /// Whether a purchase behind entitlement `e` (§3) has `status` (one dated after `t` is behind
    /// nothing yet, §2 rule 11).
    func anyPurchaseBehind(_ e: Int, withStatus status: PurchaseStatus) -> Bool {
        graph.entitlements[e].behind.indices.contains { i in
            let b = graph.entitlements[e].behind[i]
            return purchases(of: b.product).contains { j in
                state.purchases[j].status == status && !isDatedLater(j) && admits(b.date, j)
            }
        }
    }

    /// Whether purchase `j` is dated after `t` (§2 rule 11: it does not exist yet).
    func isDatedLater(_ j: Int) -> Bool { state.purchases[j].purchasedAt.map { $0 > at } ?? false }

    /// §3: whether purchase `j` has ended by `t`: it is not owned through its status (`expired`,
    /// `revoked`, `billing_retry`) or its access end is at or before `t`. An unknown purchase and
    /// one dated after `t` have not ended.
    func hasEnded(_ j: Int) -> Bool {
        let status = state.purchases[j].status
        if status == .unknown || isDatedLater(j) { return false }
        if status == .expired || status == .revoked || status == .billingRetry { return true }
        return accessEnd(j).instant.map { $0 <= at } ?? false
    }

    /// §2 rule 9: `P purchased before T` (or since): true when an owned purchase of P qualifies;
    /// else unknown when an owned purchase has no `purchased_at` or an unknown purchase might
    /// qualify; else false. An override decides alone. When true, it ends with the longest-lasting
    /// qualifying purchase.
    func qualified(_ p: Int, _ date: PurchaseDateFilter) -> (Truth, End) {
        switch products[p].override {
        case .purchased?: return (.true, .never)
        case .notPurchased?: return (.false, .never)
        case .unknown?: return (.unknown, .never)
        case nil: break
        }
        var end: End?
        var unknown = false
        for j in purchases(of: p) {
            let bought = state.purchases[j].purchasedAt
            switch standings[j] {
            case .owned:
                if let bought {
                    if date.admits(bought) { end = max(end ?? accessEnd(j), accessEnd(j)) }
                } else {
                    unknown = true
                }
            case .unknown:
                if bought.map(date.admits) ?? true { unknown = true }
            default:
                break
            }
        }
        if let end { return (.true, end) }
        return (unknown ? .unknown : .false, .never)
    }

    /// Longest-lasting first: later end (never last of all), earlier purchase (unknown dates
    /// after known ones), earlier product, earlier state position.
    static func ranksBefore(_ a: (End, Instant?, Int, Int), _ b: (End, Instant?, Int, Int)) -> Bool {
        if a.0 != b.0 { return a.0 > b.0 }
        switch (a.1, b.1) {
        case (let x?, let y?) where x != y: return x < y
        case (_?, nil): return true
        case (nil, _?): return false
        default: break
        }
        if a.2 != b.2 { return a.2 < b.2 }
        return a.3 < b.3
    }

    /// For an inactive entitlement: the purchase behind it that ended most recently, by access end
    /// (one its status ended without an access end by its `purchased_at`).
    func mostRecentlyEnded(_ e: Int) -> Int? {
        var best: (index: Int, end: Instant?, bought: Instant?)?
        for i in graph.entitlements[e].behind.indices {
            let behind = graph.entitlements[e].behind[i]
            for j in purchases(of: behind.product) where admits(behind.date, j) && hasEnded(j) {
                let bought = state.purchases[j].purchasedAt  // the field alone, not the purchase copied
                let end = accessEnd(j).instant ?? bought
                guard let b = best else {
                    best = (j, end, bought)
                    continue
                }
                let later: Bool
                switch (end, b.end) {
                case (let x?, let y?) where x != y: later = x > y
                case (_?, nil): later = true
                case (nil, _?): later = false
                default:
                    switch (bought, b.bought) {
                    case (let x?, let y?) where x != y: later = x > y
                    case (_?, nil): later = true
                    default: later = false
                    }
                }
                if later { best = (j, end, bought) }
            }
        }
        return best?.index
    }

    /// §3: whether a purchase behind `e` has ended by `t` through its status `expired` or its access
    /// end: `expired`. One a refund ended while another is owned is reported, but nothing expired
    /// (it had said `expired`).
    func anyExpired(behind e: Int) -> Bool {
        graph.entitlements[e].behind.contains { behind in
            purchases(of: behind.product).contains { j in
                admits(behind.date, j) && hasEnded(j)
                    && (state.purchases[j].status == .expired || accessEnd(j).instant.map { $0 <= at } ?? false)
            }
        }
    }

    /// §6: besides its products' own changes, what changes what entitlement `e` reports: a
    /// purchase behind it dated later, when it comes to exist, and while `e` is not active, one
    /// that ends (it is then the one that ended, with its date).
    func changeBehind(_ e: Int, _ truth: Truth) -> Instant? {
        var next: Instant?
        for i in graph.entitlements[e].behind.indices {
            let behind = graph.entitlements[e].behind[i]
            for j in purchases(of: behind.product) where admits(behind.date, j) {
                if isDatedLater(j) {
                    next = earliest(next, state.purchases[j].purchasedAt)
                } else if truth != .true, state.purchases[j].status != .unknown, let end = accessEnd(j).instant,
                          end > at {
                    next = earliest(next, end)
                }
            }
        }
        return next
    }

    /// `will_renew` as the tracker gave it, else true for an active, trialing or past-due
    /// subscription (docs/state.md).
    func willRenew(_ j: Int) -> Bool {
        if let w = state.purchases[j].willRenew { return w }
        guard graph.products[Int(purchaseProduct[j])].kind == .subscription else { return false }
        switch state.purchases[j].status {
        case .active, .trialing, .pastDue: return true
        default: return false
        }
    }

    func periodName(_ p: Int) -> String? {
        switch graph.products[p].kind {
        case .subscription: return graph.products[p].period?.rawValue
        case .nonConsumable: return "lifetime"
        case .consumable, .nonRenewing: return nil
        }
    }

    public func entitlement(_ e: Int) -> EntitlementResult {
        var result = EntitlementResult()
        entitlement(e, into: &result)
        return result
    }

    /// The fields of `result` that name purchase `j` and its terms: product, store, renewal,
    /// ownership, period. The purchase's fields are read one at a time (a purchase read whole is
    /// a copy, its strings retained).
    @inline(__always)
    private func report(_ j: Int, into result: inout EntitlementResult) {
        let p = Int(purchaseProduct[j])
        result.product = graph.products[p].name
        result.displayName = graph.products[p].displayName
        result.store = store(of: j)
        result.storeProductID = storeProductID(of: j)
        result.willRenew = willRenew(j)
        result.ownership = state.purchases[j].ownership
        result.period = periodName(p)
    }

    /// `entitlement(e)` into `result`, a blank one (`EntitlementResult()`, or one `reset()`): the
    /// batch answers every line into one result, not a new one made and dropped each line.
    package func entitlement(_ e: Int, into result: inout EntitlementResult) {
        let truth = entitlementValue(e).0
        result.name = graph.entitlements[e].name
        result.decision = truth.decision
        // What the purchases behind it say (a billing retry, a revocation, a change, the one that
        // ended last) is looked for only when it has some: most customers have none behind most
        // entitlements.
        let purchased = graph.entitlements[e].behind.indices.contains {
            !purchases(of: graph.entitlements[e].behind[$0].product).isEmpty
        }
        result.inBillingRetry = purchased && anyPurchaseBehind(e, withStatus: .billingRetry)
        result.validUntil = earliest(earliest(nextChange(watching: graph.entitlements[e].watchedProducts),
                                              purchased ? changeBehind(e, truth) : nil), nextStateGrantChange)
        let anyOwned = purchased && graph.entitlements[e].behind.indices.contains { i in
            let b = graph.entitlements[e].behind[i]
            return (b.date.map { qualified(b.product, $0).0 } ?? products[b.product].truth) == .true
        }
        result.isRevoked = purchased && !anyOwned && anyPurchaseBehind(e, withStatus: .revoked)

        let rep = truth == .true ? representative(of: e) : nil
        switch rep {
        case .stateGrant?:
            result.status = .promotional  // active through a grant to this customer, no purchase
        case .override(let p)?:
            result.product = graph.products[p].name
            result.displayName = graph.products[p].displayName
            result.ownership = .purchased
            result.period = "lifetime"
            result.status = .active
        case .purchase(let j)?:
            report(j, into: &result)
            let status = state.purchases[j].status
            result.inGracePeriod = status == .pastDue
            result.isTrial = status == .trialing
            result.trialEnd = result.isTrial ? state.purchases[j].expiresAt : nil
            result.status = switch status {
            case .trialing: .trialing
            case .pastDue: .pastDue
            case .canceled: .canceled
            default: .active
            }
        case nil where truth != .true:
            // Inactive (or undetermined): report the purchase that ended most recently.
            if purchased, let j = mostRecentlyEnded(e) {
                report(j, into: &result)
                // Never an end after `t`: a purchase its status ended before its dates reports none.
                result.expiresAt = accessEnd(j).instant.flatMap { $0 <= at ? $0 : nil }
            }
        case nil:
            result.status = .active  // active with no purchase behind it (`everyone`, a `not`): nothing to report
        }
        if truth == .true { result.expiresAt = entitlementValue(e).1.instant }
        switch truth {
        case .true: break
        case .unknown: result.status = .unknown
        case .false:
            result.status = result.inBillingRetry ? .billingRetry : result.isRevoked ? .revoked
                : result.product != nil && anyExpired(behind: e) ? .expired : .neverPurchased
        }
        if unlocks, truth != .true {
            result.unlockedBy = unlockingProducts(graph.entitlements[e].unlockCandidates) {
                $0.entitlementValue(e).0 == .true
            }
        }

        switch truth {
        case .true:
            let product = result.product, until = result.expiresAt
            // Read only when no product is behind it (the constraint's tree is walked, its nodes retained).
            let everyone = product == nil && graph.entitlements[e].constraint.mentionsEveryone
            if case .stateGrant(let i)? = rep {
                let name = stateGrantName(i), why = state.grants[i].reason
                result.why = Reason { text in
                    text.write("active through a grant to this customer (")
                    text.write(code: name)
                    if let why {
                        text.write(", ")
                        text.write(string: why)
                    }
                    text.write(UInt8(ascii: ")"))
                    text.write(until: until)
                }
                break
            }
            result.why = Reason { text in
                text.write("active")
                if let product {
                    text.write(" through ")
                    text.write(code: product)
                } else if everyone {
                    text.write(" for every customer")
                }
                text.write(until: until)
            }
        case .unknown:
            result.reason = "it depends on \(unknownProducts(graph.entitlements[e].watchedProducts))"
        case .false:
            if result.isRevoked {
                result.why = "the purchase behind it was revoked"
            } else if result.inBillingRetry {
                result.why = "a payment failed (billing retry)"
            } else if let end = result.expiresAt {
                result.why = Reason { text in
                    text.write("expired ")
                    end.writeRFC3339(to: &text)
                }
            } else {
                result.why = "no purchase satisfies its constraint"
            }
        }
        if explains {
            result.explanation = ["entitlement `\(graph.entitlements[e].name)`: \(truth.rawValue)"]
            for b in graph.entitlements[e].behind {
                guard let date = b.date else { continue }
                let admitted = purchases(of: b.product, date)
                result.explanation.append("  purchases of `\(graph.products[b.product].name)` made "
                                          + "\(date.before ? "before" : "since") \(date.instant): "
                                          + (admitted.isEmpty ? "none" : Evaluation.purchaseList(admitted)))
            }
            result.explanation += explainProducts(graph.entitlements[e].watchedProducts)
        }
    }
}
