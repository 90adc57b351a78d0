/// The names a state is expected to hold, found by their bytes while it is decoded: a server or a
/// batch decodes the same few product names, store ids, stores and feature names on every state,
/// and a name found here is the one String kept here, not a new String made and checked from the
/// bytes. Names of at most 15 bytes, ASCII, are kept (the common short string a decoder reads in
/// two words); any other string is decoded as usual, so the state decoded is the same either way.
public struct StateNames: Sendable, Equatable {
    /// Open addressing on the two words of a name's bytes; a slot of length 0 is empty.
    private let slots: [Slot]
    private let shift: UInt64

    fileprivate struct Slot: Sendable, Equatable {
        var words: (UInt64, UInt64)
        var length: Int
        var name: String

        static func == (a: Slot, b: Slot) -> Bool { a.length == b.length && a.words == b.words }
    }

    public init<Names: Sequence<String>>(_ names: Names) {
        let kept = Set(names.filter { !$0.isEmpty && $0.utf8.count <= 15 && $0.utf8.allSatisfy { $0 < 0x80 } })
        // At most half full, so a probe ends soon.
        var bits: UInt64 = 4
        while 1 << bits < 2 * kept.count { bits += 1 }
        shift = 64 - bits
        var slots = [Slot](repeating: Slot(words: (0, 0), length: 0, name: ""), count: 1 << bits)
        for name in kept.sorted() {
            let words = Array(name.utf8).withUnsafeBufferPointer { ByteBuffer.paddedWords($0.baseAddress, $0.count) }
            var i = StateNames.slot(words, name.utf8.count, shift)
            while slots[i].length != 0 { i = (i + 1) & (slots.count - 1) }
            slots[i] = Slot(words: words, length: name.utf8.count, name: name)
        }
        self.slots = slots
    }

    /// The names of both environments of `graph`: products and their store ids, stores,
    /// entitlements, features, credit systems and usage events.
    public init(_ graph: RuleGraph) {
        var names: [String] = []
        for g in [graph.live, graph.test] {
            names += g.productIndex.keys
            names += g.storeIDs.keys
            for ids in g.storeIDs.values { names += ids.keys }
            names += g.entitlementIndex.keys
            names += g.featureIndex.keys
            names += g.eventIndex.keys
        }
        self.init(names)
    }

    @inline(__always)
    private static func slot(_ words: (UInt64, UInt64), _ length: Int, _ shift: UInt64) -> Int {
        let mixed = (words.0 &+ UInt64(length)) &* 0x9E37_79B9_7F4A_7C15 ^ words.1 &* 0xC2B2_AE3D_27D4_EB4F
        return Int(truncatingIfNeeded: mixed >> shift)
    }

    /// Calls `body` with the table's view, valid while it runs: a decoder holds the view, not a
    /// copy of the table (a copy of an optional table is a generic copy, a hundred instructions).
    func withView<R, E: Error>(_ body: (View) throws(E) -> R) throws(E) -> R {
        try slots.withUnsafeBufferPointer { (slots) throws(E) in try body(View(slots: slots, shift: shift)) }
    }

    /// The name whose bytes are `words` (zero-padded) and `length` long, if it is kept.
    @inline(__always)
    func name(_ words: (UInt64, UInt64), length: Int) -> String? {
        withView { $0.name(words, length: length) }
    }

    /// The slots as a buffer (`withView`).
    struct View {
        fileprivate let slots: UnsafeBufferPointer<Slot>
        fileprivate let shift: UInt64

        /// The name whose bytes are `words` (zero-padded) and `length` long, if it is kept.
        @inline(__always)
        func name(_ words: (UInt64, UInt64), length: Int) -> String? {
            var i = StateNames.slot(words, length, shift)
            while slots[i].length != 0 {
                if slots[i].length == length, slots[i].words == words { return slots[i].name }
                i = (i + 1) & (slots.count - 1)
            }
            return nil
        }
    }
}
