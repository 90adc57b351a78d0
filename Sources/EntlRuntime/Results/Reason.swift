/// Why a result is what it is, in one line. Formed when read: most checks never read it, and
/// forming the text would be a large part of a check's work. A fixed text costs nothing; a formed
/// one, the closure that captures its parts. Two reasons are equal when their texts are.
///
/// A formed reason writes its text as UTF-8 bytes (`ReasonText`), one way for both readers: as a
/// `String` (`description`) and as JSON (`withUTF8`: the batch path, where the evaluation's own
/// reasons make no `String`).
public struct Reason: Sendable, Equatable, CustomStringConvertible, ExpressibleByStringLiteral {
    private enum Form {
        case fixed(StaticString)
        case text(String)
        case formed(@Sendable (inout ReasonText) -> Void)
        /// Boxed: stored inline, this payload made the debug build of this toolchain (Swift 6.3.1)
        /// crash copying a result (a bad retain in `swift_retain`; the release build and an
        /// address-sanitized build run clean). One allocation per balance reason.
        case balance(BalanceParts)
    }

    private let form: Form

    public init(stringLiteral text: StaticString) { form = .fixed(text) }

    public init(_ text: String) { form = .text(text) }

    /// A reason formed by `text` when it is read. Capture its parts, or the evaluation (immutable, its
    /// tables shared) when a part costs more to find than the reason is likely to be read.
    public init(formed text: @escaping @Sendable () -> String) { form = .formed { $0.write(string: text()) } }

    /// A reason written by `write` when it is read (`init(formed:)` without making a `String`).
    init(writing write: @escaping @Sendable (inout ReasonText) -> Void) { form = .formed(write) }

    /// "8,800 calls left, 1 needed", "unlimited calls", "0 calls left, 1 needed; `credits` has 4 of
    /// the 5 credits needed": why a metered feature is allowed from its own balance or is not allowed,
    /// formed when read. The most common reasons, so they have a form of their own (a closure would
    /// cost an allocation per result).
    init(_ reason: BalanceReason, of graph: EnvironmentGraph) { form = .balance(BalanceParts(graph, reason)) }

