import GeoKit

extension GeoFilter {
    /// Bytes that identify the filter exactly — its operator, its shape and every number that
    /// shape was built from — for the shapes whose coverings cost work that grows with their
    /// vertices: GeoJSON Polygon and MultiPolygon, and legacy `$polygon`. Nil for the others
    /// (`$near`, circles, boxes, points and lines), whose coverings are cheap.
    ///
    /// Two filters with equal fingerprints cover, match and match cells entirely alike, so a
    /// covering prepared for one serves the other.
    public var coveringFingerprint: [UInt8]? {
        var bytes: [UInt8] = []
        func put(_ value: UInt64) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        func put(_ value: Double) { put(value.bitPattern) }
        func put(loop: Loop) {
            put(UInt64(loop.vertices.count))
            put(loop.boundaryTolerance.radians)
            for vertex in loop.vertices {
                put(vertex.x)
                put(vertex.y)
                put(vertex.z)
            }
        }
        func put(polygon: Polygon) {
            put(UInt64(polygon.holes.count))
            put(loop: polygon.shell)
            for hole in polygon.holes { put(loop: hole) }
        }
        let (operatorTag, shape): (UInt64, GeoShape)
        switch self {
        case .near: return nil
        case .within(let within): (operatorTag, shape) = (1, within)
        case .intersects(let intersects): (operatorTag, shape) = (2, intersects)
        }
        switch shape {
        case .geometry(.polygon(let polygon)):
            put(operatorTag)
            put(UInt64(1))
            put(polygon: polygon)
        case .geometry(.multiPolygon(let multi)):
            put(operatorTag)
            put(UInt64(2))
            put(UInt64(multi.polygons.count))
            for polygon in multi.polygons { put(polygon: polygon) }
        case .polygon(let flat):
            put(operatorTag)
            put(UInt64(3))
            put(UInt64(flat.vertices.count))
            for vertex in flat.vertices {
                put(vertex.x)
                put(vertex.y)
            }
        default:
            return nil
        }
        return bytes
    }
}
