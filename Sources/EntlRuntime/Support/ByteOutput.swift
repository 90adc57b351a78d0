/// Where JSON text is written: an array, or the growable buffer of `JSONBytes` (the batch path).
/// The writers (`JSONValue.writeString`, `writeInteger`, `Instant.writeRFC3339`) are one generic
/// body each, specialized for both.
protocol ByteOutput: ~Copyable {
    mutating func write(_ byte: UInt8)
    mutating func write(_ bytes: UnsafeRawBufferPointer)
}

extension ByteOutput where Self: ~Copyable {
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
/// copy-on-write check per byte, as an array's append makes). It owns its bytes and cannot be
/// copied, so a holder that has it `inout` is the only way to them: storing a byte leaves `count`
/// in a register instead of making it read again.
struct ByteBuffer: ~Copyable, ByteOutput {
    private var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    /// Bytes allocated past `capacity`: a write may store a whole word at its end (`write(word:)`)
    /// when it has reserved only the bytes it keeps.
    private static let slack = 8

    init(capacity: Int = 512) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity + ByteBuffer.slack)
    }

    deinit { base.deallocate() }

    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// Forgets the bytes written, keeping the capacity.
    mutating func removeAll() {
        count = 0
        #if DEBUG
        reservedEnd = 0
        #endif
    }

    #if DEBUG
    /// Where the room the last `reserve` made ends (debug builds: `checkRoom`).
    private var reservedEnd = 0
    #endif

    /// Makes room for `n` more bytes.
    @inline(__always)
    mutating func reserve(_ n: Int) {
        if capacity &- count < n { grow(to: count + n) }
        #if DEBUG
        reservedEnd = count + n
        #endif
    }

    @inline(never)
    private mutating func grow(to needed: Int) {
        capacity = max(needed, capacity * 2)
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity + ByteBuffer.slack)
        larger.initialize(from: base, count: count)
        base.deallocate()
        base = larger
    }

    @inline(__always)
    mutating func write(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count &+= 1
    }

    @inline(__always)
    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        guard let start = bytes.baseAddress else { return }
        reserve(bytes.count)
        ByteBuffer.copy(start, bytes.count, to: UnsafeMutableRawPointer(base + count))
        count &+= bytes.count
    }

    /// Writes `byte` when `condition`, without a branch (a comma before a value), in room reserved.
    @inline(__always)
    mutating func reserved(_ byte: UInt8, if condition: Bool) {
        checkRoom(storing: 1)
        base[count] = byte
        count &+= condition ? 1 : 0
        checkRoom(storing: 0)
    }

    /// Writes the first `n` (at most eight) bytes of `word` (in memory order) in room reserved
    /// for them: one store.
    @inline(__always)
    mutating func reserved(word: UInt64, count n: Int) {
        checkRoom(storing: 8)
        UnsafeMutableRawPointer(base + count).storeBytes(of: word, as: UInt64.self)
        count &+= n
        checkRoom(storing: 0)
    }

    /// Writes `n` bytes from `source` in room reserved for them.
    @inline(__always)
    mutating func reserved(_ source: UnsafeRawPointer, count n: Int) {
        ByteBuffer.copy(source, n, to: UnsafeMutableRawPointer(base + count))
        count &+= n
        checkRoom(storing: 0)
    }

    /// In debug builds (the tests), that a store of `n` bytes at the position stays within the room
    /// the last `reserve` made and the slack past it, and the position within that room once it
    /// has moved (`storing: 0`): a write that reserved too little traps there, wherever the buffer
    /// is, instead of writing past it only when it is nearly full.
    @inline(__always)
    private func checkRoom(storing n: Int) {
        #if DEBUG
        precondition(count + n <= reservedEnd + (n == 0 ? 0 : ByteBuffer.slack), "a write past the room reserved")
        #endif
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
        #if _endian(little)
        // Built in a register from two overlapping loads, the second shifted past what the first
        // holds (copied into a word in memory, a copy of a length known only at run time was a
        // call to `memcpy`).
        @inline(__always) func load<T: FixedWidthInteger>(_: T.Type, _ offset: Int) -> UInt64 {
            UInt64(truncatingIfNeeded: source.loadUnaligned(fromByteOffset: offset, as: T.self))
        }
        switch n {
        case 8...: return load(UInt64.self, 0)
        case 4..<8: return load(UInt32.self, 0) | (load(UInt32.self, n &- 4) &>> (8 &* (8 &- n))) &<< 32
        case 2..<4: return load(UInt16.self, 0) | (load(UInt16.self, n &- 2) &>> (8 &* (4 &- n))) &<< 16
        case 1: return load(UInt8.self, 0)
        default: return 0
        }
        #else
        var word: UInt64 = 0
        withUnsafeMutableBytes(of: &word) { copy(source, n, to: $0.baseAddress!) }
        return word
        #endif
    }

    /// The `n` bytes (at most sixteen) at `source` as two words, zero-padded (`paddedWord`).
    @inline(__always)
    static func paddedWords(_ source: UnsafeRawPointer?, _ n: Int) -> (UInt64, UInt64) {
        guard let source else { return (0, 0) }
        #if _endian(little)
        guard n > 8 else { return (paddedWord(source, n), 0) }
        // Bytes 8 ..< n: the last eight bytes, shifted past those the first word holds.
        let last = source.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
        return (source.loadUnaligned(as: UInt64.self), last &>> (8 &* (16 &- n)))
        #else
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { copy(source, n, to: $0.baseAddress!) }
        return words
        #endif
    }

    /// `"bytes"` when no byte needs an escape in a JSON string (a quote, a backslash, a control
    /// byte), copied a word at a time as it is checked; false, with nothing written, otherwise.
    @inline(__always)
    mutating func writeQuoted(ifPlain bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = bytes.count
        reserve(n &+ 2)
        checkRoom(storing: n &+ 2)
        guard ByteBuffer.quoted(ifPlain: bytes, at: UnsafeMutableRawPointer(base + count)) else { return false }
        count &+= n &+ 2
        return true
    }

    /// `writeQuoted(ifPlain:)` at `target`, in room for `bytes.count + 2` bytes and the slack.
    @inline(__always)
    static func quoted(ifPlain bytes: UnsafeBufferPointer<UInt8>, at target: UnsafeMutableRawPointer) -> Bool {
        let n = bytes.count
        target.storeBytes(of: UInt8(ascii: "\""), as: UInt8.self)
        if let source = bytes.baseAddress.map(UnsafeRawPointer.init), n > 0 {
            if n < 8 {
                // One word, zero-padded: padding stops a run like a control byte does, past the end.
                let word = ByteBuffer.paddedWord(source, n)
                guard (JSONScanner.plainRunStop(word, nonASCII: true) ?? n) >= n else { return false }
                (target + 1).storeBytes(of: word, as: UInt64.self)  // within the slack
            } else {
                @inline(__always) func copy(at i: Int) -> Bool {
                    let word = source.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    guard JSONScanner.plainRunStop(word, nonASCII: true) == nil else { return false }
                    (target + 1 + i).storeBytes(of: word, as: UInt64.self)
                    return true
                }
                var i = 0
                while i &+ 8 < n {
                    guard copy(at: i) else { return false }
                    i &+= 8
                }
                // The last word ends at the last byte, overlapping the one before it.
                guard copy(at: n &- 8) else { return false }
            }
        }
        (target + n + 1).storeBytes(of: UInt8(ascii: "\""), as: UInt8.self)
        return true
    }

    /// Room for `n` bytes reserved at once, written through the cursor returned (no capacity check,
    /// its position in a register) up to `advance(to:)`, with nothing else written in between.
    @inline(__always)
    mutating func cursor(reserving n: Int) -> ByteCursor {
        reserve(n)
        #if DEBUG
        return ByteCursor(base + count, end: base + count + n)
        #else
        return ByteCursor(base + count)
        #endif
    }

    /// The bytes a cursor from `cursor(reserving:)` wrote, kept.
    @inline(__always)
    mutating func advance(to cursor: ByteCursor) {
        count = cursor.position - base
        checkRoom(storing: 0)
    }

    /// `n` bytes from `source` (a literal, whose length is then known when compiling, or an instant's
    /// text): up to 256 as 16-byte words, overlapping at the end, with no call to `memcpy`.
    @inline(__always)
    static func copy(literal source: UnsafeRawPointer, _ n: Int, to target: UnsafeMutableRawPointer) {
        typealias Word = SIMD16<UInt8>
        @inline(__always) func word(_ at: Int) {
            (target + at).storeBytes(of: (source + at).loadUnaligned(as: Word.self), as: Word.self)
        }
        switch n {
        case ...16: copy(source, n, to: target)
        case ...32: word(0); word(n &- 16)
        case ...48: word(0); word(16); word(n &- 16)
        case ...64: word(0); word(16); word(32); word(n &- 16)
        case ...256:
            var i = 0
            while i &+ 16 < n {
                word(i)
                i &+= 16
            }
            word(n &- 16)
        default: target.copyMemory(from: source, byteCount: n)
        }
    }
}

