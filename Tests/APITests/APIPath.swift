import Testing
import HTTPServer
import HTTPTestSupport

/// The two ways a table test reaches the API: through the real server's socket
/// (libmicrohttpd, keep-alive, the bytes on the wire), or in-process through the router
/// (`InProcessResponder`: the same routes, middleware and error mapping, no socket).
enum APIPath: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case live, inProcess
    var testDescription: String { rawValue }

    /// Sends one request to `app` this way and returns its reply (a streamed body is drained
    /// when it is a pull stream — exports — and left empty for a live feed).
    func request(_ app: TestApp, live client: HTTPTestClient, _ method: String, _ path: String,
                 headers: [String: String], body: [UInt8]?) async throws -> HTTPTestClient.Reply {
        switch self {
        case .live:
            return try client.request(method, path, headers: headers, body: body)
        case .inProcess:
            let response = await app.inProcess.respond(method: method, target: path,
                                                       headers: headers.map { ($0.key, $0.value) }, body: body ?? [])
            var bytes: [UInt8] = []
            switch response.body {
            case .bytes(let all): bytes = all
            case .stream(let stream):
                stream.drain { bytes += $0 }
                stream.cancel()
            }
            return HTTPTestClient.Reply(status: response.status, headers: response.headers, body: bytes)
        }
    }
}
