import Synchronization

/// The bytes in which a batch's states give their keys, learned state after state: per kind of
/// object (the state, a purchase, a usage record) and per key (and the start of an object), the
/// bytes that led to the next key's value last time — the comma or the opening brace, the
/// whitespace, the quoted key and its colon (`, "store": `), at most 24 of them. Trackers write
/// every object alike, so those bytes nearly always come again, and checking them costs three
/// words compared instead of the separator, the key's length, its candidates and the colon each
/// read. The bytes were read by the reader itself when learned, so reading them again would end
/// the same way, at the same key; a template that does not match costs its check, and the bytes
/// are read as without one: what is decoded is the same either way. It cannot be copied (its
/// slots are its own).
package struct KeyOrder: ~Copyable, @unchecked Sendable {
    package enum Set: Int { case state, purchase, usage }

    /// The slot of what comes before an object's first key. An object has fewer keys than this
    /// (`KeySet(objectKeys:)`), so the start's slot is no key's.
    package static let start = 15

    /// The longest template (three words).
    static let width = 24

    /// A template: its bytes in memory order, zero-padded, the masks of those bytes, the key they
    /// lead to and their number (0: nothing learned).
    struct Slot {
        var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var masks: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var key: Int32 = 0
        var length: Int32 = 0
    }

    /// Per kind of object, two slots per key before `start` and two for the start (what follows a
    /// key may take two forms: a purchase with a `store` and one without).
    static var slotsPerSet: Int { (start + 1) * 2 }
    static var count: Int { 3 * slotsPerSet }
    private let slots: UnsafeMutablePointer<Slot>

    /// The order of a batch, whose lines repeat one another, in slots of its own (all empty).
    package init() {
        slots = .allocate(capacity: KeyOrder.count)
        slots.initialize(repeating: Slot(), count: KeyOrder.count)
    }

    private init(slots: UnsafeMutablePointer<Slot>) { self.slots = slots }

    deinit { slots.deallocate() }

    /// The slots that the last state decoded alone left (`recycle`), when another thread is not
    /// using them: their address, or 0.
    private static let spare = Atomic<UInt>(0)

    /// The order for one state decoded alone (`PurchaseState(json:)`): the slots the one before
    /// left, with what they learned from the states decoded before (any template is safe to try;
    /// one that does not match costs its check), else new ones. Allocating and emptying slots for
    /// every such state cost a fifth of decoding a short one.
    package static func reused() -> KeyOrder {
        let kept = spare.exchange(0, ordering: .acquiringAndReleasing)
        guard let slots = UnsafeMutablePointer<Slot>(bitPattern: kept) else { return KeyOrder() }
        return KeyOrder(slots: slots)
    }

    /// Leaves the slots for the next state decoded alone (`reused`), unless another thread left
    /// some first (these are then freed).
    package consuming func recycle() {
        let (left, _) = KeyOrder.spare.compareExchange(expected: 0, desired: UInt(bitPattern: slots),
                                                       ordering: .acquiringAndReleasing)
        if left {
            discard self  // not freed: left for the next
        } else {
            _ = consume self  // freed (deinit)
        }
    }

    /// The slots, for a reader that lives while this order is borrowed.
    package var view: View { View(slots: slots) }

    package struct View {
        let slots: UnsafeMutablePointer<Slot>

        /// The first of the two slots after key `last` (or the start) in `set`.
        @inline(__always)
        private func slots(after last: Int, in set: Set) -> UnsafeMutablePointer<Slot>? {
            guard 0 <= last, last <= KeyOrder.start else { return nil }
            return slots + (set.rawValue &* KeyOrder.slotsPerSet &+ last &* 2)
        }

        /// When the `available` bytes at `p` start with those learned after key `last` (or the
        /// start) in `set`: the key they lead to and their number.
        @inline(__always)
        package func template(after last: Int, in set: Set, at p: UnsafeRawPointer, available: Int)
            -> (key: Int, length: Int)?
        {
            guard let slot = slots(after: last, in: set), slot.pointee.length != 0 else { return nil }
            let words = View.words(at: p, available: available)
            if View.matches(slot, words) { return (Int(slot.pointee.key), Int(slot.pointee.length)) }
            let other = slot + 1
            guard other.pointee.length != 0, View.matches(other, words) else { return nil }
            return (Int(other.pointee.key), Int(other.pointee.length))
        }

        /// The `width` bytes at `p`; near the end (`, "usage": []}`), the `available` ones there,
        /// zero-padded (a template has no zero byte, so none matches past them).
        @inline(__always)
        private static func words(at p: UnsafeRawPointer, available: Int) -> (UInt64, UInt64, UInt64) {
            if available >= KeyOrder.width {
                return (p.loadUnaligned(as: UInt64.self), p.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                        p.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
            }
            var words: (UInt64, UInt64, UInt64) = (0, 0, 0)
            withUnsafeMutableBytes(of: &words) { $0.baseAddress!.copyMemory(from: p, byteCount: available) }
            return words
        }

        @inline(__always)
        private static func matches(_ t: UnsafeMutablePointer<Slot>, _ words: (UInt64, UInt64, UInt64)) -> Bool {
            let w = t.pointee.words, m = t.pointee.masks
            return (words.0 ^ w.0) & m.0 | (words.1 ^ w.1) & m.1 | (words.2 ^ w.2) & m.2 == 0
        }

        /// Notes that the `count` bytes at `bytes` (`available` of them readable) led from key
        /// `last` (or the start) in `set` to `key`'s value (none kept past `width` bytes): into the
        /// first slot, the one there moved to the second.
        @inline(never)  // the slow path: kept out of the loop that reads keys
        package func learn(_ key: Int, after last: Int, in set: Set, _ bytes: UnsafeRawPointer, count: Int,
                           available: Int) {
            guard let slot = slots(after: last, in: set), count > 0, count <= KeyOrder.width else { return }
            // Each word's mask: its first bytes in memory that the template holds (a shift by 64
            // would be one by 0).
            @inline(__always) func mask(_ word: Int) -> UInt64 {
                let n = UInt64(truncatingIfNeeded: min(max(count &- 8 &* word, 0), 8))
                #if _endian(little)
                return n == 8 ? ~0 : (1 &<< (8 &* n)) &- 1
                #else
                return n == 8 ? ~0 : ~(~0 &>> (8 &* n))
                #endif
            }
            let words = View.words(at: bytes, available: available)
            let masks = (mask(0), mask(1), mask(2))
            let t = Slot(words: (words.0 & masks.0, words.1 & masks.1, words.2 & masks.2), masks: masks,
                         key: Int32(key), length: Int32(count))
            (slot + 1).pointee = slot.pointee
            slot.pointee = t
        }
    }
}
