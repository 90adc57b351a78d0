/// docs/state.md: the state object, its purchases and usage records, read into their slots.
extension StateReader {
    static let stateKeys = KeySet(objectKeys: ["customer", "customer_since", "now", "environment", "purchases",
                                               "usage", "overrides", "$schema", "grants", "ledger"])
    static let purchaseKeys = KeySet(objectKeys: ["product", "store", "status", "purchased_at", "period_start",
                                                  "expires_at", "grace_until", "will_renew", "ownership", "quantity",
                                                  "environment"])
    static let usageKeys = KeySet(objectKeys: ["feature", "event", "amount", "level", "at", "id"])
    /// An object whose keys are names (overrides): none is known.
    static let noKeys = KeySet([])

    static let statuses = Spellings<PurchaseStatus>()
    static let ownerships = Spellings<Ownership>()
    static let environments = Spellings<Environment>()
    static let overrides = Spellings<Override>()

    mutating func read(into state: inout PurchaseState) throws(DecodeError) {
        guard s.peek() != nil else { throw .syntax(s, "unexpected end of input, expected a value") }
        guard s.peek() == UInt8(ascii: "{") else {
            let e = mismatch("an object")
            if e.isSyntax { throw e }
            let found = e.message.dropFirst("expected an object, found ".count)
            throw DecodeError(path: "", message: "the state must be a JSON object, found " + found)
        }
        try members(StateReader.stateKeys) { (r, known, key) throws(DecodeError) in
            switch known {
            case 4:
                try r.elements(limit: r.limits.purchases, "purchases") { (r, i) throws(DecodeError) in
                    if i == 0 { state.purchases.reserveCapacity(8) }  // not grown 1, 2, 4, 8
                    state.purchases.append(StateReader.blankPurchase)
                    try r.purchase(i, into: &state.purchases[i])
                }
            case 5:
                try r.elements(limit: r.limits.usageRecords, "usage records") { (r, i) throws(DecodeError) in
                    if i == 0 { state.usage.reserveCapacity(8) }
                    state.usage.append(StateReader.blankRecord)
                    try r.usage(i, into: &state.usage[i])
                }
            case 6:
                if try r.null() { return }
                try r.members(StateReader.noKeys) { (r, _, key) throws(DecodeError) in
                    guard let value = try r.choice(StateReader.overrides, noun: "override") else { return }
                    state.setOverride(r.s.text(key), value)
                }
            case 8:
                try r.elements(limit: r.limits.grants, "grants") { (r, i) throws(DecodeError) in
                    state.grants.append(try r.grant(i))
                }
            case 9: state.ledger = try r.ledger()
            default:
                guard try StateReader.stateField(known, &r, &state) else {
                    try r.unknown(key, place: { "" }, known: StateReader.stateKeys.names)
                    return
                }
            }
        }
        try scan { try $0.end() }
        state.warnings = warnings
    }

    /// What a purchase is read into, appended to the state's array (copying a constant costs less
    /// than building a purchase and then moving it in, which is what appending a new value compiles
    /// to; a usage record, a smaller value, is built and appended).
    static let blankPurchase = Purchase(product: "")

    /// Reads a purchase into `p`, a blank purchase in its place in the state (a purchase read into
    /// a variable of its own would be copied into the array, and so would a returned one).
    private mutating func purchase(_ index: Int, into p: inout Purchase) throws(DecodeError) {
        var product: String?
        try members(StateReader.purchaseKeys) { (r, known, key) throws(DecodeError) in
            guard try StateReader.purchaseField(known, &r, &p, &product) else {
                try r.unknown(key, place: { "purchases[\(index)]" }, known: StateReader.purchaseKeys.names)
                return
            }
        }
        guard let product else { throw DecodeError(path: "", message: "missing \"product\"") }
        p.product = product
    }

    /// What a usage record is read into, appended to the state's array (as `blankPurchase`).
    static let blankRecord = UsageRecord(feature: "", kind: .amount(0))

    /// Reads a usage record into `record`, a record in its place in the state.
    private mutating func usage(_ index: Int, into record: inout UsageRecord) throws(DecodeError) {
        var fields = UsageFields()
        try members(StateReader.usageKeys) { (r, known, key) throws(DecodeError) in
            guard try StateReader.usageField(known, &r, &record, &fields) else {
                try r.unknown(key, place: { "usage[\(index)]" }, known: StateReader.usageKeys.names)
                return
            }
        }
        try fields.finish(&record)
    }
}

/// How a decoder reads a field's value: the general `StateReader`, which explains every problem,
/// and the common-form `StateLineReader`, which gives up on anything unusual. Both read fields
/// into a state through the same functions below, so a key means the same thing to both.
protocol StateValueReader {
    associatedtype Failure: Error
    /// Each reads `null` as nil (absent).
    mutating func string() throws(Failure) -> String?
    mutating func instant() throws(Failure) -> Instant?
    /// An integer amount in 0 … 10^15.
    mutating func integer() throws(Failure) -> Int64?
    mutating func bool() throws(Failure) -> Bool?
    mutating func choice<T>(_ spellings: StateReader.Spellings<T>, noun: String) throws(Failure) -> T?
}

