/// What SHA-256 and SHA-512 share (FIPS 180-4 §5.1, §6): the message cut into blocks, whole blocks
/// of contiguous input compressed where they lie (no copy), the rest kept until a block is full,
/// and the padding: 0x80, zeros, and the length in bits, big-endian, in the block's last 8 bytes
/// (SHA-256) or 16 bytes (SHA-512).
protocol BlockHash {
    /// 64 (SHA-256) or 128 (SHA-512) bytes.
    static var blockSize: Int { get }
    /// Bytes of the current, incomplete block.
    var pending: [UInt8] { get set }
    /// Bytes hashed so far (inputs are below 2^61 bytes, so the bit length fits 64 bits).
    var length: UInt64 { get set }
    mutating func compress(_ block: UnsafeBufferPointer<UInt8>)
    init()
    mutating func finalize() -> [UInt8]
}

extension BlockHash {
    /// The digest of `bytes` in one call.
    static func digest<S: Sequence>(_ bytes: S) -> [UInt8] where S.Element == UInt8 {
        var h = Self()
        h.absorb(bytes)
        return h.finalize()
    }

    /// Pads, compresses the last blocks, and gives the state's words big-endian: the digest.
    mutating func digestBytes<W: FixedWidthInteger>(_ state: (Self) -> [W]) -> [UInt8] {
        pad()
        var out: [UInt8] = []
        out.reserveCapacity(W.bitWidth)  // eight words of bitWidth / 8 bytes
        for word in state(self) {
            for shift in stride(from: W.bitWidth - 8, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: word >> shift))
            }
        }
        return out
    }

    mutating func absorb<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        let size = Self.blockSize
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            var i = 0
            while i < buffer.count {
                if pending.isEmpty, buffer.count - i >= size {
                    compress(UnsafeBufferPointer(rebasing: buffer[i..<i + size]))
                    i += size
                    length &+= UInt64(size)
                    continue
                }
                append(buffer[i])
                i += 1
            }
        }
        if done == nil {
            for b in bytes { append(b) }
        }
    }

    private mutating func append(_ b: UInt8) {
        length &+= 1
        pending.append(b)
        if pending.count == Self.blockSize {
            // Taken out while it is compressed, so the buffer stays uniquely owned and is reused.
            var block: [UInt8] = []
            swap(&block, &pending)
            block.withUnsafeBufferPointer { compress($0) }
            block.removeAll(keepingCapacity: true)
            swap(&block, &pending)
        }
    }

    /// Compresses the padding and the length; the digest is then the state.
    mutating func pad() {
        let size = Self.blockSize, field = size / 8
        let bits = length &* 8
        var tail = pending
        tail.append(0x80)
        while tail.count % size != size - field { tail.append(0) }
        tail.append(contentsOf: repeatElement(0, count: field - 8))
        for shift in stride(from: 56, through: 0, by: -8) {
            tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
        tail.withUnsafeBufferPointer { buffer in
            for start in stride(from: 0, to: buffer.count, by: size) {
                compress(UnsafeBufferPointer(rebasing: buffer[start..<start + size]))
            }
        }
    }
}
