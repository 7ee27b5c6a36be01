#if canImport(Glibc)
import Glibc
#endif

/// A value that only one thread may touch once that thread claimed it — the checked form of a
/// comment saying "only touched on the writer thread" (swift-nio's `NIOLoopBound` idea). The
/// thread that builds the value (an initializer) may set it up before the owner claims it; from
/// `claim()` on, every read and write from another thread is a programming error and stops the
/// process (`precondition`), instead of a data race that corrupts memory quietly.
///
/// It is `@unchecked Sendable` for this one reason: the check, not the compiler, proves that one
/// thread at a time uses it (docs/ARCHITECTURE.md, "Concurrency").
public final class ThreadConfined<Value>: @unchecked Sendable {
    private var storage: Value
    private var owner: pthread_t?

    public init(_ value: Value) {
        storage = value
    }

    /// Makes the calling thread the owner. Called once, first thing on the owning thread.
    public func claim() {
        precondition(owner == nil || owner.map { pthread_equal($0, pthread_self()) != 0 } == true,
                     "ThreadConfined claimed by a second thread")
        owner = pthread_self()
    }

    /// Whether the calling thread may touch the value (it owns it, or nobody claimed it yet).
    public var isAccessible: Bool {
        guard let owner else { return true }
        return pthread_equal(owner, pthread_self()) != 0
    }

    /// Runs `body` with the value itself (not a copy), on the owning thread: what `body` drops
    /// from it is released at once — a connection set to nil inside closes there, which a
    /// copy through `value` (read, change, write back) would delay until the write-back.
    public func update<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        precondition(isAccessible, "ThreadConfined value changed off its thread")
        return try body(&storage)
    }

    /// The value; only on the owning thread.
    public var value: Value {
        get {
            precondition(isAccessible, "ThreadConfined value read off its thread")
            return storage
        }
        set {
            precondition(isAccessible, "ThreadConfined value written off its thread")
            storage = newValue
        }
    }
}
