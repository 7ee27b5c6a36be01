import Dispatch
import EventJSON
import JSONCore
import Tracking

/// Consecutive framed events of one group, with where each starts, so a stream that already
/// has some of them gets only the rest.
struct Segment {
    var bytes: [UInt8] = []
    var starts: [(id: EventID, offset: Int)] = []
    var lastID: EventID { starts.last?.id ?? .start }

    mutating func append(_ event: GroupEvent) {
        starts.append((event.id, bytes.count))
        bytes += SSE.event(event)
    }

    /// The bytes of the events with ids greater than `id`.
    func bytes(after id: EventID) -> [UInt8] {
        guard let first = starts.first, id >= first.id else { return bytes }
        guard let next = starts.first(where: { $0.id > id }) else { return [] }
        return Array(bytes[next.offset...])
    }
}

/// Server-sent event framing.
enum SSE {
    static func event(_ event: GroupEvent) -> [UInt8] {
        frame(id: event.id.rawValue, name: event.kind.rawValue, data: EventJSON.data(event))
    }

    static func snapshot(_ document: JSONValue, id: EventID) -> [UInt8] {
        frame(id: id.rawValue, name: "snapshot", data: document)
    }

    static func resync(lastEventID: EventID) -> [UInt8] {
        frame(id: nil, name: "resync", data: ["lastEventId": .number(JSONNumber(lastEventID.rawValue)),
                                              "reason": "the stream fell behind; reconnect with Last-Event-ID"])
    }

    static func frame(id: Int64?, name: String, data: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(160)
        if let id { out += Array("id: \(id)\n".utf8) }
        out += Array("event: \(name)\ndata: ".utf8)
        out += data.serialized()  // compact JSON has no newlines
        out += [10, 10]
        return out
    }
}

/// Owns the heartbeat's Dispatch timer and cancels it when released.
/// `@unchecked Sendable`: the timer is configured once in `start` and only cancelled after.
final class HeartbeatTimer: @unchecked Sendable {
    private let timer: DispatchSourceTimer
    private let seconds: Double

    init(queue: DispatchQueue, seconds: Double) {
        timer = DispatchSource.makeTimerSource(queue: queue)
        self.seconds = seconds
    }

    func start(_ handler: @escaping @Sendable () -> Void) {
        timer.schedule(deadline: .now() + seconds, repeating: seconds)
        timer.setEventHandler(handler: handler)
        timer.resume()
    }

    deinit { timer.cancel() }
}
