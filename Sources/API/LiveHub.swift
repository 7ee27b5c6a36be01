import Dispatch
import HTTPServer
import JSONCore
import Synchronization
import Tracking

/// Fans committed group events out to server-sent-event streams.
///
/// - Order: events arrive from the writer thread in commit order and are fanned out on one
///   serial queue, so every stream sees ids ascending.
/// - No gaps on (re)connect: a new subscriber first collects live events while its replay (or
///   snapshot) is read, then writes the replay, then the collected events newer than it.
/// - Privacy: location events go out only for members who share right now (the set follows the
///   membership events); a subscriber who leaves or is removed gets that event last, then its
///   stream ends; a deleted group ends every stream.
/// - Bounded: each stream buffers at most `streamCapacity` bytes; a subscriber that falls
///   behind gets a `resync` event and is closed, and reconnects with its last id.
public final class LiveHub: GroupEventSink, Sendable {
    public struct Configuration: Sendable {
        public var streamCapacity = 256 * 1024
        public var heartbeatSeconds = 15.0
        public var replayPageSize = 1_000
        public init() {}
    }

    let configuration: Configuration
    let log: any EventLog
    let directory: any DirectoryStore
    let fanOut = DispatchQueue(label: "fod.live.fanout", qos: .userInitiated)
    let groups = Mutex<[String: GroupChannel]>([:])
    let nextSubscriberID = Atomic<Int>(0)
    let heartbeat: HeartbeatTimer

    public init(log: any EventLog, directory: any DirectoryStore, configuration: Configuration = Configuration()) {
        self.log = log
        self.directory = directory
        self.configuration = configuration
        heartbeat = HeartbeatTimer(queue: fanOut, seconds: configuration.heartbeatSeconds)
        heartbeat.start { [weak self] in self?.sendHeartbeats() }
    }

    /// Open streams across all groups.
    public var subscriberCount: Int { groups.withLock { $0.values.reduce(0) { $0 + $1.subscribers.count } } }

    // MARK: Publishing

    public func publish(_ events: [GroupEvent]) {
        fanOut.async { [self] in
            for event in events { deliver(event) }
        }
    }

    func deliver(_ event: GroupEvent) {
        let bytes = SSE.event(event)
        groups.withLock { all in
            guard var channel = all[event.groupID] else { return }
            channel.apply(event)
            if event.kind == .location, let user = event.userID, !channel.sharing.contains(user) {
                all[event.groupID] = channel
                return
            }
            for (id, var subscriber) in channel.subscribers {
                if case .replaying(var pending) = subscriber.mode {
                    pending.append(event)
                    subscriber.mode = .replaying(pending)
                    channel.subscribers[id] = subscriber
                    continue
                }
                guard event.id > subscriber.lastSent else { continue }
                if event.endsStream(for: subscriber.userID) {
                    subscriber.stream.finish(with: bytes)
                    channel.subscribers[id] = nil
                    continue
                }
                if subscriber.stream.write(bytes) {
                    subscriber.lastSent = event.id
                    channel.subscribers[id] = subscriber
                } else {
                    subscriber.stream.finish(with: SSE.resync(lastEventID: subscriber.lastSent))
                    channel.subscribers[id] = nil
                }
            }
            all[event.groupID] = channel.subscribers.isEmpty ? nil : channel
        }
    }

    func sendHeartbeats() {
        let comment = Array(": heartbeat\n\n".utf8)
        groups.withLock { all in
            for (groupID, var channel) in all {
                for (id, subscriber) in channel.subscribers where subscriber.isLive && !subscriber.stream.write(comment) {
                    subscriber.stream.finish(with: SSE.resync(lastEventID: subscriber.lastSent))
                    channel.subscribers[id] = nil
                }
                all[groupID] = channel.subscribers.isEmpty ? nil : channel
            }
        }
    }

    // MARK: Subscribing

