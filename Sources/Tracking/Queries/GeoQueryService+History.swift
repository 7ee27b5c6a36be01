import GeoKit
import GeoQuery

extension GeoQueryService {
    /// `$geoWithin` / `$geoIntersects` over history: the covering depends on the region alone;
    /// only readable positions are examined, counted and matched, and the scan stops at `limit`
    /// matches. Entries in covering cells the filter matches entirely skip the exact test.
    func withinHistory(_ filter: GeoFilter, readable: ReadableEntries, from: Int64?, to: Int64?, limit: Int,
                       reader: any GeoIndexReader, _ run: inout QueryRun) throws -> [GeoQueryResult] {
        let region = filter.region
        let prepare = { PreparedCovering(cells: self.coverer(for: region).covering(of: region), filter: filter) }
        let prepared = readable.coveringScope.map { coverings.covering(of: filter, scope: $0, prepare: prepare) } ?? prepare()
        let covering = prepared.cells, ranges = prepared.ranges
        run.explain.cellsInCovering = covering.count
        run.explain.ranges = ranges.count
        run.explain.coveringCells = covering
        // `$near` (the one filter without a shape) is answered by nearHistory.
        guard let shape = filter.shape else { return [] }
        let exactTest = shape.storedPointTest
        var shortcut = ContainmentShortcut(prepared, shape: shape)
        var results: [GeoQueryResult] = []
        func consider(_ entry: IndexEntry, _ run: inout QueryRun) throws -> Bool {
            try run.read()
            guard let deviceIndex = readable.index(of: entry) else { return true }
            try run.examined()
            run.explain.docsExamined += 1
            let matches = switch shortcut.verdict(forKey: entry.cell) {
            case .matches: true
            case .fails: false
            case .needsTest: exactTest(entry.longitude, entry.latitude)
            }
            if matches {
                results.append(readable.table.devices[deviceIndex].result(entry.longitude, entry.latitude, entry.timestamp, distance: nil))
            }
            return results.count < limit
        }
        if reader.prefersBatchedProbes {
            // One call reads the first entries of every range (a round trip each otherwise).
            for _ in ranges { try run.seek() }
            _ = try reader.scan(ranges: ranges, from: from, to: to) { entry in try consider(entry, &run) }
        } else {
            for range in ranges {
                try run.seek()
                let complete = try reader.scanPositions(range, from: from, to: to) { entry in try consider(entry, &run) }
                if !complete { break }
            }
        }
        return results
    }

