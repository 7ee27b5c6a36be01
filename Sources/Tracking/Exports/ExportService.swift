import Timestamps

/// A device whose positions an export may contain, with the names the exports show.
public struct ExportSubject: Sendable, Equatable {
    public let deviceKey: Int64
    public let deviceID: String
    public let deviceName: String
    public let userID: String
    public let displayName: String
    public let last: LastLocation?
}

/// One stored position as exports read it.
public struct ExportRow: Sendable, Equatable {
    public let timestamp: Int64
    public let sequence: Int64
    public let longitude: Double
    public let latitude: Double
    public let altitude: Double?
}

/// Reads what exports need, in pages (bounded memory for any history size).
public protocol ExportStore: Sendable {
    /// Devices of members sharing with the group, in device-id order.
    func exportSubjects(groupID: String) throws -> [ExportSubject]
    func exportSubject(deviceID: String) throws -> ExportSubject?
    func countRows(deviceKey: Int64, from: Int64?, to: Int64?) throws -> Int
    /// Up to `limit` positions of a device in [from, to] after `cursor`, oldest first.
    func exportRows(deviceKey: Int64, from: Int64?, to: Int64?, after cursor: HistoryCursor?, limit: Int) throws -> [ExportRow]
}

/// Who and what an export may contain: only what the caller may read (members of a group see
/// the devices of members who share now; a device's own history is for its owner and for
/// members it shares with), else 404.
public final class ExportService: Sendable {
    let store: any ExportStore
    let directory: any DirectoryStore

    public init(store: any ExportStore, directory: any DirectoryStore) {
        self.store = store
        self.directory = directory
    }

    public func groupSubjects(groupID: String, credential: Credential) throws -> [ExportSubject] {
        try PartitionRules(facts: directory).requireRead(credential, .group(groupID), hiddenAs: "group")
        return try store.exportSubjects(groupID: groupID)
    }

    public func deviceSubject(deviceID: String, credential: Credential) throws -> ExportSubject {
        try PartitionRules(facts: directory).requireRead(credential, .device(deviceID), hiddenAs: "device")
        guard let subject = try store.exportSubject(deviceID: deviceID) else { throw TrackingError.notFound("device") }
        return subject
    }

    /// How many positions of `subjects` lie in [from, to] (for progress bars).
    public func countRows(of subjects: [ExportSubject], from: Int64?, to: Int64?) throws -> Int {
        try subjects.reduce(0) { $0 + (try store.countRows(deviceKey: $1.deviceKey, from: from, to: to)) }
    }

    /// A cursor over the positions of `subjects` in [from, to], device after device, each in
    /// time order, read `pageSize` rows at a time.
    public func rows(of subjects: [ExportSubject], from: Int64?, to: Int64?, pageSize: Int = 4_096) -> ExportRowCursor {
        ExportRowCursor(store: store, subjects: subjects, from: from, to: to, pageSize: pageSize)
    }
}

/// Walks the positions of several devices page by page. Not thread-safe: one export drives it.
public final class ExportRowCursor: @unchecked Sendable {
    // @unchecked: used by one pull stream at a time (the server calls a stream's refill serially).
    let store: any ExportStore
    let subjects: [ExportSubject]
    let from: Int64?, to: Int64?
    public let pageSize: Int
    private var subjectIndex = 0
    private var cursor: HistoryCursor?

    init(store: any ExportStore, subjects: [ExportSubject], from: Int64?, to: Int64?, pageSize: Int) {
        self.store = store
        self.subjects = subjects
        self.from = from
        self.to = to
        self.pageSize = pageSize
    }

    /// The next page if it still belongs to `subject` (the device in progress), else nil and
    /// nothing is consumed.
    public func peekSameSubject(_ subject: ExportSubject) throws -> (ExportSubject, [ExportRow])? {
        guard subjectIndex < subjects.count, subjects[subjectIndex].deviceKey == subject.deviceKey else { return nil }
        return try nextPage()
    }

    /// The next page of rows (all of one device), or nil when every device is done.
    public func nextPage() throws -> (subject: ExportSubject, rows: [ExportRow])? {
        while subjectIndex < subjects.count {
            let subject = subjects[subjectIndex]
            let rows = try store.exportRows(deviceKey: subject.deviceKey, from: from, to: to, after: cursor, limit: pageSize)
            if let last = rows.last { cursor = HistoryCursor(timestamp: last.timestamp, sequence: last.sequence) }
            if rows.count < pageSize {
                subjectIndex += 1
                cursor = nil
            }
            if !rows.isEmpty { return (subject, rows) }
        }
        return nil
    }
}
