import PostgresClient
import SQLCore
import Tracking

extension PostgresStore: GeoIndex {
    /// From the node's cache while the group's `group_visibility` version is the one they were
    /// read at (migration 6: triggers move it with every change of the group's memberships and
    /// sharing periods, on any node); else read again with the version, in one snapshot.
    /// A hit costs one primary-key read instead of every member's membership and periods.
    public func sharingDevices(groupID: GroupID) throws -> SharingDevices {
        let version = try read { c in try Self.visibilityVersion(groupID: groupID, on: c) }
        if let cached = visibility.cached(groupID: groupID, version: version) { return cached }
        return try readSnapshot { c in
            try sharingDevices(groupID: groupID, version: try Self.visibilityVersion(groupID: groupID, on: c), on: c)
        }
    }

    /// The group's sharing devices at `version` (read in `c`'s snapshot): from the cache when it
    /// holds that version, else read on `c` and remembered.
    func sharingDevices(groupID: GroupID, version: Int64, on c: Connection) throws -> SharingDevices {
        if let cached = visibility.cached(groupID: groupID, version: version) { return cached }
        let devices = SharingDevices(try DirectoryTables.sharedDevices(groupID: groupID, on: PostgresExecutor(c: c)))
        visibility.remember(devices, groupID: groupID, version: version)
        return devices
    }

    static let visibilityVersionSQL = "SELECT version FROM group_visibility WHERE group_id = $1"

    static func visibilityVersion(groupID: GroupID, on c: Connection) throws -> Int64 {
        try c.firstRow(visibilityVersionSQL, [.id(groupID)]) { try $0.int64(0) } ?? 0
    }

    /// A reader inside one read-only `REPEATABLE READ` transaction: every scan sees the same
    /// committed state.
    /// The reader's statements run with generic plans (`PlanCaching.generic`, set with the
    /// snapshot's `BEGIN`): each is prepared once per connection,
    /// and PostgreSQL's default (a custom plan per execution while their costs compare) spent
    /// ~0.15 ms planning each range scan against ~0.04 ms executing it. Their plan does not
    /// depend on the values (one range scan of the cell index), so the generic one is as good.
    public func withReader<T>(_ body: (any GeoIndexReader) throws -> T) throws -> T {
        try readSnapshot(planning: .generic) { c in try body(PostgresGeoIndexReader(c: c)) }
    }

    /// One snapshot for both: the group's `group_visibility` version is read with the `BEGIN`
    /// (one round trip); the sharing devices come from the node's cache while it holds that
    /// version, else are read in the snapshot. A query then costs this trip, its scans and the
    /// `COMMIT`, where reading the version first cost one more.
    public func withReader<T>(sharingDevicesOf groupID: GroupID, _ body: (SharingDevices, any GeoIndexReader) throws -> T) throws -> T {
        try read { c in
            try c.transaction(.repeatableRead, readOnly: true, planning: .generic, opening: Self.visibilityVersionSQL, [.id(groupID)]) { c, opening in
                let version = try opening.rows.first.map { try $0.int64(0) } ?? 0
                return try body(try sharingDevices(groupID: groupID, version: version, on: c), PostgresGeoIndexReader(c: c))
            }
        }
    }
}

/// Range scans of `fixes_by_cell` on one connection inside its snapshot, in keyset pages that
/// start at `firstPageSize` rows and double up to `pageSize` (so a scan the caller stops early —
/// `$near`'s probe of a coarse cell for one readable position — reads a few rows, not
/// thousands, and a huge one is never held in memory at once).
struct PostgresGeoIndexReader: GeoIndexReader {
    let c: Connection
    static let firstPageSize = 32
    static let pageSize = 4_096

    func scan(_ range: ClosedRange<Int64>, from: Int64?, to: Int64?, _ body: (IndexEntry) throws -> Bool) throws -> Bool {
        try scan(range, from: from, to: to, after: nil, body)
    }

    /// The scan yields keys in order: it stops at the first entry taken.
    func firstCell(in range: ClosedRange<Int64>, from: Int64?, to: Int64?, where accept: (IndexEntry) throws -> Bool) throws -> Int64? {
        var least: Int64?
        _ = try scan(range, from: from, to: to, after: nil) { entry in
            if try accept(entry) { least = entry.cell }
            return least == nil
        }
        return least
    }

    /// All ranges' first pages in one statement (`leadingEntries`); a range whose first page
    /// was full goes on from its last entry, page by page, before the next range's entries.
    func scan(ranges: [ClosedRange<Int64>], from: Int64?, to: Int64?, _ body: (IndexEntry) throws -> Bool) throws -> Bool {
        guard ranges.count > 1 else {
            for range in ranges where try !scan(range, from: from, to: to, body) { return false }
            return true
        }
        let firstPages = try leadingEntries(of: ranges, from: from, to: to, count: Self.firstPageSize)
        for (range, page) in zip(ranges, firstPages) {
            for entry in page where try !body(entry) { return false }
            // The last in key order (the statement's rows come in it, but nothing here needs that).
            if page.count == Self.firstPageSize,
               let last = page.max(by: { ($0.cell, $0.deviceKey.storeValue, $0.timestamp, $0.sequence) < ($1.cell, $1.deviceKey.storeValue, $1.timestamp, $1.sequence) }),
               try !scan(range, from: from, to: to, after: last, body) { return false }
        }
        return true
    }