/// A write position in room reserved ahead (`ByteBuffer.cursor(reserving:)`): each write stores and moves
/// on, with no capacity check and no position read back from memory (a result's members, written
/// one after the other, keep it in a register). Debug builds check each write against the room.
struct ByteCursor: ByteOutput {
    private(set) var position: UnsafeMutablePointer<UInt8>
    #if DEBUG
    private let end: UnsafeMutablePointer<UInt8>

    init(_ position: UnsafeMutablePointer<UInt8>, end: UnsafeMutablePointer<UInt8>) {
        self.position = position
        self.end = end
    }
    #else
    init(_ position: UnsafeMutablePointer<UInt8>) { self.position = position }
    #endif

    /// In debug builds, that `n` more bytes stay within the room (`slack`: stores past it by up to
    /// the buffer's slack, which the position does not move over).
    @inline(__always)
    func check(_ n: Int, slack: Int = 0) {
        #if DEBUG
        precondition(position + n <= end + slack, "a write past the room reserved")
        #endif
    }

    @inline(__always)
    mutating func write(_ byte: UInt8) {
        check(1)
        position.pointee = byte
        position += 1
    }

    @inline(__always)
    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        guard let start = bytes.baseAddress else { return }
        check(bytes.count)
        ByteBuffer.copy(literal: start, bytes.count, to: UnsafeMutableRawPointer(position))
        position += bytes.count
    }

    /// A literal's bytes (a run of keys and values known when compiling), copied as words.
    @inline(__always)
    mutating func write(literal text: StaticString) {
        let n = text.utf8CodeUnitCount
        check(n)
        ByteBuffer.copy(literal: text.utf8Start, n, to: UnsafeMutableRawPointer(position))
        position += n
    }

    /// The first `n` (at most eight) bytes of `word`, in memory order: one store.
    @inline(__always)
    mutating func write(word: UInt64, count n: Int) {
        check(n, slack: 8)
        UnsafeMutableRawPointer(position).storeBytes(of: word, as: UInt64.self)
        position += n
    }

    /// The first `n` bytes of `words`, in memory order.
    @inline(__always)
    mutating func write(words: (UInt64, UInt64, UInt64, UInt64), count n: Int) {
        check(32)
        UnsafeMutableRawPointer(position).storeBytes(of: words, as: (UInt64, UInt64, UInt64, UInt64).self)
        position += n
    }

    /// Moves past `n` bytes written in place.
    @inline(__always)
    mutating func skip(_ n: Int) {
        check(n)
        position += n
    }

    /// `byte` when `condition`, without a branch (a comma before a value).
    @inline(__always)
    mutating func write(_ byte: UInt8, if condition: Bool) {
        check(1)
        position.pointee = byte
        position += condition ? 1 : 0
    }

    /// A JSON string of `bytes`, in room for `ByteCursor.room(utf8:)` (every byte escaped).
    @inline(__always)
    mutating func writeString(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        check(bytes.count &+ 2, slack: 8)
        if ByteBuffer.quoted(ifPlain: bytes, at: UnsafeMutableRawPointer(position)) {
            position += bytes.count &+ 2
        } else {
            JSONValue.writeString(utf8: bytes, to: &self)
        }
    }

    /// The room for a JSON string of `count` UTF-8 bytes: `\u00XX` for each, the quotes, and 8 bytes
    /// for a small string's two words stored whole (`JSONCursor.string`).
    @inline(__always)
    static func room(utf8 count: Int) -> Int { count &* 6 &+ 10 }
}

