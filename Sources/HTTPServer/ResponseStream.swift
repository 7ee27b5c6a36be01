import CMicroHTTPD
import Synchronization

/// A response body produced over time (server-sent events, large exports).
///
/// Two ways to feed it:
/// - push: a producer calls `write` / `finish` from any thread (live feeds). The buffer is
///   bounded by `capacity` bytes: `write` returns `false` when the bytes do not fit or the
///   stream is closed, so a slow reader never makes memory grow without bound.
/// - pull: a `refill` closure is called on the server's thread whenever the buffer runs dry,
///   appends the next chunk and returns `false` once there is nothing more (exports).
///
/// The server reads from it without a thread per stream: when the buffer is empty it suspends
/// the connection (libmicrohttpd suspend/resume) and a later `write` wakes it.
/// Invariant: `wake` is called only after the reader parked, at most once per park.
public final class ResponseStream: Sendable {
    private struct State {
        var buffer: [UInt8] = []
        var readOffset = 0
        var finished = false
        var closed = false
        var parked = false
        var bytesSent = 0
        /// Bytes the buffer may hold beyond `capacity`: the size of the stream's opening, which
        /// is bounded by its producer's design and admitted whole (`writeOpening`).
        var allowance = 0
        /// The connection to resume when a parked reader gets bytes (set when served).
        var connection: ConnectionPointer?
    }

    private let state = Mutex(State())
    private let closeHandlers = Mutex<[@Sendable () -> Void]>([])
    private let refill: (@Sendable (inout [UInt8]) -> Bool)?
    /// Most bytes buffered at once for a push stream.
    public let capacity: Int

    /// A push stream holding at most `capacity` unsent bytes.
    public init(capacity: Int = 256 * 1024) {
        self.capacity = capacity
        self.refill = nil
    }

    /// A pull stream: `refill` appends the next chunk to its argument and returns whether more
    /// may follow. It runs on a server thread; keep each chunk modest (tens of KiB).
    public init(refill: @escaping @Sendable (inout [UInt8]) -> Bool) {
        self.capacity = Int.max
        self.refill = refill
    }

