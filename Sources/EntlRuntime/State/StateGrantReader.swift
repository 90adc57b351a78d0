/// docs/state.md `grants`: a grant to one customer, read and checked.
extension StateReader {
    static let grantKeys = KeySet(["entitlement", "feature", "amount", "unlimited", "per", "carry", "carry_up_to",
                                   "overage", "overage_up_to", "priority", "from", "until", "id", "reason"])
    static let intervals = Spellings<Interval>()

    /// A per-customer grant (docs/state.md `grants`): an entitlement's, or a feature's or credit
    /// system's allowance, from `from`.
    mutating func grant(_ index: Int) throws(DecodeError) -> StateGrant {
        var entitlement: String?, feature: String?, amount: Int64?, unlimited: Bool?, interval: Interval?
        var carry: Bool?, carryCap: Int64?, overage: Bool?, overageCap: Int64?, priority: Int64?
        var from: Instant?, until: Instant?, id: String?, reason: String?
        try members(StateReader.grantKeys) { (r, known, key) throws(DecodeError) in
            switch known {
            case 0: entitlement = try r.string()
            case 1: feature = try r.string()
            case 2: amount = try r.amount()
            case 3: unlimited = try r.bool()
            case 4: interval = try r.choice(StateReader.intervals, noun: "interval")
            case 5: carry = try r.bool()
            case 6: carryCap = try r.amount()
            case 7: overage = try r.bool()
            case 8: overageCap = try r.amount()
            case 9: priority = try r.amount()
            case 10: from = try r.instant()
            case 11: until = try r.instant()
            case 12: id = try r.string()
            case 13: reason = try r.string()
            default: try r.unknown(key, place: { "grants[\(index)]" }, known: StateReader.grantKeys.names)
            }
        }
        func refuse(_ message: String) -> DecodeError { DecodeError(path: "", message: message) }
        guard let from else { throw refuse("missing \"from\" (when the grant starts)") }
        if let until, until <= from {
            warnings.append(StateError(path: "grants[\(index)].until",
                                       message: "\(until) is not after its \"from\" \(from): the grant never counts"))
        }
        let target: StateGrant.Target
        switch (entitlement, feature) {
        case (let e?, nil):
            target = .entitlement(e)
            let given: [(String, Bool)] = [("amount", amount != nil), ("unlimited", unlimited != nil),
                                           ("per", interval != nil), ("carry", carry != nil),
                                           ("carry_up_to", carryCap != nil),
                                           ("overage", overage != nil), ("overage_up_to", overageCap != nil),
                                           ("priority", priority != nil)]
            let allowance = given.map { $0.1 ? $0.0 : nil }
            if let first = allowance.compactMap({ $0 }).first {
                throw refuse("an entitlement's grant makes it active; \"\(first)\" is for a feature's grant")
            }
        case (nil, let f?): target = .feature(f)
        case (_?, _?): throw refuse("give \"entitlement\" or \"feature\", not both")
        case (nil, nil): throw refuse("missing \"entitlement\" or \"feature\" (what the grant gives)")
        }
        let granted: Grant.Amount
        switch (amount, unlimited) {
        case (let n?, nil), (let n?, false?): granted = .count(n)
        case (nil, true?): granted = .unlimited
        case (nil, nil), (nil, false?): granted = .none
        case (_?, true?): throw refuse("give \"amount\" or \"unlimited\": true, not both")
        }
        if carryCap != nil, carry != true { throw refuse("\"carry_up_to\" needs \"carry\": true") }
        if overageCap != nil, overage != true { throw refuse("\"overage_up_to\" needs \"overage\": true") }
        if carry == true, interval == nil {
            throw refuse("\"carry\" needs \"per\": what is left of one window carries to the next")
        }
        return StateGrant(target: target, amount: granted, interval: interval,
                          carry: carry == true ? carryCap.map(Grant.Carry.upTo) ?? .uncapped : nil,
                          overage: overage == true ? overageCap.map(Grant.Overage.upTo) ?? .unbounded : nil,
                          priority: priority ?? 0, from: from, until: until, id: id, reason: reason)
    }
}

