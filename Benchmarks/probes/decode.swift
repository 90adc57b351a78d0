import Swift

/// A schema-specific decoder of one state line straight from the bytes (no index): UInt64 SWAR for
/// finding string ends and for timestamps, keys matched by length and masked words, names looked
/// up in an open-addressed table of the file's names (standing in for rule-graph indices).
/// No String, no allocation per line. Anything valid but off the fast path (escapes, unknown keys,
/// fractional seconds, zone offsets, number forms like 1e2, names over 16 bytes) is detected and
/// reported as `slowPath` (the slow path itself is not written).
/// Build: swiftc -O -wmo -parse-as-library Harness.swift decode.swift -o /tmp/probe-decode

enum Stop: Error { case malformed(Int), slowPath(Int) }

enum Status: UInt8 { case active, trialing, pastDue, billingRetry, canceled, expired, revoked, unknown }

struct Purchase {
    var product: Int32 = -1, store: Int32 = -1, status = Status.active, quantity: Int64 = 1
    var purchasedAt = Int64.min, expiresAt = Int64.min, graceUntil = Int64.min  // min = absent
}

struct Usage { var feature: Int32 = -1, isLevel = false, value: Int64 = -1, at = Int64.min }

/// A short byte string as two little-endian words (bytes past `count` zero).
struct Word16: Equatable {
    var a: UInt64, b: UInt64, count: Int
    init(_ s: String) {
        var a: UInt64 = 0, b: UInt64 = 0
        for (k, c) in s.utf8.enumerated() where k < 16 {
            if k < 8 { a |= UInt64(c) << (8 * UInt64(k)) } else { b |= UInt64(c) << (8 * UInt64(k - 8)) }
        }
        (self.a, self.b, self.count) = (a, b, s.utf8.count)
    }
    /// The bytes `p[0..<n]` (n ≤ 16); loads whole words, the buffer is padded.
    @inline(__always) init(_ p: UnsafePointer<UInt8>, _ n: Int) {
        let raw = UnsafeRawPointer(p)
        let lo = raw.loadUnaligned(as: UInt64.self), hi = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        a = n >= 8 ? lo : lo & ((1 << UInt64(8 * n)) &- 1)
        b = n >= 16 ? hi : n <= 8 ? 0 : hi & ((1 << UInt64(8 * (n - 8))) &- 1)
        count = n
    }
}

/// Names (≤ 16 bytes) to small ids, open addressing, linear probing.
struct NameTable {
    var slots = [(key: Word16, id: Int32)?](repeating: nil, count: 1024)
    var count: Int32 = 0
    var learning = true

    @inline(__always) mutating func id(_ k: Word16) -> Int32 {
        let mixed = (k.a ^ (k.b &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(k.count)) &* 0xFF51_AFD7_ED55_8CCD
        var h = Int(truncatingIfNeeded: mixed >> 54)
        while let slot = slots[h] {
            if slot.key == k { return slot.id }
            h = (h + 1) & 1023
        }
        guard learning, count < 700 else { return -1 }  // a name the rule set does not know
        slots[h] = (k, count)
        count += 1
        return count - 1
    }
}

let keyCustomer = Word16("customer"), keyNow = Word16("now"), keyPurchases = Word16("purchases")
let keyUsage = Word16("usage"), keyProduct = Word16("product"), keyStore = Word16("store")
let keyStatus = Word16("status"), keyPurchasedAt = Word16("purchased_at"), keyExpiresAt = Word16("expires_at")
let keyGraceUntil = Word16("grace_until"), keyQuantity = Word16("quantity"), keyFeature = Word16("feature")
let keyAmount = Word16("amount"), keyAt = Word16("at"), keyLevel = Word16("level")
let statusWords = ["active", "trialing", "past_due", "billing_retry", "canceled", "expired", "revoked", "unknown"]
    .map(Word16.init)

struct Decoder {
    var p: UnsafePointer<UInt8> = UnsafePointer(bitPattern: 8)!, i = 0, end = 0
    var purchases = UnsafeMutablePointer<Purchase>.allocate(capacity: 4096), purchaseCount = 0
    var usage = UnsafeMutablePointer<Usage>.allocate(capacity: 4096), usageCount = 0
    var customer = (start: 0, count: 0), now = Int64.min
    var names = NameTable()
    // the key constants copied in, so the hot loop does not check lazy globals
    let kCustomer = keyCustomer, kNow = keyNow, kPurchases = keyPurchases, kUsage = keyUsage
    let kProduct = keyProduct, kStore = keyStore, kStatus = keyStatus, kPurchasedAt = keyPurchasedAt
    let kExpiresAt = keyExpiresAt, kGraceUntil = keyGraceUntil, kQuantity = keyQuantity
    let kFeature = keyFeature, kAmount = keyAmount, kAt = keyAt, kLevel = keyLevel
    let statuses = statusWords

