/// Watches a customer: re-evaluates whenever the `PurchaseTracker` changes, and delivers the
/// change events (§7) to handlers and to an `AsyncStream`. It also says when anything will next
/// change by itself (`nextChange`, the earliest `valid_until`), so an app can schedule one
/// `refresh()` then instead of polling.
///
/// ```swift
/// let monitor = try EntitlementMonitor(evaluator: evaluator)
/// Task { for await event in monitor.events { updateUI(for: event) } }
/// scheduleTimer(at: monitor.nextChange) { try? monitor.refresh() }
/// ```
public final class EntitlementMonitor: Sendable {
    public let evaluator: Evaluator
    /// The change events, in order, for as long as the monitor lives.
    public let events: AsyncStream<ChangeEvent>

    private let continuation: AsyncStream<ChangeEvent>.Continuation
    private let clock: @Sendable () -> Instant
    private let current = Locked<[EvaluationResult]>([])
    private let observers = ObserverList<[ChangeEvent]>()
    private let observation = Locked<TrackerObservation?>(nil)
    /// Errors from evaluations triggered by tracker changes (an override of an unknown product…).
    private let failure = Locked<EvaluationError?>(nil)
    /// A refresh asked for and not made yet (its instant: nil for the clock's), and the one
    /// refresh running (`refresh`).
    private let requested = Locked<Refresh?>(nil)
    private let refreshing = Locked<Void>(())

    private struct Refresh { var at: Instant? }

    /// Evaluates once now and starts observing the evaluator's tracker.
    public init(evaluator: Evaluator, clock: @escaping @Sendable () -> Instant = { .now() }) throws(EvaluationError) {
        self.evaluator = evaluator
        self.clock = clock
        (events, continuation) = AsyncStream.makeStream(of: ChangeEvent.self)
        let first = try evaluator.evaluateAll(at: clock())
        current.withLock { $0 = first }
        let token = evaluator.tracker.observeChanges { [weak self] in
            guard let self else { return }
            do throws(EvaluationError) {
                try self.refresh()
            } catch {
                self.failure.withLock { $0 = error }
            }
        }
        observation.withLock { $0 = token }
        // A change made between the first evaluation and the observation (another thread's refund)
        // was heard by neither: read once more now that every later one is heard (a review: the
        // monitor had shown access the state no longer gave, until some later change). Its error
        // is kept as an observed change's is (`lastError`), whichever refresh makes it.
        do throws(EvaluationError) {
            try refresh()
        } catch {
            failure.withLock { $0 = error }
        }
    }

    deinit {
        continuation.finish()
    }

    /// Every result as of the last evaluation.
    public var results: [EvaluationResult] { current.withLock { $0 } }

    /// The earliest instant at which any result may change by itself; nil if none will.
    public var nextChange: Instant? { Changes.nextChange(results) }

    /// The last error of an evaluation triggered by a tracker change, if any.
    public var lastError: EvaluationError? { failure.withLock { $0 } }

    /// Calls `handler` with each non-empty batch of events until the observation is cancelled.
    @discardableResult
    public func onChange(_ handler: @escaping @Sendable ([ChangeEvent]) -> Void) -> TrackerObservation {
        observers.add(handler)
    }

    /// Re-evaluates now (or at `at`) and delivers what changed since the last evaluation; the
    /// events it delivered. One refresh runs at a time, each reading the tracker after the one
    /// before it and delivering in that order: one asked for while another runs (on another
    /// thread, or from a handler of its events) is made by that one before it ends, and returns
    /// none itself. (Two refreshes at once had let the older evaluation be kept last: a balance
    /// shown as 10 after it had reached 0, with no change left to correct it.)
    ///
    /// Requests made while one runs are merged (the latest one's instant is used). An evaluation
    /// that fails is `lastError`, and what was asked for after it is still made; the call whose
    /// last evaluation failed throws its error.
    @discardableResult
    public func refresh(at: Instant? = nil) throws(EvaluationError) -> [ChangeEvent] {
        requested.withLock { $0 = Refresh(at: at) }
        var delivered: [ChangeEvent] = []
        var failed: EvaluationError?
        // Asked for again after the running one looked for the last time: made here.
        while requested.withLock({ $0 != nil }) {
            let ran = refreshing.withLockIfFree { _ -> Bool in
                while let next = requested.withLock({ request in defer { request = nil }; return request }) {
                    do throws(EvaluationError) {
                        delivered += try deliverChanges(at: next.at ?? clock())
                        failed = nil
                    } catch {
                        failure.withLock { $0 = error }
                        failed = error
                    }
                }
                return true
            }
            if ran == nil { break }  // the running one makes it
        }
        if let failed { throw failed }
        return delivered
    }

    /// Evaluates at `instant`, keeps the results and delivers what changed (under `refreshing`).
    private func deliverChanges(at instant: Instant) throws(EvaluationError) -> [ChangeEvent] {
        let new = try evaluator.evaluateAll(at: instant)
        let old = current.withLock { previous -> [EvaluationResult] in
            defer { previous = new }
            return previous
        }
        let events = Changes.between(old, new, at: instant)
        guard !events.isEmpty else { return [] }
        for e in events { continuation.yield(e) }
        observers.notify(events)
        return events
    }
}