    /// Appends bytes for the client; `false` when closed or over `capacity` (nothing appended).
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        let outcome: (accepted: Bool, wake: ConnectionPointer?) = state.withLock { s in
            guard !s.closed, !s.finished else { return (false, nil) }
            if s.buffer.count - s.readOffset + bytes.count > capacity + s.allowance { return (false, nil) }
            s.buffer.append(contentsOf: bytes)
            if s.parked { s.parked = false; return (true, s.connection) }
            return (true, nil)
        }
        if let connection = outcome.wake { MHD_resume_connection(connection.pointer) }
        return outcome.accepted
    }

    /// Appends a stream's first bytes (a snapshot and the events that follow it) whatever the
    /// capacity, which is raised by their size for the stream's life: a stream always starts,
    /// however large its (design-bounded) opening, and later writes still have `capacity`
    /// bytes of room beyond it. `false` when closed, finished, or not the first write.
    @discardableResult
    public func writeOpening(_ bytes: [UInt8]) -> Bool {
        let outcome: (accepted: Bool, wake: ConnectionPointer?) = state.withLock { s in
            guard !s.closed, !s.finished, s.bytesSent == 0, s.buffer.count == s.readOffset else { return (false, nil) }
            s.allowance = bytes.count
            s.buffer.append(contentsOf: bytes)
            if s.parked { s.parked = false; return (true, s.connection) }
            return (true, nil)
        }
        if let connection = outcome.wake { MHD_resume_connection(connection.pointer) }
        return outcome.accepted
    }

    /// Appends `bytes` whatever the capacity, then ends the stream (a last word such as a
    /// `resync` event for a subscriber that fell behind). No-op when already closed or finished.
    public func finish(with bytes: [UInt8]) {
        let wake: ConnectionPointer? = state.withLock { s in
            guard !s.closed, !s.finished else { return nil }
            s.buffer.append(contentsOf: bytes)
            s.finished = true
            if s.parked { s.parked = false; return s.connection }
            return nil
        }
        if let wake { MHD_resume_connection(wake.pointer) }
    }

    /// Ends the stream after the bytes already written.
    public func finish() {
        let wake: ConnectionPointer? = state.withLock { s in
            guard !s.finished else { return nil }
            s.finished = true
            if s.parked { s.parked = false; return s.connection }
            return nil
        }
        if let wake { MHD_resume_connection(wake.pointer) }
    }

    /// Bytes written but not yet handed to the connection.
    public var pendingByteCount: Int { state.withLock { $0.buffer.count - $0.readOffset } }
    /// True once the client went away or the server closed the stream.
    public var isClosed: Bool { state.withLock { $0.closed } }
    /// Total bytes handed to the connection so far.
    public var bytesSent: Int { state.withLock { $0.bytesSent } }

    /// Registers `handler` to run once when the stream is closed (client gone, or finished and
    /// fully sent). Runs at once if already closed.
    public func onClose(_ handler: @escaping @Sendable () -> Void) {
        let alreadyClosed = state.withLock { $0.closed }
        if alreadyClosed { handler(); return }
        closeHandlers.withLock { $0.append(handler) }
        if state.withLock({ $0.closed }) { runCloseHandlers() }
    }

    /// Pulls a pull stream to its end outside a server (command-line exports), handing each
    /// chunk to `body`. A push stream returns at once.
    public func drain(_ body: ([UInt8]) throws -> Void) rethrows {
        guard let refill else { return }
        var more = true
        while more {
            var chunk: [UInt8] = []
            more = refill(&chunk)
            if !chunk.isEmpty { try body(chunk) }
        }
    }

    // MARK: Server side

    enum ReadResult { case bytes(Int), park, end }

    /// Binds the stream to the connection serving it (resumed when a parked reader gets bytes).
    func install(connection: ConnectionPointer) { state.withLock { $0.connection = connection } }

    /// Copies up to `max` bytes into `destination`. When nothing is buffered: a pull stream
    /// refills; a push stream reports `.park` after setting the parked mark and calling
    /// `park()` under the lock, so a concurrent `write` cannot wake it before it parked.
    func read(into destination: UnsafeMutableRawPointer, max: Int, park: () -> Void) -> ReadResult {
        if let refill, state.withLock({ $0.buffer.count == $0.readOffset && !$0.finished }) {
            var chunk: [UInt8] = []
            let more = refill(&chunk)
            state.withLock { s in
                s.buffer.removeAll(keepingCapacity: true)
                s.readOffset = 0
                s.buffer = chunk
                if !more { s.finished = true }
            }
        }
        return state.withLock { s in
            let pending = s.buffer.count - s.readOffset
            if pending == 0 {
                if s.finished || s.closed { return .end }
                s.parked = true
                park()
                return .park
            }
            let count = Swift.min(pending, max)
            s.buffer.withUnsafeBytes { raw in
                guard let base = raw.baseAddress else { return }
                destination.copyMemory(from: base + s.readOffset, byteCount: count)
            }
            s.readOffset += count
            s.bytesSent += count
            if s.readOffset == s.buffer.count {
                s.buffer.removeAll(keepingCapacity: s.buffer.capacity <= 64 * 1024)
                s.readOffset = 0
            }
            return .bytes(count)
        }
    }

    /// The reader went away: for a caller that reads a stream without a connection (an
    /// in-process responder) and has read what it wanted. Runs the close handlers once.
    public func cancel() { markClosed() }

    /// Marks the stream closed (connection ended) and runs the close handlers once.
    func markClosed() {
        let first = state.withLock { s -> Bool in
            if s.closed { return false }
            s.closed = true
            s.buffer = []
            s.readOffset = 0
            return true
        }
        if first { runCloseHandlers() }
    }

    /// If the reader is parked, un-parks it and returns true (the caller must then resume).
    func unparkForShutdown() -> Bool {
        state.withLock { s in
            s.finished = true
            if s.parked { s.parked = false; return true }
            return false
        }
    }

    private func runCloseHandlers() {
        let handlers = closeHandlers.withLock { h -> [@Sendable () -> Void] in
            let all = h
            h.removeAll()
            return all
        }
        for handler in handlers { handler() }
    }
}
