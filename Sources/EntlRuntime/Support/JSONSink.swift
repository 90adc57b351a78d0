/// A writer of JSON values in document order: a `JSONValue` tree (`JSONTree`) or compact bytes
/// (`JSONBytes`). The docs/cli.md shapes are written once against it (`EvaluationResult.encode(to:)`).
public protocol JSONSink: ~Copyable {
    mutating func beginObject()
    mutating func endObject()
    mutating func beginArray()
    mutating func endArray()
    /// An object key: a literal that needs no escaping (the keys of docs/cli.md are plain ASCII).
    mutating func key(_ key: StaticString)
    mutating func string(_ value: String?)
    /// A string value that needs no escaping, known when compiling (a kind, a decision, a status):
    /// `JSONBytes` writes it like a key, with no scan for escapes.
    mutating func word(_ value: StaticString)
    mutating func int(_ value: Int64?)
    mutating func bool(_ value: Bool)
    /// An RFC 3339 string, or null.
    mutating func instant(_ value: Instant?)
    /// A string given as its UTF-8 bytes.
    mutating func string(utf8 bytes: UnsafeBufferPointer<UInt8>)
    /// Writes the string an earlier `string(utf8:keepingAs:of:)` gave for `key` and `owner`, and
    /// returns true, when this sink kept it (`JSONBytes` keeps some written lately); else writes
    /// nothing and returns false. A key names its text: the same key and owner, the same bytes.
    mutating func string(keptAs key: TextKey, of owner: AnyObject) -> Bool
    /// `string(utf8:)`, which this sink may keep for `key` and `owner` (a text that costs more to
    /// form than to find again: a reason).
    mutating func string(utf8 bytes: UnsafeBufferPointer<UInt8>, keepingAs key: TextKey, of owner: AnyObject)
    /// A member: `key`, then its value as `bool(_:)` (and the others) write it. `JSONBytes` writes
    /// both at once, in one reservation for a value of a known size (most of a result's members).
    mutating func field(_ key: StaticString, _ value: Bool)
    mutating func field(_ key: StaticString, _ value: Int64?)
    mutating func field(_ key: StaticString, _ value: String?)
    mutating func field(_ key: StaticString, _ value: Instant?)
    mutating func field(_ key: StaticString, word value: StaticString)
}

/// What names a text a sink may keep (`JSONSink.string(keptAs:of:)`): six words, which with an
/// object (immutable, whose parts the text reads) decide the text.
public typealias TextKey = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

extension JSONSink where Self: ~Copyable {
    public mutating func word(_ value: StaticString) { string(value.description) }

    public mutating func instant(_ value: Instant?) { string(value?.rfc3339) }

    public mutating func string(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        string(String(decoding: bytes, as: UTF8.self))
    }

    public mutating func string(keptAs key: TextKey, of owner: AnyObject) -> Bool { false }

    public mutating func string(utf8 bytes: UnsafeBufferPointer<UInt8>, keepingAs key: TextKey, of owner: AnyObject) {
        string(utf8: bytes)
    }

    public mutating func field(_ key: StaticString, _ value: Bool) { self.key(key); bool(value) }
    public mutating func field(_ key: StaticString, _ value: Int64?) { self.key(key); int(value) }
    public mutating func field(_ key: StaticString, _ value: String?) { self.key(key); string(value) }
    public mutating func field(_ key: StaticString, _ value: Instant?) { self.key(key); instant(value) }
    public mutating func field(_ key: StaticString, word value: StaticString) { self.key(key); word(value) }
}

/// Builds a `JSONValue`.
public struct JSONTree: JSONSink {
    private enum Open {
        case object([(key: String, value: JSONValue)], pendingKey: String?)
        case array([JSONValue])
    }

    private var open: [Open] = []
    public private(set) var value: JSONValue = .null

    public init() {}

    private mutating func add(_ v: JSONValue) {
        guard let last = open.popLast() else {
            value = v
            return
        }
        switch last {
        case .object(var members, let key):
            members.append((key ?? "", v))
            open.append(.object(members, pendingKey: nil))
        case .array(var items):
            items.append(v)
            open.append(.array(items))
        }
    }

