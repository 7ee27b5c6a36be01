import CCurl
import Synchronization
import Timestamps

/// One HTTP request to a notification destination.
public struct OutboundRequest: Sendable {
    public var url: DestinationURL
    public var method: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(url: DestinationURL, method: String = "POST", headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }
}

/// What a destination answered.
public struct OutboundResponse: Sendable, Equatable {
    public let status: Int
    /// `Retry-After` in seconds from now (delta-seconds or an HTTP date), when it was sent.
    public let retryAfterSeconds: Int?
    /// The first `maxResponseBytes` of the body.
    public let body: [UInt8]
}

/// Why a request got no answer.
public enum OutboundError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Every address of the destination is one the policy refuses (or the URL is not allowed).
    case destinationNotAllowed(String)
    case unknownHost(String)
    case timedOut
    case connectionFailed(String)
    case tls(String)
    case failed(String)

    public var description: String {
        switch self {
        case .destinationNotAllowed(let why): "destination not allowed: \(why)"
        case .unknownHost(let host): "unknown host \(host)"
        case .timedOut: "timed out"
        case .connectionFailed(let why): "connection failed: \(why)"
        case .tls(let why): "TLS: \(why)"
        case .failed(let why): why
        }
    }
}

/// Sends notifications over HTTP(S) with libcurl, the careful way (API.md "Destinations"):
/// - the host is resolved once, every address checked against `AddressPolicy`, and the
///   connection pinned to the first allowed address (no DNS rebinding); environment proxies are
///   ignored, since a proxy would connect elsewhere;
/// - redirects are not followed; only `http` and `https`;
/// - connect and total timeouts; a reply is read for at most `maxResponseBytes`;
/// - TLS verified against the system's certificates;
/// - connections are kept per destination and reused, at most `connectionsPerDestination` at once.
/// `send` blocks: call it from a worker thread.
public final class OutboundClient: Sendable {
    public struct Configuration: Sendable {
        public var policy = AddressPolicy()
        public var connectTimeoutMilliseconds = 5_000
        public var totalTimeoutMilliseconds = 10_000
        public var maxResponseBytes = 64 * 1024
        public var userAgent = "FindOurDevices-Notify/1"
        /// Requests to one destination at once, at most (more wait for one to finish, at most
        /// the total timeout): the connections a client opens to one receiver, opened once and
        /// reused (see `DestinationSlots`). Many channels may share a destination (ntfy.sh).
        public var connectionsPerDestination = 16
        /// Connections opened to one destination at once, at most (a request that finds no idle
        /// one waits for its turn to open one): a burst of new connections can overflow a small
        /// receiver's listen queue, and a dropped connection attempt is retried a second later.
        public var openingPerDestination = 2
        /// Idle handles (each with its open connection) kept per destination: at least
        /// `connectionsPerDestination`, or the rest connect anew every time.
        public var idlePerDestination = 16
        /// Idle handles kept at most over all destinations (a bound on memory and open sockets).
        public var idleHandles = 256
        /// Destinations with idle handles kept at most (a bound on memory).
        public var destinations = 256

        public init() {}
    }

    public let configuration: Configuration
    /// Idle handles by destination (`scheme://host:port`) and how many there are in all.
    private let idle = Mutex<(byDestination: [String: [CurlEasy]], count: Int)>(([:], 0))