/// Literals (`StaticString`s: their bytes never change, and one address holds one literal) written
/// lately as JSON strings that needed no escape, by address and length, in 32 slots the address
/// chooses: a batch writes the same few fixed reasons line after line, each a scan for escapes.
struct PlainLiterals {
    private static let slotCount = 32
    /// Each slot: an address and a length.
    private let slots = UnsafeMutablePointer<(UInt, Int)>.allocate(capacity: PlainLiterals.slotCount)

    init() { slots.initialize(repeating: (0, 0), count: PlainLiterals.slotCount) }

    /// Frees the slots (the owning sink's `deinit`; a copy is a handle to the same slots).
    func deallocate() { slots.deallocate() }

    @inline(__always)
    private func slot(_ address: UInt) -> UnsafeMutablePointer<(UInt, Int)> {
        slots + Int(truncatingIfNeeded: (UInt64(address) &* 0x9E37_79B9_7F4A_7C15) >> 59)
    }

    /// Whether `text` was kept as needing no escape.
    @inline(__always)
    func contains(_ text: StaticString) -> Bool {
        guard text.hasPointerRepresentation else { return false }
        let address = UInt(bitPattern: text.utf8Start)
        let slot = slot(address)
        return slot.pointee.0 == address && slot.pointee.1 == text.utf8CodeUnitCount
    }

