/// The S2 cube-face projection: sphere ↔ (face, u, v) ↔ (face, s, t) ↔ (face, i, j).
///
/// - The sphere is projected onto the six faces of the cube [-1, 1]³. Face k (0…5) is the cube
///   face whose outward axis is +x, +y, +z, -x, -y, -z; a point belongs to the face of its largest
///   absolute component (ties go to the later axis, exactly as in S2).
/// - (u, v) ∈ [-1, 1]² are the gnomonic coordinates on the face; lines of constant u or v are
///   great circles, so cell edges are geodesics.
/// - (s, t) ∈ [0, 1]² apply S2's quadratic area-equalising transform to u and v.
/// - (i, j) ∈ [0, 2³⁰ − 1]² are leaf-cell coordinates, `floor(2³⁰ · s)` clamped.
enum FaceProjection {
    /// The number of leaf cells along a face edge, 2³⁰.
    static let maxSize = 1 << 30
    static let maxSizeDouble = 1073741824.0

    /// The face of a vector: the axis of its largest absolute component, +3 if that component is
    /// negative. Ties and NaNs resolve like S2 (`|x| > |y| ? (|x| > |z| ? 0 : 2) : (|y| > |z| ? 1 : 2)`).
    static func face(of p: S2Point) -> Int {
        let ax = Swift.abs(p.x), ay = Swift.abs(p.y), az = Swift.abs(p.z)
        var face = ax > ay ? (ax > az ? 0 : 2) : (ay > az ? 1 : 2)
        let component = face == 0 ? p.x : (face == 1 ? p.y : p.z)
        if component < 0 { face += 3 }
        return face
    }

    /// (u, v) of `p` on `face`, assuming `p` is in that face's hemisphere.
    static func validFaceXYZToUV(_ face: Int, _ p: S2Point) -> (u: Double, v: Double) {
        switch face {
        case 0: return (p.y / p.x, p.z / p.x)
        case 1: return (-p.x / p.y, p.z / p.y)
        case 2: return (-p.x / p.z, -p.y / p.z)
        case 3: return (p.z / p.x, p.y / p.x)
        case 4: return (p.z / p.y, -p.x / p.y)
        default: return (-p.y / p.z, -p.x / p.z)
        }
    }

    /// (u, v) of `p` on `face`, or nil if `p` is not strictly in that face's hemisphere.
    static func faceXYZToUV(_ face: Int, _ p: S2Point) -> (u: Double, v: Double)? {
        let axisComponent: Double
        switch face {
        case 0: axisComponent = p.x
        case 1: axisComponent = p.y
        case 2: axisComponent = p.z
        case 3: axisComponent = -p.x
        case 4: axisComponent = -p.y
        default: axisComponent = -p.z
        }
        guard axisComponent > 0 else { return nil }
        return validFaceXYZToUV(face, p)
    }

    /// The (unnormalised) vector of (face, u, v).
    static func faceUVToXYZ(_ face: Int, _ u: Double, _ v: Double) -> S2Point {
        switch face {
        case 0: return S2Point(x: 1, y: u, z: v)
        case 1: return S2Point(x: -u, y: 1, z: v)
        case 2: return S2Point(x: -u, y: -v, z: 1)
        case 3: return S2Point(x: -1, y: -v, z: -u)
        case 4: return S2Point(x: v, y: -1, z: -u)
        default: return S2Point(x: v, y: u, z: -1)
        }
    }

    /// The unit outward axis of a face.
    static func faceAxis(_ face: Int) -> S2Point {
        faceUVToXYZ(face, 0, 0)
    }

    /// S2's quadratic transform u → s: `u ≥ 0 ? ½√(1 + 3u) : 1 − ½√(1 − 3u)`.
    static func uvToST(_ u: Double) -> Double {
        if u >= 0 {
            return 0.5 * (1 + 3 * u).squareRoot()
        } else {
            return 1 - 0.5 * (1 - 3 * u).squareRoot()
        }
    }

    /// The inverse of ``uvToST(_:)``: `s ≥ ½ ? (4s² − 1)/3 : (1 − 4(1 − s)²)/3`.
    static func stToUV(_ s: Double) -> Double {
        if s >= 0.5 {
            return (1.0 / 3.0) * (4 * s * s - 1)
        } else {
            return (1.0 / 3.0) * (1 - 4 * (1 - s) * (1 - s))
        }
    }