    /// `$near` over history: a best-first search over the cell hierarchy (no "fetch everything
    /// within the maximum distance and sort"). Cells wait in a min-heap keyed by a lower bound
    /// of their distance to the centre; a coarse cell is split into its children only if it
    /// holds a *readable* position (an exact test: see `firstReadable`), a cell at the scan level
    /// is range-scanned. The search stops as soon as the `limit` best results are all closer
    /// than the next cell's lower bound, or the bound passes `$maxDistance`. Cells entirely
    /// inside `$minDistance` are skipped. Where a scanned cell held many readable positions,
    /// later scans go two levels finer; where scanned cells held few (sparse data, results far
    /// apart), later scans go a level coarser, down to `coarsestNearScanLevel`. Every one of these decisions depends on readable data
    /// only, so the cells refined and scanned (explain's `cellsProbed`, `cellsInCovering`,
    /// `coveringTokens`) are the same whatever other groups store.
    func nearHistory(_ near: NearQuery, readable: ReadableEntries, from: Int64?, to: Int64?, limit: Int,
                     reader: any GeoIndexReader, _ run: inout QueryRun) throws -> [GeoQueryResult] {
        let center = near.center
        let minAngle = near.minAngle?.radians ?? 0
        let maxAngle = min(near.maxAngle?.radians ?? Double.pi, Double.pi)
        /// Slack for the bounds' rounding (radians, ~1 µm on Earth).
        let slack = 1e-13
        var scanLevel = nearScanLevel(limit: limit)
        // Cells scanned at the current scan level and the readable positions they held.
        var scannedAtLevel = 0, readableAtLevel = 0
        // Entries and cells are compared by squared chord length (monotonic in the angle, no
        // trigonometry); the cells' chord bounds are conservative by themselves.
        let minChord = ChordAngle(Angle(radians: max(0, minAngle - slack))).length2
        let maxChord = ChordAngle(Angle(radians: min(Double.pi, maxAngle + slack))).length2
        /// Slack for an entry's squared chord against a cell's bound (rounding of the entry's
        /// point, ~1e-16 relative; absolute on chord² ≤ 4).
        let chordSlack = 1e-15
        /// A cell's upper bound matters only to skip cells inside `$minDistance`.
        let needsUpper = minChord > 0
        func candidate(_ cell: Cell) -> NearCandidate {
            (cell.chordDistance(to: center).length2, needsUpper ? cell.maxChordDistance(to: center).length2 : 4, cell.id, .unprobed, nil)
        }
        var queue = BinaryHeap<NearCandidate> { $0.lower < $1.lower }
        for face in 0..<6 {
            let cell = Cell.face(face)
            queue.push(candidate(cell))
        }
        // Plain values only (no strings): the heap moves them often; results are made for the
        // final `limit` entries alone.
        typealias Found = (chord: Double, sequence: Int64, entry: IndexEntry)
        var best = BinaryHeap<Found> { ($0.chord, $0.sequence) > ($1.chord, $1.sequence) }  // worst on top
        // Entries of scan-level cells read ahead of their turn, in one call with an
        // earlier cell's (readers that prefer batched probes): the search itself, and so
        // its answer and explain, are as if each cell were read when reached.
        var readAhead: [CellID: [IndexEntry]] = [:]
        while let next = queue.popFirst() {
            if next.lower > maxChord { break }
            if best.count >= limit, let worst = best.first, next.lower > worst.chord + chordSlack { break }
            if next.upper < minChord { continue }
            let range = next.id.rangeMin.int64Key...next.id.rangeMax.int64Key
            // A batched probe (counted then) that read only other groups' entries is decided
            // now, before the cell is split or scanned: without those entries it would not
            // be in the queue at all.
            var witness = next.witness
            if next.probe == .undecided {
                guard let found = try Self.firstReadable(range, from: from, to: to, readable, reader, &run) else { continue }
                witness = found
            }
            if next.id.level < scanLevel {
                if next.id.level >= 4 && next.probe == .unprobed {
                    run.explain.cellsProbed += 1
                    guard let found = try Self.firstReadable(range, from: from, to: to, readable, reader, &run) else { continue }
                    witness = found
                }
                var children: [NearCandidate] = []
                for child in next.id.children {
                    // The witness is the first readable position of the cell's range (in key
                    // order), so children that end before it hold none.
                    if let witness, child.rangeMax.int64Key < witness { continue }
                    guard let cell = Cell(child) else { continue }
                    var made = candidate(cell)
                    // The child holding that position needs no probe of its own.
                    if let witness, child.rangeMin.int64Key <= witness, witness <= child.rangeMax.int64Key {
                        made.probe = .holdsReadable
                        made.witness = witness
                    }
                    children.append(made)
                }
                if reader.prefersBatchedProbes {
                    children = try Self.probed(children.filter { $0.upper >= minChord && $0.lower <= maxChord }, below: scanLevel, from: from, to: to,
                                               readable, reader, &run)
                }
                for child in children { queue.push(child) }
                continue
            }
            run.explain.cellsInCovering += 1
            run.explain.ranges += 1
            run.explain.coveringCells.append(next.id)
            var readableInCell = 0
            try run.seek()
            func consider(_ entry: IndexEntry) throws {
                try run.read()
                guard readable.index(of: entry) != nil else { return }
                readableInCell += 1
                try run.examined()
                let point = LatLng(degreesLatitude: entry.latitude, longitude: entry.longitude).toPoint()
                let chord = ChordAngle(between: center, point).length2
                guard chord >= minChord, chord <= maxChord else { return }
                run.explain.docsExamined += 1
                if best.count >= limit, let worst = best.first, (chord, entry.sequence) >= (worst.chord, worst.sequence) { return }
                guard near.matches(point) else { return }
                best.push((chord, entry.sequence, entry))
                if best.count > limit { _ = best.popFirst() }
            }
            var entries = readAhead.isEmpty ? nil : readAhead.removeValue(forKey: next.id)
            if entries == nil && reader.prefersBatchedProbes {
                readAhead = try Self.readAhead(of: next, in: &queue, scanLevel: scanLevel, minChord: minChord,
                                               maxChord: maxChord, from: from, to: to, reader)
                entries = readAhead.removeValue(forKey: next.id)
            }
            if let entries {
                for entry in entries { try consider(entry) }
            } else {
                _ = try reader.scan(range, from: from, to: to) { entry in
                    try consider(entry)
                    return true
                }
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
        return best.elements.sorted { ($0.chord, $0.sequence) < ($1.chord, $1.sequence) }.compactMap { found in
            let entry = found.entry
            let point = LatLng(degreesLatitude: entry.latitude, longitude: entry.longitude).toPoint()
            return readable.device(of: entry)?.result(entry.longitude, entry.latitude, entry.timestamp, distance: near.distance(to: point))
        }
    }

    /// Cells read ahead in one call: at most this many, each at most `readAheadEntries` entries.
    static let readAheadCells = 8
    static let readAheadEntries = 1_024

    /// The entries of `next` and of the scan-level cells that follow it in `queue` (those the
    /// search would scan next, unless it stops first), read in one call; `queue` is left as
    /// it was. Cells that hold more than `readAheadEntries` are left out (scanned when reached).
    static func readAhead(of next: NearCandidate, in queue: inout BinaryHeap<NearCandidate>, scanLevel: Int, minChord: Double,
                          maxChord: Double, from: Int64?, to: Int64?, _ reader: any GeoIndexReader) throws -> [CellID: [IndexEntry]] {
        var cells = [next.id]
        var taken: [NearCandidate] = []
        while cells.count < readAheadCells, let following = queue.first, following.id.level >= scanLevel, following.lower <= maxChord {
            _ = queue.popFirst()
            taken.append(following)
            if following.upper >= minChord { cells.append(following.id) }
        }
        for candidate in taken { queue.push(candidate) }
        let entries = try reader.leadingEntries(of: cells.map { $0.rangeMin.int64Key...$0.rangeMax.int64Key }, from: from, to: to,
                                                count: readAheadEntries)
        var read: [CellID: [IndexEntry]] = [:]
        for (cell, found) in zip(cells, entries) where found.count < readAheadEntries {
            read[cell] = found
        }
        return read
    }

    /// `children` without those that hold no readable position, for a reader that prefers
    /// batched probes: the children that would be probed when reached (level 4 up to below
    /// `scanLevel`) are probed together now, in one call, by their leading entries. A child
    /// whose leading entries are all unreadable but not all it holds is left undecided (the
    /// usual probe decides when it is reached, without counting it again), so which cells are
    /// probed, kept and counted depends on readable positions only.
    static func probed(_ children: [NearCandidate], below scanLevel: Int, from: Int64?, to: Int64?, _ readable: ReadableEntries,
                       _ reader: any GeoIndexReader, _ run: inout QueryRun) throws -> [NearCandidate] {
        let probing = children.indices.filter { (4..<scanLevel).contains(children[$0].id.level) && children[$0].probe == .unprobed }
        guard !probing.isEmpty else { return children }
        let leading = 4
        let ranges = probing.map { children[$0].id.rangeMin.int64Key...children[$0].id.rangeMax.int64Key }
        for _ in ranges { try run.seek() }
        run.explain.cellsProbed += ranges.count
        let entries = try reader.leadingEntries(of: ranges, from: from, to: to, count: leading)
        var kept = children
        var empty = Set<Int>()
        for (slot, index) in probing.enumerated() {
            let found = slot < entries.count ? entries[slot] : []
            for _ in found { try run.read() }
            if found.contains(where: { readable.index(of: $0) != nil }) {
                kept[index].probe = .holdsReadable
            } else if found.count < leading {
                empty.insert(index)
            } else {
                kept[index].probe = .undecided
            }
        }
        return kept.indices.filter { !empty.contains($0) }.map { kept[$0] }
    }

    /// The cell key of the first position in `range` (in index order) the caller may read, nil
    /// if it holds none: the range is scanned up to that entry (an empty range costs one B-tree
    /// seek). Entries of other devices passed on the way are the one cost other groups' data
    /// can add: time, never a different answer (the first readable entry is the same whatever
    /// precedes it).
    static func firstReadable(_ range: ClosedRange<Int64>, from: Int64?, to: Int64?, _ readable: ReadableEntries,
                              _ reader: any GeoIndexReader, _ run: inout QueryRun) throws -> Int64? {
        try run.seek()
        return try reader.firstCell(in: range, from: from, to: to) { entry in
            try run.read()
            return readable.index(of: entry) != nil
        }
    }
}

/// What `$near`'s search knows of a cell waiting in its queue: conservative bounds of its
/// distance to the centre as squared chord lengths (0…4; the upper bound is 4 when no
/// `$minDistance` needs it), whether a probe found a readable position in it, and the cell
/// key of the first readable position of its range (in key order) when a probe found it
/// (`witness`): the child holding it is not probed again, and the children before it hold
/// none.
typealias NearCandidate = (lower: Double, upper: Double, id: CellID, probe: NearProbe, witness: Int64?)

enum NearProbe {
    /// Not probed yet.
    case unprobed
    /// Probed (and counted in explain's `cellsProbed`), or the child of a probed cell that holds
    /// the readable position the probe found: it holds a readable position.
    case holdsReadable
    /// Probed and counted, but the entries read did not decide it: probed again (uncounted)
    /// when reached, before it is split or scanned.
    case undecided
}

/// Decides, entry by entry in key order, whether a `$geoWithin` / `$geoIntersects` filter needs
/// its exact test: entries in covering cells the filter matches entirely
/// (``GeoFilter/matchesEntirely(_:)``) match; elsewhere, once ``entriesBeforeClassifying``
/// entries in a row fall in one cell at ``classifiedLevel``, that cell is classified once — the
/// filter matches it entirely, or the filter's region cannot meet it (the covering's own
/// predicate, so such entries could not match), or neither — and the rest of the run uses the
/// verdict. Scans return entries in key order, so a cell's entries arrive together.
///
/// The verdicts never change an answer, only which entries get the exact test; a cell is
/// classified only after readable entries fell in it, and classifying costs about as much as a
/// few exact tests, so cells holding one or two entries are never classified.
struct ContainmentShortcut {
    enum Verdict {
        /// Every entry filed under the cell matches.
        case matches
        /// No entry filed under the cell matches.
        case fails
        /// Each entry needs the exact test.
        case needsTest
    }

    /// Readable entries that must fall in one cell in a row before it is classified.
    static let entriesBeforeClassifying = 3
    /// How much finer than the coarsest covering cell the classified cells are: 64 of them
    /// under it. Country polygons over people-like fixes at 1M (Benchmarks/report, engine
    /// p50): 2 or 3 levels and 2 or 3 entries are best (~0.59 against ~0.78 ms untested);
    /// 4 levels classify too many cells of few entries.
    static let levelsUnderCovering = 3

    /// Sorted, disjoint signed-key ranges of the covering cells the filter matches entirely.
    private let interior: [ClosedRange<Int64>]
    private let shape: GeoShape
    /// The level of the cells classified on the way, ``levelsUnderCovering`` under the coarsest
    /// covering cell (an entry's cell there may be coarser than its covering cell: it is
    /// classified all the same, and is more often crossed by the region's boundary).
    let classifiedLevel: Int
    /// The cell at `classifiedLevel` of the latest entry, its entries in a row so far and its
    /// verdict once classified.
    private var run: (cell: CellID, entries: Int, verdict: Verdict?)

    init(_ covering: PreparedCovering, shape: GeoShape) {
        interior = covering.interior
        self.shape = shape
        let coarsest = covering.cells.lazy.map(\.level).min() ?? CellID.maxLevel
        classifiedLevel = Swift.min(CellID.maxLevel, coarsest + Self.levelsUnderCovering)
        run = (CellID(int64Key: 0), 0, nil)
    }

    /// The verdict for the index entry with key `key`.
    mutating func verdict(forKey key: Int64) -> Verdict {
        if interior.sortedDisjointContains(key) { return .matches }
        let cell = CellID(int64Key: key).parent(level: classifiedLevel)
        guard cell == run.cell else {
            run = (cell, 1, nil)
            return .needsTest
        }
        if let verdict = run.verdict { return verdict }
        run.entries += 1
        guard run.entries >= Self.entriesBeforeClassifying else { return .needsTest }
        let verdict = classify(cell)
        run.verdict = verdict
        return verdict
    }

    private func classify(_ id: CellID) -> Verdict {
        guard id.isValid, let cell = Cell(id) else { return .needsTest }
        let (mayContain, containsEntirely) = shape.relate(cell)
        return containsEntirely ? .matches : mayContain ? .needsTest : .fails
    }
}
