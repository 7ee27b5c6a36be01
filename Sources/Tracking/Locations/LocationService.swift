import Crypto
import LocationFormats
import Timestamps

/// Ingest, history and deletion of device locations.
///
/// Only the device's own token writes its locations (`PartitionRules.canWrite`); history is read
/// by whoever may read the device partition: its owner, and group members while it shares.
/// Every path into storage — our format and the phone apps' — goes through `ingest`, so
/// validation, idempotency and events are the same for all.
public final class LocationService: Sendable {
    public static let maxHistoryPage = 10_000
    public static let defaultHistoryPage = 1_000

    let store: any LocationStore
    let directory: any DirectoryStore
    public let rules: FixRules
    public let events: LocationEventRule
    /// Ingest requests per device (a token bucket; disabled with a rate of 0), counted in `limits`.
    let requests: BucketLimit
    let limits: any LimitCounters

    /// How fast one device may post.
    public struct RequestLimit: Sendable {
        /// Sustained requests per second per device (0: no limit).
        public var perSecond: Double
        /// Requests a device may make at once after being idle.
        public var burst: Int
        public static let standard = RequestLimit(perSecond: 20, burst: 100)
        public static let none = RequestLimit(perSecond: 0, burst: 1)
        public init(perSecond: Double, burst: Int) {
            self.perSecond = perSecond
            self.burst = burst
        }
    }

    public init(store: any LocationStore, directory: any DirectoryStore,
                rules: FixRules = .standard, events: LocationEventRule = .standard, requestLimit: RequestLimit = .standard,
                limits: any LimitCounters = LocalLimitCounters()) {
        self.store = store
        self.directory = directory
        self.rules = rules
        self.events = events
        self.requests = BucketLimit(scope: "device-requests", perSecond: requestLimit.perSecond, burst: requestLimit.burst)
        self.limits = limits
    }

    /// Counts one ingest request of `deviceID` (every path: ours, the phone apps', imports);
    /// throws `rate_limited` (429 with Retry-After) past the device's request limit.
    public func admitRequest(deviceID: DeviceID) throws {
        if let wait = try limits.take(requests, key: deviceID.rawValue, now: Timestamp.nowMilliseconds()) {
            throw TrackingError(.rateLimited, code: .rateLimited,
                                message: "this device posts too often; try again in \(wait) s (batch fixes instead)", retryAfterSeconds: wait)
        }
    }

