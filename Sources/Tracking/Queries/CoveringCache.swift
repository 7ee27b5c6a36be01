import Crypto
import GeoKit
import GeoQuery
import Synchronization

/// A region's covering, ready for scans: its cells, their key ranges, and the ranges of the cells
/// the filter matches entirely (whose entries skip the exact test).
struct PreparedCovering: Sendable {
    let cells: [CellID]
    /// Sorted, disjoint signed-key ranges of `cells`.
    let ranges: [ClosedRange<Int64>]
    /// Sorted, disjoint signed-key ranges of the cells of `cells` the filter matches entirely.
    let interior: [ClosedRange<Int64>]

    init(cells: [CellID], filter: GeoFilter) {
        self.cells = cells
        ranges = RegionCoverer.ranges(of: cells)
        interior = RegionCoverer.ranges(of: cells.filter { id in Cell(id).map(filter.matchesEntirely) ?? false })
    }
}

/// The coverings of the last few costly regions (polygons, see
/// ``GeoQuery/GeoFilter/coveringFingerprint``) one group queried, so that a region asked again —
/// a geofence polled by an app, a dashboard's country — skips the covering and its cell tests
/// (~0.15 ms for a 44-vertex country, a fifth of its engine time at 1M fixes).
///
/// A covering depends on the region alone, never on stored data. The cache lives with the
/// group's ``SharingDevices`` (and goes with them when memberships or sharing change), so the
/// time a query takes shows no one outside the group which regions it asks about. Entries are
/// keyed by a BLAKE2b digest of the fingerprint, so a polygon of many vertices costs 32 bytes
/// of key; at most ``capacity`` entries, most recently used first. An entry holds at most the
/// widest tier's 48 cells with their ranges (~2 KB), so even every group the visibility cache
/// keeps (``SharingDevicesCache/capacity``) with a full cache stays under ~70 MB.
final class CoveringCache: Sendable {
    /// Coverings kept per group (the report's five countries and a few geofences fit).
    static let capacity = 8

    private let entries = Mutex<[(key: [UInt8], covering: PreparedCovering)]>([])

    /// The covering of `filter`'s region: the cached one when the same region was prepared
    /// before, else `prepare`'s (kept when the filter has a fingerprint).
    func covering(of filter: GeoFilter, prepare: () -> PreparedCovering) -> PreparedCovering {
        guard let fingerprint = filter.coveringFingerprint else { return prepare() }
        let key = Secrets.digest(fingerprint)
        let cached: PreparedCovering? = entries.withLock { list in
            guard let position = list.firstIndex(where: { $0.key == key }) else { return nil }
            let entry = list.remove(at: position)
            list.insert(entry, at: 0)
            return entry.covering
        }
        if let cached { return cached }
        let prepared = prepare()
        entries.withLock { list in
            list.removeAll { $0.key == key }
            list.insert((key, prepared), at: 0)
            if list.count > Self.capacity { list.removeLast(list.count - Self.capacity) }
        }
        return prepared
    }
}