    /// The leaf coordinate of `s`: `floor(2³⁰ s)` clamped to [0, 2³⁰ − 1]. NaN maps to 0, so
    /// the function never traps.
    static func stToIJ(_ s: Double) -> Int {
        let scaled = maxSizeDouble * s
        guard scaled >= 0 else { return 0 }
        guard scaled < maxSizeDouble - 1 else { return maxSize - 1 }
        return Int(scaled)
    }

    /// The s coordinate of the low edge of leaf column `i`.
    static func ijToST(_ i: Int) -> Double {
        Double(i) / maxSizeDouble
    }
}

/// S2's Hilbert-curve tables, built at first use from the curve's recursive definition.
///
/// Orientation bits: `swapMask` (1) exchanges i and j, `invertMask` (2) complements both. The
/// four sub-cells of a cell with orientation 0 are visited in the order (i, j) = (0,0), (0,1),
/// (1,1), (1,0); each sub-cell's orientation is the parent's XOR `posToOrientation[position]`.
/// The lookup tables map 4 levels at once:
/// `lookupPos[(i₄ << 6) | (j₄ << 2) | orientation] = (pos₈ << 2) | newOrientation` and
/// `lookupIJ[(pos₈ << 2) | orientation] = (i₄ << 6) | (j₄ << 2) | newOrientation`.
enum HilbertCurve {
    static let swapMask = 1
    static let invertMask = 2
    static let lookupBits = 4

    /// `posToIJ[orientation][position]` = (i << 1) | j of the sub-cell visited at `position`.
    static let posToIJ: [[Int]] = [[0, 1, 3, 2], [0, 2, 3, 1], [3, 2, 0, 1], [3, 1, 0, 2]]

    /// The orientation change of the sub-cell at each Hilbert position.
    static let posToOrientation: [Int] = [swapMask, 0, 0, invertMask | swapMask]

    /// Both lookup tables, 1024 entries each.
    static let tables: (pos: [UInt16], ij: [UInt16]) = buildTables()

    static var lookupPos: [UInt16] { tables.pos }
    static var lookupIJ: [UInt16] { tables.ij }

    /// Both tables in one buffer that is never freed (`lookupPos` at 0, `lookupIJ` at
    /// ``ijTableOffset``), so the id encoding and decoding loops read raw memory instead of
    /// retaining arrays. Written once, at first use, and read-only afterwards.
    nonisolated(unsafe) static let tablePointer: UnsafePointer<UInt16> = {
        let (pos, ij) = tables
        let buffer = UnsafeMutablePointer<UInt16>.allocate(capacity: pos.count + ij.count)
        for k in pos.indices { buffer[k] = pos[k] }
        for k in ij.indices { buffer[pos.count + k] = ij[k] }
        return UnsafePointer(buffer)
    }()

    /// Where `lookupIJ` starts in ``tablePointer``.
    static let ijTableOffset = 1 << (2 * lookupBits + 2)

    private static func buildTables() -> (pos: [UInt16], ij: [UInt16]) {
        var pos = [UInt16](repeating: 0, count: 1 << (2 * lookupBits + 2))
        var ij = [UInt16](repeating: 0, count: 1 << (2 * lookupBits + 2))

        func visit(depth: Int, i: Int, j: Int, start: Int, position: Int, orientation: Int) {
            if depth == lookupBits {
                pos[(i << (lookupBits + 2)) | (j << 2) | start] = UInt16((position << 2) | orientation)
                ij[(position << 2) | start] = UInt16((i << (lookupBits + 2)) | (j << 2) | orientation)
                return
            }
            for sub in 0..<4 {
                let bits = posToIJ[orientation][sub]
                visit(depth: depth + 1,
                      i: (i << 1) | (bits >> 1),
                      j: (j << 1) | (bits & 1),
                      start: start,
                      position: (position << 2) | sub,
                      orientation: orientation ^ posToOrientation[sub])
            }
        }
        for start in 0..<4 {
            visit(depth: 0, i: 0, j: 0, start: start, position: 0, orientation: start)
        }
        return (pos, ij)
    }
}
