#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a mutex (no Foundation: the runtime stays embeddable).
final class Locked<Value>: @unchecked Sendable {
    /// Read and written only under the mutex, which orders every access: the runtime's exclusivity
    /// check (a call per access) is turned off.
    @exclusivity(unchecked) private var value: Value
    @exclusivity(unchecked) private var mutex = pthread_mutex_t()

    init(_ value: Value) {
        self.value = value
        pthread_mutex_init(&mutex, nil)
    }

    deinit { pthread_mutex_destroy(&mutex) }

    /// Runs `body` on the value under the mutex; its typed error, if any, passes through.
    func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body(&value)
    }

    /// `withLock` when no one holds the mutex (this thread included); nil, `body` not run, when
    /// someone does.
    func withLockIfFree<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T? {
        guard pthread_mutex_trylock(&mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(&mutex) }
        return try body(&value)
    }
}

/// A value behind a `TablesLock`: for short sections taken very often (the evaluator's cache,
/// asked on every check), where a pthread mutex would cost more than the section.
final class SpinLocked<Value>: @unchecked Sendable {
    /// The value and the lock word, allocated apart from the object (no exclusivity checks on a
    /// stored property: the lock is what keeps access exclusive).
    private let value: UnsafeMutablePointer<Value>
    private let word: UnsafeMutablePointer<TablesLock.Word>
    private let lock: TablesLock

    init(_ value: Value) {
        self.value = .allocate(capacity: 1)
        self.value.initialize(to: value)
        word = .allocate(capacity: 1)
        lock = TablesLock(word)
        lock.initialize()
    }

    deinit {
        lock.destroy()
        word.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` on the value under the lock; its typed error, if any, passes through.
    @inline(__always)
    func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value.pointee)
    }
}

/// The lock of an evaluation's tables, in their allocation. On Linux a spin lock, taken with one
/// atomic exchange when free (a pthread mutex costs several times as much, and a cold check takes
/// the lock several times); a waiter yields the processor until it is free (the sections it guards
/// are short, except resolving a long usage log).
struct TablesLock {
    #if canImport(Glibc) || canImport(Musl)
    typealias Word = pthread_spinlock_t
    #else
    typealias Word = pthread_mutex_t
    #endif

    private let word: UnsafeMutablePointer<Word>

    /// The lock at `word`, which `initialize` has set up.
    init(_ word: UnsafeMutablePointer<Word>) {
        self.word = word
    }

    /// Sets up the lock's word (once, before any `lock`).
    func initialize() {
        #if canImport(Glibc) || canImport(Musl)
        pthread_spin_init(word, Int32(PTHREAD_PROCESS_PRIVATE))
        #else
        word.initialize(to: pthread_mutex_t())
        pthread_mutex_init(word, nil)
        #endif
    }

    @inline(__always)
    func lock() {
        #if canImport(Glibc) || canImport(Musl)
        while pthread_spin_trylock(word) != 0 { sched_yield() }
        #else
        pthread_mutex_lock(word)
        #endif
    }

    @inline(__always)
    func unlock() {
        #if canImport(Glibc) || canImport(Musl)
        pthread_spin_unlock(word)
        #else
        pthread_mutex_unlock(word)
        #endif
    }

    func destroy() {
        #if canImport(Glibc) || canImport(Musl)
        pthread_spin_destroy(word)
        #else
        pthread_mutex_destroy(word)
        #endif
    }
}
