/// docs/state.md `ledger`: a compacted state's snapshot, read and checked (every error located).
extension StateReader {
    static let ledgerKeys = KeySet(["before", "rules", "grants", "with_unknown", "overage", "ids"])
    static let entryKeys = KeySet(["feature", "grant", "purchase", "override", "state_grant", "window_start",
                                   "window_end", "balance", "carried", "used", "overdrawn"])
    static let purchaseKeyKeys = KeySet(["product", "store", "purchased_at", "ordinal"])
    static let foldedUseKeys = KeySet(["id", "feature", "amount", "level", "at"])

    /// The `ledger` object, or nil for `null`.
    mutating func ledger() throws(DecodeError) -> LedgerSnapshot? {
        if try null() { return nil }
        var before: Instant?, rules: String?
        var grants: [LedgerSnapshot.Entry] = [], withUnknown: [LedgerSnapshot.Entry] = []
        var overage: [LedgerSnapshot.Overage] = [], ids: [LedgerSnapshot.FoldedUse] = []
        try members(StateReader.ledgerKeys) { (r, known, key) throws(DecodeError) in
            switch known {
            case 0: before = try r.instant()
            case 1: rules = try r.string()
            case 2:
                try r.elements(limit: r.limits.grants, "ledger entries") { (r, i) throws(DecodeError) in
                    grants.append(try r.ledgerEntry(place: "ledger.grants[\(i)]"))
                }
            case 3:
                try r.elements(limit: r.limits.grants, "ledger entries") { (r, i) throws(DecodeError) in
                    withUnknown.append(try r.ledgerEntry(place: "ledger.with_unknown[\(i)]"))
                }
            case 4:
                if try r.null() { return }
                try r.members(StateReader.noKeys) { (r, _, key) throws(DecodeError) in
                    let amount = try r.total()
                    overage.append(LedgerSnapshot.Overage(feature: r.s.text(key), amount: amount))
                }
            case 5:
                try r.elements(limit: r.limits.usageRecords, "ids") { (r, i) throws(DecodeError) in
                    ids.append(try r.foldedUse(place: "ledger.ids[\(i)]"))
                }
            default: try r.unknown(key, place: { "ledger" }, known: StateReader.ledgerKeys.names)
            }
        }
        guard let before else { throw refuse("missing \"before\" (the instant the uses before it were folded at)") }
        guard let rules else { throw refuse("missing \"rules\" (the SHA-256 of the rules it was made with)") }
        let hex = rules.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
        guard rules.utf8.count == 64, hex else {
            throw DecodeError(path: "rules", message: "\"\(rules)\" is not a SHA-256 (64 lowercase hex digits)")
        }
        return LedgerSnapshot(before: before, rules: rules, grants: grants, withUnknown: withUnknown, overage: overage,
                              ids: ids)
    }

    /// One grant instance and its ledger's position.
    private mutating func ledgerEntry(place: String) throws(DecodeError) -> LedgerSnapshot.Entry {
        var feature: String?, grant: Int64?, purchase: LedgerSnapshot.PurchaseKey?, override: String?
        var stateGrant: String?, start: Instant?, end: Instant?
        var balance: Int64?, carried: Int64?, used: Int64?, overdrawn: Int64?
        try members(StateReader.entryKeys) { (r, known, key) throws(DecodeError) in
            switch known {
            case 0: feature = try r.string()
            case 1: grant = try r.amount()
            case 2: purchase = try r.purchaseKey(place: place + ".purchase")
            case 3: override = try r.string()
            case 4: stateGrant = try r.string()
            case 5: start = try r.instant()
            case 6: end = try r.instant()
            case 7: balance = try r.amount(total: true)
            case 8: carried = try r.total()
            case 9: used = try r.total()
            case 10: overdrawn = try r.total()
            default: try r.unknown(key, place: { place }, known: StateReader.entryKeys.names)
            }
        }
        guard let feature else { throw refuse("missing \"feature\"") }
        guard let balance else { throw refuse("missing \"balance\"") }
        if grant == nil {
            guard stateGrant != nil else {
                throw refuse("missing \"grant\" (its place among the feature's grants) or \"state_grant\"")
            }
            if purchase != nil || override != nil {
                throw refuse("a grant to this customer (\"state_grant\" without \"grant\") has no purchase or override")
            }
        } else if [purchase != nil, override != nil, stateGrant != nil].filter({ $0 }).count > 1 {
            throw refuse("give at most one of \"purchase\", \"override\" and \"state_grant\": what is behind the grant")
        }
        if (start == nil) != (end == nil) { throw refuse("give \"window_start\" and \"window_end\" together") }
        return LedgerSnapshot.Entry(
            feature: feature, grant: grant.map { Int($0) }, purchase: purchase, override: override,
            stateGrant: stateGrant,
            position: LedgerSnapshot.Position(windowStart: start, windowEnd: end, balance: balance,
                                              carried: carried ?? 0, used: used ?? 0, overdrawn: overdrawn ?? 0))
    }

    private mutating func purchaseKey(place: String) throws(DecodeError) -> LedgerSnapshot.PurchaseKey? {
        if try null() { return nil }
        var product: String?, store: String?, bought: Instant?, ordinal: Int64?
        try members(StateReader.purchaseKeyKeys) { (r, known, key) throws(DecodeError) in
            switch known {
            case 0: product = try r.string()
            case 1: store = try r.string()
            case 2: bought = try r.instant()
            case 3: ordinal = try r.amount()
            default: try r.unknown(key, place: { place }, known: StateReader.purchaseKeyKeys.names)
            }
        }
        guard let product else { throw refuse("missing \"product\"") }
        return LedgerSnapshot.PurchaseKey(product: product, store: store, purchasedAt: bought,
                                          ordinal: Int(ordinal ?? 0))
    }

    private mutating func foldedUse(place: String) throws(DecodeError) -> LedgerSnapshot.FoldedUse {
        var id: String?, feature: String?, amount: Int64?, level: Int64?, at: Instant?
        try members(StateReader.foldedUseKeys) { (r, known, key) throws(DecodeError) in
            switch known {
            case 0: id = try r.string()
            case 1: feature = try r.string()
            case 2: amount = try r.amount()
            case 3: level = try r.amount()
            case 4: at = try r.instant()
            default: try r.unknown(key, place: { place }, known: StateReader.foldedUseKeys.names)
            }
        }
        guard let id else { throw refuse("missing \"id\"") }
        guard let feature else { throw refuse("missing \"feature\"") }
        guard let at else { throw refuse("missing \"at\"") }
        switch (amount, level) {
        case (let n?, nil): return LedgerSnapshot.FoldedUse(id: id, feature: feature, kind: .amount(n), at: at)
        case (nil, let n?): return LedgerSnapshot.FoldedUse(id: id, feature: feature, kind: .level(n), at: at)
        case (_?, _?): throw refuse("give \"amount\" or \"level\", not both")
        case (nil, nil): throw refuse("missing \"amount\" (a use) or \"level\"")
        }
    }

    private func refuse(_ message: String) -> DecodeError { DecodeError(path: "", message: message) }

    /// A sum the ledger keeps: what was used, carried, overdrawn or is owed. entlc never writes a
    /// null for one, and read as none it would erase what it holds (overage owed, billable use).
    private mutating func total() throws(DecodeError) -> Int64 {
        guard let amount = try amount(total: true) else {
            throw DecodeError(path: "", message: "null is no total: the ledger keeps what was used and is owed here")
        }
        return amount
    }
}
