/// The common state, decoded straight from its bytes: what `PurchaseState.read` tries first (the
/// batch's hot path). It reads the state a tracker usually writes — `customer`, `customer_since`,
/// `now`, `environment`, purchases and usage records with any of their keys — when every string is
/// ASCII with no escape, every instant has the whole-second UTC form (`2026-11-22T12:00:00Z`),
/// every integer is plain digits, and keys are matched from their bytes (`KeySet.match`, or the
/// bytes that came before them in earlier states, `KeyOrder`). Anything
/// else — another key, a repeated one, an escape, a byte past ASCII, `1e3`, an offset, any syntax
/// error — makes it give up, with the state left blank, and the general decoder (`StateReader`)
/// reads the input from its start: that one explains every problem, warns of unknown keys and is
/// the reference. Both read each field through the same functions (`StateReader.purchaseField` and
/// the others), and an input this reader accepts decodes there to an equal state with no warning
/// (`StateLineReaderTests`, over generated and mutated inputs).
///
/// What it saves is the general decoder's bookkeeping: no closure per member, no key list for
/// duplicate keys (a bit per known key), no error paths built, no depth counting (it reads three
/// levels and nothing deeper).
package struct StateLineReader {
    /// Gave up: the input is not of the common form (it may still be a valid state).
    package struct Declined: Error {}

    /// The cursor (JSON's whitespace, `peek`); values are read from `base` a word at a time.
    private var s: JSONScanner
    private let base: UnsafePointer<UInt8>
    private let names: StateNames.View?
    /// The templates tried before each key, and learned.
    private let templates: KeyOrder.View

    private init(_ bytes: UnsafeBufferPointer<UInt8>, base: UnsafePointer<UInt8>, names: StateNames.View?,
                 templates: KeyOrder.View) {
        s = JSONScanner(bytes)
        self.base = base
        self.names = names
        self.templates = templates
    }

    /// Decodes `bytes` into `state`, a blank state, when it is of the common form; else leaves
    /// `state` blank and returns false. `order`: the bytes before each key in earlier states, tried
    /// first, and learned from this one.
    package static func read(_ bytes: UnsafeBufferPointer<UInt8>, into state: inout PurchaseState,
                             options: StateDecodingOptions, order: inout KeyOrder) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let templates = order.view
        do {
            if let names = options.names {
                try names.withView { (view) throws(Declined) in
                    var reader = StateLineReader(bytes, base: base, names: view, templates: templates)
                    try reader.state(into: &state, limits: options.limits)
                }
            } else {
                var reader = StateLineReader(bytes, base: base, names: nil, templates: templates)
                try reader.state(into: &state, limits: options.limits)
            }
            return true
        } catch {
            state.clear()  // blank again, its arrays' storage kept (`EvaluationScratch`)
            return false
        }
    }

    /// `state`'s purchases and usage records, if any, are those of an earlier state
    /// (`clear(keepingPlaces:)`): each is read into the next of their places, and those left over
    /// are removed.
    ///
    /// Objects and arrays are walked by loops over `nextKey` and `more`, not by functions that
    /// take the body of each member as a closure: a closure's body was a call per key, and the
    /// purchase it reads into was reached through the closure's context; here each field is
    /// read straight into its place.
    private mutating func state(into state: inout PurchaseState, limits: StateLimits) throws(Declined) {
        var (purchases, records) = (0, 0)
        var members = Members()
        while let known = try nextKey(&members, .state) {
            switch known {
            case 4:
                guard try array() else { continue }
                repeat {
                    guard purchases < limits.purchases else { throw Declined() }
                    if purchases < state.purchases.count {
                        try purchase(into: &state.purchases[purchases], reset: true)
                    } else {
                        if purchases == 0 { state.purchases.reserveCapacity(8) }  // not grown 1, 2, 4, 8
                        state.purchases.append(StateReader.blankPurchase)
                        try purchase(into: &state.purchases[purchases], reset: false)
                    }
                    purchases += 1
                } while try more(UInt8(ascii: "]"))
            case 5:
                guard try array() else { continue }
                repeat {
                    guard records < limits.usageRecords else { throw Declined() }
                    if records == state.usage.count {
                        if records == 0 { state.usage.reserveCapacity(8) }
                        state.usage.append(StateReader.blankRecord)
                    }
                    try usage(into: &state.usage[records])
                    records += 1
                } while try more(UInt8(ascii: "]"))
            default:
                // `overrides`, `grants` and `ledger` are read by the general decoder.
                guard try StateReader.stateField(known, &self, &state) else { throw Declined() }
            }
        }
        guard s.peek() == nil else { throw Declined() }
        // Removed one by one from the end: usually one or two, and `removeSubrange` or
        // `removeLast(_:)` went through a generic replacement (about 200 instructions).
        while state.purchases.count > purchases { state.purchases.removeLast() }
        while state.usage.count > records { state.usage.removeLast() }
    }

    /// Reads a purchase into `p`, its place; `reset`: a purchase of an earlier state is there
    /// (else a blank one). Its `product` is set last, or the state given up (and cleared).
    @inline(__always)
    private mutating func purchase(into p: inout Purchase, reset: Bool) throws(Declined) {
        if reset { p.resetAllButProduct() }
        var product: String?
        var members = Members()
        while let known = try nextKey(&members, .purchase) {
            guard try StateReader.purchaseField(known, &self, &p, &product) else { throw Declined() }
        }
        guard let product else { throw Declined() }
        p.product = product
    }

    /// Reads a usage record into `record`, its place (a record of an earlier state's or a blank one).
    private mutating func usage(into record: inout UsageRecord) throws(Declined) {
        var fields = UsageFields()
        var members = Members()
        while let known = try nextKey(&members, .usage) {
            guard try StateReader.usageField(known, &self, &record, &fields) else { throw Declined() }
        }
        do {
            try fields.finish(&record)
        } catch {
            throw Declined()
        }
    }

    // MARK: Structure

    /// The next byte, after any whitespace.
    @inline(__always)
    private mutating func next() throws(Declined) -> UInt8 {
        guard let c = s.peek() else { throw Declined() }
        return c
    }

    /// `open`, then whether a member or an element follows (false: the empty `{}` or `[]`, read).
    @inline(__always)
    private mutating func open(_ open: UInt8, _ close: UInt8) throws(Declined) -> Bool {
        guard try next() == open else { throw Declined() }
        s.index += 1
        guard try next() == close else { return true }
        s.index += 1
        return false
    }

    /// The start of the array at the cursor: whether an element follows, with the cursor on it
    /// (false: `null`, none, or the empty `[]`, read). The elements are read in a loop ended by
    /// `more("]")`.
    @inline(__always)
    private mutating func array() throws(Declined) -> Bool {
        if try null() { return false }
        return try open(UInt8(ascii: "["), UInt8(ascii: "]"))
    }

    /// After a member or an element: true after `,` (another follows), false after `close`.
    @inline(__always)
    private mutating func more(_ close: UInt8) throws(Declined) -> Bool {
        if pair(UInt8(ascii: ","), UInt8(ascii: " ")) { return true }  // the common `, `
        let c = try next()
        s.index += 1
        if c == UInt8(ascii: ",") { return true }
        guard c == close else { throw Declined() }
        return false
    }

    /// Where `nextKey` stands in an object: the keys read (a bit each) and the last one (or the start).
    private struct Members {
        var seen: UInt64 = 0
        var last = KeyOrder.start
    }

    /// The next member of the object at the cursor (its start when `members` is new): its key's
    /// index in the set's keys, with the cursor on its value, each key at most once; nil after
    /// the object's end. The bytes before a key are first compared with those that came after the
    /// same key (or the start) in earlier objects of `set` (`KeyOrder`); when they differ, they
    /// are read, and learned (`readKey`).
    @inline(__always)
    private mutating func nextKey(_ members: inout Members, _ set: KeyOrder.Set) throws(Declined) -> Int? {
        let start = s.index
        let known: Int
        if let (k, length) = templates.template(after: members.last, in: set, at: UnsafeRawPointer(base + start),
                                                available: s.bytes.count &- start) {
            known = k
            s.index = start &+ length
        } else if members.last != KeyOrder.start, start < s.bytes.count, base[start] == UInt8(ascii: "}") {
            // The object's end, right after its last value: what `readKey` would read (a call
            // per object).
            s.index = start &+ 1
            return nil
        } else {
            guard let k = try readKey(after: members.last, in: set) else { return nil }
            known = k
        }
        guard members.seen & (1 &<< known) == 0 else { throw Declined() }
        members.seen |= 1 &<< known
        members.last = known
        return known
    }

    /// What no template matched: the separator (`{` or `,`, or the end of the object: nil), the
    /// key and its colon read, and the bytes from `s.index` learned. Kept out of the loops that
    /// read keys, with the key sets (each a `static let`, reached through a check per use).
    @inline(never)
    private mutating func readKey(after last: Int, in set: KeyOrder.Set) throws(Declined) -> Int? {
        let start = s.index
        if last == KeyOrder.start {
            guard try open(UInt8(ascii: "{"), UInt8(ascii: "}")) else { return nil }
        } else {
            guard try more(UInt8(ascii: "}")) else { return nil }
        }
        let known: Int
        switch set {
        case .state: known = try key(StateReader.stateKeys)
        case .purchase: known = try key(StateReader.purchaseKeys)
        case .usage: known = try key(StateReader.usageKeys)
        }
        templates.learn(known, after: last, in: set, UnsafeRawPointer(base + start), count: s.index &- start,
                        available: s.bytes.count &- start)
        return known
    }

    /// A key of `keys` and its colon: the key's index.
    @inline(__always)
    private mutating func key(_ keys: StateReader.KeySet) throws(Declined) -> Int {
        guard try next() == UInt8(ascii: "\"") else { throw Declined() }
        let found: Int?
        if let (index, length) = keys.match(at: s.index, in: s.bytes) {
            found = index
            s.index += length + 2
        } else {
            // Within 17 bytes of the end (`"usage": []}`): the key is scanned first.
            found = keys.index(try plainString())
        }
        guard let found else { throw Declined() }
        if pair(UInt8(ascii: ":"), UInt8(ascii: " ")) { return found }  // the common `": "`
        guard try next() == UInt8(ascii: ":") else { throw Declined() }
        s.index += 1
        return found
    }

    /// Steps past `first` and `second` when they are the next two bytes (no whitespace before them).
    @inline(__always)
    private mutating func pair(_ first: UInt8, _ second: UInt8) -> Bool {
        guard s.index + 2 <= s.bytes.count,
              UnsafeRawPointer(base + s.index).loadUnaligned(as: UInt16.self)
                == UInt16(littleEndian: UInt16(first) | UInt16(second) << 8)
        else { return false }
        s.index += 2
        return true
    }

    /// Reads `null` (true) when it is next; false, with the value's first byte at the cursor, otherwise.
    @inline(__always)
    private mutating func null() throws(Declined) -> Bool {
        guard try next() == UInt8(ascii: "n") else { return false }
        // "null" as a little-endian word: 0x6C6C756E.
        guard s.index + 4 <= s.bytes.count,
              UnsafeRawPointer(base + s.index).loadUnaligned(as: UInt32.self) == 0x6C6C_756E
        else { throw Declined() }
        s.index += 4
        return true
    }
}

