/// A registration made by `PurchaseTracker.observe`; `cancel()` (or deinit) stops it.
public final class TrackerObservation: Sendable {
    private let onCancel: Locked<(@Sendable () -> Void)?>

    public init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Locked(onCancel)
    }

    public func cancel() {
        let action = onCancel.withLock { value -> (@Sendable () -> Void)? in
            defer { value = nil }
            return value
        }
        action?()
    }

    deinit { cancel() }
}

/// The handlers told of each change (a tracker's new state, a monitor's events), in the order they
/// were added, called outside the lock; each stays until its observation is cancelled.
final class ObserverList<Value>: Sendable {
    /// The handlers in the order they were added (their ids increase), so notifying copies the list
    /// and sorts nothing.
    private let handlers = Locked<(next: Int, all: [(id: Int, handler: @Sendable (Value) -> Void)])>((0, []))

    func add(_ handler: @escaping @Sendable (Value) -> Void) -> TrackerObservation {
        let id = handlers.withLock { h -> Int in
            h.next += 1
            h.all.append((h.next, handler))
            return h.next
        }
        return TrackerObservation { [weak self] in
            self?.handlers.withLock { $0.all.removeAll { $0.id == id } }
        }
    }

    /// Whether no handler is registered (a notifier may then skip making the value).
    var isEmpty: Bool { handlers.withLock { $0.all.isEmpty } }

    func notify(_ value: Value) {
        let current = handlers.withLock { $0.all }
        for entry in current { entry.handler(value) }
    }
}
