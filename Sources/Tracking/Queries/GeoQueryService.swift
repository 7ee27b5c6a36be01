import GeoKit
import GeoQuery
import Timestamps

/// Answers MongoDB-style geo queries over a group's shared positions with the cell index.
///
/// Privacy: candidates are only the devices of members who share with the group, only inside
/// the device's sharing periods there (history scope), and only if the caller is a member.
/// Every decision the search makes — which cells it refines, scans or skips, when it stops —
/// and every count in `explain` depends on those readable positions alone, never on other
/// groups' data: the same query gives the same answer and the same explain whatever else the
/// index holds (only the time taken differs).
///
/// History scans: region → covering (GeoKit `RegionCoverer`) → signed-key ranges → B-tree range
/// scans of the cell index (and the not yet merged fixes) → device and time filter → exact
/// geometry. `$near` is a best-first search over the cell hierarchy (see `nearHistory`).
///
/// Work is bounded (`Limits`): a query that examines too many readable positions, or runs too
/// long, is refused with `query_too_broad` (400).
public final class GeoQueryService: Sendable {
    /// Tuning of coverings and scans; the defaults are MongoDB's levels with few cells (each
    /// cell is a B-tree seek; covering time grows with the cell count).
    public struct Tuning: Sendable {
        public var coverer = GeoQueryService.defaultCoverer
        /// Cells in the covering of a region by the radius of its bounding cap (tiers in
        /// increasing radius; each applies from its radius up): the rows a coarse covering reads
        /// outside the region grow with the region's area, while a cell costs the covering and
        /// the scan a few microseconds whatever the region, so wider regions take more, finer
        /// cells (and the cells they contain entirely skip the exact test). Decided by the region
        /// alone. Never fewer than `coverer.maxCells`. Measured on people-like data
        /// (Benchmarks/report, fod-engine-bench): 8 cells are best up to ~15 km; past it, since
        /// scans of all times skip the time test and dense cells are classified once
        /// (`ContainmentShortcut`), twice the cells of the first tuning (16, 32, 48) read fewer
        /// rows outside the region for less than they cost: ~10,000-hit radii −1 to −8% p50,
        /// country polygons (whose coverings are cached, `CoveringCache`) −3 to −8% p50 and
        /// −20% p90, and 128 cells past ~150 km another −3 to −6% (p90 −15%).
        public var regionTiers: [(minRadians: Double, maxCells: Int)] = [
            (15_000 / 6_378_100.0, 32), (25_000 / 6_378_100.0, 64), (50_000 / 6_378_100.0, 96), (150_000 / 6_378_100.0, 128),
        ]
        /// Polygons of at most `maxEdges` edges reaching the widest tier take `maxCells` cells:
        /// for ~44-edge countries 192 cells are another −2 to −4% p50 over 128, and the
        /// covering of so few edges costs little.
        public var fewEdgesWide: (maxEdges: Int, maxCells: Int) = (1_000, 192)
        /// Polygons of more than `minEdges` edges take at most `maxCells` cells (never fewer than
        /// `coverer.maxCells`): a covering costs about cells × edges, and the largest polygon
        /// accepted (100,000 positions; the 99,000-vertex zig-zag: 326 ms to cover with 48 cells,
        /// 702 ms with 128 in a debug build) stays where the first tuning had it.
        public var manyEdges: (minEdges: Int, maxCells: Int) = (10_000, 48)
        /// Level at which `$near` starts scanning (nil: chosen by `limit`, see `nearScanLevel`).
        public var nearScanLevel: Int?
        public init() {}

        /// Cells for the covering of a region whose bounding cap has `radius` (radians) and,
        /// for polygons, `edges` edges: the widest of ``regionTiers`` it reaches, adjusted by
        /// ``fewEdgesWide`` and ``manyEdges``; never fewer than `coverer.maxCells`.
        public func maxCells(radius: Double, edges: Int?) -> Int {
            var cells = coverer.maxCells
            for tier in regionTiers where radius >= tier.minRadians {
                cells = max(cells, tier.maxCells)
            }
            guard let edges else { return cells }
            let widest = regionTiers.last.map { radius >= $0.minRadians } ?? false
            if widest && edges <= fewEdgesWide.maxEdges { cells = max(cells, fewEdgesWide.maxCells) }
            if edges > manyEdges.minEdges { cells = max(coverer.maxCells, min(cells, manyEdges.maxCells)) }
            return cells
        }
    }

