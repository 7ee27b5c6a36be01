/// Reads the cell index inside one snapshot.
///
/// Valid only inside the `GeoIndex.withReader` call that gave it, on that thread. Cell keys are
/// signed 64-bit leaf-cell keys, times milliseconds since 1970; storage faults throw
/// `StoreFailure`.
///
/// Implemented by `SQLiteGeoIndexReader` (SQLiteStore) and `PostgresGeoIndexReader` (PostgresStore).
public protocol GeoIndexReader {
    /// Calls `body` for each entry whose signed cell key is in `range` and time in [from, to]
    /// (each entry once; order unspecified); returns false if `body` stopped the scan.
    func scan(_ range: ClosedRange<Int64>, from: Int64?, to: Int64?, _ body: (IndexEntry) throws -> Bool) throws -> Bool
    /// `scan` for searches that do not need the entries' `sequence` (it may be 0): a reader may
    /// then leave that column unread.
    func scanPositions(_ range: ClosedRange<Int64>, from: Int64?, to: Int64?, _ body: (IndexEntry) throws -> Bool) throws -> Bool
    /// `scan` of each of `ranges` in turn (each range's entries before the next range's);
    /// returns false if `body` stopped. Readers that prefer batched probes read the first
    /// entries of every range in one call.
    func scan(ranges: [ClosedRange<Int64>], from: Int64?, to: Int64?, _ body: (IndexEntry) throws -> Bool) throws -> Bool
    /// Whether any entry lies in `range` (and [from, to]): one B-tree probe.
    func hasEntries(in range: ClosedRange<Int64>, from: Int64?, to: Int64?) throws -> Bool
    /// The least cell key among the entries of `range` (and [from, to]) that `accept` takes;
    /// nil if it takes none. `accept` may also see entries past that one (it must not depend
    /// on which); a reader whose scan yields keys in order stops at the first one taken.
    func firstCell(in range: ClosedRange<Int64>, from: Int64?, to: Int64?, where accept: (IndexEntry) throws -> Bool) throws -> Int64?
    /// True when a reader pays per call rather than per entry (a database across a network
    /// round trip): searches then ask `leadingEntries` for several ranges at once instead of
    /// probing them one at a time when they reach them.
    var prefersBatchedProbes: Bool { get }
    /// Up to `count` entries of each of `ranges` with a time in [from, to], in the order of
    /// `ranges`; fewer than `count` for a range means it holds no more.
    func leadingEntries(of ranges: [ClosedRange<Int64>], from: Int64?, to: Int64?, count: Int) throws -> [[IndexEntry]]
}

extension GeoIndexReader {
    public var prefersBatchedProbes: Bool { false }

    /// By `scan` (entries with their sequences).
    public func scanPositions(_ range: ClosedRange<Int64>, from: Int64?, to: Int64?, _ body: (IndexEntry) throws -> Bool) throws -> Bool {
        try scan(range, from: from, to: to, body)
    }

    /// By a scan of the whole range (`scan` promises no order).
    public func firstCell(in range: ClosedRange<Int64>, from: Int64?, to: Int64?,
                          where accept: (IndexEntry) throws -> Bool) throws -> Int64? {
        var least: Int64?
        _ = try scan(range, from: from, to: to) { entry in
            if entry.cell < least ?? .max, try accept(entry) { least = entry.cell }
            return true
        }
        return least
    }

    public func scan(ranges: [ClosedRange<Int64>], from: Int64?, to: Int64?, _ body: (IndexEntry) throws -> Bool) throws -> Bool {
        for range in ranges where try !scan(range, from: from, to: to, body) { return false }
        return true
    }

    public func leadingEntries(of ranges: [ClosedRange<Int64>], from: Int64?, to: Int64?, count: Int) throws -> [[IndexEntry]] {
        try ranges.map { range in
            var entries: [IndexEntry] = []
            _ = try scan(range, from: from, to: to) { entry in
                entries.append(entry)
                return entries.count < count
            }
            return entries
        }
    }
}