    @inline(__always) mutating func skipSpace() {
        while i < end, p[i] == 0x20 || p[i] == 0x0A || p[i] == 0x09 || p[i] == 0x0D { i += 1 }
    }

    @inline(__always) mutating func expect(_ c: UInt8) throws(Stop) {
        skipSpace()
        guard i < end, p[i] == c else { throw .malformed(i) }
        i += 1
    }

    /// A string's contents (after skipping space and the opening quote); leaves `i` past the closing quote.
    @inline(__always) mutating func string() throws(Stop) -> (start: Int, count: Int) {
        try expect(0x22)
        let start = i
        while true {
            // quote, backslash, control or non-ASCII (UTF-8 is checked on the slow path)
            let hit = Decoder.stops(UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self))
            if hit != 0 {
                // the lowest flagged byte is exact (borrows only corrupt bytes above it)
                let j = i + hit.trailingZeroBitCount / 8
                guard j < end else { throw .malformed(end) }
                if p[j] != 0x22 { throw p[j] == 0x5C || p[j] >= 0x80 ? .slowPath(j) : .malformed(j) }
                i = j + 1
                return (start, j - start)
            }
            i += 8
            guard i < end else { throw .malformed(end) }
        }
    }

    /// Bytes of `w` that end a string's fast scan (quote, backslash, control, non-ASCII), high bit set;
    /// the lowest one is exact.
    @inline(__always) static func stops(_ w: UInt64) -> UInt64 {
        let q = w ^ 0x2222_2222_2222_2222, s = w ^ 0x5C5C_5C5C_5C5C_5C5C
        let hq = (q &- 0x0101_0101_0101_0101) & ~q, hs = (s &- 0x0101_0101_0101_0101) & ~s
        let hc = (w &- 0x2020_2020_2020_2020) & ~w
        return (hq | hs | hc | w) & 0x8080_8080_8080_8080
    }

    /// A string of at most 16 bytes as words (after skipping space). Fast path: its end is found in
    /// two words loaded at once, and those words are the value (masked). Longer: count 17, words of
    /// the first 16 bytes.
    @inline(__always) mutating func shortString() throws(Stop) -> Word16 {
        skipSpace()
        guard i < end, p[i] == 0x22 else { throw .malformed(i) }
        let raw = UnsafeRawPointer(p + i + 1)
        let a = raw.loadUnaligned(as: UInt64.self), b = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        let sa = Decoder.stops(a), sb = Decoder.stops(b)
        let n = sa != 0 ? sa.trailingZeroBitCount / 8 : sb != 0 ? 8 + sb.trailingZeroBitCount / 8 : 16
        let j = i + 1 + n
        guard n < 16, j < end, p[j] == 0x22 else {  // long, escaped or bad: the general path
            let s = try string()
            var k = Word16(p + s.start, min(s.count, 16))
            k.count = min(s.count, 17)
            return k
        }
        i = j + 1
        var k = Word16(p, 0)
        k.a = n >= 8 ? a : a & ((1 << UInt64(8 * n)) &- 1)
        k.b = n <= 8 ? 0 : b & ((1 << UInt64(8 * (n - 8))) &- 1)
        k.count = n
        return k
    }

    /// A key and its colon (keys over 16 bytes match nothing).
    @inline(__always) mutating func key() throws(Stop) -> Word16 {
        let k = try shortString()
        if i < end, p[i] == 0x3A { i += 1 } else { try expect(0x3A) }
        return k
    }

    /// After a member: `,` (true, another follows) or `close` (false).
    @inline(__always) mutating func more(_ close: UInt8) throws(Stop) -> Bool {
        skipSpace()
        guard i < end else { throw .malformed(i) }
        if p[i] == 0x2C { i += 1; return true }
        if p[i] == close { i += 1; return false }
        throw .malformed(i)
    }