    /// What one query may cost.
    public struct Limits: Sendable {
        /// Readable positions a history query may examine before it is refused.
        public var maxKeysExamined = 5_000_000
        /// Wall-clock time a query may take before it is refused (ms).
        public var maxMilliseconds: Int64 = 10_000
        public init() {}
    }

    public static let defaultCoverer = RegionCoverer(minLevel: 2, maxLevel: 16, levelMod: 1, maxCells: 8)
    /// First `$near` annulus radius (meters) when no `$minDistance` gives a better start.
    public static let firstAnnulusMeters = 250.0

    let index: any GeoIndex
    let directory: any DirectoryStore
    public let tuning: Tuning
    public let limits: Limits
    /// Polygon coverings kept between queries, per group.
    let coverings = CoveringCache()
    public var coverer: RegionCoverer { tuning.coverer }

    /// The coverer for a history scan of `region`: ``Tuning/coverer`` with
    /// ``Tuning/maxCells(radius:edges:)`` cells.
    func coverer(for region: some Region) -> RegionCoverer {
        var chosen = tuning.coverer
        let edges: Int? = switch region {
        case let polygon as Polygon: polygon.edgeCount
        case let multi as MultiPolygon: multi.edgeCount
        default: nil
        }
        chosen.maxCells = tuning.maxCells(radius: region.capBound.radius.radians, edges: edges)
        return chosen
    }

    public init(index: any GeoIndex, directory: any DirectoryStore, tuning: Tuning = Tuning(), limits: Limits = Limits()) {
        self.index = index
        self.directory = directory
        self.tuning = tuning
        self.limits = limits
    }

    /// The positions of the group's shared devices that match `request`, and how they were
    /// found; 404 for a caller who may not read the group. With a `budget`, the history scans
    /// stop with `WorkBudget.Exceeded` once they would read more index rows and seeks than it
    /// allows (the answer so far is dropped; run the query again without one).
    public func query(groupID: GroupID, credential: Credential, _ request: GeoQueryRequest,
                      budget: WorkBudget? = nil) throws -> ([GeoQueryResult], QueryExplain) {
        try PartitionRules(facts: directory).requireRead(credential, .group(groupID), hiddenAs: "group")
        guard (1...GeoQueryRequest.maxLimit).contains(request.limit) else {
            throw TrackingError.invalid("limit must be 1 to \(GeoQueryRequest.maxLimit)", code: .invalidLimit)
        }
        var run = QueryRun(limits: limits, budget: budget)
        let results: [GeoQueryResult]
        switch request.scope {
        case .latest:
            results = Self.latest(try index.sharedDevices(groupID: groupID), request, &run.explain)
        case .history(let from, let to):
            if let from, let to, from > to { throw TrackingError.invalid("from must not be after to", code: .invalidRange) }
            // Only devices with visible history in [from, to] are candidates; with none left the
            // index is not searched at all.
            run.explain.scope = "history"
            results = try index.withReader(sharingDevicesOf: groupID) { sharing, reader in
                let readable = ReadableEntries(sharing, caller: credential.userID, from: from, to: to)
                guard !readable.isEmpty else { return [] }
                return try queryHistory(request.filter, readable: readable, from: from, to: to, limit: request.limit, reader: reader, &run)
            }
        }
        return (results, run.explain)
    }

    /// The history path on an already-known set of readable devices (by device key); each
    /// device's `windows` says which of its fixes count.
    public func queryHistory(_ filter: GeoFilter, readable: [DeviceKey: SharedDevice], from: Int64?, to: Int64?, limit: Int,
                             _ explain: inout QueryExplain) throws -> [GeoQueryResult] {
        var run = QueryRun(limits: limits)
        defer { explain = run.explain }
        return try queryHistory(filter, readable: readable, from: from, to: to, limit: limit, &run)
    }

