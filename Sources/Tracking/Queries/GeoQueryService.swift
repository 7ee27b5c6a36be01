import GeoKit
import GeoQuery
import Glibc
import Timestamps

/// Answers MongoDB-style geo queries over a group's shared positions with the cell index.
///
/// Candidates are only the devices of members who share with the group, and only if the caller
/// is a member — so nothing else can appear in results or in explain counts.
/// History scans: region → covering (GeoKit `RegionCoverer`) → signed-key ranges → B-tree range
/// scans of the cell index (and the not yet merged fixes) → device filter → exact geometry. `$near` scans annuli of doubling radius
/// and stops as soon as `limit` results closer than the next annulus are known.
public final class GeoQueryService: Sendable {
    let index: any GeoIndex
    let directory: any DirectoryStore
    /// Coverings of query regions: MongoDB's levels, few cells (each cell is a B-tree seek;
    /// covering time grows with the cell count). `FOD_COVER_MAX_CELLS` / `FOD_COVER_MAX_LEVEL`
    /// override them (for tuning).
    public static let coverer = RegionCoverer(minLevel: 2, maxLevel: environment("FOD_COVER_MAX_LEVEL") ?? 16, levelMod: 1,
                                              maxCells: environment("FOD_COVER_MAX_CELLS") ?? 8)

    static func environment(_ name: String) -> Int? {
        guard let text = getenv(name) else { return nil }
        return Int(String(cString: text))
    }
    /// First `$near` annulus radius (meters) when no `$minDistance` gives a better start.
    public static let firstAnnulusMeters = 250.0

    public init(index: any GeoIndex, directory: any DirectoryStore) {
        self.index = index
        self.directory = directory
    }

    public func query(groupID: String, credential: Credential, _ request: GeoQueryRequest) throws -> ([GeoQueryResult], QueryExplain) {
        let started = Timestamp.monotonicNanoseconds()
        try PartitionRules(facts: directory).requireRead(credential, .group(groupID), hiddenAs: "group")
        guard (1...GeoQueryRequest.maxLimit).contains(request.limit) else {
            throw TrackingError.invalid("limit must be 1 to \(GeoQueryRequest.maxLimit)", code: "invalid_limit")
        }
        let devices = try index.sharedDevices(groupID: groupID)
        var explain = QueryExplain()
        var results: [GeoQueryResult]
        switch request.scope {
        case .latest:
            results = Self.latest(devices, request, &explain)
        case .history(let from, let to):
            if let from, let to, from > to { throw TrackingError.invalid("from must not be after to", code: "invalid_range") }
            // A device without a latest position has no stored fix at all: it cannot match, and
            // with no candidate left the index is not searched (other groups' data never is).
            let withHistory = devices.filter { $0.last != nil }
            results = try queryHistory(request.filter, readable: Dictionary(uniqueKeysWithValues: withHistory.map { ($0.key, $0) }),
                                       from: from, to: to, limit: request.limit, &explain)
        }
        explain.milliseconds = Double(Timestamp.monotonicNanoseconds() - started) / 1e6
        return (results, explain)
    }

    /// The history path on an already-known set of readable devices (by device key).
    public func queryHistory(_ filter: GeoFilter, readable: [Int64: SharedDevice], from: Int64?, to: Int64?, limit: Int,
                             _ explain: inout QueryExplain) throws -> [GeoQueryResult] {
        explain.scope = "history"
        if case .near(let near) = filter {
            return try nearHistory(near, readable: readable, from: from, to: to, limit: limit, &explain)
        }
        return try withinHistory(filter, readable: readable, from: from, to: to, limit: limit, &explain)
    }

    /// Latest positions: a group has at most a thousand members, so every shared device's
    /// latest position is tested exactly.
    static func latest(_ devices: [SharedDevice], _ request: GeoQueryRequest, _ explain: inout QueryExplain) -> [GeoQueryResult] {
        var results: [GeoQueryResult] = []
        for device in devices {
            guard let last = device.last else { continue }
            explain.keysExamined += 1
            explain.docsExamined += 1
            let point = LatLng(degreesLatitude: last.latitude, longitude: last.longitude).toPoint()
            if case .near(let near) = request.filter {
                guard near.matches(point) else { continue }
                results.append(device.result(last.longitude, last.latitude, last.timestamp, distance: near.distance(to: point)))
            } else if request.filter.matches(longitude: last.longitude, latitude: last.latitude, point: point) {
                results.append(device.result(last.longitude, last.latitude, last.timestamp, distance: nil))
            }
        }
        if case .near = request.filter {
            results.sort { ($0.distance ?? 0, $0.deviceID) < ($1.distance ?? 0, $1.deviceID) }
        }
        return Array(results.prefix(request.limit))
    }

