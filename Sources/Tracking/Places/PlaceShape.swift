import GeoKit

/// A place's region with the cell covering the place index stores.
///
/// Invariant: every point `region` contains lies in a cell of `covering` (a normalised
/// `RegionCoverer` covering at the index levels), so a fix whose leaf cell is in no covering
/// cell is outside the place. The covering is what makes finding a fix's places a few index
/// probes: the place cells that can contain leaf `L` are `L`'s ancestors at `indexLevels`.
public struct PlaceShape: Sendable {
    public let region: PlaceRegion
    /// Normalised covering cells, at `indexLevels` only.
    public let covering: [CellID]

    /// Levels 4, 6, …, 22 (cells from ~600 km to ~2 m), at most 8 cells a place: a 25 m circle
    /// is covered by a few level-18…22 cells, a 50 km one by a few level-6…8 cells.
    public static let coverer = RegionCoverer(minLevel: 4, maxLevel: 22, levelMod: 2, maxCells: 8)
    /// The levels covering cells can have.
    public static let indexLevels = Array(stride(from: 4, through: 22, by: 2))

    public init(region: PlaceRegion) {
        self.region = region
        covering = region.covering(Self.coverer)
    }

    /// Whether the leaf cell `leaf` lies in the covering (false means surely outside).
    public func mayContain(_ leaf: CellID) -> Bool {
        covering.contains { $0.contains(leaf) }
    }

    /// The index cells that contain `cell` (or equal it): its ancestors at `indexLevels` not finer
    /// than it. A place whose covering has a cell containing `cell` has one of these.
    public static func probeCells(containing cell: CellID) -> [CellID] {
        indexLevels.filter { $0 <= cell.level }.map { cell.parent(level: $0) }
    }

    /// The smallest cell containing every cell of `leaves` (nil when empty or on different faces).
    public static func commonAncestor(of leaves: [CellID]) -> CellID? {
        guard let first = leaves.first else { return nil }
        var level = CellID.maxLevel
        for leaf in leaves.dropFirst() {
            guard let common = first.commonAncestorLevel(leaf) else { return nil }
            level = min(level, common)
        }
        return first.parent(level: level)
    }
}
