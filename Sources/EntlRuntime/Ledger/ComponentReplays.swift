/// A credit component's replays at `t` (§5), kept by an evaluation: each member's outcome is
/// read from them. At most two allocations: the candidates, each replay's members and the
/// readings' bit sets are plain values in the object's own storage, the ledgers (when there are
/// any) in one block it owns (an array each would cost an allocation and a release; one block for
/// everything would be past the sizes the allocator keeps at hand per thread).
final class ComponentReplays: ManagedBuffer<ComponentReplays.Header, UInt64> {
    struct Header {
        /// Every member's candidate grants, member after member (what the ledgers' sources index).
        var candidates: UnsafeMutableBufferPointer<Candidate>
        /// Over the certain candidates (`low`, overage, the trail), and over all of them (`high`:
        /// the same replay when every candidate is certain).
        var low: ComponentReplay
        var high: ComponentReplay
        /// Whether some candidate is uncertain (else `high` is `low`).
        var uncertain = false
        /// §6: the earliest instant after `t` at which an input of any member's balance changes by
        /// itself (a window boundary of a grant, a dated use, a grant starting at `customer_since`).
        var inputsChange: Instant?
        /// Each member's trail in `low`, when the evaluation explains.
        var trails: [[String]] = []
        /// Both replays' ledgers.
        fileprivate var ledgerBlock: UnsafeMutableRawPointer?
    }

    /// Room for up to `n` candidates, for each of two replays `m` members, and the bit sets of
    /// `readings` other readings (`UseReadings`, shared by both replays); the header's buffers span
    /// that room (the builder narrows them to what it fills), the ledgers none yet.
    static func allocate(members m: Int, candidates n: Int, readings: Int) -> ComponentReplays {
        var layout = StorageLayout()
        let candidatesAt = layout.place(Candidate.self, n)
        let membersAt = layout.place(ComponentReplay.Member.self, 2 * m)
        let bits = 2 * UseReadings.wordCount(readings: readings, instances: n)
        let readingsAt = layout.place(UInt64.self, bits)
        assert(layout.alignment <= MemoryLayout<UInt64>.alignment)
        let object = create(minimumCapacity: (layout.size + 7) / 8) { object in
            object.withUnsafeMutablePointerToElements { words in
                let raw = UnsafeMutableRawPointer(words)
                let members = (raw + membersAt).bindMemory(to: ComponentReplay.Member.self, capacity: 2 * m)
                let candidates = UnsafeMutableBufferPointer(
                    start: (raw + candidatesAt).bindMemory(to: Candidate.self, capacity: n), count: n)
                let marks = readings == 0 ? nil : UseReadings(
                    readings: readings, instances: n,
                    in: (raw + readingsAt).bindMemory(to: UInt64.self, capacity: bits))
                func replay(_ start: UnsafeMutablePointer<ComponentReplay.Member>,
                            certainOnly: Bool) -> ComponentReplay {
                    ComponentReplay(members: UnsafeMutableBufferPointer(start: start, count: m),
                                    ledgers: .init(start: nil, count: 0), candidates: candidates,
                                    certainOnly: certainOnly, readings: marks, now: Instant(seconds: 0))
                }
                return Header(candidates: candidates, low: replay(members, certainOnly: true),
                              high: replay(members + m, certainOnly: false))
            }
        }
        return unsafeDowncast(object, to: ComponentReplays.self)
    }

    /// Room for `low` ledgers of the first replay and `high` of the second, in one block (none
    /// when there are no ledgers: most components of most customers have no counted grant).
    func placeLedgers(low: Int, high: Int)
        -> (low: UnsafeMutableBufferPointer<Ledger>, high: UnsafeMutableBufferPointer<Ledger>) {
        guard low + high > 0 else { return (.init(start: nil, count: 0), .init(start: nil, count: 0)) }
        let block = StorageLayout.allocate(byteCount: (low + high) * MemoryLayout<Ledger>.stride,
                                           alignment: MemoryLayout<Ledger>.alignment)
        withUnsafeMutablePointerToHeader { $0.pointee.ledgerBlock = block }
        let ledgers = block.bindMemory(to: Ledger.self, capacity: low + high)
        return (UnsafeMutableBufferPointer(start: ledgers, count: low),
                UnsafeMutableBufferPointer(start: ledgers + low, count: high))
    }

    deinit {
        // Plain values: nothing to deinitialize.
        withUnsafeMutablePointerToHeader { $0.pointee.ledgerBlock.map(StorageLayout.release) }
    }

    // The header read and written in place: `header` is a class property, and each access to it
    // is checked for exclusivity at run time.
    var candidates: UnsafeMutableBufferPointer<Candidate> { withUnsafeMutablePointerToHeader { $0.pointee.candidates } }
    var low: ComponentReplay { withUnsafeMutablePointerToHeader { $0.pointee.low } }
    var high: ComponentReplay { withUnsafeMutablePointerToHeader { $0.pointee.high } }
    var uncertain: Bool { withUnsafeMutablePointerToHeader { $0.pointee.uncertain } }
    var inputsChange: Instant? { withUnsafeMutablePointerToHeader { $0.pointee.inputsChange } }
    var trails: [[String]] { withUnsafeMutablePointerToHeader { $0.pointee.trails } }

    /// Sets what the replays found (the ledger block stays).
    func finish(candidates: UnsafeMutableBufferPointer<Candidate>, low: ComponentReplay, high: ComponentReplay,
                uncertain: Bool, inputsChange: Instant?, trails: [[String]]) {
        withUnsafeMutablePointerToHeader { header in
            header.pointee.candidates = candidates
            header.pointee.low = low
            header.pointee.high = high
            header.pointee.uncertain = uncertain
            header.pointee.inputsChange = inputsChange
            header.pointee.trails = trails
        }
    }
}
