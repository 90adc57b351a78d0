/// The batch's bytes of each result shape (`EncodableResult.write(to:)`): the bytes `encode(to:)`
/// writes member by member to a `JSONBytes` (the reference, which `ResultBytesTests` compares them
/// with over generated results), written in a few runs through a `JSONCursor` instead: one
/// reservation per run, keys and the values a decision implies as one literal each, and a run of
/// members that are constant together (an entitlement with no purchase behind it: every member from
/// `product` to `is_trial` null or false) as one copy chosen by a test of the case.
extension EntitlementResult {
    /// `encode(to:)`'s bytes, in runs.
    func write(to s: inout JSONBytes) {
        var c = s.beginRun(reserving: 400 + JSONCursor.room(name))
        c.separator()
        c.write(#"{"kind":"entitlement","name":"#)
        c.string(name)
        switch decision {
        case .allowed: c.write(#","decision":"allowed","allowed":true,"is_active":true,"status":"#)
        case .denied: c.write(#","decision":"denied","allowed":false,"is_active":false,"status":"#)
        case .undetermined: c.write(#","decision":"undetermined","allowed":false,"is_active":false,"status":"#)
        }
        c.write(status.quoted)
        if hasNoPurchase {
            c.write(#"""
                ,"product":null,"display_name":null,"store":null,"store_product_id":null,"expires_at":null,\#
                "trial_end":null,"will_renew":false,"in_grace_period":false,"in_billing_retry":false,\#
                "is_revoked":false,"ownership":null,"period":null,"is_trial":false
                """#)
            s.endRun(c, endsInValue: true)
        } else {
            // The purchase's members in a run of their own, whose room only they need counted.
            s.endRun(c, endsInValue: true)
            c = s.beginRun(reserving: 400 + JSONCursor.room(product) + JSONCursor.room(displayName)
                               + JSONCursor.room(store) + JSONCursor.room(storeProductID) + JSONCursor.room(period))
            writePurchase(to: &c)
            s.endRun(c, endsInValue: true)
        }
        s.writeEnd(unlockedBy: unlockedBy, validUntil: validUntil, why: why, sources: nil, explanation: explanation)
    }

    /// The members from `product` to `is_trial`.
    @inline(__always)
    private func writePurchase(to c: inout JSONCursor) {
        c.write(#","product":"#); c.string(product)
        c.write(#","display_name":"#); c.string(displayName)
        c.write(#","store":"#); c.string(store)
        c.write(#","store_product_id":"#); c.string(storeProductID)
        c.write(#","expires_at":"#); c.instant(expiresAt)
        c.write(#","trial_end":"#); c.instant(trialEnd)
        c.write(#","will_renew":"#); c.bool(willRenew)
        c.write(#","in_grace_period":"#); c.bool(inGracePeriod)
        c.write(#","in_billing_retry":"#); c.bool(inBillingRetry)
        c.write(#","is_revoked":"#); c.bool(isRevoked)
        c.write(#","ownership":"#)
        switch ownership {
        case nil: c.null()
        case .purchased?: c.write(#""purchased""#)
        case .familyShared?: c.write(#""family_shared""#)
        }
        c.write(#","period":"#); c.string(period)
        c.write(#","is_trial":"#); c.bool(isTrial)
    }

    /// Every member from `product` to `is_trial` null or false: the result of a customer with no
    /// purchase behind the entitlement (the commonest), written as one literal.
    private var hasNoPurchase: Bool {
        product == nil && displayName == nil && store == nil && storeProductID == nil && expiresAt == nil
            && trialEnd == nil && !willRenew && !inGracePeriod && !inBillingRetry && !isRevoked
            && ownership == nil && period == nil && !isTrial
    }
}

extension ProductResult {
    /// `encode(to:)`'s bytes, in runs.
    func write(to s: inout JSONBytes) {
        var c = s.beginRun(reserving: 120 + JSONCursor.room(name) + JSONCursor.intRoom)
        do {
            c.separator()
            c.write(#"{"kind":"product","name":"#)
            c.string(name)
            switch decision {
            case .allowed: c.write(#","decision":"allowed","allowed":true,"quantity":"#)
            case .denied: c.write(#","decision":"denied","allowed":false,"quantity":"#)
            case .undetermined: c.write(#","decision":"undetermined","allowed":false,"quantity":"#)
            }
            c.int(quantity)
        }
        s.endRun(c, endsInValue: true)
        s.writeEnd(unlockedBy: nil, validUntil: validUntil, why: why, sources: nil, explanation: explanation)
    }
}

extension FeatureResult {
    /// `encode(to:)`'s bytes, in runs.
    func write(to s: inout JSONBytes) {
        let f = stored
        let room = 700 + JSONCursor.room(f.pointee.name) + JSONCursor.room(f.pointee.displayName)
            + JSONCursor.room(f.pointee.unit) + JSONCursor.room(f.pointee.creditSystem)
        var c = s.beginRun(reserving: room)
        do {
            c.separator()
            c.write(#"{"kind":"feature","name":"#)
            c.string(f.pointee.name)
            c.write(#","display_name":"#)
            c.string(f.pointee.displayName)
            switch f.pointee.kind {
            case .boolean: c.write(#","type":"boolean","decision":"#)
            case .singleUse, .continuous: c.write(#","type":"metered","decision":"#)
            case .credits: c.write(#","type":"credits","decision":"#)
            }
            switch f.pointee.decision {
            case .allowed: c.write(#""allowed","allowed":true"#)
            case .denied: c.write(#""denied","allowed":false"#)
            case .undetermined: c.write(#""undetermined","allowed":false"#)
            }
            if f.pointee.replayed { c.write(#","replayed":true"#) }
            // A boolean feature's balance members are null or false together: one literal.
            if f.pointee.required == nil && f.pointee.balance == nil && f.pointee.unit == nil
                && !f.pointee.unlimited && f.pointee.overage == nil && f.pointee.overdrawn == nil {
                c.write(#"""
                    ,"required":null,"balance":null,"unit":null,"unlimited":false,"overage":null,"overdrawn":null
                    """#)
            } else {
                c.write(#","required":"#); c.int(f.pointee.required)
                c.write(#","balance":"#); c.int(f.pointee.balance)
                c.write(#","unit":"#); c.string(f.pointee.unit)
                c.write(#","unlimited":"#); c.bool(f.pointee.unlimited)
                c.write(#","overage":"#); c.int(f.pointee.overage)
                c.write(#","overdrawn":"#); c.int(f.pointee.overdrawn)
            }
            switch f.pointee.via {
            case nil: c.write(#","via":null"#)
            case .direct?: c.write(#","via":"direct""#)
            case .credits?: c.write(#","via":"credits""#)
            case .overage?: c.write(#","via":"overage""#)
            }
            // No credit system named and nothing short (allowed, or boolean): one literal.
            if f.pointee.creditSystem == nil && f.pointee.creditsRequired == nil && f.pointee.creditBalance == nil
                && f.pointee.shortfall == nil {
                c.write(#","credit_system":null,"credits_required":null,"credit_balance":null,"shortfall":null"#)
            } else {
                c.write(#","credit_system":"#); c.string(f.pointee.creditSystem)
                c.write(#","credits_required":"#); c.int(f.pointee.creditsRequired)
                c.write(#","credit_balance":"#); c.int(f.pointee.creditBalance)
                c.write(#","shortfall":"#); c.int(f.pointee.shortfall)
            }
        }
        s.endRun(c, endsInValue: true)
        // The usual end (no list, no sources, no explanation) passes no array: each passed, read from
        // the fields, would be retained and released.
        if f.pointee.unlockedBy == nil && f.pointee.sources.isEmpty && f.pointee.explanation.isEmpty {
            return s.writeEnd(unlockedBy: .some(nil), validUntil: f.pointee.validUntil, why: f.pointee.why,
                              sources: .some(nil), explanation: nil)
        }
        s.writeEnd(unlockedBy: f.pointee.unlockedBy, validUntil: f.pointee.validUntil, why: f.pointee.why,
                   sources: f.pointee.sources, explanation: f.pointee.explanation)
    }
}

extension BalanceSource {
    /// The room `write(to:)` takes.
    static func room(_ sources: [BalanceSource]) -> Int {
        sources.reduce(0) { room, s in
            room + 300 + 3 * JSONCursor.instantRoom + 7 * JSONCursor.intRoom + JSONCursor.room(s.grant)
                + JSONCursor.room(s.kind) + JSONCursor.room(s.product) + JSONCursor.room(s.id)
                + JSONCursor.room(s.reason)
        }
    }

    /// `encode(to:)`'s bytes at a cursor, in `room` of its array.
    func write(to c: inout JSONCursor) {
        c.write(#"{"grant":"#); c.string(grant)
        c.write(#","kind":"#); c.string(kind)
        c.write(#","product":"#); c.string(product)
        c.write(#","allowance":"#); c.int(allowance)
        c.write(#","carried":"#); c.int(carried)
        c.write(#","used":"#); c.int(used)
        c.write(#","remaining":"#); c.int(remaining)
        c.write(#","overdrawn":"#); c.int(overdrawn)
        c.write(#","overdraft_left":"#); c.int(overdraftLeft)
        c.write(#","window_start":"#); c.instant(windowStart)
        c.write(#","resets_at":"#); c.instant(resetsAt)
        c.write(#","expires_at":"#); c.instant(expiresAt)
        c.write(#","certain":"#); c.bool(certain)
        if kind == "state" {
            c.write(#","id":"#); c.string(id)
            c.write(#","reason":"#); c.string(reason)
        }
        c.write("}")
    }
}

extension EvaluationResult {
    /// `encode(to:)`'s bytes, in runs.
    func write(to s: inout JSONBytes) {
        switch self {
        case .product(let r): r.write(to: &s)
        case .entitlement(let r): r.write(to: &s)
        case .feature(let r): r.write(to: &s)
        }
    }
}

extension EntitlementStatus {
    /// `word`, quoted, as one literal.
    var quoted: StaticString {
        switch self {
        case .active: #""active""#
        case .trialing: #""trialing""#
        case .pastDue: #""past_due""#
        case .canceled: #""canceled""#
        case .billingRetry: #""billing_retry""#
        case .revoked: #""revoked""#
        case .expired: #""expired""#
        case .neverPurchased: #""never_purchased""#
        case .unknown: #""unknown""#
        case .promotional: #""promotional""#
        }
    }
}

extension JSONBytes {
    /// What every result ends with: `unlocked_by` (nil for a product's, which has none), then
    /// `valid_until`, `reason`, a feature's `sources` (nil for the others; `.some(nil)`: none), an
    /// `explanation` when there is one (nil: none), and the closing brace; in one run when the list,
    /// the reason (a literal or kept text aside) and the explanation leave nothing to write apart.
    mutating func writeEnd(unlockedBy: [String]??, validUntil: Instant?, why: Reason, sources: [BalanceSource]??,
                           explanation: [String]?) {
        if case let products?? = unlockedBy {
            key("unlocked_by")
            beginArray()
            for p in products { string(p) }
            endArray()
        }
        let literal = why.literal
        let sourcesRoom = sources?.map(BalanceSource.room) ?? 0
        var c = beginRun(reserving: 48 + JSONCursor.instantRoom + ByteCursor.room(utf8: literal?.utf8CodeUnitCount ?? 0)
                             + sourcesRoom)
        if case .some(nil) = unlockedBy { c.write(#","unlocked_by":null"#) }
        c.write(#","valid_until":"#)
        c.instant(validUntil)
        c.write(#","reason":"#)
        if let literal {
            c.string(literal)
        } else {
            // A reason formed when read: written apart (`reason(_:)`), then the rest in a run.
            endRun(c, endsInValue: false)
            reason(why)
            c = beginRun(reserving: 16 + sourcesRoom)
        }
        if let sources {
            c.write(#","sources":["#)
            for i in sources?.indices ?? 0..<0 {
                if i > 0 { c.write(",") }
                sources.unsafelyUnwrapped[i].write(to: &c)
            }
            c.write("]")
        }
        guard let explanation, !explanation.isEmpty else {
            c.write("}")
            return endRun(c, endsInValue: true)
        }
        endRun(c, endsInValue: true)
        key("explanation")
        beginArray()
        for l in explanation { string(l) }
        endArray()
        endObject()
    }

    /// The end of a batch line after its results: the results array and the envelope closed, and
    /// a newline.
    mutating func endResultsLine() {
        var c = beginRun(reserving: 3)
        c.write("]}\n")
        endRun(c, endsInValue: false)
    }
}

/// The values and members a run writes (`JSONBytes.beginRun`).
extension JSONCursor {
    /// The room `int` takes (`Int64.min`, 20 bytes) and `null`'s 4 bytes past it (a word).
    static let intRoom = 24

    @inline(__always)
    mutating func write(_ literal: StaticString) { bytes.write(literal: literal) }

    @inline(__always)
    mutating func bool(_ value: Bool) { bytes.write(word: value ? 0x6575_7274 : 0x65_736C_6166, count: value ? 4 : 5) }

    /// A string or null, in `ByteCursor.room(utf8:)` of its count. A small ASCII string (a name,
    /// a store: most of a result's) is read from its two words, checked and stored as words.
    @inline(__always)
    mutating func string(_ value: String?) {
        guard let value else { return null() }
        if smallStrings {
            let (first, second) = value.representationWords
            if second >> 60 == 0xE {
                let n = Int(truncatingIfNeeded: second >> 56) & 0xF
                let rest = second & 0x00FF_FFFF_FFFF_FFFF
                // The zero bytes past the string stop a plain run as a control byte does.
                let plain = n <= 8 ? (JSONScanner.plainRunStop(first, nonASCII: true) ?? 8) >= n
                    : JSONScanner.plainRunStop(first, nonASCII: true) == nil
                        && (JSONScanner.plainRunStop(rest, nonASCII: true) ?? 8) >= n &- 8
                if plain {
                    bytes.check(17, slack: 8)  // the two words, within the room and the slack
                    let target = UnsafeMutableRawPointer(bytes.position)
                    target.storeBytes(of: UInt8(ascii: "\""), as: UInt8.self)
                    (target + 1).storeBytes(of: first, as: UInt64.self)
                    (target + 9).storeBytes(of: rest, as: UInt64.self)
                    (target + 1 + n).storeBytes(of: UInt8(ascii: "\""), as: UInt8.self)
                    return bytes.skip(n &+ 2)
                }
            }
        }
        string(contiguous: value)
    }

    @inline(never)
    private mutating func string(contiguous value: String) {
        let written: Void? = value.utf8.withContiguousStorageIfAvailable { bytes.writeString(utf8: $0) }
        if written == nil {
            var value = value
            value.withUTF8 { bytes.writeString(utf8: $0) }
        }
    }

    /// The room `string(value)` takes.
    @inline(__always)
    static func room(_ value: String?) -> Int { ByteCursor.room(utf8: value?.utf8.count ?? 2) }

    /// A literal as a JSON string (a fixed reason), in `ByteCursor.room(utf8:)` of its count: copied
    /// whole when the sink found it needed no escape before.
    @inline(__always)
    mutating func string(_ literal: StaticString) {
        if literals.contains(literal) {
            bytes.write(UInt8(ascii: "\""))
            bytes.write(literal: literal)
            return bytes.write(UInt8(ascii: "\""))
        }
        literal.withUTF8Buffer { text in
            if ByteBuffer.quoted(ifPlain: text, at: UnsafeMutableRawPointer(bytes.position)) {
                bytes.skip(text.count &+ 2)
                literals.insert(literal)
            } else {
                JSONValue.writeString(utf8: text, to: &bytes)
            }
        }
    }

    /// A number or null, in `intRoom`.
    @inline(__always)
    mutating func int(_ value: Int64?) {
        guard let value else { return null() }
        // One digit (most counts here) needs no division.
        guard 0 <= value, value <= 9 else { return wide(value) }
        bytes.write(UInt8(truncatingIfNeeded: value) &+ UInt8(ascii: "0"))
    }

    /// A number past one digit: up to four digits (a balance, credits) as two-digit pairs, one
    /// division by 100; others as `JSONValue.writeInteger` writes them, a division a digit.
    @inline(never)
    private mutating func wide(_ value: Int64) {
        guard 10 <= value, value <= 9999 else { return JSONValue.writeInteger(value, to: &bytes) }
        let two = Instant.digitPair
        let v = UInt32(truncatingIfNeeded: value), high = v / 100, low = v &- high &* 100
        switch v {
        case ..<100: bytes.write(word: two(v), count: 2)
        case ..<1000: bytes.write(word: UInt64(high &+ 0x30) | two(low) << 8, count: 3)
        default: bytes.write(word: two(high) | two(low) << 16, count: 4)
        }
    }
}
