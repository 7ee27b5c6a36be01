import CMicroHTTPD
import Synchronization

/// A request body handed to its handler while it arrives (uploads of any size: history imports).
///
/// The server appends what the connection delivers; the handler takes it with `next()`. Memory
/// stays bounded: once `capacity` bytes wait unread, the server suspends the connection (nothing
/// more is read from the socket, so TCP flow control holds the client back) until the handler
/// has taken them. The route's body limit counts every byte received: past it the handler's
/// `next()` throws 413 and the rest of the body is read and dropped.
///
/// Invariants: only the server's thread suspends the connection, under the lock, setting
/// `suspended`; whoever clears `suspended` resumes it, once. Once the handler's reply is set,
/// arriving bytes are dropped and `next()` throws.
public final class RequestBodyStream: Sendable {
    struct State {
        var chunks: [[UInt8]] = []
        /// Bytes in `chunks`.
        var buffered = 0
        /// Bytes received in all.
        var received = 0
        /// Most bytes buffered at once (for tests of the bound).
        var peakBuffered = 0
        var ended = false
        var failure: HTTPError?
        var waiter: CheckedContinuation<Void, Never>?
        /// The connection is suspended: for backpressure while the body arrives, or, once it
        /// ended, until the reply is ready.
        var suspended = false
        /// Times the server held the body back because `capacity` bytes waited unread.
        var holdBacks = 0
        var reply: Response?
    }

    private let state = Mutex(State())
    /// The connection to resume (nil for a stream fed by hand, in tests).
    let connection: ConnectionPointer?
    /// Most bytes held unread before the connection is suspended.
    public let capacity: Int
    /// Largest body in bytes (the route's limit).
    public let limit: Int
    /// A waiting reader is woken once this many bytes are buffered (or at the end), so a slow
    /// trickle of small reads does not cost a task switch each.
    let wakeBytes: Int

    init(capacity: Int = 1 << 20, limit: Int, connection: ConnectionPointer?) {
        self.capacity = max(1, capacity)
        self.limit = limit
        self.connection = connection
        self.wakeBytes = max(1, min(64 * 1024, capacity / 4))
    }

    /// Bytes received so far (for progress).
    public var receivedByteCount: Int { state.withLock { $0.received } }

    /// Times the server held the body back for a reader that fell behind (the body's pace
    /// restarts after each: the wait was not the client's).
    var holdBackCount: Int { state.withLock { $0.holdBacks } }

    // MARK: Handler side

    private enum Step {
        case bytes([UInt8]), end, failed(HTTPError), wait
    }

    /// The next bytes of the body (everything buffered, at least one byte), or nil at its end.
    /// Throws an `HTTPError`: 413 past the body limit, or when the connection ended (client gone,
    /// server shutting down) before the body did.
    public func next() async throws -> [UInt8]? {
        while true {
            let (step, wake) = state.withLock { Self.take(&$0, wakeBytes: wakeBytes) }
            if wake, let connection { MHD_resume_connection(connection.pointer) }
            switch step {
            case .bytes(let bytes): return bytes
            case .end: return nil
            case .failed(let error): throw error
            case .wait:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let ready = state.withLock { s -> Bool in
                        if Self.isReady(s, wakeBytes: wakeBytes) { return true }
                        s.waiter = continuation
                        return false
                    }
                    if ready { continuation.resume() }
                }
            }
        }
    }

    private static func isReady(_ s: State, wakeBytes: Int) -> Bool {
        s.failure != nil || s.reply != nil || s.ended || s.buffered >= wakeBytes || (s.suspended && s.buffered > 0)
    }

    /// What `next()` does now; `wake` when it cleared a backpressure suspension.
    private static func take(_ s: inout State, wakeBytes: Int) -> (Step, wake: Bool) {
        if let failure = s.failure { return (.failed(failure), false) }
        if s.reply != nil { return (.failed(.bodyAbandoned), false) }
        guard s.buffered > 0, isReady(s, wakeBytes: wakeBytes) else { return (s.ended ? .end : .wait, false) }
        var bytes: [UInt8]
        if s.chunks.count == 1 {
            bytes = s.chunks[0]
        } else {
            bytes = []
            bytes.reserveCapacity(s.buffered)
            for chunk in s.chunks { bytes += chunk }
        }
        s.chunks.removeAll(keepingCapacity: true)
        s.buffered = 0
        var wake = false
        if s.suspended && !s.ended {
            s.suspended = false
            wake = true
        }
        return (.bytes(bytes), wake)
    }

    // MARK: Server side (the connection's thread)

    /// Appends bytes that arrived; suspends the connection (calling `suspend` under the lock)
    /// when `capacity` bytes wait unread. Past `limit` the stream fails with 413.
    func deliver(_ bytes: UnsafeRawBufferPointer, suspend: () -> Void) {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard s.reply == nil, s.failure == nil, !s.ended else { return nil }
            s.received += bytes.count
            if s.received > limit {
                s.failure = .payloadTooLarge(limit: limit)
                s.chunks = []
                s.buffered = 0
            } else {
                s.chunks.append(Array(bytes.bindMemory(to: UInt8.self)))
                s.buffered += bytes.count
                s.peakBuffered = max(s.peakBuffered, s.buffered)
                if s.buffered >= capacity && !s.suspended {
                    s.suspended = true
                    s.holdBacks += 1
                    suspend()
                }
            }
            guard Self.isReady(s, wakeBytes: wakeBytes) else { return nil }
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }

    /// The whole body arrived.
    func endOfBody() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            s.ended = true
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }

    /// The connection ended before the body did (client gone, or the server stopping).
    func abandon(_ error: HTTPError) {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if !s.ended && s.failure == nil { s.failure = error }
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
    }

    /// After the body ended: the reply if ready, else nil with the connection suspended (calling
    /// `suspend` under the lock) until `complete` resumes it.
    func replyOrSuspend(_ suspend: () -> Void) -> Response? {
        state.withLock { s in
            if let reply = s.reply { return reply }
            if !s.suspended {
                s.suspended = true
                suspend()
            }
            return nil
        }
    }

    /// Sets the handler's reply (the first one wins), drops what is buffered, and resumes the
    /// connection if it was suspended: it then reads and drops the rest of the body, and queues
    /// the reply once the body ended.
    func complete(_ response: Response) {
        let (wake, waiter) = state.withLock { s -> (Bool, CheckedContinuation<Void, Never>?) in
            guard s.reply == nil else { return (false, nil) }
            s.reply = response
            s.chunks = []
            s.buffered = 0
            defer { s.waiter = nil }
            if s.suspended {
                s.suspended = false
                return (true, s.waiter)
            }
            return (false, s.waiter)
        }
        waiter?.resume()
        if wake, let connection { MHD_resume_connection(connection.pointer) }
    }

    /// Most bytes that were buffered unread at once.
    var peakBufferedByteCount: Int { state.withLock { $0.peakBuffered } }
}

extension HTTPError {
    /// The body stream's reader went on after the reply was set (or the server answered for it
    /// at shutdown).
    static var bodyAbandoned: HTTPError {
        HTTPError(status: 503, code: .requestAbandoned, message: "the request was answered before its body was read")
    }

    /// The client closed the connection before the whole body arrived.
    public static var bodyIncomplete: HTTPError {
        HTTPError(status: 400, code: .incompleteBody, message: "the connection closed before the whole request body arrived")
    }
}