    public mutating func beginObject() { open.append(.object([], pendingKey: nil)) }
    public mutating func beginArray() { open.append(.array([])) }

    public mutating func endObject() {
        if case .object(let members, _)? = open.popLast() { add(.object(members)) }
    }

    public mutating func endArray() {
        if case .array(let items)? = open.popLast() { add(.array(items)) }
    }

    public mutating func key(_ key: StaticString) {
        if case .object(let members, _)? = open.popLast() { open.append(.object(members, pendingKey: key.description)) }
    }

    public mutating func string(_ value: String?) { add(.string(value)) }
    public mutating func int(_ value: Int64?) { add(.int(value)) }
    public mutating func bool(_ value: Bool) { add(.bool(value)) }
}

/// Writes compact JSON bytes directly into a buffer of its own. It cannot be copied (so no write
/// checks whether the buffer is shared); it can hold many values, one per line (`endLine`).
public struct JSONBytes: ~Copyable, JSONSink {
    private var buffer: ByteBuffer
    /// Whether the next value or key needs a comma before it: one follows a value (or a closed
    /// container) and never a key or an opening bracket, at any depth.
    private var comma = false
    /// Instants written lately, with their text.
    private var instants = RecentInstants()
    /// Strings written lately under a key and an owner (a balance reason's), with their text.
    private var texts = RecentTexts()
    /// Literals written lately as JSON strings that needed no escape (a fixed reason).
    private let literals = PlainLiterals()
    private let smallStrings = JSONCursor.smallStringLayoutHolds()

    deinit { instants.deallocate(); literals.deallocate() }

    public init(bytes: [UInt8] = [], capacity: Int = 512) {
        buffer = ByteBuffer(capacity: bytes.count + capacity)
        bytes.withUnsafeBytes { buffer.write($0) }
    }

    /// The bytes written so far.
    public var bytes: [UInt8] { Array(buffer.bytes) }

    /// Calls `body` with the bytes written so far, without copying them.
    public func withBytes<T>(_ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        try body(buffer.bytes)
    }

    /// The number of bytes written so far.
    public var count: Int { buffer.count }

    /// Forgets what was written, keeping the buffer.
    public mutating func removeAll() {
        buffer.removeAll()
        comma = false
    }

    /// Ends a line of JSON Lines after a whole value: a newline, and the next value starts the next
    /// line (without a comma before it).
    public mutating func endLine() {
        buffer.write(UInt8(ascii: "\n"))
        comma = false
    }

    /// A run of `n` bytes at most, reserved at once and written through the cursor returned (which
    /// writes the comma before them: `separator()`) up to `endRun`, with nothing else written here
    /// in between. No closure: the cursor's position stays in a register through the whole run.
    @inline(__always)
    mutating func beginRun(reserving n: Int) -> JSONCursor {
        JSONCursor(bytes: buffer.cursor(reserving: n), comma: comma, instants: instants, literals: literals,
                   smallStrings: smallStrings)
    }

    /// The bytes of a run kept. `endsInValue`: whether they end with a value, which the next one
    /// needs a comma after (false after a key or an opening bracket).
    @inline(__always)
    mutating func endRun(_ run: JSONCursor, endsInValue: Bool) {
        buffer.advance(to: run.bytes)
        comma = endsInValue
    }

    /// Makes room for a value of `n` bytes and writes the comma before it, if it needs one.
    @inline(__always)
    private mutating func beginValue(reserving n: Int) {
        buffer.reserve(n &+ 1)
        buffer.reserved(UInt8(ascii: ","), if: comma)
        comma = true
    }

    /// Writes the separator before a value of unknown length.
    @inline(__always)
    private mutating func separate() { beginValue(reserving: 0) }

    // The writes of a fixed size, and the null of every kind, are inlined where a result is
    // written: each is a few instructions, a call would double them.
    @inline(__always) public mutating func beginObject() { open(UInt8(ascii: "{")) }
    @inline(__always) public mutating func endObject() { close(UInt8(ascii: "}")) }
    @inline(__always) public mutating func beginArray() { open(UInt8(ascii: "[")) }
    @inline(__always) public mutating func endArray() { close(UInt8(ascii: "]")) }