    /// Stores `fixes` for `deviceID` if `credential` is that device's token; returns the counts
    /// once the fixes are durable. The store announces their group events right after the commit.
    /// `countsAsRequest` is false only for local tools (`fod import`), which are not clients.
    /// `events` overrides the service's event rule (imports log nothing per batch).
    /// `report` is what the request said besides its fixes (see `ingest(…completion:)`).
    public func ingest(_ fixes: [Fix], deviceID: DeviceID, credential: Credential, countsAsRequest: Bool = true,
                       events: LocationEventRule? = nil, report: DeviceReport? = nil) async throws -> IngestOutcome {
        try await withCheckedThrowingContinuation { continuation in
            do {
                try ingest(fixes, deviceID: deviceID, credential: credential, countsAsRequest: countsAsRequest, events: events,
                           report: report) {
                    continuation.resume(with: $0)
                }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// `ingest` answering through `completion` (called once, from the store's writer where it
    /// can: no task on the way). Throws at once what the checks refuse (nothing was stored,
    /// and `completion` is not called).
    ///
    /// A client's request (`countsAsRequest`) also records that the device was seen now and the
    /// newest battery level of `fixes` and `report`, in the same commit as the fixes; `report`
    /// adds what a phone app sent that is not a fix (rejections, region events). Without fixes
    /// the report alone is written (a heartbeat), and not even that when it would change nothing.
    public func ingest(_ fixes: [Fix], deviceID: DeviceID, credential: Credential, countsAsRequest: Bool = true,
                       events: LocationEventRule? = nil, report: DeviceReport? = nil,
                       completion: @escaping @Sendable (Result<IngestOutcome, Error>) -> Void) throws {
        try PartitionRules(facts: directory).requireWrite(credential, .device(deviceID))
        guard case .device = credential else { throw TrackingError.cannotWrite(.device(deviceID)) }
        if countsAsRequest { try admitRequest(deviceID: deviceID) }
        let report = countsAsRequest ? (report ?? DeviceReport(seenAt: Timestamp.nowMilliseconds())).addingBattery(of: fixes) : report
        guard !fixes.isEmpty || report != nil else { return completion(.success(IngestOutcome())) }
        if fixes.isEmpty, let report, report.rejections.isEmpty, report.events.isEmpty,
           let device = try directory.readDirectory({ try $0.device(id: deviceID) }), device.status.updated(by: report) == nil {
            // A heartbeat that changes nothing (seen within the status' resolution, the same
            // battery): a read instead of a write transaction.
            return completion(.success(IngestOutcome()))
        }
        store.append(deviceID: deviceID, fixes: fixes, report: report, events: events ?? self.events, onCommit: publisher,
                     completion: completion)
    }

    /// Nothing more after a commit: the store announces an append's events and fixes itself
    /// (`CommitDoor`).
    private var publisher: @Sendable (IngestOutcome) -> Void { { _ in } }

    /// A page of history, oldest first, of what the caller may see (all of it for the owner, the
    /// sharing periods for group members); 404 to anyone who may not read the device.
    public func history(deviceID: DeviceID, credential: Credential, from: Int64?, to: Int64?,
                        cursor: HistoryCursor?, limit: Int?) throws -> HistoryPage {
        let windows = try PartitionRules(facts: directory).historyWindows(credential, deviceID: deviceID)
        let limit = limit ?? Self.defaultHistoryPage
        guard (1...Self.maxHistoryPage).contains(limit) else {
            throw TrackingError.invalid("limit must be 1 to \(Self.maxHistoryPage)", code: .invalidLimit)
        }
        if let from, let to, from > to { throw TrackingError.invalid("from must not be after to", code: .invalidRange) }
        return try Self.page(of: windows.clipped(from: from, to: to), after: cursor, limit: limit) { range, after, count in
            try store.history(deviceID: deviceID, from: range.lowerBound, to: range.upperBound, after: after, limit: count)
        }
    }

    /// A page of up to `limit` fixes read window by window (oldest first) after `cursor`;
    /// `read` returns one window's page.
    static func page(of windows: HistoryWindows, after cursor: HistoryCursor?, limit: Int,
                     read: (ClosedRange<Int64>, HistoryCursor?, Int) throws -> HistoryPage) throws -> HistoryPage {
        var fixes: [StoredFix] = []
        var position = cursor
        let open = windows.intervals.filter { window in cursor.map { window.upperBound >= $0.timestamp } ?? true }
        for (index, window) in open.enumerated() {
            let remaining = limit - fixes.count
            guard remaining > 0 else {
                // Full: a cursor only if a later window holds more.
                let more = try open[index...].contains { try !read($0, position, 1).fixes.isEmpty }
                return HistoryPage(fixes: fixes, next: more ? position : nil)
            }
            let page = try read(window, position, remaining)
            fixes += page.fixes
            if page.next != nil { return HistoryPage(fixes: fixes, next: page.next) }
            if let last = page.fixes.last { position = HistoryCursor(timestamp: last.fix.timestamp, sequence: last.sequence) }
        }
        return HistoryPage(fixes: fixes, next: nil)
    }

    /// Deletes the device's fixes older than `before` (owner only); returns how many.
    public func deleteHistory(deviceID: DeviceID, before: Int64, ownerID: UserID) async throws -> Int {
        _ = try directory.readDirectory { try DeviceService.owned(deviceID, by: ownerID, in: $0) }
        return try await store.deleteHistory(deviceID: deviceID, before: before)
    }
}

/// History cursors as opaque, URL-safe strings.
public enum CursorCoding {
    public static func encode(_ cursor: HistoryCursor) -> String {
        Base64URL.encode(Array("\(cursor.timestamp):\(cursor.sequence)".utf8))
    }

    public static func decode(_ text: String) throws -> HistoryCursor {
        guard text.utf8.count <= 64, let bytes = Base64URL.decode(text) else { throw invalid }
        let parts = String(decoding: bytes, as: UTF8.self).split(separator: ":")
        guard parts.count == 2, let ts = Int64(parts[0]), let seq = Int64(parts[1]) else { throw invalid }
        return HistoryCursor(timestamp: ts, sequence: seq)
    }

    static var invalid: TrackingError { .invalid("cursor is not one this server issued", code: .invalidCursor) }
}

/// Deletes history older than a retention window, in small batches, in the background.
public final class RetentionJob: Sendable {
    let store: any LocationStore
    let retainMilliseconds: Int64
    let batch: Int

    public init(store: any LocationStore, retainDays: Int, batch: Int = 5_000) {
        self.store = store
        self.retainMilliseconds = Int64(retainDays) * 86_400_000
        self.batch = batch
    }

    /// One pass: deletes everything older than now − retention; returns how many fixes.
    public func runOnce(now: Int64 = Timestamp.nowMilliseconds()) async throws -> Int {
        try await store.purge(before: now - retainMilliseconds, batch: batch)
    }
}
