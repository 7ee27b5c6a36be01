/// The client id an import gives a point that has none of its own:
/// `<format tag>:<epoch ms>:<latitude E7>:<longitude E7>` (decimal integers without leading zeros,
/// `-` for negatives; E7 = degrees × 10⁷ rounded), so the same point of the same file imports
/// once however often the file is imported.
///
/// Such an id names the point's own time, so a store can look it up where the device's history
/// at that time is (`timestamp(in:)`) instead of in a separate index of client ids; `isDerived`
/// tells an id made here for that very fix from one a client sent.
public enum ImportPointID {
    /// The tags of every import format, the id's first field.
    static let tags: [[UInt8]] = ImportFormat.allCases.map { Array($0.clientIDTag.utf8) }

    /// The id of `fix` imported from `format`. Coordinates are validated (|lat| ≤ 90,
    /// |lng| ≤ 180) before this is called, so the E7 values fit easily in `Int64`.
    public static func make(for fix: Fix, format: ImportFormat) -> String {
        let (latE7, lngE7) = e7(fix)
        // Written digit by digit into one buffer, nothing allocated but the string: this runs
        // for every imported fix.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 80) { buffer in
            var n = 0
            for c in format.clientIDTag.utf8 { buffer[n] = c; n += 1 }
            func field(_ value: Int64) {
                buffer[n] = UInt8(ascii: ":")
                n += 1
                n += writeDecimal(value, into: UnsafeMutableBufferPointer(rebasing: buffer[n...]))
            }
            field(fix.timestamp)
            field(latE7)
            field(lngE7)
            return String(decoding: buffer[..<n], as: UTF8.self)
        }
    }

    /// What a client id says of the fix it came with.
    public enum Naming: Equatable, Sendable {
        /// Exactly the id an import makes for this fix (of some format): unique to the fix's
        /// time and position.
        case thisFix
        /// An id of the import shape that an import would make for another point, at `timestamp`.
        case otherPoint(timestamp: Int64)
    }

    /// How `id` names `fix`; nil when it is not of the import shape. One pass over the id.
    public static func naming(of id: String, for fix: Fix) -> Naming? {
        guard let fields = fields(of: id) else { return nil }
        guard fields.timestamp == fix.timestamp, fix.latitude.isFinite, fix.longitude.isFinite,
              abs(fix.latitude) <= 90, abs(fix.longitude) <= 180 else { return .otherPoint(timestamp: fields.timestamp) }
        let (latE7, lngE7) = e7(fix)
        return fields.latitudeE7 == latE7 && fields.longitudeE7 == lngE7 ? .thisFix : .otherPoint(timestamp: fields.timestamp)
    }

    /// Whether `id` is exactly the id an import makes for `fix` (of some format).
    public static func isDerived(_ id: String, for fix: Fix) -> Bool { naming(of: id, for: fix) == .thisFix }

    /// The timestamp an id of the import shape names (whoever sent it), else nil.
    public static func timestamp(in id: String) -> Int64? { fields(of: id)?.timestamp }

    /// Degrees × 10⁷, rounded; the caller has checked the range.
    static func e7(_ fix: Fix) -> (latitude: Int64, longitude: Int64) {
        (Int64((fix.latitude * 1e7).rounded()), Int64((fix.longitude * 1e7).rounded()))
    }

    /// The three numbers of an id of the import shape: a known tag, then three integers in the
    /// form `make` writes them, separated by `:` (so two ids are equal exactly when tag and
    /// numbers are).
    static func fields(of id: String) -> (timestamp: Int64, latitudeE7: Int64, longitudeE7: Int64)? {
        var id = id
        return id.withUTF8 { bytes -> (Int64, Int64, Int64)? in
            let colon = UInt8(ascii: ":")
            guard bytes.count <= 80, let tagEnd = bytes.firstIndex(of: colon),
                  tags.contains(where: { $0.elementsEqual(bytes[..<tagEnd]) }) else { return nil }
            // The rest splits into exactly three fields.
            guard let first = bytes[(tagEnd + 1)...].firstIndex(of: colon),
                  let second = bytes[(first + 1)...].firstIndex(of: colon),
                  !bytes[(second + 1)...].contains(colon),
                  let timestamp = canonicalInteger(bytes[(tagEnd + 1)..<first]),
                  let latitudeE7 = canonicalInteger(bytes[(first + 1)..<second]),
                  let longitudeE7 = canonicalInteger(bytes[(second + 1)...]) else { return nil }
            return (timestamp, latitudeE7, longitudeE7)
        }
    }

    /// A decimal integer in `writeDecimal`'s form (optional `-`, no leading zeros, no `-0`) that
    /// fits in `Int64`, else nil.
    static func canonicalInteger(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> Int64? {
        var rest = digits[...]
        let negative = rest.first == UInt8(ascii: "-")
        if negative { rest = rest.dropFirst() }
        guard let first = rest.first, (1...19).contains(rest.count),
              first != UInt8(ascii: "0") || (rest.count == 1 && !negative) else { return nil }
        var magnitude: Int64 = 0
        for byte in rest {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !o1, !o2 else { return nil }
            magnitude = sum
        }
        return negative ? -magnitude : magnitude
    }

    /// Writes `value` in decimal at the start of `out` (room for 20 bytes); returns the length.
    static func writeDecimal(_ value: Int64, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var magnitude = value.magnitude
        var n = 0
        if value < 0 { out[0] = UInt8(ascii: "-"); n = 1 }
        let start = n
        repeat {
            out[n] = UInt8(truncatingIfNeeded: 48 &+ magnitude % 10)
            magnitude /= 10
            n += 1
        } while magnitude > 0
        var i = start, j = n - 1
        while i < j { out.swapAt(i, j); i += 1; j -= 1 }
        return n
    }
}
