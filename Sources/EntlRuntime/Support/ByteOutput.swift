/// Where JSON text is written: an array, or the growable buffer of `JSONBytes` (the batch path).
/// The writers (`JSONValue.writeString`, `writeInteger`, `Instant.writeRFC3339`) are one generic
/// body each, specialized for both.
protocol ByteOutput {
    mutating func write(_ byte: UInt8)
    mutating func write(_ bytes: UnsafeRawBufferPointer)
}

extension ByteOutput {
    @inline(__always)
    mutating func write(_ text: StaticString) {
        write(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}

extension Array: ByteOutput where Element == UInt8 {
    mutating func write(_ byte: UInt8) { append(byte) }
    mutating func write(_ bytes: UnsafeRawBufferPointer) { append(contentsOf: bytes) }
}

/// A growable byte buffer written in place: a write checks capacity and nothing else (no
/// copy-on-write check per byte, as an array's append makes).
final class ByteBuffer: ByteOutput {
    private var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 512) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// Forgets the bytes written, keeping the capacity.
    func removeAll() { count = 0 }

    @inline(__always)
    private func reserve(_ n: Int) {
        if capacity - count < n { grow(to: count + n) }
    }

    @inline(never)
    private func grow(to needed: Int) {
        capacity = max(needed, capacity * 2)
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        larger.initialize(from: base, count: count)
        base.deallocate()
        base = larger
    }

    @inline(__always)
    func write(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    @inline(__always)
    func write(_ bytes: UnsafeRawBufferPointer) {
        guard let start = bytes.baseAddress else { return }
        reserve(bytes.count)
        ByteBuffer.copy(start, bytes.count, to: UnsafeMutableRawPointer(base + count))
        count += bytes.count
    }

    /// Copies `n` bytes; up to 16 as two overlapping words (a JSON key, a name, a number),
    /// cheaper than a call to `memcpy`.
    @inline(__always)
    static func copy(_ source: UnsafeRawPointer, _ n: Int, to target: UnsafeMutableRawPointer) {
        @inline(__always) func words<T: FixedWidthInteger>(_: T.Type) {
            let size = MemoryLayout<T>.size
            target.storeBytes(of: source.loadUnaligned(as: T.self), as: T.self)
            (target + (n - size)).storeBytes(of: (source + (n - size)).loadUnaligned(as: T.self), as: T.self)
        }
        switch n {
        case 8...16: words(UInt64.self)
        case 4..<8: words(UInt32.self)
        case 2..<4: words(UInt16.self)
        case 1: target.storeBytes(of: source.load(as: UInt8.self), as: UInt8.self)
        case 0: break
        default: target.copyMemory(from: source, byteCount: n)
        }
    }

    /// The `n` bytes (at most eight) at `source` as one word, zero-padded: how short keys are
    /// hashed and compared a word at a time.
    @inline(__always)
    static func paddedWord(_ source: UnsafeRawPointer, _ n: Int) -> UInt64 {
        var word: UInt64 = 0
        withUnsafeMutableBytes(of: &word) { copy(source, n, to: $0.baseAddress!) }
        return word
    }

    /// The `n` bytes (at most sixteen) at `source` as two words, zero-padded (`paddedWord`).
    @inline(__always)
    static func paddedWords(_ source: UnsafeRawPointer?, _ n: Int) -> (UInt64, UInt64) {
        var words: (UInt64, UInt64) = (0, 0)
        guard let source else { return words }
        withUnsafeMutableBytes(of: &words) { copy(source, n, to: $0.baseAddress!) }
        return words
    }

    /// `"bytes"` in one step: a string that needs no escape.
    @inline(__always)
    func writeQuoted(_ bytes: UnsafeBufferPointer<UInt8>) {
        let n = bytes.count
        reserve(n + 2)
        base[count] = UInt8(ascii: "\"")
        if let start = bytes.baseAddress { ByteBuffer.copy(start, n, to: UnsafeMutableRawPointer(base + count + 1)) }
        base[count + n + 1] = UInt8(ascii: "\"")
        count += n + 2
    }

    /// `,"key":` (the comma when `comma`) in one step.
    @inline(__always)
    func writeKey(_ key: StaticString, comma: Bool) {
        let n = key.utf8CodeUnitCount
        reserve(n + 4)
        if comma {
            base[count] = UInt8(ascii: ",")
            count += 1
        }
        base[count] = UInt8(ascii: "\"")
        ByteBuffer.copy(key.utf8Start, n, to: UnsafeMutableRawPointer(base + count + 1))
        base[count + n + 1] = UInt8(ascii: "\"")
        base[count + n + 2] = UInt8(ascii: ":")
        count += n + 3
    }

}