    /// `{` then either `}` (false, empty) or the first key to follow (true).
    @inline(__always) mutating func open(_ c: UInt8, _ close: UInt8) throws(Stop) -> Bool {
        try expect(c)
        skipSpace()
        if i < end, p[i] == close { i += 1; return false }
        return true
    }

    @inline(__always) mutating func name() throws(Stop) -> Int32 {
        let k = try shortString()
        guard k.count <= 16 else { throw .slowPath(i) }
        return names.id(k)
    }

    /// A non-negative integer up to 10^15.
    @inline(__always) mutating func integer() throws(Stop) -> Int64 {
        skipSpace()
        let start = i
        var v: Int64 = 0
        while i < end, p[i] &- 0x30 < 10, i - start < 16 { v = v * 10 + Int64(p[i] &- 0x30); i += 1 }
        guard i > start, p[start] != 0x30 || i == start + 1 else { throw .malformed(start) }
        if i < end, p[i] == 0x2E || p[i] | 0x20 == 0x65 { throw .slowPath(i) }  // 1.0, 1e2
        guard v <= 1_000_000_000_000_000, i == end || p[i] &- 0x30 >= 10 else { throw .malformed(start) }
        return v
    }

    /// `null` (absent) or an instant.
    @inline(__always) mutating func optionalInstant() throws(Stop) -> Int64 {
        skipSpace()
        if i < end, p[i] == 0x6E {
            guard i + 4 <= end, UnsafeRawPointer(p + i).loadUnaligned(as: UInt32.self) == 0x6C6C_756E else {
                throw .malformed(i)
            }
            i += 4
            return Int64.min
        }
        return try instant()
    }

    /// `"YYYY-MM-DDTHH:MM:SSZ"` as Unix seconds, by SWAR: digits checked 8 at a time.
    @inline(__always) mutating func instant() throws(Stop) -> Int64 {
        skipSpace()
        let s: (start: Int, count: Int)
        if i + 21 < end, p[i] == 0x22, p[i + 21] == 0x22 {  // 20 bytes between quotes: checked below
            s = (i + 1, 20)
            i += 22
        } else {
            s = try string()
        }
        guard s.count == 20, p[s.start + 19] == 0x5A else { throw .slowPath(s.start) }  // fractions, offsets
        let raw = UnsafeRawPointer(p + s.start)
        let w0 = raw.loadUnaligned(as: UInt64.self), w1 = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        let w2 = UInt64(raw.loadUnaligned(fromByteOffset: 16, as: UInt32.self))
        // digit bytes: YYYY-MM- / DDTHH:MM / :SS
        let m0: UInt64 = 0x00FF_FF00_FFFF_FFFF, m1: UInt64 = 0xFFFF_00FF_FF00_FFFF, m2: UInt64 = 0x00FF_FF00
        let d0 = (w0 & m0) &- (0x3030_3030_3030_3030 & m0), d1 = (w1 & m1) &- (0x3030_3030_3030_3030 & m1)
        let d2 = (w2 & m2) &- (0x3030_3030 & m2)
        let bad = (((d0 &+ 0x7676_7676_7676_7676) | d0) & m0 | ((d1 &+ 0x7676_7676_7676_7676) | d1) & m1
            | ((d2 &+ 0x7676_7676) | d2) & m2) & 0x8080_8080_8080_8080
        let separators = (w0 & ~m0) == 0x2D00_002D_0000_0000 && (w1 & ~m1) == 0x0000_3A00_0054_0000
            && (w2 & 0xFF) == 0x3A
        guard bad == 0, separators else { throw .malformed(s.start) }
        @inline(__always) func digit(_ w: UInt64, _ k: Int) -> Int64 { Int64((w >> UInt64(8 * k)) & 0xFF) }
        // wrapping arithmetic: every digit is 0...9 here, nothing can overflow (and no overflow checks)
        let year = digit(d0, 0) &* 1000 &+ digit(d0, 1) &* 100 &+ digit(d0, 2) &* 10 &+ digit(d0, 3)
        let month = digit(d0, 5) &* 10 &+ digit(d0, 6), day = digit(d1, 0) &* 10 &+ digit(d1, 1)
        let hour = digit(d1, 3) &* 10 &+ digit(d1, 4), minute = digit(d1, 6) &* 10 &+ digit(d1, 7)
        let second = digit(d2, 1) &* 10 &+ digit(d2, 2)
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let short = month == 4 || month == 6 || month == 9 || month == 11
        let monthDays: Int64 = month == 2 ? (leap ? 29 : 28) : (short ? 30 : 31)
        guard month >= 1, month <= 12, day >= 1, day <= monthDays, hour < 24, minute < 60, second < 60 else {
            throw .malformed(s.start)
        }
        // days from civil (H. Hinnant)
        let y = month <= 2 ? year &- 1 : year
        let era = y / 400, yoe = y &- era &* 400
        let doy = (153 &* (month > 2 ? month &- 3 : month &+ 9) &+ 2) / 5 &+ day &- 1
        let days = era &* 146_097 &+ yoe &* 365 &+ yoe / 4 &- yoe / 100 &+ doy &- 719_468
        return days &* 86400 &+ hour &* 3600 &+ minute &* 60 &+ second
    }

