import Tracking
/// One row of `index_queue`: the fixes one append stored, whose sequences are contiguous from
/// `firstSequence` (the row's key). Stored as one blob per append so that the acknowledgement
/// path writes one queue row per request, not one per fix.
///
/// Blob layout, per fix, little-endian: timestamp (Int64 ms), leaf cell (Int64, signed key),
/// longitude and latitude (IEEE-754 Float64 degrees), client-id length (UInt16; 0xFFFF = none)
/// and its UTF-8 bytes. Device key and sequence are not repeated per fix: they follow from the
/// row.
struct IndexQueueRecord {
    let firstSequence: Int64
    let deviceKey: Int64
    /// The fixes as cell-index entries (of `deviceKey`, sequences from `firstSequence` on),
    /// each with its client id.
    let items: [(entry: IndexEntry, clientID: String?)]

    static let noClientID = UInt16.max

    /// The last sequence of the row.
    var lastSequence: Int64 { firstSequence + Int64(items.count) - 1 }

    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(items.count * 40)
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        for (entry, clientID) in items {
            append(entry.timestamp)
            append(entry.cell)
            append(entry.longitude.bitPattern)
            append(entry.latitude.bitPattern)
            if let clientID {
                let length = clientID.utf8.count
                precondition(length < Int(Self.noClientID), "client ids are validated to be short")
                append(UInt16(length))
                bytes.append(contentsOf: clientID.utf8)
            } else {
                append(Self.noClientID)
            }
        }
        return bytes
    }

    /// Decodes a blob written by `encoded`; nil if it is not one (a damaged row).
    static func decode(firstSequence: Int64, deviceKey: Int64, bytes: [UInt8]) -> IndexQueueRecord? {
        var items: [(entry: IndexEntry, clientID: String?)] = []
        var offset = 0
        func read<T: FixedWidthInteger>(_: T.Type) -> T? {
            let size = MemoryLayout<T>.size
            guard offset + size <= bytes.count else { return nil }
            var value = T.zero
            for i in 0..<size { value |= T(bytes[offset + i]) << (8 * i) }
            offset += size
            return value
        }
        while offset < bytes.count {
            guard let timestamp = read(Int64.self), let cell = read(Int64.self),
                  let lon = read(UInt64.self), let lat = read(UInt64.self), let length = read(UInt16.self) else { return nil }
            var clientID: String?
            if length != noClientID {
                guard offset + Int(length) <= bytes.count else { return nil }
                clientID = String(decoding: bytes[offset..<(offset + Int(length))], as: UTF8.self)
                offset += Int(length)
            }
            let entry = IndexEntry(cell: cell, deviceKey: DeviceKey(storeValue: deviceKey), timestamp: timestamp,
                                   sequence: firstSequence + Int64(items.count),
                                   longitude: Double(bitPattern: lon), latitude: Double(bitPattern: lat))
            items.append((entry, clientID))
        }
        return IndexQueueRecord(firstSequence: firstSequence, deviceKey: deviceKey, items: items)
    }
}
