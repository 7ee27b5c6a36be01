/// Reading a group's feed as a member may see it: the one implementation behind `/changes`
/// and the live feed's replay, so both follow `GroupVisibility` in the same way.
public final class FeedService: Sendable {
    /// Most entries one `/changes` page may read while skipping hidden ones.
    public static let maxScannedPerPage = 100_000
    public static let maxPage = 1_000

    let log: any EventLog

    public init(log: any EventLog) { self.log = log }

    /// A page of the log after `since`, as `reader` may see it now.
    public struct Page: Sendable {
        /// The visible events, oldest first.
        public let events: [GroupEvent]
        /// The id of the last log entry read (hidden ones included), or `since` when none.
        public let last: EventID
        /// True when `maxScannedPerPage` entries were read and all were hidden (`events` is
        /// empty, but the log goes on past `last`).
        public let more: Bool
        /// True when entries after `since` were pruned from the log window.
        public let truncated: Bool
    }

    /// Events after `since`, at most `limit` visible ones: hidden events (locations of members
    /// who do not share now, redacted ones) are skipped and reading goes on until the page has
    /// something or the log ends, so an empty page means "done" unless `more` is set.
    /// - Throws: 404 when `reader` is not a member; 400 for `limit` outside 1…1,000 or a
    ///   negative `since`.
    public func changes(groupID: GroupID, reader: UserID, since: EventID, limit: Int) throws -> Page {
        guard since >= .start, (1...Self.maxPage).contains(limit) else {
            throw TrackingError.invalid("since must be ≥ 0 and limit 1 to \(Self.maxPage)", code: .invalidRange)
        }
        guard let state = try log.feedSnapshot(groupID: groupID, readerID: reader) else { throw TrackingError.notFound("group") }
        var visible: [GroupEvent] = []
        var last = since
        var scanned = 0
        var more = false
        while visible.count < limit {
            if scanned >= Self.maxScannedPerPage { more = true; break }
            let wanted = limit - visible.count
            let page = try log.events(groupID: groupID, after: last, limit: wanted)
            guard let end = page.last?.id else { break }
            last = end
            scanned += page.count
            visible += page.filter(state.visibility.serves)
            if page.count < wanted { break }  // the end of the log
        }
        let firstKept = state.oldestEventID.map { $0.rawValue - 1 } ?? state.lastEventID.rawValue
        return Page(events: visible, last: last, more: more, truncated: since.rawValue < firstKept)
    }
}
