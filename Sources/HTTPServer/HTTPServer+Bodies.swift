import CMicroHTTPD
import Glibc
import Timestamps

/// A request body's admission, memory and pace (`HTTPServer.BodyLimits`): the route's head
/// check runs before any of the body is buffered; buffered bodies are held against the budget;
/// a body that goes quiet (`readTimeoutSeconds`) or trickles (`minimumBytesPerSecond`) loses
/// its connection.
///
/// Touched only on the connection's thread.
struct BodyIntake {
    /// The request announced a body (`Content-Length` above 0, or `Transfer-Encoding`).
    var announced = false
    /// The body is anonymous: capped at `anonymousBodyBytes`, held against the anonymous budget.
    var anonymous = false
    /// Bytes of the budget reserved for `RequestContext.body`'s buffer (the capacity asked for).
    var reserved = 0
    /// The body grew past the budget: it was dropped, and 503 answers it once it ended.
    var overBudget = false
    /// The body was too slow: its connection was cut.
    var cut = false
    /// The connection has `readTimeoutSeconds` as its idle timeout until the body ended.
    var readTimeoutSet = false
    var pace = BodyPace(now: 0)
    /// A streamed body's hold-backs when the pace last looked (a new one restarts the pace).
    var holdBacks = 0
    /// The head check runs from a task; the connection is suspended until it settles.
    var awaitingHeadCheck = false
    /// What the head check resolved (`Request.headCheckResult`).
    var headCheckResult: (any Sendable)?
}

/// Where a head check run from a task stands; set once from that task (or by shutdown).
enum HeadCheckOutcome: Sendable {
    case running
    case admitted(HeadCheck.Verdict)
    case refused(Response)
}

extension HTTPServer {
    /// After the headers of a request whose route was found: the head check (when a body is
    /// announced), then the body limit, the budget and a streaming route's admission.
    func admitHead(_ context: RequestContext, route: Route, connection: OpaquePointer) -> MHD_Result {
        guard Self.announcesBody(connection) else { return continueBeforeBody(context, connection: connection) }
        startBodyClock(context, connection: connection)
        // A streaming route's `admit` checks the head and refuses before the body.
        if case .streaming = route.handler { return continueBeforeBody(context, connection: connection) }
        guard let check = route.headCheck else { return admitBody(.anonymous, context: context, connection: connection) }
        guard check.runsInline else { return startHeadCheck(check, context: context, connection: connection) }
        let request = makeRequest(context, connection: connection)
        do {
            return admitBody(try check.check(request), context: context, connection: connection)
        } catch {
            return refuseBeforeBody(errorResponder(error, request), context: context, connection: connection)
        }
    }

    /// After the headers of a request without a route (404, 405): a body it announced is never
    /// held; the error is answered before it (or once a small one was read and dropped).
    func refuseUnrouted(_ context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        guard let error = context.earlyError, Self.announcesBody(connection) else { return .YES }
        startBodyClock(context, connection: connection)
        return refuseBeforeBody(errorResponse(error, context: context), context: context, connection: connection)
    }

    /// A body was announced: its pace starts, and the connection's idle timeout is the body's
    /// read timeout until it ended.
    private func startBodyClock(_ context: RequestContext, connection: OpaquePointer) {
        context.intake.announced = true
        context.intake.pace = BodyPace(now: Timestamp.monotonicNanoseconds())
        context.intake.readTimeoutSet = true
        fod_mhd_set_connection_timeout(connection, UInt32(max(1, configuration.bodies.readTimeoutSeconds)))
    }

    /// Applies the head check's verdict, then goes on before the body.
    private func admitBody(_ verdict: HeadCheck.Verdict, context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        switch verdict {
        case .authenticated(let result):
            context.intake.headCheckResult = result
        case .anonymous:
            context.intake.anonymous = true
            context.maxBodyBytes = min(context.maxBodyBytes, configuration.bodies.anonymousBodyBytes)
        case .anonymousUpTo(let limit):
            context.intake.anonymous = true
            context.maxBodyBytes = min(context.maxBodyBytes, max(0, limit))
        }
        // Time spent on the check is not the client's.
        context.intake.pace.restart(now: Timestamp.monotonicNanoseconds())
        return continueBeforeBody(context, connection: connection)
    }

