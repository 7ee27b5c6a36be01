import Glibc

extension CellID {
    /// The cells of the same level around this one: up to 8 (fewer near a cube corner, where
    /// three faces meet), in no particular order.
    ///
    /// Found by stepping one cell in the face's (i, j) grid and, beyond the face edge, mapping the
    /// stepped cell's centre through (u, v) → xyz onto the adjacent face, so it is exact at face
    /// boundaries without per-face rotation tables. Meant for levels ≥ 2. (Within the face the
    /// stepped cell is taken directly from its leaf coordinates, which is the same cell.)
    public func neighborhood() -> [CellID] {
        let (face, iLo, jLo, size) = ijBounds()
        let cellLevel = level
        var out: [CellID] = []
        out.reserveCapacity(8)
        for di in -1...1 {
            for dj in -1...1 where di != 0 || dj != 0 {
                let i = iLo + di * size, j = jLo + dj * size
                let neighbor: CellID
                if i >= 0 && i < FaceProjection.maxSize && j >= 0 && j < FaceProjection.maxSize {
                    // Within the face: the cell at the stepped corner.
                    neighbor = CellID(face: face, i: i, j: j).parent(level: cellLevel)
                } else {
                    let s = (Double(i) + Double(size) / 2) / FaceProjection.maxSizeDouble
                    let t = (Double(j) + Double(size) / 2) / FaceProjection.maxSizeDouble
                    let point = FaceProjection.faceUVToXYZ(face, FaceProjection.stToUV(s), FaceProjection.stToUV(t)).normalized
                    neighbor = CellID(point).parent(level: cellLevel)
                }
                if neighbor != self && !out.contains(neighbor) { out.append(neighbor) }
            }
        }
        return out
    }

    /// The deepest level whose cells are at least `width` wide everywhere (S2's minimum cell
    /// width for the quadratic projection: 2√2/3 · 2⁻ˡᵉᵛᵉˡ radians), clamped to 0…30. Total:
    /// no width (zero, negative, NaN) or one too small for any level is the deepest level, an
    /// infinite one level 0.
    public static func level(forMinimumWidth width: Angle) -> Int {
        let derivative = 2 * 2.0.squareRoot() / 3
        guard width.radians > 0 else { return maxLevel }
        // Clamped while still a Double: a denormal width makes the quotient infinite, and
        // converting an infinite level to Int would trap.
        let level = floor(log2(derivative / width.radians))
        return Int(Swift.max(0, Swift.min(Double(maxLevel), level)))
    }
}
