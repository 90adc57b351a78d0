/// The common state, decoded straight from its bytes: what `PurchaseState.read` tries first (the
/// batch's hot path). It reads the state a tracker usually writes — `customer`, `customer_since`,
/// `now`, `environment`, purchases and usage records with any of their keys — when every string is
/// ASCII with no escape, every instant has the whole-second UTC form (`2026-11-22T12:00:00Z`),
/// every integer is plain digits, and keys are matched from their bytes (`KeySet.match`). Anything
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

    private let base: UnsafePointer<UInt8>
    private let bytes: UnsafeBufferPointer<UInt8>
    private var i = 0
    private let names: StateNames?

    private init(_ bytes: UnsafeBufferPointer<UInt8>, base: UnsafePointer<UInt8>, names: StateNames?) {
        self.bytes = bytes
        self.base = base
        self.names = names
    }

    /// Decodes `bytes` into `state`, a blank state, when it is of the common form; else leaves
    /// `state` blank and returns false.
    package static func read(_ bytes: UnsafeBufferPointer<UInt8>, into state: inout PurchaseState,
                     options: StateDecodingOptions) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        var reader = StateLineReader(bytes, base: base, names: options.names)
        do {
            try reader.state(into: &state, limits: options.limits)
            return true
        } catch {
            state = PurchaseState()
            return false
        }
    }

    private mutating func state(into state: inout PurchaseState, limits: StateLimits) throws(Declined) {
        var seen: UInt64 = 0
        if try open(UInt8(ascii: "{"), UInt8(ascii: "}")) {
            repeat {
                let known = try key(StateReader.stateKeys, &seen)
                switch known {
                case 4:
                    if try null() { break }
                    guard try open(UInt8(ascii: "["), UInt8(ascii: "]")) else { break }
                    state.purchases.reserveCapacity(8)
                    repeat {
                        guard state.purchases.count < limits.purchases else { throw Declined() }
                        state.purchases.append(StateReader.blankPurchase)
                        try purchase(into: &state.purchases[state.purchases.count - 1])
                    } while try more(UInt8(ascii: "]"))
                case 5:
                    if try null() { break }
                    guard try open(UInt8(ascii: "["), UInt8(ascii: "]")) else { break }
                    state.usage.reserveCapacity(8)
                    repeat {
                        guard state.usage.count < limits.usageRecords else { throw Declined() }
                        state.usage.append(try usage())
                    } while try more(UInt8(ascii: "]"))
                default:
                    // `overrides`, `grants` and `ledger` are read by the general decoder.
                    guard try StateReader.stateField(known, &self, &state) else { throw Declined() }
                }
            } while try more(UInt8(ascii: "}"))
        }
        space()
        guard i == bytes.count else { throw Declined() }
    }

    private mutating func purchase(into p: inout Purchase) throws(Declined) {
        var seen: UInt64 = 0
        var product: String?
        if try open(UInt8(ascii: "{"), UInt8(ascii: "}")) {
            repeat {
                let known = try key(StateReader.purchaseKeys, &seen)
                guard try StateReader.purchaseField(known, &self, &p, &product) else { throw Declined() }
            } while try more(UInt8(ascii: "}"))
        }
        guard let product else { throw Declined() }
        p.product = product
    }

    private mutating func usage() throws(Declined) -> UsageRecord {
        var seen: UInt64 = 0
        var fields = UsageFields()
        if try open(UInt8(ascii: "{"), UInt8(ascii: "}")) {
            repeat {
                let known = try key(StateReader.usageKeys, &seen)
                guard try StateReader.usageField(known, &self, &fields) else { throw Declined() }
            } while try more(UInt8(ascii: "}"))
        }
        do {
            return try fields.record()
        } catch {
            throw Declined()
        }
    }

    // MARK: Structure

    @inline(__always)
    private mutating func space() {
        while i < bytes.count {
            let c = base[i]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            i += 1
        }
    }

    /// The next byte, after any space.
    @inline(__always)
    private mutating func next() throws(Declined) -> UInt8 {
        space()
        guard i < bytes.count else { throw Declined() }
        return base[i]
    }

    /// `open`, then whether a member or an element follows (false: the empty `{}` or `[]`, read).
    @inline(__always)
    private mutating func open(_ open: UInt8, _ close: UInt8) throws(Declined) -> Bool {
        guard try next() == open else { throw Declined() }
        i += 1
        guard try next() == close else { return true }
        i += 1
        return false
    }

    /// After a member or an element: true after `,` (another follows), false after `close`.
    @inline(__always)
    private mutating func more(_ close: UInt8) throws(Declined) -> Bool {
        let c = try next()
        i += 1
        if c == UInt8(ascii: ",") { return true }
        guard c == close else { throw Declined() }
        return false
    }

    /// A key of `keys` not seen before in this object, and its colon: the key's index.
    @inline(__always)
    private mutating func key(_ keys: StateReader.KeySet, _ seen: inout UInt64) throws(Declined) -> Int {
        guard try next() == UInt8(ascii: "\"") else { throw Declined() }
        let found: Int?
        if let (index, length) = keys.match(at: i, in: bytes) {
            found = index
            i += length + 2
        } else {
            // Within 17 bytes of the end (`"usage": []}`): the key is scanned first.
            let end = JSONScanner.plainRun(base, from: i + 1, to: bytes.count, nonASCII: false)
            guard end < bytes.count, base[end] == UInt8(ascii: "\"") else { throw Declined() }
            found = keys.index(UnsafeBufferPointer(start: base + i + 1, count: end - i - 1))
            i = end + 1
        }
        guard let found, seen & (1 &<< found) == 0 else { throw Declined() }
        seen |= 1 &<< found
        guard try next() == UInt8(ascii: ":") else { throw Declined() }
        i += 1
        return found
    }

    /// Reads `null` (true) when it is next; false, with the value's first byte at `i`, otherwise.
    @inline(__always)
    private mutating func null() throws(Declined) -> Bool {
        guard try next() == UInt8(ascii: "n") else { return false }
        // "null" as a little-endian word: 0x6C6C756E.
        guard i + 4 <= bytes.count, UnsafeRawPointer(base + i).loadUnaligned(as: UInt32.self) == 0x6C6C_756E else {
            throw Declined()
        }
        i += 4
        return true
    }
}

