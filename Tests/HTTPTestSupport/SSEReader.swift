/// Reads server-sent events from a chunked stream opened with `HTTPTestClient.openStream`.
public final class SSEReader {
    public struct Event: Sendable {
        public var id: String?
        public var name = "message"
        public var data = ""
        public var isComment = false
        public var json: TestJSON { TestJSON(Array(data.utf8)) }
    }

    let client: HTTPTestClient
    var buffer = ""
    public private(set) var ended = false

    public init(client: HTTPTestClient) { self.client = client }

    /// The next event or comment block; nil when the stream ended.
    public func next() throws -> Event? {
        while true {
            if let range = buffer.range(of: "\n\n") {
                let block = String(buffer[..<range.lowerBound])
                buffer = String(buffer[range.upperBound...])
                var event = Event()
                var sawField = false
                for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                    if line.hasPrefix(":") { event.isComment = true; continue }
                    sawField = true
                    if line.hasPrefix("id: ") { event.id = String(line.dropFirst(4)) }
                    else if line.hasPrefix("event: ") { event.name = String(line.dropFirst(7)) }
                    else if line.hasPrefix("data: ") { event.data += String(line.dropFirst(6)) }
                }
                if sawField { event.isComment = false }
                if !sawField && !event.isComment { continue }  // e.g. the "retry:" block
                if block.hasPrefix("retry:") { continue }
                return event
            }
            let chunk = try client.readChunk()
            if chunk.isEmpty { ended = true; return nil }
            buffer += String(decoding: chunk, as: UTF8.self)
        }
    }

    /// The next non-comment event.
    public func nextEvent() throws -> Event? {
        while let event = try next() { if !event.isComment { return event } }
        return nil
    }
}
