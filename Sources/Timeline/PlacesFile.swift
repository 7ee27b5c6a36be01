/// A populated place: name, ISO 3166-1 alpha-2 country code and position (degrees).
public struct Place: Sendable, Equatable {
    public var name: String
    public var country: String
    public var location: TimelinePoint

    public init(name: String, country: String, location: TimelinePoint) {
        self.name = name
        self.country = country
        self.location = location
    }
}

/// Why a places file could not be read.
public struct PlacesFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public let offset: Int
    public var description: String { "places file: \(message) at byte \(offset)" }
}

/// Decoder of `Data/places-cities1000.bin` (written by `scripts/make-places.py`, which documents
/// the format): a magic, a table of country codes, then delta-encoded E5 coordinates, a country
/// index and a UTF-8 name per place. Every length, index and coordinate is checked: a damaged
/// file throws, it never traps.
public enum PlacesFile {
    static let magic = Array("FODPLACES\u{01}".utf8)

    public static func decode(_ bytes: [UInt8]) throws(PlacesFileError) -> [Place] {
        var reader = ByteReader(bytes: bytes)
        guard bytes.starts(with: magic) else { throw PlacesFileError(message: "not a places file (bad magic)", offset: 0) }
        reader.offset = magic.count
        let countryCount = try reader.count(max: 10_000)
        var countries: [String] = []
        for _ in 0..<countryCount {
            let code = try reader.bytes(2)
            guard code.allSatisfy({ $0 >= 65 && $0 <= 90 }) else { throw reader.error("country code not A–Z") }
            countries.append(String(decoding: code, as: UTF8.self))
        }
        let placeCount = try reader.count(max: 100_000_000)
        var places: [Place] = []
        places.reserveCapacity(min(placeCount, bytes.count / 4))
        var lat: Int64 = 0, lon: Int64 = 0
        for _ in 0..<placeCount {
            lat += try reader.zigzag()
            lon += try reader.zigzag()
            guard lat.magnitude <= 9_000_000, lon.magnitude <= 18_000_000 else { throw reader.error("coordinate out of range") }
            let country = try reader.count(max: countries.count - 1)
            let name = try reader.bytes(try reader.count(max: 4096))
            guard let text = String(validating: name, as: UTF8.self) else { throw reader.error("name is not UTF-8") }
            places.append(Place(name: text, country: countries[country],
                                location: TimelinePoint(longitude: Double(lon) / 1e5, latitude: Double(lat) / 1e5)))
        }
        guard reader.offset == bytes.count else { throw reader.error("trailing bytes") }
        return places
    }
}

/// Reads varints from bytes without ever reading past the end.
struct ByteReader {
    let bytes: [UInt8]
    var offset = 0

    func error(_ message: String) -> PlacesFileError { PlacesFileError(message: message, offset: offset) }

    mutating func varint() throws(PlacesFileError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < bytes.count else { throw error("file ends inside a number") }
            guard shift < 63 else { throw error("number too long") }
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    /// A varint in 0…max.
    mutating func count(max: Int) throws(PlacesFileError) -> Int {
        let value = try varint()
        guard max >= 0, value <= UInt64(max) else { throw error("count \(value) above \(max)") }
        return Int(value)
    }

    /// A zigzag varint, bounded to ±2⁵⁰ (far beyond any coordinate delta).
    mutating func zigzag() throws(PlacesFileError) -> Int64 {
        let raw = try varint()
        guard raw < 1 << 51 else { throw error("delta too large") }
        let magnitude = Int64(raw >> 1)
        return raw & 1 == 0 ? magnitude : -magnitude - 1
    }

    mutating func bytes(_ count: Int) throws(PlacesFileError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= bytes.count - offset else { throw error("file ends inside a string") }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }
}
