#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CLibPQ

/// Waiting on a connection's socket with `poll(2)`.
enum SocketWait {
    struct Readiness {
        /// Data (or end of file, or an error) can be read without blocking.
        var readable = false
        var writable = false
        /// The wait's `Wakeup` was signalled.
        var woken = false
    }

    /// Waits until the socket can be read (and, with `write`, written), `wakeup` is signalled,
    /// or `timeout` passes (nil: no limit). Returns what is ready; nothing on timeout. Retries
    /// after signals.
    static func wait(_ socket: Int32, read: Bool = true, write: Bool = false,
                     timeout: Duration? = nil, wakeup: Wakeup? = nil) throws(PostgresError) -> Readiness {
        let clock = ContinuousClock()
        let deadline = timeout.map { clock.now.advanced(by: $0) }
        var events: Int16 = 0
        if read { events |= Int16(POLLIN) }
        if write { events |= Int16(POLLOUT) }
        while true {
            let milliseconds = deadline.map { Self.milliseconds(until: $0, clock: clock) } ?? -1
            // The socket, and the wakeup's pipe when there is one (fd -1 is ignored by poll); on
            // the stack, as pool checkouts wait here (timeout zero) on every request.
            let (count, socketEvents, woken) = withUnsafeTemporaryAllocation(of: pollfd.self, capacity: 2) { descriptors in
                descriptors[0] = pollfd(fd: socket, events: events, revents: 0)
                descriptors[1] = pollfd(fd: wakeup?.readDescriptor ?? -1, events: Int16(POLLIN), revents: 0)
                let count = poll(descriptors.baseAddress, 2, milliseconds)
                return (count, descriptors[0].revents, descriptors[1].revents != 0)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .client(.internalError, "poll on the connection's socket failed (errno \(errno))")
            }
            if count == 0 {
                // poll rounds down to whole milliseconds: only give up once the deadline passed.
                if let deadline, clock.now < deadline { continue }
                return Readiness()
            }
            let hangUp = socketEvents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
            return Readiness(readable: hangUp || socketEvents & Int16(POLLIN) != 0,
                             writable: socketEvents & Int16(POLLOUT) != 0,
                             woken: woken)
        }
    }

    /// Whole milliseconds left until `deadline`, rounded up, at least 0, at most `Int32.max`.
    private static func milliseconds(until deadline: ContinuousClock.Instant, clock: ContinuousClock) -> Int32 {
        let left = clock.now.duration(to: deadline)
        if left <= .zero { return 0 }
        let (seconds, attoseconds) = left.components
        let total = seconds.multipliedReportingOverflow(by: 1000)
        if total.overflow { return Int32.max }
        let milliseconds = total.partialValue + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }
}

extension Connection {
    /// The connection's socket, or a lost-connection error when there is none.
    func socket() throws(PostgresError) -> Int32 {
        let socket = PQsocket(handle)
        guard socket >= 0 else { throw failure("PQsocket", sql: nil) }
        return socket
    }

    /// Reads whatever the server sent (`PQconsumeInput`) without blocking; throws when the
    /// connection broke.
    func consumeInput() throws(PostgresError) {
        try check(PQconsumeInput(handle) == 1, "reading from the server")
        if PQstatus(handle) != CONNECTION_OK { throw failure("reading from the server", sql: nil) }
    }

    /// True when the session is idle and nothing says it died: reads any bytes the server sent
    /// while idle (a terminated backend sends its FATAL error and closes the socket) without
    /// blocking. A pool calls this before handing out an idle connection.
    public func isAliveWhenIdle() -> Bool {
        guard status == .ok, transactionStatus == .idle, let socket = try? socket() else { return false }
        // The error and the end of file may need two reads to see; an idle session that keeps
        // receiving (NOTIFY traffic) is alive after a few.
        for _ in 0..<4 {
            guard let ready = try? SocketWait.wait(socket, timeout: .zero) else { return false }
            if !ready.readable { break }
            guard (try? consumeInput()) != nil else { return false }
        }
        return status == .ok
    }
}
