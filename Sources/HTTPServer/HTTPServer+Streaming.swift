import CMicroHTTPD

/// Streamed request bodies (`Handler.streaming`): admission on the first call, the handler in a
/// task reading a `RequestBodyStream`, the reply queued once the body ended and the reply is set.
extension HTTPServer {
    /// After the headers: admit the request (or answer it before reading any body), then start
    /// the handler, which reads the body while it arrives.
    func beginStreaming(_ context: RequestContext, admit: @Sendable (Request) throws -> StreamingHandler,
                        connection: OpaquePointer) -> MHD_Result {
        let request = makeRequest(context, connection: connection)
        guard accepting.load(ordering: .acquiring) else {
            return queue(errorResponder(HTTPError.shuttingDown, request), context: context, connection: connection)
        }
        let handle: StreamingHandler
        do { handle = try admit(request) } catch {
            return refuseBeforeBody(errorResponder(error, request), context: context, connection: connection)
        }
        let body = RequestBodyStream(capacity: configuration.streamingBodyBufferBytes, limit: context.maxBodyBytes, connection: ConnectionPointer(pointer: connection))
        context.bodyStream = body
        context.dispatched = true
        pendingBodies.withLock { $0[ObjectIdentifier(body)] = body }
        let responder = errorResponder
        Task(executorPreference: executor) {
            let response: Response
            do { response = try await handle(request, body) } catch { response = responder(error, request) }
            body.complete(response)
        }
        return .YES
    }

    /// A piece of the body arrived (copied at once: MHD's buffer is valid only during the call).
    func deliverBody(_ body: RequestBodyStream, _ data: UnsafePointer<CChar>?, count: Int, connection: OpaquePointer) {
        guard let data, count > 0 else { return }
        body.deliver(UnsafeRawBufferPointer(start: data, count: count)) { MHD_suspend_connection(connection) }
    }

    /// The body ended (or the connection was resumed after it did): queue the reply when the
    /// handler has set it, else suspend until it does.
    func finishStreaming(_ context: RequestContext, _ body: RequestBodyStream, connection: OpaquePointer) -> MHD_Result {
        body.endOfBody()
        guard let reply = body.replyOrSuspend({ MHD_suspend_connection(connection) }) else { return .YES }
        _ = pendingBodies.withLock { $0.removeValue(forKey: ObjectIdentifier(body)) }
        return queue(reply, context: context, connection: connection)
    }
}