    /// Before the body: an announced size over the limit is 413 and one the budget cannot hold
    /// is 503, both before it is read; a streaming route is admitted and started.
    private func continueBeforeBody(_ context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        let declared = Self.declaredBodyLength(connection)
        if let declared, declared > context.maxBodyBytes {
            context.bodyTooLarge = true
            return queueError(.payloadTooLarge(limit: context.maxBodyBytes), context: context, connection: connection)
        }
        if case .streaming(let admit) = context.route?.handler {
            return beginStreaming(context, admit: admit, connection: connection)
        }
        if let declared, !bodyBudget.hasRoom(for: declared, anonymous: context.intake.anonymous) {
            context.intake.overBudget = true
            return queueError(.bodyBudgetFull(retryAfter: configuration.bodies.retryAfterSeconds), context: context, connection: connection)
        }
        return .YES
    }

    /// Answers a request refused before its body: a small body already on its way is read and
    /// dropped, so the connection stays open for the next request; a large one (or one waiting
    /// for `100 Continue`) is answered now, before it is sent, and the connection then closes.
    func refuseBeforeBody(_ refusal: Response, context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        if Self.isSmallBodyOnItsWay(connection) {
            context.refusal = refusal
            return .YES
        }
        return queue(refusal, context: context, connection: connection)
    }

    // MARK: Head checks from a task

    /// Suspends the connection and runs `check` from a task; `settleHeadCheck` resumes it, and
    /// MHD then repeats the first call (`resumeAfterHeadCheck`).
    private func startHeadCheck(_ check: HeadCheck, context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        let request = makeRequest(context, connection: connection)
        let pointer = ConnectionPointer(pointer: connection)
        context.intake.awaitingHeadCheck = true
        context.headCheckOutcome.withLock { $0 = .running }
        MHD_suspend_connection(connection)
        pendingHeadChecks.withLock { $0[ObjectIdentifier(context)] = (context, pointer) }
        let responder = errorResponder
        Task(executorPreference: executor) { [weak self] in
            let outcome: HeadCheckOutcome
            do { outcome = .admitted(try check.check(request)) } catch { outcome = .refused(responder(error, request)) }
            self?.settleHeadCheck(context, pointer, outcome)
        }
        return .YES
    }

