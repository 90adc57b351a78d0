/// `entitled(feature:requiredBalance:at:)` (§4).
///
/// A value like any struct, whose fields live in one shared allocation until a copy is changed
/// (copy on write): copying a result — out of the `Evaluator`'s cache on every repeated check, into
/// an array of results — is one reference count, not one per string and array it holds.
public struct FeatureResult: Sendable, Equatable, Reasoned {
    /// The stored fields.
    struct Fields: Sendable, Equatable {
        var name: String = ""
        var kind: FeatureKind = .boolean
        var decision: Decision = .denied
        var required: Int64? = nil
        var balance: Int64? = nil
        var unlimited: Bool = false
        var overage: Int64? = nil
        var overdrawn: Int64? = nil
        var via: Via? = nil
        var creditSystem: String? = nil
        var creditsRequired: Int64? = nil
        var creditBalance: Int64? = nil
        var displayName: String? = nil
        var unit: String? = nil
        var shortfall: Int64? = nil
        var unlockedBy: [String]? = nil
        var validUntil: Instant? = nil
        var why: Reason = ""
        var sources: [BalanceSource] = []
        var explanation: [String] = []
        var replayed: Bool = false
    }

    /// The fields in one allocation, read and written through a pointer (a class's stored property
    /// would be checked for exclusive access on every read).
    private final class Storage: ManagedBuffer<Fields, Never> {
        static func make(_ fields: Fields) -> Storage {
            unsafeDowncast(create(minimumCapacity: 0) { _ in fields }, to: Storage.self)
        }

        var fields: UnsafeMutablePointer<Fields> { withUnsafeMutablePointerToHeader { $0 } }
    }

    nonisolated(unsafe) private var storage: Storage