    /// The history path as a member of the group reads it, on its sharing devices as the
    /// server caches them (`caller`'s own devices in full).
    public func queryHistory(_ filter: GeoFilter, sharing: SharingDevices, caller: UserID?, limit: Int,
                             _ explain: inout QueryExplain) throws -> [GeoQueryResult] {
        var run = QueryRun(limits: limits)
        defer { explain = run.explain }
        run.explain.scope = "history"
        let readable = ReadableEntries(sharing, caller: caller, from: nil, to: nil)
        guard !readable.isEmpty else { return [] }
        return try queryHistory(filter, readable: readable, from: nil, to: nil, limit: limit, &run)
    }

    func queryHistory(_ filter: GeoFilter, readable: [DeviceKey: SharedDevice], from: Int64?, to: Int64?, limit: Int,
                      _ run: inout QueryRun) throws -> [GeoQueryResult] {
        run.explain.scope = "history"
        guard !readable.isEmpty else { return [] }
        return try queryHistory(filter, readable: ReadableEntries(readable), from: from, to: to, limit: limit, &run)
    }

    func queryHistory(_ filter: GeoFilter, readable: ReadableEntries, from: Int64?, to: Int64?, limit: Int,
                      _ run: inout QueryRun) throws -> [GeoQueryResult] {
        try index.withReader { reader in
            try queryHistory(filter, readable: readable, from: from, to: to, limit: limit, reader: reader, &run)
        }
    }

    func queryHistory(_ filter: GeoFilter, readable: ReadableEntries, from: Int64?, to: Int64?, limit: Int,
                      reader: any GeoIndexReader, _ run: inout QueryRun) throws -> [GeoQueryResult] {
        if case .near(let near) = filter {
            return try nearHistory(near, readable: readable, from: from, to: to, limit: limit, reader: reader, &run)
        }
        return try withinHistory(filter, readable: readable, from: from, to: to, limit: limit, reader: reader, &run)
    }

    /// Latest positions: a group has at most a thousand members, so every shared device's
    /// latest position is tested exactly.
    static func latest(_ devices: [SharedDevice], _ request: GeoQueryRequest, _ explain: inout QueryExplain) -> [GeoQueryResult] {
        var results: [GeoQueryResult] = []
        for device in devices {
            guard let last = device.last else { continue }
            explain.keysExamined += 1
            explain.docsExamined += 1
            let point = last.position.latLng.toPoint()
            if case .near(let near) = request.filter {
                guard near.matches(point) else { continue }
                results.append(device.result(last.longitude, last.latitude, last.timestamp.millisecondsSince1970, distance: near.distance(to: point)))
            } else if request.filter.matches(longitude: last.longitude, latitude: last.latitude, point: point) {
                results.append(device.result(last.longitude, last.latitude, last.timestamp.millisecondsSince1970, distance: nil))
            }
        }
        if case .near = request.filter {
            results.sort { ($0.distance ?? 0, $0.deviceID) < ($1.distance ?? 0, $1.deviceID) }
        }
        return Array(results.prefix(request.limit))
    }

    /// The coarsest level `$near` scans at when data is sparse (cells ~300 km across).
    static let coarsestNearScanLevel = 5

    /// The level at which `$near` starts scanning: cells of about 5 km for small limits,
    /// coarser for large ones; the search goes finer by itself where readable data is dense, and
    /// coarser where it is sparse.
    func nearScanLevel(limit: Int) -> Int {
        if let level = tuning.nearScanLevel, (4...24).contains(level) { return level }
        return limit <= 100 ? 11 : (limit <= 1_000 ? 10 : 9)
    }
}

/// The readable devices of one query and the test an index entry must pass to count.
struct ReadableEntries {
    /// The devices, with each one's windows (clipped to the query's range if it has one).
    let table: ReadableDeviceTable
    /// Devices read in full whatever their windows: the caller's own (the owner of a device
    /// always reads all of its history). At most a few: one membership has one device.
    let own: [DeviceKey]
    /// False when no entry can pass (the index is then not searched).
    let isReadable: Bool
    /// The group's scope in the service's ``CoveringCache`` (nil: coverings are prepared every
    /// time).
    let coveringScope: [UInt8]?

