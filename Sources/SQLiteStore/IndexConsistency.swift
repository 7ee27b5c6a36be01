import Tracking
import Storage

/// `fod db check`'s look at the two-stage location storage: every fix the stored `MergePoint`
/// covers must be in `cell_index`, every other one queued, and `cell_index` must hold nothing
/// that is not in history (a deleted fix still indexed would leak through geo queries).
public struct IndexConsistency: Sendable, Equatable {
    /// Fixes in `locations`.
    public var history = 0
    /// Rows of `cell_index`.
    public var indexed = 0
    /// Stored fixes waiting in `index_queue`.
    public var queued = 0
    /// `cell_index` rows with no matching history row.
    public var orphans = 0
    /// Stored fixes neither in `cell_index` (though merged) nor queued.
    public var missing = 0

    public var isConsistent: Bool { orphans == 0 && missing == 0 }

    /// Scans the whole database (on any connection; one read transaction is best).
    public static func check(_ db: Database) throws -> IndexConsistency {
        var result = IndexConsistency()
        let point = try MergePoint.read(from: db)
        result.history = try db.firstRow("SELECT count(*) FROM locations", []) { $0.int(0) } ?? 0
        result.indexed = try db.firstRow("SELECT count(*) FROM cell_index", []) { $0.int(0) } ?? 0
        result.orphans = try db.firstRow("""
            SELECT count(*) FROM cell_index c WHERE NOT EXISTS (SELECT 1 FROM locations l
              WHERE l.device_key = c.device_key AND l.ts = c.ts AND l.seq = c.seq AND l.cell = c.cell)
            """, []) { $0.int(0) } ?? 0
        // Queued fixes that are still stored and not covered by the merge point.
        var queuedKeys = Set<Int64>()
        try IndexMerger.forEachStoredFix(of: IndexMerger.queuedRecords(upTo: .max, in: db), in: db) { entry, _ in
            if !point.covers(entry) { queuedKeys.insert(entry.sequence) }
        }
        result.queued = queuedKeys.count
        try db.forEachRow("""
            SELECT l.seq, l.cell, EXISTS (SELECT 1 FROM cell_index c
              WHERE c.cell = l.cell AND c.device_key = l.device_key AND c.ts = l.ts AND c.seq = l.seq)
            FROM locations l
            """) { row in
            let sequence = row.int64(0), indexed = row.bool(2)
            let covered = point.covers(sequence: sequence, cell: row.int64(1))
            if covered ? !indexed : !(indexed || queuedKeys.contains(sequence)) { result.missing += 1 }
        }
        return result
    }
}
