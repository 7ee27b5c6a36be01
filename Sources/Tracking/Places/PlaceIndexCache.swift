import Synchronization

/// A group's places as arrivals read them, at one version of them: each place (id, name, parsed
/// shape) and the place index's cells, in memory, so an append's candidate lookups are binary
/// searches instead of a read per run of fixes.
///
/// Invariant: everything here was read in one transaction together with `version`, the store's
/// counter of changes to the group's places (bumped inside every transaction that changes them).
/// An entry whose version equals the stored one is therefore exactly the stored state.
public struct GroupPlaces: Sendable {
    public let version: Int64
    /// Place key → place; a place whose stored geometry does not parse is left out.
    public let places: [Int64: CachedPlace]
    /// The index cells (signed cell ids) of the places above, ascending; `owners[i]` is the key
    /// of the place whose covering has `cells[i]`.
    private let cells: [Int64]
    private let owners: [Int64]

    public init(version: Int64, places: [Int64: CachedPlace], cells entries: [(cell: Int64, placeKey: Int64)]) {
        self.version = version
        self.places = places
        let sorted = entries.filter { places[$0.placeKey] != nil }.sorted { ($0.cell, $0.placeKey) < ($1.cell, $1.placeKey) }
        cells = sorted.map(\.cell)
        owners = sorted.map(\.placeKey)
        weight = max(1, places.count + sorted.count + places.values.reduce(0) { $0 + $1.shape.region.vertexCount })
    }

    /// What this holds, in points (a place, a vertex of its polygon, an index cell; each ~50–100
    /// bytes in memory): the cache's budget.
    public let weight: Int

    /// Keys of the places with an index cell among `probes`, or (when `range` is set) an index
    /// cell in `range`: what the store's place-index read answers.
    public func keys(cells probes: [Int64], range: ClosedRange<Int64>?) -> Set<Int64> {
        var keys = Set<Int64>()
        for probe in probes {
            var i = firstIndex(notBelow: probe)
            while i < cells.count, cells[i] == probe {
                keys.insert(owners[i])
                i += 1
            }
        }
        if let range {
            var i = firstIndex(notBelow: range.lowerBound)
            while i < cells.count, cells[i] <= range.upperBound {
                keys.insert(owners[i])
                i += 1
            }
        }
        return keys
    }

    /// The places `keys(cells:range:)` finds and those `including` names (when they are
    /// among these places): what a ledger's `places(groupID:cells:range:including:)` returns.
    public func places(cells probes: [Int64], range: ClosedRange<Int64>?, including: Set<Int64>) -> [Int64: CachedPlace] {
        var found: [Int64: CachedPlace] = [:]
        for key in keys(cells: probes, range: range).union(including) { found[key] = places[key] }
        return found
    }

    /// The first position whose cell is ≥ `cell` (`cells.count` when none is).
    private func firstIndex(notBelow cell: Int64) -> Int {
        var low = 0, high = cells.count
        while low < high {
            let middle = low + (high - low) / 2
            if cells[middle] < cell { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// The groups' places in memory, by group, each at the version it was read at (`GroupPlaces`).
/// Shared by every append of a store; a stale entry is never used because its version no longer
/// matches. Bounded: cleared when it would hold more than `capacity` points (`GroupPlaces.weight`;
/// an entry of a group without places counts as one).
public final class PlaceIndexCache: Sendable {
    private struct State {
        var groups: [GroupID: GroupPlaces] = [:]
        var held = 0
    }
    private let state = Mutex(State())
    public let capacity: Int

    public init(capacity: Int = 1_000_000) { self.capacity = capacity }

    /// The group's places if they are held at `version`.
    public func places(groupID: GroupID, version: Int64) -> GroupPlaces? {
        state.withLock { state in state.groups[groupID].flatMap { $0.version == version ? $0 : nil } }
    }

    /// Keeps copies read by a transaction that has committed, or by a read-only one (each
    /// replaces an older version of its group). Never a copy from a transaction that may still
    /// roll back: its version number could come again with other places in a later commit.
    public func keep(_ loaded: LoadedPlaces) {
        state.withLock { state in
            for (groupID, places) in loaded {
                if let old = state.groups[groupID] {
                    guard old.version < places.version else { continue }
                    state.held -= old.weight
                }
                if state.held + places.weight > capacity {
                    state.groups.removeAll(keepingCapacity: true)
                    state.held = 0
                }
                state.groups[groupID] = places
                state.held += places.weight
            }
        }
    }
}

/// Copies of groups' places a transaction read from its store (`TransactionPlaces.loaded`).
public typealias LoadedPlaces = [(groupID: GroupID, places: GroupPlaces)]

/// The groups' places one transaction of an append uses: each group's read once (it sees no
/// other writer's changes meanwhile), from the cache when it holds the version the transaction
/// read, else loaded by the store. Not shared between transactions.
public final class TransactionPlaces {
    private var groups: [GroupID: GroupPlaces] = [:]
    private let cache: PlaceIndexCache
    /// The copies loaded from the store, for the cache once the transaction has committed.
    public private(set) var loaded: LoadedPlaces = []

    public init(cache: PlaceIndexCache) { self.cache = cache }

    /// The group's places at the version `version` reads (0: it never had a place, so none);
    /// `load` reads them (given that version; a store may read it again in the same snapshot)
    /// when the cache does not hold it. Both run at most once per group and transaction.
    public func places(groupID: GroupID, version: () throws -> Int64, load: (Int64) throws -> GroupPlaces) rethrows -> GroupPlaces {
        if let known = groups[groupID] { return known }
        let version = try version()
        let current: GroupPlaces
        if version == 0 {
            current = GroupPlaces(version: 0, places: [:], cells: [])
        } else if let cached = cache.places(groupID: groupID, version: version) {
            current = cached
        } else {
            current = try load(version)
            loaded.append((groupID, current))
        }
        groups[groupID] = current
        return current
    }

    /// The place with `key` among the groups read so far.
    public func place(key: Int64) -> CachedPlace? {
        for group in groups.values { if let place = group.places[key] { return place } }
        return nil
    }
}
