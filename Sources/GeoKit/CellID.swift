/// A 64-bit S2 cell identifier, bit-for-bit compatible with the S2 geometry library.
///
/// Layout: 3 face bits, then 2 bits per level of Hilbert-curve position (level 1 first), then a
/// single 1 bit (the sentinel), then zeros. A leaf (level 30) cell ends in the sentinel bit; a
/// face (level 0) cell is `face << 61 | 1 << 60`.
///
/// Invariants of a *valid* id (``isValid``): face < 6 and the lowest set bit is at an even
/// position. All leaf ids inside a cell form the contiguous range ``rangeMin``…``rangeMax``,
/// so a set of cells becomes a few B-tree range scans. Ids order (``Comparable``) as unsigned
/// integers, which is Hilbert-curve order within and across faces; the signed ``int64Key``
/// (MongoDB's storage form) orders faces 4 and 5 before faces 0–3.
///
/// Methods on invalid ids never trap but return unspecified values; check ``isValid`` on ids
/// that come from outside (tokens, stored keys).
public struct CellID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The raw 64-bit id.
    public let id: UInt64

    /// Creates a cell id from its raw 64-bit value (not validated).
    public init(id: UInt64) {
        self.id = id
    }

    /// The number of levels below a face cell; leaf cells are at this level.
    public static let maxLevel = 30
    /// The number of bits of Hilbert position below the face bits (2 per level, plus sentinel).
    static let positionBits = 2 * maxLevel + 1
    static let faceBits = 3

    /// The invalid id 0 (token "X").
    public static let none = CellID(id: 0)
    /// An invalid id greater than every valid id.
    public static let sentinel = CellID(id: UInt64.max)

    /// The face cell 0…5 (level 0). Faces outside 0…5 give an invalid id.
    public static func face(_ face: Int) -> CellID {
        CellID(id: (UInt64(truncatingIfNeeded: face) << UInt64(positionBits)) &+ lsb(forLevel: 0))
    }

    /// The lowest set bit of any cell at `level` (clamped to 0…30): `1 << 2(30 − level)`.
    public static func lsb(forLevel level: Int) -> UInt64 {
        let clamped = Swift.max(0, Swift.min(maxLevel, level))
        return UInt64(1) << UInt64(2 * (maxLevel - clamped))
    }

    /// The face, 0…5 for valid ids.
    public var face: Int {
        Int(id >> UInt64(Self.positionBits))
    }

    /// The Hilbert position along the face, with the sentinel bit (61 bits).
    public var position: UInt64 {
        id & (UInt64.max >> UInt64(Self.faceBits))
    }

    /// The lowest set bit of the id (0 for ``none``).
    public var lsb: UInt64 {
        id & (0 &- id)
    }

    /// The subdivision level, 0 (face) … 30 (leaf).
    public var level: Int {
        guard id != 0 else { return -1 }
        return Self.maxLevel - (id.trailingZeroBitCount >> 1)
    }

    /// Whether the id is a valid cell: face < 6 and the sentinel is at an even bit position.
    public var isValid: Bool {
        face < 6 && (lsb & 0x1555_5555_5555_5555) != 0
    }

    /// Whether this is a leaf (level 30) cell.
    public var isLeaf: Bool {
        (id & 1) != 0
    }

    /// Whether this is a face (level 0) cell.
    public var isFace: Bool {
        (id & (Self.lsb(forLevel: 0) &- 1)) == 0
    }

    /// The first leaf id contained in this cell.
    public var rangeMin: CellID {
        CellID(id: id &- (lsb &- 1))
    }

    /// The last leaf id contained in this cell.
    public var rangeMax: CellID {
        CellID(id: id &+ (lsb &- 1))
    }

    /// Whether `other` lies within this cell (a cell contains itself).
    public func contains(_ other: CellID) -> Bool {
        other >= rangeMin && other <= rangeMax
    }

    /// Whether the two cells share any leaf (one contains the other).
    public func intersects(_ other: CellID) -> Bool {
        other.rangeMin <= rangeMax && other.rangeMax >= rangeMin
    }

    /// The parent cell (one level up). The parent of a face cell is returned as the face itself.
    public func parent() -> CellID {
        guard !isFace else { return self }
        let newLsb = lsb << 2
        return CellID(id: (id & (0 &- newLsb)) | newLsb)
    }

    /// The ancestor at `level`, clamped to 0…``level`` (so `parent(level: self.level)` is self).
    public func parent(level: Int) -> CellID {
        let target = Swift.max(0, Swift.min(self.level, level))
        let newLsb = Self.lsb(forLevel: target)
        return CellID(id: (id & (0 &- newLsb)) | newLsb)
    }

    /// The child at Hilbert position 0…3 (only the low two bits of `position` are used).
    /// Leaf cells have no children; for them the result is invalid.
    public func child(position: Int) -> CellID {
        let newLsb = lsb >> 2
        let k = UInt64(truncatingIfNeeded: position & 3)
        return CellID(id: id &- lsb &+ (2 &* k &+ 1) &* newLsb)
    }

    /// The four children in Hilbert-curve order (empty for a leaf).
    public var children: [CellID] {
        guard !isLeaf else { return [] }
        return (0..<4).map { child(position: $0) }
    }

    /// The Hilbert position 0…3 of this cell's ancestor at `level` (1…level) within its parent.
    public func childPosition(level: Int) -> Int {
        let clamped = Swift.max(1, Swift.min(Self.maxLevel, level))
        return Int((id >> UInt64(2 * (Self.maxLevel - clamped) + 1)) & 3)
    }

    /// The first child (for iteration with ``next`` up to ``childEnd``).
    public var childBegin: CellID {
        CellID(id: id &- lsb &+ (lsb >> 2))
    }

    /// One past the last child: compare with `!=` while iterating with ``next``.
    public var childEnd: CellID {
        CellID(id: id &+ lsb &+ (lsb >> 2))
    }

    /// The first descendant at `level` (≥ this level).
    public func childBegin(level: Int) -> CellID {
        CellID(id: id &- lsb &+ Self.lsb(forLevel: level))
    }

    /// One past the last descendant at `level` (≥ this level).
    public func childEnd(level: Int) -> CellID {
        CellID(id: id &+ lsb &+ Self.lsb(forLevel: level))
    }

    /// The first cell at `level` in Hilbert order over all faces.
    public static func begin(level: Int) -> CellID {
        face(0).childBegin(level: level)
    }

    /// One past the last cell at `level` over all faces (not a valid cell).
    public static func end(level: Int) -> CellID {
        face(5).childEnd(level: level)
    }

    /// The next cell at the same level along the Hilbert curve (may cross to the next face;
    /// after the last cell of face 5 the result is not valid).
    public var next: CellID {
        CellID(id: id &+ (lsb << 1))
    }

    /// The previous cell at the same level along the Hilbert curve.
    public var prev: CellID {
        CellID(id: id &- (lsb << 1))
    }

    /// The id as a signed 64-bit integer with the same bits: MongoDB's index key. Faces 4 and 5
    /// are negative.
    public var int64Key: Int64 {
        Int64(bitPattern: id)
    }

    /// The cell id whose bits are those of a signed index key.
    public init(int64Key: Int64) {
        self.id = UInt64(bitPattern: int64Key)
    }

    /// The level of the deepest common ancestor of two cells, or nil if they are on different
    /// faces.
    public func commonAncestorLevel(_ other: CellID) -> Int? {
        let bits = Swift.max(id ^ other.id, Swift.max(lsb, other.lsb))
        let highest = 63 - bits.leadingZeroBitCount
        guard highest <= 60 else { return nil }
        return (60 - highest) >> 1
    }

    public static func < (lhs: CellID, rhs: CellID) -> Bool {
        lhs.id < rhs.id
    }

    /// `face/digits`, e.g. "3/0231" for a level-4 cell on face 3; "Invalid: <hex>" otherwise.
    public var description: String {
        guard isValid else { return "Invalid: \(String(id, radix: 16))" }
        var text = "\(face)/"
        for level in stride(from: 1, through: level, by: 1) {
            text += String(childPosition(level: level))
        }
        return text
    }
}