    mutating func purchase() throws(Stop) {
        var r = Purchase()
        var hasProduct = false
        if try open(0x7B, 0x7D) {
            repeat {
                let k = try key()
                if k == kProduct { r.product = try name(); hasProduct = true }
                else if k == kStore { r.store = try name() }
                else if k == kStatus {
                    guard let n = statuses.firstIndex(of: try shortString()) else { throw .malformed(i) }
                    r.status = Status(rawValue: UInt8(n))!
                }
                else if k == kPurchasedAt { r.purchasedAt = try optionalInstant() }
                else if k == kExpiresAt { r.expiresAt = try optionalInstant() }
                else if k == kGraceUntil { r.graceUntil = try optionalInstant() }
                else if k == kQuantity { r.quantity = try integer() }
                else { throw .slowPath(i) }  // unknown or rarer key
            } while try more(0x7D)
        }
        guard hasProduct else { throw .malformed(i) }
        purchases[purchaseCount] = r
        purchaseCount += 1
    }

    mutating func usageRecord() throws(Stop) {
        var r = Usage()
        var kinds = 0, hasFeature = false
        if try open(0x7B, 0x7D) {
            repeat {
                let k = try key()
                if k == kFeature { r.feature = try name(); hasFeature = true }
                else if k == kAmount { r.value = try integer(); kinds += 1 }
                else if k == kLevel { r.value = try integer(); r.isLevel = true; kinds += 1 }
                else if k == kAt { r.at = try optionalInstant() }
                else { throw .slowPath(i) }
            } while try more(0x7D)
        }
        guard kinds == 1 else { throw .malformed(i) }  // exactly one of amount and level
        guard hasFeature else { throw .slowPath(i) }  // `event` instead of `feature`, or neither
        usage[usageCount] = r
        usageCount += 1
    }

    /// Decodes one line; throws where it stops.
    mutating func decode(_ line: UnsafePointer<UInt8>, _ n: Int) throws(Stop) {
        (p, i, end, purchaseCount, usageCount, now, customer) = (line, 0, n, 0, 0, Int64.min, (0, 0))
        if try open(0x7B, 0x7D) {
            repeat {
                let k = try key()
                if k == kCustomer { customer = try string() }
                else if k == kNow { now = try optionalInstant() }
                else if k == kPurchases {
                    if try open(0x5B, 0x5D) { repeat { try purchase() } while try more(0x5D) }
                } else if k == kUsage {
                    if try open(0x5B, 0x5D) { repeat { try usageRecord() } while try more(0x5D) }
                } else { throw .slowPath(i) }
            } while try more(0x7D)
        }
        skipSpace()
        guard i == end else { throw .malformed(i) }
    }
}

extension Decoder {
    /// A number from everything decoded from the line, to compare with verify_decode.py.
    func digest() -> Int {
        @inline(__always) func t(_ v: Int64) -> Int { v == .min ? 0 : Int(v) }
        var sum = t(now) &+ customer.count
        for k in 0..<purchaseCount {
            let r = purchases[k]
            sum &+= Int(r.product) &* 7 &+ Int(r.store) &* 13 &+ Int(r.status.rawValue) &* 17 &+ Int(r.quantity)
                &+ t(r.purchasedAt) &+ t(r.expiresAt) &* 3 &+ t(r.graceUntil) &* 5
        }
        for k in 0..<usageCount {
            let r = usage[k]
            sum &+= Int(r.feature) &* 19 &+ Int(r.value) &+ (r.isLevel ? 23 : 0) &+ t(r.at) &* 11
        }
        return sum
    }
}

