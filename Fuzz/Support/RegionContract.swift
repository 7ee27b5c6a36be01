/// The Region contract GeoKit's coverings rely on, checked around one point.
import GeoKit

/// A point the region contains lies in its cap and rectangle bounds, and every cell around it
/// (at `levels`) may intersect the region; a cell around a point the region does not contain is
/// never claimed as wholly inside.
func checkRegionContract(_ region: any Region, at p: S2Point, levels: [Int], context: @autoclosure () -> String) {
    let inRegion = region.contains(p)
    if inRegion {
        require(region.capBound.contains(p) && region.rectBound.contains(p),
                "\(LatLng(p)) is in the region but not in its bounds: \(context())")
    }
    let leaf = CellID(p)
    for level in levels {
        guard let cell = Cell(leaf.parent(level: level)) else { continue }
        if inRegion {
            require(region.mayIntersect(cell), "region holds \(LatLng(p)) but not the level-\(level) cell around it: \(context())")
        } else {
            require(!region.contains(cell), "region claims the level-\(level) cell around \(LatLng(p)), not the point: \(context())")
        }
    }
}