    /// Records a head check's outcome and resumes its connection, once: the first of the check
    /// and the shutdown deadline wins.
    func settleHeadCheck(_ context: RequestContext, _ connection: ConnectionPointer, _ outcome: HeadCheckOutcome) {
        let first = context.headCheckOutcome.withLock { state -> Bool in
            guard case .running = state else { return false }
            state = outcome
            return true
        }
        guard first else { return }
        pendingHeadChecks.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(context)) }
        MHD_resume_connection(connection.pointer)
    }

    /// The first call again, after the head check settled.
    func resumeAfterHeadCheck(_ context: RequestContext, connection: OpaquePointer) -> MHD_Result {
        context.intake.awaitingHeadCheck = false
        switch context.headCheckOutcome.withLock({ $0 }) {
        case .admitted(let verdict):
            return admitBody(verdict, context: context, connection: connection)
        case .refused(let response):
            return refuseBeforeBody(response, context: context, connection: connection)
        case .running, nil:
            return .NO
        }
    }

    // MARK: The body arriving

    /// A piece of the body arrived: checks its pace, then hands it to a streaming handler or
    /// buffers it within the route's limit and the budget (what a refused, too large or over
    /// budget body sends is dropped).
    func receiveBody(_ context: RequestContext, _ data: UnsafePointer<CChar>?, count: Int, connection: OpaquePointer) {
        guard !context.intake.cut else { return }
        guard keepsPace(context, count: count) else {
            cutSlowBody(context, connection: connection)
            return
        }
        if let body = context.bodyStream {
            deliverBody(body, data, count: count, connection: connection)
            return
        }
        guard !context.bodyTooLarge, !context.queued, context.refusal == nil, !context.intake.overBudget, let data else { return }
        let needed = context.body.count + count
        if needed > context.maxBodyBytes {
            context.bodyTooLarge = true
            dropBody(context)
            return
        }
        guard reserveBuffer(context, toHold: needed) else {
            context.intake.overBudget = true
            dropBody(context)
            return
        }
        data.withMemoryRebound(to: UInt8.self, capacity: count) { bytes in
            context.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
        }
    }

    /// Whether the body keeps the minimum pace with `count` more bytes arriving now. The pace
    /// of a streamed body restarts after the server held it back (its reader fell behind).
    private func keepsPace(_ context: RequestContext, count: Int) -> Bool {
        guard context.intake.announced else { return true }
        let now = Timestamp.monotonicNanoseconds()
        if let stream = context.bodyStream, stream.holdBackCount != context.intake.holdBacks {
            context.intake.holdBacks = stream.holdBackCount
            context.intake.pace.restart(now: now)
        }
        return context.intake.pace.record(count, now: now, limits: configuration.bodies)
    }

    /// Closes the connection of a body that trickles (libmicrohttpd cannot answer in the middle
    /// of a body): its socket is shut down, so the next read ends it. Logged as 408.
    private func cutSlowBody(_ context: RequestContext, connection: OpaquePointer) {
        context.intake.cut = true
        dropBody(context)
        context.bodyStream?.abandon(.bodyTooSlow)
        let socket = fod_mhd_connection_socket(connection)
        if socket >= 0 { _ = Glibc.shutdown(socket, Int32(SHUT_RDWR)) }
    }

    /// Grows the body's buffer to hold `needed` bytes (at least doubling it, at most to the
    /// route's limit), reserving the growth in the budget first; false when it does not fit.
    private func reserveBuffer(_ context: RequestContext, toHold needed: Int) -> Bool {
        let capacity = context.body.capacity
        guard needed > capacity else { return true }
        let target = min(max(needed, capacity * 2, 4096), context.maxBodyBytes)
        guard bodyBudget.reserve(target - context.intake.reserved, anonymous: context.intake.anonymous) else { return false }
        context.intake.reserved = target
        context.body.reserveCapacity(target)
        return true
    }

    /// Drops the buffered body and gives its reservation back.
    private func dropBody(_ context: RequestContext) {
        context.body = []
        releaseBody(context)
    }

    /// Gives the body's reservation back (the request ended, or its body was dropped).
    func releaseBody(_ context: RequestContext) {
        bodyBudget.release(context.intake.reserved, anonymous: context.intake.anonymous)
        context.intake.reserved = 0
    }

    /// The body ended: the connection's idle timeout is the usual one again.
    func endBodyTimeout(_ context: RequestContext, connection: OpaquePointer) {
        guard context.intake.readTimeoutSet else { return }
        context.intake.readTimeoutSet = false
        fod_mhd_set_connection_timeout(connection, UInt32(max(1, configuration.connectionTimeoutSeconds)))
    }

    // MARK: The head

    /// The announced `Content-Length`, if any.
    static func declaredBodyLength(_ connection: OpaquePointer) -> Int? {
        guard let declared = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length") else { return nil }
        return Int(String(cString: declared))
    }

    /// Whether the request announced a body: `Content-Length` above 0, or `Transfer-Encoding`.
    static func announcesBody(_ connection: OpaquePointer) -> Bool {
        if MHD_lookup_connection_value(connection, .HEADER_KIND, "Transfer-Encoding") != nil { return true }
        return (declaredBodyLength(connection) ?? 0) > 0
    }

    /// Bytes of an announced body small enough to read and drop after a refusal.
    static let drainableBodyBytes = 64 * 1024

    /// Whether the request announced a body of at most `drainableBodyBytes` and does not wait
    /// for `100 Continue` before sending it.
    static func isSmallBodyOnItsWay(_ connection: OpaquePointer) -> Bool {
        if MHD_lookup_connection_value(connection, .HEADER_KIND, "Expect") != nil { return false }
        guard let length = declaredBodyLength(connection) else { return false }
        return length <= drainableBodyBytes
    }
}

extension HTTPError {
    /// The bodies held in memory across connections fill the budget (503 with `Retry-After`).
    static func bodyBudgetFull(retryAfter: Int) -> HTTPError {
        HTTPError(status: 503, code: .busy, message: "the server holds too many request bodies right now; try again shortly",
                  headers: [("Retry-After", String(retryAfter))])
    }

    /// A body that arrived slower than the minimum rate (its connection is cut; for the log).
    static var bodyTooSlow: HTTPError {
        HTTPError(status: 408, code: .incompleteBody, message: "the request body arrived too slowly")
    }
}