    @inline(__always)
    private mutating func open(_ bracket: UInt8) {
        beginValue(reserving: 1)
        buffer.reserved(bracket, if: true)
        comma = false
    }

    @inline(__always)
    private mutating func close(_ bracket: UInt8) {
        buffer.write(bracket)
        comma = true
    }

    /// `"key":`, after a comma when it needs one, in one reservation.
    @inline(__always)  // the key's length is then a constant, and so is the way it is copied
    public mutating func key(_ key: StaticString) {
        self.key(key, reservingValue: 0)
        comma = false  // the value writes its own separator (none)
    }

    /// `"key":` after a comma when it needs one, in a reservation that also holds a value of up to
    /// `value` bytes, written next without a reservation or a comma of its own (`field`; `key(_:)`
    /// reserves none).
    @inline(__always)
    private mutating func key(_ key: StaticString, reservingValue value: Int) {
        let n = key.utf8CodeUnitCount
        buffer.reserve(n &+ 4 &+ value)
        buffer.reserved(UInt8(ascii: ","), if: comma)
        buffer.reserved(UInt8(ascii: "\""), if: true)
        buffer.reserved(key.utf8Start, count: n)
        buffer.reserved(word: JSONBytes.quoteColon, count: 2)
        comma = true  // the value follows at once
    }

    // Members whose value has a known size: the key and the value in one reservation.
    @inline(__always)
    public mutating func field(_ key: StaticString, _ value: Bool) {
        self.key(key, reservingValue: 5)
        buffer.reserved(word: value ? JSONBytes.trueWord : JSONBytes.falseWord, count: value ? 4 : 5)
    }

    @inline(__always)
    public mutating func field(_ key: StaticString, _ value: Int64?) {
        guard let value else { return nullField(key) }
        // One digit (most counts here) needs no division.
        guard 0 <= value, value <= 9 else { return wideIntField(key, value) }
        self.key(key, reservingValue: 1)
        buffer.reserved(UInt8(truncatingIfNeeded: value) &+ UInt8(ascii: "0"), if: true)
    }

    @inline(__always)
    public mutating func field(_ key: StaticString, _ value: String?) {
        guard let value else { return nullField(key) }
        self.key(key)
        string(value)
    }

    @inline(__always)
    public mutating func field(_ key: StaticString, _ value: Instant?) {
        guard let value else { return nullField(key) }
        self.key(key)
        instant(value)
    }

    @inline(__always)
    public mutating func field(_ key: StaticString, word value: StaticString) {
        self.key(key, reservingValue: value.utf8CodeUnitCount &+ 2)
        reserved(word: value)
    }

    @inline(never)
    private mutating func wideIntField(_ key: StaticString, _ value: Int64) {
        self.key(key)
        int(value)
    }

    @inline(__always)
    private mutating func nullField(_ key: StaticString) {
        self.key(key, reservingValue: 4)
        buffer.reserved(word: JSONBytes.nullWord, count: 4)
    }

    /// `":` as a word in memory order.
    private static var quoteColon: UInt64 { UInt64(UInt8(ascii: "\"")) | UInt64(UInt8(ascii: ":")) << 8 }
    /// `null`, `true` and `false` as words in memory order (little-endian).
    private static var nullWord: UInt64 { 0x6C6C_756E }
    private static var trueWord: UInt64 { 0x6575_7274 }
    private static var falseWord: UInt64 { 0x65_736C_6166 }

    /// `null`, after a comma when it needs one.
    @inline(__always)
    private mutating func nullValue() {
        beginValue(reserving: 4)
        buffer.reserved(word: JSONBytes.nullWord, count: 4)
    }

    @inline(__always)
    public mutating func word(_ value: StaticString) {
        beginValue(reserving: value.utf8CodeUnitCount &+ 2)
        reserved(word: value)
    }

    /// `"value"` in room reserved for it.
    @inline(__always)
    private mutating func reserved(word value: StaticString) {
        buffer.reserved(UInt8(ascii: "\""), if: true)
        buffer.reserved(value.utf8Start, count: value.utf8CodeUnitCount)
        buffer.reserved(UInt8(ascii: "\""), if: true)
    }

