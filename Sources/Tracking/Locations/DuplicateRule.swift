import LocationFormats

/// API.md's duplicate rule, the one statement of it every store follows:
///
/// A fix with a client `id` the device already sent (stored before, or earlier in this batch)
/// is a duplicate; a fix without `id` whose timestamp equals that of a fix the device already
/// sent (or of an earlier kept fix of this batch) is a duplicate. Duplicates are counted, not
/// stored. Decided in submission order.
public enum DuplicateRule {
    /// The positions in `fixes` to store, in submission order.
    /// - Parameters:
    ///   - storedID: whether the device already has a fix with this client id (called once per
    ///     id not seen earlier in the batch, with the fix's position).
    ///   - storedTimestamp: whether the device already has a fix with this timestamp (called only
    ///     for fixes without an id whose timestamp is not among the batch's kept ones).
    public static func survivors(of fixes: [Fix], storedID: (Int, String) throws -> Bool,
                                 storedTimestamp: (Int64) throws -> Bool) rethrows -> [Int] {
        var keptIDs: Set<String> = []
        var keptTimestamps: Set<Int64>?   // built only if a fix without id needs it
        var survivors: [Int] = []
        survivors.reserveCapacity(fixes.count)
        for (index, fix) in fixes.enumerated() {
            let duplicate: Bool
            if let id = fix.clientID {
                duplicate = try keptIDs.contains(id) || storedID(index, id)
                if !duplicate { keptIDs.insert(id) }
            } else {
                if keptTimestamps == nil { keptTimestamps = Set(survivors.map { fixes[$0].timestamp }) }
                duplicate = try keptTimestamps?.contains(fix.timestamp) == true || storedTimestamp(fix.timestamp)
            }
            if !duplicate {
                keptTimestamps?.insert(fix.timestamp)
                survivors.append(index)
            }
        }
        return survivors
    }
}
