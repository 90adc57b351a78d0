/// Names → indices for the lookups every evaluation makes (a purchase's product name or store id,
/// a usage record's feature or event, a query by name): an open-addressed table over UTF-8 bytes
/// with a cheap hash (a word at a time), built once per graph.
///
/// The standard dictionary hashes a `String` with SipHash and compares by canonical equivalence,
/// which costs far more than hashing and comparing bytes. Comparing bytes agrees with it on ASCII,
/// so this table holds the ASCII keys and answers ASCII queries; everything else goes to the
/// dictionary it was built from: a query that is not ASCII, and a miss when some key is not ASCII
/// (it might be canonically equal to an ASCII query, as KELVIN SIGN is to `K`). Same answers,
/// always.
///
/// A key may be a pair (`store`, `id`), looked up in a nested dictionary: its bytes are the
/// first's, a 0 byte, the second's, and only pairs whose first part has no 0 byte are in the
/// table (so the first 0 byte is where the parts meet).
struct NameTable: Sendable {
    private struct Slot {
        /// The key's first 16 bytes, zero-padded: all of a short key, compared without `bytes`. A
        /// pair's first part instead, and `tail` its second, when neither is longer than 16 bytes
        /// (`tail` is all ones otherwise, which no part of a query is).
        var head: (UInt64, UInt64) = (0, 0)
        var tail: (UInt64, UInt64) = (~0, ~0)
        var start: UInt32 = 0
        var length: UInt32 = 0
        var hash: UInt32 = 0
        /// -1: empty.
        var value: Int32 = -1
    }

    private enum Fallback {
        case names([String: Int])
        case pairs([String: [String: Int]])
    }

    private let fallback: Fallback
    private let bytes: [UInt8]
    private let slots: [Slot]
    private let mask: Int
    /// Whether every key is in the table (then an ASCII miss is a miss).
    private let complete: Bool

    init(_ dictionary: [String: Int]) {
        self.init(dictionary.map { (Array($0.key.utf8), $0.value) }, fallback: .names(dictionary))
    }

    /// A table of pairs (`store`, `id`) → index.
    init(pairs: [String: [String: Int]]) {
        var keys: [([UInt8], Int)] = []
        for (first, inner) in pairs {
            for (second, value) in inner {
                // A first part with a 0 byte would make the meeting point ambiguous.
                keys.append((first.utf8.contains(0) ? [0x80] : Array(first.utf8) + [0] + Array(second.utf8), value))
            }
        }
        self.init(keys, fallback: .pairs(pairs))
    }

    /// `keys`: the bytes of each key (any byte ≥ 0x80 keeps it out of the table) and its value.
    private init(_ keys: [([UInt8], Int)], fallback: Fallback) {
        self.fallback = fallback
        var count = 8
        while count < keys.count * 2 { count *= 2 }
        var slots = [Slot](repeating: Slot(), count: count)
        var bytes: [UInt8] = []
        var complete = true
        // Sorted, so the table's layout does not depend on the dictionary's iteration order: by
        // value (mostly distinct, and cheap to compare), then by bytes.
        for (key, value) in keys.sorted(by: { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0.lexicographicallyPrecedes($1.0) }) {
            var h = NameTable.Hash()
            key.withUnsafeBufferPointer { key in
                // A pair is hashed as its two parts, as a query gives them.
                if case .pairs = fallback, let zero = key.firstIndex(of: 0) {
                    h.combine(UnsafeBufferPointer(rebasing: key[..<zero]))
                    h.combine(UnsafeBufferPointer(rebasing: key[(zero + 1)...]))
                } else {
                    h.combine(key)
                }
            }
            guard h.ascii, value <= Int32.max else {
                complete = false
                continue
            }
            var i = Int(h.value) & (count - 1)
            while slots[i].value >= 0 { i = (i + 1) & (count - 1) }
            var head = key.withUnsafeBytes { ByteBuffer.paddedWords($0.baseAddress, min($0.count, 16)) }
            var tail: (UInt64, UInt64) = (~0, ~0)
            if case .pairs = fallback, let zero = key.firstIndex(of: 0), zero <= 16, key.count - zero - 1 <= 16 {
                key.withUnsafeBytes { key in
                    head = ByteBuffer.paddedWords(key.baseAddress, zero)
                    tail = ByteBuffer.paddedWords(key.baseAddress.map { $0 + zero + 1 }, key.count - zero - 1)
                }
            }
            slots[i] = Slot(head: head, tail: tail, start: UInt32(bytes.count), length: UInt32(key.count),
                            hash: h.value, value: Int32(value))
            bytes.append(contentsOf: key)
        }
        self.bytes = bytes
        self.slots = slots
        self.mask = count - 1
        self.complete = complete
    }

    subscript(_ name: String) -> Int? {
        if let decided = name.utf8.withContiguousStorageIfAvailable({
            $0.count <= 16 ? answer(short: $0) : answer($0, nil)
        }) ?? nil {
            return decided
        }
        guard case .names(let dictionary) = fallback else { return nil }
        return dictionary[name]
    }

    subscript(_ first: String, _ second: String) -> Int? {
        let decided = first.utf8.withContiguousStorageIfAvailable { a in
            second.utf8.withContiguousStorageIfAvailable { b in
                a.count <= 16 && b.count <= 16 ? answer(short: a, b) : answer(a, b)
            } ?? nil
        } ?? nil
        if let decided { return decided }
        guard case .pairs(let dictionary) = fallback else { return nil }
        return dictionary[first]?[second]
    }

