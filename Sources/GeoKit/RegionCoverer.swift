/// Approximates a ``Region`` by a small set of cells, for index range scans.
///
/// A covering is a normalised list of cells (sorted, none containing another, complete sets of
/// four siblings merged) whose union contains every point the region contains — the guarantee
/// that makes index lookups **never miss**, relying only on the conservative ``Region`` contract.
/// An interior covering is contained in the region instead.
///
/// Cells are at levels `minLevel…maxLevel`, and (when `levelMod > 1`) at levels
/// `minLevel + k·levelMod`. The result has at most `maxCells` cells whenever that is possible:
/// it can exceed `maxCells` only when the region meets more than `maxCells` cells at `minLevel`
/// (those cannot be merged), or marginally when a last sibling merge lands on a level that must
/// be re-expanded for `levelMod`.
///
/// Defaults are MongoDB's 2dsphere (v3) settings for non-point shapes: levels 2…16, 20 cells.
///
/// Cost: a region of area A needs at least A / (area of a `minLevel` cell) cells, so a high
/// `minLevel` with a large region produces (and takes time proportional to) that many cells.
public struct RegionCoverer: Sendable, Hashable, CustomStringConvertible {
    /// The lowest (largest-cell) level used, 0…30.
    public var minLevel: Int
    /// The highest (smallest-cell) level used, minLevel…30.
    public var maxLevel: Int
    /// Only levels `minLevel + k·levelMod` are used (1…3).
    public var levelMod: Int
    /// The desired maximum number of cells (≥ 1).
    public var maxCells: Int

    /// A coverer; arguments are clamped to their valid ranges when a covering is computed.
    public init(minLevel: Int = 2, maxLevel: Int = 16, levelMod: Int = 1, maxCells: Int = 20) {
        self.minLevel = minLevel
        self.maxLevel = maxLevel
        self.levelMod = levelMod
        self.maxCells = maxCells
    }

    /// MongoDB's 2dsphere v3 defaults for non-point shapes.
    public static let mongoDB = RegionCoverer()

    public var description: String {
        "RegionCoverer(levels \(minLevel)…\(maxLevel), levelMod \(levelMod), maxCells \(maxCells))"
    }

    /// The clamped parameters: minLevel ≤ maxLevel, and maxLevel reachable with levelMod.
    var effective: (minLevel: Int, maxLevel: Int, levelMod: Int, maxCells: Int) {
        let minL = Swift.max(0, Swift.min(CellID.maxLevel, minLevel))
        let mod = Swift.max(1, Swift.min(3, levelMod))
        var maxL = Swift.max(minL, Swift.min(CellID.maxLevel, maxLevel))
        maxL = minL + ((maxL - minL) / mod) * mod
        return (minL, maxL, mod, Swift.max(1, maxCells))
    }

    /// A normalised covering of `region`: every point the region contains lies in some cell.
    public func covering(of region: some Region) -> [CellID] {
        let p = effective
        let raw = search(region, interior: false)
        var cells = CellUnion.denormalized(CellUnion.normalized(raw), minLevel: p.minLevel, levelMod: p.levelMod)
        if cells.count > p.maxCells {
            cells = CellUnion.coarsened(cells, toAtMost: p.maxCells, minLevel: p.minLevel, levelMod: p.levelMod)
            cells = CellUnion.denormalized(CellUnion.normalized(cells), minLevel: p.minLevel, levelMod: p.levelMod)
        }
        return cells
    }

    /// A normalised interior covering: cells the region surely contains (per its conservative
    /// ``Region/contains(_:)-(Cell)``), at most `maxCells` of them before normalisation. May be
    /// empty for small or thin regions.
    public func interiorCovering(of region: some Region) -> [CellID] {
        let p = effective
        let raw = search(region, interior: true)
        return CellUnion.denormalized(CellUnion.normalized(raw), minLevel: p.minLevel, levelMod: p.levelMod)
    }

