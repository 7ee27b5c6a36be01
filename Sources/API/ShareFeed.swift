import Dispatch
import HTTPServer
import JSONCore
import Synchronization
import Timestamps
import Tracking

/// The live streams of share links (`GET /v1/shared/{token}/live`): a `snapshot` (the link's
/// document), then one `location` event per fix of that one device timestamped since the link's
/// `since`, in commit order.
///
/// - No gaps: a stream is registered before its snapshot is read; fixes committed meanwhile are
///   collected and those the snapshot does not hold follow it.
/// - One node or many: the node's ingests reach it directly, or (several nodes on one
///   database) a relay of every node's commits feeds it as `RelayedShareStreams`.
/// - Ends at once: revoking the link, removing its device, and its expiry each end its streams
///   with an `end` event (`{"reason": "revoked" | "expired"}`); expiry is a timer per link,
///   moved when the link is renewed.
/// - Bounded: each stream buffers at most `streamCapacity` bytes (a reader that falls behind is
///   closed and reconnects to a fresh snapshot); one ingest sends at most `eventsPerIngest`
///   events (the newest fixes of a backfill); a link has at most `ShareService.Policy.streamsPerLink`
///   streams open.
public final class ShareFeed: RelayedShareStreams, Sendable {
    public struct Configuration: Sendable {
        public var streamCapacity = 64 * 1024
        public var heartbeatSeconds = 15.0
        public var eventsPerIngest = 100
        public init() {}
    }

    /// One open stream of a link (`HubStream`: fixes stored while its snapshot is read are
    /// collected). Touched only under the `devices` lock.
    final class Subscriber: HubStream<StoredFix> {
        let shareID: ShareID
        /// The link's `since` (ms): older fixes are not served.
        let since: Int64
        /// When the link expires (ms).
        var expiresAt: Int64
        init(shareID: ShareID, since: Int64, expiresAt: Int64, stream: ResponseStream) {
            self.shareID = shareID
            self.since = since
            self.expiresAt = expiresAt
            super.init(stream: stream)
        }
    }