/// Outcome of one line: 0 decoded, 1 slow path, 2 malformed.
func outcome(_ d: inout Decoder, _ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
    do throws(Stop) { try d.decode(p, n); return 0 } catch .slowPath { return 1 } catch { return 2 }
}

/// Lines with a known outcome, checked before timing: the decoder must reject what is malformed.
func selfTest() {
    let ok = #"{"customer": "c", "now": "2024-02-29T23:59:59Z", "purchases": [{"product": "p", "store": "s", "#
        + #""status": "past_due", "purchased_at": "1970-01-01T00:00:00Z", "expires_at": null, "quantity": 3}], "#
        + #""usage": [{"feature": "f", "level": 0, "at": "2026-11-22T12:00:00Z"}]}"#
    let cases: [(String, Int)] = [
        (ok, 0), (" { } ", 0), (#"{"purchases": [], "usage": []}"#, 0),
        (#"{"customer": "c\u0041"}"#, 1), (#"{"environment": "live"}"#, 1), (#"{"now": "2026-11-22T12:00:00.5Z"}"#, 1),
        (#"{"usage": [{"feature": "f", "amount": 1.0}]}"#, 1), (#"{"customer": "é"}"#, 1),
        (#"{"customer": "c""#, 2), (#"{"customer": "c",}"#, 2), (#"{"customer" "c"}"#, 2),
        (#"{"now": "2026-13-01T00:00:00Z"}"#, 2), (#"{"now": "2026-02-29T00:00:00Z"}"#, 2),
        (#"{"now": "2026-11-22 12:00:00Z"}"#, 2), (#"{"now": "2026-11-22T12:0a:00Z"}"#, 2),
        (#"{"purchases": [{"status": "active"}]}"#, 2), (#"{"purchases": [{"product": "p", "status": "actve"}]}"#, 2),
        (#"{"usage": [{"feature": "f", "amount": 1, "level": 2}]}"#, 2),
        (#"{"usage": [{"feature": "f", "amount": -5}]}"#, 2), (#"{"usage": [{"feature": "f", "amount": 01}]}"#, 2),
        (#"{"usage": [{"feature": "f", "amount": 10000000000000000}]}"#, 2),
        ("{\"customer\": \"a\u{01}b\"}", 2), (#"{} x"#, 2), (#"["#, 2), (#"{"purchases": [{"product": "p"},]}"#, 2),
        (#"{"now": nul}"#, 2),
    ]
    var d = Decoder()
    for (text, expected) in cases {
        var bytes = Array(text.utf8) + [UInt8](repeating: 0x20, count: 64)
        let got = bytes.withUnsafeMutableBufferPointer { b in outcome(&d, b.baseAddress!, text.utf8.count) }
        if got != expected { print("SELF-TEST FAILED: \(text) gave \(got), expected \(expected)") }
    }
    var bytes = Array(ok.utf8) + [UInt8](repeating: 0x20, count: 64)
    bytes.withUnsafeMutableBufferPointer { b in _ = outcome(&d, b.baseAddress!, ok.utf8.count) }
    let r = d.purchases[0], u = d.usage[0]
    let expected = d.now == 1_709_251_199 && r.status == .pastDue && r.purchasedAt == 0 && r.expiresAt == .min
        && r.quantity == 3 && u.isLevel && u.value == 0 && u.at == 1_795_348_800 && d.customer == (14, 1)
    if !expected { print("SELF-TEST FAILED: values of the valid line") }
}

@main struct Probe {
    static func main() {
        selfTest()
        for path in inputPaths() {
            let input = Input(path: path)
            var d = Decoder()
            var outcomes = [0, 0, 0]
            for line in input.lines { outcomes[outcome(&d, input.bytes + line.start, line.count)] += 1 }
            d.names.learning = false
            var digest = 0
            for line in input.lines where outcome(&d, input.bytes + line.start, line.count) == 0 {
                digest &+= d.digest()
            }
            print("  digest \(digest) (verify_decode.py computes it from Python's json)")
            print("  \(input.name): \(outcomes[0]) decoded, \(outcomes[1]) slow path, \(outcomes[2]) malformed; "
                + "\(d.names.count) names")
            measure("decode: direct SWAR", input) { p, n in
                do throws(Stop) {
                    try d.decode(p, n)
                    return d.purchaseCount &+ d.usageCount &+ Int(d.now & 0xFF)
                        &+ (d.purchaseCount > 0 ? Int(d.purchases[0].product) : 0)
                } catch { return -1 }
            }
        }
    }
}
