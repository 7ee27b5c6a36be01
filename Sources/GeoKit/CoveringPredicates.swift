/// The cell predicates of a region as ``RegionCoverer``'s search uses them.
///
/// `relate` answers `mayIntersect(cell)` and, when asked, `contains(cell)` in one call, so that
/// work both need (vertices, edge scans, limits derived from the region) is done once; its
/// answers are exactly those of the region's own ``Region`` predicates. The coverer picks a
/// specialised implementation for GeoKit's common regions once per covering, and falls back to
/// ``RegionPredicates`` for any other region.
protocol CoveringPredicates {
    /// A cap containing the region (where the search starts).
    var capBound: Cap { get }
    /// The region's ``Region/mayIntersect(_:)``.
    func mayIntersect(_ cell: Cell) -> Bool
    /// `(mayIntersect(cell), needContains && mayIntersect(cell) && contains(cell))`.
    func relate(_ cell: Cell, needContains: Bool) -> (intersects: Bool, contains: Bool)
}

/// Any region, through its ``Region`` predicates.
struct RegionPredicates<R: Region>: CoveringPredicates {
    let region: R

    var capBound: Cap { region.capBound }

    func mayIntersect(_ cell: Cell) -> Bool {
        region.mayIntersect(cell)
    }

    func relate(_ cell: Cell, needContains: Bool) -> (intersects: Bool, contains: Bool) {
        guard region.mayIntersect(cell) else { return (false, false) }
        return (true, needContains && region.contains(cell))
    }
}

/// A cap, with its chord limits computed once.
extension CapCellTest: CoveringPredicates {
    var capBound: Cap { cap }
}

/// A latitude-longitude rectangle, with its trigonometry done once.
extension RectCellTest: CoveringPredicates {
    var capBound: Cap { rect.capBound }
}

/// A loop, sharing the bound test, the cell's cap and the parity of its centre between the two
/// predicates (see ``LoopGeometry/relate(_:needInside:)``).
extension Loop: CoveringPredicates {
    func relate(_ cell: Cell, needContains: Bool) -> (intersects: Bool, contains: Bool) {
        let (intersects, inside) = geometry.relate(cell, needInside: needContains)
        return (intersects, inside)
    }
}

/// A polygon: the shell's shared evaluation, then each hole once for both predicates
/// (`mayIntersect` needs the holes' strict containment, `contains` their intersection).
extension Polygon: CoveringPredicates {
    func relate(_ cell: Cell, needContains: Bool) -> (intersects: Bool, contains: Bool) {
        let (intersects, inside) = shell.geometry.relate(cell, needInside: needContains)
        guard intersects else { return (false, false) }
        var contains = inside
        for hole in holes {
            let (holeIntersects, holeInsideStrictly) = hole.geometry.relateHole(cell)
            if holeInsideStrictly { return (false, false) }
            if holeIntersects { contains = false }
        }
        return (true, contains)
    }
}

/// A union of polygons: some member may intersect the cell; some member contains it.
struct MultiPolygonPredicates: CoveringPredicates {
    let multi: MultiPolygon
    let bound: Cap

    init(_ multi: MultiPolygon) {
        self.multi = multi
        bound = multi.capBound
    }

    var capBound: Cap { bound }

    func mayIntersect(_ cell: Cell) -> Bool {
        multi.mayIntersect(cell)
    }

    func relate(_ cell: Cell, needContains: Bool) -> (intersects: Bool, contains: Bool) {
        // A polygon's contains(cell) implies its mayIntersect(cell), so "some member contains"
        // is found among the members that intersect.
        var intersects = false
        for polygon in multi.polygons {
            let (hit, inside) = polygon.relate(cell, needContains: needContains)
            if inside { return (true, true) }
            if hit {
                intersects = true
                if !needContains { break }
            }
        }
        return (intersects, false)
    }
}

extension Polygon {
    /// `(mayIntersect(cell), contains(cell))` in one pass over the edges (the shell's bound
    /// test, cell cap and centre parity shared).
    public func relate(_ cell: Cell) -> (mayIntersect: Bool, contains: Bool) {
        let (intersects, contains) = relate(cell, needContains: true)
        return (intersects, contains)
    }
}

extension MultiPolygon {
    /// `(mayIntersect(cell), contains(cell))` in one pass over each member's edges.
    public func relate(_ cell: Cell) -> (mayIntersect: Bool, contains: Bool) {
        let (intersects, contains) = MultiPolygonPredicates(self).relate(cell, needContains: true)
        return (intersects, contains)
    }
}

extension RegionCoverer {
    /// The raw (unnormalised) output of the candidate search for `region`, run with the
    /// specialised predicates of its concrete type when GeoKit has them.
    func search(_ region: some Region, interior: Bool) -> [CellID] {
        if let cap = region as? Cap {
            return search(predicates: CapCellTest(cap), interior: interior)
        }
        if let rect = region as? LatLngRect {
            return search(predicates: RectCellTest(rect), interior: interior)
        }
        if let polygon = region as? Polygon {
            return search(predicates: polygon, interior: interior)
        }
        if let loop = region as? Loop {
            return search(predicates: loop, interior: interior)
        }
        if let multi = region as? MultiPolygon {
            return search(predicates: MultiPolygonPredicates(multi), interior: interior)
        }
        return search(predicates: RegionPredicates(region: region), interior: interior)
    }

    private func search(predicates: some CoveringPredicates, interior: Bool) -> [CellID] {
        let p = effective
        var builder = CoveringBuilder(predicates: predicates, minLevel: p.minLevel, maxLevel: p.maxLevel,
                                      levelMod: p.levelMod, maxCells: p.maxCells, interior: interior)
        return builder.run()
    }
}