    /// The leaf-id ranges of a set of cells as signed index keys (``CellID/int64Key``), sorted
    /// by signed value and coalesced.
    ///
    /// Each cell contributes `rangeMin.int64Key…rangeMax.int64Key`. A cell's range never crosses
    /// the sign boundary (faces 0–3 are non-negative, faces 4–5 negative), so sorting by signed
    /// key is all the sign needs. Ranges that overlap or are adjacent in leaf order (no leaf id
    /// between them; leaf ids are odd, so the gap is at most 2) are merged; a merged range may
    /// then include the one even, non-leaf id in such a gap, which is never a point key. The
    /// result is ready for B-tree range scans on MongoDB-style keys.
    public static func ranges(of covering: [CellID]) -> [ClosedRange<Int64>] {
        let raw = covering.filter(\.isValid).map { $0.rangeMin.int64Key...$0.rangeMax.int64Key }
            .sorted { $0.lowerBound < $1.lowerBound }
        var result: [ClosedRange<Int64>] = []
        result.reserveCapacity(raw.count)
        for range in raw {
            if let last = result.last,
               last.upperBound >= Int64.max - 2 || range.lowerBound <= last.upperBound + 2 {
                result[result.count - 1] = last.lowerBound...Swift.max(last.upperBound, range.upperBound)
            } else {
                result.append(range)
            }
        }
        return result
    }

    /// Sorts cells, drops cells contained in others and merges complete sibling sets.
    public static func normalize(_ cells: [CellID]) -> [CellID] {
        CellUnion.normalized(cells)
    }
}

/// The candidate search behind ``RegionCoverer``.
///
/// Candidates are cells that may intersect the region, each with its intersecting children
/// precomputed. They are expanded largest-first (then fewest children, then fewest fully
/// contained children) while the cells already chosen, the pending candidates and the new
/// children still fit in `maxCells`; otherwise the candidate itself is emitted. Cells below
/// `minLevel` are always expanded; cells at `maxLevel` or contained in the region are terminal.
///
/// Storage is flat: children of queued candidates live in one append-only `arena` (a queued
/// candidate refers to its range), and the priority queue orders packed integer keys, so the
/// search copies no arrays and retains nothing per candidate.
struct CoveringBuilder<P: CoveringPredicates> {
    let predicates: P
    let minLevel: Int
    let maxLevel: Int
    let levelMod: Int
    let maxCells: Int
    let interior: Bool
    private var result: [CellID] = []
    private var queue = CandidateQueue()
    private var arena: [Candidate] = []

    init(predicates: P, minLevel: Int, maxLevel: Int, levelMod: Int, maxCells: Int, interior: Bool) {
        self.predicates = predicates
        self.minLevel = minLevel
        self.maxLevel = maxLevel
        self.levelMod = levelMod
        self.maxCells = maxCells
        self.interior = interior
        result.reserveCapacity(Swift.min(maxCells, 256) + 8)
        arena.reserveCapacity(64)
    }

    mutating func run() -> [CellID] {
        for cell in initialCells() {
            if let candidate = makeCandidate(cell) {
                add(candidate)
            }
        }
        while let entry = queue.pop() {
            if interior && result.count >= maxCells { break }
            let pending = interior ? 0 : queue.count
            let count = entry.childCount
            if entry.cell.level < minLevel || count == 1 || result.count + pending + count <= maxCells {
                for index in entry.childStart..<(entry.childStart + count) {
                    if interior && result.count >= maxCells { break }
                    add(arena[index])
                }
            } else if !interior {
                result.append(entry.cell.id)
            }
        }
        return result
    }

    /// Where the search starts. A small region lies within the 3 × 3 block of cells around the
    /// cell of its bounding cap's centre, at the deepest level whose cells are at least as wide
    /// as the cap: starting there skips the descent from the six faces (S2 does the same).
    /// Large regions, or that level above `minLevel`, start from the faces.
    private func initialCells() -> [Cell] {
        let cap = predicates.capBound
        guard !cap.isEmpty, cap.radius.radians < 0.05 else { return Self.faceCells }
        let level = Swift.min(CellID.level(forMinimumWidth: Angle(radians: 2 * cap.radius.radians)), maxLevel - 1)
        guard level >= Swift.max(minLevel, 3) else { return Self.faceCells }
        // Stay on the level grid minLevel + k·levelMod.
        let aligned = minLevel + ((level - minLevel) / levelMod) * levelMod
        let center = CellID(cap.center).parent(level: aligned)
        var cells = [Cell(unchecked: center)]
        cells.reserveCapacity(9)
        for id in center.neighborhood() {
            cells.append(Cell(unchecked: id))
        }
        return cells
    }

