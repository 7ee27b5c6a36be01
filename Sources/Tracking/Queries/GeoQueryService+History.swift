import GeoKit
import GeoQuery

extension GeoQueryService {
    /// `$geoWithin` / `$geoIntersects` over history: the covering depends on the region alone;
    /// only readable positions are examined, counted and matched, and the scan stops at `limit`
    /// matches.
    func withinHistory(_ filter: GeoFilter, readable: ReadableEntries, from: Int64?, to: Int64?, limit: Int,
                       _ run: inout QueryRun) throws -> [GeoQueryResult] {
        let covering = coverer.covering(of: filter.region)
        let ranges = RegionCoverer.ranges(of: covering)
        run.explain.cellsInCovering = covering.count
        run.explain.ranges = ranges.count
        run.explain.coveringCells = covering
        var results: [GeoQueryResult] = []
        try index.withReader { reader in
            for range in ranges {
                try run.seek()
                let complete = try reader.scan(range, from: from, to: to) { entry in
                    try run.read()
                    guard let device = readable.device(of: entry) else { return true }
                    try run.examined()
                    run.explain.docsExamined += 1
                    let point = LatLng(degreesLatitude: entry.latitude, longitude: entry.longitude).toPoint()
                    if filter.matches(longitude: entry.longitude, latitude: entry.latitude, point: point) {
                        results.append(device.result(entry.longitude, entry.latitude, entry.timestamp, distance: nil))
                    }
                    return results.count < limit
                }
                if !complete { return }
            }
        }
        return results
    }

    /// `$near` over history: a best-first search over the cell hierarchy (no "fetch everything
    /// within the maximum distance and sort"). Cells wait in a min-heap keyed by a lower bound
    /// of their distance to the centre; a coarse cell is split into its children only if it
    /// holds a *readable* position (an exact test: see `hasReadable`), a cell at the scan level
    /// is range-scanned. The search stops as soon as the `limit` best results are all closer
    /// than the next cell's lower bound, or the bound passes `$maxDistance`. Cells entirely
    /// inside `$minDistance` are skipped. Where a scanned cell held many readable positions,
    /// later scans go two levels finer; where scanned cells held few (sparse data, results far
    /// apart), later scans go a level coarser, down to `coarsestNearScanLevel`. Every one of these decisions depends on readable data
    /// only, so the cells refined and scanned (explain's `cellsProbed`, `cellsInCovering`,
    /// `coveringTokens`) are the same whatever other groups store.
    func nearHistory(_ near: NearQuery, readable: ReadableEntries, from: Int64?, to: Int64?, limit: Int,
                     _ run: inout QueryRun) throws -> [GeoQueryResult] {
        let center = near.center
        let minAngle = near.minAngle?.radians ?? 0
        let maxAngle = min(near.maxAngle?.radians ?? Double.pi, Double.pi)
        /// Slack for the bounds' rounding (radians, ~1 µm on Earth).
        let slack = 1e-13
        var scanLevel = nearScanLevel(limit: limit)
        // Cells scanned at the current scan level and the readable positions they held.
        var scannedAtLevel = 0, readableAtLevel = 0
        // Entries are compared by squared chord length (monotonic in the angle, no trig).
        let minChord = ChordAngle(Angle(radians: max(0, minAngle - slack))).length2
        let maxChord = ChordAngle(Angle(radians: min(Double.pi, maxAngle + slack))).length2
        typealias Candidate = (lower: Double, upper: Double, id: CellID)
        var queue = BinaryHeap<Candidate> { $0.lower < $1.lower }
        for face in 0..<6 {
            let cell = Cell.face(face)
            queue.push((cell.distance(to: center).radians, cell.maxDistance(to: center).radians, cell.id))
        }
        // Plain values only (no strings): the heap moves them often; results are made for the
        // final `limit` entries alone.
        typealias Found = (chord: Double, sequence: Int64, entry: IndexEntry)
        var best = BinaryHeap<Found> { ($0.chord, $0.sequence) > ($1.chord, $1.sequence) }  // worst on top
        try index.withReader { reader in
            while let next = queue.popFirst() {
                if next.lower > maxAngle + slack { break }
                if best.count >= limit, let worst = best.first, next.lower > ChordAngle(length2: worst.chord).angle.radians + slack { break }
                if next.upper < minAngle - slack { continue }
                let range = next.id.rangeMin.int64Key...next.id.rangeMax.int64Key
                if next.id.level < scanLevel {
                    if next.id.level >= 4 {
                        run.explain.cellsProbed += 1
                        guard try Self.hasReadable(range, from: from, to: to, readable, reader, &run) else { continue }
                    }
                    for child in next.id.children {
                        guard let cell = Cell(child) else { continue }
                        queue.push((cell.distance(to: center).radians, cell.maxDistance(to: center).radians, child))
                    }
                    continue
                }
                run.explain.cellsInCovering += 1
                run.explain.ranges += 1
                run.explain.coveringCells.append(next.id)
                var readableInCell = 0
                try run.seek()
                _ = try reader.scan(range, from: from, to: to) { entry in
                    try run.read()
                    guard readable.device(of: entry) != nil else { return true }
                    readableInCell += 1
                    try run.examined()
                    let point = LatLng(degreesLatitude: entry.latitude, longitude: entry.longitude).toPoint()
                    let chord = ChordAngle(between: center, point).length2
                    guard chord >= minChord, chord <= maxChord else { return true }
                    run.explain.docsExamined += 1
                    if best.count >= limit, let worst = best.first, (chord, entry.sequence) >= (worst.chord, worst.sequence) { return true }
                    guard near.matches(point) else { return true }
                    best.push((chord, entry.sequence, entry))
                    if best.count > limit { _ = best.popFirst() }
                    return true
                }
                if readableInCell > 16 * max(limit, 8) && scanLevel < 24 {
                    // Dense readable data: a cell held far more than needed, so scan finer cells from now on.
                    scanLevel += 2
                    (scannedAtLevel, readableAtLevel) = (0, 0)
                } else {
                    scannedAtLevel += 1
                    readableAtLevel += readableInCell
                    // Sparse readable data: the cells held on average under 1/32 of what is needed,
                    // so each result cost many seeks; scan coarser cells from now on.
                    if scannedAtLevel >= 4, readableAtLevel * 32 < scannedAtLevel * max(limit, 8), scanLevel > Self.coarsestNearScanLevel {
                        scanLevel -= 1
                        (scannedAtLevel, readableAtLevel) = (0, 0)
                    }
                }
            }
        }
        return best.elements.sorted { ($0.chord, $0.sequence) < ($1.chord, $1.sequence) }.compactMap { found in
            let entry = found.entry
            let point = LatLng(degreesLatitude: entry.latitude, longitude: entry.longitude).toPoint()
            return readable.device(of: entry)?.result(entry.longitude, entry.latitude, entry.timestamp, distance: near.distance(to: point))
        }
    }

    /// Whether `range` holds a position the caller may read: the range is scanned up to its
    /// first readable entry (an empty range costs one B-tree seek). Entries of other devices
    /// passed on the way are the one cost other groups' data can add: time, never a
    /// different answer.
    static func hasReadable(_ range: ClosedRange<Int64>, from: Int64?, to: Int64?, _ readable: ReadableEntries,
                            _ reader: any GeoIndexReader, _ run: inout QueryRun) throws -> Bool {
        var found = false
        try run.seek()
        _ = try reader.scan(range, from: from, to: to) { entry in
            try run.read()
            found = readable.device(of: entry) != nil
            return !found
        }
        return found
    }
}
