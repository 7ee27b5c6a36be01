import CMicroHTTPD
import Synchronization
import Timestamps
import ThreadControl

/// Per-request state kept by libmicrohttpd in `req_cls` from the first call to the completed
/// callback (retained there with `Unmanaged`, released on completion).
///
/// `@unchecked Sendable`: every field except `reply` and `headCheckOutcome` is touched only on
/// the connection's MHD thread (MHD serialises the calls of one connection); those two cross
/// from a task (a handler, a head check) to that thread and are guarded by their mutexes.
final class RequestContext: @unchecked Sendable {
    let startNanos = Timestamp.monotonicNanoseconds()
    let method: String
    let path: String
    let requestID: String
    var route: Route?
    var pathParameters: [String: String] = [:]
    var earlyError: HTTPError?
    var maxBodyBytes: Int
    var body: [UInt8] = []
    var bodyTooLarge = false
    /// True once a task was started for this request (the connection was suspended).
    var dispatched = false
    /// True once a response was queued on the connection.
    var queued = false
    var status = 0
    var byteCount = 0
    var stream: ResponseStream?
    /// The body being handed to a streaming handler (`Handler.streaming`).
    var bodyStream: RequestBodyStream?
    /// A refusal before the body (a head check, a streaming route's admission), queued once
    /// its (small) body was read and dropped.
    var refusal: Response?
    /// The body's admission, budget and pace.
    var intake = BodyIntake()
    let reply = Mutex<Response?>(nil)
    /// The head check run from a task (`HeadCheck.runsInline` false), set from that task.
    let headCheckOutcome = Mutex<HeadCheckOutcome?>(nil)

    init(method: String, path: String, requestID: String, maxBodyBytes: Int) {
        self.method = method
        self.path = path
        self.requestID = requestID
        self.maxBodyBytes = maxBodyBytes
    }

    var routeLabel: String { route?.pattern ?? "unmatched" }
}

// MARK: - libmicrohttpd callbacks (global functions: they must not capture, and must not be
// main-actor isolated closures, see libmicrohttpd.md)

/// Admits new connections while the server accepts; refuses them (closing at once) once a
/// graceful shutdown began.
func mhdAcceptPolicy(cls: UnsafeMutableRawPointer?, address: UnsafePointer<sockaddr>?, length: socklen_t) -> MHD_Result {
    guard let cls else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    // Runs on the worker thread that will serve the connection (thread pool with epoll).
    CurrentThread.schedule(as: .requests)
    return server.accepting.load(ordering: .acquiring) ? .YES : .NO
}

func mhdAccessHandler(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?, url: UnsafePointer<CChar>?,
    method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?, uploadData: UnsafePointer<CChar>?,
    uploadDataSize: UnsafeMutablePointer<Int>?, requestState: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let requestState else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    guard let existing = requestState.pointee else {
        let context = server.beginRequest(connection: connection, url: url, method: method)
        requestState.pointee = Unmanaged.passRetained(context).toOpaque()
        return server.afterFirstCall(context, connection: connection)
    }
    let context = Unmanaged<RequestContext>.fromOpaque(existing).takeUnretainedValue()
    // A head check run from a task settled: MHD repeats the first call (still before the body).
    if context.intake.awaitingHeadCheck {
        return server.resumeAfterHeadCheck(context, connection: connection)
    }
    if let size = uploadDataSize, size.pointee > 0 {
        server.receiveBody(context, uploadData, count: size.pointee, connection: connection)
        size.pointee = 0
        return .YES
    }
    return server.finalCall(context, connection: connection)
}

func mhdRequestCompleted(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    requestState: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, termination: MHD_RequestTerminationCode
) {
    guard let cls, let requestState, let raw = requestState.pointee else { return }
    requestState.pointee = nil
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    let context = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()
    server.completeRequest(context, termination: termination)
}

/// What the stream reader callback needs; retained by the MHD response, released in
/// `mhdStreamFree`.
final class StreamReaderContext: Sendable {
    let stream: ResponseStream
    let connection: ConnectionPointer
    init(stream: ResponseStream, connection: ConnectionPointer) {
        self.stream = stream
        self.connection = connection
    }
}

func mhdStreamReader(cls: UnsafeMutableRawPointer?, position: UInt64, buffer: UnsafeMutablePointer<CChar>?, max: Int) -> Int {
    guard let cls, let buffer else { return fod_mhd_end_with_error() }
    let reader = Unmanaged<StreamReaderContext>.fromOpaque(cls).takeUnretainedValue()
    let connection = reader.connection.pointer
    switch reader.stream.read(into: UnsafeMutableRawPointer(buffer), max: max, park: { MHD_suspend_connection(connection) }) {
    case .bytes(let count): return count
    case .park: return 0
    case .end: return fod_mhd_end_of_stream()
    }
}

func mhdStreamFree(cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    let reader = Unmanaged<StreamReaderContext>.fromOpaque(cls).takeRetainedValue()
    reader.stream.markClosed()
}
