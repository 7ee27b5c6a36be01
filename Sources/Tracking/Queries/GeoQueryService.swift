import GeoKit
import GeoQuery
import Timestamps

/// Answers MongoDB-style geo queries over a group's shared positions with the cell index.
///
/// Candidates are only the devices of members who share with the group, and only if the caller
/// is a member — so nothing else can appear in results or in explain counts.
/// History scans: region → covering (GeoKit `RegionCoverer`) → signed-key ranges → B-tree range
/// scans of `fixes` → device filter → exact geometry. `$near` scans annuli of doubling radius
/// and stops as soon as `limit` results closer than the next annulus are known.
public final class GeoQueryService: Sendable {
    let index: any GeoIndex
    let directory: any DirectoryStore
    /// Coverings of query regions: finer than MongoDB's stored-shape default, few cells.
    public static let coverer = RegionCoverer(minLevel: 2, maxLevel: 22, levelMod: 1, maxCells: 16)
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
            explain.scope = "history"
            let readable = Dictionary(uniqueKeysWithValues: devices.map { ($0.key, $0) })
            if case .near(let near) = request.filter {
                results = try nearHistory(near, readable: readable, from: from, to: to, limit: request.limit, &explain)
            } else {
                results = try withinHistory(request.filter, readable: readable, from: from, to: to, limit: request.limit, &explain)
            }
        }
        explain.milliseconds = Double(Timestamp.monotonicNanoseconds() - started) / 1e6
        return (results, explain)
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
        try index.scan(ranges: ranges, from: from, to: to) { entry in
            guard let device = readable[entry.deviceKey] else { return true }
            explain.keysExamined += 1
            explain.docsExamined += 1
            let point = LatLng(degreesLatitude: entry.latitude, longitude: entry.longitude).toPoint()
            if filter.matches(longitude: entry.longitude, latitude: entry.latitude, point: point) {
                results.append(device.result(entry.longitude, entry.latitude, entry.timestamp, distance: nil))
            }
            return results.count < limit
        }
        return results
    }

    /// Expanding annuli: ring k covers [r_k, r_{k+1}) with r doubling. After scanning ring k,
    /// every position closer than r_{k+1} is known, so once `limit` of them are, the answer is
    /// complete. A position found in an earlier ring's overlap is kept once (by sequence).
    func nearHistory(_ near: NearQuery, readable: [Int64: SharedDevice], from: Int64?, to: Int64?, limit: Int,
                     _ explain: inout QueryExplain) throws -> [GeoQueryResult] {
        guard !readable.isEmpty else { return [] }
        let minAngle = near.minAngle?.radians ?? 0
        let maxAngle = min(near.maxAngle?.radians ?? Double.pi, Double.pi)
        var inner = minAngle
        var outer = max(minAngle * 2, Earth.angle(for: Distance(meters: Self.firstAnnulusMeters)).radians)
        var found: [(distance: Double, sequence: Int64, result: GeoQueryResult)] = []
        var seen = Set<Int64>()
        while inner <= maxAngle {
            outer = min(outer, maxAngle)
            explain.annuli += 1
            // The scan region is padded slightly so positions exactly on a boundary are never missed.
            let ring = Annulus(center: near.center, inner: Angle(radians: max(0, inner - 1e-12)), outer: Angle(radians: min(Double.pi, outer + 1e-12)))
            let covering = Self.coverer.covering(of: ring)
            let ranges = RegionCoverer.ranges(of: covering)
            explain.cellsInCovering += covering.count
            explain.ranges += ranges.count
            explain.coveringTokens = covering.map(\.token)
            try index.scan(ranges: ranges, from: from, to: to) { entry in
                guard let device = readable[entry.deviceKey] else { return true }
                explain.keysExamined += 1
                guard !seen.contains(entry.sequence) else { return true }
                let point = LatLng(degreesLatitude: entry.latitude, longitude: entry.longitude).toPoint()
                let angle = near.center.angle(to: point).radians
                guard angle >= inner - 1e-15, angle <= outer + 1e-15 || outer >= maxAngle else { return true }
                explain.docsExamined += 1
                seen.insert(entry.sequence)
                guard near.matches(point) else { return true }
                found.append((near.distance(to: point), entry.sequence,
                              device.result(entry.longitude, entry.latitude, entry.timestamp, distance: near.distance(to: point))))
                return true
            }
            let closerThanOuter = found.filter { $0.distance <= near.units.value(of: Angle(radians: outer)) }.count
            if closerThanOuter >= limit || outer >= maxAngle { break }
            inner = outer
            outer *= 2
        }
        found.sort { ($0.distance, $0.sequence) < ($1.distance, $1.sequence) }
        return found.prefix(limit).map(\.result)
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
    /// Calls `body` for each entry in the signed-key `ranges` (ascending) within [from, to],
    /// on one snapshot, until it returns false.
    func scan(ranges: [ClosedRange<Int64>], from: Int64?, to: Int64?, _ body: (IndexEntry) throws -> Bool) throws
}