    init(_ devices: [DeviceKey: SharedDevice]) {
        table = ReadableDeviceTable(devices.values)
        own = []
        isReadable = !devices.isEmpty
        coveringScope = nil
    }

    /// The group's sharing devices as `caller` reads them in [from, to]. Without a range the
    /// shared table is used as it is (no copy per query); with one, each device's windows
    /// are clipped and devices with nothing visible left out.
    init(_ sharing: SharingDevices, caller: UserID?, from: Int64?, to: Int64?) {
        coveringScope = sharing.coveringScope
        if from == nil && to == nil {
            table = sharing.table
            own = caller.flatMap { sharing.byUser[$0] } ?? []
            isReadable = sharing.anyShared || !own.isEmpty
            return
        }
        var clipped: [SharedDevice] = []
        for device in sharing.byKey.values {
            let windows = (device.userID == caller ? .all : device.windows).clipped(from: from, to: to)
            guard !windows.isEmpty else { continue }
            clipped.append(SharedDevice(key: device.key, deviceID: device.deviceID, userID: device.userID,
                                        last: device.last, windows: windows))
        }
        table = ReadableDeviceTable(clipped)
        own = []
        isReadable = !clipped.isEmpty
    }

    var isEmpty: Bool { !isReadable }

    /// The index in `table.devices` of the device of `entry` when the caller may read this fix
    /// (device readable, timestamp inside its visible windows), else nil.
    func index(of entry: IndexEntry) -> Int? {
        guard let index = table.index(of: entry.deviceKey) else { return nil }
        guard table.isVisible(index, at: entry.timestamp) || own.contains(entry.deviceKey) else { return nil }
        return index
    }

    /// The device of `entry` when the caller may read this fix, else nil.
    func device(of entry: IndexEntry) -> SharedDevice? {
        index(of: entry).map { table.devices[$0] }
    }
}

/// The counters and budget of one query run.
struct QueryRun {
    let limits: GeoQueryService.Limits
    let deadline: UInt64
    var explain = QueryExplain()
    /// Index rows read, readable or not (only to look at the clock now and then).
    private var rowsRead = 0
    /// Index operations (rows read and seeks) left of the attempt's budget; nil without one.
    private var workLeft: Int?

    init(limits: GeoQueryService.Limits, budget: WorkBudget? = nil) {
        self.limits = limits
        workLeft = budget?.units
        let budget = UInt64(clamping: max(0, limits.maxMilliseconds)).multipliedReportingOverflow(by: 1_000_000)
        deadline = Timestamp.monotonicNanoseconds() &+ (budget.overflow ? UInt64.max / 2 : budget.partialValue)
    }

    /// Counts one readable position examined; throws past the budget.
    mutating func examined() throws {
        explain.keysExamined += 1
        guard explain.keysExamined <= limits.maxKeysExamined else {
            throw TrackingError.queryTooBroad("the query examined more than \(limits.maxKeysExamined) positions")
        }
    }

    /// Counts one B-tree seek (the start of a range scan) against the work budget.
    mutating func seek() throws {
        try spend()
    }

    /// Counts one index row read; every 4,096 rows, throws when the time is up.
    mutating func read() throws {
        try spend()
        rowsRead &+= 1
        if rowsRead & 4_095 == 0, Timestamp.monotonicNanoseconds() > deadline {
            throw TrackingError.queryTooBroad("the query took longer than \(limits.maxMilliseconds) ms")
        }
    }

    private mutating func spend() throws {
        guard let left = workLeft else { return }
        guard left > 0 else { throw WorkBudget.Exceeded() }
        workLeft = left - 1
    }
}

extension GeoFilter {
    /// Exact test for a stored position: flat legacy shapes use the stored degrees exactly.
    func matches(longitude: Double, latitude: Double, point: S2Point) -> Bool {
        if let shape, !shape.isSpherical { return shape.contains(longitude: longitude, latitude: latitude) }
        return matches(point)
    }

    /// Exact test for a stored `[lon, lat]` (public for benchmarks and tools).
    public func matchesStored(longitude: Double, latitude: Double) -> Bool {
        matches(longitude: longitude, latitude: latitude, point: LatLng(degreesLatitude: latitude, longitude: longitude).toPoint())
    }
}
