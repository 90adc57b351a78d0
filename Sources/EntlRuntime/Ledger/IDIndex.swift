/// The first record with each idempotency id (§5): an open-addressed table of each id's hash and
/// the place of its first record. The ids stay where they are (in the state), compared only when
/// two hashes are equal; the table grows by moving hashes, never hashing an id again, so noting an
/// id costs one hash of it however many came before. The hash is Swift's own, seeded per process:
/// ids a client chooses cannot be picked to collide.
struct IDIndex {
    /// (hash, place); `place == IDIndex.empty` marks a free slot.
    private var slots: [(hash: Int, place: Int)] = []
    private(set) var count = 0
    private static let empty = Int.min

    /// Room for `capacity` ids before the table grows.
    init(capacity: Int = 0) {
        if capacity > 0 { resize(to: IDIndex.slotCount(for: capacity)) }
    }

    static func hash(_ id: String) -> Int { id.hashValue }

    /// The place of the first record whose id `isID` recognizes among those of `hash`, if any.
    func first(hash: Int, isID: (_ place: Int) -> Bool) -> Int? {
        guard !slots.isEmpty else { return nil }
        return slots.withUnsafeBufferPointer { slots in
            var i = hash & (slots.count - 1)
            while slots[i].place != IDIndex.empty {
                if slots[i].hash == hash, isID(slots[i].place) { return slots[i].place }
                i = (i + 1) & (slots.count - 1)
            }
            return nil
        }
    }

    /// Notes `place` as the first record of an id of `hash` that has none yet.
    mutating func note(hash: Int, place: Int) {
        if (count + 1) * 4 > slots.count * 3 { resize(to: IDIndex.slotCount(for: count + 1)) }
        count += 1
        slots.withUnsafeMutableBufferPointer { slots in
            var i = hash & (slots.count - 1)
            while slots[i].place != IDIndex.empty { i = (i + 1) & (slots.count - 1) }
            slots[i] = (hash, place)
        }
    }

    /// The place of the first record with the id of `hash` that `isID` recognizes; if there is
    /// none, `place` is noted as its first and nil returned.
    mutating func first(hash: Int, elseNote place: Int, isID: (_ place: Int) -> Bool) -> Int? {
        if let first = first(hash: hash, isID: isID) { return first }
        note(hash: hash, place: place)
        return nil
    }

    /// A power of two at least 4/3 of `count` and at least twice the slots before (from 16).
    private static func slotCount(for count: Int) -> Int {
        var n = 16
        while n * 3 < count * 4 { n *= 2 }
        return n
    }

    private mutating func resize(to n: Int) {
        let old = slots
        slots = Array(repeating: (0, IDIndex.empty), count: max(n, 2 * old.count))
        count = 0
        for slot in old where slot.place != IDIndex.empty { note(hash: slot.hash, place: slot.place) }
    }
}

extension String {
    /// Whether two idempotency keys are one: byte for byte (UTF-8), not as Swift compares strings —
    /// canonically equivalent ones would be equal (`"caf\u{E9}"` and `"cafe\u{301}"`), and a use sent
    /// with one key would be taken for a retry of the other, and lost. A payment API's keys compare
    /// the same way.
    func isSameKey(as other: String) -> Bool {
        // The bytes in place when both have them (a native string does): compared as buffers, not
        // through `UTF8View`'s generic iteration, a tenth of compacting a long history.
        let inPlace = utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in a.elementsEqual(b) }
        }
        return (inPlace ?? nil) ?? utf8.elementsEqual(other.utf8)
    }
}

/// An idempotency key as a set's element: equal when `isSameKey`, hashed from its UTF-8 bytes in one
/// call (an array of them per key, hashed a byte at a time, made compacting 1,000,000 records with
/// ids twice as slow).
struct IDKey: Hashable {
    let id: String

    init(_ id: String) { self.id = id }

    static func == (a: IDKey, b: IDKey) -> Bool { a.id.isSameKey(as: b.id) }

    func hash(into hasher: inout Hasher) {
        var id = id
        id.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

extension PurchaseState {
    /// The id at a place of the ledger's order of uses, as `IDIndex` notes them: the usage record
    /// at `place`, or, at `-1 - k`, the use folded at place `k` of a compacted state's ledger (they
    /// come before every record). Nil for a place the state does not hold.
    func id(atPlace place: Int) -> String? {
        if place >= 0 { return place < usage.count ? usage[place].id : nil }
        guard let ids = ledger?.ids, -1 - place < ids.count else { return nil }
        return ids[-1 - place].id
    }

    /// Whether the id at `place` (as `id(atPlace:)`) is the key `id` (`isSameKey`).
    func hasID(_ id: String, atPlace place: Int) -> Bool { self.id(atPlace: place)?.isSameKey(as: id) ?? false }
}