    /// Opens a stream for `userID` (already checked to be a member) on `groupID`: a snapshot
    /// (or, with `lastEventID` still in the log, exactly the missed events), then live events.
    /// - Parameter snapshot: the group document as JSON (read after the last event id).
    public func subscribe(groupID: String, userID: String, lastEventID: Int64?,
                          snapshot: @escaping () throws -> JSONValue) throws -> ResponseStream {
        let stream = ResponseStream(capacity: configuration.streamCapacity)
        let id = nextSubscriberID.wrappingAdd(1, ordering: .relaxed).newValue
        let sharing = try Set(directory.readDirectory { tx in
            try tx.members(groupID: groupID).filter(\.shareLocation).map(\.userID)
        })
        groups.withLock { all in
            var channel = all[groupID] ?? GroupChannel(sharing: sharing)
            channel.subscribers[id] = Subscriber(userID: userID, stream: stream, mode: .replaying([]), lastSent: 0)
            all[groupID] = channel
        }
        stream.onClose { [weak self] in self?.unsubscribe(groupID: groupID, id: id) }
        var opening = Array("retry: 2000\n\n".utf8)
        var lastWritten: Int64
        let bounds = try log.eventBounds(groupID: groupID)
        if let lastEventID, lastEventID >= 0, lastEventID <= bounds.last, lastEventID + 1 >= (bounds.oldest ?? bounds.last + 1) {
            lastWritten = lastEventID
            while true {
                let page = try log.events(groupID: groupID, after: lastWritten, limit: configuration.replayPageSize)
                guard !page.isEmpty else { break }
                let visible = groups.withLock { $0[groupID]?.sharing } ?? sharing
                for event in page where event.kind != .location || event.userID.map(visible.contains) == true {
                    opening += SSE.event(event)
                }
                lastWritten = page[page.count - 1].id
            }
        } else {
            lastWritten = bounds.last
            opening += SSE.snapshot(try snapshot(), id: bounds.last)
        }
        // Hand over to live on the fan-out queue, after everything published so far.
        fanOut.sync {
            groups.withLock { all in
                guard var channel = all[groupID], var subscriber = channel.subscribers[id],
                      case .replaying(let pending) = subscriber.mode else { return }
                var bytes = opening
                var last = lastWritten
                var ended = false
                for event in pending where event.id > last {
                    if event.kind == .location, let user = event.userID, !channel.sharing.contains(user) { continue }
                    bytes += SSE.event(event)
                    last = event.id
                    if event.endsStream(for: userID) { ended = true; break }
                }
                if ended {
                    stream.finish(with: bytes)
                    channel.subscribers[id] = nil
                } else {
                    _ = stream.write(bytes)
                    subscriber.mode = .live
                    subscriber.lastSent = last
                    channel.subscribers[id] = subscriber
                }
                all[groupID] = channel.subscribers.isEmpty ? nil : channel
            }
        }
        return stream
    }

    func unsubscribe(groupID: String, id: Int) {
        groups.withLock { all in
            guard var channel = all[groupID] else { return }
            channel.subscribers[id] = nil
            all[groupID] = channel.subscribers.isEmpty ? nil : channel
        }
    }
}

/// The subscribers of one group and who shares there now.
struct GroupChannel {
    var subscribers: [Int: Subscriber] = [:]
    var sharing: Set<String>

    mutating func apply(_ event: GroupEvent) {
        guard let user = event.userID, let type = event.membershipType else { return }
        switch type {
        case "joined": if event.data["shareLocation"]?.boolValue ?? true { sharing.insert(user) }
        case "sharing": if event.data["shareLocation"]?.boolValue == true { sharing.insert(user) } else { sharing.remove(user) }
        case "left", "removed": sharing.remove(user)
        case "deleted": sharing.removeAll()
        default: break
        }
    }
}

struct Subscriber {
    enum Mode { case replaying([GroupEvent]), live }
    let userID: String
    let stream: ResponseStream
    var mode: Mode
    var lastSent: Int64
    var isLive: Bool { if case .live = mode { return true } else { return false } }
}

extension GroupEvent {
    /// Whether this event is the last one `userID`'s stream gets (they left, were removed, or
    /// the group is gone).
    func endsStream(for userID: String) -> Bool {
        switch membershipType {
        case "deleted": true
        case "left", "removed": self.userID == userID
        default: false
        }
    }
}

/// Server-sent event framing.
enum SSE {
    static func event(_ event: GroupEvent) -> [UInt8] {
        frame(id: event.id, name: event.kind.rawValue, data: event.data)
    }

    static func snapshot(_ document: JSONValue, id: Int64) -> [UInt8] {
        frame(id: id, name: "snapshot", data: document)
    }

    static func resync(lastEventID: Int64) -> [UInt8] {
        frame(id: nil, name: "resync", data: ["lastEventId": .number(JSONNumber(lastEventID)),
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
