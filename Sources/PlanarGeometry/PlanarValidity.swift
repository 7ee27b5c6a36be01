/// Planar validity diagnostics from GEOS, used to say *why* a polygon loop is rejected (e.g. to
/// enrich "Loop is not valid" messages with `Self-intersection[0.5 0.5]`).
///
/// The check is planar: longitude and latitude are taken as x and y in degrees, which matches
/// how clients draw GeoJSON. A ring GEOS finds valid may still be rejected on the sphere (and
/// vice versa for rings spanning more than a hemisphere), so use this for explanations, not
/// decisions.
///
/// Thread safety: every call creates and frees its own GEOS context.
public enum PlanarValidity {
    /// Why the polygon with this exterior ring is invalid in the plane, or nil when GEOS finds
    /// it valid.
    ///
    /// The ring is closed first if its last position differs from the first. Returns
    /// - GEOS's reason (`GEOSisValidReason_r`), e.g. `Self-intersection[0.5 0.5]` or
    ///   `Too few points in geometry component[0 0]`, with coordinates as `lon lat`;
    /// - `Too few points: a ring needs at least 4 positions, got N` when even the closed ring is
    ///   too short for GEOS to build;
    /// - `Invalid coordinate at position N` for a non-finite value;
    /// - nil also when GEOS itself fails (e.g. cannot allocate a context): there is then no
    ///   detail to add.
    ///
    /// - Parameter ring: `(longitude, latitude)` positions in degrees.
    public static func reason(ofRing ring: [(longitude: Double, latitude: Double)]) -> String? {
        if let bad = ring.firstIndex(where: { !$0.longitude.isFinite || !$0.latitude.isFinite }) {
            return "Invalid coordinate at position \(bad)"
        }
        var xy: [Double] = []
        xy.reserveCapacity(ring.count * 2 + 2)
        for position in ring {
            xy.append(position.longitude)
            xy.append(position.latitude)
        }
        if let first = ring.first, let last = ring.last, first != last {
            xy.append(first.longitude)
            xy.append(first.latitude)
        }
        guard xy.count >= 8 else {
            return "Too few points: a ring needs at least 4 positions, got \(xy.count / 2)"
        }
        do {
            let context = try GEOSContext()
            return try Geometry.polygon(shellXY: xy, in: context).validityReason()
        } catch {
            return nil
        }
    }
}