    public var description: String {
        switch form {
        case .fixed(let t): t.description
        case .text(let t): t
        case .formed, .balance: withUTF8 { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// Calls `body` with the text's UTF-8 bytes: a fixed or given text's own, a formed one's written
    /// into a buffer on the stack.
    func withUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        switch form {
        case .fixed(let t): return t.withUTF8Buffer(body)
        case .text(var t): return t.withUTF8(body)
        case .formed(let write): return ReasonText.forming(write, body)
        case .balance(let parts): return ReasonText.forming({ $0.write(parts.reason, in: parts.graph) }, body)
        }
    }

    public static func == (a: Reason, b: Reason) -> Bool { a.description == b.description }

    /// The text, when it is a literal (`"no purchase satisfies its constraint"`).
    var literal: StaticString? {
        if case .fixed(let t) = form { t } else { nil }
    }

    /// Writes the text as a JSON string to `s` (`JSONSink.reason`): a balance reason's bytes found
    /// again under its key and graph when `s` kept them (`BalanceParts.key`), else formed and kept.
    func write<S: JSONSink & ~Copyable>(to s: inout S) {
        switch form {
        case .balance(let parts) where parts.reason.excess == 0:
            let key = parts.key
            if s.string(keptAs: key, of: parts.graph) { return }
            ReasonText.forming({ $0.write(parts.reason, in: parts.graph) }) {
                s.string(utf8: $0, keepingAs: key, of: parts.graph)
            }
        default: withUTF8 { s.string(utf8: $0) }
        }
    }
}

/// A balance reason's graph and parts, in one allocation: a class of its own, not an `indirect`
/// case, whose payload a pattern match copied out through the runtime's generic tuple copy (about
/// 220 instructions a metered line, reading the reason's key).
private final class BalanceParts: Sendable {
    let graph: EnvironmentGraph
    let reason: BalanceReason

    init(_ graph: EnvironmentGraph, _ reason: BalanceReason) {
        self.graph = graph
        self.reason = reason
    }

    /// What names the text with the graph (`JSONSink.string(keptAs:of:)`): the graph, whose names
    /// and units it reads, and these parts. Not used for a level over the allowance (`excess`: rare,
    /// and a part the key has no word for — left out, "60 over the allowance" was written again on
    /// a batch's later lines that had none); a fixed text costs nothing to write, and a formed one's
    /// parts are not known.
    var key: TextKey {
        let r = reason
        let credits = r.credits ?? .init(system: 0, need: 0, balance: 0)
        let flags = (r.left == nil ? 1 : 0) | (r.credits == nil ? 2 : 0) | (credits.balance == nil ? 4 : 0)
        let ids = UInt64(UInt32(bitPattern: r.feature)) | UInt64(UInt32(bitPattern: credits.system)) << 32
        return (ids, UInt64(bitPattern: r.left ?? 0), UInt64(bitPattern: r.required),
                UInt64(bitPattern: credits.need), UInt64(bitPattern: credits.balance ?? 0), UInt64(flags))
    }
}

/// The parts of a metered feature's reason that its balance gives (`Reason(_:of:)`).
struct BalanceReason: Sendable {
    /// The credit system the result names (a feature index), the credits it would take, and what
    /// it holds (nil when unlimited).
    struct Credits: Sendable {
        var system: Int32
        var need: Int64
        var balance: Int64?
    }

    var feature: Int32
    /// What is left; nil when unlimited.
    var left: Int64?
    var required: Int64
    /// Not allowed: the credit system that could not pay.
    var credits: Credits? = nil
    /// A continuous level above the allowances, which more allowance or credits must cover too.
    var excess: Int64 = 0
}

/// A result with a reason: its text as `reason`, formed from `why` when read.
public protocol Reasoned {
    var why: Reason { get set }
}

extension Reasoned {
    /// Why, in one line (formed when read).
    public var reason: String {
        get { why.description }
        set { why = Reason(newValue) }
    }
}

/// A reason's text being written, as UTF-8 bytes: into a buffer on the stack, moved to the heap
/// only when it outgrows it. It lives only for `forming(_:_:)`, which frees what it grew.
struct ReasonText: ByteOutput {
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int
    /// Whether `base` was allocated here (the text outgrew the stack).
    private var grown = false

    private init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        base = buffer.baseAddress!
        capacity = buffer.count
    }

    /// Calls `body` with the bytes `write` writes.
    static func forming<R>(_ write: (inout ReasonText) -> Void, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { stack in
            var text = ReasonText(stack)
            write(&text)
            defer { if text.grown { text.base.deallocate() } }
            return body(UnsafeBufferPointer(start: text.base, count: text.count))
        }
    }

    @inline(never)
    private mutating func grow(to needed: Int) {
        capacity = max(needed, capacity * 2)
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        larger.initialize(from: base, count: count)
        if grown { base.deallocate() }
        base = larger
        grown = true
    }

    @inline(__always)
    mutating func write(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        guard let start = bytes.baseAddress else { return }
        if capacity - count < bytes.count { grow(to: count + bytes.count) }
        ByteBuffer.copy(start, bytes.count, to: UnsafeMutableRawPointer(base + count))
        count += bytes.count
    }

    /// A name in backticks: "`credits`".
    mutating func write(code name: String) {
        write(UInt8(ascii: "`"))
        write(string: name)
        write(UInt8(ascii: "`"))
    }

    /// " until 2026-12-01T00:00:00Z", when there is an end.
    mutating func write(until end: Instant?) {
        guard let end else { return }
        write(" until ")
        end.writeRFC3339(to: &self)
    }

    /// `graph.features[f].amount(count)`: "8,800 calls", "1 call".
    mutating func write(amount count: Int64, of f: Int, in graph: EnvironmentGraph) {
        Feature.writeAmount(count, unit: graph.features[f].unit(count), to: &self)
    }

    /// `Reason(reason, of: graph)`'s text.
    mutating func write(_ reason: BalanceReason, in graph: EnvironmentGraph) {
        let f = Int(reason.feature)
        guard let left = reason.left else {
            write("unlimited ")
            return write(string: graph.features[f].unit(2))
        }
        write(amount: left, of: f, in: graph)
        write(" left")
        if reason.excess > 0 {
            write(" (")
            write(grouped: reason.excess)
            write(" over the allowance)")
        }
        write(", ")
        write(grouped: reason.required)
        write(" needed")
        guard let credits = reason.credits else { return }
        write("; ")
        write(code: graph.features[Int(credits.system)].name)
        write(" has ")
        if let balance = credits.balance { write(grouped: balance) } else { write("unlimited") }
        write(" of the ")
        write(grouped: credits.need)
        write(" credits needed")
    }
}
