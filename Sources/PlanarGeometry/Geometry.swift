internal import CGEOS

/// Owns one `GEOSGeometry*` and destroys it in `deinit`, through the context that created it
/// (which it keeps alive).
///
/// Coordinates are planar `x, y` in whatever unit the caller chose (meters for track
/// simplification, degrees for validity checks). Not `Sendable`: it shares its context's
/// single-thread rule.
package final class Geometry {
    /// The context that created the geometry; kept alive for `deinit`.
    let context: GEOSContext
    /// The owned geometry; valid until `deinit`.
    private let pointer: OpaquePointer

    /// Takes ownership of `pointer`, which `context` created.
    private init(context: GEOSContext, taking pointer: OpaquePointer) {
        self.context = context
        self.pointer = pointer
    }

    deinit {
        GEOSGeom_destroy_r(context.handle, pointer)
    }

    /// A LineString through interleaved coordinates `[x0, y0, x1, y1, …]`.
    ///
    /// - Throws: `.invalidInput` for fewer than 2 points, an odd count, non-finite values or more
    ///   than `UInt32.max` points; `.geos` when GEOS fails.
    package static func lineString(xy: [Double], in context: GEOSContext) throws(PlanarGeometryError) -> Geometry {
        guard xy.count >= 4 else { throw .invalidInput("a line needs at least 2 points, got \(xy.count / 2)") }
        let sequence = try coordinateSequence(xy: xy, in: context)
        // GEOS takes ownership of the sequence, also when it fails.
        let line = try context.check(GEOSGeom_createLineString_r(context.handle, sequence), "GEOSGeom_createLineString_r")
        return Geometry(context: context, taking: line)
    }

    /// A Polygon without holes whose shell is the closed ring `[x0, y0, …, x0, y0]`.
    ///
    /// - Throws: `.invalidInput` for fewer than 4 points, an open ring or non-finite values;
    ///   `.geos` when GEOS fails.
    package static func polygon(shellXY xy: [Double], in context: GEOSContext) throws(PlanarGeometryError) -> Geometry {
        guard xy.count >= 8 else { throw .invalidInput("a ring needs at least 4 points, got \(xy.count / 2)") }
        guard xy[0] == xy[xy.count - 2] && xy[1] == xy[xy.count - 1] else {
            throw .invalidInput("the ring is not closed (first and last points differ)")
        }
        let sequence = try coordinateSequence(xy: xy, in: context)
        // Ownership of the sequence passes to the ring, and of the ring to the polygon, even on
        // failure.
        let ring = try context.check(GEOSGeom_createLinearRing_r(context.handle, sequence), "GEOSGeom_createLinearRing_r")
        let polygon = try context.check(GEOSGeom_createPolygon_r(context.handle, ring, nil, 0), "GEOSGeom_createPolygon_r")
        return Geometry(context: context, taking: polygon)
    }

    /// Copies interleaved 2D coordinates into a new GEOS coordinate sequence (owned by the
    /// caller until handed to a geometry constructor).
    private static func coordinateSequence(xy: [Double], in context: GEOSContext) throws(PlanarGeometryError) -> OpaquePointer {
        guard xy.count % 2 == 0 else { throw .invalidInput("odd number of coordinates") }
        guard let count = UInt32(exactly: xy.count / 2) else { throw .invalidInput("too many points: \(xy.count / 2)") }
        if let bad = xy.firstIndex(where: { !$0.isFinite }) {
            throw .invalidInput("point \(bad / 2) has a non-finite coordinate")
        }
        let sequence = xy.withUnsafeBufferPointer { buffer in
            GEOSCoordSeq_copyFromBuffer_r(context.handle, buffer.baseAddress, count, 0, 0)
        }
        return try context.check(sequence, "GEOSCoordSeq_copyFromBuffer_r")
    }

    /// The topology-preserving Douglas-Peucker simplification (`GEOSTopologyPreserveSimplify_r`):
    /// drops vertices within `tolerance` (same unit as the coordinates) of the simplified line
    /// without creating new self-intersections. Endpoints of a LineString are kept; vertices are
    /// only removed, never moved.
    package func topologyPreservingSimplified(tolerance: Double) throws(PlanarGeometryError) -> Geometry {
        let result = try context.check(GEOSTopologyPreserveSimplify_r(context.handle, pointer, tolerance),
                                       "GEOSTopologyPreserveSimplify_r")
        return Geometry(context: context, taking: result)
    }

    /// The coordinates of a Point, LineString or LinearRing as `[x0, y0, x1, y1, …]`.
    package func coordinatesXY() throws(PlanarGeometryError) -> [Double] {
        // The sequence belongs to the geometry: read it, never free it.
        let sequence = try context.check(GEOSGeom_getCoordSeq_r(context.handle, pointer), "GEOSGeom_getCoordSeq_r")
        var size: UInt32 = 0
        try context.check(status: GEOSCoordSeq_getSize_r(context.handle, sequence, &size), "GEOSCoordSeq_getSize_r")
        guard size > 0 else { return [] }
        var xy = [Double](repeating: 0, count: Int(size) * 2)
        let status = xy.withUnsafeMutableBufferPointer { buffer in
            GEOSCoordSeq_copyToBuffer_r(context.handle, sequence, buffer.baseAddress, 0, 0)
        }
        try context.check(status: status, "GEOSCoordSeq_copyToBuffer_r")
        return xy
    }

    /// Why the geometry is invalid (`GEOSisValidReason_r`), e.g. `Self-intersection[0.5 0.5]`,
    /// or nil when GEOS finds it valid.
    package func validityReason() throws(PlanarGeometryError) -> String? {
        let text = try context.check(GEOSisValidReason_r(context.handle, pointer), "GEOSisValidReason_r")
        defer { GEOSFree_r(context.handle, text) }
        let reason = String(cString: text)
        return reason == "Valid Geometry" ? nil : reason
    }
}
