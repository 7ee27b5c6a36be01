import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A tiny blocking HTTP/1.1 client over a POSIX socket, for tests against a live server.
///
/// It sends exactly the bytes it is given (so tests can send malformed requests), keeps the
/// connection alive between requests, and reads `Content-Length` and chunked bodies. Every read
/// has a timeout, so a test fails instead of hanging.
public final class HTTPTestClient {
    public struct Reply: Sendable {
        public let status: Int
        public let headers: [(name: String, value: String)]
        public let body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
        public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
            self.status = status
            self.headers = headers
            self.body = body
        }
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    public enum ClientError: Error, CustomStringConvertible {
        case connect(Int32), closed, timeout, malformed(String)
        public var description: String {
            switch self {
            case .connect(let e): "connect failed: errno \(e)"
            case .closed: "connection closed by server"
            case .timeout: "timed out waiting for the server"
            case .malformed(let m): "malformed reply: \(m)"
            }
        }
    }

    public let port: UInt16
    private var fd: Int32 = -1
    private var buffer: [UInt8] = []
    public var timeoutSeconds: Double

    public init(port: UInt16, timeoutSeconds: Double = 10) throws {
        self.port = port
        self.timeoutSeconds = timeoutSeconds
        try connect()
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    public func connect() throws {
        if fd >= 0 { Glibc.close(fd) }
        buffer = []
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if rc != 0 { throw ClientError.connect(errno) }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    public func close() { if fd >= 0 { Glibc.close(fd); fd = -1 } }

    /// Sends raw bytes.
    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { throw ClientError.closed }
            offset += n
        }
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends a request built from parts and reads the reply.
    @discardableResult
    public func request(_ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8]? = nil) throws -> Reply {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try send(Array(head.utf8) + (body ?? []))
        return try readReply(method: method)
    }

    @discardableResult
    public func request(_ method: String, _ path: String, token: String? = nil, json: String) throws -> Reply {
        var headers = ["Content-Type": "application/json"]
        if let token { headers["Authorization"] = "Bearer \(token)" }
        return try request(method, path, headers: headers, body: Array(json.utf8))
    }

    @discardableResult
    public func get(_ path: String, token: String? = nil) throws -> Reply {
        try request("GET", path, headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:])
    }

    /// Reads one reply (status line, headers, body).
    public func readReply(method: String = "GET") throws -> Reply {
        let headEnd = try readUntil([13, 10, 13, 10])
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw ClientError.malformed(head) }
        let headers: [(name: String, value: String)] = lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name }?.value }
        var body: [UInt8] = []
        if method == "HEAD" || status == 204 || status == 304 {
            body = []
        } else if header("transfer-encoding")?.lowercased() == "chunked" {
            while true {
                let lineEnd = try readUntil([13, 10])
                let sizeText = String(decoding: buffer[..<lineEnd], as: UTF8.self).split(separator: ";")[0]
                buffer.removeFirst(lineEnd + 2)
                guard let size = Int(sizeText, radix: 16) else { throw ClientError.malformed("chunk size \(sizeText)") }
                try fill(size + 2)
                body += buffer[..<size]
                buffer.removeFirst(size + 2)
                if size == 0 { break }
            }
        } else if let length = header("content-length").flatMap({ Int($0) }) {
            try fill(length)
            body = Array(buffer[..<length])
            buffer.removeFirst(length)
        }
        return Reply(status: status, headers: headers, body: body)
    }

    /// Reads the head of a streamed (chunked) reply and returns it; chunks are then read with
    /// `readChunk`.
    public func openStream(_ path: String, headers: [String: String] = [:]) throws -> Reply {
        var head = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        try send(head)
        let headEnd = try readUntil([13, 10, 13, 10])
        let text = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = text.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw ClientError.malformed(text) }
        let parsed: [(name: String, value: String)] = lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Reply(status: status, headers: parsed, body: [])
    }

    /// The next chunk of a chunked stream; empty at the end of the stream.
    public func readChunk() throws -> [UInt8] {
        let lineEnd = try readUntil([13, 10])
        let sizeText = String(decoding: buffer[..<lineEnd], as: UTF8.self).split(separator: ";")[0]
        buffer.removeFirst(lineEnd + 2)
        guard let size = Int(sizeText, radix: 16) else { throw ClientError.malformed("chunk size \(sizeText)") }
        try fill(size + 2)
        let chunk = Array(buffer[..<size])
        buffer.removeFirst(size + 2)
        return chunk
    }

    /// Waits until the server closes the connection; true if it did within the timeout.
    public func waitForClose() -> Bool {
        while true {
            do { try receiveMore() } catch ClientError.closed { return true } catch { return false }
        }
    }

    private func readUntil(_ marker: [UInt8]) throws -> Int {
        var searchFrom = 0
        while true {
            if buffer.count >= marker.count {
                var i = searchFrom
                while i + marker.count <= buffer.count {
                    if buffer[i] == marker[0] && Array(buffer[i..<i + marker.count]) == marker { return i }
                    i += 1
                }
                searchFrom = max(0, buffer.count - marker.count + 1)
            }
            try receiveMore()
        }
    }

    private func fill(_ count: Int) throws {
        while buffer.count < count { try receiveMore() }
    }

    private func receiveMore() throws {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&pfd, 1, Int32(timeoutSeconds * 1000))
        if ready == 0 { throw ClientError.timeout }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { throw ClientError.closed }
        buffer += chunk[..<n]
    }
}
