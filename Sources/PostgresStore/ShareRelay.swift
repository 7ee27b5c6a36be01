import PostgresClient
import Tracking

/// What a `NOTIFY` on `PostgresStore.shareFixChannel` says: device `deviceID`, which has an
/// active share link, stored these fixes (the newest `maxFixes` of them) in the transaction
/// that just committed; `latestSequence` is the fix that became its latest, if one did.
/// Payload: `deviceID latest ts:seq,ts:seq,…` (`latest` 0 when none).
public struct ShareFixNotice: Sendable, Equatable {
    /// Fixes one notice names at most (a share stream shows at most the newest 100 of an ingest),
    /// which keeps a payload far below PostgreSQL's 8,000 bytes.
    public static let maxFixes = 100

    public let deviceID: DeviceID
    public let latestSequence: Int64?
    /// (timestamp ms, sequence) of each fix: its primary key with the device.
    public let fixes: [(timestamp: Int64, sequence: Int64)]

    public init(deviceID: DeviceID, latestSequence: Int64?, fixes: [(timestamp: Int64, sequence: Int64)]) {
        self.deviceID = deviceID
        self.latestSequence = latestSequence
        self.fixes = Array(fixes.suffix(Self.maxFixes))
    }

    /// The notice of an ingest: its newest fixes by (timestamp, sequence).
    init(_ outcome: IngestOutcome, deviceID: DeviceID) {
        let newest = outcome.stored.map { (timestamp: $0.fix.timestamp, sequence: $0.sequence) }.sorted { ($0.timestamp, $0.sequence) < ($1.timestamp, $1.sequence) }
        self.init(deviceID: deviceID, latestSequence: outcome.newLatestSequence, fixes: newest)
    }

    public var payload: String {
        "\(deviceID.rawValue) \(latestSequence ?? 0) " + fixes.map { "\($0.timestamp):\($0.sequence)" }.joined(separator: ",")
    }

    /// Parses a payload; nil for anything else.
    public init?(payload: String) {
        let parts = payload.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, let latest = Int64(parts[1]), latest >= 0 else { return nil }
        var fixes: [(timestamp: Int64, sequence: Int64)] = []
        for pair in parts[2].split(separator: ",") {
            let numbers = pair.split(separator: ":", omittingEmptySubsequences: false)
            guard numbers.count == 2, let timestamp = Int64(numbers[0]), let sequence = Int64(numbers[1]) else { return nil }
            fixes.append((timestamp, sequence))
        }
        guard !fixes.isEmpty, fixes.count <= Self.maxFixes else { return nil }
        self.init(deviceID: DeviceID(rawValue: String(parts[0])), latestSequence: latest == 0 ? nil : latest, fixes: fixes)
    }

    public static func == (a: ShareFixNotice, b: ShareFixNotice) -> Bool {
        a.deviceID == b.deviceID && a.latestSequence == b.latestSequence
            && a.fixes.map(\.timestamp) == b.fixes.map(\.timestamp) && a.fixes.map(\.sequence) == b.fixes.map(\.sequence)
    }
}

/// What a `NOTIFY` on `PostgresStore.shareChangeChannel` says (sent by triggers on `shares`, in
/// the transaction of the change): a link was deleted — revoked, or its device or account
/// deleted — or got a new expiry. Payloads `revoked <id>` and `renewed <id> <expiresAt ms>`.
public enum ShareChangeNotice: Sendable, Equatable {
    case revoked(ShareID)
    case renewed(ShareID, expiresAt: Int64)

    public init?(payload: String) {
        let parts = payload.split(separator: " ")
        switch (parts.first, parts.count) {
        case ("revoked", 2):
            self = .revoked(ShareID(rawValue: String(parts[1])))
        case ("renewed", 3):
            guard let expiresAt = Int64(parts[2]) else { return nil }
            self = .renewed(ShareID(rawValue: String(parts[1])), expiresAt: expiresAt)
        default:
            return nil
        }
    }
}

/// Feeds one node's share-link streams from every node's commits: it `LISTEN`s on
/// `shareFixChannel` and `shareChangeChannel`; for a fix notice of a device watched here it
/// reads those fixes and hands them to `streams` (in commit order, as notices arrive); a link
/// revoked or renewed on any node ends or re-times the streams here at once.
///
/// A share stream has no resume point of its own: when the listening session was lost (or
/// the fixes of a notice cannot be read), the streams concerned end without an `end` event
/// and their clients reconnect to a fresh snapshot — nothing missed, nothing twice.
///
/// Lifetime: `start()` once; `stop()` once, before the streams go. Runs on its own thread.
public final class ShareRelay: Sendable {
    private let store: PostgresStore
    private let streams: any RelayedShareStreams
    private let log: @Sendable (String) -> Void
    private let loop: ListeningLoop

    public init(store: PostgresStore, streams: any RelayedShareStreams, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.store = store
        self.streams = streams
        self.log = log
        loop = ListeningLoop(connectionString: store.connectionString,
                             channels: [PostgresStore.shareFixChannel, PostgresStore.shareChangeChannel], name: "fod-pg-shares", log: log)
    }

    /// Listens once (so nothing committed after `start` returns is missed), then relays on a
    /// thread of its own. Throws `StoreFailure(.unavailable)` when the database cannot be reached.
    public func start() throws {
        try loop.start(ListeningLoop.Callbacks(
            received: { [self] notifications in
                for notification in notifications { relay(notification) }
            },
            reconnected: { [streams] in streams.restart(deviceID: nil) }))
    }

    /// Stops the thread (within one wait) and closes the listening session.
    public func stop() { loop.stop() }

    private func relay(_ notification: PostgresNotification) {
        if notification.channel == PostgresStore.shareChangeChannel {
            switch ShareChangeNotice(payload: notification.payload) {
            case .revoked(let id)?: streams.shareRevoked(id)
            case .renewed(let id, let expiresAt)?: streams.shareRenewed(id, expiresAt: expiresAt)
            case nil: log("share relay: unreadable notice \(notification.payload)")
            }
            return
        }
        guard let notice = ShareFixNotice(payload: notification.payload) else {
            return log("share relay: unreadable notice \(notification.payload)")
        }
        guard streams.isWatching(notice.deviceID) else { return }
        do {
            var outcome = IngestOutcome()
            outcome.stored = try store.fixes(of: notice)
            outcome.newLatestSequence = notice.latestSequence
            if !outcome.stored.isEmpty { streams.fixesStored(outcome) }
        } catch {
            log("share relay: reading fixes of \(notice.deviceID) failed (\(error)); its streams start afresh")
            streams.restart(deviceID: notice.deviceID)
        }
    }
}

extension PostgresStore {
    /// The channel of `ShareFixNotice`s.
    public static let shareFixChannel = "fod_share_fixes"
    /// The channel of `ShareChangeNotice`s.
    public static let shareChangeChannel = "fod_share_changes"

    /// The fixes a notice names that are still stored, oldest first.
    func fixes(of notice: ShareFixNotice) throws -> [StoredFix] {
        try read { c in
            try c.rows("""
                SELECT \(Self.storedFixColumns) FROM fixes
                WHERE device_key = (SELECT key FROM devices WHERE id = $1)
                  AND (ts, seq) IN (SELECT * FROM unnest($2::bigint[], $3::bigint[]))
                ORDER BY ts, seq
                """, [.id(notice.deviceID), .int64Array(notice.fixes.map(\.timestamp)), .int64Array(notice.fixes.map(\.sequence))]) {
                try Self.storedFix($0, deviceID: notice.deviceID)
            }
        }
    }
}
