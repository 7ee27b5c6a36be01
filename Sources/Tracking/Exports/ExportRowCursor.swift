/// Walks the readable positions of several devices page by page, device after device, each in
/// time order and only inside the windows the caller may read.
///
/// Before every page it asks `refresh` what the caller may read now: a device that is no
/// longer shared (sharing off, left, removed) yields nothing more, its windows follow the
/// change, and when the caller lost the scope altogether (removed, group deleted) the walk ends.
///
/// Not thread-safe: one export drives it.
public final class ExportRowCursor: @unchecked Sendable {
    // @unchecked: used by one pull stream at a time (the server calls a stream's refill serially).
    let store: any ExportStore
    let subjects: [ExportSubject]
    let from: Int64?, to: Int64?
    let detail: ExportRow.Detail
    public let pageSize: Int
    let refresh: () throws -> ReadableHistory?
    private var subjectIndex = 0
    /// The last position returned of the current subject (nil: none yet).
    private var cursor: HistoryCursor?
    /// Windows of the current subject ending at or before this time are done.
    private var doneThrough: Int64?
    /// True once the caller may no longer read the scope.
    public private(set) var revoked = false

    init(store: any ExportStore, subjects: [ExportSubject], from: Int64?, to: Int64?, detail: ExportRow.Detail, pageSize: Int,
         refresh: @escaping () throws -> ReadableHistory?) {
        self.store = store
        self.subjects = subjects
        self.from = from
        self.to = to
        self.detail = detail
        self.pageSize = max(1, pageSize)
        self.refresh = refresh
    }

    /// The next page if it still belongs to `subject` (the device in progress), else nil and
    /// nothing is consumed.
    public func peekSameSubject(_ subject: ExportSubject) throws -> (ExportSubject, [ExportRow])? {
        guard subjectIndex < subjects.count, subjects[subjectIndex].deviceKey == subject.deviceKey else { return nil }
        return try nextPage()
    }

    /// The next page of rows (all of one device), or nil when every device is done or the
    /// caller lost access.
    public func nextPage() throws -> (subject: ExportSubject, rows: [ExportRow])? {
        while !revoked && subjectIndex < subjects.count {
            guard let readable = try refresh() else {
                revoked = true
                return nil
            }
            let subject = subjects[subjectIndex]
            let windows = readable.windows(of: subject.deviceKey).clipped(from: from, to: to).intervals
                .filter { window in doneThrough.map { window.upperBound > $0 } ?? true }
            guard let window = windows.first else {
                nextSubject()
                continue
            }
            let rows = try store.exportRows(deviceKey: subject.deviceKey, from: window.lowerBound, to: window.upperBound,
                                            after: cursor, limit: pageSize, detail: detail)
            if let last = rows.last { cursor = HistoryCursor(timestamp: last.timestamp, sequence: last.sequence) }
            if rows.count < pageSize {
                // This window is done: on to the next one, or the next device.
                if windows.count > 1 {
                    doneThrough = window.upperBound
                } else {
                    nextSubject()
                }
            }
            if !rows.isEmpty { return (subject, rows) }
        }
        return nil
    }

    private func nextSubject() {
        subjectIndex += 1
        cursor = nil
        doneThrough = nil
    }
}