    @inline(__always)
    public mutating func string(_ value: String?) {
        guard let value else { return nullValue() }
        string(value)
    }

    @inline(never)
    private mutating func string(_ value: String) {
        separate()
        // The bytes in place when the string has them contiguous (native and small ones), no copy.
        let written: Void? = value.utf8.withContiguousStorageIfAvailable { JSONBytes.writeString($0, to: &buffer) }
        if written == nil { JSONValue.writeString(value, to: &buffer) }
    }

    /// A string given as its UTF-8 bytes (no `String` is made).
    public mutating func string(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        separate()
        JSONBytes.writeString(bytes, to: &buffer)
    }

    /// The string kept for `key` and `owner` (`RecentTexts`), as the next value, when there is one.
    public mutating func string(keptAs key: TextKey, of owner: AnyObject) -> Bool {
        guard let (text, count) = texts.text(key, of: owner) else { return false }
        beginValue(reserving: count)
        buffer.reserved(text, count: count)
        return true
    }

    /// `string(utf8:)`, its bytes (quotes and escapes, not the comma before) kept for `key` and `owner`.
    public mutating func string(utf8 bytes: UnsafeBufferPointer<UInt8>, keepingAs key: TextKey, of owner: AnyObject) {
        separate()
        let start = buffer.count
        JSONBytes.writeString(bytes, to: &buffer)
        texts.remember(key, of: owner, text: UnsafeBufferPointer(rebasing: buffer.bytes[start...]))
    }

    /// A JSON string: in one pass when no byte needs an escape (names, words, most reasons).
    @inline(__always)
    private static func writeString(_ bytes: UnsafeBufferPointer<UInt8>, to buffer: inout ByteBuffer) {
        if !buffer.writeQuoted(ifPlain: bytes) { JSONValue.writeString(utf8: bytes, to: &buffer) }
    }

    @inline(__always)
    public mutating func int(_ value: Int64?) {
        guard let value else { return nullValue() }
        // One digit (most counts here) needs no division.
        if 0 <= value, value <= 9 {
            beginValue(reserving: 1)
            return buffer.reserved(UInt8(truncatingIfNeeded: value) &+ UInt8(ascii: "0"), if: true)
        }
        int(value)
    }

    @inline(never)
    private mutating func int(_ value: Int64) {
        separate()
        JSONValue.writeInteger(value, to: &buffer)
    }

    @inline(__always)
    public mutating func bool(_ value: Bool) {
        beginValue(reserving: 5)
        buffer.reserved(word: value ? JSONBytes.trueWord : JSONBytes.falseWord, count: value ? 4 : 5)
    }

    @inline(__always)
    public mutating func instant(_ value: Instant?) {
        guard let value else { return nullValue() }
        instant(value)
    }

    /// In a run of its own (`JSONCursor.instant`: the text found again or formed and kept).
    @inline(never)
    private mutating func instant(_ value: Instant) {
        var c = beginRun(reserving: JSONCursor.instantRoom + 1)
        c.separator()
        c.instant(value)
        endRun(c, endsInValue: true)
    }
}

/// The RFC 3339 text of instants written lately, each in a slot its value chooses: a batch writes
/// the same `at` on every line, and the dates of a rule set's customers come again and again (an
/// expiry, and the end of the window it starts; a renewal day).
struct RecentInstants {
    private struct Slot {
        var instant = Instant(seconds: 0)
        /// The text, when `count` is not 0.
        var text: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var count = 0
    }

    /// The longest text kept (years 0 to 9999 with nanoseconds take 30 bytes).
    static let width = MemoryLayout<(UInt64, UInt64, UInt64, UInt64)>.size
    private static let slotCount = 64
    private let slots = UnsafeMutablePointer<Slot>.allocate(capacity: RecentInstants.slotCount)

    init() { slots.initialize(repeating: Slot(), count: RecentInstants.slotCount) }

    /// Frees the slots (the owning sink's `deinit`; a copy is a handle to the same slots).
    func deallocate() { slots.deallocate() }

