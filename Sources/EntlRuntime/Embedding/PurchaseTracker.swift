/// A source of one customer's purchase state, shaped after the SDKs apps already use
/// (RevenueCat's `CustomerInfo` and its listener): a snapshot, and change observation.
public protocol PurchaseTracker: AnyObject, Sendable {
    /// The state now.
    var snapshot: PurchaseState { get }
    /// Calls `handler` with the new state after every change, until the observation is cancelled.
    @discardableResult
    func observe(_ handler: @escaping @Sendable (PurchaseState) -> Void) -> TrackerObservation
}

/// A tracker that can record usage: what `Evaluator.consume` needs to check and record in one
/// critical section, so two consumers can never both spend the last unit.
public protocol UsageRecording: PurchaseTracker {
    /// Calls `decide` with the current state while no other change can happen; appends the usage
    /// record it returns (if any) before anything else can read or change the state, then notifies
    /// observers (outside the critical section). Returns what `decide` returned.
    func recordUsage<T>(_ decide: (PurchaseState) throws(EvaluationError) -> (T, UsageRecord?))
        throws(EvaluationError) -> T

    /// `recordUsage`, telling `decide` how many changes the state has had (nil when the tracker
    /// does not count them): one more after each change of any kind, and exactly one for a usage
    /// record appended here. What `Evaluator.consume` keeps between uses (the ledger's position,
    /// its ids) stays the state's while the count moves only by its own records. `decide` returns
    /// the record to append (nil: none) and keeps its answer itself.
    func recordUsage(counted decide: (PurchaseState, UInt64?) throws(EvaluationError) -> UsageRecord?)
        throws(EvaluationError)
}

extension UsageRecording {
    /// A tracker that does not count its changes: `decide` gets nil, and `Evaluator.consume`
    /// replays the whole state for every use.
    public func recordUsage(counted decide: (PurchaseState, UInt64?) throws(EvaluationError) -> UsageRecord?)
        throws(EvaluationError)
    {
        try recordUsage { (state: PurchaseState) throws(EvaluationError) in ((), try decide(state, nil)) }
    }
}

/// A tracker holding a `PurchaseState`, e.g. decoded from docs/state.md JSON; `update` replaces it
/// and notifies observers.
public final class JSONPurchaseTracker: UsageRecording {
    /// The state, and how many changes it has had.
    private let state: Locked<(value: PurchaseState, changes: UInt64)>
    /// The handlers get each new state through a reference (handing a state itself to a handler
    /// kept in a generic list copies it, field by field, on the way).
    private let observers = ObserverList<SharedState>()
    /// The handlers that need no state (`observeChanges`), told first.
    private let changeObservers = ObserverList<Void>()

    public init(_ state: PurchaseState = PurchaseState()) {
        self.state = Locked((state, 0))
    }

    /// A tracker starting from docs/state.md JSON.
    public convenience init(json: [UInt8]) throws(StateError) {
        self.init(try PurchaseState(json: json))
    }

    public var snapshot: PurchaseState { state.withLock { $0.value } }

    @discardableResult
    public func observe(_ handler: @escaping @Sendable (PurchaseState) -> Void) -> TrackerObservation {
        observers.add { handler($0.value) }
    }

    /// Calls `handler` after each change, without the state: no copy of it is made for it. The
    /// library's own observers (`Evaluator`, `EntitlementMonitor`) need none; they are told before
    /// the handlers of `observe`.
    func observeChanges(_ handler: @escaping @Sendable () -> Void) -> TrackerObservation {
        changeObservers.add { _ in handler() }
    }

    public func update(_ newState: PurchaseState) {
        state.withLock {
            $0.value = newState
            $0.changes &+= 1
        }
        notify(newState)
    }

    /// Tells the observers of a change: those that need no state, then the others (the state
    /// handed over once, by reference, and only when some handler wants it).
    private func notify(_ newState: PurchaseState?) {
        changeObservers.notify(())
        if let newState { observers.notify(SharedState(newState)) }
    }

    public func update(json: [UInt8]) throws(StateError) {
        update(try PurchaseState(json: json))
    }

    /// Changes the state in place (e.g. appends a purchase) and notifies observers.
    public func modify(_ body: (inout PurchaseState) -> Void) {
        let newState = state.withLock { s -> PurchaseState in
            body(&s.value)
            s.changes &+= 1
            return s.value
        }
        notify(newState)
    }