    /// Keeps `text` as needing no escape.
    func insert(_ text: StaticString) {
        guard text.hasPointerRepresentation else { return }
        let address = UInt(bitPattern: text.utf8Start)
        slot(address).pointee = (address, text.utf8CodeUnitCount)
    }
}

extension String {
    /// The two words the standard library holds a `String` in on 64-bit platforms. Only where
    /// `MemoryLayout<String>.size == 16` (callers check; elsewhere the cast traps).
    @inline(__always)
    var representationWords: (UInt64, UInt64) { unsafeBitCast(self, to: (UInt64, UInt64).self) }
}

/// `JSONBytes` written through a `ByteCursor` (`JSONBytes.beginRun`), in room reserved for the
/// whole run: values and members with no capacity check and no comma flag (a run knows where its
/// commas go), instants and literals found again in the sink's `RecentInstants` and `PlainLiterals`.
struct JSONCursor {
    var bytes: ByteCursor
    /// Whether the first value needs a comma before it (`separator()`).
    let comma: Bool
    let instants: RecentInstants
    let literals: PlainLiterals
    /// Whether a small string's bytes may be read from the value (`smallStringLayoutHolds`).
    let smallStrings: Bool

    /// Whether a `String` of at most 15 ASCII bytes holds them in its two words as the standard
    /// library lays a small string out on 64-bit platforms (the bytes in order, the top byte of the
    /// second word `0xE0` and the count): checked on two strings made at run time, once per sink.
    /// When it does not hold, every string is read through `String.UTF8View`.
    static func smallStringLayoutHolds() -> Bool {
        guard MemoryLayout<String>.size == 16 else { return false }
        let long = String(decoding: Array("abcdefghijklmno".utf8), as: UTF8.self)
        let short = String(decoding: [UInt8(ascii: "a"), UInt8(ascii: "b")], as: UTF8.self)
        let (a, b) = (long.representationWords, short.representationWords)
        return a == (0x6867_6665_6463_6261, 0xEF6F_6E6D_6C6B_6A69) && b == (0x6261, 0xE200_0000_0000_0000)
    }
}

/// The values of a run that the sink's own members write too (`JSONBytes.instant`).
extension JSONCursor {
    /// The room an instant takes, quoted (years past 9999 and nanoseconds: at most 43 bytes).
    static let instantRoom = 64

    /// The comma before the run's first value, when it needs one.
    @inline(__always)
    mutating func separator() { bytes.write(UInt8(ascii: ","), if: comma) }

    /// `null` (room: 4 bytes, and a word of slack).
    @inline(__always)
    mutating func null() { bytes.write(word: 0x6C6C_756E, count: 4) }

    /// An instant's RFC 3339 string or null, in `instantRoom`: its text found again in the sink's
    /// `RecentInstants`, else formed and kept there.
    @inline(__always)
    mutating func instant(_ value: Instant?) {
        guard let value else { return null() }
        bytes.write(UInt8(ascii: "\""))
        if !instants.write(value, to: &bytes) { formed(value) }
        bytes.write(UInt8(ascii: "\""))
    }

    @inline(never)
    private mutating func formed(_ value: Instant) {
        let start = bytes.position
        value.writeRFC3339(to: &bytes)
        instants.remember(value, text: UnsafeBufferPointer(start: start, count: bytes.position - start))
    }
}