extension StateReader: StateValueReader {
    mutating func integer() throws(DecodeError) -> Int64? { try amount() }
}

/// What a usage record's keys said, besides the values read into the record's place: which of
/// them were given (not `null`), checked once the record is read (`finish`). The record is read
/// in its place (a record of an earlier state, `clear(keepingPlaces:)`, or a blank one appended):
/// its strings go there once, not into fields first and then moved (a record built from fields
/// cost a destruction of the fields and a release of each string it replaced).
struct UsageFields {
    static let feature: UInt8 = 1, event: UInt8 = 2, amount: UInt8 = 4, level: UInt8 = 8, at: UInt8 = 16, id: UInt8 = 32
    var given: UInt8 = 0

    /// Checks what was given, and empties what was not (`at` and `id`, which a record in its place
    /// may hold from an earlier state). `name` and `kind` hold the given ones' values.
    func finish(_ record: inout UsageRecord) throws(DecodeError) {
        let amount = given & UsageFields.amount != 0, level = given & UsageFields.level != 0
        if amount && level { throw DecodeError(path: "", message: "give \"amount\" or \"level\", not both") }
        if !amount && !level {
            throw DecodeError(path: "", message: "missing \"amount\" (a use) or \"level\" (a continuous level)")
        }
        let feature = given & UsageFields.feature != 0, event = given & UsageFields.event != 0
        if feature && event { throw DecodeError(path: "", message: "give \"feature\" or \"event\", not both") }
        if !feature && !event { throw DecodeError(path: "", message: "missing \"feature\" (or \"event\")") }
        record.isEvent = event
        if given & UsageFields.at == 0 { record.at = nil }
        if given & UsageFields.id == 0 { record.id = nil }
    }
}

/// What each key of a state, a purchase and a usage record means (docs/state.md), for either
/// decoder: false for a key they do not read this way (an unknown one, or, for the state, one
/// whose value the decoder reads itself: `purchases`, `usage`, `overrides`, `grants`, `ledger`).
extension StateReader {
    @inline(__always)
    static func stateField<R: StateValueReader>(_ known: Int?, _ r: inout R, _ state: inout PurchaseState)
        throws(R.Failure) -> Bool
    {
        switch known {
        case 0: state.customer = try r.string()
        case 1: state.customerSince = try r.instant()
        case 2: state.now = try r.instant()
        case 3: state.environment = try r.choice(StateReader.environments, noun: "environment")
        case 7: _ = try r.string()  // `$schema`: where an editor finds the JSON Schema; nothing to evaluate
        default: return false
        }
        return true
    }

    /// `product`, required, is read into `product` (the caller sets it last).
    @inline(__always)
    static func purchaseField<R: StateValueReader>(
        _ known: Int?, _ r: inout R, _ p: inout Purchase, _ product: inout String?
    ) throws(R.Failure) -> Bool {
        switch known {
        case 0: product = try r.string()
        case 1: p.store = try r.string()
        case 2: p.status = try r.choice(StateReader.statuses, noun: "status") ?? .active
        case 3: p.purchasedAt = try r.instant()
        case 4: p.periodStart = try r.instant()
        case 5: p.expiresAt = try r.instant()
        case 6: p.graceUntil = try r.instant()
        case 7: p.willRenew = try r.bool()
        case 8: p.ownership = try r.choice(StateReader.ownerships, noun: "ownership") ?? .purchased
        case 9: p.quantity = try r.integer() ?? 1
        case 10: p.environment = try r.choice(StateReader.environments, noun: "environment") ?? .live
        default: return false
        }
        return true
    }

    /// Read into `record`'s place, what was given noted in `u` (`UsageFields.finish` checks it).
    /// A `null` is no value given: `feature` and `event` (the name) and `amount` and `level` (the
    /// kind) then keep what the other of the pair wrote.
    @inline(__always)
    static func usageField<R: StateValueReader>(_ known: Int?, _ r: inout R, _ record: inout UsageRecord,
                                                _ u: inout UsageFields) throws(R.Failure) -> Bool
    {
        switch known {
        case 0:
            guard let name = try r.string() else { break }
            record.name = name
            u.given |= UsageFields.feature
        case 1:
            guard let name = try r.string() else { break }
            record.name = name
            u.given |= UsageFields.event
        case 2:
            guard let amount = try r.integer() else { break }
            record.kind = .amount(amount)
            u.given |= UsageFields.amount
        case 3:
            guard let level = try r.integer() else { break }
            record.kind = .level(level)
            u.given |= UsageFields.level
        case 4:
            record.at = try r.instant()
            u.given |= UsageFields.at
        case 5:
            record.id = try r.string()
            u.given |= UsageFields.id
        default: return false
        }
        return true
    }
}