    /// The six face cells.
    private static var faceCells: [Cell] {
        (0..<6).map { Cell.face($0) }
    }

    /// A candidate for `cell`, or nil if the region cannot meet it (or, for interior coverings,
    /// it is too small and not contained).
    private func makeCandidate(_ cell: Cell) -> Candidate? {
        // contains(cell) matters only for cells at minLevel or below that may still be split
        // (and for every such cell of an interior covering).
        let needContains = cell.level >= minLevel && (interior || cell.level + levelMod <= maxLevel)
        let (intersects, contains) = predicates.relate(cell, needContains: needContains)
        guard intersects else { return nil }
        var terminal = false
        if cell.level >= minLevel {
            if interior {
                if contains {
                    terminal = true
                } else if cell.level + levelMod > maxLevel {
                    return nil
                }
            } else if cell.level + levelMod > maxLevel || contains {
                terminal = true
            }
        }
        return Candidate(cell: cell, isTerminal: terminal)
    }

    /// Emits a terminal candidate, or computes its children and queues it.
    private mutating func add(_ candidate: Candidate) {
        if candidate.isTerminal {
            result.append(candidate.cell.id)
            return
        }
        let cell = candidate.cell
        let levels = cell.level < minLevel ? 1 : levelMod
        let start = arena.count
        let terminals = expandChildren(of: cell, levels: levels)
        let count = arena.count - start
        if count == 0 { return }
        if !interior && terminals == 1 << (2 * levels) && cell.level >= minLevel {
            // Every descendant is fully covered: keep the cell itself.
            arena.removeLast(count)
            result.append(cell.id)
            return
        }
        queue.push(QueuedCandidate(cell: cell, childStart: start, childCount: count), terminals: terminals)
    }

    /// Appends to the arena the candidates `levels` levels below `cell`; returns how many are
    /// terminal.
    private mutating func expandChildren(of cell: Cell, levels: Int) -> Int {
        guard cell.level < CellID.maxLevel else { return 0 }
        var terminals = 0
        let split = cell.childSplit
        for k in 0..<4 {
            let child = cell.child(k, split: split)
            if levels > 1 {
                if predicates.mayIntersect(child) {
                    terminals += expandChildren(of: child, levels: levels - 1)
                }
            } else if let candidate = makeCandidate(child) {
                arena.append(candidate)
                if candidate.isTerminal { terminals += 1 }
            }
        }
        return terminals
    }
}

/// A cell under consideration by ``CoveringBuilder``.
struct Candidate {
    let cell: Cell
    let isTerminal: Bool
}

/// A candidate waiting in the queue, with its children at `arena[childStart ..< childStart + childCount]`.
struct QueuedCandidate {
    let cell: Cell
    let childStart: Int
    let childCount: Int
}

/// A binary min-heap of candidates keyed by (level, children, terminals, insertion order),
/// packed into one integer: level in bits 58…63, children in 51…57, terminals in 44…50 (both at
/// most 64), insertion order below.
struct CandidateQueue {
    private var heap = BinaryHeap<(key: UInt64, slot: Int)>(capacity: 32) { $0.key < $1.key }
    private var slots: [QueuedCandidate] = []
    private var counter: UInt64 = 0

    init() {
        slots.reserveCapacity(32)
    }

    var count: Int { heap.count }

    mutating func push(_ candidate: QueuedCandidate, terminals: Int) {
        let key = UInt64(candidate.cell.level) << 58 | UInt64(candidate.childCount) << 51
            | UInt64(terminals) << 44 | counter
        counter += 1
        slots.append(candidate)
        heap.push((key, slots.count - 1))
    }

    mutating func pop() -> QueuedCandidate? {
        heap.popFirst().map { slots[$0.slot] }
    }
}