extension StateLineReader: StateValueReader {
    /// A string in ASCII with no escape: the kept String when `names` has it. The common case, a
    /// name right at the cursor, is read inline where the field is; anything else (whitespace
    /// first, `null`, a string that is no name) by `otherString`, out of line.
    @inline(__always)
    mutating func string() throws(Declined) -> String? {
        if s.index < s.bytes.count, base[s.index] == UInt8(ascii: "\""), let name = knownName() { return name }
        return try otherString()
    }

    /// With the cursor on a string's opening quote: the kept String when `names` has the string,
    /// the cursor past it; else nil, the cursor unmoved.
    @inline(__always)
    private mutating func knownName() -> String? {
        guard let names, let (words, length) = JSONScanner.shortString(at: s.index, in: s.bytes),
              let name = names.name(words, length: length)
        else { return nil }
        s.index += length + 2
        return name
    }

    @inline(never)
    private mutating func otherString() throws(Declined) -> String? {
        if try null() { return nil }
        guard base[s.index] == UInt8(ascii: "\"") else { throw Declined() }
        if let name = knownName() { return name }
        // Copied in, not decoded: a plain run is ASCII (made this way, a short string costs about
        // half what `String(decoding:as:)` does).
        let bytes = try plainString()
        return String(unsafeUninitializedCapacity: bytes.count) { $0.initialize(fromContentsOf: bytes) }
    }