    /// The table's answer for the key `a` (or the pair `a`, `b`) — found or absent — or nil when
    /// the dictionary must decide: the key is not ASCII, its first part has a 0 byte, or it is
    /// absent while some key is not in the table.
    private func answer(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>?) -> Int?? {
        var h = Hash()
        h.combine(a)
        if let b {
            guard !a.contains(0) else { return nil }
            h.combine(b)
        }
        guard h.ascii else { return nil }
        let found = probe(h.value) { compare($0, a, b) }
        return found != nil || complete ? .some(found) : nil
    }

    /// `answer` for a key of at most 16 bytes: hashed and compared as two words.
    @inline(__always)
    private func answer(short a: UnsafeBufferPointer<UInt8>) -> Int?? {
        let n = a.count
        let head = ByteBuffer.paddedWords(UnsafeRawPointer(a.baseAddress), n)
        guard (head.0 | head.1) & 0x8080_8080_8080_8080 == 0 else { return nil }
        var h = Hash()
        h.combine(head, count: n)
        let found = probe(h.value) { $0.length == n && $0.head == head }
        return found != nil || complete ? .some(found) : nil
    }

    /// `answer` for a pair of parts of at most 16 bytes each: hashed and compared as words.
    private func answer(short a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int?? {
        let (m, n) = (a.count, b.count)
        let first = ByteBuffer.paddedWords(UnsafeRawPointer(a.baseAddress), m)
        let second = ByteBuffer.paddedWords(UnsafeRawPointer(b.baseAddress), n)
        let highs: UInt64 = 0x8080_8080_8080_8080, ones: UInt64 = 0x0101_0101_0101_0101
        guard (first.0 | first.1 | second.0 | second.1) & highs == 0 else { return nil }
        // A 0 byte in the first part (its bytes are ASCII: a byte's high bit after subtracting one
        // is set only by a 0, or by a 1 borrowing from a 0 below it).
        @inline(__always) func zero(_ word: UInt64, _ bytes: Int) -> Bool {
            let kept = bytes >= 8 ? ~0 : bytes <= 0 ? 0 : (1 &<< (8 &* UInt64(bytes))) &- 1
            return (word &- ones) & highs & kept != 0
        }
        guard !zero(first.0, m), !zero(first.1, m &- 8) else { return nil }
        var h = Hash()
        h.combine(first, count: m)
        h.combine(second, count: n)
        let found = probe(h.value) { slot in
            Int(slot.length) == m &+ 1 &+ n && slot.head == first && slot.tail == second
        }
        return found != nil || complete ? .some(found) : nil
    }

    /// The value of the slot `matches` accepts, among those with hash `h`.
    private func probe(_ h: UInt32, _ matches: (Slot) -> Bool) -> Int? {
        var i = Int(h) & mask
        while true {
            let slot = slots[i]
            if slot.value < 0 { return nil }
            if slot.hash == h, matches(slot) { return Int(slot.value) }
            i = (i + 1) & mask
        }
    }

    /// Whether a slot's key is `a`, or `a`, 0, `b`.
    private func compare(_ slot: Slot, _ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>?) -> Bool {
        let length = a.count + (b.map { $0.count + 1 } ?? 0)
        guard Int(slot.length) == length else { return false }
        return bytes.withUnsafeBufferPointer { all in
            let key = all.baseAddress! + Int(slot.start)
            guard NameTable.equal(key, a) else { return false }
            guard let b else { return true }
            return key[a.count] == 0 && NameTable.equal(key + a.count + 1, b)
        }
    }

    /// Whether the `b.count` bytes at `a` are `b`'s, eight at a time (the last word overlapping
    /// the one before it; fewer than eight bytes as one zero-padded word).
    @inline(__always)
    private static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = b.baseAddress else { return true }
        let (x, y, n) = (UnsafeRawPointer(a), UnsafeRawPointer(base), b.count)
        guard n >= 8 else { return ByteBuffer.paddedWord(x, n) == ByteBuffer.paddedWord(y, n) }
        var i = 0
        while i + 8 < n {
            if x.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                != y.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
                return false
            }
            i += 8
        }
        return x.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            == y.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
    }

    /// A hash of byte strings taken eight bytes at a time (a multiply and a shift per word, with
    /// the length), noting whether they were all ASCII (byte-at-a-time FNV-1a would be a chain of
    /// one multiply per byte).
    struct Hash {
        private var state: UInt64 = 0xcbf2_9ce4_8422_2325
        private var seen: UInt64 = 0

        @inline(__always)
        private mutating func mix(_ word: UInt64) {
            state = (state ^ word) &* 0x9E37_79B9_7F4A_7C15
            state ^= state >> 29
        }

        /// Adds one string: its whole words, then the rest as one zero-padded word, then its length
        /// (so `ab` then `c` differs from `a` then `bc`).
        @inline(__always)
        mutating func combine(_ bytes: UnsafeBufferPointer<UInt8>) {
            if let base = bytes.baseAddress {
                let raw = UnsafeRawPointer(base)
                var i = 0
                while i + 8 <= bytes.count {
                    let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    seen |= word
                    mix(word)
                    i += 8
                }
                if i < bytes.count {
                    let rest = ByteBuffer.paddedWord(raw + i, bytes.count - i)
                    seen |= rest
                    mix(rest)
                }
            }
            mix(UInt64(bytes.count))
        }

        /// `combine` of a string of `n ≤ 16` bytes given as its two zero-padded words (the same
        /// value: its whole words and rest are those words).
        @inline(__always)
        mutating func combine(_ words: (UInt64, UInt64), count n: Int) {
            if n > 0 { mix(words.0) }
            if n > 8 { mix(words.1) }
            mix(UInt64(n))
        }

        var value: UInt32 { UInt32(truncatingIfNeeded: state ^ (state >> 32)) }
        var ascii: Bool { seen & 0x8080_8080_8080_8080 == 0 }
    }
}
