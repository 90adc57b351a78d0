/// A state that cannot be used (or, in `PurchaseState.warnings`, a key that was not understood),
/// with the place that says why:
/// `purchases[3].expires_at: "2026-13-01" is not an RFC 3339 instant`. Its path is
/// `purchases[3].expires_at`, a `line:column` for JSON syntax errors, or empty.
public typealias StateError = InputError<PurchaseState>

/// How much one state may hold: a state beyond these is refused with a located error rather
/// than evaluated slowly (a server can lower them for untrusted input).
public struct StateLimits: Sendable, Equatable {
    public var purchases: Int
    public var usageRecords: Int
    public var grants: Int

    public init(purchases: Int = 100_000, usageRecords: Int = 1_000_000, grants: Int = 10_000) {
        self.purchases = purchases
        self.usageRecords = usageRecords
        self.grants = grants
    }

    public static let `default` = StateLimits()
}

/// How a state is decoded.
public struct StateDecodingOptions: Sendable, Equatable {
    public var limits: StateLimits
    /// Unknown keys are errors instead of warnings: a misspelled `status` or `expires_at` would
    /// otherwise be skipped and could grant access.
    public var strict: Bool
    /// The names the states are expected to hold (a rule set's, `StateNames(graph)`), for a
    /// program that decodes many states: each is then read without making a String. The state
    /// decoded is the same with or without them.
    public var names: StateNames?

    public init(limits: StateLimits = .default, strict: Bool = false, names: StateNames? = nil) {
        self.limits = limits
        self.strict = strict
        self.names = names
    }

    public static let `default` = StateDecodingOptions()
}

extension PurchaseState {
    /// Decodes state JSON (docs/state.md) in one pass, straight into the state (no intermediate
    /// tree): the batch hot path. Everything is checked, and the first problem in document order
    /// is thrown with its place. An unknown key (matched exactly, case-sensitive) is a warning in
    /// `warnings`, with the closest known key, or an error when `options.strict`.
    public init(json bytes: [UInt8], options: StateDecodingOptions = .default) throws(StateError) {
        try self.init(json: bytes[...], options: options)
    }

    /// Decodes state JSON from part of a buffer (a JSONL line) without copying it.
    public init(json bytes: ArraySlice<UInt8>, options: StateDecodingOptions = .default) throws(StateError) {
        self.init()
        try bytes.withUnsafeBufferPointer { (bytes) throws(StateError) in try read(json: bytes, options: options) }
    }

    /// Decodes state JSON from bytes that stay valid while it runs (a batch's line in its block).
    package init(json bytes: UnsafeBufferPointer<UInt8>, options: StateDecodingOptions = .default)
        throws(StateError)
    {
        self.init()
        try read(json: bytes, options: options)
    }

    /// Reads state JSON into this state, an empty one (a state returned would be copied, twice):
    /// `init(json:options:)` and `EvaluationScratch.read`, which decodes a batch's lines into the
    /// state of the line before, emptied but for its purchases and usage records
    /// (`clear(keepingPlaces:)`: the common-form decoder reads into their places, and removes
    /// those it did not fill).
    package mutating func read(json bytes: UnsafeBufferPointer<UInt8>, options: StateDecodingOptions)
        throws(StateError)
    {
        var order = KeyOrder.reused()
        let read = Result { () throws(StateError) in try self.read(json: bytes, options: options, order: &order) }
        order.recycle()
        try read.get()
    }

    /// `read(json:options:)`, with the order of keys of the states read before (`KeyOrder`).
    package mutating func read(json bytes: UnsafeBufferPointer<UInt8>, options: StateDecodingOptions,
                               order: inout KeyOrder) throws(StateError) {
        // The common form first: anything else is read from the start by the general decoder.
        if StateLineReader.read(bytes, into: &self, options: options, order: &order) { return }
        try readInFull(json: bytes, options: options)
    }

    /// The general decoder alone: every problem explained, unknown keys warned of. The reference
    /// that `StateLineReader`, the common form's decoder, is tested against.
    package mutating func readInFull<Bytes: Collection<UInt8>>(json bytes: Bytes, options: StateDecodingOptions)
        throws(StateError)
    {
        do {
            try JSONScanner.scan(bytes) { (scanner: inout JSONScanner) throws(DecodeError) in
                var reader = StateReader(scanner, options: options)
                try reader.read(into: &self)
            }
        } catch {
            throw StateError(path: error.path, message: error.message)
        }
    }

    public init(json bytes: [UInt8], limits: StateLimits) throws(StateError) {
        try self.init(json: bytes[...], options: StateDecodingOptions(limits: limits))
    }

    public init(json text: String, options: StateDecodingOptions = .default) throws(StateError) {
        try self.init(json: Array(text.utf8), options: options)
    }

    /// Decodes a parsed JSON value (the same rules as the bytes).
    public init(json value: JSONValue) throws(StateError) {
        var bytes: [UInt8] = []
        value.write(into: &bytes, indent: false, level: 0)
        try self.init(json: bytes)
    }
}

/// A problem found while decoding, with its path relative to the value being decoded. Each
/// enclosing object or array prefixes its key or index while the error unwinds, so paths cost
/// nothing unless something is wrong. Syntax errors carry `line:column` and are not prefixed.
struct DecodeError: Error {
    var path: String
    var message: String
    var isSyntax = false

    /// `key` + `.child`, or `[3]` + `.child`, or `key` + `[3]…`.
    func under(_ segment: String) -> DecodeError {
        guard !isSyntax else { return self }
        var e = self
        e.path = path.isEmpty ? segment : path.hasPrefix("[") ? segment + path : segment + "." + path
        return e
    }

    static func syntax(_ s: JSONScanner, _ message: String) -> DecodeError {
        syntax(s.error(message))
    }

    /// `3:7: invalid JSON: unexpected `}`, expected a value`.
    static func syntax(_ e: JSONSyntaxError) -> DecodeError {
        DecodeError(path: "\(e.line):\(e.column)", message: "invalid JSON: " + e.message, isSyntax: true)
    }
}
