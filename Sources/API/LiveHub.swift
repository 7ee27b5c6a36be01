import Dispatch
import Glibc
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
        /// Least time between two fan-out passes (ms): under load, events of that window go out
        /// as one write per stream instead of one per event. `FOD_FANOUT_INTERVAL_MS` overrides.
        public var fanOutIntervalMilliseconds: Int = {
            if let text = getenv("FOD_FANOUT_INTERVAL_MS"), let ms = Int(String(cString: text)), (0...1000).contains(ms) { return ms }
            return 10
        }()
        public init() {}
    }

    let configuration: Configuration
    let log: any EventLog
    let directory: any DirectoryStore
    let fanOut = DispatchQueue(label: "fod.live.fanout", qos: .userInitiated)
    let groups = Mutex<[String: GroupChannel]>([:])
    /// Events published but not yet fanned out, and whether a drain is scheduled.
    let pending = Mutex<(events: [GroupEvent], scheduled: Bool)>(([], false))
    /// When the last fan-out pass started (monotonic ns).
    let lastDrain = Mutex<UInt64>(0)
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

    /// Queues committed events; the fan-out queue drains everything queued so far in one
    /// pass, so under load each stream gets one write (and one wake-up) per batch, not per event.
    public func publish(_ events: [GroupEvent]) {
        let schedule = pending.withLock { state -> Bool in
            state.events.append(contentsOf: events)
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        guard schedule else { return }
        let wait = lastDrain.withLock { last -> UInt64 in
            let interval = UInt64(configuration.fanOutIntervalMilliseconds) * 1_000_000
            let since = DispatchTime.now().uptimeNanoseconds &- last
            return since >= interval ? 0 : interval - since
        }
        if wait == 0 {
            fanOut.async { [self] in drain() }
        } else {
            fanOut.asyncAfter(deadline: .now() + .nanoseconds(Int(wait))) { [self] in drain() }
        }
    }

    func drain() {
        lastDrain.withLock { $0 = DispatchTime.now().uptimeNanoseconds }
        let batch = pending.withLock { state -> [GroupEvent] in
            let events = state.events
            state.events = []
            state.scheduled = false
            return events
        }
        var start = 0
        while start < batch.count {
            var end = start
            while end < batch.count && batch[end].groupID == batch[start].groupID { end += 1 }
            deliver(batch[start..<end])
            start = end
        }
    }

    /// Delivers consecutive events of one group: bytes are gathered into a segment and
    /// written to each live stream once; an event that ends some streams (a member left or
    /// was removed, the group was deleted) closes the segment so those streams end right after it.
    func deliver(_ events: ArraySlice<GroupEvent>) {
        guard let groupID = events.first?.groupID else { return }
        groups.withLock { all in
            guard let channel = all[groupID] else { return }
            var segment = Segment()
            for event in events {
                channel.apply(event)
                for subscriber in channel.subscribers.values {
                    if case .replaying(var waiting) = subscriber.mode {
                        waiting.append(event)
                        subscriber.mode = .replaying(waiting)
                    }
                }
                if event.kind == .location, let user = event.userID, !channel.sharing.contains(user) { continue }
                segment.append(event)
                if event.membershipType == "left" || event.membershipType == "removed" || event.membershipType == "deleted" {
                    flush(segment, channel, ending: event)
                    segment = Segment()
                }
            }
            if !segment.bytes.isEmpty { flush(segment, channel, ending: nil) }
            if channel.subscribers.isEmpty { all[groupID] = nil }
        }
    }

    /// Writes a segment to every live stream of the channel (streams that already have these
    /// ids are skipped); streams that `ending` ends get it as their last word.
    private func flush(_ segment: Segment, _ channel: GroupChannel, ending: GroupEvent?) {
        for (id, subscriber) in channel.subscribers where subscriber.isLive && subscriber.lastSent < segment.lastID {
            let bytes = segment.bytes(after: subscriber.lastSent)
            if let ending, ending.endsStream(for: subscriber.userID) {
                subscriber.stream.finish(with: bytes)
                channel.subscribers[id] = nil
            } else if subscriber.stream.write(bytes) {
                subscriber.lastSent = segment.lastID
            } else {
                subscriber.stream.finish(with: SSE.resync(lastEventID: subscriber.lastSent))
                channel.subscribers[id] = nil
            }
        }
    }

    func sendHeartbeats() {
        let comment = Array(": heartbeat\n\n".utf8)
        groups.withLock { all in
            for (groupID, channel) in all {
                for (id, subscriber) in channel.subscribers where subscriber.isLive && !subscriber.stream.write(comment) {
                    subscriber.stream.finish(with: SSE.resync(lastEventID: subscriber.lastSent))
                    channel.subscribers[id] = nil
                }
                if channel.subscribers.isEmpty { all[groupID] = nil }
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
            let channel = all[groupID] ?? GroupChannel(sharing: sharing)
            channel.subscribers[id] = Subscriber(userID: userID, stream: stream, mode: .replaying([]), lastSent: 0)
            all[groupID] = channel
        }
        stream.onClose { [weak self] in self?.unsubscribe(groupID: groupID, id: id) }
        let opening: [UInt8]
        let lastWritten: Int64
        do {
            (opening, lastWritten) = try openingBytes(groupID: groupID, lastEventID: lastEventID, sharing: sharing, snapshot: snapshot)
        } catch {
            unsubscribe(groupID: groupID, id: id)
            throw error
        }
        // Hand over to live on the fan-out queue, after everything published so far.
        fanOut.sync {
            groups.withLock { all in
                guard let channel = all[groupID], let subscriber = channel.subscribers[id],
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
                } else if stream.write(bytes) {
                    subscriber.mode = .live
                    subscriber.lastSent = last
                } else {
                    stream.finish(with: SSE.resync(lastEventID: lastWritten))
                    channel.subscribers[id] = nil
                }
                if channel.subscribers.isEmpty { all[groupID] = nil }
            }
        }
        return stream
    }

    /// What a new stream starts with: the missed events when `lastEventID` is still in the log,
    /// else a snapshot; and the id it ends at.
    private func openingBytes(groupID: String, lastEventID: Int64?, sharing: Set<String>,
                              snapshot: () throws -> JSONValue) throws -> ([UInt8], Int64) {
        var opening = Array("retry: 2000\n\n".utf8)
        var lastWritten: Int64
        let bounds = try log.eventBounds(groupID: groupID)
        if let lastEventID, lastEventID >= 0, lastEventID <= bounds.last, lastEventID + 1 >= (bounds.oldest ?? bounds.last + 1) {
            lastWritten = lastEventID
            while true {
                // Too far behind to replay within the stream's buffer: a snapshot instead.
                if opening.count > configuration.streamCapacity / 2 {
                    let fresh = try log.eventBounds(groupID: groupID)
                    return (Array("retry: 2000\n\n".utf8) + SSE.snapshot(try snapshot(), id: fresh.last), fresh.last)
                }
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
        return (opening, lastWritten)
    }

    func unsubscribe(groupID: String, id: Int) {
        groups.withLock { all in
            guard let channel = all[groupID] else { return }
            channel.subscribers[id] = nil
            if channel.subscribers.isEmpty { all[groupID] = nil }
        }
    }
}

/// The subscribers of one group and who shares there now. A reference type so fan-out
/// mutates it in place; touched only under the hub's `groups` lock.
final class GroupChannel {
    var subscribers: [Int: Subscriber] = [:]
    var sharing: Set<String>

    init(sharing: Set<String>) { self.sharing = sharing }

    func apply(_ event: GroupEvent) {
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

/// One open stream. Touched only under the hub's `groups` lock.
final class Subscriber {
    enum Mode { case replaying([GroupEvent]), live }
    let userID: String
    let stream: ResponseStream
    var mode: Mode
    var lastSent: Int64
    var isLive: Bool { if case .live = mode { return true } else { return false } }

    init(userID: String, stream: ResponseStream, mode: Mode, lastSent: Int64) {
        self.userID = userID
        self.stream = stream
        self.mode = mode
        self.lastSent = lastSent
    }
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

/// Consecutive framed events of one group, with where each starts, so a stream that already
/// has some of them gets only the rest.
struct Segment {
    var bytes: [UInt8] = []
    var starts: [(id: Int64, offset: Int)] = []
    var lastID: Int64 { starts.last?.id ?? 0 }

    mutating func append(_ event: GroupEvent) {
        starts.append((event.id, bytes.count))
        bytes += SSE.event(event)
    }

    /// The bytes of the events with ids greater than `id`.
    func bytes(after id: Int64) -> [UInt8] {
        guard let first = starts.first, id >= first.id else { return bytes }
        guard let next = starts.first(where: { $0.id > id }) else { return [] }
        return Array(bytes[next.offset...])
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