extension StateLineReader: StateValueReader {
    /// A string in ASCII with no escape: the kept String when `names` has it.
    mutating func string() throws(Declined) -> String? {
        if try null() { return nil }
        guard base[i] == UInt8(ascii: "\"") else { throw Declined() }
        if let names, let (words, length) = JSONScanner.shortString(at: i, in: bytes),
           let name = names.name(words, length: length) {
            i += length + 2
            return name
        }
        let start = i + 1
        let end = JSONScanner.plainRun(base, from: start, to: bytes.count, nonASCII: false)
        guard end < bytes.count, base[end] == UInt8(ascii: "\"") else { throw Declined() }
        i = end + 1
        return String(decoding: UnsafeBufferPointer(start: base + start, count: end - start), as: UTF8.self)
    }

    mutating func instant() throws(Declined) -> Instant? {
        if try null() { return nil }
        guard i + 22 <= bytes.count, base[i] == UInt8(ascii: "\""), base[i + 21] == UInt8(ascii: "\""),
              let instant = Instant.parseWholeSecondsUTC(UnsafeBufferPointer(start: base + i + 1, count: 20))
        else { throw Declined() }
        i += 22
        return instant
    }

    /// Plain digits, no leading zero, at most 10^15.
    mutating func integer() throws(Declined) -> Int64? {
        if try null() { return nil }
        var j = i
        var value: Int64 = 0
        while j < bytes.count, j - i < 16, base[j] &- 0x30 <= 9 {
            value = value &* 10 &+ Int64(base[j] &- 0x30)
            j += 1
        }
        guard j > i, base[i] != UInt8(ascii: "0") || j == i + 1, value <= 1_000_000_000_000_000 else {
            throw Declined()
        }
        // Not a longer number, a fraction or an exponent.
        if j < bytes.count {
            let c = base[j]
            guard c &- 0x30 > 9, c != UInt8(ascii: "."), c | 0x20 != UInt8(ascii: "e") else { throw Declined() }
        }
        i = j
        return value
    }

    mutating func bool() throws(Declined) -> Bool? {
        if try null() { return nil }
        let word = i + 5 <= bytes.count ? UnsafeRawPointer(base + i).loadUnaligned(as: UInt32.self) : 0
        if word == 0x6575_7274 {  // "true"
            i += 4
            return true
        }
        guard word == 0x736C_6166, base[i + 4] == UInt8(ascii: "e") else { throw Declined() }  // "fals", "e"
        i += 5
        return false
    }

    mutating func choice<T>(_ spellings: StateReader.Spellings<T>, noun: String) throws(Declined) -> T? {
        if try null() { return nil }
        guard base[i] == UInt8(ascii: "\""), let (found, length) = spellings.keys.match(at: i, in: bytes),
              let found
        else { throw Declined() }
        i += length + 2
        return spellings.values[found]
    }
}