    /// The fields, to change: copied first when another result shares them.
    private var unique: UnsafeMutablePointer<Fields> {
        mutating get {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage.make(storage.fields.pointee) }
            return storage.fields
        }
    }

    /// The fields, to read in place (no copy of a field out of the storage).
    var stored: UnsafePointer<Fields> { UnsafePointer(storage.fields) }

    /// Runs `body` on the fields, made this result's own once for all its writes.
    mutating func update<T>(_ body: (inout Fields) -> T) -> T { body(&unique.pointee) }

    public var name: String {
        get { storage.fields.pointee.name }
        _modify { yield &unique.pointee.name }
    }
    public var kind: FeatureKind {
        get { storage.fields.pointee.kind }
        _modify { yield &unique.pointee.kind }
    }
    public var decision: Decision {
        get { storage.fields.pointee.decision }
        _modify { yield &unique.pointee.decision }
    }
    /// The required amount; nil for boolean features.
    public var required: Int64? {
        get { storage.fields.pointee.required }
        _modify { yield &unique.pointee.required }
    }
    /// What is left at `t` (the certain balance); nil for boolean features and when unlimited.
    public var balance: Int64? {
        get { storage.fields.pointee.balance }
        _modify { yield &unique.pointee.balance }
    }
    public var unlimited: Bool {
        get { storage.fields.pointee.unlimited }
        _modify { yield &unique.pointee.unlimited }
    }
    /// Use no grant could cover (single-use), or level above the allowances (continuous).
    public var overage: Int64? {
        get { storage.fields.pointee.overage }
        _modify { yield &unique.pointee.overage }
    }
    /// Billable use beyond the allowance, on grants with `overage`, in their current windows; nil
    /// for boolean features.
    public var overdrawn: Int64? {
        get { storage.fields.pointee.overdrawn }
        _modify { yield &unique.pointee.overdrawn }
    }
    public var via: Via? {
        get { storage.fields.pointee.via }
        _modify { yield &unique.pointee.via }
    }
    public var creditSystem: String? {
        get { storage.fields.pointee.creditSystem }
        _modify { yield &unique.pointee.creditSystem }
    }
    public var creditsRequired: Int64? {
        get { storage.fields.pointee.creditsRequired }
        _modify { yield &unique.pointee.creditsRequired }
    }
    public var creditBalance: Int64? {
        get { storage.fields.pointee.creditBalance }
        _modify { yield &unique.pointee.creditBalance }
    }
    /// The feature's display name (its `name` item).
    public var displayName: String? {
        get { storage.fields.pointee.displayName }
        _modify { yield &unique.pointee.displayName }
    }
    /// The unit of the balance (singular or plural as the balance needs), when the feature
    /// declares one; nil for boolean features.
    public var unit: String? {
        get { storage.fields.pointee.unit }
        _modify { yield &unique.pointee.unit }
    }
    /// Not allowed, metered: the fewest units of more balance that would allow it, counting
    /// what the credit systems could pay (§4.6).
    public var shortfall: Int64? {
        get { storage.fields.pointee.shortfall }
        _modify { yield &unique.pointee.shortfall }
    }
    /// Not allowed: the products any one of which, bought now, would allow it (declaration
    /// order); nil when allowed or not computed (§4.6).
    public var unlockedBy: [String]? {
        get { storage.fields.pointee.unlockedBy }
        _modify { yield &unique.pointee.unlockedBy }
    }
    public var validUntil: Instant? {
        get { storage.fields.pointee.validUntil }
        _modify { yield &unique.pointee.validUntil }
    }
    public var why: Reason {
        get { storage.fields.pointee.why }
        _modify { yield &unique.pointee.why }
    }
    public var sources: [BalanceSource] {
        get { storage.fields.pointee.sources }
        _modify { yield &unique.pointee.sources }
    }
    public var explanation: [String] {
        get { storage.fields.pointee.explanation }
        _modify { yield &unique.pointee.explanation }
    }
    /// A retry of a recorded use (same idempotency key, same use): the first call's answer, and
    /// nothing was recorded again (`Consumption`).
    public var replayed: Bool {
        get { storage.fields.pointee.replayed }
        _modify { yield &unique.pointee.replayed }
    }

    public init(name: String, kind: FeatureKind, decision: Decision, required: Int64?, balance: Int64?,
                unlimited: Bool, overage: Int64?, via: Via?, creditSystem: String?, creditsRequired: Int64?,
                creditBalance: Int64?, validUntil: Instant?, reason: String, sources: [BalanceSource],
                explanation: [String]) {
        storage = Storage.make(Fields(name: name, kind: kind, decision: decision, required: required, balance: balance,
                                 unlimited: unlimited, overage: overage, via: via, creditSystem: creditSystem,
                                 creditsRequired: creditsRequired, creditBalance: creditBalance,
                                 validUntil: validUntil, why: Reason(reason), sources: sources,
                                 explanation: explanation))
    }

    /// A nameless denial with nothing decided, which the evaluation fills in.
    package init() {
        storage = Storage.make(Fields())
    }

    /// Back to `FeatureResult()`, in place when no other result shares the fields: a batch answers
    /// line after line into one result, with no allocation and no release of one per line.
    ///
    /// Member by member: a member that holds a reference is released only when it is set (a nil or
    /// empty one costs a test, not a call into the runtime), and the others are stored; assigning a
    /// whole `Fields()` destroyed the old fields through their value witness, a call per member.
    /// `EvaluationScratchTests` checks the result is `FeatureResult()` after each line.
    package mutating func reset() {
        guard isKnownUniquelyReferenced(&storage) else { return storage = Storage.make(Fields()) }
        let f = storage.fields
        f.pointee.name = ""
        if f.pointee.creditSystem != nil { f.pointee.creditSystem = nil }
        if f.pointee.displayName != nil { f.pointee.displayName = nil }
        if f.pointee.unit != nil { f.pointee.unit = nil }
        if f.pointee.unlockedBy != nil { f.pointee.unlockedBy = nil }
        f.pointee.why = ""
        if !f.pointee.sources.isEmpty { f.pointee.sources = [] }
        if !f.pointee.explanation.isEmpty { f.pointee.explanation = [] }
        (f.pointee.kind, f.pointee.decision, f.pointee.unlimited, f.pointee.via) = (.boolean, .denied, false, nil)
        (f.pointee.required, f.pointee.balance, f.pointee.overage, f.pointee.overdrawn) = (nil, nil, nil, nil)
        (f.pointee.creditsRequired, f.pointee.creditBalance, f.pointee.shortfall) = (nil, nil, nil)
        (f.pointee.validUntil, f.pointee.replayed) = (nil, false)
    }

    public var allowed: Bool { decision == .allowed }

    public static func == (a: FeatureResult, b: FeatureResult) -> Bool {
        a.storage === b.storage || a.storage.fields.pointee == b.storage.fields.pointee
    }
}