    /// The entries of `range` after `start` (the whole range without one), in key order.
    private func scan(_ range: ClosedRange<Int64>, from: Int64?, to: Int64?, after start: IndexEntry?,
                      _ body: (IndexEntry) throws -> Bool) throws -> Bool {
        let from = from ?? Int64.min, to = to ?? Int64.max
        // The position after the last entry read: (cell, device_key, ts, seq).
        var after = start.map { ($0.cell, $0.deviceKey.storeValue, $0.timestamp, $0.sequence) }
        var limit = Self.firstPageSize * (start == nil ? 1 : 2)
        while true {
            let result: QueryResult
            if let after {
                result = try c.queryPrepared("""
                    SELECT cell, device_key, ts, seq, lon, lat FROM fixes
                    WHERE cell BETWEEN $1 AND $2 AND ts BETWEEN $3 AND $4 AND (cell, device_key, ts, seq) > ($5, $6, $7, $8)
                    ORDER BY cell, device_key, ts, seq LIMIT $9
                    """, [.int64(range.lowerBound), .int64(range.upperBound), .int64(from), .int64(to),
                          .int64(after.0), .int64(after.1), .int64(after.2), .int64(after.3), .int(limit)], format: .binary)
            } else {
                result = try c.queryPrepared("""
                    SELECT cell, device_key, ts, seq, lon, lat FROM fixes
                    WHERE cell BETWEEN $1 AND $2 AND ts BETWEEN $3 AND $4 ORDER BY cell, device_key, ts, seq LIMIT $5
                    """, [.int64(range.lowerBound), .int64(range.upperBound), .int64(from), .int64(to), .int(limit)],
                    format: .binary)
            }
            for row in result.rows {
                let entry = IndexEntry(cell: try row.int64(0), deviceKey: DeviceKey(storeValue: try row.int64(1)), timestamp: try row.int64(2),
                                       sequence: try row.int64(3), longitude: try row.double(4), latitude: try row.double(5))
                if try !body(entry) { return false }
                after = (entry.cell, entry.deviceKey.storeValue, entry.timestamp, entry.sequence)
            }
            if result.rowCount < limit { return true }
            limit = min(limit * 2, Self.pageSize)
        }
    }

    /// Each call is a round trip to the database, which costs more than reading a few entries.
    var prefersBatchedProbes: Bool { true }

    /// One statement for all `ranges`: a lateral index scan of each, limited to `count` rows.
    func leadingEntries(of ranges: [ClosedRange<Int64>], from: Int64?, to: Int64?, count: Int) throws -> [[IndexEntry]] {
        guard !ranges.isEmpty else { return [] }
        let result = try c.queryPrepared("""
            SELECT r.i, f.cell, f.device_key, f.ts, f.seq, f.lon, f.lat
            FROM unnest($1::bigint[], $2::bigint[]) WITH ORDINALITY AS r(lo, hi, i)
            CROSS JOIN LATERAL (
                SELECT cell, device_key, ts, seq, lon, lat FROM fixes
                WHERE cell BETWEEN r.lo AND r.hi AND ts BETWEEN $3 AND $4 ORDER BY cell, device_key, ts, seq LIMIT $5
            ) f
            """, [.int64Array(ranges.map(\.lowerBound)), .int64Array(ranges.map(\.upperBound)),
                  .int64(from ?? Int64.min), .int64(to ?? Int64.max), .int(count)], format: .binary)
        var entries = [[IndexEntry]](repeating: [], count: ranges.count)
        for row in result.rows {
            // The range's position in `ranges`, counted from 1 (WITH ORDINALITY).
            let ordinal = try row.int64(0)
            guard ordinal >= 1, ordinal <= Int64(entries.count) else { continue }
            entries[Int(ordinal) - 1].append(IndexEntry(cell: try row.int64(1), deviceKey: DeviceKey(storeValue: try row.int64(2)),
                                                 timestamp: try row.int64(3), sequence: try row.int64(4),
                                                 longitude: try row.double(5), latitude: try row.double(6)))
        }
        return entries
    }

    func hasEntries(in range: ClosedRange<Int64>, from: Int64?, to: Int64?) throws -> Bool {
        try c.queryPrepared("SELECT 1 FROM fixes WHERE cell BETWEEN $1 AND $2 AND ts BETWEEN $3 AND $4 LIMIT 1",
                            [.int64(range.lowerBound), .int64(range.upperBound), .int64(from ?? Int64.min), .int64(to ?? Int64.max)])
            .rowCount > 0
    }
}
