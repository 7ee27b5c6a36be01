import Timestamps

/// A device whose positions an export may contain, with the names the exports show and the
/// part of its history the caller may read.
public struct ExportSubject: Sendable, Equatable {
    public let deviceKey: DeviceKey
    public let deviceID: DeviceID
    public let deviceName: String
    public let userID: UserID
    public let displayName: String
    /// Its latest position as the export may show it (`SharedLatest` in a group's export).
    public var last: LastLocation?
    /// What of its history the export may contain (`.all` for its owner, else its sharing
    /// periods in the group).
    public var windows: HistoryWindows

    public init(deviceKey: DeviceKey, deviceID: DeviceID, deviceName: String, userID: UserID, displayName: String,
                last: LastLocation?, windows: HistoryWindows) {
        self.deviceKey = deviceKey
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.userID = userID
        self.displayName = displayName
        self.last = last
        self.windows = windows
    }
}

/// One stored fix as exports read it: its position and time, and with `.everything` every
/// other stored field (the NDJSON export writes them all, GPX most).
public struct ExportRow: Sendable, Equatable {
    /// What of a fix an export reads: maps and charts need positions (and altitude) only.
    public enum Detail: Sendable {
        /// Time, position and altitude; the other fields are nil.
        case positions
        /// Every stored field.
        case everything
    }

    public let timestamp: Int64
    public let sequence: Int64
    public let longitude: Double
    public let latitude: Double
    public let altitude: Double?
    /// Meters, m/s, degrees and percent, as stored; nil when the fix has none.
    public let accuracy: Double?
    public let speed: Double?
    public let heading: Double?
    public let battery: Double?
    /// The client's id of the fix (or the one an import derived), when it has one.
    public let clientID: String?

    public init(timestamp: Int64, sequence: Int64, longitude: Double, latitude: Double, altitude: Double?,
                accuracy: Double? = nil, speed: Double? = nil, heading: Double? = nil, battery: Double? = nil,
                clientID: String? = nil) {
        self.timestamp = timestamp
        self.sequence = sequence
        self.longitude = longitude
        self.latitude = latitude
        self.altitude = altitude
        self.accuracy = accuracy
        self.speed = speed
        self.heading = heading
        self.battery = battery
        self.clientID = clientID
    }
}

/// Who and what an export may contain: only what the caller may read, at every page — a
/// member who stops sharing, leaves or is removed, or a group deleted, stops the rows at
/// once, as in the live feed — else 404 before it starts.
public final class ExportService: Sendable {
    let store: any ExportStore
    let directory: any DirectoryStore
    /// Who shares with a group now and since when; re-read at every page of a group export
    /// (a store answers it from a cache that every membership or sharing change invalidates).
    let visibility: any GeoIndex

    public init(store: any ExportStore, directory: any DirectoryStore, visibility: any GeoIndex) {
        self.store = store
        self.directory = directory
        self.visibility = visibility
    }

    var rules: PartitionRules { PartitionRules(facts: directory) }

    /// What an export is of, for re-checking as it streams.
    public enum Scope: Sendable {
        case group(GroupID)
        case device(DeviceID)
    }

    public func groupSubjects(groupID: GroupID, credential: Credential) throws -> [ExportSubject] {
        try rules.requireRead(credential, .group(groupID), hiddenAs: "group")
        return try store.exportSubjects(groupID: groupID).map { subject in
            // The owner of a device always reads all of its history.
            var subject = subject
            if subject.userID == credential.userID { subject.windows = .all }
            return subject
        }
    }

    public func deviceSubject(deviceID: DeviceID, credential: Credential) throws -> ExportSubject {
        let windows = try rules.historyWindows(credential, deviceID: deviceID)
        guard var subject = try store.exportSubject(deviceID: deviceID) else { throw TrackingError.notFound("device") }
        subject.windows = windows
        return subject
    }

    /// What of each device of `scope` the caller may read now; nil when the caller may no
    /// longer read the scope at all. Cheap enough for every page of an export: for a group, one
    /// membership read and the store's sharing devices (`GeoIndex.sharingDevices`, cached
    /// until memberships or sharing periods change).
    public func currentWindows(_ scope: Scope, credential: Credential) throws -> ReadableHistory? {
        do {
            switch scope {
            case .group(let groupID):
                try rules.requireRead(credential, .group(groupID), hiddenAs: "group")
                return ReadableHistory(group: try visibility.sharingDevices(groupID: groupID), caller: credential.userID)
            case .device(let deviceID):
                let subject = try deviceSubject(deviceID: deviceID, credential: credential)
                return ReadableHistory(device: subject.deviceKey, windows: subject.windows)
            }
        } catch let error as TrackingError where error.kind == .notFound || error.kind == .unauthenticated {
            return nil
        }
    }

    /// How many positions of `subjects` lie in [from, to] (for progress bars; an upper bound
    /// when windows cut history).
    public func countRows(of subjects: [ExportSubject], from: Int64?, to: Int64?) throws -> Int {
        try subjects.reduce(0) { total, subject in
            subject.windows.clipped(from: from, to: to).isEmpty ? total
                : total + (try store.countRows(deviceKey: subject.deviceKey, from: from, to: to))
        }
    }

    /// A cursor over the readable positions of `subjects` in [from, to], device after device,
    /// each in time order, read `pageSize` rows at a time; before each page it re-checks what
    /// `credential` may read of `scope`.
    public func rows(of subjects: [ExportSubject], from: Int64?, to: Int64?, scope: Scope, credential: Credential,
                     detail: ExportRow.Detail = .positions, pageSize: Int = 4_096) -> ExportRowCursor {
        ExportRowCursor(store: store, subjects: subjects, from: from, to: to, detail: detail, pageSize: pageSize) { [self] in
            try currentWindows(scope, credential: credential)
        }
    }
}

/// What of each device's history a caller may read at one moment (an export asks again at
/// every page): for a group, the sharing periods of the members who share now, and all of the
/// caller's own devices among them; for one device, its windows. Other devices: nothing.
public struct ReadableHistory: Sendable {
    private enum Source: Sendable {
        case group(SharingDevices, caller: UserID?)
        case device(DeviceKey, HistoryWindows)
    }

    private let source: Source

    public init(group sharing: SharingDevices, caller: UserID?) {
        source = .group(sharing, caller: caller)
    }

    public init(device: DeviceKey, windows: HistoryWindows) {
        source = .device(device, windows)
    }

    /// The windows of `device` the caller may read (`.none` for a device it may not read).
    public func windows(of device: DeviceKey) -> HistoryWindows {
        switch source {
        case .group(let sharing, let caller):
            return sharing.windows(of: device, readBy: caller)
        case .device(let key, let windows):
            return key == device ? windows : .none
        }
    }
}