    func withinHistory(_ filter: GeoFilter, readable: [Int64: SharedDevice], from: Int64?, to: Int64?, limit: Int,
                       _ explain: inout QueryExplain) throws -> [GeoQueryResult] {
        guard !readable.isEmpty else { return [] }
        let covering = Self.coverer.covering(of: filter.region)
        let ranges = RegionCoverer.ranges(of: covering)
        explain.cellsInCovering = covering.count
        explain.ranges = ranges.count
        explain.coveringTokens = covering.map(\.token)
        var results: [GeoQueryResult] = []
        try index.withReader { reader in
            for range in ranges {
                guard try reader.scan(range, from: from, to: to, { entry in
            guard let device = readable[entry.deviceKey] else { return true }
            explain.keysExamined += 1
            explain.docsExamined += 1
            let point = LatLng(degreesLatitude: entry.latitude, longitude: entry.longitude).toPoint()
            if filter.matches(longitude: entry.longitude, latitude: entry.latitude, point: point) {
                results.append(device.result(entry.longitude, entry.latitude, entry.timestamp, distance: nil))
            }
            return results.count < limit
                }) else { return }
            }
        }
        return results
    }

    /// Best-first search over the cell hierarchy (no "fetch everything within the maximum
    /// distance and sort"): cells wait in a min-heap keyed by a lower bound of their distance to
    /// the centre; a coarse cell is split into its children only if the index holds any entry
    /// in its range (one B-tree probe), a cell at `scanLevel` is range-scanned. The search stops
    /// as soon as the `limit` best results are all closer than the next cell's lower bound, or
    /// the bound passes `$maxDistance`. Cells entirely inside `$minDistance` are skipped.
    func nearHistory(_ near: NearQuery, readable: [Int64: SharedDevice], from: Int64?, to: Int64?, limit: Int,
                     _ explain: inout QueryExplain) throws -> [GeoQueryResult] {
        guard !readable.isEmpty else { return [] }
        let center = near.center
        let minAngle = near.minAngle?.radians ?? 0
        let maxAngle = min(near.maxAngle?.radians ?? Double.pi, Double.pi)
        /// Slack for the bounds' rounding (radians, ~1 µm on Earth).
        let slack = 1e-13
        var scanLevel = Self.nearScanLevel(limit: limit)
        // Entries are compared by squared chord length (monotonic in the angle, no trig).
        let minChord = ChordAngle(Angle(radians: max(0, minAngle - slack))).length2
        let maxChord = ChordAngle(Angle(radians: min(Double.pi, maxAngle + slack))).length2
        typealias Candidate = (lower: Double, upper: Double, id: CellID)
        var queue = BinaryHeap<Candidate> { $0.lower < $1.lower }
        for face in 0..<6 {
            let cell = Cell.face(face)
            queue.push((cell.distance(to: center).radians, cell.maxDistance(to: center).radians, cell.id))
        }
        typealias Found = (chord: Double, sequence: Int64, result: GeoQueryResult)
        var best = BinaryHeap<Found> { ($0.chord, $0.sequence) > ($1.chord, $1.sequence) }  // worst on top
        try index.withReader { reader in
            while let next = queue.popFirst() {
                if next.lower > maxAngle + slack { break }
                if best.count >= limit, let worst = best.first, next.lower > ChordAngle(length2: worst.chord).angle.radians + slack { break }
                if next.upper < minAngle - slack { continue }
                let range = next.id.rangeMin.int64Key...next.id.rangeMax.int64Key
                if next.id.level < scanLevel {
                    if next.id.level >= 4 {
                        explain.cellsProbed += 1
                        guard try reader.hasEntries(in: range, from: from, to: to) else { continue }
                    }
                    for child in next.id.children {
                        guard let cell = Cell(child) else { continue }
                        queue.push((cell.distance(to: center).radians, cell.maxDistance(to: center).radians, child))
                    }
                    continue
                }
                explain.cellsInCovering += 1
                explain.ranges += 1
                explain.coveringTokens.append(next.id.token)
                var scanned = 0
                _ = try reader.scan(range, from: from, to: to) { entry in
                    scanned += 1
                    guard let device = readable[entry.deviceKey] else { return true }
                    explain.keysExamined += 1
                    let point = LatLng(degreesLatitude: entry.latitude, longitude: entry.longitude).toPoint()
                    let chord = ChordAngle(between: center, point).length2
                    guard chord >= minChord, chord <= maxChord else { return true }
                    explain.docsExamined += 1
                    if best.count >= limit, let worst = best.first, (chord, entry.sequence) >= (worst.chord, worst.sequence) { return true }
                    guard near.matches(point) else { return true }
                    best.push((chord, entry.sequence, device.result(entry.longitude, entry.latitude, entry.timestamp,
                                                                    distance: near.distance(to: point))))
                    if best.count > limit { _ = best.popFirst() }
                    return true
                }
                // Dense data: a cell held far more than needed, so scan finer cells from now on.
                if scanned > 16 * max(limit, 8) && scanLevel < 24 { scanLevel += 2 }
            }
        }
        return best.elements.sorted { ($0.chord, $0.sequence) < ($1.chord, $1.sequence) }.map(\.result)
    }

