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

/// Observers of a tracker, called outside the lock.
final class ObserverList: Sendable {
    private let handlers = Locked<(next: Int, all: [Int: @Sendable (PurchaseState) -> Void])>((0, [:]))

    func add(_ handler: @escaping @Sendable (PurchaseState) -> Void) -> TrackerObservation {
        let id = handlers.withLock { h -> Int in
            h.next += 1
            h.all[h.next] = handler
            return h.next
        }
        return TrackerObservation { [weak self] in
            self?.handlers.withLock { _ = $0.all.removeValue(forKey: id) }
        }
    }

    func notify(_ state: PurchaseState) {
        let current = handlers.withLock { $0.all.sorted { $0.key < $1.key }.map(\.value) }
        for handler in current { handler(state) }
    }
}
