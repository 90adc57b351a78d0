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
    private let handlers = Locked<(next: Int, all: [Int: @Sendable (Value) -> Void])>((0, [:]))

    func add(_ handler: @escaping @Sendable (Value) -> Void) -> TrackerObservation {
        let id = handlers.withLock { h -> Int in
            h.next += 1
            h.all[h.next] = handler
            return h.next
        }
        return TrackerObservation { [weak self] in
            self?.handlers.withLock { _ = $0.all.removeValue(forKey: id) }
        }
    }

    func notify(_ value: Value) {
        let current = handlers.withLock { $0.all.sorted { $0.key < $1.key }.map(\.value) }
        for handler in current { handler(value) }
    }
}