    /// Subscribers by device, then by stream id. `Subscriber`s are touched only under this lock.
    private let devices = Mutex<[DeviceID: [Int: Subscriber]]>([:])
    private let nextID = Atomic<Int>(0)
    /// The expiry each link's timer is set for, so reconnects do not pile up timers.
    private let timers = Mutex<[ShareID: Int64]>([:])
    private let queue = DispatchQueue(label: "fod.share.feed", qos: .userInitiated)
    private let heartbeat: HeartbeatTimer
    let configuration: Configuration

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        heartbeat = HeartbeatTimer(queue: queue, seconds: configuration.heartbeatSeconds)
        heartbeat.start { [weak self] in self?.sendHeartbeats() }
    }

    /// Open share streams.
    public var subscriberCount: Int { devices.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    /// Opens a stream of `share`. `snapshot` reads the link's document (and throws the unknown
    /// link's 404 when it was revoked or expired meanwhile); it runs after the stream is
    /// registered, so a revocation committed after it ends the stream.
    /// - Throws: 429 past `limit` streams of this link.
    func subscribe(_ share: ShareLink, limit: Int, snapshot: () throws -> SharedView,
                   document: (SharedView) -> JSONValue) throws -> ResponseStream {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).newValue
        let stream = ResponseStream(capacity: configuration.streamCapacity)
        let admitted = devices.withLock { all -> Bool in
            let open = all[share.deviceID]?.values.filter { $0.shareID == share.id }.count ?? 0
            guard open < limit else { return false }
            all[share.deviceID, default: [:]][id] = Subscriber(shareID: share.id, since: share.since.millisecondsSince1970,
                                                                    expiresAt: share.expiresAt.millisecondsSince1970, stream: stream)
            return true
        }
        guard admitted else {
            throw TrackingError(.rateLimited, code: .tooManyStreams,
                                message: "at most \(limit) live streams of one share link are open at once", retryAfterSeconds: 5)
        }
        stream.onClose { [weak self] in self?.remove(deviceID: share.deviceID, id: id) }
        let view: SharedView
        do {
            view = try snapshot()
        } catch {
            remove(deviceID: share.deviceID, id: id)
            throw error
        }
        scheduleExpiry(share.id, deviceID: share.deviceID, at: view.expiresAt.millisecondsSince1970)
        let opening = Array("retry: 5000\n\n".utf8) + SSE.frame(id: nil, name: "snapshot", data: document(view))
        devices.withLock { all in
            guard let subscriber = all[share.deviceID]?[id], let collected = subscriber.collected else { return }
            subscriber.expiresAt = view.expiresAt.millisecondsSince1970
            var bytes = opening
            let shown = view.sequences
            for fix in collected where !shown.contains(fix.sequence) && fix.fix.timestamp >= subscriber.since {
                bytes += Self.event(fix, latest: false)
            }
            if !subscriber.goLive(with: bytes) {
                subscriber.stream.finish()
                all[share.deviceID]?[id] = nil
            }
        }
        return stream
    }

    // MARK: DeviceFixSink

    public func fixesStored(_ outcome: IngestOutcome) {
        guard let deviceID = outcome.stored.first?.deviceID else { return }
        guard isWatching(deviceID) else { return }
        let newest = outcome.stored.sorted { ($0.fix.timestamp, $0.sequence) < ($1.fix.timestamp, $1.sequence) }
            .suffix(configuration.eventsPerIngest)
        queue.async { [self] in deliver(Array(newest), deviceID: deviceID, latest: outcome.newLatestSequence) }
    }

    private func deliver(_ fixes: [StoredFix], deviceID: DeviceID, latest: Int64?) {
        let now = Timestamp.nowMilliseconds()
        devices.withLock { all in
            guard let subscribers = all[deviceID] else { return }
            for (id, subscriber) in subscribers {
                let visible = fixes.filter { $0.fix.timestamp >= subscriber.since }
                guard !visible.isEmpty else { continue }
                if subscriber.collect(visible) { continue }
                if now >= subscriber.expiresAt {
                    subscriber.stream.finish(with: Self.end("expired"))
                    all[deviceID]?[id] = nil
                    continue
                }
                var bytes: [UInt8] = []
                for fix in visible { bytes += Self.event(fix, latest: fix.sequence == latest) }
                if !subscriber.stream.write(bytes) {
                    subscriber.stream.finish()
                    all[deviceID]?[id] = nil
                }
            }
            if all[deviceID]?.isEmpty == true { all[deviceID] = nil }
        }
    }

    // MARK: ShareLinkSink

    public func shareRevoked(_ id: ShareID) {
        end { $1.shareID == id ? "revoked" : nil }
    }

    public func deviceRemoved(_ id: DeviceID) {
        end { deviceID, _ in deviceID == id ? "revoked" : nil }
    }

    public func shareRenewed(_ id: ShareID, expiresAt: Int64) {
        var deviceID: DeviceID?
        devices.withLock { all in
            for (device, subscribers) in all {
                for subscriber in subscribers.values where subscriber.shareID == id {
                    subscriber.expiresAt = expiresAt
                    deviceID = device
                }
            }
        }
        if let deviceID { scheduleExpiry(id, deviceID: deviceID, at: expiresAt) }
    }

    // MARK: RelayedShareStreams

    public func isWatching(_ deviceID: DeviceID) -> Bool {
        devices.withLock { $0[deviceID] != nil }
    }

    public func restart(deviceID: DeviceID?) {
        devices.withLock { all in
            for (device, subscribers) in all where deviceID == nil || device == deviceID {
                for subscriber in subscribers.values { subscriber.stream.finish() }
                all[device] = nil
            }
        }
    }

    /// Ends the streams `reason` names a reason for, with an `end` event.
    private func end(_ reason: (DeviceID, Subscriber) -> String?) {
        devices.withLock { all in
            for (deviceID, subscribers) in all {
                for (id, subscriber) in subscribers {
                    guard let why = reason(deviceID, subscriber) else { continue }
                    subscriber.stream.finish(with: Self.end(why))
                    all[deviceID]?[id] = nil
                }
                if all[deviceID]?.isEmpty == true { all[deviceID] = nil }
            }
        }
    }

    /// Ends the link's streams at `expiresAt` (ms) unless it was renewed meanwhile.
    private func scheduleExpiry(_ id: ShareID, deviceID: DeviceID, at expiresAt: Int64) {
        let isNew = timers.withLock { set -> Bool in
            guard set[id] != expiresAt else { return false }
            set[id] = expiresAt
            return true
        }
        guard isNew else { return }
        let delay = max(0, expiresAt - Timestamp.nowMilliseconds())
        queue.asyncAfter(deadline: .now() + .milliseconds(Int(clamping: delay))) { [weak self] in
            guard let self else { return }
            timers.withLock { set in if set[id] == expiresAt { set[id] = nil } }
            let now = Timestamp.nowMilliseconds()
            // The monotonic timer may fire a moment before the wall clock reaches the expiry.
            if now < expiresAt { return scheduleExpiry(id, deviceID: deviceID, at: expiresAt) }
            end { device, subscriber in
                device == deviceID && subscriber.shareID == id && now >= subscriber.expiresAt ? "expired" : nil
            }
        }
    }

    private func remove(deviceID: DeviceID, id: Int) {
        devices.withLock { all in
            all[deviceID]?[id] = nil
            if all[deviceID]?.isEmpty == true { all[deviceID] = nil }
        }
    }

    private func sendHeartbeats() {
        devices.withLock { all in
            for deviceID in all.keys {
                all[deviceID]?.sendHeartbeats { _ in [] }
                if all[deviceID]?.isEmpty == true { all[deviceID] = nil }
            }
        }
    }

    // MARK: Framing

    static func event(_ stored: StoredFix, latest: Bool) -> [UInt8] {
        var data: JSONObject = ["location": Documents.position(stored.position),
                                "timestamp": .string(Time.format(stored.fix.timestamp)), "latest": .bool(latest)]
        if let accuracy = stored.fix.accuracy { data["accuracy"] = .number(JSONNumber(accuracy)) }
        return SSE.frame(id: nil, name: "location", data: .object(data))
    }

    static func end(_ reason: String) -> [UInt8] {
        SSE.frame(id: nil, name: "end", data: ["reason": .string(reason)])
    }
}