    public func recordUsage<T>(_ decide: (PurchaseState) throws(EvaluationError) -> (T, UsageRecord?))
        throws(EvaluationError) -> T
    {
        var answer: T?
        try recordUsage(counted: { (state: PurchaseState, _: UInt64?) throws(EvaluationError) -> UsageRecord? in
            let (decided, record) = try decide(state)
            answer = decided
            return record
        })
        return answer!
    }

    public func recordUsage(counted decide: (PurchaseState, UInt64?) throws(EvaluationError) -> UsageRecord?)
        throws(EvaluationError)
    {
        // Whether a handler wants the state: when none does (a server's `Evaluator`), no copy of it
        // is made for each use. (A handler added meanwhile hears of the changes after this one.)
        let wantsState = !observers.isEmpty
        let recorded = try state.withLock {
            (s: inout (value: PurchaseState, changes: UInt64)) throws(EvaluationError) -> PurchaseState?? in
            guard let record = try decide(s.value, s.changes) else { return nil }
            s.value.usage.append(record)
            s.changes &+= 1
            return .some(wantsState ? s.value : nil)
        }
        if let recorded { notify(recorded) }
    }
}

/// Wraps another tracker and overrides products to purchased, not purchased or unknown, for
/// debug menus and QA builds (like RevenueCat's debug overlay). Its overrides win over the
/// wrapped state's; changes to either notify observers.
public final class DebugPurchaseTracker: PurchaseTracker {
    public let base: any PurchaseTracker
    private let overrides = Locked<[(product: String, value: Override)]>([])
    private let observers = ObserverList<PurchaseState>()
    private let baseObservation = Locked<TrackerObservation?>(nil)

    public init(wrapping base: any PurchaseTracker) {
        self.base = base
        let observation = base.observe { [weak self] _ in
            guard let self else { return }
            self.observers.notify(self.snapshot)
        }
        baseObservation.withLock { $0 = observation }
    }

    public var snapshot: PurchaseState {
        var s = base.snapshot
        for (product, value) in overrides.withLock({ $0 }) { s.setOverride(product, value) }
        return s
    }

    /// The overrides in effect, in the order they were set.
    public var currentOverrides: [(product: String, value: Override)] { overrides.withLock { $0 } }

    @discardableResult
    public func observe(_ handler: @escaping @Sendable (PurchaseState) -> Void) -> TrackerObservation {
        observers.add(handler)
    }

    public func override(_ product: String, _ value: Override) {
        overrides.withLock { list in
            list.removeAll { $0.product == product }
            list.append((product, value))
        }
        observers.notify(snapshot)
    }

    public func clearOverride(_ product: String) {
        overrides.withLock { list in list.removeAll { $0.product == product } }
        observers.notify(snapshot)
    }

    public func clearOverrides() {
        overrides.withLock { $0.removeAll() }
        observers.notify(snapshot)
    }
}

extension DebugPurchaseTracker: UsageRecording {
    /// Records through the wrapped tracker, which must record usage too. Not while overrides are
    /// set: a use they allowed would be recorded in the real state, which would not say why it was
    /// allowed (and could leave it in overage).
    public func recordUsage<T>(_ decide: (PurchaseState) throws(EvaluationError) -> (T, UsageRecord?))
        throws(EvaluationError) -> T
    {
        try recorder().recordUsage(decide)
    }

    /// Counted through the wrapped tracker, under the same conditions as `recordUsage`.
    public func recordUsage(counted decide: (PurchaseState, UInt64?) throws(EvaluationError) -> UsageRecord?)
        throws(EvaluationError)
    {
        try recorder().recordUsage(counted: decide)
    }

    /// The wrapped tracker, when a use may be recorded through it.
    private func recorder() throws(EvaluationError) -> any UsageRecording {
        guard let base = base as? any UsageRecording else {
            throw EvaluationError("the tracker under this debug tracker cannot record usage")
        }
        guard currentOverrides.isEmpty else {
            throw EvaluationError("a debug tracker with overrides cannot record usage: the recorded state would "
                                  + "not say why the use was allowed; clear the overrides first")
        }
        return base
    }
}

/// A state handed to observers by reference.
private final class SharedState: Sendable {
    let value: PurchaseState

    init(_ value: PurchaseState) { self.value = value }
}

extension PurchaseTracker {
    /// Calls `handler` after each change of the state: without a copy of it where the tracker can
    /// (`JSONPurchaseTracker`), else through `observe`.
    func observeChanges(_ handler: @escaping @Sendable () -> Void) -> TrackerObservation {
        if let tracker = self as? JSONPurchaseTracker { return tracker.observeChanges(handler) }
        return observe { _ in handler() }
    }
}
