/// Conversions between cell ids and positions on the sphere.
extension CellID {
    /// The leaf cell containing a point (which need not be unit length).
    ///
    /// face = axis of the largest |component| (+3 if negative); (u, v) on that face; s, t by the
    /// quadratic transform; i, j = clamp(floor(2³⁰ s)); Hilbert position from (face, i, j).
    /// Bit-identical to S2's `S2CellId(const S2Point&)`. Non-finite input yields some valid leaf
    /// rather than trapping.
    public init(_ point: S2Point) {
        let face = FaceProjection.face(of: point)
        let (u, v) = FaceProjection.validFaceXYZToUV(face, point)
        let i = FaceProjection.stToIJ(FaceProjection.uvToST(u))
        let j = FaceProjection.stToIJ(FaceProjection.uvToST(v))
        self.init(face: face, i: i, j: j)
    }

    /// The leaf cell containing a coordinate, after ``LatLng/normalized`` (like S2's
    /// `S2CellId(S2LatLng)`).
    public init(_ latLng: LatLng) {
        self.init(latLng.normalized.toPoint())
    }

    /// The leaf cell at leaf coordinates (i, j) of `face`. Coordinates are clamped to
    /// 0…2³⁰ − 1 and the face to 0…5.
    public init(face: Int, i: Int, j: Int) {
        let face = Swift.max(0, Swift.min(5, face))
        let i = Swift.max(0, Swift.min(FaceProjection.maxSize - 1, i))
        let j = Swift.max(0, Swift.min(FaceProjection.maxSize - 1, j))
        let table = HilbertCurve.tablePointer
        var n = UInt64(face) << UInt64(Self.positionBits - 1)
        var bits = face & HilbertCurve.swapMask
        for k in stride(from: 7, through: 0, by: -1) {
            let shift = k &* 4
            bits &+= ((i &>> shift) & 15) &<< 6
            bits &+= ((j &>> shift) & 15) &<< 2
            bits = Int(table[bits])
            n |= UInt64(truncatingIfNeeded: bits &>> 2) &<< UInt64(truncatingIfNeeded: 2 &* shift)
            bits &= HilbertCurve.swapMask | HilbertCurve.invertMask
        }
        self.init(id: (n << 1) | 1)
    }

    /// Decodes the face and the leaf coordinates (i, j) of this id.
    ///
    /// For a leaf these are its own coordinates; for a larger cell they are the coordinates of
    /// one leaf inside it (the sentinel bit selects it), so `i & ~(size − 1)` with
    /// `size = 1 << (30 − level)` gives the cell's lower corner.
    public var faceIJ: (face: Int, i: Int, j: Int) {
        let decoded = decodeFaceIJ()
        return (decoded.face, decoded.i, decoded.j)
    }

    /// Face, leaf coordinates and the Hilbert orientation of this cell.
    func decodeFaceIJ() -> (face: Int, i: Int, j: Int, orientation: Int) {
        let face = self.face
        let table = HilbertCurve.tablePointer + HilbertCurve.ijTableOffset
        var bits = face & HilbertCurve.swapMask
        var i = 0
        var j = 0
        for k in stride(from: 7, through: 0, by: -1) {
            // The top chunk holds maxLevel − 7·4 = 2 levels, the others 4.
            let levels = k == 7 ? Self.maxLevel - 7 * HilbertCurve.lookupBits : HilbertCurve.lookupBits
            let chunk = (id &>> UInt64(truncatingIfNeeded: 8 &* k &+ 1)) & ((UInt64(1) &<< UInt64(truncatingIfNeeded: 2 &* levels)) &- 1)
            bits &+= Int(truncatingIfNeeded: chunk) &<< 2
            bits = Int(table[bits])
            i &+= (bits &>> 6) &<< (k &* 4)
            j &+= ((bits &>> 2) & 15) &<< (k &* 4)
            bits &= HilbertCurve.swapMask | HilbertCurve.invertMask
        }
        // The decoded path continues below the cell along child 2 then children 0; every child 0
        // step toggles the swap bit, so undo an odd number of them.
        if (lsb & 0x1111_1111_1111_1110) != 0 {
            bits ^= HilbertCurve.swapMask
        }
        return (face, i, j, bits)
    }

    /// The cell's leaf-coordinate bounds: lower corner (iLo, jLo) and edge length `size`.
    func ijBounds() -> (face: Int, iLo: Int, jLo: Int, size: Int) {
        let (face, i, j, _) = decodeFaceIJ()
        let size = 1 << (Self.maxLevel - Swift.max(0, Swift.min(Self.maxLevel, level)))
        return (face, i & ~(size - 1), j & ~(size - 1), size)
    }

    /// The centre of the cell as a unit vector: the point at the cell's (s, t) midpoint.
    ///
    /// For a leaf, `CellID(id.toPoint()) == id`.
    public func toPoint() -> S2Point {
        let (face, iLo, jLo, size) = ijBounds()
        let s = Double(2 * iLo + size) / (2 * FaceProjection.maxSizeDouble)
        let t = Double(2 * jLo + size) / (2 * FaceProjection.maxSizeDouble)
        return FaceProjection.faceUVToXYZ(face, FaceProjection.stToUV(s), FaceProjection.stToUV(t)).normalized
    }

    /// The centre of the cell as a coordinate.
    public func toLatLng() -> LatLng {
        LatLng(toPoint())
    }
}

/// Tokens: the compact hexadecimal form of an id.
extension CellID {
    /// Lower-case hex of the id with trailing zeros removed; "X" for ``none``.
    public var token: String {
        guard id != 0 else { return "X" }
        let hex = String(id, radix: 16)
        let padded = String(repeating: "0", count: 16 - hex.count) + hex
        var end = padded.endIndex
        while end > padded.startIndex {
            let before = padded.index(before: end)
            guard padded[before] == "0" else { break }
            end = before
        }
        return String(padded[..<end])
    }

    /// Parses a token: 1–16 hex digits (either case), right-padded with zeros; "X" (or "x") is
    /// ``none``. Returns nil for anything else. The parsed id is not validated: check
    /// ``isValid``.
    public init?(token: String) {
        if token == "X" || token == "x" {
            self.init(id: 0)
            return
        }
        let utf8 = token.utf8
        guard (1...16).contains(utf8.count) else { return nil }
        var value: UInt64 = 0
        for byte in utf8 {
            let digit: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt64(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt64(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = (value << 4) | digit
        }
        self.init(id: value << UInt64(4 * (16 - utf8.count)))
    }
}