    @inline(__always)
    private func slot(_ instant: Instant) -> UnsafeMutablePointer<Slot> {
        let mixed = UInt64(bitPattern: instant.seconds ^ Int64(instant.nanoseconds)) &* 0x9E37_79B9_7F4A_7C15
        return slots + Int(truncatingIfNeeded: mixed >> 58)
    }

    /// Writes the text of `instant` at `cursor` when it was written lately, in room for `width`
    /// bytes; else nothing.
    @inline(__always)
    func write(_ instant: Instant, to cursor: inout ByteCursor) -> Bool {
        let slot = slot(instant)
        guard slot.pointee.count != 0, slot.pointee.instant == instant else { return false }
        cursor.write(words: slot.pointee.text, count: slot.pointee.count)
        return true
    }

    /// Keeps `text` as the text of `instant`, when it is not longer than `width`.
    func remember(_ instant: Instant, text: UnsafeBufferPointer<UInt8>) {
        guard text.count <= RecentInstants.width, let start = text.baseAddress else { return }
        let slot = slot(instant)
        slot.pointee.instant = instant
        slot.pointee.count = text.count
        withUnsafeMutableBytes(of: &slot.pointee.text) { ByteBuffer.copy(start, text.count, to: $0.baseAddress!) }
    }
}

/// JSON strings written lately (quotes and escapes included), each under its key and owner in a
/// slot the key chooses: a batch writes the same few reasons on line after line ("0 calls left, 1
/// needed"), each of which costs more to form than to compare six words. A slot holds its owner, so
/// an owner compared by identity is never another that took a freed one's address. The slots are
/// allocated when a first text is kept (a sink that writes no balance reason allocates none).
struct RecentTexts: ~Copyable {
    private struct Slot {
        var key: TextKey = (0, 0, 0, 0, 0, 0)
        var owner: AnyObject?
        var identity: ObjectIdentifier?
        /// The text's length (0: nothing kept).
        var count = 0
    }

    /// The longest text kept.
    static let width = 160
    private static let slotCount = 16
    private var slots: UnsafeMutablePointer<Slot>?
    private var texts: UnsafeMutablePointer<UInt8>?

    init() {}

    deinit {
        slots?.deinitialize(count: RecentTexts.slotCount)
        slots?.deallocate()
        texts?.deallocate()
    }

    @inline(__always)
    private func index(_ key: TextKey) -> Int {
        let m: UInt64 = 0x9E37_79B9_7F4A_7C15
        var h = key.0 &* m
        h = (h ^ key.1 ^ key.2 &<< 1) &* m
        h = (h ^ key.3 ^ key.4 &<< 1 ^ key.5 &<< 2) &* m
        return Int(truncatingIfNeeded: h >> 60)
    }

    /// The text kept for `key` and `owner`, if any.
    @inline(__always)
    func text(_ key: TextKey, of owner: AnyObject) -> (UnsafeRawPointer, Int)? {
        guard let slots, let texts else { return nil }
        let i = index(key)
        let slot = slots + i
        guard slot.pointee.count != 0, slot.pointee.identity == ObjectIdentifier(owner), slot.pointee.key == key
        else { return nil }
        return (UnsafeRawPointer(texts + i &* RecentTexts.width), slot.pointee.count)
    }

    /// Keeps `text` for `key` and `owner`, when it is not longer than `width`.
    mutating func remember(_ key: TextKey, of owner: AnyObject, text: UnsafeBufferPointer<UInt8>) {
        guard text.count <= RecentTexts.width, let start = text.baseAddress else { return }
        if slots == nil {
            let made = UnsafeMutablePointer<Slot>.allocate(capacity: RecentTexts.slotCount)
            made.initialize(repeating: Slot(), count: RecentTexts.slotCount)
            (slots, texts) = (made, .allocate(capacity: RecentTexts.slotCount * RecentTexts.width))
        }
        let i = index(key)
        slots.unsafelyUnwrapped[i] = Slot(key: key, owner: owner, identity: ObjectIdentifier(owner), count: text.count)
        (texts.unsafelyUnwrapped + i &* RecentTexts.width).initialize(from: start, count: text.count)
    }
}