    /// The level at which `$near` starts scanning: cells of about 5 km for small limits,
    /// coarser for large ones; the search goes finer by itself where data is dense.
    /// `FOD_NEAR_SCAN_LEVEL` overrides the start (for tuning).
    static func nearScanLevel(limit: Int) -> Int {
        if let text = getenv("FOD_NEAR_SCAN_LEVEL"), let level = Int(String(cString: text)), (4...24).contains(level) { return level }
        return limit <= 100 ? 11 : (limit <= 1_000 ? 10 : 9)
    }
}

extension GeoFilter {
    /// Exact test for a stored position: flat legacy shapes use the stored degrees exactly.
    func matches(longitude: Double, latitude: Double, point: S2Point) -> Bool {
        if let shape, !shape.isSpherical { return shape.contains(longitude: longitude, latitude: latitude) }
        return matches(point)
    }
}

/// A device whose positions the caller may read in this group.
public struct SharedDevice: Sendable {
    public let key: Int64
    public let deviceID: String
    public let userID: String
    public let last: LastLocation?

    public init(key: Int64, deviceID: String, userID: String, last: LastLocation?) {
        self.key = key
        self.deviceID = deviceID
        self.userID = userID
        self.last = last
    }

    func result(_ longitude: Double, _ latitude: Double, _ timestamp: Int64, distance: Double?) -> GeoQueryResult {
        GeoQueryResult(deviceID: deviceID, userID: userID, longitude: longitude, latitude: latitude, timestamp: timestamp, distance: distance)
    }
}

/// One entry of the cell index as a range scan yields it.
public struct IndexEntry: Sendable {
    public let cell: Int64
    public let deviceKey: Int64
    public let timestamp: Int64
    public let sequence: Int64
    public let longitude: Double
    public let latitude: Double
}

/// The cell-keyed index of stored fixes.
public protocol GeoIndex: Sendable {
    /// Devices of members sharing with `groupID`, with their latest positions.
    func sharedDevices(groupID: String) throws -> [SharedDevice]
    /// Runs `body` with a reader on one consistent snapshot of the index.
    func withReader<T>(_ body: (any GeoIndexReader) throws -> T) throws -> T
}

/// Reads the cell index inside one snapshot.
public protocol GeoIndexReader {
    /// Calls `body` for each entry whose signed cell key is in `range` and time in [from, to]
    /// (each entry once; order unspecified); returns false if `body` stopped the scan.
    func scan(_ range: ClosedRange<Int64>, from: Int64?, to: Int64?, _ body: (IndexEntry) throws -> Bool) throws -> Bool
    /// Whether any entry lies in `range` (and [from, to]): one B-tree probe.
    func hasEntries(in range: ClosedRange<Int64>, from: Int64?, to: Int64?) throws -> Bool
}

extension GeoFilter {
    /// Exact test for a stored `[lon, lat]` (public for benchmarks and tools).
    public func matchesStored(longitude: Double, latitude: Double) -> Bool {
        matches(longitude: longitude, latitude: latitude, point: LatLng(degreesLatitude: latitude, longitude: longitude).toPoint())
    }
}