    /// The string at the cursor (on its opening quote) when it is ASCII with no escape: its bytes.
    @inline(__always)
    private mutating func plainString() throws(Declined) -> UnsafeBufferPointer<UInt8> {
        let start = s.index + 1
        let end = JSONScanner.plainRun(base, from: start, to: s.bytes.count, nonASCII: false)
        guard end < s.bytes.count, base[end] == UInt8(ascii: "\"") else { throw Declined() }
        s.index = end + 1
        return UnsafeBufferPointer(start: base + start, count: end - start)
    }

    mutating func instant() throws(Declined) -> Instant? {
        if try null() { return nil }
        guard let instant = s.wholeSecondsInstant() else { throw Declined() }
        return instant
    }

    /// Plain digits, no leading zero, at most 10^15.
    mutating func integer() throws(Declined) -> Int64? {
        if let value = shortInteger() { return value }
        if try null() { return nil }
        var j = s.index
        var value: Int64 = 0
        while j < s.bytes.count, j - s.index < 16, base[j] &- 0x30 <= 9 {
            value = value &* 10 &+ Int64(base[j] &- 0x30)
            j += 1
        }
        guard j > s.index, base[s.index] != UInt8(ascii: "0") || j == s.index + 1, value <= 1_000_000_000_000_000 else {
            throw Declined()
        }
        // Not a longer number, a fraction or an exponent.
        if j < s.bytes.count {
            let c = base[j]
            guard c &- 0x30 > 9, c != UInt8(ascii: "."), c | 0x20 != UInt8(ascii: "e") else { throw Declined() }
        }
        s.index = j
        return value
    }

