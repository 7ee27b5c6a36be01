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

/// The coverings of the costly regions (polygons, see
/// ``GeoQuery/GeoFilter/coveringFingerprint``) queried last, so that a region asked again — a
/// geofence polled by an app, a dashboard's country — skips the covering and its cell tests
/// (~0.15 ms for a 44-vertex country, a fifth of its engine time at 1M fixes).
///
/// A covering depends on the region alone, never on stored data. Entries are kept per scope —
/// a random nonce of each group's ``SharingDevices``, renewed whenever memberships or sharing
/// change — so the time a query takes shows no one outside the group which regions it asks
/// about. Keys are BLAKE2b digests of scope and fingerprint, so a polygon of many vertices
/// costs 32 bytes of key. At most ``capacity`` entries in all, the least recently used leaving
/// first; an entry holds at most the most cells a covering takes with their ranges (~7 KB at
/// 192 cells, ``GeoQueryService/Tuning/maxCells(radius:edges:)``), so the cache stays under
/// ~2 MB whatever clients send.
final class CoveringCache: Sendable {
    /// Coverings kept in all.
    static let capacity = 256

    private struct Entry {
        let covering: PreparedCovering
        /// `State.clock` at the entry's last use.
        var used: UInt64
    }

    private struct State {
        var entries: [[UInt8]: Entry] = [:]
        var clock: UInt64 = 0
    }

    private let state = Mutex(State())

    /// The covering of `filter`'s region within `scope`: the cached one when the same region
    /// was prepared there before, else `prepare`'s (kept when the filter has a fingerprint).
    func covering(of filter: GeoFilter, scope: [UInt8], prepare: () -> PreparedCovering) -> PreparedCovering {
        guard let fingerprint = filter.coveringFingerprint else { return prepare() }
        let key = Secrets.digest(scope + fingerprint)
        let cached: PreparedCovering? = state.withLock { state in
            guard var entry = state.entries[key] else { return nil }
            state.clock += 1
            entry.used = state.clock
            state.entries[key] = entry
            return entry.covering
        }
        if let cached { return cached }
        let prepared = prepare()
        state.withLock { state in
            state.clock += 1
            if state.entries[key] == nil, state.entries.count >= Self.capacity,
               let oldest = state.entries.min(by: { $0.value.used < $1.value.used })?.key {
                state.entries[oldest] = nil
            }
            state.entries[key] = Entry(covering: prepared, used: state.clock)
        }
        return prepared
    }

    /// Entries kept (for tests).
    var count: Int { state.withLock { $0.entries.count } }
}
