import Dispatch
import ErrorCodes
import HTTPServer
import Synchronization

/// A notification receiver for tests: an HTTP server on 127.0.0.1 (a free port) that records
/// every request to any path and answers each with the next scripted reply (200 when none is
/// left). Tests wait for requests with `next(timeout:)`, never with sleeps.
public final class LocalReceiver: Sendable {
    /// One request as received.
    public struct Received: Sendable {
        public let method: String
        public let path: String
        public let headers: [(name: String, value: String)]
        public let body: [UInt8]

        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// What the receiver answers.
    public struct Reply: Sendable {
        public var status: Int
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]
        /// Held until the gate opens (a receiver that hangs).
        public var hold: ReceiverGate?

        public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], hold: ReceiverGate? = nil) {
            self.status = status
            self.headers = headers
            self.body = body
            self.hold = hold
        }
    }

    private let server: HTTPServer
    private let received = Mutex<[Received]>([])
    private let script = Mutex<[Reply]>([])
    private let arrivals = DispatchSemaphore(value: 0)

    public var port: UInt16 { server.port }
    /// `http://127.0.0.1:<port>` and `path`.
    public func url(_ path: String = "/hook") -> String { "http://127.0.0.1:\(port)\(path)" }

    public init() throws {
        var configuration = HTTPServer.Configuration()
        configuration.bindAddress = "127.0.0.1"
        configuration.port = 0
        let holder = Mutex<LocalReceiver?>(nil)
        let handle: @Sendable (Request) async throws -> Response = { request in
            guard let receiver = holder.withLock({ $0 }) else { return Response(status: 503, contentType: "text/plain", bytes: []) }
            return await receiver.answer(request)
        }
        var routes: [Route] = []
        for method in ["GET", "POST", "PUT", "PATCH", "DELETE"] {
            for pattern in ["/", "/{a}", "/{a}/{b}", "/{a}/{b}/{c}"] {
                routes.append(Route(method, pattern, maxBodyBytes: 1 << 20, .deferred(handle)))
            }
        }
        server = HTTPServer(configuration: configuration, router: Router(routes), logger: Logger(level: .error)) { error, _ in
            Response(status: 500, contentType: "text/plain", bytes: Array("\(error)".utf8))
        }
        try server.start()
        holder.withLock { $0 = self }
    }

    /// Stops serving (open gates first, or a held request keeps its connection).
    public func close() { server.shutdown() }

    /// The replies to give, in order, to the next requests.
    public func script(_ replies: [Reply]) { script.withLock { $0 += replies } }

    /// Every request so far.
    public var all: [Received] { received.withLock { $0 } }

    /// The next request not yet taken by `next`, waiting up to `timeout` seconds for it.
    public func next(timeout: Double = 20) -> Received? {
        guard arrivals.wait(timeout: .now() + timeout) == .success else { return nil }
        return taken.withLock { index in
            defer { index += 1 }
            return received.withLock { $0.indices.contains(index) ? $0[index] : nil }
        }
    }

    private let taken = Mutex(0)

    private func answer(_ request: Request) async -> Response {
        let record = Received(method: request.method, path: request.path, headers: request.headerFields, body: request.body)
        received.withLock { $0.append(record) }
        let reply = script.withLock { $0.isEmpty ? Reply(status: 200) : $0.removeFirst() }
        arrivals.signal()
        if let gate = reply.hold { await gate.waitAsync() }
        var response = Response(status: reply.status, contentType: "text/plain", bytes: reply.body)
        for header in reply.headers { response.setHeader(header.name, header.value) }
        return response
    }
}

/// A one-shot gate a test opens to release a held reply.
public final class ReceiverGate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    public init() {}
    public func open() { semaphore.signal(); semaphore.signal() }
    func waitAsync() async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [semaphore] in
                semaphore.wait()
                continuation.resume()
            }
        }
    }
}
