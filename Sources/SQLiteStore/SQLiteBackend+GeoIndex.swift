import SQLCore
import Storage
import Tracking

extension SQLiteBackend: GeoIndex {
    /// From `visibility`, checked against the version of the visibility tables on every call.
    public func sharingDevices(groupID: GroupID) throws -> SharingDevices {
        try read { db in
            try visibility.devices(groupID: groupID, in: db) { try DirectoryTables.sharedDevices(groupID: groupID, on: SQLiteExecutor(db: $0)) }
        }
    }

    /// A reader over `cell_index` in one snapshot plus the unmerged fixes that snapshot does not
    /// have in `cell_index` (those its `MergePoint` does not cover). If a merge committed after
    /// the snapshot began and the mirror already dropped what it merged, the snapshot is taken
    /// again, in a transaction of its own (merge commits are few and short; this loop ends). A
    /// request's joined transaction (`readingTogether`) is not retried: its snapshot, begun
    /// before the merge, would never see it.
    public func withReader<T>(_ body: (any GeoIndexReader) throws -> T) throws -> T {
        var ownSnapshot = false
        while true {
            let attempt = { (db: Database) throws -> T? in
                let point = try MergePoint.read(from: db)
                self.readerTestHook.withLock { hook in defer { hook = nil }; return hook }?()
                let pending = self.unmerged.snapshot()
                guard pending.progress <= point.progress else { return nil }
                return try body(SQLiteGeoIndexReader(db: db, pending: pending, point: point, statements: ScanStatements(db)))
            }
            if let result = try ownSnapshot ? readAlone(attempt) : read(attempt) { return result }
            ownSnapshot = true
        }
    }
}

/// Cell-index reads on one connection inside its read transaction, plus the fixes not merged
/// as of that transaction (those `point` does not cover).
struct SQLiteGeoIndexReader: GeoIndexReader {
    let db: Database
    let pending: UnmergedFixes.Snapshot
    let point: MergePoint
    /// The scans' statements, prepared once for all the scans of a query (scans never nest).
    let statements: ScanStatements

    func scan(_ range: ClosedRange<Int64>, from: Int64?, to: Int64?, _ body: (IndexEntry) throws -> Bool) throws -> Bool {
        let from = from ?? Int64.min, to = to ?? Int64.max
        guard try scanMerged(range, from: from, to: to, body) else { return false }
        return try pending.scan(range, from: from, to: to, point: point, body)
    }

    /// `cell_index` rows without their sequence column (0 in the entries); unmerged fixes keep
    /// theirs.
    func scanPositions(_ range: ClosedRange<Int64>, from: Int64?, to: Int64?, _ body: (IndexEntry) throws -> Bool) throws -> Bool {
        let from = from ?? Int64.min, to = to ?? Int64.max
        guard try scanMerged(range, from: from, to: to, sequences: false, body) else { return false }
        return try pending.scan(range, from: from, to: to, point: point, body)
    }

    /// `cell_index` yields keys in order, so its scan stops at the first entry taken; the
    /// unmerged fixes (runs, each in order) are searched below that key.
    func firstCell(in range: ClosedRange<Int64>, from: Int64?, to: Int64?, where accept: (IndexEntry) throws -> Bool) throws -> Int64? {
        let from = from ?? Int64.min, to = to ?? Int64.max
        var least: Int64?
        _ = try scanMerged(range, from: from, to: to) { entry in
            if try accept(entry) { least = entry.cell }
            return least == nil
        }
        _ = try pending.scan(range.lowerBound...(least ?? range.upperBound), from: from, to: to, point: point) { entry in
            if entry.cell < least ?? .max, try accept(entry) { least = entry.cell }
            return true
        }
        return least
    }

    /// The entries of `range` and [from, to] in `cell_index`, in key order.
    private func scanMerged(_ range: ClosedRange<Int64>, from: Int64, to: Int64, sequences: Bool = true,
                            _ body: (IndexEntry) throws -> Bool) throws -> Bool {
        let allTimes = from == .min && to == .max
        let statement = try statements.statement(allTimes: allTimes, sequences: sequences)
        defer { statement.reset() }
        try statement.bind(range.lowerBound, at: 1)
        try statement.bind(range.upperBound, at: 2)
        if !allTimes {
            try statement.bind(from, at: 3)
            try statement.bind(to, at: 4)
        }
        while try statement.step() {
            let entry = IndexEntry(cell: statement.int64(0), deviceKey: DeviceKey(storeValue: statement.int64(1)), timestamp: statement.int64(2),
                                   sequence: statement.int64(3), longitude: statement.double(4), latitude: statement.double(5))
            if try !body(entry) { return false }
        }
        return true
    }

    func hasEntries(in range: ClosedRange<Int64>, from: Int64?, to: Int64?) throws -> Bool {
        let from = from ?? Int64.min, to = to ?? Int64.max
        if pending.hasEntries(in: range, from: from, to: to, point: point) { return true }
        let statement = try db.prepare("SELECT 1 FROM cell_index WHERE cell BETWEEN ? AND ? AND ts BETWEEN ? AND ? LIMIT 1")
        defer { statement.reset() }
        try statement.bind([.integer(range.lowerBound), .integer(range.upperBound), .integer(from), .integer(to)])
        return try statement.step()
    }
}

/// The four scans of `cell_index` a geo reader runs — with or without the time test (scans of
/// all times, most queries, skip it) and with or without the sequence column (searches that
/// do not need it leave it unread) — each prepared on the reader's connection when first used
/// by a query (the connection's statement cache keeps them between queries; a lookup there
/// hashes the SQL, so a query looks up only what it uses, once).
final class ScanStatements {
    private let db: Database
    private var prepared: [Statement?] = [nil, nil, nil, nil]

    init(_ db: Database) {
        self.db = db
    }

    /// Columns: cell, device_key, ts, seq (0 without sequences), lon, lat; parameters: the cell
    /// range, then (unless all times) the time range. Indexed by `index(allTimes:sequences:)`.
    static let sql: [String] = [(false, true), (true, true), (false, false), (true, false)].map { allTimes, sequences in
        "SELECT cell, device_key, ts, \(sequences ? "seq" : "0"), lon, lat FROM cell_index WHERE cell BETWEEN ? AND ?"
            + (allTimes ? "" : " AND ts BETWEEN ? AND ?")
    }

    private static func index(allTimes: Bool, sequences: Bool) -> Int {
        (allTimes ? 1 : 0) + (sequences ? 0 : 2)
    }

    func statement(allTimes: Bool, sequences: Bool) throws -> Statement {
        let index = Self.index(allTimes: allTimes, sequences: sequences)
        if let statement = prepared[index] { return statement }
        let statement = try db.prepare(Self.sql[index])
        prepared[index] = statement
        return statement
    }
}
