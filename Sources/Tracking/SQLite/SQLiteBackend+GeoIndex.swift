import Storage

extension SQLiteBackend: GeoIndex {
    public func sharedDevices(groupID: String) throws -> [SharedDevice] {
        try read { db in
            try db.rows("""
                SELECT d.key, d.id, m.user_id, d.last_lon, d.last_lat, d.last_ts FROM memberships m
                JOIN devices d ON d.id = m.device_id WHERE m.group_id = ? AND m.share_location = 1
                """, [.text(groupID)]) { row in
                SharedDevice(key: row.int64(0), deviceID: row.string(1), userID: row.string(2),
                             last: row.isNull(5) ? nil : LastLocation(longitude: row.double(3), latitude: row.double(4), timestamp: row.int64(5)))
            }
        }
    }

    public func withReader<T>(_ body: (any GeoIndexReader) throws -> T) throws -> T {
        try read { try body(SQLiteGeoIndexReader(db: $0)) }
    }
}

/// Cell-index reads on one connection inside its read transaction.
struct SQLiteGeoIndexReader: GeoIndexReader {
    let db: Database

    func scan(_ range: ClosedRange<Int64>, from: Int64?, to: Int64?, _ body: (IndexEntry) throws -> Bool) throws -> Bool {
        let statement = try db.prepare("""
            SELECT cell, device_key, ts, seq, lon, lat FROM fixes WHERE cell BETWEEN ? AND ? AND ts BETWEEN ? AND ?
            """)
        defer { statement.reset() }
        try statement.bind([.integer(range.lowerBound), .integer(range.upperBound), .integer(from ?? Int64.min), .integer(to ?? Int64.max)])
        while try statement.step() {
            let entry = IndexEntry(cell: statement.int64(0), deviceKey: statement.int64(1), timestamp: statement.int64(2),
                                   sequence: statement.int64(3), longitude: statement.double(4), latitude: statement.double(5))
            if try !body(entry) { return false }
        }
        return true
    }

    func hasEntries(in range: ClosedRange<Int64>, from: Int64?, to: Int64?) throws -> Bool {
        let statement = try db.prepare("SELECT 1 FROM fixes WHERE cell BETWEEN ? AND ? AND ts BETWEEN ? AND ? LIMIT 1")
        defer { statement.reset() }
        try statement.bind([.integer(range.lowerBound), .integer(range.upperBound), .integer(from ?? Int64.min), .integer(to ?? Int64.max)])
        return try statement.step()
    }
}