    /// Requests under way by destination (`connectionsPerDestination`).
    private let slots: DestinationSlots
    /// Requests on a new handle (a new connection) by destination (`openingPerDestination`).
    private let openings: DestinationSlots

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        slots = DestinationSlots(limit: configuration.connectionsPerDestination)
        openings = DestinationSlots(limit: configuration.openingPerDestination)
        CurlGlobal.initializeOnce()
    }

    /// The address a request to `url` would connect to, or why none may be.
    public func admittedAddress(for url: DestinationURL) -> Result<ResolvedAddress, OutboundError> {
        let addresses: [ResolvedAddress]
        do { addresses = try Resolver.resolve(url.host, port: url.port) } catch { return .failure(.unknownHost(url.host)) }
        guard let allowed = addresses.first(where: configuration.policy.allows) else {
            return .failure(.destinationNotAllowed("\(url.host) resolves to \(addresses.map(\.description).joined(separator: ", ")), "
                                                   + "a loopback, private, link-local, multicast or reserved address"))
        }
        return .success(allowed)
    }

    /// Sends `request` and waits for the answer (at most the total timeout).
    public func send(_ request: OutboundRequest) -> Result<OutboundResponse, OutboundError> {
        let address: ResolvedAddress
        switch admittedAddress(for: request.url) {
        case .success(let admitted): address = admitted
        case .failure(let error): return .failure(error)
        }
        let key = "\(request.url.scheme)://\(request.url.host):\(request.url.port)"
        guard slots.acquire(key, waitingMilliseconds: configuration.totalTimeoutMilliseconds) else { return .failure(.timedOut) }
        defer { slots.release(key) }
        if let easy = checkOut(key) { return perform(request, on: easy, pinnedTo: address, key: key) }
        guard openings.acquire(key, waitingMilliseconds: configuration.totalTimeoutMilliseconds) else { return .failure(.timedOut) }
        defer { openings.release(key) }
        // A handle may have come back while this request waited for its turn to open one.
        guard let easy = checkOut(key) ?? CurlEasy() else { return .failure(.failed("libcurl could not make a handle")) }
        return perform(request, on: easy, pinnedTo: address, key: key)
    }

    /// `perform`, then the handle (with its connection) kept for the next request to `key`.
    private func perform(_ request: OutboundRequest, on easy: CurlEasy, pinnedTo address: ResolvedAddress, key: String)
        -> Result<OutboundResponse, OutboundError> {
        let result = perform(request, on: easy, pinnedTo: address)
        checkIn(easy, key: key)
        return result
    }

    private func perform(_ request: OutboundRequest, on easy: CurlEasy, pinnedTo address: ResolvedAddress) -> Result<OutboundResponse, OutboundError> {
        easy.reset()
        let sink = ResponseSink(limit: configuration.maxResponseBytes)
        let literal = address.isIPv6 ? "[\(address)]" : address.description
        let pin = CurlStringList(["\(request.url.host):\(request.url.port):\(literal)"])
        let headers = CurlStringList(request.headers.map { "\($0.name): \($0.value)" } + ["Expect:"])
        let context = Unmanaged.passRetained(sink)
        defer { context.release() }
        do {
            try easy.set(CURLOPT_URL, request.url.text)
            try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
            try easy.set(CURLOPT_FOLLOWLOCATION, 0)
            try easy.set(CURLOPT_NOSIGNAL, 1)
            try easy.set(CURLOPT_PROXY, "")
            try easy.set(CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeoutMilliseconds)
            try easy.set(CURLOPT_TIMEOUT_MS, configuration.totalTimeoutMilliseconds)
            try easy.set(CURLOPT_USERAGENT, configuration.userAgent)
            try easy.set(CURLOPT_RESOLVE, list: pin)
            try easy.set(CURLOPT_HTTPHEADER, list: headers)
            try easy.set(CURLOPT_WRITEFUNCTION, callback: outboundBodyReceived)
            try easy.set(CURLOPT_WRITEDATA, pointer: context.toOpaque())
            try easy.set(CURLOPT_HEADERFUNCTION, callback: outboundHeaderReceived)
            try easy.set(CURLOPT_HEADERDATA, pointer: context.toOpaque())
            try easy.set(CURLOPT_CUSTOMREQUEST, request.method)
        } catch {
            return .failure(.failed(error.description))
        }
        let code: CURLcode = request.body.withUnsafeBytes { raw in
            do {
                try easy.set(CURLOPT_POSTFIELDSIZE, raw.count)
                try easy.set(CURLOPT_POSTFIELDS, pointer: raw.count == 0 ? nil : UnsafeMutableRawPointer(mutating: raw.baseAddress))
                if request.method == "POST" && raw.count == 0 { try easy.set(CURLOPT_POST, 1) }
            } catch let failure as CurlFailure {
                return failure.code
            } catch {
                return CURLE_FAILED_INIT
            }
            return easy.perform()
        }
        switch code {
        case CURLE_OK: break
        case CURLE_WRITE_ERROR where sink.truncated: break   // the reply went past the cap: read no further
        case CURLE_OPERATION_TIMEDOUT: return .failure(.timedOut)
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING:
            return .failure(.connectionFailed(CurlFailure(code: code).description))
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE:
            return .failure(.tls(CurlFailure(code: code).description))
        default: return .failure(.failed(CurlFailure(code: code).description))
        }
        return .success(OutboundResponse(status: easy.responseCode, retryAfterSeconds: sink.retryAfterSeconds, body: sink.body))
    }

    private func checkOut(_ key: String) -> CurlEasy? {
        idle.withLock { pool in
            guard let easy = pool.byDestination[key]?.popLast() else { return nil }
            pool.count -= 1
            return easy
        }
    }

    private func checkIn(_ easy: CurlEasy, key: String) {
        idle.withLock { pool in
            if pool.byDestination[key] == nil && pool.byDestination.count >= configuration.destinations { pool = ([:], 0) }
            guard pool.count < configuration.idleHandles, pool.byDestination[key, default: []].count < configuration.idlePerDestination else { return }
            pool.byDestination[key, default: []].append(easy)
            pool.count += 1
        }
    }
}

/// Collects one reply (body up to `limit` bytes, `Retry-After`), written by libcurl's
/// callbacks on the thread running the request.
final class ResponseSink {
    let limit: Int
    var body: [UInt8] = []
    var truncated = false
    var retryAfterSeconds: Int?

    init(limit: Int) { self.limit = limit }

    func header(_ line: String) {
        guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == "retry-after" else { return }
        let value = line[line.index(after: colon)...].trimmingCharacters(in: " \t\r\n")
        retryAfterSeconds = RetryAfter.seconds(value, now: Timestamp.nowMilliseconds())
    }
}

private extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        let characters = Set(set)
        let start = firstIndex { !characters.contains($0) } ?? endIndex
        let end = lastIndex { !characters.contains($0) }.map { index(after: $0) } ?? start
        return start < end ? String(self[start..<end]) : ""
    }
}

/// libcurl's write callback: appends to the sink up to its limit; returning less than given
/// makes libcurl stop reading.
func outboundBodyReceived(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let context, let data else { return 0 }
    let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
    let (total, overflow) = size.multipliedReportingOverflow(by: count)
    guard !overflow else { return 0 }
    let room = max(0, sink.limit - sink.body.count)
    let taken = min(room, total)
    data.withMemoryRebound(to: UInt8.self, capacity: total) { bytes in
        sink.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: taken))
    }
    if taken < total { sink.truncated = true; return 0 }
    return total
}

/// libcurl's header callback: one header line at a time.
func outboundHeaderReceived(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let context, let data else { return 0 }
    let (total, overflow) = size.multipliedReportingOverflow(by: count)
    guard !overflow else { return 0 }
    let sink = Unmanaged<ResponseSink>.fromOpaque(context).takeUnretainedValue()
    if total <= 8 * 1024 {
        let line = data.withMemoryRebound(to: UInt8.self, capacity: total) { String(decoding: UnsafeBufferPointer(start: $0, count: total), as: UTF8.self) }
        sink.header(line)
    }
    return total
}