    /// The common integer, read as one word: with the cursor on it, one to seven digits (no
    /// leading zero) followed by a byte that is no digit, `.`, `e` or `E` — its value, the
    /// cursor past it; else nil, the cursor unmoved (`integer` then reads it a byte at a time,
    /// or gives up). A digit byte, xor `0`, is 0…9: its high half is zero and its low half plus 6
    /// stays below 16.
    @inline(__always)
    private mutating func shortInteger() -> Int64? {
        guard s.index + 8 <= s.bytes.count else { return nil }
        let w = UInt64(littleEndian: UnsafeRawPointer(base + s.index).loadUnaligned(as: UInt64.self))
        let x = w ^ 0x3030_3030_3030_3030
        let stops = x & 0xF0F0_F0F0_F0F0_F0F0 | (x & 0x0F0F_0F0F_0F0F_0F0F &+ 0x0606_0606_0606_0606)
            & 0x1010_1010_1010_1010
        let n = stops.trailingZeroBitCount >> 3  // the digits before the first other byte (8: none)
        guard n >= 1, n <= 7, n == 1 || x & 0xFF != 0 else { return nil }
        let next = UInt8(truncatingIfNeeded: w >> (8 &* UInt64(n)))
        guard next != UInt8(ascii: "."), next | 0x20 != UInt8(ascii: "e") else { return nil }
        // The digits moved to the top bytes (leading zeros below them, in memory order), then
        // combined in pairs, fours and eights (simdjson's eight-digit parse).
        var v = (x & 0x0F0F_0F0F_0F0F_0F0F) &<< (8 &* UInt64(8 &- n))
        v = (v &* 2561) &>> 8
        v = ((v & 0x00FF_00FF_00FF_00FF) &* 6_553_601) &>> 16
        v = ((v & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) &>> 32
        s.index += n
        return Int64(truncatingIfNeeded: v)
    }

    mutating func bool() throws(Declined) -> Bool? {
        if try null() { return nil }
        let word = s.index + 5 <= s.bytes.count ? UnsafeRawPointer(base + s.index).loadUnaligned(as: UInt32.self) : 0
        if word == 0x6575_7274 {  // "true"
            s.index += 4
            return true
        }
        guard word == 0x736C_6166, base[s.index + 4] == UInt8(ascii: "e") else { throw Declined() }  // "fals", "e"
        s.index += 5
        return false
    }

    mutating func choice<T>(_ spellings: StateReader.Spellings<T>, noun: String) throws(Declined) -> T? {
        if try null() { return nil }
        guard base[s.index] == UInt8(ascii: "\""), let (found, length) = spellings.keys.match(at: s.index, in: s.bytes),
              let found
        else { throw Declined() }
        s.index += length + 2
        return spellings.values[found]
    }
}
